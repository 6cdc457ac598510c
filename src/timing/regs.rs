//! Registers per thread, for occupancy: from the user (`--regs N`), from a
//! ptxas `-v` log, or estimated from the IR. The estimate is the peak
//! register pressure: the most 32-bit register slots live at any point of
//! the kernel or any function it may call (64-bit values take two,
//! predicates none, as they live in predicate registers), scaled by 4/5
//! (ptxas packs better than PTX's live ranges suggest: rematerialization,
//! constant-bank operands), plus two it keeps beside the program's values.
//! The 4/5 was fitted on the corpus against ptxas 12.9; the error there
//! (mean |relative error| 24%, 94% of kernels within 50%) is checked by
//! `tests/timing_regs.rs` and stated in `docs/timing-model.md`. A kernel's
//! `.maxnreg` bounds the estimate, as it bounds what ptxas allocates.

use cranelift_codegen::entity::EntityRef;

use crate::ir::liveness::{step_back, Liveness, RegSet};
use crate::ir::{Callee, FuncId, Function, Module, OpKind, Ty};

fn slots(ty: Ty) -> u32 {
    match ty {
        Ty::Pred => 0,
        t if t.bits() > 32 => 2,
        _ => 1,
    }
}

/// Peak live 32-bit slots of one function.
pub fn pressure(f: &Function) -> u32 {
    if f.external {
        return 0;
    }
    let live = Liveness::compute(f);
    let weight: Vec<u32> = f.regs.values().map(|r| slots(r.ty)).collect();
    // Registers of one and of two slots as bit masks: a set's weight is two
    // population counts per word.
    let words = weight.len().div_ceil(64);
    let (mut one, mut two) = (vec![0u64; words], vec![0u64; words]);
    for (i, &w) in weight.iter().enumerate() {
        match w {
            1 => one[i / 64] |= 1 << (i % 64),
            2 => two[i / 64] |= 1 << (i % 64),
            _ => {}
        }
    }
    let count = |set: &RegSet| -> u32 {
        set.words()
            .iter()
            .zip(one.iter().zip(&two))
            .map(|(s, (o, t))| (s & o).count_ones() + 2 * (s & t).count_ones())
            .sum()
    };
    let mut peak = 0;
    for (b, data) in f.blocks.iter() {
        let mut set = live.live_at(f, b, data.ops.len());
        peak = peak.max(count(&set));
        for op in data.ops.iter().rev() {
            step_back(&mut set, op);
            // Results and operands are live together at the op.
            let defs: u32 = op.dsts.iter().map(|d| weight[d.index()]).sum();
            peak = peak.max(count(&set) + defs);
        }
    }
    peak
}

/// The estimated registers per thread of kernel `k` (see the module doc).
pub fn estimate(module: &Module, k: FuncId) -> u32 {
    let mut seen = vec![false; module.functions.len()];
    let mut stack = vec![k];
    let mut peak = 0;
    while let Some(f) = stack.pop() {
        if std::mem::replace(&mut seen[f.index()], true) {
            continue;
        }
        let func = &module.functions[f];
        peak = peak.max(pressure(func));
        for b in func.blocks.values() {
            for op in &b.ops {
                if let OpKind::Call {
                    callee: Callee::Direct(c),
                    ..
                } = op.kind
                {
                    stack.push(c);
                }
            }
        }
    }
    let estimate = (peak * 4 / 5 + 2).clamp(8, 255);
    // ptxas meets a `.maxnreg` bound by spilling.
    match module.functions[k].maxnreg {
        Some(max) => estimate.min(max.max(1)),
        None => estimate,
    }
}

/// Registers per thread of `kernel` from a ptxas `-v` log (the line
/// `Compiling entry function 'NAME'` followed by `Used N registers`).
pub fn from_ptxas_log(log: &str, kernel: &str) -> Option<u32> {
    let mut current = false;
    for line in log.lines() {
        if let Some(i) = line.find("Compiling entry function '") {
            let rest = &line[i + "Compiling entry function '".len()..];
            current = rest.split('\'').next() == Some(kernel);
        } else if current {
            if let Some(i) = line.find("Used ") {
                let n = line[i + 5..].split_whitespace().next()?;
                if line[i..].contains("registers") {
                    return n.parse().ok();
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_a_ptxas_log() {
        let log = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'other' for 'sm_80'\n\
ptxas info    : Used 12 registers, used 0 barriers, 368 bytes cmem[0]\n\
ptxas info    : Compiling entry function 'saxpy' for 'sm_80'\n\
ptxas info    : Function properties for saxpy\n\
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Used 10 registers, used 0 barriers, 380 bytes cmem[0]\n";
        assert_eq!(super::from_ptxas_log(log, "saxpy"), Some(10));
        assert_eq!(super::from_ptxas_log(log, "other"), Some(12));
        assert_eq!(super::from_ptxas_log(log, "none"), None);
    }
}
