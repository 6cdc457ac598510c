//! Executing the tensor memory accelerator's copies for the active lanes of
//! a warp: `OpKind::CpAsyncBulkTensor` (`cp.async.bulk.tensor` and
//! `cp.reduce.async.bulk.tensor`, tile mode) and
//! `OpKind::TensormapReplace`. Each lane reads its 128-byte tensor
//! map (`sem::tensor_map`; bytes that are not one are a `bad_tensor_map`
//! fault), then moves the box at its coordinates element by element at
//! issue: a load fills out-of-bounds elements (zero, or NaN with the NaN
//! fill), writes shared memory at the swizzled address, and completes the
//! whole box's bytes on the mbarrier; a store (or reduction) writes only
//! the in-bounds elements. Every access goes through the same checked
//! places as `ld`/`st`, so a bad address is an access fault, never a host
//! access. The JIT runs these ops in its driver, through this code.

use super::bulk::targets;
use super::lanes::{Place, Refused};
use super::warp::Warp;
use super::{Cta, Fault, FaultKind};
use crate::ir::{AtomOp, Op, OpKind, Space};
use crate::runtime::memory::{AccessFault, GLOBAL_BASE};
use crate::sanitizer::Rw;
use crate::sem::tensor_map::{self, TensorMap};

impl Warp {
    /// The tensor map at generic address `addr`: a register from `mov` of
    /// a parameter's name holds its parameter-space offset, which no
    /// global address is below `GLOBAL_BASE`, so such a small address is
    /// read as that parameter.
    fn tensor_map(&self, cta: &Cta, op: &Op, l: usize, addr: u64) -> Result<TensorMap, Fault> {
        let size = tensor_map::SIZE as u64;
        let place = match self.place(cta, Space::Generic, addr, size, l) {
            Ok(p) => Ok(p),
            Err(_) if addr < GLOBAL_BASE => self.place(cta, Space::KernelParam, addr, size, l),
            Err(r) => Err(r),
        }
        .map_err(|r| self.access_fault(cta, op, l, r, size))?;
        let mut bytes = [0u8; tensor_map::SIZE];
        for (i, chunk) in bytes.chunks_mut(8).enumerate() {
            let v = self.load_place(cta, super::lanes::advance(place, 8 * i as u64), 8, l);
            chunk.copy_from_slice(&v.to_le_bytes());
        }
        TensorMap::from_bytes(&bytes).map_err(|e| {
            let msg = format!("bad tensor map at {addr:#x}: {e}");
            self.fault(cta, FaultKind::BadTensorMap, l as u32, Some(op), msg)
        })
    }

    pub(super) fn cp_async_bulk_tensor(
        &mut self,
        cta: &mut Cta,
        op: &Op,
        mask: u32,
    ) -> Result<(), Fault> {
        let OpKind::CpAsyncBulkTensor {
            load,
            rank,
            reduce,
            smem_offset,
            tmap_offset,
            mbarrier,
            multicast,
        } = op.kind
        else {
            unreachable!("not a tensor copy")
        };
        let rank = rank as usize;
        for l in (0..32usize).filter(|l| mask & (1 << l) != 0) {
            let smem = self
                .read(cta, &op.srcs[0], l)
                .wrapping_add(smem_offset as u64);
            let at = self
                .read(cta, &op.srcs[1], l)
                .wrapping_add(tmap_offset as u64);
            let map = self.tensor_map(cta, op, l, at)?;
            if map.rank != rank {
                let msg = format!(
                    "a {rank}d tensor copy through a tensor map of rank {}",
                    map.rank
                );
                return Err(self.fault(cta, FaultKind::BadTensorMap, l as u32, Some(op), msg));
            }
            let coords: Vec<i32> = (0..rank)
                .map(|i| self.read(cta, &op.srcs[2 + i], l) as i32)
                .collect();
            if smem % 128 != 0 {
                let msg = format!(
                    "misaligned address: tensor copy with shared-memory box at {smem:#x} (128-byte aligned)"
                );
                return Err(self.fault(cta, FaultKind::MisalignedAddress, l as u32, Some(op), msg));
            }
            if let (Some(r), false) = (reduce, load) {
                check_reduce(r, map.dtype).map_err(|msg| {
                    self.fault(cta, FaultKind::BadTensorMap, l as u32, Some(op), msg)
                })?;
            }
            let bar = mbarrier.map(|offset| {
                self.read(cta, &op.srcs[2 + rank], l)
                    .wrapping_add(offset as u64)
            });
            // A multicast load goes to each CTA of its mask (`bulk::targets`).
            let ranks = multicast.then(|| self.read(cta, &op.srcs[3 + rank], l) as u16);
            for (smem, bar) in targets(smem, bar, ranks) {
                let (map, coords) = (&map, &coords[..]);
                self.tensor_box(cta, op, l, (map, coords), (load, reduce), smem, bar)?;
                if let Some(addr) = bar {
                    self.complete_tx(cta, op, l, addr, map.box_bytes())?;
                }
            }
        }
        Ok(())
    }

