//! Two `cvt` families outside the scalar type pairs of [`super::cvt`]
//! (PTX ISA 8.8 §9.7.9.21):
//!
//! - **f32 to tf32** ([`tf32`]): `cvt.rna{.satfinite}.tf32.f32`,
//!   `cvt.{rn,rz}{.satfinite}{.relu}.tf32.f32`. The result is a `.b32`: an
//!   f32 whose mantissa is rounded to tf32's 10 bits, the 13 low bits
//!   cleared. `.rn` rounds to nearest even, `.rz` toward zero, `.rna` to
//!   nearest with ties away from zero; tf32 has f32's exponent range, so
//!   subnormals round the same way and a carry out of the mantissa rounds
//!   the exponent up (to infinity past the largest finite value,
//!   `0x7F7F_E000`). `.satfinite` gives that largest finite value with the
//!   input's sign instead of an infinity (an infinite input included), and
//!   the canonical NaN `0x7FFF_FFFF` for a NaN. `.relu` turns a negative
//!   result (`-0` included) into `+0` and a NaN into the canonical NaN.
//!   Without either, an infinity passes unchanged and a NaN gives the
//!   canonical NaN, except in plain `cvt.rna.tf32.f32`, which lowering
//!   keeps as integer ops that pass a NaN's bits through unchanged (what
//!   warpjit has always done for `wmma::__float_to_tf32`).
//! - **`cvt.pack.sat`** ([`pack`]): `cvt.pack.sat.{u16,s16}.s32 d, a, b`
//!   and `cvt.pack.sat.{u8,s8,u4,s4}.s32.b32 d, a, b, c` (the forms ptxas
//!   accepts). `a` and `b` (s32) are clamped to `convertType`'s range
//!   and their low `size` bits packed, `b`'s lowest and `a`'s above it; for
//!   16-bit types that is the whole of `d`, for narrower ones `c`'s low
//!   bits fill `d` above the pair (`d[31:2*size] = c[31-2*size:0]`), as the
//!   ISA's pseudo-code writes. The pseudo-code's two clamping lines each
//!   assign `ta` from `a` (read literally the second discards the first);
//!   `.sat` is a saturation, so both bounds apply here.

use crate::ir::ops::Rounding;

/// The canonical f32 NaN, which tf32 NaN results are.
pub const CANONICAL_NAN: u32 = 0x7FFF_FFFF;
/// The largest finite tf32 value (as f32 bits).
pub const TF32_MAX: u32 = 0x7F7F_E000;

/// `cvt.<rounding>{.satfinite}{.relu}.tf32.f32` of the f32 bits `a`; see
/// the module documentation. `.rm`/`.rp` (no tf32 form has them) round
/// as `.rz`.
pub fn tf32(a: u32, rounding: Rounding, satfinite: bool, relu: bool) -> u32 {
    let sign = a & 0x8000_0000;
    let mag = a & 0x7FFF_FFFF;
    if mag > 0x7F80_0000 {
        return CANONICAL_NAN;
    }
    let mag = if mag == 0x7F80_0000 {
        mag
    } else {
        let low = mag & 0x1FFF;
        let up = match rounding {
            Rounding::Rn => low > 0x1000 || (low == 0x1000 && mag & 0x2000 != 0),
            Rounding::Rna => low >= 0x1000,
            Rounding::Rz | Rounding::Rm | Rounding::Rp => false,
        };
        (mag & !0x1FFF) + if up { 0x2000 } else { 0 }
    };
    let mag = if satfinite && mag == 0x7F80_0000 {
        TF32_MAX
    } else {
        mag
    };
    if relu && sign != 0 {
        return 0;
    }
    sign | mag
}

