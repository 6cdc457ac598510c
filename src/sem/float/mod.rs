//! Floating-point semantics (PTX ISA §9.7.3, §9.7.4, §9.7.5): f16, bf16,
//! their x2 packed forms, f32 and f64.
//!
//! Operands are lane bit patterns (see [`crate::ir::ops`]); every function
//! masks its inputs to the type's width and never panics. Packed x2 types
//! apply the scalar rule to each 16-bit half (low half = first element).
//!
//! Rules followed (from the PTX ISA, and where it leaves a choice, from the
//! results of the same instructions measured on an H100, sm_90):
//!
//! * Rounding: `.rn` (the default), `.rz`, `.rm`, `.rp` are exact in every
//!   format (submodule `arith`). Approximate operations are computed more accurately
//!   than the hardware, within the ISA's error bounds (submodule `approx`).
//! * `.ftz` flushes subnormal inputs and results to sign-preserving zero for
//!   f32, f16, f16x2 (and bf16 `ex2.approx.ftz`); f64 arithmetic ignores it
//!   (the ISA has no `.ftz` for f64), except the `rcp`/`rsqrt`
//!   `.approx.ftz.f64` forms.
//! * `.sat` clamps to [+0.0, 1.0]; NaN and -0.0 become +0.0. `.relu` turns
//!   negative results (and -0.0) into +0.0 and NaN into the canonical NaN.
//! * NaN results of f16, bf16 and f32 operations are the canonical NaN
//!   (`0x7FFF`, `0x7FFF_FFFF`), `abs` and `neg` included: the ISA says
//!   "unspecified NaN" and the H100 returns these. f64 operations propagate
//!   payloads, as the ISA says ("NaN payloads are supported for
//!   double-precision instructions"): an input NaN comes back quieted (with
//!   the operand priority the H100 shows, see submodule `arith`); `abs.f64` and
//!   `neg.f64` return a NaN input quieted and with its sign unchanged (the
//!   ISA: "NaN input is passed through unchanged"); invalid operations give
//!   `0xFFF8_0000_0000_0000`; `rcp`/`rsqrt.approx.ftz.f64` give the ISA's
//!   canonical `0x7FFF_FFFF_0000_0000`.
//! * `min`/`max`: a NaN operand yields the other operand; two NaNs yield
//!   NaN; `-0.0 < +0.0`. `.NaN` forms return the canonical NaN if either
//!   operand is NaN.
//! * `copysign(a, b)`: b with a's sign bit, bitwise (NaN payloads kept, as on
//!   the H100).
//! * `mad.f32` without rounding modifier ([`FloatOp::MulAdd`]) is, per the
//!   ISA, `mad.rn.f32` (= `fma.rn.f32`) on sm_20 and later targets, and the
//!   JIT maps sm_1x code to `fma.rn.ftz.f32`; it is evaluated as a fused
//!   multiply-add rounded to nearest (the caller sets `.ftz` for sm_1x).
mod approx;
pub(crate) use approx::exp2;
mod arith;
mod atom;
mod cmp;
mod fmt;

pub use atom::atom_float;
pub use cmp::{compare_float, redux_f32, testp};

use crate::ir::ops::{FloatMods, FloatOp, Rounding, Ty};
use approx::Fun;
use arith::Arith;
use fmt::{Fmt, BF16, F16, F32, F64};

/// `op` on sources of float type `ty` with `mods`.
/// `a * b + c` on f64 bits, rounded once with `mode` (every IEEE mode).
pub(crate) fn fma_f64(a: u64, b: u64, c: u64, mode: crate::ir::ops::Rounding) -> u64 {
    arith::wide(arith::Arith::Fma, a, b, c, mode)
}

pub fn float_op(op: FloatOp, ty: Ty, mods: FloatMods, s: &[u64]) -> u64 {
    let src = |i: usize| s.get(i).copied().unwrap_or(0);
    let (a, b, c) = (src(0), src(1), src(2));
    match ty {
        Ty::F16 => narrow_op(F16, op, mods, a, b, c),
        Ty::Bf16 => narrow_op(BF16, op, mods, a, b, c),
        Ty::F32 => narrow_op(F32, op, mods, a, b, c),
        Ty::F16x2 => packed(a, b, c, |x, y, z| narrow_op(F16, op, mods, x, y, z)),
        Ty::Bf16x2 => packed(a, b, c, |x, y, z| narrow_op(BF16, op, mods, x, y, z)),
        Ty::F64 => double_op(op, mods, a, b, c),
        _ => 0,
    }
}

