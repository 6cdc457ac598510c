//! The access hooks both engines call: one thread's access of decoded
//! memory goes to global memory's written bits (initcheck) and the CTA's
//! records of the global memory it touched (racecheck), or to the CTA's
//! shared-memory shadow (initcheck, racecheck). The interpreter calls them
//! from `interp::check`, compiled pieces through `jit::helpers::jit_check`;
//! both pass the same [`Spot`] and [`Who`], so the findings are the same.

use super::shadow::InitShadow;
use super::shared::Who;
use super::{Access, CtaState, Finding, Rw};
use crate::ir::Space;

/// Where a checked access lands, decoded (accesses of local memory, of the
/// parameters and of another CTA's shared memory are not checked).
#[derive(Clone, Copy, Debug)]
pub enum Spot {
    /// Global (or constant) memory: the arena offset and the device address.
    Global { off: u64, addr: u64 },
    /// This CTA's shared memory, at this offset.
    Shared(usize),
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
            if let Some(init) = init {
                match rw {
                    Rw::Write | Rw::Atomic => init.set(off, size, true),
                    Rw::Read => {
                        if init.first_unwritten(off, size).is_some() {
                            san.findings.add(uninitialized(addr, size, who));
                        }
                    }
                }
            }
            let (shadow, out) = (&mut san.shadow, &mut san.findings);
            match rw {
                Rw::Read => shadow.global_read(off, addr, size as usize, who, out),
                Rw::Write => shadow.global_write(off, addr, size as usize, who, out),
                Rw::Atomic => {}
            }
        }
        Spot::Shared(at) => match rw {
            Rw::Read => san.shadow.read(at, size as usize, who, &mut san.findings),
            Rw::Write | Rw::Atomic => san.shadow.write(at, size as usize, who, &mut san.findings),
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
                san.findings.add(uninitialized(addr, size, who));
            } else {
                init.set(off, size, true);
            }
        }
        Spot::Shared(at) => san
            .shadow
            .atomic(at, size as usize, reads, who, &mut san.findings),
    }
}

fn uninitialized(addr: u64, size: u64, who: &Who) -> Finding {
    Finding::Uninitialized {
        space: Space::Global,
        addr,
        size: size as u32,
        access: Access {
            rw: Rw::Read,
            thread: who.thread,
            site: who.site,
        },
    }
}
