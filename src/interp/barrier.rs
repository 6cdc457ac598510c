//! A CTA barrier's arrival (`bar.sync`, `bar.arrive`, `bar.red`, named
//! barriers and thread counts) by a warp's active lanes, and the lanes of
//! a warp that, having nothing left but to exit, exit there (independent
//! thread scheduling's view of an early `return`).

use super::warp::{Flow, Warp};
use super::{Cta, Fault, FaultKind};
use crate::ir::{BarKind, Block, Op};

impl Warp {
    pub(super) fn barrier(
        &mut self,
        cta: &mut Cta,
        op: &Op,
        mask: u32,
        kind: BarKind,
        has_count: bool,
        negate: bool,
    ) -> Result<Flow, Fault> {
        let mut live = self.valid & !self.exited;
        let first = mask.trailing_zeros() as usize;
        let synccheck = cta.ctx.sanitizer.is_some_and(|s| s.checks.synccheck);
        if mask != live && !synccheck {
            // The lanes that did not come have nothing left to do but exit
            // (an early `return` of the kernel): with independent thread
            // scheduling (sm_70 on) they exit and the barrier, which counts
            // the threads that have not exited, completes without them.
            // Synccheck keeps CUDA's rule (a barrier in conditional code
            // must be reached by the whole block) and reports it.
            let idle = self.idle_until_exit(cta, live & !mask);
            if idle != 0 {
                self.exit_lanes(idle);
                live &= !idle;
            }
        }
        if mask != live {
            let msg = format!(
                "divergent barrier: only lanes {mask:#010x} of warp {} reached it, live lanes are {live:#010x}",
                self.index
            );
            return Err(self.fault(
                cta,
                FaultKind::DivergentBarrier,
                first as u32,
                Some(op),
                msg,
            ));
        }
        let id = self.read(cta, &op.srcs[0], first) as u32;
        if id >= 16 {
            return Err(self.fault(
                cta,
                FaultKind::IllegalAddress,
                first as u32,
                Some(op),
                format!("barrier {id} does not exist (0 to 15)"),
            ));
        }
        let count = has_count.then(|| self.read(cta, &op.srcs[1], first) as u32);
        // Racecheck: a partial round orders only its own threads.
        if kind == BarKind::Arrive || count.is_some_and(|c| c < cta.nthreads) {
            let base = self.index * 32;
            if let Some(c) = cta.san.as_deref_mut().and_then(|s| s.shadow.clocks()) {
                let lanes = (0..32u32).filter(|l| mask & (1 << l) != 0);
                c.bar_arrive(id as usize, lanes.map(|l| base + l));
            }
        }
        let pred_src = if has_count { 2 } else { 1 };
        let red = matches!(kind, BarKind::RedPopc | BarKind::RedAnd | BarKind::RedOr);
        let b = &mut cta.barriers[id as usize];
        b.arrived += mask.count_ones();
        if count.is_some() {
            b.expected = count;
        }
        if let Some(c) = count {
            let arrived = b.arrived;
            self.check_barrier(cta, op, first as u32, id, c, arrived);
        } else if kind != BarKind::Arrive {
            self.check_barrier_site(cta, op, first as u32, id);
        }
        if red {
            for l in (0..32usize).filter(|l| mask & (1 << l) != 0) {
                let p = (self.read(cta, &op.srcs[pred_src], l) & 1 != 0) != negate;
                let b = &mut cta.barriers[id as usize];
                if p {
                    b.trues += 1;
                } else {
                    b.falses += 1;
                }
            }
        }
        if kind == BarKind::Arrive {
            return Ok(Flow::Next);
        }
        let dst = if red {
            op.dsts.first().map(|&d| (self.row(cta, d), mask, kind))
        } else {
            None
        };
        Ok(Flow::Barrier { id, dst })
    }

    /// The lanes of `lanes` that wait where nothing is left for them but to
    /// exit: their innermost SIMT-stack entry is in the kernel's frame, at a
    /// point from which only empty blocks and jumps lead to `ret` or `exit`
    /// (where an early `return` waits to reconverge).
    pub(super) fn idle_until_exit(&self, cta: &Cta, lanes: u32) -> u32 {
        let mut seen = 0u32;
        let mut idle = 0u32;
        for (depth, frame) in self.frames.iter().enumerate().rev() {
            let f = &cta.ctx.module.functions[frame.func];
            for e in frame.stack.iter().rev() {
                let here = e.mask & lanes & !seen;
                if here == 0 {
                    continue;
                }
                seen |= here;
                if depth == 0 && only_exit_from(f, e.block, e.pc) {
                    idle |= here;
                }
            }
        }
        idle
    }
}

/// Whether a kernel's code at `pc` of `block` only exits: no operation
/// left, then jumps through empty blocks to `ret` or `exit` (a few at most).
fn only_exit_from(f: &crate::ir::Function, block: Block, pc: usize) -> bool {
    use crate::ir::Terminator;
    let (mut b, mut pc) = (block, pc);
    for _ in 0..8 {
        let data = &f.blocks[b];
        if pc < data.ops.len() {
            return false;
        }
        match data.term {
            Terminator::Ret | Terminator::Exit => return true,
            Terminator::Jump(next) => (b, pc) = (next, 0),
            _ => return false,
        }
    }
    false
}
