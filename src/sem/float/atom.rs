//! The value rules of float atomics and reductions (`atom`/`red` with
//! `.add .min .max .exch` on f16, bf16, their x2 forms, f32 and f64).
use super::arith::{self, Arith};
use super::fmt::{Fmt, BF16, F16, F32, F64, F64_DEFAULT_NAN};
use super::{min_max, packed};
use crate::ir::ops::{AtomOp, FloatOp, Rounding, Ty};

/// The new memory value of a float atomic (`Add`, `Min`, `Max`, `Exch`) on
/// f16, f16x2, bf16, bf16x2, f32 or f64 (`atom.add.f32` flushes subnormals,
/// as the PTX ISA specifies; `.noftz` forms of f16 do not).
///
/// `Add` rounds to nearest even. f32 flushes subnormal operands and results
/// as `atom.add.f32` on *global* memory does (the ISA: shared memory keeps
/// them; this function cannot tell the spaces apart). f64 adds with the
/// global-memory NaN behaviour measured on an H100: an input NaN is returned
/// as is (not quieted), `b`'s before `old`'s; invalid sums give
/// `0xFFF8_0000_0000_0000`. f16/bf16 NaN results are canonical. `Min`/`Max`
/// follow `min`/`max` (no flush). Other ops leave `old` unchanged.
pub fn atom_float(op: AtomOp, ty: Ty, old: u64, b: u64) -> u64 {
    let old = old & ty.mask();
    let b = b & ty.mask();
    let scalar = |fmt: Fmt, x: u64, y: u64| -> u64 {
        match op {
            AtomOp::Add if fmt == F32 => {
                let r = arith::narrow(F32, Arith::Add, F32.flush(x), F32.flush(y), 0, Rounding::Rn);
                F32.flush(r)
            }
            AtomOp::Add if fmt == F64 => {
                if F64.is_nan(y) {
                    y
                } else if F64.is_nan(x) {
                    x
                } else {
                    let r = f64::from_bits(x) + f64::from_bits(y);
                    if r.is_nan() {
                        F64_DEFAULT_NAN
                    } else {
                        r.to_bits()
                    }
                }
            }
            AtomOp::Add => arith::narrow(fmt, Arith::Add, x, y, 0, Rounding::Rn),
            AtomOp::Min => min_max(fmt, FloatOp::Min, x, y),
            AtomOp::Max => min_max(fmt, FloatOp::Max, x, y),
            AtomOp::Exch => y,
            _ => x,
        }
    };
    match ty {
        Ty::F16 => scalar(F16, old, b),
        Ty::Bf16 => scalar(BF16, old, b),
        Ty::F32 => scalar(F32, old, b),
        Ty::F64 => scalar(F64, old, b),
        Ty::F16x2 => packed(old, b, 0, |x, y, _| scalar(F16, x, y)),
        Ty::Bf16x2 => packed(old, b, 0, |x, y, _| scalar(BF16, x, y)),
        _ if op == AtomOp::Exch => b,
        _ => old,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f32) -> u64 {
        x.to_bits() as u64
    }
    fn d(x: f64) -> u64 {
        x.to_bits()
    }

    #[test]
    fn atomics() {
        // f32 add flushes subnormal operands and results.
        assert_eq!(atom_float(AtomOp::Add, Ty::F32, f(1.5), f(2.0)), f(3.5));
        assert_eq!(atom_float(AtomOp::Add, Ty::F32, 1, 1), 0);
        assert_eq!(
            atom_float(AtomOp::Add, Ty::F32, f(1.0), 0x8000_0001),
            f(1.0)
        );
        assert_eq!(
            atom_float(AtomOp::Add, Ty::F32, 0x0080_0001, 0x8080_0000),
            0
        );
        assert_eq!(
            atom_float(AtomOp::Add, Ty::F32, f(f32::INFINITY), f(-f32::INFINITY)),
            0x7FFF_FFFF
        );
        // f64 add keeps subnormals and returns NaN operands as they are.
        assert_eq!(atom_float(AtomOp::Add, Ty::F64, 1, 1), 2);
        assert_eq!(
            atom_float(AtomOp::Add, Ty::F64, 0x7FF0_0000_0000_0001, d(1.0)),
            0x7FF0_0000_0000_0001
        );
        assert_eq!(
            atom_float(
                AtomOp::Add,
                Ty::F64,
                0x7FF0_0000_0000_0001,
                0x7FF0_0000_0000_0002
            ),
            0x7FF0_0000_0000_0002
        );
        assert_eq!(
            atom_float(AtomOp::Add, Ty::F64, d(f64::INFINITY), d(-f64::INFINITY)),
            F64_DEFAULT_NAN
        );
        assert_eq!(
            atom_float(AtomOp::Add, Ty::F64, d(0.1), d(0.2)),
            d(0.1 + 0.2)
        );
        // f16/bf16 .noftz adds keep subnormals, round to nearest even.
        assert_eq!(atom_float(AtomOp::Add, Ty::F16, 0x0001, 0x0001), 0x0002);
        assert_eq!(atom_float(AtomOp::Add, Ty::F16, 0x3C00, 0x1000), 0x3C00);
        assert_eq!(atom_float(AtomOp::Add, Ty::Bf16, 0x3F80, 0x3F80), 0x4000);
        assert_eq!(
            atom_float(AtomOp::Add, Ty::F16x2, 0x3C00_0001, 0x3C00_0001),
            0x4000_0002
        );
        assert_eq!(
            atom_float(AtomOp::Add, Ty::Bf16x2, 0x7F80_3F80, 0xFF80_3F80),
            0x7FFF_4000
        );
        // min/max and exch.
        assert_eq!(atom_float(AtomOp::Min, Ty::F32, f(1.0), f(-2.0)), f(-2.0));
        assert_eq!(
            atom_float(AtomOp::Max, Ty::F32, 0x7FC0_0000, f(-2.0)),
            f(-2.0)
        );
        assert_eq!(
            atom_float(AtomOp::Max, Ty::F16x2, 0x3C00_4000, 0x4000_3C00),
            0x4000_4000
        );
        assert_eq!(atom_float(AtomOp::Min, Ty::F64, d(-0.0), d(0.0)), d(-0.0));
        assert_eq!(
            atom_float(AtomOp::Exch, Ty::F32, f(1.0), 0xFFFF_FFFF_7FC0_0001),
            0x7FC0_0001
        );
        assert_eq!(
            atom_float(AtomOp::Exch, Ty::F64, 0, 0x7FF0_0000_0000_0001),
            0x7FF0_0000_0000_0001
        );
        // Ops without a float meaning leave memory unchanged.
        assert_eq!(atom_float(AtomOp::Inc, Ty::F32, f(1.0), f(2.0)), f(1.0));
        assert_eq!(atom_float(AtomOp::Cas, Ty::F16, 0x3C00, 0x3C00), 0x3C00);
    }
}