    /// One box of a tensor copy for lane `l` at shared address `smem`
    /// (`bar`: the mbarrier a load completes on).
    #[allow(clippy::too_many_arguments)]
    fn tensor_box(
        &mut self,
        cta: &mut Cta,
        op: &Op,
        l: usize,
        (map, coords): (&TensorMap, &[i32]),
        (load, reduce): (bool, Option<AtomOp>),
        smem: u64,
        bar: Option<u64>,
    ) -> Result<(), Fault> {
        // Racecheck: the copy's writes are the mbarrier's async agent's,
        // checked in the CTA they land in.
        let mut peer = None;
        if let (Some(addr), true, true) = (bar, load, cta.san.is_some()) {
            let p = match self.place(cta, Space::Shared, addr, 8, l).ok() {
                Some(Place::Remote(r, at)) => {
                    peer = Some(r);
                    Some(Place::Shared(at))
                }
                p => p,
            };
            self.as_peer(cta, peer, |w, cta| w.check_copy_to(cta, p));
        }
        let esize = map.elem_size();
        let fill = map.fill();
        let mut elems = Vec::with_capacity(map.box_bytes() as usize / esize as usize);
        map.for_each_element(coords, |off, g| elems.push((off, g)));
        for (off, g) in elems {
            let s_addr = tensor_map::swizzle(smem + off, map.swizzle);
            let shared = |w: &Self, cta: &Cta| {
                let p = if load {
                    w.place_for_write(cta, Space::Shared, s_addr, esize, l)
                } else {
                    w.place(cta, Space::Shared, s_addr, esize, l)
                };
                match p {
                    Ok(p @ Place::Shared(_)) => Ok(p),
                    Ok(p @ Place::Remote(..)) if load => Ok(p),
                    Ok(_) => Err(Refused {
                        fault: AccessFault::OutOfBounds,
                        space: Space::Shared,
                        addr: s_addr,
                    }),
                    Err(r) => Err(r),
                }
            };
            let s = shared(self, cta).map_err(|r| self.access_fault(cta, op, l, r, esize))?;
            if load {
                let v = match g {
                    Some(g) => {
                        let p = self
                            .place(cta, Space::Global, g, esize, l)
                            .map_err(|r| self.access_fault(cta, op, l, r, esize))?;
                        self.check_access(cta, op, p, esize, Rw::Read, l);
                        self.load_place(cta, p, esize, l)
                    }
                    None => fill,
                };
                match s {
                    Place::Remote(r, at) => self.as_peer(cta, Some(r), |w, cta| {
                        w.check_access(cta, op, Place::Shared(at), esize, Rw::Write, l)
                    }),
                    s => self.check_access(cta, op, s, esize, Rw::Write, l),
                }
                self.store_place(cta, s, esize, v, l);
            } else if let Some(g) = g {
                let p = self
                    .place_for_write(cta, Space::Global, g, esize, l)
                    .map_err(|r| self.access_fault(cta, op, l, r, esize))?;
                self.check_access(cta, op, s, esize, Rw::Read, l);
                let v = self.load_place(cta, s, esize, l);
                if let Some(r) = reduce {
                    self.check_access(cta, op, p, esize, Rw::Read, l);
                    self.check_access(cta, op, p, esize, Rw::Write, l);
                    // Atomic: other CTAs may reduce into the same elements.
                    let t = map.dtype;
                    self.update_place(cta, p, esize, l, &mut |old| reduce_elem(r, t, old, v));
                } else {
                    self.check_access(cta, op, p, esize, Rw::Write, l);
                    self.store_place(cta, p, esize, v, l);
                }
            }
        }
        self.as_peer(cta, peer, |w, cta| w.check_copy_to(cta, None));
        Ok(())
    }

