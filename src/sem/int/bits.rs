//! Bit-field and byte manipulation: `bfe`, `bfi`, `bfind`, `prmt` (all
//! modes), `shf`, `lop3`, `bmsk`, `szext`, `dp4a`, `dp2a`. Each follows the
//! PTX ISA pseudo-code of its instruction. The public entry points are in the
//! parent module (`popc`, `clz`, `brev` are one-liners there).
use super::{low_mask, sext, M32};
use crate::ir::ops::{PrmtMode, Ty};

/// `bfind` / `bfind.shiftamt`: position of the most significant non-sign bit
/// (for negative signed inputs, of the most significant 0), or `msb - pos`
/// with `.shiftamt`; 0xFFFFFFFF when there is none.
pub(super) fn bfind(ty: Ty, a: u64, shiftamt: bool) -> u64 {
    let w = ty.bits();
    let m = ty.mask();
    let mut x = a & m;
    if ty.is_signed() && (x >> (w - 1)) & 1 == 1 {
        x = !x & m;
    }
    if x == 0 {
        return M32;
    }
    let pos = 63 - x.leading_zeros();
    (if shiftamt { w - 1 - pos } else { pos }) as u64
}

/// `bfe`: extract `len = c & 0xff` bits of `a` at `pos = b & 0xff`. Bits
/// past the msb of `a` and bits of the result past `len` are the sign bit
/// `a[min(pos + len - 1, msb)]` for signed types (0 for unsigned, and 0 when
/// `len == 0`).
///
/// This is the ISA's pseudo-code. An H100 matched it on every sampled
/// `bfe.u32`/`bfe.s32` (position and length >= 256 included), and on
/// `bfe.s64` whenever position and length are below 256; for larger ones
/// its `bfe.s64` (emulated by ptxas) reads all 32 bits of them instead of
/// the low 8, a deviation from the ISA that is not reproduced here.
pub(super) fn bfe(ty: Ty, a: u64, b: u64, c: u64) -> u64 {
    let w = ty.bits();
    let m = ty.mask();
    let a = a & m;
    let pos = (b & 0xFF) as u32;
    let len = (c & 0xFF) as u32;
    if len == 0 {
        return 0;
    }
    let sign = ty.is_signed() && (a >> (pos + len - 1).min(w - 1)) & 1 == 1;
    let fill = if sign { m } else { 0 };
    if pos >= w {
        return fill;
    }
    let field = low_mask(len.min(w - pos));
    ((a >> pos) & field) | (fill & !field)
}

/// `bfi`: insert the low `len = d & 0xff` bits of `a` into `b` at
/// `pos = c & 0xff`, stopping at the msb; `b` unchanged when `len == 0` or
/// `pos` is beyond the msb.
pub(super) fn bfi(ty: Ty, a: u64, b: u64, c: u64, d: u64) -> u64 {
    let w = ty.bits();
    let m = ty.mask();
    let (a, b) = (a & m, b & m);
    let pos = (c & 0xFF) as u32;
    let len = (d & 0xFF) as u32;
    if len == 0 || pos >= w {
        return b;
    }
    let field = low_mask(len.min(w - pos)) << pos;
    (b & !field) | ((a << pos) & field)
}

/// The byte selectors (four nibbles, result byte 0 in the low nibble) of the
/// special `prmt` modes, indexed by `c & 3` (PTX ISA table for `prmt`).
fn prmt_code(mode: PrmtMode, sel: u64) -> u64 {
    let table: [u64; 4] = match mode {
        // Generic is handled by the caller; give the identity.
        PrmtMode::Generic => [0x3210; 4],
        PrmtMode::F4e => [0x3210, 0x4321, 0x5432, 0x6543],
        PrmtMode::B4e => [0x5670, 0x6701, 0x7012, 0x0123],
        PrmtMode::Rc8 => [0x0000, 0x1111, 0x2222, 0x3333],
        PrmtMode::Ecl => [0x3210, 0x3211, 0x3222, 0x3333],
        PrmtMode::Ecr => [0x0000, 0x1110, 0x2210, 0x3210],
        PrmtMode::Rc16 => [0x1010, 0x3232, 0x1010, 0x3232],
    };
    table[(sel & 3) as usize]
}

