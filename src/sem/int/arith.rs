//! Integer arithmetic helpers: saturation, multiplies (high half, wide,
//! 24-bit), division and remainder with PTX's zero-divisor rules, shifts and
//! absolute difference. The public entry points are in the parent module.
use super::{ival, low_mask, sext};
use crate::ir::ops::{IntBinOp, Ty};

/// The mask of a `.wide` result (twice the width of `ty`, at most 64 bits:
/// 64-bit types have no wide form and keep their low 64 bits).
#[inline]
pub(super) fn wide_mask(ty: Ty) -> u64 {
    low_mask(2 * ty.bits())
}

/// Clamps `v` to the range of `ty` (signed or unsigned) and returns its bits.
#[inline]
pub(super) fn saturate(ty: Ty, v: i128) -> u64 {
    let w = ty.bits();
    let (lo, hi) = if ty.is_signed() {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, ty.mask() as i128)
    };
    (v.clamp(lo, hi) as u64) & ty.mask()
}

/// The full product of `a` and `b` read as `ty`, as a 128-bit pattern.
///
/// Signed products fit an i128 exactly; unsigned 64x64 products may not, but
/// the wrapping product's bit pattern is still the exact 128-bit product.
#[inline]
fn mul_full(ty: Ty, a: u64, b: u64) -> u128 {
    ival(ty, a).wrapping_mul(ival(ty, b)) as u128
}

/// High half of the product (`mul.hi`).
#[inline]
pub(super) fn mul_hi(ty: Ty, a: u64, b: u64) -> u64 {
    ((mul_full(ty, a, b) >> ty.bits()) as u64) & ty.mask()
}

/// High half of the product as a signed or unsigned value (for `.sat`).
#[inline]
pub(super) fn mul_hi_value(ty: Ty, a: u64, b: u64) -> i128 {
    if ty.is_signed() {
        // Exact: a signed product of at most 64x64 bits fits an i128.
        ival(ty, a).wrapping_mul(ival(ty, b)) >> ty.bits()
    } else {
        mul_hi(ty, a, b) as i128
    }
}

/// Full product masked to twice the width (`mul.wide`).
#[inline]
pub(super) fn mul_wide(ty: Ty, a: u64, b: u64) -> u64 {
    (mul_full(ty, a, b) as u64) & wide_mask(ty)
}

/// The 48-bit product of the low 24 bits of `a` and `b` (sign-extended
/// from 24 bits for signed types), exact in an i64.
#[inline]
pub(super) fn mul24(ty: Ty, a: u64, b: u64) -> i64 {
    if ty.is_signed() {
        sext(a, 24) * sext(b, 24)
    } else {
        (a & 0xFF_FFFF) as i64 * (b & 0xFF_FFFF) as i64
    }
}

/// Truncating division; `MIN / -1` wraps to `MIN`.
///
/// Division by zero gives all ones for every type, signed or not, whatever
/// the dividend. The PTX ISA leaves it unspecified; this is what an H100
/// (sm_90, CUDA 13 ptxas) returned for `div.{u32,s32,u64,s64}` in every
/// one of ~1150 sampled zero divisors per type, negative dividends included.
#[inline]
pub(super) fn div(ty: Ty, a: u64, b: u64) -> u64 {
    let m = ty.mask();
    if ty.is_signed() {
        let w = ty.bits();
        let (x, y) = (sext(a, w), sext(b, w));
        if y == 0 {
            m
        } else {
            // wrapping: i64::MIN / -1 (64-bit types) gives MIN.
            x.wrapping_div(y) as u64 & m
        }
    } else {
        (a & m).checked_div(b & m).unwrap_or(m)
    }
}

