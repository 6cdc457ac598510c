//! Executing the asynchronous copies: `OpKind::CpAsync` (`cp.async`, below)
//! and `OpKind::CpAsyncBulk` (`cp.async.bulk` without a tensor map)
//! for the active lanes of a warp: each lane's copy happens at issue, in
//! 16-byte pieces (the instruction's alignment and size granule), and a
//! copy into shared memory then completes its byte count on the mbarrier
//! the instruction names (`complete_tx`, [`crate::sem::mbarrier`]), which
//! is how the waiting threads learn the data has arrived. A multicast copy
//! does both for every CTA of its mask, at the same CTA-relative offsets.

use super::check::MbarEvent;
use super::lanes::advance;
use super::lanes::Place;
use super::warp::Warp;
use super::{Cta, Fault, FaultKind};
use crate::ir::{AtomOp, Op, OpKind, Space};
use crate::runtime::memory::{AccessFault, CLUSTER_RANK_SHIFT, CLUSTER_SHARED};
use crate::sanitizer::Rw;
use crate::sem::mbarrier::Mbarrier;

/// The copy's granule: sizes are multiples of it, addresses aligned to it.
const GRANULE: u64 = 16;

/// Where a copy to `dst` completing on `bar` goes: there, or with a
/// multicast's CTA mask `ranks` to the same CTA-relative offsets in each
/// CTA of the mask, ascending.
pub(super) fn targets(
    dst: u64,
    bar: Option<u64>,
    ranks: Option<u16>,
) -> impl Iterator<Item = (u64, Option<u64>)> {
    let (mask, single) = match ranks {
        Some(m) => (m, false),
        None => (0, true),
    };
    let multicast = (0..16u64)
        .filter(move |r| mask & (1 << r) != 0)
        .map(move |r| (in_cta(dst, r), bar.map(|b| in_cta(b, r))));
    single.then_some((dst, bar)).into_iter().chain(multicast)
}

/// The `.shared::cluster` address of the location of CTA `rank` at the
/// same CTA-relative offset as `addr` (the executing CTA's shared address,
/// or a cluster address of any CTA's: `interp::cluster`).
fn in_cta(addr: u64, rank: u64) -> u64 {
    let offset = if addr >= CLUSTER_SHARED {
        addr & ((1 << CLUSTER_RANK_SHIFT) - 1)
    } else {
        addr
    };
    CLUSTER_SHARED + (rank << CLUSTER_RANK_SHIFT) + offset
}

impl Warp {
    pub(super) fn cp_async_bulk(&mut self, cta: &mut Cta, op: &Op, mask: u32) -> Result<(), Fault> {
        let OpKind::CpAsyncBulk {
            dst,
            src,
            dst_offset,
            src_offset,
            mbarrier,
            multicast,
            reduce,
        } = op.kind
        else {
            unreachable!("not a bulk copy")
        };
        for l in (0..32usize).filter(|l| mask & (1 << l) != 0) {
            let to = self
                .read(cta, &op.srcs[0], l)
                .wrapping_add(dst_offset as u64);
            let from = self
                .read(cta, &op.srcs[1], l)
                .wrapping_add(src_offset as u64);
            let size = self.read(cta, &op.srcs[2], l);
            let bar =
                mbarrier.map(|offset| self.read(cta, &op.srcs[3], l).wrapping_add(offset as u64));
            if size % GRANULE != 0 || to % GRANULE != 0 || from % GRANULE != 0 {
                let msg = format!(
                    "misaligned address: cp.async.bulk of {size} bytes from {from:#x} to {to:#x} (sizes and addresses are multiples of 16)"
                );
                return Err(self.fault(cta, FaultKind::MisalignedAddress, l as u32, Some(op), msg));
            }
            // A multicast goes to the same CTA-relative offsets in each CTA
            // of the mask (ascending ranks), its own included or not.
            let ranks = multicast.then(|| self.read(cta, &op.srcs[4], l) as u16);
            for (to, bar) in targets(to, bar, ranks) {
                self.bulk_copy(cta, op, l, (src, from), (dst, to), (size, reduce), bar)?;
                if let Some(addr) = bar {
                    self.complete_tx(cta, op, l, addr, size)?;
                }
            }
        }
        Ok(())
    }