/// Applies `f` to each 16-bit half and packs the results.
fn packed(a: u64, b: u64, c: u64, f: impl Fn(u64, u64, u64) -> u64) -> u64 {
    let h = |x: u64, i: u32| (x >> (16 * i)) & 0xFFFF;
    let lo = f(h(a, 0), h(b, 0), h(c, 0)) & 0xFFFF;
    let hi = f(h(a, 1), h(b, 1), h(c, 1)) & 0xFFFF;
    lo | hi << 16
}

fn mode(mods: FloatMods) -> Rounding {
    mods.rounding.unwrap_or(Rounding::Rn)
}

/// An operation on f16, bf16 or f32.
fn narrow_op(fmt: Fmt, op: FloatOp, mods: FloatMods, a: u64, b: u64, c: u64) -> u64 {
    let ftz = mods.ftz;
    let (a, b, c) = (
        fmt.flush_if(ftz, a),
        fmt.flush_if(ftz, b),
        fmt.flush_if(ftz, c),
    );
    let ar = |o: Arith, m: Rounding| arith::narrow(fmt, o, a, b, c, m);
    let r = match op {
        FloatOp::Add => ar(Arith::Add, mode(mods)),
        FloatOp::Sub => ar(Arith::Sub, mode(mods)),
        FloatOp::Mul => ar(Arith::Mul, mode(mods)),
        FloatOp::Fma => ar(Arith::Fma, mode(mods)),
        FloatOp::MulAdd => ar(Arith::Fma, Rounding::Rn),
        FloatOp::Div => ar(Arith::Div, mode(mods)),
        FloatOp::Rcp => ar(Arith::Rcp, mode(mods)),
        FloatOp::Sqrt => ar(Arith::Sqrt, mode(mods)),
        FloatOp::DivApprox => approx::div_approx(fmt, a, b),
        FloatOp::DivFull => ar(Arith::Div, Rounding::Rn),
        FloatOp::Min | FloatOp::Max | FloatOp::MinNaN | FloatOp::MaxNaN => min_max(fmt, op, a, b),
        FloatOp::Abs | FloatOp::Neg if fmt.is_nan(a) => fmt.canonical_nan(),
        FloatOp::Abs => a & !fmt.sign_bit(),
        FloatOp::Neg => a ^ fmt.sign_bit(),
        FloatOp::Copysign => (a & fmt.sign_bit()) | (b & !fmt.sign_bit()),
        FloatOp::RcpApprox | FloatOp::RcpApproxF64 => approx::unary(fmt, Fun::Rcp, a),
        FloatOp::SqrtApprox => approx::unary(fmt, Fun::Sqrt, a),
        FloatOp::Rsqrt => approx::unary(fmt, Fun::Rsqrt, a),
        FloatOp::Sin => approx::unary(fmt, Fun::Sin, a),
        FloatOp::Cos => approx::unary(fmt, Fun::Cos, a),
        FloatOp::Lg2 => approx::unary(fmt, Fun::Lg2, a),
        FloatOp::Ex2 => approx::unary(fmt, Fun::Ex2, a),
        FloatOp::Tanh => approx::unary(fmt, Fun::Tanh, a),
    };
    clamp(fmt, mods, fmt.flush_if(ftz, r))
}

/// `.sat` and `.relu` on a result.
fn clamp(fmt: Fmt, mods: FloatMods, r: u64) -> u64 {
    let mut r = r & fmt.mask();
    if mods.sat {
        if fmt.is_nan(r) || fmt.is_neg(r) {
            r = 0;
        } else if r > fmt.one() {
            r = fmt.one();
        }
    }
    if mods.relu {
        if fmt.is_nan(r) {
            r = fmt.canonical_nan();
        } else if fmt.is_neg(r) {
            r = 0;
        }
    }
    r
}