/// Remainder with the sign of the dividend; `MIN % -1` is 0.
///
/// `x % 0` gives all ones for every type, as an H100 did for
/// `rem.{u32,s32,u64,s64}` in every sampled case (the PTX ISA leaves it
/// unspecified).
#[inline]
pub(super) fn rem(ty: Ty, a: u64, b: u64) -> u64 {
    let m = ty.mask();
    if ty.is_signed() {
        let w = ty.bits();
        let (x, y) = (sext(a, w), sext(b, w));
        if y == 0 {
            m
        } else {
            // wrapping: i64::MIN % -1 (64-bit types) gives 0.
            x.wrapping_rem(y) as u64 & m
        }
    } else {
        (a & m).checked_rem(b & m).unwrap_or(m)
    }
}

/// `shl`: the count is the low 32 bits of `b`, unsigned; counts at or beyond
/// the width give 0.
#[inline]
pub(super) fn shl(ty: Ty, a: u64, b: u64) -> u64 {
    let n = b & super::M32;
    if n >= ty.bits() as u64 {
        0
    } else {
        (a << n) & ty.mask()
    }
}

/// `shr`: logical for unsigned and untyped, arithmetic for signed types;
/// counts at or beyond the width give 0 or all sign bits.
#[inline]
pub(super) fn shr(ty: Ty, a: u64, b: u64) -> u64 {
    let n = b & super::M32;
    let m = ty.mask();
    if ty.is_signed() {
        (sext(a, ty.bits()) >> n.min(63)) as u64 & m
    } else if n >= 64 {
        0
    } else {
        (a & m) >> n
    }
}

/// `add min max` on `.u16x2`/`.s16x2`: each 16-bit half of `a` with the
/// same half of `b`, wrapping (add), as signed or unsigned values (min,
/// max); `.relu` clamps each signed result at 0.
pub(super) fn packed16(op: IntBinOp, signed: bool, a: u64, b: u64) -> u64 {
    let half = |v: u64, h: u32| -> i64 {
        let x = (v >> (16 * h)) as u16;
        if signed {
            x as i16 as i64
        } else {
            x as i64
        }
    };
    let mut out = 0u64;
    for h in 0..2 {
        let (x, y) = (half(a, h), half(b, h));
        let r = match op {
            IntBinOp::Add16x2 => x + y,
            IntBinOp::Min16x2 => x.min(y),
            IntBinOp::Max16x2 => x.max(y),
            IntBinOp::Min16x2Relu => x.min(y).max(0),
            IntBinOp::Max16x2Relu => x.max(y).max(0),
            _ => unreachable!("not a packed 16-bit op"),
        };
        out |= (r as u64 & 0xffff) << (16 * h);
    }
    out
}

/// `|a - b|` with `a` and `b` read as `ty`, masked to the width.
#[inline]
pub(super) fn abs_diff(ty: Ty, a: u64, b: u64) -> u64 {
    ((ival(ty, a) - ival(ty, b)).unsigned_abs() as u64) & ty.mask()
}

#[cfg(test)]
mod tests {
    use crate::ir::ops::IntBinOp::{self, *};
    use crate::ir::ops::IntTernOp;
    use crate::ir::ops::Ty::{self, *};
    use crate::sem::int::{int_binary, int_ternary};

    fn bin(op: IntBinOp, ty: Ty, a: u64, b: u64) -> u64 {
        int_binary(op, ty, a, b)
    }

    fn tern(op: IntTernOp, ty: Ty, a: u64, b: u64, c: u64) -> u64 {
        int_ternary(op, ty, &[a, b, c])
    }

    #[test]
    fn add_sub_wrap_at_width() {
        assert_eq!(bin(Add, U32, 0xFFFF_FFFF, 1), 0);
        assert_eq!(bin(Add, S32, 0x7FFF_FFFF, 1), 0x8000_0000);
        assert_eq!(bin(Add, U16, 0xFFFF, 2), 1);
        assert_eq!(bin(Add, U64, u64::MAX, 2), 1);
        assert_eq!(bin(Add, B8, 0x80, 0x80), 0);
        assert_eq!(bin(Sub, U32, 0, 1), 0xFFFF_FFFF);
        assert_eq!(bin(Sub, S16, 0x8000, 1), 0x7FFF);
        assert_eq!(bin(Sub, S64, 5, 7), (-2i64) as u64);
        // Garbage above the width is ignored.
        assert_eq!(bin(Add, U32, 0xDEAD_0000_0000_0001, 1), 2);
    }

