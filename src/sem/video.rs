//! Semantics of PTX's video instructions (PTX ISA 8.8 §9.7.16): the scalar
//! `vadd vsub vabsdiff vmin vmax vshl vshr vset` (§9.7.16.1, with their
//! secondary operation or data merge), `vmad` (§9.7.16.1.3), and the SIMD
//! `vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2 vset2` and their four-byte
//! forms (§9.7.16.2, with the destination mask merge or `.add` reduction).
//!
//! This file owns the typed description of one video instruction
//! ([`VideoOp`], built by lowering, carried by `OpKind::Video`) and its
//! value: [`eval`] takes the lane's `a`, `b` and `c` bits (32-bit registers
//! zero-extended in a `u64`) and returns `d`'s 32 bits. Both engines call it
//! (the JIT through the pure-op fallback), so they cannot disagree.
//!
//! The ISA's pseudo-code is the starting point; where an NVIDIA H100 (sm_90,
//! which runs ptxas's emulation of these instructions) computes something
//! else, the hardware wins and the difference is stated where it is
//! implemented. Measured on H100: `ptx-samples/hw/h100-gpucheck.json`, the
//! sample `cuda/simd_video`. The scalar forms:
//! - `partSelectSignExtend`: the selected byte, half-word or word of a
//!   source, sign- or zero-extended by the source's type ([`part`]);
//! - the primary operation on these values, exact; a left shift's result
//!   wraps to the ISA's `.s34` intermediate (measured:
//!   `vshl.s32.s32.u32.clamp.sat` clamps `3 << 32` to `S32_MIN`, as the
//!   wrapped 34-bit value is negative);
//! - `.sat` without a data merge, and on the shifts also with one: clamp to
//!   the destination type's 32-bit range (measured: `vshl.sat d.h0` merges
//!   the low half of the 32-bit clamp, not a 16-bit clamp as the ISA says);
//! - `.sat` with a data merge on `vadd vsub vabsdiff vmin vmax`: the measured
//!   rule of [`merge_saturate`], an unsigned minimum of the 32-bit result and
//!   the part's maximum (no lower bound), and `d.h1` receives 0;
//! - `optSecOp` (`.add .min .max` with `c`, extended by the destination
//!   type; `vset`'s `c` is signed when a source type is, measured for
//!   `vset.s32.s32.gt.max`), or `optMerge` (the low byte/half of the result
//!   into the `dsel` position of `c`);
//! - the low 32 bits are the result.
//!
//! `vmad` computes `±(a*b) ± c (+1 with .po)` exactly, as measured: each
//! source is its 32-bit register value after part selection and extension
//! by type, multiplied as a signed 32-bit value (an `.u32` word of 2^31 or
//! more is negative), `c` is always sign-extended (the ISA zero-extends both
//! for unsigned forms), then the sum shifts right arithmetically by 7 or 15
//! (`.shr7`/`.shr15`) and `.sat` clamps it to the signed 32-bit range when
//! the ISA's final result is signed, else to `[0, U32_MAX]` by an unsigned
//! minimum of the 64-bit value, so a negative sum gives `U32_MAX`.
//!
//! The SIMD forms pick each element from the bytes or half-words of the
//! pair `{b, a}` (`a` is elements 0..n, `b` elements n..2n) and extend it by
//! the type of the operand the selector belongs to; `vavrg` rounds halves
//! away from zero for non-negative sums (`(x + 1) >> 1`) and floors
//! otherwise (`x >> 1`); `.sat` clamps each element to the signed or
//! unsigned 16/8-bit range by the destination type; elements the mask
//! leaves out keep `c`'s element (merge), or add nothing (`.add`, which adds
//! every selected element's full value to `c`, modulo 2^32). The H100
//! agrees with all of these on the sample.

/// Which part of a 32-bit source a scalar video instruction reads (`.b0`
/// to `.b3`, `.h0`, `.h1`, or the whole word), or where a data merge puts
/// the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    Word,
    /// Byte 0..=3.
    Byte(u8),
    /// Half-word 0..=1.
    Half(u8),
}

/// The comparisons of `vset`, `vset2`, `vset4` (signed or unsigned by the
/// operands' types, which extension already accounts for).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VideoCmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// The primary operation of a scalar video instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarOp {
    Add,
    Sub,
    AbsDiff,
    Min,
    Max,
    /// `vshl`/`vshr` with `.wrap` (count modulo 32) or `.clamp` (at most 32).
    Shl {
        wrap: bool,
    },
    Shr {
        wrap: bool,
    },
    /// `vset`: 1 if the comparison holds, else 0.
    Set(VideoCmp),
}