    /// `tensormap.replace.tile.<field>`: the descriptor must be a tensor
    /// map already; the field's bytes become the lane's value as
    /// `sem::tensor_map::replace` encodes it (a value it cannot encode is
    /// a `bad_tensor_map` fault).
    pub(super) fn tensormap_replace(
        &mut self,
        cta: &mut Cta,
        op: &Op,
        mask: u32,
    ) -> Result<(), Fault> {
        let OpKind::TensormapReplace {
            field,
            space,
            offset,
        } = op.kind
        else {
            unreachable!("not tensormap.replace")
        };
        for l in (0..32usize).filter(|l| mask & (1 << l) != 0) {
            let addr = self.read(cta, &op.srcs[0], l).wrapping_add(offset as u64);
            let mut value = self.read(cta, &op.srcs[1], l);
            if !field.is_b64() {
                value &= u32::MAX as u64;
            }
            let size = tensor_map::SIZE as u64;
            let p = self
                .place_for_write(cta, space, addr, size, l)
                .map_err(|r| self.access_fault(cta, op, l, r, size))?;
            let mut bytes = [0u8; tensor_map::SIZE];
            for (i, w) in bytes.chunks_mut(8).enumerate() {
                let v = self.load_place(cta, super::lanes::advance(p, 8 * i as u64), 8, l);
                w.copy_from_slice(&v.to_le_bytes());
            }
            let range = tensor_map::replace(&mut bytes, field, value).map_err(|e| {
                let name = field.name();
                let msg = format!("tensormap.replace.{name} of {addr:#x}: {e}");
                self.fault(cta, FaultKind::BadTensorMap, l as u32, Some(op), msg)
            })?;
            let at = super::lanes::advance(p, range.start as u64);
            self.check_access(cta, op, at, range.len() as u64, Rw::Write, l);
            for (i, &v) in bytes[range.clone()].iter().enumerate() {
                let b = super::lanes::advance(p, (range.start + i) as u64);
                self.store_place(cta, b, 1, v as u64, l);
            }
        }
        Ok(())
    }
}

/// Whether `cp.reduce.async.bulk.tensor`'s operation `op` is defined for
/// tensor-map data type `t` (PTX ISA: `.add` on u32, s32, u64, f32, f16,
/// bf16; `.min`/`.max` on u32, s32, u64, s64, f16, bf16; `.inc`/`.dec` on
/// u32; the bitwise ones on 32- and 64-bit integers).
fn check_reduce(op: AtomOp, t: u8) -> Result<(), String> {
    let ok = match op {
        AtomOp::Add => matches!(t, 2 | 3 | 4 | 7 | 10 | 6 | 9),
        AtomOp::Min | AtomOp::Max => matches!(t, 2 | 3 | 4 | 5 | 6 | 9),
        AtomOp::Inc | AtomOp::Dec => t == 2,
        AtomOp::And | AtomOp::Or | AtomOp::Xor => matches!(t, 2..=5),
        AtomOp::Exch | AtomOp::Cas => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "cp.reduce.async.bulk.tensor .{op:?} is not defined for the tensor map's data type {t}"
        )
        .to_lowercase())
    }
}

/// Bytes of an element of `CUtensorMapDataType` `t`.
pub(super) fn elem_bytes(t: u8) -> u64 {
    match t {
        0 => 1,
        1 | 6 | 9 => 2,
        4 | 5 | 8 => 8,
        _ => 4,
    }
}

