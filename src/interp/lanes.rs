//! Per-lane memory access: decoding a space and address into global, shared,
//! local or parameter memory, with bounds and alignment checks.

use super::warp::Warp;
use super::Cta;
use crate::ir::Space;
use crate::runtime::memory::{
    AccessFault, CLUSTER_SHARED, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE,
};

/// Where an access lands after decoding.
#[derive(Clone, Copy, Debug)]
pub(super) enum Place {
    /// Checked arena offset.
    Global(u64),
    Shared(usize),
    /// Another CTA of the cluster's shared memory: its rank and offset
    /// (`cluster.rs`).
    Remote(u32, usize),
    Local(usize),
    KernelParam(usize),
}

/// A refused access: what and where.
pub(super) struct Refused {
    pub fault: AccessFault,
    pub space: Space,
    pub addr: u64,
}

fn bounded(off: u64, size: u64, len: usize) -> Result<usize, AccessFault> {
    match off.checked_add(size) {
        Some(end) if end <= len as u64 => Ok(off as usize),
        _ => Err(AccessFault::OutOfBounds),
    }
}

impl Warp {
    /// Decodes and checks an access of `size` bytes.
    pub(super) fn place(
        &self,
        cta: &Cta,
        space: Space,
        addr: u64,
        size: u64,
        lane: usize,
    ) -> Result<Place, Refused> {
        let refuse = |fault| Refused { fault, space, addr };
        let align = size.clamp(1, 32);
        let (space_now, off) = match space {
            Space::Generic => {
                if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&addr) {
                    (Space::Shared, addr - SHARED_WINDOW)
                } else if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&addr) {
                    (Space::Local, addr - LOCAL_WINDOW)
                } else if (PARAM_WINDOW..PARAM_WINDOW + WINDOW_SIZE).contains(&addr) {
                    (Space::KernelParam, addr - PARAM_WINDOW)
                } else {
                    (Space::Global, addr)
                }
            }
            Space::FrameParam => {
                let base = self.frames.last().map(|f| f.base).unwrap_or(0) as u64;
                (Space::Local, base.wrapping_add(addr))
            }
            other => (other, addr),
        };
        match space_now {
            Space::Global | Space::Const => cta
                .ctx
                .memory
                .check(off, size)
                .map(Place::Global)
                .map_err(refuse),
            Space::Shared => {
                if off % align != 0 {
                    return Err(refuse(AccessFault::Misaligned));
                }
                if off >= CLUSTER_SHARED {
                    return self.cluster_place(cta, off, size, refuse);
                }
                bounded(off, size, cta.shared.len())
                    .map(Place::Shared)
                    .map_err(refuse)
            }
            Space::Local => {
                if off % align != 0 {
                    return Err(refuse(AccessFault::Misaligned));
                }
                bounded(off, size, self.local[lane].len())
                    .map(Place::Local)
                    .map_err(refuse)
            }
            Space::KernelParam => bounded(off, size, cta.ctx.params.len())
                .map(Place::KernelParam)
                .map_err(refuse),
            Space::FrameParam | Space::Generic => unreachable!("decoded above"),
        }
    }

    /// As [`Warp::place`], for an access that writes: the kernel
    /// parameters, reachable through a generic address, are read-only.
    pub(super) fn place_for_write(
        &self,
        cta: &Cta,
        space: Space,
        addr: u64,
        size: u64,
        lane: usize,
    ) -> Result<Place, Refused> {
        match self.place(cta, space, addr, size, lane)? {
            Place::KernelParam(_) => Err(Refused {
                fault: AccessFault::OutOfBounds,
                space,
                addr,
            }),
            place => Ok(place),
        }
    }

    pub(super) fn load_place(&self, cta: &Cta, place: Place, size: u64, lane: usize) -> u64 {
        let read = |bytes: &[u8], at: usize| {
            let mut v = [0u8; 8];
            v[..size as usize].copy_from_slice(&bytes[at..at + size as usize]);
            u64::from_le_bytes(v)
        };
        match place {
            Place::Global(off) => cta.ctx.memory.load(off, size),
            Place::Shared(at) => read(&cta.shared, at),
            Place::Remote(r, at) => read(&cta.peers[r as usize], at),
            Place::Local(at) => read(&self.local[lane], at),
            Place::KernelParam(at) => read(cta.ctx.params, at),
        }
    }

    pub(super) fn store_place(
        &mut self,
        cta: &mut Cta,
        place: Place,
        size: u64,
        value: u64,
        lane: usize,
    ) {
        let bytes = value.to_le_bytes();
        match place {
            Place::Global(off) => cta.ctx.memory.store(off, size, value),
            Place::Shared(at) => {
                cta.shared[at..at + size as usize].copy_from_slice(&bytes[..size as usize])
            }
            Place::Remote(r, at) => cta.peers[r as usize][at..at + size as usize]
                .copy_from_slice(&bytes[..size as usize]),
            Place::Local(at) => {
                self.local[lane][at..at + size as usize].copy_from_slice(&bytes[..size as usize])
            }
            // Kernel parameters are read-only: the lowering never emits
            // stores to them, and `place_for_write` refuses generic ones.
            Place::KernelParam(_) => {}
        }
    }

    /// Reads a NUL-terminated string at a generic address (for printf and assert).
    pub(super) fn read_cstr(&self, cta: &Cta, addr: u64, lane: usize) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        for i in 0..65536u64 {
            let place = self
                .place(cta, Space::Generic, addr.wrapping_add(i), 1, lane)
                .map_err(|_| format!("string at {:#x} runs outside memory", addr))?;
            let b = self.load_place(cta, place, 1, lane) as u8;
            if b == 0 {
                return Ok(out);
            }
            out.push(b);
        }
        Err(format!("string at {addr:#x} is longer than 64 KiB"))
    }
}

/// The place `by` bytes further on.
pub(super) fn advance(p: Place, by: u64) -> Place {
    match p {
        Place::Global(o) => Place::Global(o + by),
        Place::Shared(o) => Place::Shared(o + by as usize),
        Place::Remote(r, o) => Place::Remote(r, o + by as usize),
        Place::Local(o) => Place::Local(o + by as usize),
        Place::KernelParam(o) => Place::KernelParam(o + by as usize),
    }
}
