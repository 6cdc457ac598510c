//! Warp-collective matrix operations (PTX ISA §9.7.14 "Warp Level Matrix
//! Multiply-Accumulate Instructions"): `mma.sync`, `ldmatrix`, `stmatrix`.
//! Each function takes the whole warp's register fragments (32 lanes) and
//! returns the whole warp's results, using the fragment layouts the ISA
//! specifies ("Matrix Fragments for mma.m16n8k16 / m16n8k8 with floating
//! point type", "Matrix fragments for ldmatrix").
//!
//! Layout vocabulary: `g = lane / 4` (groupID) and `t = lane % 4`
//! (threadID_in_group).
//!
//! Numerics of `mma`: every product of f16/bf16/tf32 inputs is exact in f64;
//! products are summed in f64 in `k` order, the accumulator C is added, and
//! the sum is rounded once to the destination type. NVIDIA's tensor cores
//! are not IEEE fma chains and their internal rounding is undocumented; this
//! exact-then-round model agrees with them bit for bit whenever the exact sum
//! is representable, and otherwise within an ulp of the destination (the
//! corpus's Triton matmuls, validated on an H100, are bit-exact). tf32 inputs
//! keep only their top 19 bits (sign, 8 exponent bits, 10 mantissa bits), as
//! the hardware reads them.

use half::f16;

/// Element type of a matrix operand or accumulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaType {
    F16,
    Bf16,
    Tf32,
    F32,
    F64,
    S8,
    U8,
    S4,
    U4,
    E4m3,
    E5m2,
}

/// An `mma` shape `.mMnNkK`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MmaShape {
    pub m: u16,
    pub n: u16,
    pub k: u16,
}

/// The types of one `mma.sync.aligned.shape.row.col{.satfinite}.dtype.atype.btype.ctype`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MmaKind {
    pub shape: MmaShape,
    pub dtype: MmaType,
    pub atype: MmaType,
    pub btype: MmaType,
    pub ctype: MmaType,
    /// `.row.col` is the only layout of the m16n8 shapes.
    pub a_row: bool,
    pub b_col: bool,
    pub satfinite: bool,
}

/// Number of registers per lane of the A, B, C and D fragments, or `None`
/// when this combination is not supported yet (it then fails at load time).
pub fn mma_fragment_regs(kind: &MmaKind) -> Option<[usize; 4]> {
    use MmaType::*;
    if !(kind.a_row && kind.b_col) || kind.shape.m != 16 || kind.shape.n != 8 {
        return None;
    }
    let acc = match (kind.ctype, kind.dtype) {
        (F32, F32) => 4,
        (F16, F16) => 2,
        _ => return None,
    };
    match (kind.atype, kind.btype, kind.shape.k) {
        (F16, F16, 16) | (Bf16, Bf16, 16) => Some([4, 2, acc, acc]),
        (F16, F16, 8) | (Bf16, Bf16, 8) => Some([2, 1, acc, acc]),
        (Tf32, Tf32, 8) if acc == 4 => Some([4, 2, 4, 4]),
        (Tf32, Tf32, 4) if acc == 4 => Some([2, 1, 4, 4]),
        _ => None,
    }
}

/// The value of element `half` (0: low 16 bits) of a packed register.
fn half_of(ty: MmaType, reg: u64, half: usize) -> f64 {
    let bits = (reg >> (16 * half)) as u16;
    match ty {
        MmaType::F16 => f16::from_bits(bits).to_f64(),
        // A bf16 is the upper half of an f32, and widening is exact: what
        // `bf16::to_f64` gives, for every value (a test checks them all).
        _ => f32::from_bits((bits as u32) << 16) as f64,
    }
}

fn tf32(reg: u64) -> f64 {
    f32::from_bits((reg as u32) & 0xFFFF_E000) as f64
}

/// A operand element (row, col) read from the warp's fragments.
fn a_elem(kind: &MmaKind, a: &[[u64; 8]; 32], row: usize, col: usize) -> f64 {
    let (g, r8) = (row % 8, row / 8);
    if kind.atype == MmaType::Tf32 {
        let (t, c4) = (col % 4, col / 4);
        let reg = r8 + 2 * c4;
        return tf32(a[g * 4 + t][reg]);
    }
    let (t, h, c8) = ((col % 8) / 2, col % 2, col / 8);
    let reg = r8 + 2 * c8;
    half_of(kind.atype, a[g * 4 + t][reg], h)
}

/// B operand element (k, n).
fn b_elem(kind: &MmaKind, b: &[[u64; 8]; 32], k: usize, n: usize) -> f64 {
    if kind.btype == MmaType::Tf32 {
        let (t, k4) = (k % 4, k / 4);
        return tf32(b[n * 4 + t][k4]);
    }
    let (t, h, k8) = ((k % 8) / 2, k % 2, k / 8);
    half_of(kind.btype, b[n * 4 + t][k8], h)
}