/// What a scalar video instruction does with `c` after the primary operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Secondary {
    /// `d = tmp` (`c`, if given, is not read).
    None,
    /// `.add`: `d = tmp + c`.
    Add,
    /// `.min`/`.max`: `d = MIN/MAX(tmp, c)`.
    Min,
    Max,
    /// `d.dsel`: the result's low byte or half-word replaces that part of `c`.
    Merge(Part),
}

/// A scalar video instruction other than `vmad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scalar {
    pub op: ScalarOp,
    /// The destination type's signedness (saturation range, `c`'s extension);
    /// `vset`'s destination is unsigned (its `c` follows the source types).
    pub d_signed: bool,
    pub a_signed: bool,
    /// Shift counts are always unsigned.
    pub b_signed: bool,
    pub sat: bool,
    pub asel: Part,
    pub bsel: Part,
    pub second: Secondary,
}

/// `vmad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vmad {
    pub a_signed: bool,
    pub b_signed: bool,
    pub asel: Part,
    pub bsel: Part,
    /// Exactly one of `a`, `b` is written negated: the product is negated.
    pub neg_product: bool,
    /// `-c`.
    pub neg_c: bool,
    /// `.po`: plus one (no negation allowed).
    pub plus_one: bool,
    pub sat: bool,
    /// `.shr7` (7), `.shr15` (15) or no scaling (0).
    pub shift: u8,
}

/// The element operation of a SIMD video instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SimdOp {
    Add,
    Sub,
    Avrg,
    AbsDiff,
    Min,
    Max,
    Set(VideoCmp),
}

/// `vop2` (two half-words) or `vop4` (four bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Simd {
    pub op: SimdOp,
    /// 2 (half-words) or 4 (bytes).
    pub lanes: u8,
    /// The destination type's signedness (`.sat` range); `vset2/4`'s is unsigned.
    pub d_signed: bool,
    pub a_signed: bool,
    pub b_signed: bool,
    pub sat: bool,
    /// Element `i` of `a`'s operand is element `asel[i]` of `{b, a}`
    /// (0..2*lanes); unused entries are 0.
    pub asel: [u8; 4],
    pub bsel: [u8; 4],
    /// Bit `i`: element `i` of the result is written (else `c`'s is kept,
    /// or nothing is added with `.add`).
    pub mask: u8,
    /// `.add`: `d = c + sum of the masked elements`.
    pub add: bool,
}

/// One video instruction, as `OpKind::Video` carries it: srcs `a, b, c`
/// (32-bit; `c` is 0 when the instruction has none), dst `d`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VideoOp {
    Scalar(Scalar),
    Mad(Vmad),
    Simd(Simd),
}

/// Computes a video instruction's `d` (zero-extended 32 bits) from `a`, `b`, `c`.
pub fn eval(op: &VideoOp, a: u64, b: u64, c: u64) -> u64 {
    let (a, b, c) = (a as u32, b as u32, c as u32);
    (match op {
        VideoOp::Scalar(s) => scalar(s, a, b, c),
        VideoOp::Mad(m) => vmad(m, a, b, c),
        VideoOp::Simd(s) => simd(s, a, b, c),
    }) as u64
}

/// `partSelectSignExtend(x, type, sel)`.
pub fn part(x: u32, signed: bool, sel: Part) -> i64 {
    match sel {
        Part::Word if signed => x as i32 as i64,
        Part::Word => x as i64,
        Part::Byte(k) => extend((x >> (8 * (k as u32 & 3))) & 0xff, 8, signed),
        Part::Half(k) => extend((x >> (16 * (k as u32 & 1))) & 0xffff, 16, signed),
    }
}

/// The low `bits` of `v`, sign- or zero-extended.
fn extend(v: u32, bits: u32, signed: bool) -> i64 {
    let v = v as i64 & ((1i64 << bits) - 1);
    if signed && v >> (bits - 1) != 0 {
        v - (1i64 << bits)
    } else {
        v
    }
}

/// The signed or unsigned range of `bits`.
fn range(bits: u32, signed: bool) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

fn compare(cmp: VideoCmp, x: i64, y: i64) -> bool {
    match cmp {
        VideoCmp::Eq => x == y,
        VideoCmp::Ne => x != y,
        VideoCmp::Lt => x < y,
        VideoCmp::Le => x <= y,
        VideoCmp::Gt => x > y,
        VideoCmp::Ge => x >= y,
    }
}