    #[test]
    fn add_sub_saturate() {
        assert_eq!(bin(AddSat, S32, 0x7FFF_FFFF, 1), 0x7FFF_FFFF);
        assert_eq!(bin(AddSat, S32, 0x8000_0000, 0xFFFF_FFFF), 0x8000_0000);
        assert_eq!(bin(AddSat, S32, 5, 0xFFFF_FFFD), 2);
        assert_eq!(bin(AddSat, S32, 0x7FFF_FFFF, 0x7FFF_FFFF), 0x7FFF_FFFF);
        assert_eq!(bin(SubSat, S32, 0x8000_0000, 1), 0x8000_0000);
        assert_eq!(bin(SubSat, S32, 0x7FFF_FFFF, 0xFFFF_FFFF), 0x7FFF_FFFF);
        assert_eq!(bin(SubSat, S32, 0, 0x8000_0000), 0x7FFF_FFFF);
        assert_eq!(bin(SubSat, S32, 3, 5), 0xFFFF_FFFE);
        // Unsigned (not in PTX): clamp to [0, MAX].
        assert_eq!(bin(AddSat, U32, 0xFFFF_FFFF, 1), 0xFFFF_FFFF);
        assert_eq!(bin(SubSat, U32, 1, 2), 0);
    }

    #[test]
    fn mul_lo_hi() {
        assert_eq!(bin(MulLo, U32, 0x1_0001, 0x1_0001), 0x0002_0001);
        assert_eq!(bin(MulHi, U32, 0x1_0001, 0x1_0001), 1);
        assert_eq!(bin(MulHi, U32, 0xFFFF_FFFF, 0xFFFF_FFFF), 0xFFFF_FFFE);
        assert_eq!(bin(MulLo, U32, 0xFFFF_FFFF, 0xFFFF_FFFF), 1);
        // -1 * -1 = 1: high half 0.
        assert_eq!(bin(MulHi, S32, 0xFFFF_FFFF, 0xFFFF_FFFF), 0);
        // -2 * 3 = -6: high half all ones.
        assert_eq!(bin(MulHi, S32, 0xFFFF_FFFE, 3), 0xFFFF_FFFF);
        assert_eq!(bin(MulLo, S32, 0xFFFF_FFFE, 3), 0xFFFF_FFFA);
        // MIN * MIN = 2^62.
        assert_eq!(bin(MulHi, S32, 0x8000_0000, 0x8000_0000), 0x4000_0000);
        assert_eq!(bin(MulHi, U16, 0xFFFF, 0xFFFF), 0xFFFE);
        assert_eq!(bin(MulHi, S16, 0x8000, 0x7FFF), 0xC000);
        assert_eq!(bin(MulHi, U64, u64::MAX, u64::MAX), u64::MAX - 1);
        assert_eq!(bin(MulLo, U64, u64::MAX, u64::MAX), 1);
        assert_eq!(bin(MulHi, U64, 1 << 63, 4), 2);
        assert_eq!(bin(MulHi, S64, 1 << 63, 1 << 63), 1 << 62);
        assert_eq!(bin(MulHi, S64, u64::MAX, 5), u64::MAX);
        assert_eq!(bin(MulHi, S64, 1 << 63, u64::MAX), 0);
        assert_eq!(bin(MulLo, S64, 1 << 63, u64::MAX), 1 << 63);
    }