/// One element of a tensor or bulk reduction: `op(old, v)` in data type
/// `t` (checked by `check_reduce`, or at load for `cp.reduce.async.bulk`).
/// Half-precision sums are exact in f64 and rounded once; FLOAT32_FTZ
/// (10) sums flush subnormal inputs and results to zero of their sign,
/// as the ISA says `cp.reduce.async.bulk.add.f32` does.
pub(super) fn reduce_elem(op: AtomOp, t: u8, old: u64, v: u64) -> u64 {
    use half::{bf16, f16};
    let f_min_max = |a: f64, b: f64, max: bool| -> f64 {
        if a.is_nan() {
            b
        } else if b.is_nan() {
            a
        } else if max {
            a.max(b)
        } else {
            a.min(b)
        }
    };
    match t {
        6 | 9 => {
            let to = |x: u64| {
                if t == 6 {
                    f16::from_bits(x as u16).to_f64()
                } else {
                    bf16::from_bits(x as u16).to_f64()
                }
            };
            let r = match op {
                AtomOp::Add => to(old) + to(v),
                AtomOp::Min => f_min_max(to(old), to(v), false),
                _ => f_min_max(to(old), to(v), true),
            };
            if t == 6 {
                f16::from_f64(r).to_bits() as u64
            } else {
                bf16::from_f64(r).to_bits() as u64
            }
        }
        7 => {
            let r = f32::from_bits(old as u32) + f32::from_bits(v as u32);
            r.to_bits() as u64
        }
        10 => {
            let ftz = |x: f32| {
                if x.is_subnormal() {
                    0f32.copysign(x)
                } else {
                    x
                }
            };
            let r = ftz(ftz(f32::from_bits(old as u32)) + ftz(f32::from_bits(v as u32)));
            r.to_bits() as u64
        }
        8 => (f64::from_bits(old) + f64::from_bits(v)).to_bits(),
        _ => {
            let wide = matches!(t, 4 | 5);
            let signed = matches!(t, 3 | 5);
            let (a, b) = if wide {
                (old, v)
            } else {
                (old & 0xffff_ffff, v & 0xffff_ffff)
            };
            let sext = |x: u64| {
                if wide {
                    x as i64
                } else {
                    x as u32 as i32 as i64
                }
            };
            let r = match op {
                AtomOp::Add => a.wrapping_add(b),
                AtomOp::Min if signed => sext(a).min(sext(b)) as u64,
                AtomOp::Max if signed => sext(a).max(sext(b)) as u64,
                AtomOp::Min => a.min(b),
                AtomOp::Max => a.max(b),
                AtomOp::Inc => {
                    if a >= b {
                        0
                    } else {
                        a + 1
                    }
                }
                AtomOp::Dec => {
                    if a == 0 || a > b {
                        b
                    } else {
                        a - 1
                    }
                }
                AtomOp::And => a & b,
                AtomOp::Or => a | b,
                AtomOp::Xor => a ^ b,
                AtomOp::Exch | AtomOp::Cas => b,
            };
            if wide {
                r
            } else {
                r & 0xffff_ffff
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reductions_by_data_type() {
        assert_eq!(reduce_elem(AtomOp::Add, 2, 0xffff_ffff, 2), 1);
        assert_eq!(
            reduce_elem(AtomOp::Min, 3, (-5i32) as u32 as u64, 3),
            (-5i32) as u32 as u64
        );
        assert_eq!(reduce_elem(AtomOp::Max, 2, 7, 9), 9);
        assert_eq!(reduce_elem(AtomOp::Inc, 2, 4, 4), 0);
        assert_eq!(reduce_elem(AtomOp::Dec, 2, 0, 9), 9);
        let f = |x: f32| x.to_bits() as u64;
        assert_eq!(reduce_elem(AtomOp::Add, 7, f(1.5), f(2.25)), f(3.75));
        let h = |x: f32| half::f16::from_f32(x).to_bits() as u64;
        assert_eq!(reduce_elem(AtomOp::Add, 6, h(1.0), h(0.5)), h(1.5));
        assert!(check_reduce(AtomOp::Inc, 3).is_err());
        assert!(check_reduce(AtomOp::Add, 8).is_err());
    }
}