/// `prmt.b32{.mode}`: pick four bytes of `{b, a}` (a = bytes 0..3). In the
/// generic form each nibble `c[4i+3:4i]` selects result byte `i`; bit 3 of
/// a nibble replicates the sign bit of the selected byte. Other modes use the
/// fixed selector patterns picked by `c[1:0]`, without sign replication.
pub(super) fn prmt(mode: PrmtMode, a: u64, b: u64, c: u64) -> u64 {
    let src = ((b & M32) << 32) | (a & M32);
    let code = match mode {
        PrmtMode::Generic => c & 0xFFFF,
        _ => prmt_code(mode, c),
    };
    let mut d = 0;
    for i in 0..4 {
        let sel = (code >> (4 * i)) & 0xF;
        let byte = (src >> (8 * (sel & 7))) & 0xFF;
        let byte = if sel & 8 != 0 {
            if byte & 0x80 != 0 {
                0xFF
            } else {
                0
            }
        } else {
            byte
        };
        d |= byte << (8 * i);
    }
    d
}

/// `shf.l`/`shf.r` on `{b, a}` (b the high word) by `c` (u32), clamped to
/// 32 or taken modulo 32; `.l` returns the high word of the shifted value,
/// `.r` the low word.
pub(super) fn shf(left: bool, clamp: bool, a: u64, b: u64, c: u64) -> u64 {
    let c = c & M32;
    let n = if clamp { c.min(32) } else { c & 31 };
    let v = ((b & M32) << 32) | (a & M32);
    if left {
        (v << n) >> 32
    } else {
        (v >> n) & M32
    }
}

/// `lop3.b32`: bit `i` of the result is bit `(a_i << 2) | (b_i << 1) | c_i`
/// of `imm` (so `imm` is the function applied to `a = 0xF0`, `b = 0xCC`,
/// `c = 0xAA`).
pub(super) fn lop3(imm: u8, a: u64, b: u64, c: u64) -> u64 {
    let mut d = 0;
    for i in 0..8 {
        if (imm >> i) & 1 != 0 {
            let x = if i & 4 != 0 { a } else { !a };
            let y = if i & 2 != 0 { b } else { !b };
            let z = if i & 1 != 0 { c } else { !c };
            d |= x & y & z;
        }
    }
    d & M32
}

/// `bmsk.clamp`/`bmsk.wrap`: a mask of `b` bits starting at bit `a` (both
/// u32), following the ISA pseudo-code: `.wrap` takes both modulo 32;
/// `.clamp` gives 0 for `a >= 32` and all bits from `a` up for `b >= 32`; a
/// field running past bit 31 stops there; a width of 0 gives 0.
/// `fns.b32` (PTX ISA §9.7.1.17, its pseudo-code): the `offset`-th set bit
/// of `mask` from bit `base` on, searching up (`offset > 0`) or down
/// (`offset < 0`); `offset == 0` asks whether bit `base` itself is set.
/// 0xffffffff when there is none (a base beyond bit 31 finds none).
pub(super) fn fns(mask: u32, base: u32, offset: i32) -> u32 {
    let set = |pos: i64| (0..32).contains(&pos) && mask >> pos & 1 == 1;
    if offset == 0 {
        return if set(base as i64) { base } else { u32::MAX };
    }
    let step: i64 = if offset > 0 { 1 } else { -1 };
    let mut count = offset.unsigned_abs() - 1;
    let mut pos = base as i64;
    while (0..32).contains(&pos) {
        if set(pos) {
            if count == 0 {
                return pos as u32;
            }
            count -= 1;
        }
        pos += step;
    }
    u32::MAX
}

pub(super) fn bmsk(a: u64, b: u64, clamp: bool) -> u64 {
    let (a, b) = (a & M32, b & M32);
    let (a1, b1) = (a & 31, b & 31);
    let mut mask0 = (M32 << a1) & M32;
    let sum = a1 + b1;
    let mut overflow = sum >= 32;
    if clamp {
        if a >= 32 {
            mask0 = 0;
            overflow = true;
        }
        if b >= 32 {
            overflow = true;
        }
    }
    let mask1 = if overflow {
        0
    } else if b1 == 0 {
        M32
    } else {
        (M32 << sum) & M32
    };
    mask0 & !mask1 & M32
}

