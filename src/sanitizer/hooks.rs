//! The access hooks both engines call: one thread's access of decoded
//! memory goes to global memory's written bits (initcheck), the CTA's
//! shared-memory shadow (initcheck, racecheck) or the thread's local
//! written bits (initcheck). The interpreter calls them
//! from `interp::check`, compiled pieces through `jit::helpers::jit_check`;
//! both pass the same [`Spot`] and [`Who`], so the findings are the same.

use super::shadow::InitShadow;
use super::shared::Who;
use super::{Access, CtaState, Finding, Rw};
use crate::ir::Space;

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

/// One thread's load or store of `size` bytes at `spot`.
#[inline]
pub fn access(
    san: &mut CtaState,
    init: Option<&InitShadow>,
    spot: Spot,
    size: u64,
    rw: Rw,
    who: &Who,
) {
    match spot {
        Spot::Global { off, addr } => {
            let Some(init) = init else {
                return;
            };
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
        Spot::Shared(at) => match rw {
            Rw::Read => san.shadow.read(at, size as usize, who, &mut san.findings),
            Rw::Write | Rw::Atomic => san.shadow.write(at, size as usize, who, &mut san.findings),
        },
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
/// uninitialized read and stay unwritten (see `interp::check`).
#[inline]
pub fn atomic(
    san: &mut CtaState,
    init: Option<&InitShadow>,
    spot: Spot,
    size: u64,
    reads: bool,
    who: &Who,
) {
    match spot {
        Spot::Global { off, addr } => {
            let Some(init) = init else {
                return;
            };
            if reads && init.first_unwritten(off, size).is_some() {
                san.findings
                    .add(uninitialized(Space::Global, addr, size, who));
            } else {
                init.set(off, size, true);
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