/// `min`/`max` (`.NaN` forms included) of two values (already flushed).
/// Two NaNs give the canonical NaN (f64: the quieted second operand, as
/// the H100 does).
fn min_max(fmt: Fmt, op: FloatOp, a: u64, b: u64) -> u64 {
    let (na, nb) = (fmt.is_nan(a), fmt.is_nan(b));
    let both_nan = || {
        if fmt == F64 {
            fmt.quiet(if nb { b } else { a })
        } else {
            fmt.canonical_nan()
        }
    };
    let propagate = matches!(op, FloatOp::MinNaN | FloatOp::MaxNaN);
    if (na && nb) || (propagate && (na || nb)) {
        return both_nan();
    }
    if na {
        return b;
    }
    if nb {
        return a;
    }
    let (x, y) = (fmt.to_f64(a), fmt.to_f64(b));
    // -0.0 < +0.0: order equal values by sign.
    let a_less = x < y || (x == y && fmt.is_neg(a) && !fmt.is_neg(b));
    let want_min = matches!(op, FloatOp::Min | FloatOp::MinNaN);
    if a_less == want_min {
        a
    } else {
        b
    }
}

/// An f64 operation.
fn double_op(op: FloatOp, mods: FloatMods, a: u64, b: u64, c: u64) -> u64 {
    let ar = |o: Arith, m: Rounding| arith::wide(o, a, b, c, m);
    let r = match op {
        FloatOp::Add => ar(Arith::Add, mode(mods)),
        FloatOp::Sub => ar(Arith::Sub, mode(mods)),
        FloatOp::Mul => ar(Arith::Mul, mode(mods)),
        FloatOp::Fma => ar(Arith::Fma, mode(mods)),
        FloatOp::MulAdd => ar(Arith::Fma, Rounding::Rn),
        FloatOp::Div => ar(Arith::Div, mode(mods)),
        FloatOp::Rcp => ar(Arith::Rcp, mode(mods)),
        FloatOp::Sqrt => ar(Arith::Sqrt, mode(mods)),
        FloatOp::DivApprox | FloatOp::DivFull => ar(Arith::Div, Rounding::Rn),
        FloatOp::Min | FloatOp::Max | FloatOp::MinNaN | FloatOp::MaxNaN => min_max(F64, op, a, b),
        FloatOp::Abs | FloatOp::Neg if F64.is_nan(a) => F64.quiet(a),
        FloatOp::Abs => a & !F64.sign_bit(),
        FloatOp::Neg => a ^ F64.sign_bit(),
        FloatOp::Copysign => (a & F64.sign_bit()) | (b & !F64.sign_bit()),
        FloatOp::RcpApproxF64 => approx::f64_ftz_upper(false, a),
        FloatOp::RcpApprox if mods.ftz => approx::f64_ftz_upper(false, a),
        FloatOp::Rsqrt if mods.ftz => approx::f64_ftz_upper(true, a),
        FloatOp::RcpApprox => approx::unary_f64(Fun::Rcp, a),
        FloatOp::SqrtApprox => approx::unary_f64(Fun::Sqrt, a),
        FloatOp::Rsqrt => approx::unary_f64(Fun::Rsqrt, a),
        FloatOp::Sin => approx::unary_f64(Fun::Sin, a),
        FloatOp::Cos => approx::unary_f64(Fun::Cos, a),
        FloatOp::Lg2 => approx::unary_f64(Fun::Lg2, a),
        FloatOp::Ex2 => approx::unary_f64(Fun::Ex2, a),
        FloatOp::Tanh => approx::unary_f64(Fun::Tanh, a),
    };
    clamp(F64, mods, r)
}

#[cfg(test)]
mod tests {
    use super::fmt::F64_DEFAULT_NAN;
    use super::*;
    use crate::ir::ops::{AtomOp, CmpOp, TestProp};

    fn m(rounding: Option<Rounding>, ftz: bool, sat: bool, relu: bool) -> FloatMods {
        FloatMods {
            rounding,
            ftz,
            sat,
            relu,
        }
    }
    const RN: FloatMods = FloatMods {
        rounding: None,
        ftz: false,
        sat: false,
        relu: false,
    };
    const FTZ: FloatMods = FloatMods {
        rounding: None,
        ftz: true,
        sat: false,
        relu: false,
    };
    const SAT: FloatMods = FloatMods {
        rounding: None,
        ftz: false,
        sat: true,
        relu: false,
    };
    const RELU: FloatMods = FloatMods {
        rounding: None,
        ftz: false,
        sat: false,
        relu: true,
    };

    fn f(x: f32) -> u64 {
        x.to_bits() as u64
    }
    fn d(x: f64) -> u64 {
        x.to_bits()
    }