/// The 32-bit clamp of `.sat`: the destination type's range.
pub fn saturate(tmp: i128, signed: bool) -> i128 {
    let (lo, hi) = range(32, signed);
    tmp.clamp(lo, hi)
}

/// `.sat` with a data merge `d.dsel` on `vadd vsub vabsdiff vmin vmax`: the
/// value whose low byte or half `optMerge` places.
///
/// The ISA clamps `tmp` to the part's signed or unsigned range. Measured on
/// H100 (`ptx-samples/hw/h100-gpucheck.json`, `cuda/simd_video`): the 32-bit
/// result (`tmp` modulo 2^32) is clamped by an unsigned minimum with the
/// part's maximum (127 or 255, 32767 or 65535) and nothing else, so a
/// negative result gives the maximum (`vsub.u32.u32.u32.sat d.b2` of
/// `0 - 255` merges 0xff, `vsub.s32.u32.u32.sat d.b1` of `0 - 65535`
/// merges 0x7f), and `d.h1` receives the upper half of that clamped value,
/// which is 0 (`vadd.s32.s32.s32.sat d.h1` merges 0 whatever the sum). Only
/// `vadd`/`vsub` were measured with part-sized results; `vabsdiff vmin
/// vmax` are taken to behave alike.
pub fn merge_saturate(tmp: i128, signed: bool, dsel: Part) -> u32 {
    let (bits, upper) = match dsel {
        Part::Byte(_) => (8, false),
        Part::Half(k) => (16, k & 1 == 1),
        Part::Word => (32, false),
    };
    let max = range(bits, signed).1 as u32;
    let v = (tmp as u32).min(max);
    if upper {
        v >> 16
    } else {
        v
    }
}

/// `optMerge(dsel, tmp, c)`.
pub fn merge(dsel: Part, tmp: u32, c: u32) -> u32 {
    match dsel {
        Part::Word => tmp,
        Part::Byte(k) => {
            let sh = 8 * (k as u32 & 3);
            ((tmp & 0xff) << sh) | (c & !(0xff << sh))
        }
        Part::Half(k) => {
            let sh = 16 * (k as u32 & 1);
            ((tmp & 0xffff) << sh) | (c & !(0xffff << sh))
        }
    }
}

/// The low 34 bits of `v`, sign-extended: the ISA's `.s34` intermediate.
fn wrap34(v: i128) -> i128 {
    (v << 94) >> 94
}

/// `vadd vsub vabsdiff vmin vmax vshl vshr vset` with `.sat`, the secondary
/// operation or the data merge.
pub fn scalar(s: &Scalar, a: u32, b: u32, c: u32) -> u32 {
    let ta = part(a, s.a_signed, s.asel) as i128;
    let tb = part(b, s.b_signed, s.bsel) as i128;
    let shift = |wrap: bool| {
        if wrap {
            (tb & 0x1f) as u32
        } else {
            tb.clamp(0, 32) as u32
        }
    };
    let tmp: i128 = match s.op {
        ScalarOp::Add => ta + tb,
        ScalarOp::Sub => ta - tb,
        ScalarOp::AbsDiff => (ta - tb).abs(),
        ScalarOp::Min => ta.min(tb),
        ScalarOp::Max => ta.max(tb),
        // Measured on H100: the shifted value wraps to 34 bits before `.sat`.
        ScalarOp::Shl { wrap } => wrap34(ta << shift(wrap)),
        ScalarOp::Shr { wrap } => ta >> shift(wrap),
        ScalarOp::Set(cmp) => compare(cmp, ta as i64, tb as i64) as i128,
    };
    let is_shift = matches!(s.op, ScalarOp::Shl { .. } | ScalarOp::Shr { .. });
    if let Secondary::Merge(p) = s.second {
        let v = match (s.sat, is_shift) {
            (false, _) => tmp as u32,
            // Measured on H100: `vshl.s32.s32.u32.clamp.sat d.h0` merges the
            // low half of the 32-bit clamp (`123 << 9` merges 0xf600, where
            // the ISA's 16-bit clamp gives 0x7fff). `vshr` is taken alike.
            (true, true) => saturate(tmp, s.d_signed) as u32,
            (true, false) => merge_saturate(tmp, s.d_signed, p),
        };
        return merge(p, v, c);
    }
    let tmp = if s.sat {
        saturate(tmp, s.d_signed)
    } else {
        tmp
    };
    // "The sign of the third operand is based on dtype." `vset` has none:
    // measured on H100, `vset.s32.s32.gt.max` compares with c signed (the
    // result is 0 or 1, never an unsigned c of 2^31 or more); c is taken
    // as signed when either source type is (only `.s32.s32` was measured).
    let c_signed = match s.op {
        ScalarOp::Set(_) => s.a_signed || s.b_signed,
        _ => s.d_signed,
    };
    let tc = part(c, c_signed, Part::Word) as i128;
    let d = match s.second {
        Secondary::None | Secondary::Merge(_) => tmp,
        Secondary::Add => tmp + tc,
        Secondary::Min => tmp.min(tc),
        Secondary::Max => tmp.max(tc),
    };
    d as u32
}