    #[test]
    fn mul_wide() {
        assert_eq!(bin(MulWide, U16, 0xFFFF, 0xFFFF), 0xFFFE_0001);
        assert_eq!(bin(MulWide, S16, 0xFFFF, 0x0002), 0xFFFF_FFFE);
        assert_eq!(bin(MulWide, S16, 0x8000, 0x8000), 0x4000_0000);
        assert_eq!(
            bin(MulWide, U32, 0xFFFF_FFFF, 0xFFFF_FFFF),
            0xFFFF_FFFE_0000_0001
        );
        assert_eq!(bin(MulWide, S32, 0xFFFF_FFFF, 0xFFFF_FFFF), 1);
        assert_eq!(bin(MulWide, S32, 0x8000_0000, 2), 0xFFFF_FFFF_0000_0000);
        assert_eq!(bin(MulWide, S32, 0x8000_0000, 0x8000_0000), 1 << 62);
        assert_eq!(bin(MulWide, U32, 0x8000_0000, 2), 1 << 32);
    }

    #[test]
    fn mul24_lo_hi() {
        // Only the low 24 bits are read.
        assert_eq!(bin(Mul24Lo, U32, 0xFF00_0002, 0xAA00_0003), 6);
        // 0xFFFFFF^2 = 0xFFFFFE000001: lo = 0xFE000001, hi = bits 47..16.
        assert_eq!(bin(Mul24Lo, U32, 0xFF_FFFF, 0xFF_FFFF), 0xFE00_0001);
        assert_eq!(bin(Mul24Hi, U32, 0xFF_FFFF, 0xFF_FFFF), 0xFFFF_FE00);
        // Signed: 0xFFFFFF is -1: (-1)*(-1) = 1.
        assert_eq!(bin(Mul24Lo, S32, 0xFF_FFFF, 0xFF_FFFF), 1);
        assert_eq!(bin(Mul24Hi, S32, 0xFF_FFFF, 0xFF_FFFF), 0);
        // -1 * 2 = -2: 48-bit pattern all ones but bit 0.
        assert_eq!(bin(Mul24Lo, S32, 0x00FF_FFFF, 2), 0xFFFF_FFFE);
        assert_eq!(bin(Mul24Hi, S32, 0x00FF_FFFF, 2), 0xFFFF_FFFF);
        // -2^23 * -2^23 = 2^46: bits 47..16 = 2^30.
        assert_eq!(bin(Mul24Hi, S32, 0x80_0000, 0x80_0000), 0x4000_0000);
        assert_eq!(bin(Mul24Lo, S32, 0x80_0000, 0x80_0000), 0);
        // 0x10000 * 0x10000 = 2^32: hi gets bit 16.
        assert_eq!(bin(Mul24Hi, U32, 0x1_0000, 0x1_0000), 0x1_0000);
    }

    #[test]
    fn mad24() {
        assert_eq!(tern(IntTernOp::Mad24Lo, U32, 3, 4, 5), 17);
        assert_eq!(
            tern(IntTernOp::Mad24Lo, U32, 0xFF_FFFF, 0xFF_FFFF, 0x1FF_FFFF),
            0
        );
        assert_eq!(
            tern(IntTernOp::Mad24Hi, U32, 0xFF_FFFF, 0xFF_FFFF, 0x200),
            0
        );
        assert_eq!(tern(IntTernOp::Mad24Lo, S32, 0xFF_FFFF, 3, 3), 0);
        assert_eq!(tern(IntTernOp::Mad24Hi, S32, 0xFF_FFFF, 3, 1), 0);
    }

    #[test]
    fn div_rem_signed_unsigned() {
        assert_eq!(bin(Div, U32, 7, 2), 3);
        assert_eq!(
            bin(Div, S32, (-7i32) as u32 as u64, 2),
            (-3i32) as u32 as u64
        );
        assert_eq!(
            bin(Div, S32, 7, (-2i32) as u32 as u64),
            (-3i32) as u32 as u64
        );
        assert_eq!(
            bin(Rem, S32, (-7i32) as u32 as u64, 2),
            (-1i32) as u32 as u64
        );
        assert_eq!(bin(Rem, S32, 7, (-2i32) as u32 as u64), 1);
        assert_eq!(bin(Rem, U32, 0xFFFF_FFFF, 10), 5);
        // An unsigned read of the same bits differs.
        assert_eq!(bin(Div, U32, 0xFFFF_FFF9, 2), 0x7FFF_FFFC);
        assert_eq!(bin(Div, U64, u64::MAX, 3), 0x5555_5555_5555_5555);
        assert_eq!(bin(Div, S16, 0x8000, 0xFFFF), 0x8000);
    }