    #[test]
    fn default_rounding_is_rn_and_explicit_modes_apply() {
        let (one, h) = (f(1.0), 0x3380_0000); // 1 + 2^-24 is a tie
        assert_eq!(float_op(FloatOp::Add, Ty::F32, RN, &[one, h]), f(1.0));
        let rp = m(Some(Rounding::Rp), false, false, false);
        assert_eq!(float_op(FloatOp::Add, Ty::F32, rp, &[one, h]), 0x3F80_0001);
        let rz = m(Some(Rounding::Rz), false, false, false);
        assert_eq!(
            float_op(FloatOp::Div, Ty::F32, rz, &[one, f(3.0)]),
            0x3EAA_AAAA
        );
        assert_eq!(
            float_op(FloatOp::Div, Ty::F64, rz, &[d(1.0), d(3.0)]),
            0x3FD5_5555_5555_5555
        );
        assert_eq!(
            float_op(FloatOp::Fma, Ty::F64, RN, &[d(2.0), d(3.0), d(1.0)]),
            d(7.0)
        );
        assert_eq!(
            float_op(FloatOp::Sqrt, Ty::F64, rz, &[d(2.0)]),
            0x3FF6_A09E_667F_3BCC
        );
        assert_eq!(float_op(FloatOp::Rcp, Ty::F32, rp, &[f(3.0)]), 0x3EAA_AAAB);
        // mad.f32 without rounding modifier is a fused multiply-add (.rn).
        let a = 0x3F80_0800; // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24, kept only when fused
        assert_eq!(
            float_op(FloatOp::MulAdd, Ty::F32, RN, &[a, a, f(-1.0)]),
            0x3A00_0400
        );
        assert_eq!(
            float_op(FloatOp::Sub, Ty::F32, RN, &[f(1.0), f(3.0)]),
            f(-2.0)
        );
        assert_eq!(
            float_op(FloatOp::Mul, Ty::F64, RN, &[d(1.5), d(-4.0)]),
            d(-6.0)
        );
    }

    #[test]
    fn inputs_are_masked_to_their_width() {
        assert_eq!(
            float_op(FloatOp::Add, Ty::F32, RN, &[0xDEAD_0000_3F80_0000, f(1.0)]),
            f(2.0)
        );
        assert_eq!(
            float_op(FloatOp::Add, Ty::F16, RN, &[0xFFFF_3C00, 0x3C00]),
            0x4000
        );
        assert_eq!(float_op(FloatOp::Neg, Ty::Bf16, RN, &[0x1_3F80]), 0xBF80);
        assert_eq!(
            float_op(
                FloatOp::Add,
                Ty::F16x2,
                RN,
                &[0xABCD_3C00_3C00, 0x3C00_3C00]
            ),
            0x4000_4000
        );
        // Missing sources read as zero; non-float types give 0.
        assert_eq!(
            float_op(FloatOp::Fma, Ty::F32, RN, &[f(2.0), f(3.0)]),
            f(6.0)
        );
        assert_eq!(float_op(FloatOp::Add, Ty::U32, RN, &[1, 2]), 0);
        assert_eq!(float_op(FloatOp::Add, Ty::F32, RN, &[]), 0);
    }