/// `vmad`, as measured on H100 (`ptx-samples/hw/h100-gpucheck.json`,
/// `cuda/simd_video`); the ISA's pseudo-code differs in three places:
/// - the ISA extends `.u32` sources and (for an unsigned final result) `c`
///   with zeros; the hardware multiplies the two 32-bit source values (after
///   part selection and extension by type) as signed 32-bit integers and
///   always sign-extends `c` (`vmad.u32.u32.u32.sat d, a, b, -c` of
///   `0x80000000 * 0xffffffff - 0xffff` is 0x7fff0001; `.po.shr7` of
///   `0 * 0 + 0x80808080 + 1` is 0xff010101);
/// - the scale is an arithmetic shift of that signed sum;
/// - `.sat` of an unsigned final result is an unsigned minimum with
///   `U32_MAX` of the 64-bit sum, so a negative sum gives `U32_MAX`
///   (`vmad.u32.u32.u32.shr15.sat` of `0 * 0 + 0x80808080` is 0xffffffff);
///   a signed final result clamps to the signed 32-bit range as the ISA says.
pub fn vmad(m: &Vmad, a: u32, b: u32, c: u32) -> u32 {
    let ta = part(a, m.a_signed, m.asel) as u32 as i32 as i128;
    let tb = part(b, m.b_signed, m.bsel) as u32 as i32 as i128;
    let signed_final = m.a_signed || m.b_signed || m.neg_product || m.neg_c;
    let mut product = ta * tb;
    if m.neg_product {
        product = -product;
    }
    let mut tc = c as i32 as i128;
    if m.neg_c {
        tc = -tc;
    }
    let tmp = product + tc + m.plus_one as i128;
    let result = tmp >> m.shift;
    if !m.sat {
        return result as u32;
    }
    if signed_final {
        saturate(result, true) as u32
    } else if result < 0 {
        u32::MAX
    } else {
        result.min(u32::MAX as i128) as u32
    }
}

/// The SIMD forms: `vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2 vset2` and the
/// four-byte `...4`.
pub fn simd(s: &Simd, a: u32, b: u32, c: u32) -> u32 {
    let n = if s.lanes == 2 { 2 } else { 4 };
    let w = 32 / n;
    let pool = ((b as u64) << 32) | a as u64;
    let elem = |k: u8, signed: bool| {
        let k = k as u32 % (2 * n);
        extend((pool >> (w * k)) as u32, w, signed)
    };
    let (lo, hi) = range(w, s.d_signed);
    let lane_mask = (1u64 << w) - 1;
    let mut d = if s.add { c } else { 0 };
    for i in 0..n as usize {
        let va = elem(s.asel[i], s.a_signed);
        let vb = elem(s.bsel[i], s.b_signed);
        let mut t = match s.op {
            SimdOp::Add => va + vb,
            SimdOp::Sub => va - vb,
            SimdOp::Avrg if va + vb >= 0 => (va + vb + 1) >> 1,
            SimdOp::Avrg => (va + vb) >> 1,
            SimdOp::AbsDiff => (va - vb).abs(),
            SimdOp::Min => va.min(vb),
            SimdOp::Max => va.max(vb),
            SimdOp::Set(cmp) => compare(cmp, va, vb) as i64,
        };
        if s.sat {
            t = (t as i128).clamp(lo, hi) as i64;
        }
        let selected = s.mask >> i & 1 != 0;
        let sh = w * i as u32;
        if s.add {
            if selected {
                d = d.wrapping_add(t as u32);
            }
        } else {
            let v = if selected { t as u64 } else { (c as u64) >> sh };
            d |= ((v & lane_mask) << sh) as u32;
        }
    }
    d
}

#[cfg(test)]
#[path = "video_tests.rs"]
mod tests;