/// `cvt.pack.sat.convertType.s32{.b32} d, a, b{, c}` with `convertType` of
/// `bits` bits (16, 8, 4 or 2), signed or not; `c` is ignored for 16
/// bits. See the module documentation.
pub fn pack(bits: u32, signed: bool, a: u32, b: u32, c: u32) -> u32 {
    let bits = bits.clamp(1, 16);
    let (lo, hi): (i64, i64) = if signed {
        (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    } else {
        (0, (1 << bits) - 1)
    };
    let mask = (1u32 << bits) - 1;
    let ta = (a as i32 as i64).clamp(lo, hi) as u32 & mask;
    let tb = (b as i32 as i64).clamp(lo, hi) as u32 & mask;
    let pair = (ta << bits) | tb;
    if bits == 16 {
        pair
    } else {
        (c << (2 * bits)) | pair
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f32) -> u32 {
        x.to_bits()
    }

    /// The rna form as lowering computes it with integer ops.
    fn rna_int_ops(a: u32) -> u32 {
        if a & 0x7F80_0000 == 0x7F80_0000 {
            a
        } else {
            a.wrapping_add(0x1000) & 0xFFFF_E000
        }
    }

    #[test]
    fn tf32_rounding_ties() {
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10 (tf32's ulp at 1).
        let half = 0x3F80_1000;
        assert_eq!(tf32(half, Rounding::Rn, false, false), 0x3F80_0000);
        assert_eq!(tf32(half, Rounding::Rna, false, false), 0x3F80_2000);
        assert_eq!(tf32(half, Rounding::Rz, false, false), 0x3F80_0000);
        // Odd below: the tie goes up to even under .rn.
        let odd_half = 0x3F80_3000;
        assert_eq!(tf32(odd_half, Rounding::Rn, false, false), 0x3F80_4000);
        assert_eq!(tf32(odd_half, Rounding::Rna, false, false), 0x3F80_4000);
        assert_eq!(tf32(odd_half, Rounding::Rz, false, false), 0x3F80_2000);
        // Just above and below halfway.
        assert_eq!(tf32(0x3F80_1001, Rounding::Rn, false, false), 0x3F80_2000);
        assert_eq!(tf32(0x3F80_0FFF, Rounding::Rna, false, false), 0x3F80_0000);
        // Negative values round by magnitude.
        assert_eq!(
            tf32(half | 0x8000_0000, Rounding::Rna, false, false),
            0xBF80_2000
        );
        assert_eq!(tf32(0xBF80_1FFF, Rounding::Rz, false, false), 0xBF80_0000);
        // A carry into the exponent.
        assert_eq!(tf32(0x3FFF_F000, Rounding::Rn, false, false), 0x4000_0000);
        // Subnormals keep their exponent range.
        assert_eq!(tf32(0x0000_1000, Rounding::Rn, false, false), 0);
        assert_eq!(tf32(0x0000_3000, Rounding::Rn, false, false), 0x0000_4000);
        assert_eq!(tf32(0x0000_1000, Rounding::Rna, false, false), 0x0000_2000);
    }

    #[test]
    fn tf32_overflow_satfinite_nan_relu() {
        let max = f(f32::MAX);
        assert_eq!(tf32(max, Rounding::Rn, false, false), 0x7F80_0000);
        assert_eq!(tf32(max, Rounding::Rn, true, false), TF32_MAX);
        assert_eq!(tf32(max, Rounding::Rz, false, false), TF32_MAX);
        assert_eq!(
            tf32(max | 0x8000_0000, Rounding::Rna, true, false),
            TF32_MAX | 0x8000_0000
        );
        let inf = f(f32::INFINITY);
        assert_eq!(tf32(inf, Rounding::Rz, false, false), inf);
        assert_eq!(tf32(inf, Rounding::Rz, true, false), TF32_MAX);
        assert_eq!(
            tf32(inf | 0x8000_0000, Rounding::Rn, true, false),
            TF32_MAX | 0x8000_0000
        );
        for nan in [0x7FC0_0000, 0xFF80_0001, 0x7F80_1000] {
            for r in [Rounding::Rn, Rounding::Rz, Rounding::Rna] {
                assert_eq!(tf32(nan, r, true, false), CANONICAL_NAN);
                assert_eq!(tf32(nan, r, false, true), CANONICAL_NAN);
                assert_eq!(tf32(nan, r, false, false), CANONICAL_NAN);
            }
        }
        assert_eq!(tf32(f(-1.5), Rounding::Rn, false, true), 0);
        assert_eq!(tf32(f(-0.0), Rounding::Rz, false, true), 0);
        assert_eq!(tf32(f(-f32::INFINITY), Rounding::Rn, true, true), 0);
        assert_eq!(tf32(f(2.5), Rounding::Rn, false, true), f(2.5));
    }

    #[test]
    fn tf32_rna_matches_lowering_on_finite_and_infinite_inputs() {
        let mut x: u32 = 0x1234_5678;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            if x & 0x7FFF_FFFF > 0x7F80_0000 {
                continue;
            }
            assert_eq!(
                tf32(x, Rounding::Rna, false, false),
                rna_int_ops(x),
                "{x:#x}"
            );
            // The low 13 bits of every non-NaN result are clear.
            for r in [Rounding::Rn, Rounding::Rz] {
                assert_eq!(tf32(x, r, false, false) & 0x1FFF, 0, "{x:#x}");
            }
        }
    }

    #[test]
    fn pack_saturates_and_packs() {
        let s = |v: i32| v as u32;
        // 16-bit: a high, b low.
        assert_eq!(pack(16, false, 1, 2, 0xFFFF_FFFF), 0x0001_0002);
        assert_eq!(pack(16, false, s(-5), 70000, 0), 0x0000_FFFF);
        assert_eq!(pack(16, true, s(-40000), 40000, 0), 0x8000_7FFF);
        assert_eq!(pack(16, true, s(-1), s(-32768), 0), 0xFFFF_8000);
        assert_eq!(pack(16, true, s(i32::MIN), i32::MAX as u32, 0), 0x8000_7FFF);
        // 8-bit: c's low 16 bits above the pair.
        assert_eq!(pack(8, false, 300, s(-1), 0x1234_ABCD), 0xABCD_FF00);
        assert_eq!(pack(8, true, s(-129), 128, 0), 0x0000_807F);
        assert_eq!(pack(8, true, 127, s(-128), 0x0000_0001), 0x0001_7F80);
        assert_eq!(pack(8, false, 255, 0, 0xFFFF_FFFF), 0xFFFF_FF00);
        // 4-bit: c's low 24 bits above the pair.
        assert_eq!(pack(4, true, 9, s(-9), 0x00AB_CDEF), 0xABCD_EF78);
        assert_eq!(pack(4, false, 15, 16, 0), 0xFF);
    }
}