    #[test]
    fn ftz_flushes_inputs_and_results() {
        let sub = 0x0000_0001; // smallest f32 subnormal
        assert_eq!(float_op(FloatOp::Add, Ty::F32, RN, &[sub, sub]), 2);
        assert_eq!(float_op(FloatOp::Add, Ty::F32, FTZ, &[sub, sub]), 0);
        assert_eq!(
            float_op(FloatOp::Mul, Ty::F32, FTZ, &[0x8040_0000, f(1.0)]),
            0x8000_0000
        );
        // A subnormal result is flushed: 2^-126 * 0.5.
        assert_eq!(
            float_op(FloatOp::Mul, Ty::F32, RN, &[0x0080_0000, f(0.5)]),
            0x0040_0000
        );
        assert_eq!(
            float_op(FloatOp::Mul, Ty::F32, FTZ, &[0x0080_0000, f(0.5)]),
            0
        );
        assert_eq!(
            float_op(FloatOp::Mul, Ty::F32, FTZ, &[0x8080_0000, f(0.5)]),
            0x8000_0000
        );
        // A flushed divisor: x / +0 = inf.
        assert_eq!(
            float_op(FloatOp::Div, Ty::F32, FTZ, &[f(1.0), sub]),
            0x7F80_0000
        );
        assert_eq!(
            float_op(FloatOp::Sqrt, Ty::F32, FTZ, &[0x8000_0010]),
            0x8000_0000
        );
        // f16 honours .ftz; f64 has none.
        assert_eq!(float_op(FloatOp::Add, Ty::F16, FTZ, &[0x0001, 0x0001]), 0);
        assert_eq!(float_op(FloatOp::Add, Ty::F16, RN, &[0x0001, 0x0001]), 2);
        assert_eq!(float_op(FloatOp::Add, Ty::F64, FTZ, &[1, 1]), 2);
        // abs/neg/min/max flush too.
        assert_eq!(float_op(FloatOp::Abs, Ty::F32, FTZ, &[0x8000_0001]), 0);
        assert_eq!(
            float_op(FloatOp::Neg, Ty::F32, FTZ, &[0x0000_0001]),
            0x8000_0000
        );
        assert_eq!(
            float_op(FloatOp::Neg, Ty::F32, RN, &[0x0000_0001]),
            0x8000_0001
        );
        assert_eq!(
            float_op(FloatOp::Max, Ty::F32, FTZ, &[0x0000_0001, 0x8000_0000]),
            0
        );
        // Approximate functions flush subnormal inputs: lg2(+0) = -inf.
        assert_eq!(float_op(FloatOp::Lg2, Ty::F32, FTZ, &[1]), 0xFF80_0000);
        assert_eq!(float_op(FloatOp::Lg2, Ty::F32, RN, &[1]), f(-149.0));
        assert_eq!(float_op(FloatOp::Ex2, Ty::F32, FTZ, &[f(-140.0)]), 0);
        assert_eq!(
            float_op(FloatOp::Ex2, Ty::F32, RN, &[f(-140.0)]),
            0x0000_0200
        );
        // ex2.approx.ftz.bf16 of a subnormal is 2^0 = 1.
        assert_eq!(float_op(FloatOp::Ex2, Ty::Bf16, FTZ, &[0x8001]), 0x3F80);
    }

    #[test]
    fn saturation_and_relu() {
        assert_eq!(
            float_op(FloatOp::Add, Ty::F32, SAT, &[f(0.75), f(0.5)]),
            f(1.0)
        );
        assert_eq!(
            float_op(FloatOp::Add, Ty::F32, SAT, &[f(0.25), f(0.5)]),
            f(0.75)
        );
        assert_eq!(float_op(FloatOp::Sub, Ty::F32, SAT, &[f(0.25), f(0.5)]), 0);
        assert_eq!(
            float_op(FloatOp::Mul, Ty::F32, SAT, &[0x8000_0000, f(1.0)]),
            0
        );
        let inf = f(f32::INFINITY);
        assert_eq!(
            float_op(FloatOp::Add, Ty::F32, SAT, &[inf, f(-f32::INFINITY)]),
            0
        );
        assert_eq!(float_op(FloatOp::Add, Ty::F32, SAT, &[inf, 0]), f(1.0));
        assert_eq!(
            float_op(FloatOp::Fma, Ty::F16, SAT, &[0x4000, 0x4000, 0xBC00]),
            0x3C00
        );
        assert_eq!(
            float_op(FloatOp::Fma, Ty::F16x2, SAT, &[0x4000_3800, 0x4000_3800, 0]),
            0x3C00_3400
        );
        // relu: negatives and -0 become +0, NaN becomes the canonical NaN.
        assert_eq!(
            float_op(FloatOp::Fma, Ty::Bf16, RELU, &[0x3F80, 0xC000, 0]),
            0
        );
        assert_eq!(
            float_op(FloatOp::Fma, Ty::Bf16, RELU, &[0x3F80, 0x8000, 0x8000]),
            0
        );
        assert_eq!(
            float_op(FloatOp::Fma, Ty::Bf16, RELU, &[0x3F80, 0x4000, 0]),
            0x4000
        );
        assert_eq!(
            float_op(FloatOp::Fma, Ty::F16, RELU, &[0x7C00, 0, 0]),
            0x7FFF
        );
        assert_eq!(
            float_op(
                FloatOp::Fma,
                Ty::Bf16x2,
                RELU,
                &[0x3F80_3F80, 0xC000_4000, 0]
            ),
            0x0000_4000
        );
    }

