//! Correctly rounded arithmetic (`add sub mul fma div rcp sqrt`) in all four
//! IEEE rounding modes.
//!
//! * f16, bf16 and f32 are evaluated in `f64`: a product of two such values
//!   is exact in `f64`; sums, quotients and square roots are made exact in
//!   sign by an error term (TwoSum, or the residual computed with a fused
//!   multiply-add, which is exact for a quotient or root rounded to nearest)
//!   and turned into round-to-odd form, which [`round_f64`] then rounds once
//!   and correctly (see [`super::fmt`]). f32 with `.rn` uses the host's own
//!   IEEE f32 arithmetic directly.
//! * f64 with `.rn` uses the host's f64 arithmetic (`f64::mul_add` is a true
//!   fused operation); `.rz .rm .rp` use `rustc_apfloat`, which rounds
//!   exactly in every mode, and square roots correct the nearest root by the
//!   sign of its exact residual.
//!
//! NaN results: f16, bf16 and f32 return the canonical NaN; f64 propagates
//! an input NaN's payload (quieted) with the operand priority measured on an
//! H100 (`add sub mul`: b before a; `fma`: b, then c, then a; `div`: a before
//! b), and generates [`F64_DEFAULT_NAN`] for invalid operations.
use super::fmt::{round_f64, round_odd, two_sum_err, Fmt, F32, F64, F64_DEFAULT_NAN};
use crate::ir::ops::Rounding;
use rustc_apfloat::ieee::Double;
use rustc_apfloat::{Float, Round};

/// The correctly rounded operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arith {
    Add,
    Sub,
    Mul,
    Fma,
    Div,
    Rcp,
    Sqrt,
}

/// `op` on f16, bf16 or f32 operands (bits of `fmt`), rounded with `mode`.
/// NaN results are the canonical NaN. Subnormals are kept (the caller
/// flushes for `.ftz`).
pub(crate) fn narrow(fmt: Fmt, op: Arith, a: u64, b: u64, c: u64, mode: Rounding) -> u64 {
    if fmt == F32 && mode == Rounding::Rn {
        let (x, y, z) = (
            f32::from_bits(a as u32),
            f32::from_bits(b as u32),
            f32::from_bits(c as u32),
        );
        let r = match op {
            Arith::Add => x + y,
            Arith::Sub => x - y,
            Arith::Mul => x * y,
            Arith::Fma => x.mul_add(y, z),
            Arith::Div => x / y,
            Arith::Rcp => 1.0 / x,
            Arith::Sqrt => x.sqrt(),
        };
        return if r.is_nan() {
            fmt.canonical_nan()
        } else {
            r.to_bits() as u64
        };
    }
    let (x, y, z) = (fmt.to_f64(a), fmt.to_f64(b), fmt.to_f64(c));
    let r = match op {
        Arith::Add => sum(x, y, mode),
        Arith::Sub => sum(x, -y, mode),
        Arith::Mul => x * y,
        Arith::Fma => sum(x * y, z, mode),
        Arith::Div => quotient(x, y),
        Arith::Rcp => quotient(1.0, x),
        Arith::Sqrt => root(x),
    };
    round_f64(fmt, r, mode)
}

/// `x + y` in round-to-odd form, for exact `f64` operands whose sum cannot
/// overflow. An exact zero sum of nonzero or differently signed operands is
/// `-0` under `.rm` and `+0` otherwise (IEEE 754 §6.3).
fn sum(x: f64, y: f64, mode: Rounding) -> f64 {
    let s = x + y;
    if s == 0.0 {
        let same_sign_zeros = x == 0.0 && y == 0.0 && x.is_sign_negative() == y.is_sign_negative();
        return if same_sign_zeros {
            s
        } else if mode == Rounding::Rm {
            -0.0
        } else {
            0.0
        };
    }
    if !s.is_finite() {
        return s;
    }
    round_odd(s, two_sum_err(x, y, s))
}