/// Where accumulator element (row, col) lives: (lane, register, half for f16 accumulators).
fn acc_slot(kind: &MmaKind, row: usize, col: usize) -> (usize, usize, usize) {
    let (g, r8, t, h) = (row % 8, row / 8, col / 2, col % 2);
    if kind.ctype == MmaType::F16 {
        (g * 4 + t, r8, h)
    } else {
        (g * 4 + t, 2 * r8 + h, 0)
    }
}

/// Executes `mma.sync` for a whole warp. Fragments are indexed `[lane][register]`;
/// each register value is its bit pattern (f16x2/bf16x2 packed, f32/tf32 bits).
pub fn mma_sync(
    kind: &MmaKind,
    a: &[[u64; 8]; 32],
    b: &[[u64; 8]; 32],
    c: &[[u64; 8]; 32],
) -> [[u64; 8]; 32] {
    let mut d = [[0u64; 8]; 32];
    if mma_fragment_regs(kind).is_none() {
        return d;
    }
    let (m, n, k) = (
        kind.shape.m as usize,
        kind.shape.n as usize,
        kind.shape.k as usize,
    );
    // The operands, decoded once from their fragments (at most m16 x k16
    // and k16 x n8).
    let mut a_rows = [[0f64; 16]; 16];
    for (row, a_row) in a_rows.iter_mut().enumerate().take(m) {
        for (kk, v) in a_row.iter_mut().enumerate().take(k) {
            *v = a_elem(kind, a, row, kk);
        }
    }
    // B by k: a row of A times it gives a row of D, its columns summed
    // side by side (each in k order, as one dot product at a time would).
    let mut b_rows = [[0f64; 8]; 16];
    for col in 0..n {
        for (kk, b_row) in b_rows.iter_mut().enumerate().take(k) {
            b_row[col] = b_elem(kind, b, kk, col);
        }
    }
    for (row, a_row) in a_rows.iter().enumerate().take(m) {
        let mut sums = [0f64; 8];
        for (x, b_row) in a_row[..k].iter().zip(&b_rows) {
            for (sum, y) in sums.iter_mut().zip(b_row) {
                *sum += x * y;
            }
        }
        for (col, sum) in sums.iter().enumerate().take(n) {
            let (lane, reg, h) = acc_slot(kind, row, col);
            let c_val = if kind.ctype == MmaType::F16 {
                half_of(MmaType::F16, c[lane][reg], h)
            } else {
                f32::from_bits(c[lane][reg] as u32) as f64
            };
            let v = sum + c_val;
            if kind.dtype == MmaType::F16 {
                let bits = f16::from_f64(v).to_bits() as u64;
                d[lane][reg] |= bits << (16 * h);
            } else {
                d[lane][reg] = (v as f32).to_bits() as u64;
            }
        }
    }
    d
}

/// `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16`: `rows[l]` holds
/// the 16 bytes read at the row address lane `l` supplied (lanes 0..8*num supply
/// addresses). Returns each lane's `num` destination registers: register `i`
/// of lane `l` holds elements (l/4, 2(l%4)) and (l/4, 2(l%4)+1) of matrix `i`
/// (of its transpose with `.trans`), the first in the low half.
pub fn ldmatrix(num: u8, trans: bool, rows: &[[u8; 16]; 32]) -> [[u32; 4]; 32] {
    let elem = |m: usize, r: usize, c: usize| -> u32 {
        let row = &rows[8 * m + r];
        u16::from_le_bytes([row[2 * c], row[2 * c + 1]]) as u32
    };
    let mut out = [[0u32; 4]; 32];
    for (lane, regs) in out.iter_mut().enumerate() {
        let (r, c) = (lane / 4, 2 * (lane % 4));
        for (m, reg) in regs.iter_mut().enumerate().take(num.min(4) as usize) {
            let (lo, hi) = if trans {
                (elem(m, c, r), elem(m, c + 1, r))
            } else {
                (elem(m, r, c), elem(m, r, c + 1))
            };
            *reg = lo | (hi << 16);
        }
    }
    out
}