    #[test]
    fn div_rem_edge_cases() {
        // Division by zero: all ones, whatever the type and dividend (H100).
        assert_eq!(bin(Div, U32, 5, 0), 0xFFFF_FFFF);
        assert_eq!(bin(Div, U16, 5, 0), 0xFFFF);
        assert_eq!(bin(Div, U64, 0, 0), u64::MAX);
        assert_eq!(bin(Div, S32, 5, 0), 0xFFFF_FFFF);
        assert_eq!(bin(Div, S32, 0, 0), 0xFFFF_FFFF);
        assert_eq!(bin(Div, S32, 0x8000_0000, 0), 0xFFFF_FFFF);
        assert_eq!(bin(Div, S32, 0xE306_C6CA, 0), 0xFFFF_FFFF);
        assert_eq!(bin(Div, S64, u64::MAX, 0), u64::MAX);
        assert_eq!(bin(Div, S16, 0x8000, 0), 0xFFFF);
        // Divisor bits above the width are ignored: 0x1_0000_0000 is 0 for u32.
        assert_eq!(bin(Div, U32, 7, 1 << 32), 0xFFFF_FFFF);
        assert_eq!(bin(Rem, U32, 5, 0), 0xFFFF_FFFF);
        assert_eq!(bin(Rem, U32, 0x20, 0), 0xFFFF_FFFF);
        assert_eq!(bin(Rem, S32, 0xFFFF_FFFB, 0), 0xFFFF_FFFF);
        assert_eq!(bin(Rem, S32, 0x21, 0), 0xFFFF_FFFF);
        assert_eq!(bin(Rem, S64, 1 << 63, 0), u64::MAX);
        assert_eq!(bin(Rem, U64, 0x3_0000_0020, 0), u64::MAX);
        // MIN / -1 wraps to MIN, MIN % -1 is 0.
        assert_eq!(bin(Div, S32, 0x8000_0000, 0xFFFF_FFFF), 0x8000_0000);
        assert_eq!(bin(Rem, S32, 0x8000_0000, 0xFFFF_FFFF), 0);
        assert_eq!(bin(Div, S64, 1 << 63, u64::MAX), 1 << 63);
        assert_eq!(bin(Rem, S64, 1 << 63, u64::MAX), 0);
    }

    #[test]
    fn min_max_by_signedness() {
        assert_eq!(bin(Min, S32, 0xFFFF_FFFF, 1), 0xFFFF_FFFF);
        assert_eq!(bin(Min, U32, 0xFFFF_FFFF, 1), 1);
        assert_eq!(bin(Max, S32, 0xFFFF_FFFF, 1), 1);
        assert_eq!(bin(Max, U32, 0xFFFF_FFFF, 1), 0xFFFF_FFFF);
        assert_eq!(bin(Min, S16, 0x8000, 0x7FFF), 0x8000);
        assert_eq!(bin(Max, U16, 0x8000, 0x7FFF), 0x8000);
        assert_eq!(bin(Min, S64, 1 << 63, 0), 1 << 63);
        assert_eq!(bin(Max, U64, 1 << 63, 0), 1 << 63);
        assert_eq!(bin(Max, S8, 0x80, 0x7F), 0x7F);
        assert_eq!(bin(Min, U8, 0x180, 0x7F), 0x7F);
    }