    #[test]
    fn nan_results() {
        let fnan = f(f32::NAN);
        assert_eq!(
            float_op(FloatOp::Add, Ty::F32, RN, &[0x7F80_0001, f(1.0)]),
            0x7FFF_FFFF
        );
        assert_eq!(float_op(FloatOp::Mul, Ty::F16, RN, &[0x7C00, 0]), 0x7FFF);
        assert_eq!(
            float_op(FloatOp::Add, Ty::Bf16, RN, &[0xFFC1, 0x3F80]),
            0x7FFF
        );
        // abs/neg of a NaN give the canonical NaN for f32/f16/bf16 ...
        assert_eq!(
            float_op(FloatOp::Abs, Ty::F32, RN, &[0xFFC0_0001]),
            0x7FFF_FFFF
        );
        assert_eq!(float_op(FloatOp::Neg, Ty::F16, RN, &[0x7E01]), 0x7FFF);
        assert_eq!(float_op(FloatOp::Neg, Ty::F32, RN, &[fnan]), 0x7FFF_FFFF);
        // ... and the quieted NaN, sign untouched, for f64.
        assert_eq!(
            float_op(FloatOp::Abs, Ty::F64, RN, &[0xFFF0_0000_0000_0001]),
            0xFFF8_0000_0000_0001
        );
        assert_eq!(
            float_op(FloatOp::Neg, Ty::F64, RN, &[0x7FF8_0000_0000_0002]),
            0x7FF8_0000_0000_0002
        );
        assert_eq!(float_op(FloatOp::Abs, Ty::F64, RN, &[d(-2.0)]), d(2.0));
        assert_eq!(float_op(FloatOp::Neg, Ty::F64, RN, &[d(0.0)]), d(-0.0));
        assert_eq!(
            float_op(FloatOp::Add, Ty::F64, RN, &[d(1.0), 0x7FF0_0000_0000_0005]),
            0x7FF8_0000_0000_0005
        );
        assert_eq!(
            float_op(
                FloatOp::Sub,
                Ty::F64,
                RN,
                &[d(f64::INFINITY), d(f64::INFINITY)]
            ),
            F64_DEFAULT_NAN
        );
    }

    #[test]
    fn min_max_rules() {
        let (nan, one, two) = (0x7FC0_0001, f(1.0), f(2.0));
        assert_eq!(float_op(FloatOp::Min, Ty::F32, RN, &[one, two]), one);
        assert_eq!(float_op(FloatOp::Max, Ty::F32, RN, &[one, two]), two);
        assert_eq!(float_op(FloatOp::Min, Ty::F32, RN, &[nan, two]), two);
        assert_eq!(float_op(FloatOp::Max, Ty::F32, RN, &[one, nan]), one);
        assert_eq!(
            float_op(FloatOp::Min, Ty::F32, RN, &[nan, nan]),
            0x7FFF_FFFF
        );
        assert_eq!(
            float_op(FloatOp::MinNaN, Ty::F32, RN, &[nan, two]),
            0x7FFF_FFFF
        );
        assert_eq!(float_op(FloatOp::MaxNaN, Ty::F32, RN, &[one, two]), two);
        // -0 < +0, in either operand order.
        let (pz, nz) = (0, 0x8000_0000);
        assert_eq!(float_op(FloatOp::Min, Ty::F32, RN, &[pz, nz]), nz);
        assert_eq!(float_op(FloatOp::Min, Ty::F32, RN, &[nz, pz]), nz);
        assert_eq!(float_op(FloatOp::Max, Ty::F32, RN, &[nz, pz]), pz);
        assert_eq!(float_op(FloatOp::Max, Ty::F16, RN, &[0x8000, 0x0000]), 0);
        // Infinities and negative values.
        assert_eq!(
            float_op(FloatOp::Min, Ty::F32, RN, &[f(-5.0), f(f32::NEG_INFINITY)]),
            0xFF80_0000
        );
        assert_eq!(
            float_op(FloatOp::Max, Ty::Bf16, RN, &[0xC000, 0xBF80]),
            0xBF80
        );
        // Packed: per half.
        assert_eq!(
            float_op(FloatOp::Max, Ty::F16x2, RN, &[0x3C00_7E00, 0x4000_BC00]),
            0x4000_BC00
        );
        assert_eq!(
            float_op(FloatOp::MinNaN, Ty::F16x2, RN, &[0x3C00_7E00, 0x4000_BC00]),
            0x3C00_7FFF
        );
        // f64: one NaN -> the other; two NaNs -> b quieted.
        assert_eq!(
            float_op(FloatOp::Min, Ty::F64, RN, &[0x7FF8_0000_0000_0001, d(3.0)]),
            d(3.0)
        );
        let (q1, s2) = (0x7FF8_0000_0000_0001, 0x7FF0_0000_0000_0002);
        assert_eq!(
            float_op(FloatOp::Max, Ty::F64, RN, &[q1, s2]),
            0x7FF8_0000_0000_0002
        );
        assert_eq!(
            float_op(FloatOp::Max, Ty::F64, RN, &[d(-0.0), d(0.0)]),
            d(0.0)
        );
    }