/// `x / y` in round-to-odd form (operands exact values of a narrow format).
fn quotient(x: f64, y: f64) -> f64 {
    let q = x / y;
    if !q.is_finite() || q == 0.0 || !x.is_finite() || !y.is_finite() {
        return q;
    }
    // The residual x - q*y is exact; its sign (times y's) is the error's.
    let r = (-q).mul_add(y, x);
    let err = if r == 0.0 {
        0.0
    } else if (r > 0.0) == (y > 0.0) {
        1.0
    } else {
        -1.0
    };
    round_odd(q, err)
}

/// `sqrt(x)` in round-to-odd form (operand an exact value of a narrow format).
fn root(x: f64) -> f64 {
    let s = x.sqrt();
    if !s.is_finite() || s == 0.0 {
        return s;
    }
    // s*s - x > 0 means s is above the exact root.
    let r = s.mul_add(s, -x);
    round_odd(s, -r)
}

/// `op` on f64 operands with `mode`, with the H100's NaN propagation.
pub(crate) fn wide(op: Arith, a: u64, b: u64, c: u64, mode: Rounding) -> u64 {
    let nan = |x: u64| F64.is_nan(x);
    let pick = match op {
        Arith::Add | Arith::Sub | Arith::Mul => [b, a, a],
        Arith::Fma => [b, c, a],
        Arith::Div => [a, b, b],
        Arith::Rcp | Arith::Sqrt => [a, a, a],
    };
    if let Some(&n) = pick.iter().find(|&&v| nan(v)) {
        return F64.quiet(n);
    }
    let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    let r = if mode == Rounding::Rn {
        match op {
            Arith::Add => x + y,
            Arith::Sub => x - y,
            Arith::Mul => x * y,
            Arith::Fma => x.mul_add(y, z),
            Arith::Div => x / y,
            Arith::Rcp => 1.0 / x,
            Arith::Sqrt => x.sqrt(),
        }
    } else if op == Arith::Sqrt {
        sqrt_directed(x, mode)
    } else {
        let round = match mode {
            Rounding::Rz => Round::TowardZero,
            Rounding::Rm => Round::TowardNegative,
            Rounding::Rp => Round::TowardPositive,
            Rounding::Rn => Round::NearestTiesToEven,
            Rounding::Rna => Round::NearestTiesToAway,
        };
        let ap = |v: f64| Double::from_bits(v.to_bits() as u128);
        let (x, y, z) = (ap(x), ap(y), ap(z));
        let v = match op {
            Arith::Add => x.add_r(y, round).value,
            Arith::Sub => x.sub_r(y, round).value,
            Arith::Mul => x.mul_r(y, round).value,
            Arith::Fma => x.mul_add_r(y, z, round).value,
            Arith::Div => x.div_r(y, round).value,
            Arith::Rcp => {
                Double::from_bits(1.0f64.to_bits() as u128)
                    .div_r(x, round)
                    .value
            }
            Arith::Sqrt => unreachable!(),
        };
        f64::from_bits(v.to_bits() as u64)
    };
    if r.is_nan() {
        F64_DEFAULT_NAN
    } else {
        r.to_bits()
    }
}

