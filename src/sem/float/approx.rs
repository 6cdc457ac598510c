//! The approximate operations (`.approx` and `.full` forms, `tanh`, `ex2` on
//! f16/bf16, and the f64 "gross approximations").
//!
//! The PTX ISA only bounds their error, so warpjit computes them in `f64`
//! (correctly rounded for `rcp`/`sqrt`/`div`, within about one f64 ulp for
//! the transcendental functions) and rounds once to the destination: the
//! result is within half an ulp of the exact value (plus a negligible
//! `2^-50` relative), inside every bound the ISA documents:
//!
//! | op | ISA bound |
//! | --- | --- |
//! | `rcp.approx.f32` | 1 ulp |
//! | `sqrt.approx.f32` | relative `2^-23` |
//! | `rsqrt.approx.f32` | relative `2^-22.9` |
//! | `div.approx.f32`, `div.full.f32` | 2 ulp |
//! | `sin`, `cos` | absolute `2^-20.5` in `[-2pi, 2pi]` |
//! | `lg2` | absolute `2^-22` in (0.5, 2), else relative `2^-22` |
//! | `ex2.f32` | 2 ulp; `.f16` relative `2^-9.9`; `.bf16` `2^-7` |
//! | `tanh` | `.f32` relative `2^-11`; `.f16` absolute `2^-10.987`; `.bf16` `2^-8` |
//!
//! They are therefore *more* accurate than the hardware, not bit-identical
//! to it; the special-case tables of the ISA are followed exactly.
use super::arith::{narrow, wide, Arith};
use super::fmt::{round_f64, Fmt, F32, F64, F64_DEFAULT_NAN};
use crate::ir::ops::Rounding;

/// The approximate unary functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fun {
    Rcp,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
}

fn eval(f: Fun, x: f64) -> f64 {
    match f {
        Fun::Rcp => 1.0 / x,
        Fun::Sqrt => x.sqrt(),
        // sqrt(-0) = -0, so rsqrt(-0) = -inf as the ISA's table says.
        Fun::Rsqrt => 1.0 / x.sqrt(),
        Fun::Sin => x.sin(),
        Fun::Cos => x.cos(),
        Fun::Lg2 => x.log2(),
        Fun::Ex2 => exp2(x),
        Fun::Tanh => x.tanh(),
    }
}

/// `ex2` in f64 (before rounding to the destination); compiled pieces call
/// it too (`jit::helpers::jit_exp2`).
pub(crate) extern "C" fn exp2(x: f64) -> f64 {
    x.exp2()
}

/// `f` on an f16, bf16 or f32 value (`a` already flushed for `.ftz`; the
/// caller flushes the result). NaN results are the canonical NaN.
pub(crate) fn unary(fmt: Fmt, f: Fun, a: u64) -> u64 {
    match f {
        Fun::Rcp => narrow(fmt, Arith::Rcp, a, 0, 0, Rounding::Rn),
        Fun::Sqrt => narrow(fmt, Arith::Sqrt, a, 0, 0, Rounding::Rn),
        _ if fmt.is_nan(a) => fmt.canonical_nan(),
        _ => round_f64(fmt, eval(f, fmt.to_f64(a)), Rounding::Rn),
    }
}

/// `f` on an f64 (`rsqrt.approx.f64`, and the other functions for
/// completeness): NaN inputs propagate quieted, invalid operations give the
/// f64 default NaN, as the f64 arithmetic does.
pub(crate) fn unary_f64(f: Fun, a: u64) -> u64 {
    match f {
        Fun::Rcp => wide(Arith::Rcp, a, 0, 0, Rounding::Rn),
        Fun::Sqrt => wide(Arith::Sqrt, a, 0, 0, Rounding::Rn),
        _ if F64.is_nan(a) => F64.quiet(a),
        _ => {
            let r = eval(f, f64::from_bits(a));
            if r.is_nan() {
                F64_DEFAULT_NAN
            } else {
                r.to_bits()
            }
        }
    }
}

