//! Executing `wmma.load`, `wmma.store` and `wmma.mma` (PTX ISA §9.7.14.4):
//! each lane reads or writes its fragment's elements one at a time through
//! the checked memory paths (bounds, faults, the sanitizer), at the
//! addresses the layout of [`crate::sem::wmma`] gives them; the multiply
//! gathers the whole warp's fragments.

use super::warp::Warp;
use super::{Cta, Fault};
use crate::ir::{Op, OpKind};
use crate::sanitizer::Rw;
use crate::sem::wmma::{self, WmmaFrag};

/// Where element `e` of register `reg` of `lane` lives: the byte offset
/// from the matrix's start, and the bit offset inside that byte (sub-byte
/// types; 0 otherwise).
fn element_offset(
    frag: &WmmaFrag,
    row_major: bool,
    stride: u64,
    reg: usize,
    lane: usize,
    e: usize,
) -> (u64, u32) {
    let (r, c) = frag.element(reg, lane, e);
    let bit = WmmaFrag::index(r, c, row_major, stride).wrapping_mul(frag.ty.bits() as u64);
    (bit / 8, (bit % 8) as u32)
}

impl Warp {
    /// Runs a `WmmaLoad`, `WmmaStore` or `WmmaMma` op.
    pub(super) fn wmma(&mut self, cta: &mut Cta, op: &Op, mask: u32) -> Result<(), Fault> {
        self.require_full_warp(cta, op, mask)?;
        match &op.kind {
            OpKind::WmmaLoad {
                frag,
                row_major,
                space,
                offset,
            } => {
                let bits = frag.ty.bits();
                let size = (bits as u64 / 8).max(1);
                let unique = frag.unique();
                let mut regs = vec![[0u64; 32]; frag.regs().unwrap_or(0)];
                for l in 0..32 {
                    let base = self
                        .reg_value(cta, &op.srcs[0], l)
                        .wrapping_add(*offset as u64);
                    let stride = self.reg_value(cta, &op.srcs[1], l) as u32 as u64;
                    for (reg, lanes) in regs.iter_mut().enumerate().take(unique) {
                        let mut value = 0u64;
                        for e in 0..frag.per_reg() {
                            let (off, shift) = element_offset(frag, *row_major, stride, reg, l, e);
                            let addr = base.wrapping_add(off);
                            let place = self
                                .place(cta, *space, addr, size, l)
                                .map_err(|r| self.access_fault(cta, op, l, r, size))?;
                            self.check_access(cta, op, place, size, Rw::Read, l);
                            let mut v = self.load_place(cta, place, size, l);
                            if bits < 8 {
                                v = (v >> shift) & ((1 << bits) - 1);
                            }
                            value |= v << (e as u32 * bits);
                        }
                        lanes[l] = value;
                    }
                }
                for reg in unique..regs.len() {
                    regs[reg] = regs[reg % unique];
                }
                for (&dst, values) in op.dsts.iter().zip(&regs) {
                    self.write_lanes(cta, dst, u32::MAX, values);
                }
            }
            OpKind::WmmaStore {
                frag,
                row_major,
                space,
                offset,
            } => {
                // Accumulators only: elements of 16, 32 or 64 bits.
                let bits = frag.ty.bits();
                let size = bits as u64 / 8;
                let mask = if bits == 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                for l in 0..32 {
                    let base = self
                        .reg_value(cta, &op.srcs[0], l)
                        .wrapping_add(*offset as u64);
                    let stride = self.reg_value(cta, &op.srcs[1], l) as u32 as u64;
                    for (reg, src) in op.srcs[2..].iter().enumerate() {
                        let value = self.reg_value(cta, src, l);
                        for e in 0..frag.per_reg() {
                            let (off, _) = element_offset(frag, *row_major, stride, reg, l, e);
                            let addr = base.wrapping_add(off);
                            let place = self
                                .place_for_write(cta, *space, addr, size, l)
                                .map_err(|r| self.access_fault(cta, op, l, r, size))?;
                            self.check_access(cta, op, place, size, Rw::Write, l);
                            let v = (value >> (e as u32 * bits)) & mask;
                            self.store_place(cta, place, size, v, l);
                        }
                    }
                }
            }
            OpKind::WmmaMma { kind, regs } => {
                let [na, nb, nc, _] = regs.map(|r| r as usize);
                let rows: Vec<[u64; 32]> = op.srcs[..na + nb + nc]
                    .iter()
                    .map(|s| self.reg_lanes(cta, s))
                    .collect();
                let d = wmma::wmma_mma(kind, &rows[..na], &rows[na..na + nb], &rows[na + nb..]);
                for (&dst, values) in op.dsts.iter().zip(&d) {
                    self.write_lanes(cta, dst, u32::MAX, values);
                }
            }
            _ => unreachable!("not a wmma op"),
        }
        Ok(())
    }
}