/// `sqrt(x)` for f64 rounded toward zero / minus / plus infinity: the
/// nearest root, corrected by one ulp where the sign of its exact residual
/// (an fma, exact once tiny operands are scaled by an even power of two)
/// shows that it lies on the wrong side.
fn sqrt_directed(x: f64, mode: Rounding) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 || x.is_infinite() {
        return x;
    }
    let tiny = x < f64::from_bits(0x07f0_0000_0000_0000); // 2^-896
    let xs = if tiny { x * super::fmt::exp2i(200) } else { x };
    let mut s = xs.sqrt();
    let r = s.mul_add(s, -xs);
    match mode {
        Rounding::Rp if r < 0.0 => s = f64::from_bits(s.to_bits() + 1),
        Rounding::Rz | Rounding::Rm if r > 0.0 => s = f64::from_bits(s.to_bits() - 1),
        _ => {}
    }
    if tiny {
        s * super::fmt::exp2i(-100)
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::super::fmt::{BF16, F16};
    use super::*;
    use Rounding::*;

    const MODES: [Rounding; 4] = [Rn, Rz, Rm, Rp];

    fn f32op(op: Arith, a: u32, b: u32, c: u32, m: Rounding) -> u32 {
        narrow(F32, op, a as u64, b as u64, c as u64, m) as u32
    }

    #[test]
    fn f32_add_ties_and_directed() {
        // 1 + 2^-24 is exactly half an ulp above 1.0.
        let (one, h) = (0x3F80_0000, 0x3380_0000);
        assert_eq!(f32op(Arith::Add, one, h, 0, Rn), 0x3F80_0000);
        assert_eq!(f32op(Arith::Add, one, h, 0, Rz), 0x3F80_0000);
        assert_eq!(f32op(Arith::Add, one, h, 0, Rm), 0x3F80_0000);
        assert_eq!(f32op(Arith::Add, one, h, 0, Rp), 0x3F80_0001);
        let (mone, mh) = (0xBF80_0000, 0xB380_0000);
        assert_eq!(f32op(Arith::Add, mone, mh, 0, Rn), 0xBF80_0000);
        assert_eq!(f32op(Arith::Add, mone, mh, 0, Rm), 0xBF80_0001);
        assert_eq!(f32op(Arith::Add, mone, mh, 0, Rp), 0xBF80_0000);
        // 1 + 1.5 * 2^-24: three quarters of an ulp -> up under Rn.
        assert_eq!(f32op(Arith::Add, one, 0x33C0_0000, 0, Rn), 0x3F80_0001);
        assert_eq!(f32op(Arith::Add, one, 0x33C0_0000, 0, Rz), 0x3F80_0000);
        // 1.0 + 1.0 is exact in every mode.
        for m in MODES {
            assert_eq!(f32op(Arith::Add, one, one, 0, m), 0x4000_0000);
        }
    }

    #[test]
    fn signed_zero_sums() {
        let (x, mx) = (0x4049_0FDB, 0xC049_0FDB);
        assert_eq!(f32op(Arith::Add, x, mx, 0, Rn), 0);
        assert_eq!(f32op(Arith::Add, x, mx, 0, Rz), 0);
        assert_eq!(f32op(Arith::Add, x, mx, 0, Rp), 0);
        assert_eq!(f32op(Arith::Add, x, mx, 0, Rm), 0x8000_0000);
        assert_eq!(f32op(Arith::Sub, x, x, 0, Rm), 0x8000_0000);
        for m in MODES {
            assert_eq!(
                f32op(Arith::Add, 0x8000_0000, 0x8000_0000, 0, m),
                0x8000_0000
            );
            assert_eq!(f32op(Arith::Add, 0, 0, 0, m), 0);
            // f16 goes through the f64 path: same rules.
            assert_eq!(narrow(F16, Arith::Add, 0x8000, 0x8000, 0, m), 0x8000);
        }
        assert_eq!(f32op(Arith::Add, 0, 0x8000_0000, 0, Rm), 0x8000_0000);
        assert_eq!(f32op(Arith::Add, 0, 0x8000_0000, 0, Rp), 0);
        assert_eq!(narrow(F16, Arith::Sub, 0x3C00, 0x3C00, 0, Rm), 0x8000);
        assert_eq!(narrow(F16, Arith::Sub, 0x3C00, 0x3C00, 0, Rn), 0);
        // fma: 1 * 1 + (-1) is an exact zero -> -0 only under Rm.
        assert_eq!(
            f32op(Arith::Fma, 0x3F80_0000, 0x3F80_0000, 0xBF80_0000, Rm),
            0x8000_0000
        );
        assert_eq!(
            f32op(Arith::Fma, 0x3F80_0000, 0x3F80_0000, 0xBF80_0000, Rz),
            0
        );
        // 0 * -1 + -0 = -0 in every mode.
        for m in MODES {
            assert_eq!(
                f32op(Arith::Fma, 0, 0xBF80_0000, 0x8000_0000, m),
                0x8000_0000
            );
        }
    }

    #[test]
    fn f32_mul_and_fma() {
        // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: a tie at f32 precision.
        let a = 0x3F80_0800;
        assert_eq!(f32op(Arith::Mul, a, a, 0, Rn), 0x3F80_1000);
        assert_eq!(f32op(Arith::Mul, a, a, 0, Rz), 0x3F80_1000);
        assert_eq!(f32op(Arith::Mul, a, a, 0, Rp), 0x3F80_1001);
        // The fused form keeps the 2^-24: 2^-11 + 2^-24 exactly.
        for m in MODES {
            assert_eq!(f32op(Arith::Fma, a, a, 0xBF80_0000, m), 0x3A00_0400);
        }
        // Subnormal products: 3 * 2^-149 * 0.5 = 1.5 * 2^-149, a tie -> 2.
        assert_eq!(f32op(Arith::Mul, 3, 0x3F00_0000, 0, Rn), 2);
        assert_eq!(f32op(Arith::Mul, 3, 0x3F00_0000, 0, Rz), 1);
        assert_eq!(
            f32op(Arith::Mul, 0x0080_0000, 0x3F00_0000, 0, Rz),
            0x0040_0000
        );
        // Overflow: max * 2.
        assert_eq!(
            f32op(Arith::Mul, 0x7F7F_FFFF, 0x4000_0000, 0, Rn),
            0x7F80_0000
        );
        assert_eq!(
            f32op(Arith::Mul, 0x7F7F_FFFF, 0x4000_0000, 0, Rz),
            0x7F7F_FFFF
        );
        assert_eq!(
            f32op(Arith::Mul, 0xFF7F_FFFF, 0x4000_0000, 0, Rp),
            0xFF7F_FFFF
        );
    }

    #[test]
    fn f32_div_rcp_sqrt() {
        let (one, three) = (0x3F80_0000, 0x4040_0000);
        assert_eq!(f32op(Arith::Div, one, three, 0, Rn), 0x3EAA_AAAB);
        assert_eq!(f32op(Arith::Div, one, three, 0, Rz), 0x3EAA_AAAA);
        assert_eq!(f32op(Arith::Div, one, three, 0, Rm), 0x3EAA_AAAA);
        assert_eq!(f32op(Arith::Div, one, three, 0, Rp), 0x3EAA_AAAB);
        assert_eq!(f32op(Arith::Div, 0xBF80_0000, three, 0, Rm), 0xBEAA_AAAB);
        assert_eq!(f32op(Arith::Div, 0xBF80_0000, three, 0, Rp), 0xBEAA_AAAA);
        assert_eq!(f32op(Arith::Rcp, three, 0, 0, Rz), 0x3EAA_AAAA);
        assert_eq!(f32op(Arith::Rcp, three, 0, 0, Rp), 0x3EAA_AAAB);
        // Exact quotient: 1 / 4.
        for m in MODES {
            assert_eq!(f32op(Arith::Div, one, 0x4080_0000, 0, m), 0x3E80_0000);
        }
        // sqrt(2): 0x3FB504F3 lies below the root, 0x3FB504F4 above.
        let two = 0x4000_0000;
        assert_eq!(f32op(Arith::Sqrt, two, 0, 0, Rn), 0x3FB5_04F3);
        assert_eq!(f32op(Arith::Sqrt, two, 0, 0, Rz), 0x3FB5_04F3);
        assert_eq!(f32op(Arith::Sqrt, two, 0, 0, Rm), 0x3FB5_04F3);
        assert_eq!(f32op(Arith::Sqrt, two, 0, 0, Rp), 0x3FB5_04F4);
        for m in MODES {
            assert_eq!(f32op(Arith::Sqrt, 0x4080_0000, 0, 0, m), two);
            assert_eq!(f32op(Arith::Sqrt, 0x8000_0000, 0, 0, m), 0x8000_0000);
            assert_eq!(f32op(Arith::Sqrt, 0xBF80_0000, 0, 0, m), 0x7FFF_FFFF);
            assert_eq!(f32op(Arith::Div, 0, 0, 0, m), 0x7FFF_FFFF);
            assert_eq!(f32op(Arith::Div, one, 0x8000_0000, 0, m), 0xFF80_0000);
        }
        // Subnormal divisor: 2^-149 / 2^-149 = 1.
        assert_eq!(f32op(Arith::Div, 1, 1, 0, Rz), one);
    }

    #[test]
    fn narrow_nan_is_canonical() {
        for m in MODES {
            assert_eq!(f32op(Arith::Add, 0x7FC0_0001, one(), 0, m), 0x7FFF_FFFF);
            assert_eq!(
                f32op(Arith::Add, 0x7F80_0000, 0xFF80_0000, 0, m),
                0x7FFF_FFFF
            );
            assert_eq!(narrow(F16, Arith::Mul, 0x7C00, 0, 0, m), 0x7FFF);
            assert_eq!(narrow(BF16, Arith::Fma, 0xFFC1, 0x3F80, 0x3F80, m), 0x7FFF);
        }
        fn one() -> u32 {
            0x3F80_0000
        }
    }

    #[test]
    fn f16_bf16_rounding() {
        // f16: 1 + 2^-11 is a tie.
        assert_eq!(narrow(F16, Arith::Add, 0x3C00, 0x1000, 0, Rn), 0x3C00);
        assert_eq!(narrow(F16, Arith::Add, 0x3C00, 0x1000, 0, Rp), 0x3C01);
        // (1 + 2^-10)^2 - 1 = 2^-9 + 2^-20: a tie at f16 precision -> 2^-9.
        assert_eq!(narrow(F16, Arith::Fma, 0x3C01, 0x3C01, 0xBC00, Rn), 0x1800);
        assert_eq!(narrow(F16, Arith::Fma, 0x3C01, 0x3C01, 0xBC00, Rp), 0x1801);
        // Subnormal result: 2^-14 * 0.5 = 2^-15.
        assert_eq!(narrow(F16, Arith::Mul, 0x0400, 0x3800, 0, Rn), 0x0200);
        // f16 overflow: 256 * 256.
        assert_eq!(narrow(F16, Arith::Mul, 0x5C00, 0x5C00, 0, Rn), 0x7C00);
        assert_eq!(narrow(F16, Arith::Mul, 0x5C00, 0x5C00, 0, Rz), 0x7BFF);
    }

    #[test]
    fn bf16_fma_rounds_once() {
        // 3 * (1 + 2^-7) = 3 + 3*2^-7 is the midpoint between bf16 0x4041
        // and 0x4042; a tiny c decides. Rounding a*b+c to f64 first would
        // lose c and give the tie's even neighbour 0x4042 both times.
        let (a, b) = (0x4040, 0x3F81);
        assert_eq!(narrow(BF16, Arith::Fma, a, b, 0xA180, Rn), 0x4041); // c = -2^-60
        assert_eq!(narrow(BF16, Arith::Fma, a, b, 0x2180, Rn), 0x4042); // c = +2^-60
        assert_eq!(narrow(BF16, Arith::Fma, a, b, 0, Rn), 0x4042); // tie -> even
        assert_eq!(narrow(BF16, Arith::Fma, a, b, 0, Rz), 0x4041);
        // bf16 add whose exact sum needs more than 53 bits.
        assert_eq!(narrow(BF16, Arith::Add, 0x3F80, 0x0001, 0, Rp), 0x3F81);
        assert_eq!(narrow(BF16, Arith::Add, 0x3F80, 0x0001, 0, Rn), 0x3F80);
        assert_eq!(narrow(BF16, Arith::Add, 0x3F80, 0x8001, 0, Rz), 0x3F7F);
    }

    fn f64op(op: Arith, a: f64, b: f64, c: f64, m: Rounding) -> u64 {
        wide(op, a.to_bits(), b.to_bits(), c.to_bits(), m)
    }

    #[test]
    fn f64_directed() {
        assert_eq!(f64op(Arith::Div, 1.0, 3.0, 0.0, Rn), 0x3FD5_5555_5555_5555);
        assert_eq!(f64op(Arith::Div, 1.0, 3.0, 0.0, Rz), 0x3FD5_5555_5555_5555);
        assert_eq!(f64op(Arith::Div, 1.0, 3.0, 0.0, Rp), 0x3FD5_5555_5555_5556);
        assert_eq!(f64op(Arith::Div, -1.0, 3.0, 0.0, Rm), 0xBFD5_5555_5555_5556);
        assert_eq!(f64op(Arith::Rcp, 3.0, 0.0, 0.0, Rp), 0x3FD5_5555_5555_5556);
        let h = f64::from_bits(0x3CA0_0000_0000_0000); // 2^-53
        assert_eq!(f64op(Arith::Add, 1.0, h, 0.0, Rn), 0x3FF0_0000_0000_0000);
        assert_eq!(f64op(Arith::Add, 1.0, h, 0.0, Rp), 0x3FF0_0000_0000_0001);
        assert_eq!(f64op(Arith::Sub, 1.0, h, 0.0, Rz), 0x3FEF_FFFF_FFFF_FFFF);
        assert_eq!(f64op(Arith::Sub, 1.0, 1.0, 0.0, Rm), 0x8000_0000_0000_0000);
        assert_eq!(
            f64op(Arith::Mul, 3.0, f64::MAX, 0.0, Rz),
            f64::MAX.to_bits()
        );
        // (1 + 2^-52)^2 - 1 = 2^-51 + 2^-104: a tie below 2^-51's ulp.
        let a = f64::from_bits(0x3FF0_0000_0000_0001);
        assert_eq!(f64op(Arith::Fma, a, a, -1.0, Rn), 0x3CC0_0000_0000_0000);
        assert_eq!(f64op(Arith::Fma, a, a, -1.0, Rp), 0x3CC0_0000_0000_0001);
        assert_eq!(f64op(Arith::Fma, a, a, -1.0, Rz), 0x3CC0_0000_0000_0000);
    }

    #[test]
    fn f64_sqrt_directed() {
        assert_eq!(f64op(Arith::Sqrt, 2.0, 0.0, 0.0, Rn), 0x3FF6_A09E_667F_3BCD);
        assert_eq!(f64op(Arith::Sqrt, 2.0, 0.0, 0.0, Rz), 0x3FF6_A09E_667F_3BCC);
        assert_eq!(f64op(Arith::Sqrt, 2.0, 0.0, 0.0, Rm), 0x3FF6_A09E_667F_3BCC);
        assert_eq!(f64op(Arith::Sqrt, 2.0, 0.0, 0.0, Rp), 0x3FF6_A09E_667F_3BCD);
        let tiny = |b: u64| f64::from_bits(b);
        for m in MODES {
            // sqrt(2^-1074) = 2^-537 exactly.
            assert_eq!(
                f64op(Arith::Sqrt, tiny(1), 0.0, 0.0, m),
                0x1E60_0000_0000_0000
            );
            assert_eq!(f64op(Arith::Sqrt, 9.0, 0.0, 0.0, m), 3.0f64.to_bits());
            assert_eq!(f64op(Arith::Sqrt, -0.0, 0.0, 0.0, m), 0x8000_0000_0000_0000);
            assert_eq!(f64op(Arith::Sqrt, -1.0, 0.0, 0.0, m), F64_DEFAULT_NAN);
            assert_eq!(
                f64op(Arith::Sqrt, f64::INFINITY, 0.0, 0.0, m),
                0x7FF0_0000_0000_0000
            );
        }
        // sqrt(2^-1073) = sqrt(2) * 2^-537 (the scaled path).
        assert_eq!(
            f64op(Arith::Sqrt, tiny(2), 0.0, 0.0, Rz),
            0x1E66_A09E_667F_3BCC
        );
        assert_eq!(
            f64op(Arith::Sqrt, tiny(2), 0.0, 0.0, Rp),
            0x1E66_A09E_667F_3BCD
        );
    }

    #[test]
    fn f64_nan_propagation() {
        let (q1, s2, q3) = (
            0x7FF8_0000_0000_0001u64,
            0x7FF0_0000_0000_0002u64,
            0xFFF8_0000_0000_0003u64,
        );
        let one = 1.0f64.to_bits();
        for m in MODES {
            assert_eq!(wide(Arith::Add, q1, s2, 0, m), 0x7FF8_0000_0000_0002);
            assert_eq!(wide(Arith::Sub, q1, one, 0, m), q1);
            assert_eq!(wide(Arith::Sub, one, q3, 0, m), q3); // sign not flipped
            assert_eq!(wide(Arith::Mul, s2, one, 0, m), 0x7FF8_0000_0000_0002);
            assert_eq!(wide(Arith::Fma, q1, s2, q3, m), 0x7FF8_0000_0000_0002);
            assert_eq!(wide(Arith::Fma, q1, one, q3, m), q3);
            assert_eq!(wide(Arith::Fma, q1, one, one, m), q1);
            assert_eq!(wide(Arith::Div, q1, s2, 0, m), q1);
            assert_eq!(wide(Arith::Sqrt, s2, 0, 0, m), 0x7FF8_0000_0000_0002);
            assert_eq!(
                f64op(Arith::Add, f64::INFINITY, f64::NEG_INFINITY, 0.0, m),
                F64_DEFAULT_NAN
            );
            assert_eq!(
                f64op(Arith::Mul, 0.0, f64::INFINITY, 0.0, m),
                F64_DEFAULT_NAN
            );
            assert_eq!(f64op(Arith::Div, 0.0, 0.0, 0.0, m), F64_DEFAULT_NAN);
        }
    }

    /// A small deterministic generator: random bit patterns, half of them
    /// with exponents near the bias so that sums cancel and round often.
    struct Gen(u64);
    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn value(&mut self, fmt: Fmt) -> u64 {
            let r = self.next();
            if r & 1 == 0 {
                return (r >> 8) & fmt.mask();
            }
            let e = (fmt.bias() as u64 + (r >> 8) % 9).wrapping_sub(4);
            let frac = (r >> 20) & fmt.frac_mask();
            ((r >> 2) & 1) << (fmt.width() - 1) | e << fmt.mbits | frac
        }
    }

    fn ap_round(m: Rounding) -> Round {
        match m {
            Rn => Round::NearestTiesToEven,
            Rz => Round::TowardZero,
            Rm => Round::TowardNegative,
            Rp => Round::TowardPositive,
            Rna => Round::NearestTiesToAway,
        }
    }

    /// `op` computed by rustc_apfloat in the format itself (an independent
    /// implementation of IEEE rounding).
    fn reference<F: Float>(op: Arith, a: u64, b: u64, c: u64, m: Rounding) -> F {
        let (x, y, z) = (
            F::from_bits(a as u128),
            F::from_bits(b as u128),
            F::from_bits(c as u128),
        );
        let r = ap_round(m);
        match op {
            Arith::Add => x.add_r(y, r).value,
            Arith::Sub => x.sub_r(y, r).value,
            Arith::Mul => x.mul_r(y, r).value,
            Arith::Fma => x.mul_add_r(y, z, r).value,
            Arith::Div => x.div_r(y, r).value,
            Arith::Rcp | Arith::Sqrt => unreachable!(),
        }
    }

    fn cross_check<F: Float>(fmt: Fmt, seed: u64) {
        let mut g = Gen(seed);
        for op in [Arith::Add, Arith::Sub, Arith::Mul, Arith::Fma, Arith::Div] {
            for m in MODES {
                for _ in 0..4000 {
                    let (a, b, c) = (g.value(fmt), g.value(fmt), g.value(fmt));
                    let want = reference::<F>(op, a, b, c, m);
                    let want = if want.is_nan() {
                        fmt.canonical_nan()
                    } else {
                        want.to_bits() as u64
                    };
                    let got = narrow(fmt, op, a, b, c, m);
                    assert_eq!(got, want, "{op:?} {m:?} {a:#x} {b:#x} {c:#x}");
                }
            }
        }
    }

    #[test]
    fn narrow_matches_apfloat() {
        use rustc_apfloat::ieee::{BFloat, Half, Single};
        cross_check::<Half>(F16, 0x1234_5678_9ABC_DEF1);
        cross_check::<BFloat>(BF16, 0x0F1E_2D3C_4B5A_6978);
        cross_check::<Single>(F32, 0x5555_AAAA_1234_4321);
    }

    #[test]
    fn wide_matches_apfloat() {
        let mut g = Gen(0xDEAD_BEEF_CAFE_F00D);
        for op in [Arith::Add, Arith::Sub, Arith::Mul, Arith::Fma, Arith::Div] {
            for m in MODES {
                for _ in 0..4000 {
                    let (a, b, c) = (g.value(F64), g.value(F64), g.value(F64));
                    let want = reference::<Double>(op, a, b, c, m);
                    let got = wide(op, a, b, c, m);
                    if want.is_nan() {
                        assert!(F64.is_nan(got));
                    } else {
                        assert_eq!(
                            got,
                            want.to_bits() as u64,
                            "{op:?} {m:?} {a:#x} {b:#x} {c:#x}"
                        );
                    }
                }
            }
        }
    }

    /// Directed square roots bracket the exact root: `rz^2 <= x <= rp^2`,
    /// with `rz == rp` exactly when `rz^2 == x`, else `rp` the next value up.
    /// Squares are exact in the next wider format (f64 for f32, binary128
    /// for f64).
    #[test]
    fn directed_sqrt_brackets_the_root() {
        use rustc_apfloat::ieee::Quad;
        use rustc_apfloat::FloatConvert;
        let mut g = Gen(0x0123_4567_89AB_CDEF);
        for i in 0..20000 {
            let fmt = if i % 2 == 0 { F32 } else { F64 };
            let x = g.value(fmt) & !fmt.sign_bit();
            if fmt.is_nan(x) || fmt.is_inf(x) || x == 0 {
                continue;
            }
            let (rz, rm, rp, rn) = if fmt == F32 {
                let s = |m| narrow(F32, Arith::Sqrt, x, 0, 0, m);
                (s(Rz), s(Rm), s(Rp), s(Rn))
            } else {
                let s = |m| wide(Arith::Sqrt, x, 0, 0, m);
                (s(Rz), s(Rm), s(Rp), s(Rn))
            };
            assert_eq!(rz, rm);
            assert!(rn == rz || rn == rp);
            let cmp_sq = |r: u64| -> std::cmp::Ordering {
                if fmt == F32 {
                    let v = F32.to_f64(r);
                    (v * v).partial_cmp(&F32.to_f64(x)).unwrap()
                } else {
                    let q = |v: u64| -> Quad {
                        let mut lost = false;
                        Double::from_bits(v as u128).convert(&mut lost).value
                    };
                    let sq = q(r).mul_r(q(r), Round::NearestTiesToEven).value;
                    sq.partial_cmp(&q(x)).unwrap()
                }
            };
            use std::cmp::Ordering::*;
            match cmp_sq(rz) {
                Equal => assert_eq!(rp, rz, "{x:#x}"),
                Less => {
                    assert_eq!(rp, rz + 1, "{x:#x}");
                    assert_eq!(cmp_sq(rp), Greater, "{x:#x}");
                }
                Greater => panic!("rz above the root for {x:#x}"),
            }
        }
    }
}