    #[test]
    fn logic_on_every_width() {
        assert_eq!(bin(And, B32, 0xF0F0_F0F0, 0xFF00_FF00), 0xF000_F000);
        assert_eq!(bin(Or, B16, 0xF0F0, 0x0F00), 0xFFF0);
        assert_eq!(bin(Xor, B64, u64::MAX, 1), u64::MAX - 1);
        assert_eq!(bin(Xor, B8, 0x1FF, 0x0F), 0xF0);
        assert_eq!(bin(And, Pred, 1, 1), 1);
        assert_eq!(bin(And, Pred, 1, 0), 0);
        assert_eq!(bin(Or, Pred, 0, 1), 1);
        assert_eq!(bin(Xor, Pred, 1, 1), 0);
        assert_eq!(bin(Xor, Pred, 1, 0), 1);
    }

    #[test]
    fn shifts_and_large_counts() {
        assert_eq!(bin(Shl, B32, 1, 31), 0x8000_0000);
        assert_eq!(bin(Shl, B32, 1, 32), 0);
        assert_eq!(bin(Shl, B32, 1, 0xFFFF_FFFF), 0);
        assert_eq!(bin(Shl, B16, 0x00FF, 4), 0x0FF0);
        assert_eq!(bin(Shl, B16, 0x00FF, 12), 0xF000);
        assert_eq!(bin(Shl, B16, 1, 16), 0);
        assert_eq!(bin(Shl, B64, 1, 63), 1 << 63);
        assert_eq!(bin(Shl, B64, 1, 64), 0);
        assert_eq!(bin(Shr, U32, 0x8000_0000, 31), 1);
        assert_eq!(bin(Shr, U32, 0x8000_0000, 32), 0);
        assert_eq!(bin(Shr, B32, 0xFFFF_FFFF, 0xFFFF_FFFF), 0);
        assert_eq!(bin(Shr, S32, 0x8000_0000, 31), 0xFFFF_FFFF);
        assert_eq!(bin(Shr, S32, 0x8000_0000, 4), 0xF800_0000);
        assert_eq!(bin(Shr, S32, 0x8000_0000, 32), 0xFFFF_FFFF);
        assert_eq!(bin(Shr, S32, 0x8000_0000, 0xFFFF_FFFF), 0xFFFF_FFFF);
        assert_eq!(bin(Shr, S32, 0x7FFF_FFFF, 100), 0);
        assert_eq!(bin(Shr, S16, 0x8000, 15), 0xFFFF);
        assert_eq!(bin(Shr, S16, 0x4000, 40), 0);
        assert_eq!(bin(Shr, S64, 1 << 63, 64), u64::MAX);
        assert_eq!(bin(Shr, U64, 1 << 63, 63), 1);
        assert_eq!(bin(Shr, U64, 1 << 63, 64), 0);
        // The count is the low 32 bits only: 2^32 + 1 shifts by 1.
        assert_eq!(bin(Shl, B32, 1, (1 << 32) | 1), 2);
    }

    #[test]
    fn packed_16_bit_halves_are_independent() {
        use super::packed16;
        use IntBinOp::*;
        // Halves wrap on their own: no carry from the low half to the high.
        assert_eq!(
            packed16(Add16x2, false, 0x0001_ffff, 0x0001_0001),
            0x0002_0000
        );
        assert_eq!(
            packed16(Add16x2, true, 0x7fff_8000, 0x0001_ffff),
            0x8000_7fff
        );
        // Unsigned and signed order differ on 0x8000.
        assert_eq!(
            packed16(Min16x2, false, 0x8000_0001, 0x0001_8000),
            0x0001_0001
        );
        assert_eq!(
            packed16(Min16x2, true, 0x8000_0001, 0x0001_8000),
            0x8000_8000
        );
        assert_eq!(
            packed16(Max16x2, true, 0x8000_0001, 0x0001_8000),
            0x0001_0001
        );
        // relu: negative results become 0.
        assert_eq!(
            packed16(Min16x2Relu, true, 0x8000_0005, 0x0001_0003),
            0x0000_0003
        );
        assert_eq!(
            packed16(Max16x2Relu, true, 0xfffe_fff0, 0xffff_fff1),
            0x0000_0000
        );
    }