/// `stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16`: from each lane's
/// `num` source registers (laid out as `ldmatrix` delivers them), the 16 bytes
/// to store at the row address lane `l` supplied (for lanes 0..8*num).
pub fn stmatrix(num: u8, trans: bool, regs: &[[u32; 4]; 32]) -> [[u8; 16]; 32] {
    let mut rows = [[0u8; 16]; 32];
    for (lane, lane_regs) in regs.iter().enumerate() {
        let (r, c) = (lane / 4, 2 * (lane % 4));
        for (m, &reg) in lane_regs.iter().enumerate().take(num.min(4) as usize) {
            for (h, col) in [c, c + 1].into_iter().enumerate() {
                let v = (reg >> (16 * h)) as u16;
                let (row, cc) = if trans { (col, r) } else { (r, col) };
                rows[8 * m + row][2 * cc..2 * cc + 2].copy_from_slice(&v.to_le_bytes());
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_operands_widen_as_the_half_crate_does() {
        for h in 0..=u16::MAX {
            let fast = half_of(MmaType::Bf16, h as u64, 0).to_bits();
            assert_eq!(
                fast,
                half::bf16::from_bits(h).to_f64().to_bits(),
                "{h:#06x}"
            );
        }
    }

    fn rows_of(f: impl Fn(usize, usize, usize) -> u16) -> [[u8; 16]; 32] {
        let mut rows = [[0u8; 16]; 32];
        for (l, row) in rows.iter_mut().enumerate() {
            for c in 0..8 {
                row[2 * c..2 * c + 2].copy_from_slice(&f(l / 8, l % 8, c).to_le_bytes());
            }
        }
        rows
    }

    #[test]
    fn ldmatrix_distributes_rows_by_group_and_thread() {
        // Element (m, r, c) = m*100 + r*10 + c.
        let rows = rows_of(|m, r, c| (m * 100 + r * 10 + c) as u16);
        let out = ldmatrix(4, false, &rows);
        // Lane 13: row 3, cols 2 and 3.
        assert_eq!(out[13][0], 32 | (33 << 16));
        assert_eq!(out[13][2], 232 | (233 << 16));
        let t = ldmatrix(1, true, &rows);
        // Transposed: lane 13 gets elements (2,3) and (3,3).
        assert_eq!(t[13][0], 23 | (33 << 16));
        // Only x1's register is written.
        assert_eq!(t[13][1], 0);
    }

    #[test]
    fn stmatrix_inverts_ldmatrix() {
        let rows = rows_of(|m, r, c| (m * 1000 + r * 37 + c * 5 + 1) as u16);
        for trans in [false, true] {
            let regs = ldmatrix(4, trans, &rows);
            assert_eq!(stmatrix(4, trans, &regs), rows);
        }
    }

    fn f16x2(lo: f32, hi: f32) -> u64 {
        (f16::from_f32(lo).to_bits() as u64) | ((f16::from_f32(hi).to_bits() as u64) << 16)
    }

    #[test]
    fn mma_m16n8k16_f16_matches_a_reference_product() {
        let kind = MmaKind {
            shape: MmaShape { m: 16, n: 8, k: 16 },
            dtype: MmaType::F32,
            atype: MmaType::F16,
            btype: MmaType::F16,
            ctype: MmaType::F32,
            a_row: true,
            b_col: true,
            satfinite: false,
        };
        let av = |r: usize, c: usize| ((r * 3 + c) % 7) as f32 - 3.0;
        let bv = |k: usize, n: usize| ((k + 2 * n) % 5) as f32 * 0.5;
        let (mut a, mut b, mut c) = ([[0u64; 8]; 32], [[0u64; 8]; 32], [[0u64; 8]; 32]);
        for lane in 0..32 {
            let (g, t) = (lane / 4, lane % 4);
            a[lane][0] = f16x2(av(g, 2 * t), av(g, 2 * t + 1));
            a[lane][1] = f16x2(av(g + 8, 2 * t), av(g + 8, 2 * t + 1));
            a[lane][2] = f16x2(av(g, 2 * t + 8), av(g, 2 * t + 9));
            a[lane][3] = f16x2(av(g + 8, 2 * t + 8), av(g + 8, 2 * t + 9));
            b[lane][0] = f16x2(bv(2 * t, g), bv(2 * t + 1, g));
            b[lane][1] = f16x2(bv(2 * t + 8, g), bv(2 * t + 9, g));
            c[lane][..4].fill(1.0f32.to_bits() as u64);
        }
        let d = mma_sync(&kind, &a, &b, &c);
        for row in 0..16 {
            for col in 0..8 {
                let want: f32 = 1.0 + (0..16).map(|k| av(row, k) * bv(k, col)).sum::<f32>();
                let (g, t) = (row % 8, col / 2);
                let reg = 2 * (row / 8) + col % 2;
                assert_eq!(
                    f32::from_bits(d[g * 4 + t][reg] as u32),
                    want,
                    "({row},{col})"
                );
            }
        }
    }

    #[test]
    fn unsupported_kinds_are_rejected() {
        let mut kind = MmaKind {
            shape: MmaShape { m: 8, n: 8, k: 4 },
            dtype: MmaType::F64,
            atype: MmaType::F64,
            btype: MmaType::F64,
            ctype: MmaType::F64,
            a_row: true,
            b_col: true,
            satfinite: false,
        };
        assert_eq!(mma_fragment_regs(&kind), None);
        kind.shape = MmaShape { m: 16, n: 8, k: 8 };
        kind.atype = MmaType::Tf32;
        kind.btype = MmaType::Tf32;
        kind.ctype = MmaType::F32;
        kind.dtype = MmaType::F32;
        assert_eq!(mma_fragment_regs(&kind), Some([4, 2, 4, 4]));
    }
}
