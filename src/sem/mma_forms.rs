//! The `mma.sync.aligned` forms beyond f16/bf16/tf32 (PTX ISA §9.7.14.5,
//! the per-shape "Matrix Fragments for mma.mMnNkK" figures): integer
//! (`.s8`/`.u8` in `.m8n8k16`, `.m16n8k16`, `.m16n8k32`; `.s4`/`.u4` in
//! `.m8n8k32`, `.m16n8k32`, `.m16n8k64`; signedness of A and B chosen
//! independently), single-bit (`.b1` in `.m8n8k128`, `.m16n8k128`,
//! `.m16n8k256` with `.xor.popc` or `.and.popc`), f64 (`.m8n8k4`,
//! `.m16n8k4`, `.m16n8k8`, `.m16n8k16`) and fp8 (`.e4m3`/`.e5m2` in
//! `.m16n8k16` and `.m16n8k32`, f32 or f16 accumulators). All are
//! `.row.col`.
//!
//! Layouts (`g = lane / 4`, `t = lane % 4`; a register holds `p` elements
//! of `w` bits, element `i` in bits `w·i..w·i+w`): one rule gives every one
//! of the ISA's figures for these shapes —
//! - A (m×k): register `r` holds row `g + 8·(r % 2)` (m8: row `g`),
//!   columns `p·t + i + 4p·(r / 2)`;
//! - B (k×n): register `r` holds column `g`, rows `p·t + i + 4p·r`;
//! - C/D (m×n, 32- or 64-bit elements): register `r` holds row
//!   `g + 8·(r / 2)`, column `2t + r % 2`; f16 accumulators: register `r`
//!   holds row `g + 8r`, columns `2t` (low half) and `2t + 1`.
//!
//! Numerics: integers are exact (summed in i64, C added) and wrap to s32,
//! or clamp to the s32 range with `.satfinite`; `.b1` adds to C the number
//! of set bits of `a XOR b` (`a AND b`) over k. f64 is an fma chain in `k`
//! order starting from C, each step rounded in the form's mode (`.rn`, the
//! default, or `.rz .rm .rp`; the same as `wmma`'s f64). fp8 follows the f16
//! convention of [`super::tensor`]: every product is exact in f64, the
//! products are summed in f64 in `k` order (exact for fp8: every sum of 32
//! products fits in 53 bits), C is added and the sum is rounded once to the
//! destination type.

use super::tensor::{Fragment, MmaKind, MmaType};
use super::wmma::BitOp;
use half::f16;

/// Width in bits of one element of `ty` in its register.
pub fn elem_bits(ty: MmaType) -> u32 {
    use MmaType::*;
    match ty {
        F16 | Bf16 => 16,
        Tf32 | F32 | S32 => 32,
        F64 => 64,
        S8 | U8 | E4m3 | E5m2 => 8,
        S4 | U4 => 4,
        B1 => 1,
    }
}

/// Elements per register.
fn per_reg(ty: MmaType) -> usize {
    (32 / elem_bits(ty).min(32)) as usize
}

/// The family of a multiplicand pair.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Int8,
    Int4,
    Bits,
    F64,
    Fp8,
}

fn family(kind: &MmaKind) -> Option<Family> {
    use MmaType::*;
    Some(match (kind.atype, kind.btype) {
        (S8 | U8, S8 | U8) => Family::Int8,
        (S4 | U4, S4 | U4) => Family::Int4,
        (B1, B1) => Family::Bits,
        (F64, F64) => Family::F64,
        (E4m3 | E5m2, E4m3 | E5m2) => Family::Fp8,
        _ => return None,
    })
}

