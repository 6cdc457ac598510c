//! The legacy warp-level matrix instructions `wmma.load`, `wmma.store` and
//! `wmma.mma` (PTX ISA §9.7.14.4).
//!
//! The ISA leaves the WMMA fragment layout (which lane holds which element)
//! unspecified and fixes only the number of registers per fragment. warpjit
//! uses the layout ptxas gives sm_80 (read off the SASS of `wmma.load`
//! kernels: the addresses each `LDG` reads, see docs/ptx-coverage.md): a
//! WMMA fragment is made of `mma` fragments (§9.7.14.5).
//!
//! - `.m16n16k16` (f16, bf16, s8, u8) and `.m16n16k8` (tf32): A is one
//!   `mma.m16n8k16` (tf32: `m16n8k8`) A fragment; B is two B fragments, the
//!   first for columns 0..8, the second for 8..16; C/D two accumulator
//!   fragments side by side in the same way.
//! - `.m32n8k16`: A is two A fragments (rows 0..16, then 16..32); B one B
//!   fragment; C/D two accumulator fragments (rows 0..16, then 16..32).
//! - `.m8n32k16` is computed transposed, `Dᵀ = Bᵀ Aᵀ` as an `m32n8k16`: A's
//!   fragment is the `m32n8k16` B fragment of `Aᵀ`, B's the `m32n8k16` A
//!   fragment of `Bᵀ`, C/D the `m32n8k16` accumulator fragment of `Cᵀ`.
//! - `.m8n8k4` (f64), `.m8n8k32` (s4/u4), `.m8n8k128` (b1): the `mma.m8n8kK`
//!   fragments: A holds row `g`, columns `w*t..w*t+w` (w elements per
//!   register), B the same of Bᵀ, C/D row `g`, columns `2t` and `2t+1`.
//!
//! (`g = lane / 4`, `t = lane % 4`.) f16 multiplicands always take eight
//! registers (the Volta layout's count, which the ISA keeps): the unique
//! registers repeat (register `i` equals register `i % unique`), as sm_80's
//! loads fill them. Elements pack into a register from the low bits.
//!
//! Numerics: f16/bf16/tf32 products are exact in f64, summed in `k` order,
//! the accumulator added and the sum rounded once, as `mma.sync` in
//! [`crate::sem::tensor`] (so a WMMA equals the `mma`s it is made of); f64 is
//! an fma chain in `k` order starting from C, rounded to nearest at each
//! step; integers are exact, wrapping to s32 (or saturating with
//! `.satfinite`); b1 counts the set bits of `a XOR b` (or `a AND b`).

use super::tensor::MmaShape;
use half::f16;

/// Element type of a WMMA matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WmmaType {
    F16,
    Bf16,
    Tf32,
    F32,
    F64,
    S8,
    U8,
    S4,
    U4,
    B1,
    S32,
}

impl WmmaType {
    /// Width of one element in memory and in its register.
    pub fn bits(self) -> u32 {
        use WmmaType::*;
        match self {
            F16 | Bf16 => 16,
            Tf32 | F32 | S32 => 32,
            F64 => 64,
            S8 | U8 => 8,
            S4 | U4 => 4,
            B1 => 1,
        }
    }

    /// Elements per register.
    fn per_reg(self) -> usize {
        (32 / self.bits().min(32)) as usize
    }
}

/// Which operand a fragment is: a multiplicand or an accumulator (C or D).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WmmaMatrix {
    A,
    B,
    C,
}

/// One WMMA fragment: the matrix it belongs to, the shape and element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WmmaFrag {
    pub shape: MmaShape,
    pub matrix: WmmaMatrix,
    pub ty: WmmaType,
}

fn shape(m: u16, n: u16, k: u16) -> MmaShape {
    MmaShape { m, n, k }
}

impl WmmaFrag {
    /// Rows and columns of the matrix (A: m×k, B: k×n, C/D: m×n).
    pub fn dims(&self) -> (usize, usize) {
        let MmaShape { m, n, k } = self.shape;
        let (r, c) = match self.matrix {
            WmmaMatrix::A => (m, k),
            WmmaMatrix::B => (k, n),
            WmmaMatrix::C => (m, n),
        };
        (r as usize, c as usize)
    }

