//! The access hooks both engines call: one thread's access of decoded
//! memory goes to global memory's written bits (initcheck) and the CTA's
//! records of the global memory it touched (racecheck), the CTA's
//! shared-memory shadow (initcheck, racecheck) or the thread's local
//! written bits (initcheck). The interpreter calls them
//! from `interp::check`, compiled code through its deferred log's replay
//! (`super::deferred`, in the interpreter's order); both pass the same
//! [`Spot`] and [`Who`], so the findings are the same.

use super::hb::sync_key;
use super::shadow::InitShadow;
use super::shared::Who;
use super::{Access, CtaState, Finding, Rw};
use crate::ir::{MemOrder, Op, OpKind, Space};

/// The memory order racecheck takes from `op`: its `.sem` qualifier for
/// loads, stores and atomics, `Plain` for everything else (mbarriers,
/// copies: ordered by their own rules).
#[inline]
pub fn order_of(op: &Op) -> MemOrder {
    match op.kind {
        OpKind::Ld { .. } | OpKind::St { .. } | OpKind::Atom { .. } => op.order,
        _ => MemOrder::Plain,
    }
}

/// Where a checked access lands, decoded (accesses of the parameters,
/// `.param` frame bytes included, and of another CTA's shared memory are
/// not checked).
#[derive(Clone, Copy, Debug)]
pub enum Spot {
    /// Global (or constant) memory: the arena offset and the device address.
    Global { off: u64, addr: u64 },
    /// This CTA's shared memory, at this offset.
    Shared(usize),
    /// The accessing thread's local memory, at this offset.
    Local(usize),
}

impl Spot {
    /// The key of the location's release/acquire sync object
    /// ([`sync_key`]); none for local memory, which no other thread sees.
    fn sync_key(self) -> Option<u64> {
        match self {
            Spot::Global { off, .. } => Some(sync_key(true, off)),
            Spot::Shared(at) => Some(sync_key(false, at as u64)),
            Spot::Local(_) => None,
        }
    }
}

/// One thread's load or store of `size` bytes at `spot`, of memory order
/// `order` ([`order_of`]): a strong one is recorded as such and then
/// synchronizes (`SharedShadow::strong`).
#[inline(always)]
pub fn access(
    san: &mut CtaState,
    init: Option<&InitShadow>,
    spot: Spot,
    size: u64,
    rw: Rw,
    order: MemOrder,
    who: &Who,
) {
    match spot {
        Spot::Global { off, addr } => {
            if let Some(init) = init {
                match rw {
                    Rw::Write | Rw::Atomic => init.set(off, size, true),
                    Rw::Read => {
                        if init.first_unwritten(off, size).is_some() {
                            san.findings
                                .add(uninitialized(Space::Global, addr, size, who));
                        }
                    }
                }
            }
            let at = (off, addr, size as usize);
            san.shadow
                .global_access(at, rw, order, who, &mut san.findings);
        }
        Spot::Shared(at) => {
            let (shadow, out) = (&mut san.shadow, &mut san.findings);
            match rw {
                _ if order != MemOrder::Plain => {
                    shadow.strong(at, size as usize, rw, order, who, out)
                }
                Rw::Read => shadow.read(at, size as usize, who, out),
                Rw::Write | Rw::Atomic => shadow.write(at, size as usize, who, out),
            }
        }
        Spot::Local(at) => match rw {
            Rw::Read => {
                if san.local.unwritten(who.thread, at, size as usize) {
                    san.findings
                        .add(uninitialized(Space::Local, at as u64, size, who));
                }
            }
            Rw::Write | Rw::Atomic => san.local.write(who.thread, at, size as usize),
        },
    }
}

/// One thread's atomic of `size` bytes at `spot`; `reads`: all but an
/// exchange read the value they update, so bytes never written are an
/// uninitialized read and stay unwritten (see `interp::check`). Atomics are
/// not recorded for racecheck (as compute-sanitizer's: a CAS loop's plain
/// first read of what atomics update is the idiom); one of memory order
/// `order` then acquires from or releases to its location
/// (`SharedShadow::synchronize`).
#[inline]
pub fn atomic(
    san: &mut CtaState,
    init: Option<&InitShadow>,
    spot: Spot,
    size: u64,
    reads: bool,
    order: MemOrder,
    who: &Who,
) {
    if let Some(key) = spot.sync_key() {
        san.shadow.synchronize(key, order, who.thread);
    }
    match spot {
        Spot::Global { off, addr } => {
            if let Some(init) = init {
                if reads && init.first_unwritten(off, size).is_some() {
                    san.findings
                        .add(uninitialized(Space::Global, addr, size, who));
                } else {
                    init.set(off, size, true);
                }
            }
        }
        Spot::Shared(at) => san
            .shadow
            .atomic(at, size as usize, reads, who, &mut san.findings),
        Spot::Local(at) => {
            if reads && san.local.unwritten(who.thread, at, size as usize) {
                san.findings
                    .add(uninitialized(Space::Local, at as u64, size, who));
            } else {
                san.local.write(who.thread, at, size as usize);
            }
        }
    }
}

fn uninitialized(space: Space, addr: u64, size: u64, who: &Who) -> Finding {
    Finding::Uninitialized {
        space,
        addr,
        size: size as u32,
        access: Access {
            rw: Rw::Read,
            thread: who.thread,
            site: who.site,
        },
    }
}
