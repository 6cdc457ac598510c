//! Which ops of a block run as compiled pieces, and where pieces split.
//!
//! A piece executes its ops lane after lane (each lane runs the whole piece
//! before the next starts). That equals the interpreter's op-by-op, all-lanes
//! execution exactly when no lane can observe another lane's effects inside
//! the piece, so a piece holds only per-lane ops (pure ops, special-register
//! reads, loads and stores), and it splits before a memory op that could
//! conflict with an earlier one of the same piece in another lane: any write
//! after a read or write, or read after a write, of memory other lanes can
//! see (global, constant and shared memory, and generic addresses, which may
//! point at either); an atomic counts as a read and a write. Local memory and
//! parameters are private to the lane (or read-only) and never split.
//! Warp-wide ops (shuffles, votes, barriers, calls, matrix ops, fences) end a
//! piece and run in the driver.

use crate::engine::{abi, pure};
use crate::ir::{Function, OpKind, Space, SpecialReg};
use crate::sanitizer::deferred::DeferredLog;

/// A run `start..end` of ops of `block` compiled as one piece.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PiecePlan {
    pub block: crate::ir::Block,
    pub start: usize,
    pub end: usize,
}

/// Memory visible to other lanes that an op may touch (bit set).
const GLOBAL: u8 = 1;
const SHARED: u8 = 2;

fn visible(space: Space) -> u8 {
    match space {
        Space::Global | Space::Const => GLOBAL,
        Space::Shared => SHARED,
        Space::Generic => GLOBAL | SHARED,
        Space::Local | Space::KernelParam | Space::FrameParam => 0,
    }
}

/// Whether `kind` may reach another CTA's shared memory in a module that
/// uses clusters (`ir::uses_clusters`): shared and generic accesses, which
/// then run in the driver (`interp::cluster`).
fn reaches_cluster(kind: &OpKind) -> bool {
    match kind {
        OpKind::Ld { space, .. } | OpKind::St { space, .. } | OpKind::Atom { space, .. } => {
            matches!(space, Space::Shared | Space::Generic)
        }
        _ => false,
    }
}

/// Whether a piece can execute `kind` for one lane at a time.
pub fn runs_in_piece(kind: &OpKind) -> bool {
    match kind {
        OpKind::ReadSpecial(s) => !matches!(
            s,
            SpecialReg::Globaltimer
                | SpecialReg::GlobaltimerLo
                | SpecialReg::GlobaltimerHi
                | SpecialReg::ReservedSmem(_)
                | SpecialReg::Envreg(_)
                | SpecialReg::Cluster(_)
        ),
        OpKind::Ld { poll, .. } => !poll,
        OpKind::St { .. } | OpKind::Atom { .. } | OpKind::Nop | OpKind::Activemask => true,
        k => pure::is_pure(k),
    }
}

/// Whether a piece op touches nothing other warps can see or change: no
/// load, store or atomic of global, shared or generic memory (local memory
/// and parameters are the thread's; constants are read-only).
pub fn is_private(kind: &OpKind) -> bool {
    match kind {
        OpKind::Ld { space, .. } => *space == Space::Const || visible(*space) == 0,
        OpKind::St { space, .. } | OpKind::Atom { space, .. } => visible(*space) == 0,
        _ => true,
    }
}

/// Whether a timing piece may issue `kind` before it runs (its ops run
/// together when its first op that is not deferrable issues): an op that
/// reads and writes only the lane's registers, needs no addresses for the
/// model, cannot fault and does not read the clock (pure ops, special
/// registers other than the clock, the active mask). Nothing can observe
/// such an op's results before the warp's next op issues, so running it
/// later changes no result.
pub fn is_deferrable(kind: &OpKind) -> bool {
    match kind {
        OpKind::ReadSpecial(_) => !reads_clock(kind) && runs_in_piece(kind),
        OpKind::Activemask | OpKind::Nop => true,
        k => pure::is_pure(k),
    }
}