    /// One bulk copy of `size` bytes (a multiple of the granule, both
    /// addresses aligned to it) for lane `l`, or with `reduce` the
    /// element-wise reduction of the source into the destination; its
    /// writes are those of the async agent of the mbarrier at `bar`, if
    /// any (racecheck).
    #[allow(clippy::too_many_arguments)]
    fn bulk_copy(
        &mut self,
        cta: &mut Cta,
        op: &Op,
        l: usize,
        (src, from): (Space, u64),
        (dst, to): (Space, u64),
        (size, reduce): (u64, Option<(AtomOp, u8)>),
        bar: Option<u64>,
    ) -> Result<(), Fault> {
        let completes_on = bar
            .filter(|_| cta.san.is_some())
            .and_then(|addr| self.place(cta, Space::Shared, addr, 8, l).ok());
        // A copy into another CTA of the cluster is checked there.
        let (completes_on, peer) = match completes_on {
            Some(Place::Remote(r, at)) => (Some(Place::Shared(at)), Some(r)),
            p => (p, None),
        };
        self.as_peer(cta, peer, |w, cta| w.check_copy_to(cta, completes_on));
        for at in (0..size).step_by(GRANULE as usize) {
            let a = from.wrapping_add(at);
            let s = self
                .place(cta, src, a, GRANULE, l)
                .map_err(|r| self.access_fault(cta, op, l, r, GRANULE))?;
            let b = to.wrapping_add(at);
            let d = self
                .place_for_write(cta, dst, b, GRANULE, l)
                .map_err(|r| self.access_fault(cta, op, l, r, GRANULE))?;
            self.check_access(cta, op, s, GRANULE, Rw::Read, l);
            // A reduction updates each element as a relaxed atomic would.
            let rw = if reduce.is_some() {
                Rw::Atomic
            } else {
                Rw::Write
            };
            match d {
                Place::Remote(r, at) => self.as_peer(cta, Some(r), |w, cta| {
                    w.check_access(cta, op, Place::Shared(at), GRANULE, rw, l)
                }),
                d => self.check_access(cta, op, d, GRANULE, rw, l),
            }
            match reduce {
                None => {
                    for w in [0, 8] {
                        let v = self.load_place(cta, advance(s, w), 8, l);
                        self.store_place(cta, advance(d, w), 8, v, l);
                    }
                }
                Some((rop, ty)) => {
                    let esize = super::bulk_tensor::elem_bytes(ty);
                    for w in (0..GRANULE).step_by(esize as usize) {
                        let v = self.load_place(cta, advance(s, w), esize, l);
                        self.update_place(cta, advance(d, w), esize, l, &mut |old| {
                            super::bulk_tensor::reduce_elem(rop, ty, old, v)
                        });
                    }
                }
            }
        }
        self.as_peer(cta, peer, |w, cta| w.check_copy_to(cta, None));
        Ok(())
    }

    /// Replaces the `size` bytes at `p` with `f(old)`, atomically in global
    /// memory, which CTAs running in parallel share (shared memory belongs
    /// to the CTA, or to its cluster, which runs on one thread).
    pub(super) fn update_place(
        &mut self,
        cta: &mut Cta,
        p: Place,
        size: u64,
        l: usize,
        f: &mut dyn FnMut(u64) -> u64,
    ) {
        match p {
            Place::Global(off) => {
                cta.ctx.memory.atomic_update(off, size, f);
            }
            p => {
                let old = self.load_place(cta, p, size, l);
                self.store_place(cta, p, size, f(old), l);
            }
        }
    }

    /// Runs `f` with the sanitizer state of the cluster's CTA `rank` as
    /// the CTA's own (places then name that CTA's shared memory), or as it
    /// is without a rank or outside a checked launch.
    pub(super) fn as_peer<R>(
        &mut self,
        cta: &mut Cta,
        rank: Option<u32>,
        f: impl FnOnce(&mut Self, &mut Cta) -> R,
    ) -> R {
        let Some(r) = rank.map(|r| r as usize).filter(|&r| r < cta.peer_san.len()) else {
            return f(self, cta);
        };
        std::mem::swap(&mut cta.san, &mut cta.peer_san[r]);
        let out = f(self, cta);
        std::mem::swap(&mut cta.san, &mut cta.peer_san[r]);
        out
    }