/// Registers per lane of A, B, C and D for the forms this module executes,
/// or `None` for any other combination.
pub fn regs(kind: &MmaKind) -> Option<[usize; 4]> {
    use MmaType::*;
    let fam = family(kind)?;
    if !(kind.a_row && kind.b_col) {
        return None;
    }
    let (m, n, k) = (kind.shape.m, kind.shape.n, kind.shape.k);
    let ks: &[u16] = match (fam, m) {
        (Family::Int8, 8) => &[16],
        (Family::Int8, 16) => &[16, 32],
        (Family::Int4, 8) => &[32],
        (Family::Int4, 16) => &[32, 64],
        (Family::Bits, 8) => &[128],
        (Family::Bits, 16) => &[128, 256],
        (Family::F64, 8) => &[4],
        (Family::F64, 16) => &[4, 8, 16],
        (Family::Fp8, 16) => &[16, 32],
        _ => &[],
    };
    if n != 8 || !ks.contains(&k) {
        return None;
    }
    let acc_ok = |t: MmaType| match fam {
        Family::Int8 | Family::Int4 | Family::Bits => t == S32,
        Family::F64 => t == F64,
        Family::Fp8 => matches!(t, F32 | F16),
    };
    let ints = matches!(fam, Family::Int8 | Family::Int4);
    if !acc_ok(kind.ctype)
        || !acc_ok(kind.dtype)
        || (kind.satfinite && !ints)
        || kind.bit_op.is_some() != (fam == Family::Bits)
    {
        return None;
    }
    let (m, k) = (m as usize, k as usize);
    let acc = |t: MmaType| if t == F16 { m * 8 / 64 } else { m * 8 / 32 };
    Some([
        m * k / 32 / per_reg(kind.atype),
        k * 8 / 32 / per_reg(kind.btype),
        acc(kind.ctype),
        acc(kind.dtype),
    ])
}

/// Which operand a fragment belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    A,
    B,
    /// C or D.
    Acc,
}

/// The (row, column) of element `e` of register `reg` of lane `lane` in a
/// fragment of `ty` elements (the module doc's rule; `m` is 8 or 16).
pub fn place(
    op: Operand,
    ty: MmaType,
    m: u16,
    reg: usize,
    lane: usize,
    e: usize,
) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    let p = per_reg(ty);
    match op {
        Operand::A => {
            let (row, blk) = if m == 8 {
                (g, reg)
            } else {
                (g + 8 * (reg % 2), reg / 2)
            };
            (row, p * t + e + 4 * p * blk)
        }
        Operand::B => (p * t + e + 4 * p * reg, g),
        Operand::Acc if ty == MmaType::F16 => (g + 8 * reg, 2 * t + e),
        Operand::Acc => (g + 8 * (reg / 2), 2 * t + reg % 2),
    }
}

/// The raw bits of every element of an operand (`[row][col]`).
fn decode(
    op: Operand,
    ty: MmaType,
    m: u16,
    frag: &Fragment,
    rows: usize,
    cols: usize,
) -> Vec<Vec<u64>> {
    let mut out = vec![vec![0u64; cols]; rows];
    let w = elem_bits(ty);
    let p = if op == Operand::Acc && ty != MmaType::F16 {
        1
    } else {
        per_reg(ty)
    };
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    for (reg, lanes) in frag.iter().enumerate() {
        for (lane, &v) in lanes.iter().enumerate() {
            for e in 0..p {
                let (r, c) = place(op, ty, m, reg, lane, e);
                out[r][c] = (v >> (w * e as u32)) & mask;
            }
        }
    }
    out
}