    /// Registers the ISA gives this fragment ("Matrix Fragments for WMMA"),
    /// or `None` where the ISA has no such shape/type/matrix combination.
    pub fn regs(&self) -> Option<usize> {
        use WmmaType::*;
        let MmaShape { m, n, k } = self.shape;
        let ok = match (m, n, k) {
            (16, 16, 16) | (32, 8, 16) | (8, 32, 16) => match self.matrix {
                WmmaMatrix::C => matches!(self.ty, F16 | F32 | S32),
                _ => matches!(self.ty, F16 | Bf16 | S8 | U8),
            },
            (16, 16, 8) => match self.matrix {
                WmmaMatrix::C => self.ty == F32,
                _ => self.ty == Tf32,
            },
            (8, 8, 4) => self.ty == F64,
            (8, 8, 32) => match self.matrix {
                WmmaMatrix::C => self.ty == S32,
                _ => matches!(self.ty, S4 | U4),
            },
            (8, 8, 128) => match self.matrix {
                WmmaMatrix::C => self.ty == S32,
                _ => self.ty == B1,
            },
            _ => false,
        };
        if !ok {
            return None;
        }
        if self.ty == F16 && self.matrix != WmmaMatrix::C {
            return Some(8);
        }
        Some(self.unique())
    }

    /// Registers holding distinct elements (each element exactly once).
    pub fn unique(&self) -> usize {
        let (r, c) = self.dims();
        r * c / 32 / self.ty.per_reg()
    }

    /// Elements per register.
    pub fn per_reg(&self) -> usize {
        self.ty.per_reg()
    }

    /// The (row, column) of element `e` of register `reg` of lane `lane`.
    /// Only meaningful for a fragment `regs` accepts.
    pub fn element(&self, reg: usize, lane: usize, e: usize) -> (usize, usize) {
        let reg = reg % self.unique();
        let (g, t) = (lane / 4, lane % 4);
        let MmaShape { m, n, k } = self.shape;
        if (m, n) == (8, 32) {
            let matrix = match self.matrix {
                WmmaMatrix::A => WmmaMatrix::B,
                WmmaMatrix::B => WmmaMatrix::A,
                WmmaMatrix::C => WmmaMatrix::C,
            };
            let t = WmmaFrag {
                shape: shape(32, 8, k),
                matrix,
                ty: self.ty,
            };
            let (r, c) = t.element(reg, lane, e);
            return (c, r);
        }
        let w = self.per_reg();
        if m == 8 {
            return match self.matrix {
                WmmaMatrix::A => (g, w * t + e),
                WmmaMatrix::B => (w * t + e, g),
                WmmaMatrix::C => (g, 2 * t + reg),
            };
        }
        // Tiles of the m16n8kK `mma` fragments.
        let bits = self.ty.bits();
        match self.matrix {
            WmmaMatrix::A => {
                let tile_regs = 16 * k as usize / 32 / w;
                let (tile, r) = (reg / tile_regs, reg % tile_regs);
                let (row, col) = match bits {
                    16 => (g + 8 * (r % 2), 2 * t + e + 8 * (r / 2)),
                    32 => (g + 8 * (r % 2), t + 4 * (r / 2)),
                    _ => (g + 8 * r, 4 * t + e),
                };
                (16 * tile + row, col)
            }
            WmmaMatrix::B => {
                let tile_regs = 8 * k as usize / 32 / w;
                let (tile, r) = (reg / tile_regs, reg % tile_regs);
                let row = match bits {
                    16 => 2 * t + e + 8 * r,
                    32 => t + 4 * r,
                    _ => 4 * t + e,
                };
                (row, 8 * tile + g)
            }
            WmmaMatrix::C => {
                let tile_regs = 128 / 32 / w;
                let (tile, r) = (reg / tile_regs, reg % tile_regs);
                let (row, col) = if bits == 16 {
                    (g + 8 * r, 2 * t + e)
                } else {
                    (g + 8 * (r / 2), 2 * t + r % 2)
                };
                if m == 32 {
                    (16 * tile + row, col)
                } else {
                    (row, 8 * tile + col)
                }
            }
        }
    }

    /// The index (in elements) of element (row, col) in memory with leading
    /// dimension `stride` (row-major: row·stride + col).
    pub fn index(row: usize, col: usize, row_major: bool, stride: u64) -> u64 {
        if row_major {
            row as u64 * stride + col as u64
        } else {
            col as u64 * stride + row as u64
        }
    }

    /// The stride the ISA assumes without the operand: the leading
    /// dimension, the row length for `.row` and the column length for `.col`.
    pub fn default_stride(&self, row_major: bool) -> u64 {
        let (r, c) = self.dims();
        if row_major {
            c as u64
        } else {
            r as u64
        }
    }
}