/// `rcp.approx.ftz.f64` (`rsqrt` false) and `rsqrt.approx.ftz.f64` (true):
/// the function of the value in the upper 32 bits of `a` (sign, exponent and
/// 20 fraction bits), subnormals flushed, the result truncated to 20
/// fraction bits and its subnormals flushed; the low 32 bits are zero.
/// NaN inputs and results give the canonical `0x7FFF_FFFF_0000_0000`.
pub(crate) fn f64_ftz_upper(rsqrt: bool, a: u64) -> u64 {
    let top = F64.flush(a & 0xFFFF_FFFF_0000_0000);
    if F64.is_nan(top) {
        return 0x7FFF_FFFF_0000_0000;
    }
    let x = f64::from_bits(top);
    let r = if rsqrt { 1.0 / x.sqrt() } else { 1.0 / x };
    if r.is_nan() {
        return 0x7FFF_FFFF_0000_0000;
    }
    // Keep 20 fraction bits by truncation: of the exact result's neighbours
    // this is the one the H100 returns in about 95% of cases (it is within
    // one unit of the 20-bit result either way).
    let hi = r.to_bits() >> 32;
    F64.flush(hi << 32)
}

/// `div.approx.f32`: `a * (1/b)`. For `2^126 < |b| < 2^128` the reciprocal
/// underflows as the ISA documents: the result is a sign-preserving zero, or
/// NaN when `a` is infinite (or NaN). Elsewhere the correctly rounded
/// quotient (within the ISA's 2 ulp).
pub(crate) fn div_approx(fmt: Fmt, a: u64, b: u64) -> u64 {
    if fmt == F32 {
        let mag = F32.abs(b);
        if mag > 0x7E80_0000 && mag < 0x7F80_0000 {
            if F32.is_nan(a) || F32.is_inf(a) {
                return F32.canonical_nan();
            }
            return F32.zero(F32.is_neg(a) != F32.is_neg(b));
        }
    }
    narrow(fmt, Arith::Div, a, b, 0, Rounding::Rn)
}

#[cfg(test)]
mod tests {
    use super::super::fmt::{BF16, F16};
    use super::*;

    fn f32fun(f: Fun, x: f32) -> u32 {
        unary(F32, f, x.to_bits() as u64) as u32
    }

    #[test]
    fn special_case_tables_f32() {
        let (inf, ninf) = (f32::INFINITY, f32::NEG_INFINITY);
        let nan = 0x7FFF_FFFF;
        // rcp.approx: -Inf -> -0, -0 -> -Inf, +0 -> +Inf, +Inf -> +0.
        assert_eq!(f32fun(Fun::Rcp, ninf), 0x8000_0000);
        assert_eq!(f32fun(Fun::Rcp, -0.0), 0xFF80_0000);
        assert_eq!(f32fun(Fun::Rcp, 0.0), 0x7F80_0000);
        assert_eq!(f32fun(Fun::Rcp, inf), 0);
        // sqrt.approx: -Inf, -normal -> NaN; -0 -> -0.
        assert_eq!(f32fun(Fun::Sqrt, ninf), nan);
        assert_eq!(f32fun(Fun::Sqrt, -4.0), nan);
        assert_eq!(f32fun(Fun::Sqrt, -0.0), 0x8000_0000);
        assert_eq!(f32fun(Fun::Sqrt, inf), 0x7F80_0000);
        // rsqrt: -0 -> -Inf, +0 -> +Inf, +Inf -> +0, negative -> NaN.
        assert_eq!(f32fun(Fun::Rsqrt, -0.0), 0xFF80_0000);
        assert_eq!(f32fun(Fun::Rsqrt, 0.0), 0x7F80_0000);
        assert_eq!(f32fun(Fun::Rsqrt, inf), 0);
        assert_eq!(f32fun(Fun::Rsqrt, -1.0), nan);
        assert_eq!(f32fun(Fun::Rsqrt, 4.0), 0.5f32.to_bits());
        // sin/cos: +-Inf -> NaN; sin(-0) = -0; cos(+-0) = 1.
        assert_eq!(f32fun(Fun::Sin, inf), nan);
        assert_eq!(f32fun(Fun::Cos, ninf), nan);
        assert_eq!(f32fun(Fun::Sin, -0.0), 0x8000_0000);
        assert_eq!(f32fun(Fun::Cos, -0.0), 0x3F80_0000);
        // lg2: -Inf, -normal -> NaN; +-0 -> -Inf; +Inf -> +Inf.
        assert_eq!(f32fun(Fun::Lg2, ninf), nan);
        assert_eq!(f32fun(Fun::Lg2, -2.0), nan);
        assert_eq!(f32fun(Fun::Lg2, -0.0), 0xFF80_0000);
        assert_eq!(f32fun(Fun::Lg2, 0.0), 0xFF80_0000);
        assert_eq!(f32fun(Fun::Lg2, inf), 0x7F80_0000);
        assert_eq!(f32fun(Fun::Lg2, 8.0), 3.0f32.to_bits());
        // ex2: -Inf -> +0; +-0 -> 1; +Inf -> +Inf.
        assert_eq!(f32fun(Fun::Ex2, ninf), 0);
        assert_eq!(f32fun(Fun::Ex2, -0.0), 0x3F80_0000);
        assert_eq!(f32fun(Fun::Ex2, inf), 0x7F80_0000);
        assert_eq!(f32fun(Fun::Ex2, -3.0), 0.125f32.to_bits());
        assert_eq!(f32fun(Fun::Ex2, 200.0), 0x7F80_0000);
        // tanh: +-Inf -> +-1; +-0 kept; subnormals pass through.
        assert_eq!(f32fun(Fun::Tanh, ninf), 0xBF80_0000);
        assert_eq!(f32fun(Fun::Tanh, inf), 0x3F80_0000);
        assert_eq!(f32fun(Fun::Tanh, -0.0), 0x8000_0000);
        assert_eq!(unary(F32, Fun::Tanh, 0x8000_0005), 0x8000_0005);
        for f in [Fun::Rcp, Fun::Sqrt, Fun::Sin, Fun::Lg2, Fun::Ex2, Fun::Tanh] {
            assert_eq!(unary(F32, f, 0x7FC0_1234), nan as u64);
        }
    }

