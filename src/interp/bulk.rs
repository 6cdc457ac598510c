//! Executing `OpKind::CpAsyncBulk` (`cp.async.bulk` without a tensor map)
//! for the active lanes of a warp: each lane's copy happens at issue, in
//! 16-byte pieces (the instruction's alignment and size granule), and a
//! copy into shared memory then completes its byte count on the mbarrier
//! the instruction names (`complete_tx`, [`crate::sem::mbarrier`]), which
//! is how the waiting threads learn the data has arrived.

use super::lanes::advance;
use super::lanes::Place;
use super::warp::Warp;
use super::{Cta, Fault, FaultKind};
use crate::ir::{Op, OpKind, Space};
use crate::runtime::memory::AccessFault;
use crate::sanitizer::Rw;
use crate::sem::mbarrier::Mbarrier;

/// The copy's granule: sizes are multiples of it, addresses aligned to it.
const GRANULE: u64 = 16;

impl Warp {
    pub(super) fn cp_async_bulk(&mut self, cta: &mut Cta, op: &Op, mask: u32) -> Result<(), Fault> {
        let OpKind::CpAsyncBulk {
            dst,
            src,
            dst_offset,
            src_offset,
            mbarrier,
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
            if size % GRANULE != 0 || to % GRANULE != 0 || from % GRANULE != 0 {
                let msg = format!(
                    "misaligned address: cp.async.bulk of {size} bytes from {from:#x} to {to:#x} (sizes and addresses are multiples of 16)"
                );
                return Err(self.fault(cta, FaultKind::MisalignedAddress, l as u32, Some(op), msg));
            }
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
                self.check_access(cta, op, d, GRANULE, Rw::Write, l);
                for w in [0, 8] {
                    let v = self.load_place(cta, advance(s, w), 8, l);
                    self.store_place(cta, advance(d, w), 8, v, l);
                }
            }
            if let Some(offset) = mbarrier {
                let addr = self.read(cta, &op.srcs[3], l).wrapping_add(offset as u64);
                let place = self
                    .place(cta, Space::Shared, addr, 8, l)
                    .map_err(|r| self.access_fault(cta, op, l, r, 8))?;
                let Place::Shared(_) = place else {
                    let r = super::lanes::Refused {
                        fault: AccessFault::OutOfBounds,
                        space: Space::Shared,
                        addr,
                    };
                    return Err(self.access_fault(cta, op, l, r, 8));
                };
                self.check_atomic(cta, op, place, 8, l);
                let mut m = Mbarrier::decode(self.load_place(cta, place, 8, l));
                m.add_tx(-(size as i64))
                    .map_err(|e| self.misuse(cta, op, l, e))?;
                self.store_place(cta, place, 8, m.encode(), l);
                cta.mbarrier_changes += 1;
            }
        }
        Ok(())
    }
}
