//! What a kernel reaches through calls: the functions (`Module::reached_from`),
//! and from them its static shared memory (`Module::static_shared_of`) and
//! the constructs that keep it from running (`Module::unsupported_in`).

use super::{Callee, FuncId, Module, OpKind};
use crate::front::Diagnostic;

impl Module {
    /// The functions `kernel` reaches through direct calls (itself first),
    /// and whether any of them calls through a pointer (then it may reach
    /// any function whose address is taken; callers treat that as all).
    pub fn reached_from(&self, kernel: FuncId) -> (Vec<FuncId>, bool) {
        use cranelift_codegen::entity::EntityRef;
        let mut seen = vec![false; self.functions.len()];
        let mut stack = vec![kernel];
        let mut reached = Vec::new();
        let mut indirect = false;
        while let Some(f) = stack.pop() {
            if std::mem::replace(&mut seen[f.index()], true) {
                continue;
            }
            reached.push(f);
            for op in self.functions[f].blocks.values().flat_map(|b| &b.ops) {
                match op.kind {
                    OpKind::Call {
                        callee: Callee::Direct(c),
                        ..
                    } => stack.push(c),
                    OpKind::Call {
                        callee: Callee::Indirect(_),
                        ..
                    } => indirect = true,
                    _ => {}
                }
            }
        }
        (reached, indirect)
    }

    /// What keeps `kernel` from running: the `unsupported` diagnostics of
    /// the functions it may reach (a kernel that calls through a pointer
    /// may reach any), in source order. Empty when it can run.
    pub fn unsupported_in(&self, kernel: FuncId) -> Vec<Diagnostic> {
        let (reached, indirect) = self.reached_from(kernel);
        let mut found: Vec<Diagnostic> = if indirect {
            self.functions
                .values()
                .flat_map(|f| f.unsupported.iter().cloned())
                .collect()
        } else {
            reached
                .iter()
                .flat_map(|&f| self.functions[f].unsupported.iter().cloned())
                .collect()
        };
        found.sort_by_key(|d| d.span.start);
        found.dedup();
        found
    }

    /// Static shared memory a block of `kernel` has, in bytes: the `.shared`
    /// variables it and the functions it calls name, laid out in order with
    /// their alignment (as ptxas gives each kernel its own layout; NVRTC
    /// declares every kernel's `__shared__` arrays at module scope). A
    /// kernel that calls through a pointer may reach any function.
    pub fn static_shared_of(&self, kernel: FuncId) -> u32 {
        let (reached, indirect) = self.reached_from(kernel);
        if indirect {
            return self.shared_static_size;
        }
        let used: Vec<u32> = reached
            .iter()
            .flat_map(|&f| self.functions[f].shared_used.iter().copied())
            .collect();
        let mut size = 0u64;
        for (i, v) in self.shared_vars.iter().enumerate() {
            if used.contains(&(i as u32)) {
                let a = v.align.max(1) as u64;
                size = size.div_ceil(a) * a + v.size as u64;
            }
        }
        size as u32
    }
}