/// `szext.clamp`/`szext.wrap` on 32 bits: sign- (`signed`) or zero-extend
/// the low `N = b` bits of `a`. `N == 0` gives 0; `N >= 32` gives `a` with
/// `.clamp` and uses `N mod 32` with `.wrap`.
pub(super) fn szext(signed: bool, a: u64, b: u64, clamp: bool) -> u64 {
    let (a, b) = (a & M32, b & M32);
    let b1 = (b & 31) as u32;
    let too_large = clamp && b >= 32;
    let mask = if too_large { 0 } else { (M32 << b1) & M32 };
    let sign_pos = b1.wrapping_sub(1) & 31;
    let sign = signed && b1 != 0 && !too_large && (a >> sign_pos) & 1 == 1;
    ((a & !mask) | if sign { mask } else { 0 }) & M32
}

/// Byte `i` of `x`, sign- or zero-extended.
#[inline]
fn byte(x: u64, i: u32, signed: bool) -> i64 {
    let v = (x >> (8 * i)) & 0xFF;
    if signed {
        sext(v, 8)
    } else {
        v as i64
    }
}

/// Halfword `i` of `x`, sign- or zero-extended.
#[inline]
fn half(x: u64, i: u32, signed: bool) -> i64 {
    let v = (x >> (16 * i)) & 0xFFFF;
    if signed {
        sext(v, 16)
    } else {
        v as i64
    }
}

/// `dp4a.atype.btype`: `c + sum(a.byte[i] * b.byte[i])`, modulo 2^32.
pub(super) fn dp4a(a_signed: bool, b_signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let mut d = (c & M32) as i64;
    for i in 0..4 {
        d += byte(a, i, a_signed) * byte(b, i, b_signed);
    }
    d as u64 & M32
}

/// `dp2a.lo/.hi.atype.btype`: `c + sum(a.half[i] * b.byte[sel + i])` with
/// `sel` 0 for `.lo` and 2 for `.hi`, modulo 2^32.
pub(super) fn dp2a(hi: bool, a_signed: bool, b_signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let sel = if hi { 2 } else { 0 };
    let mut d = (c & M32) as i64;
    for i in 0..2 {
        d += half(a, i, a_signed) * byte(b, sel + i, b_signed);
    }
    d as u64 & M32
}

#[cfg(test)]
mod tests {
    use crate::ir::ops::IntBinOp::{BmskClamp, BmskWrap, SzextClamp, SzextWrap};
    use crate::ir::ops::IntTernOp::{self, *};
    use crate::ir::ops::IntUnOp::{self, *};
    use crate::ir::ops::PrmtMode;
    use crate::ir::ops::Ty::{self, *};
    use crate::sem::int::{int_binary, int_ternary, int_unary};

    fn un(op: IntUnOp, ty: Ty, a: u64) -> u64 {
        int_unary(op, ty, a)
    }

    fn tern(op: IntTernOp, ty: Ty, a: u64, b: u64, c: u64) -> u64 {
        int_ternary(op, ty, &[a, b, c])
    }

    fn prmt(mode: PrmtMode, a: u64, b: u64, c: u64) -> u64 {
        tern(Prmt(mode), B32, a, b, c)
    }

    const A: u64 = 0x8382_8180; // bytes 0..3 = 80 81 82 83
    const B: u64 = 0x0706_0504; // bytes 4..7 = 04 05 06 07

    #[test]
    fn prmt_generic() {
        assert_eq!(prmt(PrmtMode::Generic, A, B, 0x3210), A);
        assert_eq!(prmt(PrmtMode::Generic, A, B, 0x7654), B);
        assert_eq!(prmt(PrmtMode::Generic, A, B, 0x0123), 0x8081_8283);
        assert_eq!(
            prmt(PrmtMode::Generic, 0x0302_0100, 0x0706_0504, 0x7531),
            0x0705_0301
        );
        // Sign replication: bit 3 of a nibble.
        assert_eq!(prmt(PrmtMode::Generic, A, B, 0x8888), 0xFFFF_FFFF);
        assert_eq!(prmt(PrmtMode::Generic, A, B, 0xCCCC), 0);
        assert_eq!(prmt(PrmtMode::Generic, A, B, 0x4C08), 0x0400_80FF);
        // Only c[15:0] is read.
        assert_eq!(prmt(PrmtMode::Generic, A, B, 0xFFFF_3210), A);
    }

