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
//! point at either). Local memory and parameters are private to the lane (or
//! read-only) and never split. Warp-wide ops (shuffles, votes, barriers,
//! calls, atomics, matrix ops, fences) end a piece and run in the driver.

use crate::interp::pure;
use crate::ir::{Function, OpKind, Space, SpecialReg};

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

/// Whether a piece can execute `kind` for one lane at a time.
pub fn runs_in_piece(kind: &OpKind) -> bool {
    match kind {
        OpKind::ReadSpecial(s) => !matches!(
            s,
            SpecialReg::Globaltimer | SpecialReg::GlobaltimerLo | SpecialReg::GlobaltimerHi
        ),
        OpKind::Ld { .. } | OpKind::St { .. } | OpKind::Nop | OpKind::Activemask => true,
        k => pure::is_pure(k),
    }
}

/// The pieces of every block of `f`.
pub fn run(f: &Function) -> Vec<PiecePlan> {
    let mut out = Vec::new();
    for (block, data) in f.blocks.iter() {
        let mut start: Option<usize> = None;
        let (mut read, mut wrote) = (0u8, 0u8);
        for (i, op) in data.ops.iter().enumerate() {
            if !runs_in_piece(&op.kind) {
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
                _ => (0, 0),
            };
            let conflict = (w & (read | wrote)) != 0 || (r & wrote) != 0;
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
            }
            read |= r;
            wrote |= w;
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