/// A fragment's registers, `fragment[register][lane]` (the register file's
/// layout).
pub type Fragment = [[u64; 32]];

/// The bit-level operation of a `.b1` multiply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitOp {
    Xor,
    And,
}

/// One `wmma.mma`: shape, the four types, `.satfinite` and (b1) the bit op.
/// The layouts do not matter here: a fragment's layout does not depend on
/// the memory layout it was loaded from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WmmaKind {
    pub shape: MmaShape,
    pub dtype: WmmaType,
    pub atype: WmmaType,
    pub btype: WmmaType,
    pub ctype: WmmaType,
    pub satfinite: bool,
    pub bit_op: Option<BitOp>,
    /// `.rn` (the default) `.rz .rm .rp`: the f64 form's rounding of each
    /// fma of its chain; the other forms take `.rn` only.
    pub rounding: crate::ir::ops::Rounding,
}

impl WmmaKind {
    pub fn frag(&self, matrix: WmmaMatrix) -> WmmaFrag {
        let ty = match matrix {
            WmmaMatrix::A => self.atype,
            WmmaMatrix::B => self.btype,
            WmmaMatrix::C => self.ctype,
        };
        WmmaFrag {
            shape: self.shape,
            matrix,
            ty,
        }
    }

    fn d_frag(&self) -> WmmaFrag {
        WmmaFrag {
            ty: self.dtype,
            ..self.frag(WmmaMatrix::C)
        }
    }

    /// Registers of A, B, C and D, or `None` for a combination the ISA
    /// does not list.
    pub fn regs(&self) -> Option<[usize; 4]> {
        use WmmaType::*;
        let floats = matches!(self.ctype, F16 | F32) && matches!(self.dtype, F16 | F32);
        let rounding_ok = self.rounding == crate::ir::ops::Rounding::Rn || self.atype == F64;
        let ok = rounding_ok
            && self.atype == self.btype
            && match self.atype {
                F16 => floats,
                Bf16 | Tf32 => self.ctype == F32 && self.dtype == F32,
                F64 => self.ctype == F64 && self.dtype == F64,
                S8 | U8 | S4 | U4 => self.ctype == S32 && self.dtype == S32,
                B1 => self.ctype == S32 && self.dtype == S32 && self.bit_op.is_some(),
                _ => false,
            }
            || matches!(
                (self.atype, self.btype),
                (S8, U8) | (U8, S8) | (S4, U4) | (U4, S4)
            ) && self.ctype == S32
                && self.dtype == S32;
        if !ok || (self.atype == B1) != self.bit_op.is_some() {
            return None;
        }
        Some([
            self.frag(WmmaMatrix::A).regs()?,
            self.frag(WmmaMatrix::B).regs()?,
            self.frag(WmmaMatrix::C).regs()?,
            self.d_frag().regs()?,
        ])
    }
}

/// The raw bits of every element of a fragment's matrix (`[row][col]`),
/// read from its distinct registers.
pub fn decode(frag: &WmmaFrag, regs: &Fragment) -> Vec<Vec<u64>> {
    let (rows, cols) = frag.dims();
    let mut out = vec![vec![0u64; cols]; rows];
    let bits = frag.ty.bits();
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    for (reg, lanes) in regs.iter().enumerate().take(frag.unique()) {
        for (lane, &v) in lanes.iter().enumerate() {
            for e in 0..frag.per_reg() {
                let (r, c) = frag.element(reg, lane, e);
                out[r][c] = (v >> (e as u32 * bits)) & mask;
            }
        }
    }
    out
}

/// The fragment registers (as many as `frag.regs()`) holding `matrix`'s
/// element bits.
pub fn encode(frag: &WmmaFrag, matrix: &[Vec<u64>]) -> Vec<[u64; 32]> {
    let regs = frag.regs().unwrap_or(0);
    let bits = frag.ty.bits();
    (0..regs)
        .map(|reg| {
            std::array::from_fn(|lane| {
                (0..frag.per_reg()).fold(0u64, |acc, e| {
                    let (r, c) = frag.element(reg, lane, e);
                    acc | (matrix[r][c] << (e as u32 * bits))
                })
            })
        })
        .collect()
}