    #[test]
    fn prmt_f4e_b4e() {
        assert_eq!(prmt(PrmtMode::F4e, A, B, 0), 0x8382_8180);
        assert_eq!(prmt(PrmtMode::F4e, A, B, 1), 0x0483_8281);
        assert_eq!(prmt(PrmtMode::F4e, A, B, 2), 0x0504_8382);
        assert_eq!(prmt(PrmtMode::F4e, A, B, 3), 0x0605_0483);
        // Only c[1:0] is read.
        assert_eq!(prmt(PrmtMode::F4e, A, B, 0xFFFF_FFFD), 0x0483_8281);
        assert_eq!(prmt(PrmtMode::B4e, A, B, 0), 0x0506_0780);
        assert_eq!(prmt(PrmtMode::B4e, A, B, 1), 0x0607_8081);
        assert_eq!(prmt(PrmtMode::B4e, A, B, 2), 0x0780_8182);
        assert_eq!(prmt(PrmtMode::B4e, A, B, 3), 0x8081_8283);
    }

    #[test]
    fn prmt_rc8_ecl_ecr_rc16() {
        assert_eq!(prmt(PrmtMode::Rc8, A, B, 0), 0x8080_8080);
        assert_eq!(prmt(PrmtMode::Rc8, A, B, 3), 0x8383_8383);
        assert_eq!(prmt(PrmtMode::Ecl, A, B, 0), 0x8382_8180);
        assert_eq!(prmt(PrmtMode::Ecl, A, B, 1), 0x8382_8181);
        assert_eq!(prmt(PrmtMode::Ecl, A, B, 2), 0x8382_8282);
        assert_eq!(prmt(PrmtMode::Ecl, A, B, 3), 0x8383_8383);
        assert_eq!(prmt(PrmtMode::Ecr, A, B, 0), 0x8080_8080);
        assert_eq!(prmt(PrmtMode::Ecr, A, B, 1), 0x8181_8180);
        assert_eq!(prmt(PrmtMode::Ecr, A, B, 2), 0x8282_8180);
        assert_eq!(prmt(PrmtMode::Ecr, A, B, 3), 0x8382_8180);
        assert_eq!(prmt(PrmtMode::Rc16, A, B, 0), 0x8180_8180);
        assert_eq!(prmt(PrmtMode::Rc16, A, B, 1), 0x8382_8382);
        assert_eq!(prmt(PrmtMode::Rc16, A, B, 2), 0x8180_8180);
        assert_eq!(prmt(PrmtMode::Rc16, A, B, 7), 0x8382_8382);
    }

    #[test]
    fn bfe_unsigned() {
        assert_eq!(tern(Bfe, U32, 0x1234_5678, 8, 8), 0x56);
        assert_eq!(tern(Bfe, U32, 0x1234_5678, 28, 8), 0x1);
        assert_eq!(tern(Bfe, U32, 0xF234_5678, 28, 8), 0xF);
        assert_eq!(tern(Bfe, U32, 0xFFFF_FFFF, 0, 0), 0);
        assert_eq!(tern(Bfe, U32, 0xFFFF_FFFF, 32, 5), 0);
        assert_eq!(tern(Bfe, U32, 0xFFFF_FFFF, 0, 32), 0xFFFF_FFFF);
        assert_eq!(tern(Bfe, U32, 0xFFFF_FFFF, 0, 200), 0xFFFF_FFFF);
        // Only the low 8 bits of position and length: 0x108 is 8, 0x104 is 4.
        assert_eq!(tern(Bfe, U32, 0x1234_5678, 0x108, 0x104), 0x6);
        // Length 0x100 is 0.
        assert_eq!(tern(Bfe, U32, 0x1234_5678, 0, 0x100), 0);
        assert_eq!(tern(Bfe, U64, 0xF000_0000_0000_0000, 60, 4), 0xF);
        assert_eq!(tern(Bfe, U64, 0xAB00_0000_0000, 40, 8), 0xAB);
        assert_eq!(tern(Bfe, U64, u64::MAX, 64, 8), 0);
    }

