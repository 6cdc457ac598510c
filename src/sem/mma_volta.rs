//! Volta's `mma.sync.aligned.m8n8k4.alayout.blayout.dtype.f16.f16.ctype`
//! (PTX ISA §9.7.14.5.1, "Matrix Fragments for mma.m8n8k4 with .f16
//! floating point type"): a warp computes four independent 8x8x4 products,
//! one per quad-pair. Quad-pair `q` is lanes `4q..4q+4` and `4q+16..4q+20`;
//! below, `lo = lane < 16` and `l = lane % 4`.
//!
//! Fragments (element `i` of a lane; f16 elements packed two to a register,
//! element `2r` in the low half of register `r`):
//! - A (8x4), two registers: `.row`: row `l` (`l + 4` for the upper lanes),
//!   column `i`; `.col`: row `i` (`i + 4` for the upper lanes), column `l`.
//! - B (4x8), two registers: `.row`: row `l`, column `i` (`i + 4` for the
//!   upper lanes); `.col`: row `i`, column `l` (`l + 4` for the upper lanes).
//! - C/D f16, four registers: row `l` (`l + 4`), column `i`.
//! - C/D f32, eight registers: row `X` (`X + 4` for the upper lanes) with
//!   `X = (lane & 1) + (i & 2)`, column `(i & 4) + (lane & 2) + (i & 1)`.
//!
//! Numerics as the other f16 forms ([`super::tensor`]): every product is
//! exact in f64, the four are summed in f64 in `k` order, C is added and the
//! sum is rounded once to the destination type. C and D are f16 and f16,
//! f32 and f32, or f16 and f32 (ptxas refuses an f16 D with an f32 C).

use super::tensor::{Fragment, MmaKind, MmaType};
use half::f16;

/// Whether `kind` is one of this module's forms.
fn is_volta(kind: &MmaKind) -> bool {
    let s = kind.shape;
    (s.m, s.n, s.k) == (8, 8, 4)
        && kind.atype == MmaType::F16
        && kind.btype == MmaType::F16
        && matches!(kind.ctype, MmaType::F16 | MmaType::F32)
        && matches!(kind.dtype, MmaType::F16 | MmaType::F32)
        // ptxas: ".dtype must be '.f32' when .ctype is '.f32'".
        && !(kind.ctype == MmaType::F32 && kind.dtype == MmaType::F16)
        && !kind.satfinite
        && kind.bit_op.is_none()
}

/// Registers per lane of A, B, C and D, or `None` for another form.
pub fn regs(kind: &MmaKind) -> Option<[usize; 4]> {
    let acc = |t: MmaType| if t == MmaType::F16 { 4 } else { 8 };
    is_volta(kind).then(|| [2, 2, acc(kind.ctype), acc(kind.dtype)])
}

/// The quad-pair of a lane.
pub fn quad_pair(lane: usize) -> usize {
    (lane % 16) / 4
}

/// The (row, column) of A's element `i` (0..4) in `lane`.
pub fn place_a(row_major: bool, lane: usize, i: usize) -> (usize, usize) {
    let (l, up) = (lane % 4, if lane < 16 { 0 } else { 4 });
    if row_major {
        (l + up, i)
    } else {
        (i + up, l)
    }
}

/// The (row, column) of B's element `i` (0..4) in `lane`.
pub fn place_b(row_major: bool, lane: usize, i: usize) -> (usize, usize) {
    let (l, up) = (lane % 4, if lane < 16 { 0 } else { 4 });
    if row_major {
        (l, i + up)
    } else {
        (i, l + up)
    }
}

/// The (row, column) of an accumulator's element `i` (0..8) in `lane`.
pub fn place_acc(ty: MmaType, lane: usize, i: usize) -> (usize, usize) {
    let up = if lane < 16 { 0 } else { 4 };
    if ty == MmaType::F16 {
        (lane % 4 + up, i)
    } else {
        ((lane & 1) + (i & 2) + up, (i & 4) + (lane & 2) + (i & 1))
    }
}

fn f16_at(frag: &Fragment, lane: usize, i: usize) -> f64 {
    f16::from_bits((frag[i / 2][lane] >> (16 * (i % 2))) as u16).to_f64()
}

fn acc_at(ty: MmaType, frag: &Fragment, lane: usize, i: usize) -> f64 {
    if ty == MmaType::F16 {
        f16_at(frag, lane, i)
    } else {
        f32::from_bits(frag[i][lane] as u32) as f64
    }
}

/// Executes the form for a whole warp; returns D's registers (the first
/// `regs(kind)[3]` are meaningful).
// Lanes index every fragment (register-major), not one slice.
#[allow(clippy::needless_range_loop)]
pub fn mma(kind: &MmaKind, a: &Fragment, b: &Fragment, c: &Fragment) -> [[u64; 32]; 8] {
    let mut d = [[0u64; 32]; 8];
    if !is_volta(kind) {
        return d;
    }
    // Each quad-pair's matrices, decoded from its eight lanes.
    let mut am = [[[0f64; 4]; 8]; 4];
    let mut bm = [[[0f64; 8]; 4]; 4];
    let mut cm = [[[0f64; 8]; 8]; 4];
    for lane in 0..32 {
        let q = quad_pair(lane);
        for i in 0..4 {
            let (r, col) = place_a(kind.a_row, lane, i);
            am[q][r][col] = f16_at(a, lane, i);
            let (r, col) = place_b(!kind.b_col, lane, i);
            bm[q][r][col] = f16_at(b, lane, i);
        }
        for i in 0..8 {
            let (r, col) = place_acc(kind.ctype, lane, i);
            cm[q][r][col] = acc_at(kind.ctype, c, lane, i);
        }
    }
    for lane in 0..32 {
        let q = quad_pair(lane);
        for i in 0..8 {
            let (r, col) = place_acc(kind.dtype, lane, i);
            let mut sum = 0f64;
            for (kk, x) in am[q][r].iter().enumerate() {
                sum += x * bm[q][kk][col];
            }
            let v = sum + cm[q][r][col];
            let (reg, bits) = if kind.dtype == MmaType::F16 {
                let h = f16::from_f64(v).to_bits() as u64;
                (i / 2, h << (16 * (i % 2)))
            } else {
                (i, (v as f32).to_bits() as u64)
            };
            d[reg][lane] |= bits;
        }
    }
    d
}