/// A floating-point element's value (f16, bf16, tf32, f32, f64 bits).
fn float_of(ty: WmmaType, bits: u64) -> f64 {
    match ty {
        WmmaType::F16 => f16::from_bits(bits as u16).to_f64(),
        WmmaType::Bf16 => f32::from_bits((bits as u32) << 16) as f64,
        // The hardware reads a tf32 as the top 19 bits of its register.
        WmmaType::Tf32 => f32::from_bits((bits as u32) & 0xFFFF_E000) as f64,
        WmmaType::F32 => f32::from_bits(bits as u32) as f64,
        _ => f64::from_bits(bits),
    }
}

/// An integer element's value (sign-extended for the signed types).
fn int_of(ty: WmmaType, bits: u64) -> i64 {
    match ty {
        WmmaType::S8 => bits as u8 as i8 as i64,
        WmmaType::S4 => ((bits as u8) << 4) as i8 as i64 >> 4,
        WmmaType::S32 => bits as u32 as i32 as i64,
        _ => bits as i64,
    }
}

/// Rounds an exact-ish f64 result to the accumulator type, applying the
/// floating-point `.satfinite` (infinities clamp to the largest finite
/// value of their sign, NaN becomes +0).
fn round_float(ty: WmmaType, v: f64, satfinite: bool) -> u64 {
    if ty == WmmaType::F16 {
        let mut h = f16::from_f64(v);
        if satfinite {
            if h.is_nan() {
                h = f16::from_f32(0.0);
            } else if h.is_infinite() {
                h = if v > 0.0 { f16::MAX } else { f16::MIN };
            }
        }
        h.to_bits() as u64
    } else {
        let mut f = v as f32;
        if satfinite {
            if f.is_nan() {
                f = 0.0;
            } else if f.is_infinite() {
                f = if f > 0.0 { f32::MAX } else { f32::MIN };
            }
        }
        f.to_bits() as u64
    }
}

/// Executes `wmma.mma` for a whole warp: A, B, C fragments (as many
/// registers as [`WmmaKind::regs`] says) give D's registers.
pub fn wmma_mma(kind: &WmmaKind, a: &Fragment, b: &Fragment, c: &Fragment) -> Vec<[u64; 32]> {
    let d_frag = kind.d_frag();
    if kind.regs().is_none() {
        return Vec::new();
    }
    let am = decode(&kind.frag(WmmaMatrix::A), a);
    let bm = decode(&kind.frag(WmmaMatrix::B), b);
    let cm = decode(&kind.frag(WmmaMatrix::C), c);
    let (m, n, k) = (
        kind.shape.m as usize,
        kind.shape.n as usize,
        kind.shape.k as usize,
    );
    let mut d = vec![vec![0u64; n]; m];
    for (i, row) in d.iter_mut().enumerate() {
        for (j, out) in row.iter_mut().enumerate() {
            let cv = cm[i][j];
            *out = match kind.atype {
                WmmaType::F16 | WmmaType::Bf16 | WmmaType::Tf32 => {
                    let mut sum = 0f64;
                    for kk in 0..k {
                        sum += float_of(kind.atype, am[i][kk]) * float_of(kind.btype, bm[kk][j]);
                    }
                    let v = sum + float_of(kind.ctype, cv);
                    round_float(kind.dtype, v, kind.satfinite)
                }
                WmmaType::F64 if kind.rounding != crate::ir::ops::Rounding::Rn => {
                    let mut acc = cv;
                    for kk in 0..k {
                        acc = super::float::fma_f64(am[i][kk], bm[kk][j], acc, kind.rounding);
                    }
                    acc
                }
                WmmaType::F64 => {
                    let mut acc = f64::from_bits(cv);
                    for kk in 0..k {
                        acc = f64::from_bits(am[i][kk]).mul_add(f64::from_bits(bm[kk][j]), acc);
                    }
                    acc.to_bits()
                }
                WmmaType::B1 => {
                    let mut sum = int_of(WmmaType::S32, cv);
                    for kk in 0..k {
                        let (x, y) = (am[i][kk], bm[kk][j]);
                        sum += match kind.bit_op {
                            Some(BitOp::And) => x & y,
                            _ => x ^ y,
                        } as i64;
                    }
                    sum as i32 as u32 as u64
                }
                _ => {
                    let mut sum = int_of(WmmaType::S32, cv);
                    for kk in 0..k {
                        sum += int_of(kind.atype, am[i][kk]) * int_of(kind.btype, bm[kk][j]);
                    }
                    let v = if kind.satfinite {
                        sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32
                    } else {
                        sum as i32
                    };
                    v as u32 as u64
                }
            };
        }
    }
    encode(&d_frag, &d)
}

#[cfg(test)]
#[path = "wmma_tests.rs"]
mod tests;