    #[test]
    fn bfe_signed() {
        // Field 0x8 (4 bits) at 4: sign bit set.
        assert_eq!(tern(Bfe, S32, 0x0000_0080, 4, 4), 0xFFFF_FFF8);
        assert_eq!(tern(Bfe, S32, 0x0000_0070, 4, 4), 0x7);
        assert_eq!(tern(Bfe, S32, 0xFFFF_FFFF, 0, 0), 0);
        // Field running past the msb: sign is a[31].
        assert_eq!(tern(Bfe, S32, 0x8000_0000, 28, 8), 0xFFFF_FFF8);
        assert_eq!(tern(Bfe, S32, 0x4000_0000, 28, 8), 0x4);
        // Position beyond the msb: all sign bits of a[31].
        assert_eq!(tern(Bfe, S32, 0x8000_0000, 40, 4), 0xFFFF_FFFF);
        assert_eq!(tern(Bfe, S32, 0x7FFF_FFFF, 40, 4), 0);
        assert_eq!(tern(Bfe, S32, 0x8000_0000, 255, 255), 0xFFFF_FFFF);
        assert_eq!(tern(Bfe, S32, 0x1234_5678, 0, 32), 0x1234_5678);
        assert_eq!(
            tern(Bfe, S64, 0x0000_0000_8000_0000, 16, 16),
            0xFFFF_FFFF_FFFF_8000
        );
        assert_eq!(tern(Bfe, S64, 1 << 63, 100, 1), u64::MAX);
        assert_eq!(tern(Bfe, S64, 0x1_0000_0000, 32, 1), u64::MAX);
    }

    #[test]
    fn bfi_rules() {
        let bfi = |ty, a, b, pos, len| int_ternary(Bfi, ty, &[a, b, pos, len]);
        assert_eq!(bfi(B32, 0xF, 0, 4, 4), 0xF0);
        assert_eq!(bfi(B32, 0xFFFF_FFFF, 0x1234_5678, 8, 8), 0x1234_FF78);
        assert_eq!(bfi(B32, 0xABCD, 0x1234_5678, 8, 0), 0x1234_5678);
        assert_eq!(bfi(B32, 0xABCD, 0x1234_5678, 32, 8), 0x1234_5678);
        // Stops at the msb.
        assert_eq!(bfi(B32, 0xFF, 0, 28, 8), 0xF000_0000);
        assert_eq!(bfi(B32, 0x1234_5678, 0xFFFF_FFFF, 0, 32), 0x1234_5678);
        assert_eq!(bfi(B32, 0x1234_5678, 0xFFFF_FFFF, 0, 255), 0x1234_5678);
        // Low 8 bits of position and length only.
        assert_eq!(bfi(B32, 1, 0, 0x101, 0x101), 2);
        assert_eq!(bfi(B64, 0xFF, 0, 60, 8), 0xF000_0000_0000_0000);
        assert_eq!(bfi(B64, 0, u64::MAX, 32, 16), 0xFFFF_0000_FFFF_FFFF);
        assert_eq!(bfi(B64, 5, 7, 64, 8), 7);
    }

    #[test]
    fn shf_clamp_and_wrap() {
        let (a, b) = (0x89AB_CDEF, 0x0123_4567);
        let l = |c, n| tern(ShfL { clamp: c }, B32, a, b, n);
        let r = |c, n| tern(ShfR { clamp: c }, B32, a, b, n);
        assert_eq!(l(true, 0), b);
        assert_eq!(l(true, 4), 0x1234_5678);
        assert_eq!(l(true, 32), a);
        assert_eq!(l(true, 40), a);
        assert_eq!(l(true, 0xFFFF_FFFF), a);
        assert_eq!(l(false, 32), b);
        assert_eq!(l(false, 36), 0x1234_5678);
        assert_eq!(r(true, 0), a);
        assert_eq!(r(true, 4), 0x789A_BCDE);
        assert_eq!(r(true, 32), b);
        assert_eq!(r(true, 100), b);
        assert_eq!(r(false, 32), a);
        assert_eq!(r(false, 33), 0xC4D5_E6F7);
        assert_eq!(r(true, 16), 0x4567_89AB);
    }