    #[test]
    fn copysign_is_bitwise() {
        assert_eq!(
            float_op(FloatOp::Copysign, Ty::F32, RN, &[f(-1.0), f(2.5)]),
            f(-2.5)
        );
        assert_eq!(
            float_op(FloatOp::Copysign, Ty::F32, RN, &[f(1.0), f(-2.5)]),
            f(2.5)
        );
        assert_eq!(
            float_op(FloatOp::Copysign, Ty::F32, RN, &[0x8000_0000, 0x7FC0_0001]),
            0xFFC0_0001
        );
        assert_eq!(
            float_op(FloatOp::Copysign, Ty::F64, RN, &[d(-0.0), d(3.0)]),
            d(-3.0)
        );
        assert_eq!(
            float_op(
                FloatOp::Copysign,
                Ty::F64,
                RN,
                &[d(0.0), 0xFFF0_0000_0000_0001]
            ),
            0x7FF0_0000_0000_0001
        );
    }

    #[test]
    fn packed_halves_are_independent() {
        // low: 1 + 2 = 3; high: 0.5 * ... as add: 0.5 + 0.25 = 0.75.
        let r = float_op(FloatOp::Add, Ty::F16x2, RN, &[0x3800_3C00, 0x3400_4000]);
        assert_eq!(r, 0x3A00_4200);
        let r = float_op(FloatOp::Mul, Ty::Bf16x2, RN, &[0x4000_3F80, 0xC040_4040]);
        assert_eq!(r, 0xC0C0_4040);
        let r = float_op(FloatOp::Neg, Ty::Bf16x2, RN, &[0x8000_3F80]);
        assert_eq!(r, 0x0000_BF80);
        let r = float_op(FloatOp::Ex2, Ty::F16x2, RN, &[0xFC00_4000]);
        assert_eq!(r, 0x0000_4400);
        let r = float_op(FloatOp::Add, Ty::F16x2, FTZ, &[0x0001_0001, 0x3C00_0001]);
        assert_eq!(r, 0x3C00_0000);
    }