/// Whether a timing piece records the lanes' addresses of `kind` for the
/// timing model (`abi::Trace`): loads, stores and atomics of global, shared,
/// local and generic memory (parameters and constants are not modeled by
/// address).
pub fn is_traced(kind: &OpKind) -> bool {
    match kind {
        OpKind::Ld { space, .. } | OpKind::St { space, .. } | OpKind::Atom { space, .. } => {
            !matches!(space, Space::KernelParam | Space::FrameParam | Space::Const)
        }
        _ => false,
    }
}

/// A `%clock` read: a timing piece starts there, so that it reads the cycle
/// the model issues it at.
fn reads_clock(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::ReadSpecial(SpecialReg::Clock | SpecialReg::ClockHi | SpecialReg::Clock64)
    )
}

/// Whether a checked piece gives `kind` a slot of the deferred log (its
/// loads, stores and atomics, of any space: `sanitizer::deferred::DeferredLog`).
pub fn takes_slot(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::Ld { .. } | OpKind::St { .. } | OpKind::Atom { .. }
    )
}

/// The pieces of every block of `f` (for the timing driver with `timing`,
/// see [`super::compile_for`]). The traced ops of a timing piece are its
/// [`is_traced`] ops, in order.
/// With `cluster`, shared and generic accesses stay out of pieces
/// ([`reaches_cluster`]). With `checked` (a checked build, whose accesses
/// defer the sanitizer's hooks to the end of the piece,
/// `sanitizer::deferred::DeferredLog`), a piece holds at most
/// `DeferredLog::SLOTS` ops that [`takes_slot`]; atomics performed through
/// a helper are interpreted.
pub fn run(f: &Function, timing: bool, cluster: bool, checked: bool) -> Vec<PiecePlan> {
    let mut out = Vec::new();
    for (block, data) in f.blocks.iter() {
        let mut start: Option<usize> = None;
        let (mut read, mut wrote) = (0u8, 0u8);
        let (mut traced, mut hooked) = (0, 0);
        for (i, op) in data.ops.iter().enumerate() {
            if !runs_in_piece(&op.kind)
                || (cluster && reaches_cluster(&op.kind))
                || (checked && !super::mem::inline_atomic(op))
            {
                if let Some(s) = start.take() {
                    out.push(PiecePlan {
                        block,
                        start: s,
                        end: i,
                    });
                }
                continue;
            }
            let (r, w) = match op.kind {
                OpKind::Ld { space, .. } => (visible(space), 0),
                OpKind::St { space, .. } => (0, visible(space)),
                // Each lane's atomic reads and writes; one per piece keeps
                // the interpreter's lane order.
                OpKind::Atom { space, .. } => (visible(space), visible(space)),
                _ => (0, 0),
            };
            // Timing pieces also start at clock reads, and hold at most
            // 64 ops and `TRACE_SLOTS` traced accesses.
            let timing_split = timing
                && (reads_clock(&op.kind)
                    || start.is_some_and(|s| i - s >= 64)
                    || (is_traced(&op.kind) && traced == abi::TRACE_SLOTS));
            let conflict = (w & (read | wrote)) != 0
                || (r & wrote) != 0
                || timing_split
                || (checked && takes_slot(&op.kind) && hooked == DeferredLog::SLOTS);
            if conflict {
                if let Some(s) = start.take() {
                    out.push(PiecePlan {
                        block,
                        start: s,
                        end: i,
                    });
                }
            }
            if start.is_none() {
                start = Some(i);
                read = 0;
                wrote = 0;
                traced = 0;
                hooked = 0;
            }
            if checked && takes_slot(&op.kind) {
                hooked += 1;
            }
            read |= r;
            wrote |= w;
            traced += is_traced(&op.kind) as usize;
        }
        if let Some(s) = start {
            out.push(PiecePlan {
                block,
                start: s,
                end: data.ops.len(),
            });
        }
    }
    out
}

/// A loop compiled as a region: its lanes run one after another from
/// `header` until they leave for `exit` (see `abi::Region`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionPlan {
    pub header: crate::ir::Block,
    /// Sorted, `header` included.
    pub blocks: Vec<crate::ir::Block>,
    pub exit: crate::ir::Block,
}

