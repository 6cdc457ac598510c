//! What one memory op accesses, as the timing model sees it: the access's
//! kind, space and size, and each lane's address, read from the warp's
//! registers before the op runs ([`Warp::step`] fills an [`Access`]) or
//! from the trace a timing piece recorded.

use super::drive::Position;
use super::warp::Warp;
use super::Cta;
use crate::engine::abi;
use crate::ir::{self, Op, OpKind, Space};
use crate::runtime::memory::{LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE};

/// How a memory op touches memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Load,
    Store,
    Atomic,
}

/// What one memory op accesses, as the timing model sees it; the lanes'
/// addresses go to a buffer of the caller's (per lane: the device address
/// (global), the offset in the CTA's shared memory, or the offset in the
/// lane's local memory).
#[derive(Clone, Copy, Debug)]
pub struct Access {
    pub kind: AccessKind,
    /// The space after decoding a generic address (by its first lane).
    pub space: Space,
    /// Bytes per lane.
    pub size: u32,
    /// Lanes that access (the guard applied).
    pub mask: u32,
}

impl Default for Access {
    fn default() -> Access {
        Access {
            kind: AccessKind::Load,
            space: Space::Global,
            size: 0,
            mask: 0,
        }
    }
}

impl Warp {
    /// How `op` touches memory the timing model follows by address (kind,
    /// space, offset, bytes per lane), if it does.
    fn access_shape(op: &Op) -> Option<(AccessKind, Space, i64, u32)> {
        let shape = match &op.kind {
            OpKind::Ld {
                space, ty, offset, ..
            } => (
                AccessKind::Load,
                *space,
                *offset,
                ty.bytes() * op.dsts.len() as u32,
            ),
            OpKind::St { space, ty, offset } => (
                AccessKind::Store,
                *space,
                *offset,
                ty.bytes() * (op.srcs.len() as u32 - 1),
            ),
            OpKind::Atom {
                space,
                ty,
                offset,
                vec,
                ..
            } => (
                AccessKind::Atomic,
                *space,
                *offset,
                ty.bytes() * u32::from((*vec).max(1)),
            ),
            _ => return None,
        };
        (!matches!(
            shape.1,
            Space::KernelParam | Space::FrameParam | Space::Const
        ))
        .then_some(shape)
    }

    /// The per-lane addresses of `op` if it accesses global, shared or local
    /// memory (for the timing model; execution does not use this).
    pub(super) fn lane_access(
        &self,
        cta: &Cta,
        op: &Op,
        active: u32,
        out: &mut Access,
        addrs: &mut [u64; 32],
    ) -> bool {
        let Some((kind, space, offset, size)) = Self::access_shape(op) else {
            return false;
        };
        let Some(frame) = self.frames.last() else {
            return false;
        };
        let regs = &frame.regs;
        let mut mask = active;
        if let Some(g) = op.guard {
            for (lane, v) in regs[self.row(cta, g.reg)].iter().enumerate() {
                if (v & 1 != 0) == g.negated {
                    mask &= !(1 << lane);
                }
            }
        }
        if let ir::Src::Reg(r) = op.srcs[0] {
            let values = &regs[self.row(cta, r)];
            for (a, v) in addrs.iter_mut().zip(values) {
                *a = v.wrapping_add(offset as u64);
            }
        } else {
            for (lane, a) in addrs.iter_mut().enumerate() {
                if mask & (1 << lane) != 0 {
                    *a = self
                        .read(cta, &op.srcs[0], lane)
                        .wrapping_add(offset as u64);
                }
            }
        }
        let window = Self::decode_access(kind, space, size, mask, out, addrs);
        if window != 0 {
            addrs.iter_mut().for_each(|a| *a = a.wrapping_sub(window));
        }
        true
    }

    /// The addresses the last timing piece recorded for the op at `at`
    /// (see [`Warp::step`]), if it is one of its traced accesses.
    /// Its addresses are the trace's own where they need no decoding (the
    /// usual case: no copy), else decoded into `copy`.
    pub fn traced_access<'w>(
        &'w self,
        cta: &Cta,
        at: Position,
        out: &mut Access,
        copy: &'w mut [u64; 32],
    ) -> Option<&'w [u64; 32]> {
        let (func, block, start, traced) = self.traced?;
        if (func, block) != (at.func, at.block) {
            return None;
        }
        let slot = abi::trace_slot(traced, start, at.pc)?;
        let op = &cta.ctx.module.functions[func].blocks[block].ops[at.pc];
        let (kind, space, _, size) = Self::access_shape(op)?;
        let trace = self.trace.as_ref()?;
        let addrs = &trace.addrs[slot];
        let mask = trace.masks[slot];
        match Self::decode_access(kind, space, size, mask, out, addrs) {
            0 => Some(addrs),
            window => {
                for (c, a) in copy.iter_mut().zip(addrs) {
                    *c = a.wrapping_sub(window);
                }
                Some(copy)
            }
        }
    }

    /// Fills in an access whose `addrs` are the lanes' addresses in
    /// `space`: a generic access goes to the space of its first lane's
    /// address, as an offset there. Returns the window base to subtract
    /// from every address (0: none).
    fn decode_access(
        kind: AccessKind,
        space: Space,
        size: u32,
        mask: u32,
        out: &mut Access,
        addrs: &[u64; 32],
    ) -> u64 {
        let first = addrs[(mask.trailing_zeros() as usize).min(31)];
        let (space, window) = match space {
            Space::Generic if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&first) => {
                (Space::Shared, SHARED_WINDOW)
            }
            Space::Generic if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&first) => {
                (Space::Local, LOCAL_WINDOW)
            }
            Space::Generic if (PARAM_WINDOW..PARAM_WINDOW + WINDOW_SIZE).contains(&first) => {
                (Space::KernelParam, PARAM_WINDOW)
            }
            Space::Generic => (Space::Global, 0),
            s => (s, 0),
        };
        out.kind = kind;
        out.space = space;
        out.size = size;
        out.mask = mask;
        window
    }
}