    #[test]
    fn lop3_truth_tables() {
        let (a, b, c) = (0xF0, 0xCC, 0xAA);
        for imm in 0..=255u8 {
            let d = tern(Lop3(imm), B32, a, b, c);
            assert_eq!(d & 0xFF, imm as u64);
            // Above bit 7 all three inputs are 0: entry 0 of the table.
            assert_eq!(d >> 8, if imm & 1 != 0 { 0xFF_FFFF } else { 0 });
        }
        let (x, y, z) = (0x1234_5678, 0xFF00_FF00, 0x0F0F_0F0F);
        assert_eq!(tern(Lop3(0xF0 & 0xCC), B32, x, y, z), x & y);
        assert_eq!(tern(Lop3(0xF0 ^ 0xCC ^ 0xAA), B32, x, y, z), x ^ y ^ z);
        assert_eq!(tern(Lop3((0xF0 & 0xCC) | 0xAA), B32, x, y, z), (x & y) | z);
        assert_eq!(tern(Lop3(0xFF), B32, x, y, z), 0xFFFF_FFFF);
        assert_eq!(tern(Lop3(0x00), B32, x, y, z), 0);
        assert_eq!(tern(Lop3(!0xF0), B32, x, y, z), !x & 0xFFFF_FFFF);
    }

    #[test]
    fn fns_follows_the_isa_examples() {
        // The ISA's examples.
        assert_eq!(super::fns(0xaaaa_aaaa, 3, 1), 3);
        assert_eq!(super::fns(0xaaaa_aaaa, 3, -1), 3);
        assert_eq!(super::fns(0xaaaa_aaaa, 2, 1), 3);
        assert_eq!(super::fns(0xaaaa_aaaa, 2, -1), 1);
        // Further set bits, offset 0, none left, a base beyond 31.
        assert_eq!(super::fns(0xaaaa_aaaa, 0, 3), 5);
        assert_eq!(super::fns(0xaaaa_aaaa, 31, -16), 1);
        assert_eq!(super::fns(0xaaaa_aaaa, 31, -17), u32::MAX);
        assert_eq!(super::fns(0xaaaa_aaaa, 5, 0), 5);
        assert_eq!(super::fns(0xaaaa_aaaa, 4, 0), u32::MAX);
        assert_eq!(super::fns(0, 0, 1), u32::MAX);
        assert_eq!(super::fns(u32::MAX, 40, 1), u32::MAX);
        assert_eq!(super::fns(u32::MAX, 0, i32::MIN), u32::MAX);
    }

    #[test]
    fn bmsk_modes() {
        let c = |a, b| int_binary(BmskClamp, B32, a, b);
        let w = |a, b| int_binary(BmskWrap, B32, a, b);
        assert_eq!(w(1, 2), 0x6);
        assert_eq!(c(1, 2), 0x6);
        assert_eq!(c(0, 32), 0xFFFF_FFFF);
        assert_eq!(c(4, 40), 0xFFFF_FFF0);
        assert_eq!(c(32, 4), 0);
        assert_eq!(c(33, 4), 0);
        assert_eq!(c(4, 0), 0);
        assert_eq!(c(28, 8), 0xF000_0000);
        assert_eq!(w(0, 32), 0);
        assert_eq!(w(33, 4), 0x1E);
        assert_eq!(w(4, 36), 0xF0);
        assert_eq!(w(28, 8), 0xF000_0000);
        assert_eq!(w(0, 31), 0x7FFF_FFFF);
        assert_eq!(w(31, 1), 0x8000_0000);
    }