/// Whether a region may hold `kind`: per-lane ops that leave no effect other
/// lanes can see (no stores to global, shared or generic memory), and none
/// whose value depends on the warp rather than the lane (`%clock`, the
/// active mask), since lanes of a region do not run in step.
fn runs_in_region(kind: &OpKind) -> bool {
    match kind {
        OpKind::St { space, .. } => visible(*space) == 0,
        OpKind::Atom { .. } | OpKind::Activemask => false,
        OpKind::ReadSpecial(SpecialReg::Clock | SpecialReg::ClockHi | SpecialReg::Clock64) => false,
        k => runs_in_piece(k),
    }
}

/// The loops of `f` that run as regions, outermost first. A loop qualifies
/// when it has a single entry (its header), leaves only to one block
/// `exit`, every branch inside reconverges inside the loop or at `exit`
/// (so SIMT execution also brings every lane to `exit` with the entry
/// mask), its terminators are jumps and branches, and its ops are
/// [`runs_in_region`]. Running such a loop lane by lane equals running it in
/// lockstep: no lane can observe another inside it.
pub fn regions(f: &Function, cluster: bool) -> Vec<RegionPlan> {
    use crate::ir::{Block, Terminator};
    use std::collections::BTreeSet;
    let cfg = &f.cfg;
    let mut found: Vec<RegionPlan> = Vec::new();
    for h in f.blocks.keys() {
        // Blocks reachable from h.
        let mut reach = BTreeSet::new();
        let mut stack = vec![h];
        while let Some(b) = stack.pop() {
            for &s in &cfg.succs[b] {
                if reach.insert(s) {
                    stack.push(s);
                }
            }
        }
        let latches: Vec<Block> = cfg.preds[h]
            .iter()
            .copied()
            .filter(|p| reach.contains(p))
            .collect();
        if latches.is_empty() {
            continue;
        }
        // The natural loop: h and what reaches a latch without passing h.
        let mut body = BTreeSet::from([h]);
        let mut stack = latches;
        while let Some(b) = stack.pop() {
            if body.insert(b) {
                stack.extend(cfg.preds[b].iter().copied());
            }
        }
        let single_entry = body
            .iter()
            .all(|&b| b == h || cfg.preds[b].iter().all(|p| body.contains(p)));
        let exits: BTreeSet<Block> = body
            .iter()
            .flat_map(|&b| cfg.succs[b].iter().copied())
            .filter(|s| !body.contains(s))
            .collect();
        if !single_entry || exits.len() != 1 {
            continue;
        }
        let exit = *exits.iter().next().unwrap();
        let ok = body.iter().all(|&b| {
            let data = &f.blocks[b];
            let term_ok = match &data.term {
                Terminator::Jump(_) => true,
                Terminator::Branch { .. } => {
                    matches!(cfg.ipdom[b], Some(r) if r == exit || body.contains(&r))
                }
                _ => false,
            };
            term_ok
                && data
                    .ops
                    .iter()
                    .all(|o| runs_in_region(&o.kind) && !(cluster && reaches_cluster(&o.kind)))
        });
        if ok {
            found.push(RegionPlan {
                header: h,
                blocks: body.into_iter().collect(),
                exit,
            });
        }
    }
    // Keep the outermost: drop regions whose header lies inside another.
    let all = found.clone();
    found.retain(|r| {
        !all.iter()
            .any(|o| o.header != r.header && o.blocks.binary_search(&r.header).is_ok())
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Ty;

    #[test]
    fn deferrable_ops_touch_only_registers() {
        let ld = |space| OpKind::Ld {
            space,
            ty: Ty::U32,
            offset: 0,
            poll: false,
        };
        assert!(is_deferrable(&OpKind::Mov));
        assert!(is_deferrable(&OpKind::ReadSpecial(SpecialReg::Tid(0))));
        assert!(is_deferrable(&OpKind::Activemask));
        // The clock reads the cycle its op issues at.
        assert!(!is_deferrable(&OpKind::ReadSpecial(SpecialReg::Clock64)));
        // Loads may fault, and the model needs local addresses.
        for space in [
            Space::Const,
            Space::KernelParam,
            Space::Local,
            Space::Global,
        ] {
            assert!(!is_deferrable(&ld(space)), "{space:?}");
        }
    }
}