    /// Completes `bytes` transactions of the mbarrier at shared address
    /// `addr` (the end of a copy into shared memory), for lane `l`.
    pub(super) fn complete_tx(
        &mut self,
        cta: &mut Cta,
        op: &Op,
        l: usize,
        addr: u64,
        bytes: u64,
    ) -> Result<(), Fault> {
        let place = self
            .place(cta, Space::Shared, addr, 8, l)
            .map_err(|r| self.access_fault(cta, op, l, r, 8))?;
        let (Place::Shared(_) | Place::Remote(..)) = place else {
            let r = super::lanes::Refused {
                fault: AccessFault::OutOfBounds,
                space: Space::Shared,
                addr,
            };
            return Err(self.access_fault(cta, op, l, r, 8));
        };
        self.check_atomic(cta, op, place, 8, l);
        let mut m = Mbarrier::decode(self.load_place(cta, place, 8, l));
        let before = m.phase;
        m.add_tx(-(bytes as i64))
            .map_err(|e| self.misuse(cta, op, l, e))?;
        let done = MbarEvent::flipped(before, m.phase);
        let ev = MbarEvent::CopyDone(done);
        match place {
            Place::Remote(r, at) => self.as_peer(cta, Some(r), |w, cta| {
                w.check_mbarrier(cta, Place::Shared(at), l, ev)
            }),
            _ => self.check_mbarrier(cta, place, l, ev),
        }
        self.store_place(cta, place, 8, m.encode(), l);
        // Another CTA's mbarrier (a multicast's): the cluster's progress.
        if let Place::Remote(..) = place {
            cta.remote_mbarrier_changes += 1;
        } else {
            cta.mbarrier_changes += 1;
        }
        Ok(())
    }

    /// `cp.async` (4, 8 or 16 bytes per thread, global to shared): the copy
    /// at issue; only the first `srcs[2]` bytes are read, the rest zeroed.
    pub(super) fn cp_async(
        &mut self,
        cta: &mut Cta,
        op: &Op,
        lanes: impl Iterator<Item = usize>,
    ) -> Result<(), Fault> {
        let OpKind::CpAsync {
            size,
            dst_offset,
            src_offset,
        } = op.kind
        else {
            unreachable!("not cp.async")
        };
        let size = size as u64;
        for l in lanes {
            let dst = self
                .read(cta, &op.srcs[0], l)
                .wrapping_add(dst_offset as u64);
            let src = self
                .read(cta, &op.srcs[1], l)
                .wrapping_add(src_offset as u64);
            let src_size = self.read(cta, &op.srcs[2], l);
            self.check_copy_source(cta, op, l, src_size, size);
            let n = src_size.min(size);
            let to = self
                .place(cta, Space::Shared, dst, size, l)
                .map_err(|r| self.access_fault(cta, op, l, r, size))?;
            if n > 0 {
                if let Ok(from) = self.place(cta, Space::Global, src, size, l) {
                    self.check_access(cta, op, from, n, Rw::Read, l);
                }
            }
            self.check_access(cta, op, to, size, Rw::Write, l);
            if n == size {
                // A whole copy moves naturally aligned words (both
                // places are aligned to the copy size).
                let from = self
                    .place(cta, Space::Global, src, size, l)
                    .map_err(|r| self.access_fault(cta, op, l, r, size))?;
                let word = size.min(8);
                for i in (0..size).step_by(word as usize) {
                    let v = self.load_place(cta, advance(from, i), word, l);
                    self.store_place(cta, advance(to, i), word, v, l);
                }
                continue;
            }
            // A partial one reads `n` bytes and zero-fills the rest.
            let mut bytes = [0u8; 16];
            if n > 0 {
                let from = self
                    .place(cta, Space::Global, src, size, l)
                    .map_err(|r| self.access_fault(cta, op, l, r, size))?;
                for (i, b) in bytes.iter_mut().enumerate().take(n as usize) {
                    *b = self.load_place(cta, advance(from, i as u64), 1, l) as u8;
                }
            }
            for (i, b) in bytes.iter().enumerate().take(size as usize) {
                self.store_place(cta, advance(to, i as u64), 1, *b as u64, l);
            }
        }

        Ok(())
    }
}