    #[test]
    fn approximate_ops_dispatch() {
        assert_eq!(
            float_op(FloatOp::RcpApprox, Ty::F32, RN, &[f(-0.0)]),
            0xFF80_0000
        );
        assert_eq!(
            float_op(FloatOp::RcpApprox, Ty::F32, FTZ, &[0x8000_0001]),
            0xFF80_0000
        );
        assert_eq!(
            float_op(FloatOp::SqrtApprox, Ty::F32, RN, &[f(16.0)]),
            f(4.0)
        );
        assert_eq!(
            float_op(FloatOp::Rsqrt, Ty::F32, RN, &[f(-0.0)]),
            0xFF80_0000
        );
        assert_eq!(
            float_op(FloatOp::Sin, Ty::F32, RN, &[f(f32::INFINITY)]),
            0x7FFF_FFFF
        );
        assert_eq!(float_op(FloatOp::Cos, Ty::F32, RN, &[0]), f(1.0));
        assert_eq!(
            float_op(FloatOp::Ex2, Ty::F32, RN, &[f(f32::NEG_INFINITY)]),
            0
        );
        assert_eq!(float_op(FloatOp::Lg2, Ty::F32, RN, &[f(-1.0)]), 0x7FFF_FFFF);
        assert_eq!(
            float_op(FloatOp::Tanh, Ty::F32, RN, &[f(f32::INFINITY)]),
            f(1.0)
        );
        assert_eq!(
            float_op(FloatOp::DivApprox, Ty::F32, RN, &[f(1.0), f(3e38)]),
            0
        );
        assert_eq!(
            float_op(FloatOp::DivApprox, Ty::F32, RN, &[f(6.0), f(3.0)]),
            f(2.0)
        );
        // 2^127 lies in (2^126, 2^128): div.approx underflows to 0, div.full
        // gives the exact 2^-127 (a subnormal).
        assert_eq!(
            float_op(FloatOp::DivApprox, Ty::F32, RN, &[f(1.0), 0x7F00_0000]),
            0
        );
        assert_eq!(
            float_op(FloatOp::DivFull, Ty::F32, RN, &[f(1.0), 0x7F00_0000]),
            0x0040_0000
        );
        assert_eq!(
            float_op(FloatOp::RcpApproxF64, Ty::F64, RN, &[d(4.0)]),
            d(0.25)
        );
        let ftz = FTZ;
        assert_eq!(
            float_op(FloatOp::Rsqrt, Ty::F64, ftz, &[d(f64::NAN)]),
            0x7FFF_FFFF_0000_0000
        );
        assert_eq!(float_op(FloatOp::Rsqrt, Ty::F64, RN, &[d(0.25)]), d(2.0));
        assert_eq!(float_op(FloatOp::Tanh, Ty::Bf16, RN, &[0xFF80]), 0xBF80);
        assert_eq!(float_op(FloatOp::Ex2, Ty::F16, RN, &[0x0000]), 0x3C00);
    }

    /// Every op, type and modifier combination on special and random bit
    /// patterns: no panic (overflow checks included in debug builds), and
    /// results stay within the type's width.
    #[test]
    fn never_panics_and_stays_in_width() {
        use FloatOp::*;
        let ops = [
            Add,
            Sub,
            Mul,
            Fma,
            MulAdd,
            Div,
            DivApprox,
            DivFull,
            Min,
            Max,
            MinNaN,
            MaxNaN,
            Abs,
            Neg,
            Copysign,
            Rcp,
            RcpApprox,
            RcpApproxF64,
            Sqrt,
            SqrtApprox,
            Rsqrt,
            Sin,
            Cos,
            Lg2,
            Ex2,
            Tanh,
        ];
        let tys = [
            Ty::F16,
            Ty::F16x2,
            Ty::Bf16,
            Ty::Bf16x2,
            Ty::F32,
            Ty::F64,
            Ty::U32,
            Ty::Pred,
        ];
        let mut vals: Vec<u64> = vec![
            0,
            1,
            u64::MAX,
            0x8000_0000_0000_0000,
            0x7FF0_0000_0000_0000,
            0x7FF8_0000_0000_0000,
            0x000F_FFFF_FFFF_FFFF,
            0x7FEF_FFFF_FFFF_FFFF,
            0x7F80_0000,
            0xFF80_0001,
            0x807F_FFFF,
            0x7F7F_FFFF,
            0x3F80_0000,
            0x7C00_7C00,
            0xFC01_03FF,
            0x7F80_FF7F,
            0x0001_8001,
        ];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..24 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            vals.push(x);
        }
        let roundings = [
            None,
            Some(Rounding::Rz),
            Some(Rounding::Rm),
            Some(Rounding::Rp),
            Some(Rounding::Rna),
        ];
        for op in ops {
            for ty in tys {
                for (i, r) in roundings.iter().enumerate() {
                    let mods = m(*r, i % 2 == 1, i == 2, i == 3);
                    for (j, &a) in vals.iter().enumerate() {
                        let b = vals[(j * 7 + 3) % vals.len()];
                        let c = vals[(j * 5 + 1) % vals.len()];
                        let out = float_op(op, ty, mods, &[a, b, c]);
                        assert_eq!(out & !ty.mask(), 0, "{op:?} {ty:?}");
                        let p = compare_float(CmpOp::Leu, ty, mods.ftz, a, b);
                        assert!(p <= 3);
                        let _ = testp(TestProp::Normal, ty, a);
                        for aop in [
                            AtomOp::Add,
                            AtomOp::Min,
                            AtomOp::Max,
                            AtomOp::Exch,
                            AtomOp::Dec,
                        ] {
                            assert_eq!(atom_float(aop, ty, a, b) & !ty.mask(), 0);
                        }
                    }
                }
            }
        }
    }
}