    #[test]
    fn abs_diff_and_sad() {
        assert_eq!(bin(AbsDiff, U32, 3, 10), 7);
        assert_eq!(bin(AbsDiff, U32, 0, 0xFFFF_FFFF), 0xFFFF_FFFF);
        // Signed: -1 and 1 differ by 2.
        assert_eq!(bin(AbsDiff, S32, 0xFFFF_FFFF, 1), 2);
        // MIN and MAX differ by 2^32 - 1.
        assert_eq!(bin(AbsDiff, S32, 0x8000_0000, 0x7FFF_FFFF), 0xFFFF_FFFF);
        assert_eq!(bin(AbsDiff, S64, 1 << 63, (1 << 63) - 1), u64::MAX);
        assert_eq!(tern(IntTernOp::Sad, S32, 0xFFFF_FFFF, 1, 10), 12);
        assert_eq!(tern(IntTernOp::Sad, U32, 10, 3, 0xFFFF_FFFF), 6);
        assert_eq!(tern(IntTernOp::Sad, U16, 1, 0xFFFF, 1), 0xFFFF);
    }

    #[test]
    fn mad_lo_hi_wide() {
        assert_eq!(tern(IntTernOp::MadLo, U32, 3, 4, 5), 17);
        assert_eq!(tern(IntTernOp::MadLo, S32, 0xFFFF_FFFF, 3, 2), 0xFFFF_FFFF);
        assert_eq!(tern(IntTernOp::MadLo, U16, 0x100, 0x100, 1), 1);
        assert_eq!(tern(IntTernOp::MadHi, U32, 0xFFFF_FFFF, 0xFFFF_FFFF, 2), 0);
        assert_eq!(tern(IntTernOp::MadHi, S32, 0xFFFF_FFFE, 3, 1), 0);
        assert_eq!(tern(IntTernOp::MadHi, U64, u64::MAX, u64::MAX, 1), u64::MAX);
        assert_eq!(tern(IntTernOp::MadHi, S64, 1 << 63, 2, 0), u64::MAX);
        assert_eq!(
            tern(
                IntTernOp::MadWide,
                U32,
                0xFFFF_FFFF,
                0xFFFF_FFFF,
                0xFFFF_FFFF
            ),
            0xFFFF_FFFF_0000_0000
        );
        assert_eq!(tern(IntTernOp::MadWide, S32, 0xFFFF_FFFF, 1, 1), 0);
        assert_eq!(
            tern(IntTernOp::MadWide, S16, 0x8000, 1, 0xFFFF_FFFF),
            0xFFFF_7FFF
        );
        assert_eq!(
            tern(IntTernOp::MadWide, U16, 0xFFFF, 0xFFFF, 0x1_FFFE),
            0xFFFF_FFFF
        );
    }

    #[test]
    fn mad_hi_sat_s32() {
        // hi(MIN * MIN) = 2^30; + 2^30 = 2^31 saturates to MAX.
        let t = |a, b, c| tern(IntTernOp::MadHiSat, S32, a, b, c);
        assert_eq!(t(0x8000_0000, 0x8000_0000, 0x4000_0000), 0x7FFF_FFFF);
        assert_eq!(t(0x8000_0000, 0x8000_0000, 0x3FFF_FFFF), 0x7FFF_FFFF);
        assert_eq!(t(0x8000_0000, 0x8000_0000, 0x3FFF_FFFE), 0x7FFF_FFFE);
        // hi(MIN * MAX) = -2^30 + ... = 0xC0000000 (-2^30); + MIN saturates.
        assert_eq!(t(0x8000_0000, 0x7FFF_FFFF, 0x8000_0000), 0x8000_0000);
        // hi(-1 * 1) = -1; -1 + MIN saturates to MIN.
        assert_eq!(t(0xFFFF_FFFF, 1, 0x8000_0000), 0x8000_0000);
        // hi(-1 * 1) = -1; -1 + 5 = 4.
        assert_eq!(t(0xFFFF_FFFF, 1, 5), 4);
        assert_eq!(t(0x1000, 0x1000_0000, 0x7FFF_FFFF), 0x7FFF_FFFF);
    }
}