    #[test]
    fn accuracy_within_isa_bounds_f32() {
        // Sweep and compare with f64 references: well inside the ISA bounds.
        let mut x = -10.0f32;
        while x < 10.0 {
            let fx = x as f64;
            let sin = f32::from_bits(f32fun(Fun::Sin, x)) as f64;
            assert!((sin - fx.sin()).abs() < 2f64.powf(-20.5));
            let cos = f32::from_bits(f32fun(Fun::Cos, x)) as f64;
            assert!((cos - fx.cos()).abs() < 2f64.powf(-20.5));
            let ex2 = f32::from_bits(f32fun(Fun::Ex2, x)) as f64;
            assert!(((ex2 - fx.exp2()) / fx.exp2()).abs() < 2f64.powi(-23));
            let th = f32::from_bits(f32fun(Fun::Tanh, x)) as f64;
            assert!((th - fx.tanh()).abs() <= 2f64.powi(-24) + fx.tanh().abs() * 2f64.powi(-11));
            if x > 0.0 {
                let lg = f32::from_bits(f32fun(Fun::Lg2, x)) as f64;
                assert!((lg - fx.log2()).abs() <= 2f64.powi(-22) * fx.log2().abs().max(1.0));
                let rs = f32::from_bits(f32fun(Fun::Rsqrt, x)) as f64;
                assert!(((rs - 1.0 / fx.sqrt()) * fx.sqrt()).abs() < 2f64.powf(-22.9));
            }
            x += 0.0137;
        }
    }

    #[test]
    fn half_forms() {
        // ex2.approx.f16: 2^3 = 8 (0x4800); -Inf -> +0; 2^-1 = 0.5.
        assert_eq!(unary(F16, Fun::Ex2, 0x4200), 0x4800);
        assert_eq!(unary(F16, Fun::Ex2, 0xFC00), 0);
        assert_eq!(unary(F16, Fun::Ex2, 0xBC00), 0x3800);
        assert_eq!(unary(F16, Fun::Ex2, 0x7C00), 0x7C00);
        assert_eq!(unary(F16, Fun::Ex2, 0x7E00), 0x7FFF);
        // bf16: 2^1 = 2.
        assert_eq!(unary(BF16, Fun::Ex2, 0x3F80), 0x4000);
        // tanh.approx.bf16(+Inf) = 1; tanh.f16(-Inf) = -1.
        assert_eq!(unary(BF16, Fun::Tanh, 0x7F80), 0x3F80);
        assert_eq!(unary(F16, Fun::Tanh, 0xFC00), 0xBC00);
        // tanh(0.5) = 0.46211715..; f16 nearest is 0x3765 (0.46215820..).
        assert_eq!(unary(F16, Fun::Tanh, 0x3800), 0x3765);
    }

