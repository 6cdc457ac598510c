//! Executing the warp-collective matrix micro-ops (`ldmatrix`, `stmatrix`,
//! `mma.sync`): gather every lane's fragment registers, apply
//! [`crate::sem::tensor`], scatter the results. These instructions are
//! `.sync.aligned`: the whole warp must execute them together.

use super::warp::Warp;
use super::{Cta, Fault, FaultKind};
use crate::ir::{Op, OpKind, Src};
use crate::sem::tensor;

impl Warp {
    pub(super) fn require_full_warp(&self, cta: &Cta, op: &Op, mask: u32) -> Result<(), Fault> {
        let live = self.valid & !self.exited;
        if mask != live || live != u32::MAX {
            let msg = format!("`.sync.aligned` matrix instruction executed by lanes {mask:#010x} only; the whole warp must execute it");
            return Err(self.fault(
                cta,
                FaultKind::IllegalAddress,
                mask.trailing_zeros(),
                Some(op),
                msg,
            ));
        }
        Ok(())
    }

    pub(super) fn reg_value(&self, cta: &Cta, src: &Src, lane: usize) -> u64 {
        match *src {
            Src::Reg(r) => self.frames.last().unwrap().regs[self.row(cta, r)][lane],
            Src::Imm(v) => v,
            _ => 0,
        }
    }

    /// `reg_value` in every lane.
    pub(super) fn reg_lanes(&self, cta: &Cta, src: &Src) -> [u64; 32] {
        match *src {
            Src::Reg(r) => self.frames.last().unwrap().regs[self.row(cta, r)],
            Src::Imm(v) => [v; 32],
            _ => [0; 32],
        }
    }

    /// Writes register `k` of every lane's `regs` to `dsts[k]` (the whole
    /// warp runs matrix instructions).
    fn write_fragments<T: Copy + Into<u64>, const N: usize>(
        &mut self,
        cta: &Cta,
        dsts: &[crate::ir::Reg],
        regs: &[[T; N]; 32],
    ) {
        for (k, &d) in dsts.iter().enumerate() {
            let values: [u64; 32] = std::array::from_fn(|l| regs[l][k].into());
            self.write_lanes(cta, d, u32::MAX, &values);
        }
    }

    /// Runs an `Ldmatrix`, `Stmatrix` or `Mma` op.
    pub(super) fn matrix(&mut self, cta: &mut Cta, op: &Op, mask: u32) -> Result<(), Fault> {
        self.require_full_warp(cta, op, mask)?;
        match &op.kind {
            OpKind::Ldmatrix {
                num,
                trans,
                space,
                offset,
            } => {
                let mut rows = [[0u8; 16]; 32];
                for (l, row) in rows.iter_mut().enumerate().take(8 * *num as usize) {
                    let addr = self
                        .reg_value(cta, &op.srcs[0], l)
                        .wrapping_add(*offset as u64);
                    let place = self
                        .place(cta, *space, addr, 16, l)
                        .map_err(|r| self.access_fault(cta, op, l, r, 16))?;
                    self.check_access(cta, op, place, 16, crate::sanitizer::Rw::Read, l);
                    // Two 8-byte halves (the place is 16-byte aligned).
                    for (i, half) in row.chunks_exact_mut(8).enumerate() {
                        let at = super::lanes::advance(place, 8 * i as u64);
                        half.copy_from_slice(&self.load_place(cta, at, 8, l).to_le_bytes());
                    }
                }
                let out = tensor::ldmatrix(*num, *trans, &rows);
                self.write_fragments(cta, &op.dsts, &out);
            }
            OpKind::Stmatrix {
                num,
                trans,
                space,
                offset,
            } => {
                let mut regs = [[0u32; 4]; 32];
                for (l, r) in regs.iter_mut().enumerate() {
                    for (k, slot) in r.iter_mut().enumerate().take(*num as usize) {
                        *slot = self.reg_value(cta, &op.srcs[1 + k], l) as u32;
                    }
                }
                let rows = tensor::stmatrix(*num, *trans, &regs);
                for (l, row) in rows.iter().enumerate().take(8 * *num as usize) {
                    let addr = self
                        .reg_value(cta, &op.srcs[0], l)
                        .wrapping_add(*offset as u64);
                    let place = self
                        .place_for_write(cta, *space, addr, 16, l)
                        .map_err(|r| self.access_fault(cta, op, l, r, 16))?;
                    self.check_access(cta, op, place, 16, crate::sanitizer::Rw::Write, l);
                    for (i, half) in row.chunks_exact(8).enumerate() {
                        let at = super::lanes::advance(place, 8 * i as u64);
                        let value = u64::from_le_bytes(half.try_into().unwrap());
                        self.store_place(cta, at, 8, value, l);
                    }
                }
            }
            OpKind::Mma { kind, regs } => {
                let [na, nb, nc, _] = regs.map(|r| r as usize);
                // A's, B's and C's registers in order, as the register
                // file holds them (at most 8 + 4 + 4).
                let rows: Vec<[u64; 32]> = (0..na + nb + nc)
                    .map(|i| match op.srcs.get(i) {
                        Some(src) => self.reg_lanes(cta, src),
                        None => [0; 32],
                    })
                    .collect();
                let d = tensor::mma_sync(
                    kind,
                    &rows[..na],
                    &rows[na..na + nb],
                    &rows[na + nb..na + nb + nc],
                );
                for (&dst, values) in op.dsts.iter().zip(&d) {
                    self.write_lanes(cta, dst, u32::MAX, values);
                }
            }
            OpKind::Movmatrix => {
                let a = self.reg_lanes(cta, &op.srcs[0]);
                let d = tensor::movmatrix_trans(&a);
                self.write_lanes(cta, op.dsts[0], u32::MAX, &d);
            }
            OpKind::Wgmma { kind } => {
                let first = mask.trailing_zeros() as usize;
                // srcs: A's descriptor or its four registers, B's
                // descriptor, scale-d, the accumulators.
                let na = if kind.a_in_regs { 4 } else { 1 };
                let desc_a = self.reg_value(cta, &op.srcs[0], first);
                let a_regs: [[u64; 4]; 32] = std::array::from_fn(|l| {
                    std::array::from_fn(|r| {
                        if kind.a_in_regs {
                            self.reg_value(cta, &op.srcs[r], l)
                        } else {
                            0
                        }
                    })
                });
                let desc_b = self.reg_value(cta, &op.srcs[na], first);
                let scale_d = self.reg_value(cta, &op.srcs[na + 1], first) & 1 != 0;
                let mut acc: Vec<Vec<u64>> = (0..32)
                    .map(|l| {
                        op.srcs[na + 2..]
                            .iter()
                            .map(|s| self.reg_value(cta, s, l))
                            .collect()
                    })
                    .collect();
                let warp_in_group = (self.index % 4) as usize;
                crate::sem::wgmma::wgmma_warp(
                    kind,
                    warp_in_group,
                    desc_a,
                    &a_regs,
                    desc_b,
                    scale_d,
                    &cta.shared,
                    &mut acc,
                )
                .map_err(|m| {
                    self.fault(cta, FaultKind::IllegalAddress, first as u32, Some(op), m)
                })?;
                for (l, regs) in acc.iter().enumerate() {
                    for (k, &d) in op.dsts.iter().enumerate() {
                        self.write(cta, d, l, regs[k]);
                    }
                }
            }
            _ => unreachable!("not a matrix op"),
        }
        Ok(())
    }
}