    #[test]
    fn szext_modes() {
        let cs = |a, b| int_binary(SzextClamp, S32, a, b);
        let cu = |a, b| int_binary(SzextClamp, U32, a, b);
        let ws = |a, b| int_binary(SzextWrap, S32, a, b);
        let wu = |a, b| int_binary(SzextWrap, U32, a, b);
        assert_eq!(cs(0x0000_0080, 8), 0xFFFF_FF80);
        assert_eq!(cs(0x0000_007F, 8), 0x7F);
        assert_eq!(cu(0xFFFF_FF80, 8), 0x80);
        assert_eq!(cs(0xFFFF_FFFF, 0), 0);
        assert_eq!(cu(0xFFFF_FFFF, 0), 0);
        assert_eq!(cs(0x8000_0001, 32), 0x8000_0001);
        assert_eq!(cs(0x8000_0001, 100), 0x8000_0001);
        assert_eq!(cu(0x8000_0001, 0xFFFF_FFFF), 0x8000_0001);
        assert_eq!(wu(0xFFFF_FFFF, 0), 0);
        assert_eq!(ws(0xFFFF_FFFF, 32), 0);
        assert_eq!(ws(0x0000_0001, 33), 0xFFFF_FFFF);
        assert_eq!(wu(0x0000_00FF, 36), 0xF);
        assert_eq!(ws(0x0000_0008, 36), 0xFFFF_FFF8);
        assert_eq!(cs(0x4000_0000, 31), 0xC000_0000);
    }

    #[test]
    fn bfind_and_shiftamt() {
        assert_eq!(un(Bfind, U32, 0), 0xFFFF_FFFF);
        assert_eq!(un(Bfind, U32, 1), 0);
        assert_eq!(un(Bfind, U32, 0x8000_0000), 31);
        assert_eq!(un(Bfind, U32, 0x0001_0F00), 16);
        assert_eq!(un(Bfind, S32, 0xFFFF_FFFF), 0xFFFF_FFFF);
        assert_eq!(un(Bfind, S32, 0x8000_0000), 30);
        assert_eq!(un(Bfind, S32, 0xFFFF_FF00), 7);
        assert_eq!(un(Bfind, S32, 0x7FFF_FFFF), 30);
        assert_eq!(un(Bfind, U64, 1 << 63), 63);
        assert_eq!(un(Bfind, S64, 1 << 63), 62);
        assert_eq!(un(Bfind, S64, u64::MAX), 0xFFFF_FFFF);
        assert_eq!(un(BfindShiftAmt, U32, 1), 31);
        assert_eq!(un(BfindShiftAmt, U32, 0x8000_0000), 0);
        assert_eq!(un(BfindShiftAmt, U32, 0), 0xFFFF_FFFF);
        assert_eq!(un(BfindShiftAmt, S32, 0xFFFF_FF00), 24);
        assert_eq!(un(BfindShiftAmt, U64, 1), 63);
        assert_eq!(un(BfindShiftAmt, S64, 0), 0xFFFF_FFFF);
    }

    #[test]
    fn popc_clz_brev() {
        assert_eq!(un(Popc, B32, 0), 0);
        assert_eq!(un(Popc, B32, 0xFFFF_FFFF), 32);
        assert_eq!(un(Popc, B32, 0xFFFF_FFFF_0000_0001), 1);
        assert_eq!(un(Popc, B64, u64::MAX), 64);
        assert_eq!(un(Popc, B64, 0x8000_0000_0000_0001), 2);
        assert_eq!(un(Clz, B32, 0), 32);
        assert_eq!(un(Clz, B32, 1), 31);
        assert_eq!(un(Clz, B32, 0x8000_0000), 0);
        assert_eq!(un(Clz, B32, 0xFF_0000_0001), 31);
        assert_eq!(un(Clz, B64, 0), 64);
        assert_eq!(un(Clz, B64, 1), 63);
        assert_eq!(un(Clz, B64, 1 << 63), 0);
        assert_eq!(un(Clz, B64, 0x1_0000_0000), 31);
        assert_eq!(un(Brev, B32, 1), 0x8000_0000);
        assert_eq!(un(Brev, B32, 0x1234_5678), 0x1E6A_2C48);
        assert_eq!(un(Brev, B32, 0xFFFF_0000_0000_0003), 0xC000_0000);
        assert_eq!(un(Brev, B64, 1), 1 << 63);
        assert_eq!(un(Brev, B64, 0x0000_0000_0000_00F0), 0x0F00_0000_0000_0000);
    }