/// An 8-bit float's value: e4m3 (bias 7, no infinities, S.1111.111 is NaN)
/// or e5m2 (bias 15, IEEE-style infinities and NaNs).
pub fn fp8_value(ty: MmaType, bits: u8) -> f64 {
    let sign = if bits & 0x80 != 0 { -1.0 } else { 1.0 };
    let (exp, man, mbits, bias) = if ty == MmaType::E4m3 {
        ((bits >> 3) & 0xF, bits & 7, 3, 7)
    } else {
        ((bits >> 2) & 0x1F, bits & 3, 2, 15)
    };
    let scale = (1u32 << mbits) as f64;
    if ty == MmaType::E4m3 && exp == 0xF && man == 7 {
        return f64::NAN;
    }
    if ty == MmaType::E5m2 && exp == 0x1F {
        return if man == 0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    let v = if exp == 0 {
        man as f64 / scale * 2f64.powi(1 - bias)
    } else {
        (1.0 + man as f64 / scale) * 2f64.powi(exp as i32 - bias)
    };
    sign * v
}

fn int_value(ty: MmaType, bits: u64) -> i64 {
    match ty {
        MmaType::S8 => bits as u8 as i8 as i64,
        MmaType::S4 => ((bits as u8) << 4) as i8 as i64 >> 4,
        MmaType::S32 => bits as u32 as i32 as i64,
        _ => bits as i64,
    }
}

fn float_value(ty: MmaType, bits: u64) -> f64 {
    match ty {
        MmaType::F16 => f16::from_bits(bits as u16).to_f64(),
        MmaType::F32 => f32::from_bits(bits as u32) as f64,
        MmaType::E4m3 | MmaType::E5m2 => fp8_value(ty, bits as u8),
        _ => f64::from_bits(bits),
    }
}

/// One element of D from row `i` of A, column `j` of B and C's element
/// (raw bits), by the module doc's numerics.
pub fn dot(kind: &MmaKind, a: &[u64], b: impl Fn(usize) -> u64, c: u64) -> u64 {
    let k = a.len();
    match family(kind) {
        Some(Family::F64) => {
            if kind.rounding != crate::ir::ops::Rounding::Rn {
                let mut acc = c;
                for (kk, &x) in a.iter().enumerate() {
                    acc = super::float::fma_f64(x, b(kk), acc, kind.rounding);
                }
                return acc;
            }
            let mut acc = f64::from_bits(c);
            for (kk, &x) in a.iter().enumerate() {
                acc = f64::from_bits(x).mul_add(f64::from_bits(b(kk)), acc);
            }
            acc.to_bits()
        }
        Some(Family::Fp8) => {
            let mut sum = 0f64;
            for (kk, &x) in a.iter().enumerate() {
                sum += float_value(kind.atype, x) * float_value(kind.btype, b(kk));
            }
            let v = sum + float_value(kind.ctype, c);
            if kind.dtype == MmaType::F16 {
                f16::from_f64(v).to_bits() as u64
            } else {
                (v as f32).to_bits() as u64
            }
        }
        Some(Family::Bits) => {
            let mut sum = int_value(MmaType::S32, c);
            for (kk, &x) in a.iter().enumerate() {
                sum += match kind.bit_op {
                    Some(BitOp::And) => x & b(kk),
                    _ => x ^ b(kk),
                } as i64;
            }
            sum as i32 as u32 as u64
        }
        _ => {
            let mut sum = int_value(MmaType::S32, c);
            for (kk, &x) in a.iter().enumerate().take(k) {
                sum += int_value(kind.atype, x) * int_value(kind.btype, b(kk));
            }
            saturate(sum, kind.satfinite) as u32 as u64
        }
    }
}

/// An exact integer sum as s32: wrapped, or clamped with `.satfinite`.
pub fn saturate(sum: i64, satfinite: bool) -> i32 {
    if satfinite {
        sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32
    } else {
        sum as i32
    }
}

/// Executes one of this module's `mma.sync` forms for a whole warp (A, B
/// and C with as many registers as [`regs`] gives); returns D's registers
/// (the first `regs(kind)[3]` rows are meaningful).
pub fn mma(kind: &MmaKind, a: &Fragment, b: &Fragment, c: &Fragment) -> [[u64; 32]; 4] {
    let mut d = [[0u64; 32]; 4];
    let Some([_, _, _, nd]) = regs(kind) else {
        return d;
    };
    let (m, k) = (kind.shape.m, kind.shape.k as usize);
    let rows = m as usize;
    let am = decode(Operand::A, kind.atype, m, a, rows, k);
    let bm = decode(Operand::B, kind.btype, m, b, k, 8);
    let cm = decode(Operand::Acc, kind.ctype, m, c, rows, 8);
    let w = elem_bits(kind.dtype);
    let p = if kind.dtype == MmaType::F16 { 2 } else { 1 };
    for (reg, lanes) in d.iter_mut().enumerate().take(nd) {
        for (lane, out) in lanes.iter_mut().enumerate() {
            for e in 0..p {
                let (i, j) = place(Operand::Acc, kind.dtype, m, reg, lane, e);
                let v = dot(kind, &am[i], |kk| bm[kk][j], cm[i][j]);
                *out |= v << (w * e as u32);
            }
        }
    }
    d
}

#[cfg(test)]
#[path = "mma_forms_tests.rs"]
mod tests;