    #[test]
    fn f64_unary_nan_rules() {
        // rsqrt.approx.f64: NaN payload quieted; negative -> default NaN.
        assert_eq!(
            unary_f64(Fun::Rsqrt, 0x7FF0_0000_0000_0009),
            0x7FF8_0000_0000_0009
        );
        assert_eq!(unary_f64(Fun::Rsqrt, (-4.0f64).to_bits()), F64_DEFAULT_NAN);
        assert_eq!(unary_f64(Fun::Rsqrt, 4.0f64.to_bits()), 0.5f64.to_bits());
        assert_eq!(
            unary_f64(Fun::Rsqrt, (-0.0f64).to_bits()),
            f64::NEG_INFINITY.to_bits()
        );
        assert_eq!(unary_f64(Fun::Ex2, 10.0f64.to_bits()), 1024.0f64.to_bits());
        assert_eq!(unary_f64(Fun::Rcp, 4.0f64.to_bits()), 0.25f64.to_bits());
    }

    #[test]
    fn f64_gross_approximations() {
        let rcp = |x: f64| f64_ftz_upper(false, x.to_bits());
        let rsq = |x: f64| f64_ftz_upper(true, x.to_bits());
        assert_eq!(rcp(2.0), 0.5f64.to_bits());
        assert_eq!(rsq(4.0), 0.5f64.to_bits());
        // 1/3 = 0x3FD5555555555555 truncated to the upper word.
        assert_eq!(rcp(3.0), 0x3FD5_5555_0000_0000);
        // The low 32 bits of the input are ignored.
        assert_eq!(
            f64_ftz_upper(false, 0x4000_0000_FFFF_FFFF),
            0x3FE0_0000_0000_0000
        );
        // Special cases of the ISA's table.
        assert_eq!(rcp(f64::NEG_INFINITY), 0x8000_0000_0000_0000);
        assert_eq!(rcp(-0.0), 0xFFF0_0000_0000_0000);
        assert_eq!(
            rcp(f64::from_bits(0x0000_0001_0000_0000)),
            0x7FF0_0000_0000_0000
        );
        assert_eq!(
            rcp(-f64::from_bits(0x0000_0001_0000_0000)),
            0xFFF0_0000_0000_0000
        );
        assert_eq!(rcp(f64::NAN), 0x7FFF_FFFF_0000_0000);
        assert_eq!(rsq(-1.0), 0x7FFF_FFFF_0000_0000);
        assert_eq!(rsq(f64::NEG_INFINITY), 0x7FFF_FFFF_0000_0000);
        assert_eq!(rsq(-0.0), 0xFFF0_0000_0000_0000);
        assert_eq!(rsq(f64::INFINITY), 0);
        // Results below the normal range are flushed: 1/2^1023.
        assert_eq!(rcp(f64::from_bits(0x7FE0_0000_0000_0000)), 0);
    }

    #[test]
    fn div_approx_large_divisor() {
        let d = |a: f32, b: f32| div_approx(F32, a.to_bits() as u64, b.to_bits() as u64) as u32;
        // 2^126 < |b| < 2^128: zero with the product's sign, NaN for inf a.
        assert_eq!(d(1.0, 2e38), 0);
        assert_eq!(d(-1.0, 2e38), 0x8000_0000);
        assert_eq!(d(1.0, -3e38), 0x8000_0000);
        assert_eq!(d(f32::INFINITY, 3e38), 0x7FFF_FFFF);
        // Exactly 2^126 is outside that range.
        assert_eq!(d(1.0, f32::from_bits(0x7E80_0000)), 0x0080_0000);
        assert_eq!(d(1.0, 4.0), 0.25f32.to_bits());
        assert_eq!(d(0.0, 0.0), 0x7FFF_FFFF);
        assert_eq!(d(1.0, f32::INFINITY), 0);
    }
}