    #[test]
    fn not_cnot_abs_neg() {
        assert_eq!(un(Not, B32, 0x0F0F_0F0F), 0xF0F0_F0F0);
        assert_eq!(un(Not, B16, 0), 0xFFFF);
        assert_eq!(un(Not, B8, 0x0F), 0xF0);
        assert_eq!(un(Not, B64, 0), u64::MAX);
        assert_eq!(un(Not, Pred, 0), 1);
        assert_eq!(un(Not, Pred, 1), 0);
        assert_eq!(un(Cnot, B32, 0), 1);
        assert_eq!(un(Cnot, B32, 7), 0);
        assert_eq!(un(Cnot, B16, 0x1_0000), 1);
        assert_eq!(un(Cnot, B64, 1 << 63), 0);
        assert_eq!(un(Cnot, Pred, 1), 0);
        assert_eq!(un(Cnot, Pred, 0), 1);
        assert_eq!(un(Abs, S32, 0xFFFF_FFFF), 1);
        assert_eq!(un(Abs, S32, 0x8000_0000), 0x8000_0000);
        assert_eq!(un(Abs, S32, 5), 5);
        assert_eq!(un(Abs, S16, 0x8000), 0x8000);
        assert_eq!(un(Abs, S16, 0xFFFE), 2);
        assert_eq!(un(Abs, S64, 1 << 63), 1 << 63);
        assert_eq!(un(Abs, S64, u64::MAX), 1);
        assert_eq!(un(Neg, S32, 1), 0xFFFF_FFFF);
        assert_eq!(un(Neg, S32, 0x8000_0000), 0x8000_0000);
        assert_eq!(un(Neg, S32, 0), 0);
        assert_eq!(un(Neg, S16, 2), 0xFFFE);
        assert_eq!(un(Neg, S64, 1 << 63), 1 << 63);
    }

    #[test]
    fn dp4a_signedness() {
        let d = |sa, sb, a, b, c| {
            tern(
                Dp4a {
                    a_signed: sa,
                    b_signed: sb,
                },
                U32,
                a,
                b,
                c,
            )
        };
        assert_eq!(d(false, false, 0x0403_0201, 0x0101_0101, 0), 10);
        assert_eq!(d(false, false, 0xFFFF_FFFF, 0xFFFF_FFFF, 0), 4 * 255 * 255);
        assert_eq!(d(true, true, 0xFFFF_FFFF, 0xFFFF_FFFF, 0), 4);
        assert_eq!(
            d(true, false, 0xFFFF_FFFF, 0xFFFF_FFFF, 0),
            (-1020i32) as u32 as u64
        );
        assert_eq!(
            d(false, true, 0xFFFF_FFFF, 0x0000_00FF, 5),
            (-250i32) as u32 as u64
        );
        assert_eq!(d(false, true, 0xFFFF_FFFF, 0x0000_0001, 5), 260);
        assert_eq!(d(true, true, 0x8080_8080, 0x8080_8080, 0), 4 * 128 * 128);
        assert_eq!(
            d(true, true, 0x8080_8080, 0x7F7F_7F7F, 0xFFFF_FFFF),
            (-4 * 128 * 127 - 1i32) as u32 as u64
        );
        assert_eq!(d(false, false, 0xFF, 0xFF, 0xFFFF_FFFF), 0xFE00);
    }

    #[test]
    fn dp2a_lo_hi() {
        let d = |hi, sa, sb, a, b, c| {
            tern(
                Dp2a {
                    hi,
                    a_signed: sa,
                    b_signed: sb,
                },
                U32,
                a,
                b,
                c,
            )
        };
        // a halves: 2, 3; b bytes: 1, 2, 3, 4.
        assert_eq!(d(false, false, false, 0x0003_0002, 0x0403_0201, 0), 2 + 6);
        assert_eq!(d(true, false, false, 0x0003_0002, 0x0403_0201, 0), 6 + 12);
        assert_eq!(d(false, true, true, 0xFFFF_FFFF, 0x0000_FFFF, 0), 2);
        assert_eq!(
            d(false, false, true, 0xFFFF_FFFF, 0x0000_FFFF, 0),
            (-131070i32) as u32 as u64
        );
        assert_eq!(
            d(true, true, false, 0x8000_8000, 0xFFFF_0000, 0),
            (-2 * 32768 * 255i64) as u32 as u64
        );
        assert_eq!(
            d(true, true, true, 0x0001_0001, 0x8080_0000, 1),
            (-255i32) as u32 as u64
        );
    }
}
