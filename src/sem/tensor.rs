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
    S32,
    B1,
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
    /// `.xor.popc` / `.and.popc` of the `.b1` forms.
    pub bit_op: Option<super::wmma::BitOp>,
    /// `.rn` (the default) `.rz .rm .rp`: the f64 forms' rounding of each
    /// fma of their chain; any other form takes `.rn` only.
    pub rounding: crate::ir::ops::Rounding,
}

/// Number of registers per lane of the A, B, C and D fragments, or `None`
/// when this combination is not supported yet (it then fails at load time).
pub fn mma_fragment_regs(kind: &MmaKind) -> Option<[usize; 4]> {
    use MmaType::*;
    if kind.rounding != crate::ir::ops::Rounding::Rn && kind.atype != F64 {
        return None;
    }
    if super::mma_forms::regs(kind).is_some() {
        return super::mma_forms::regs(kind);
    }
    if super::mma_volta::regs(kind).is_some() {
        return super::mma_volta::regs(kind);
    }
    if kind.satfinite || kind.bit_op.is_some() {
        return None;
    }
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

/// A fragment: one row of 32 lanes per register (the register file's
/// layout), `fragment[register][lane]`.
pub type Fragment = [[u64; 32]];

/// Decodes every element of one operand's fragment: `place(reg, lane,
/// slot)` gives the (row, column) of the element in slot `slot` of that
/// register (slot 1: the high half of a packed pair), which goes to
/// `out[row][column]`.
fn decode<const R: usize, const C: usize>(
    ty: MmaType,
    frag: &Fragment,
    out: &mut [[f64; C]; R],
    place: impl Fn(usize, usize, usize) -> (usize, usize),
) {
    for (reg, lanes) in frag.iter().enumerate() {
        for (lane, &bits) in lanes.iter().enumerate() {
            if ty == MmaType::Tf32 {
                let (r, c) = place(reg, lane, 0);
                out[r][c] = tf32(bits);
            } else {
                for slot in 0..2 {
                    let (r, c) = place(reg, lane, slot);
                    out[r][c] = half_of(ty, bits, slot);
                }
            }
        }
    }
}

/// Executes `mma.sync` for a whole warp. Fragments are register-major
/// (`Fragment`); each register value is its bit pattern (f16x2/bf16x2
/// packed, f32/tf32 bits). Returns D's registers, as many as the kind has
/// (at most 8: Volta's m8n8k4 with an f32 D).
pub fn mma_sync(kind: &MmaKind, a: &Fragment, b: &Fragment, c: &Fragment) -> [[u64; 32]; 8] {
    let mut d = [[0u64; 32]; 8];
    if super::mma_forms::regs(kind).is_some() {
        let four = super::mma_forms::mma(kind, a, b, c);
        d[..4].copy_from_slice(&four);
        return d;
    }
    if super::mma_volta::regs(kind).is_some() {
        return super::mma_volta::mma(kind, a, b, c);
    }
    if mma_fragment_regs(kind).is_none() {
        return d;
    }
    let (m, n, k) = (
        kind.shape.m as usize,
        kind.shape.n as usize,
        kind.shape.k as usize,
    );
    // The operands, decoded once from their fragments (at most m16 x k16
    // and k16 x n8). Lane = 4 * group + thread in group ("Matrix Fragments
    // for mma.m16n8k*"): A's register r holds rows `group + 8 * (r % 2)`;
    // packed types hold columns `2 * thread + 8 * (r / 2)` and the next,
    // tf32 column `thread + 4 * (r / 2)`. B's register r holds column
    // `group`, rows `2 * thread + 8 * r` and the next (tf32: row
    // `thread + 4 * r`).
    let mut a_rows = [[0f64; 16]; 16];
    let packed_a = kind.atype != MmaType::Tf32;
    decode(kind.atype, a, &mut a_rows, |reg, lane, slot| {
        let (g, t) = (lane / 4, lane % 4);
        let col = if packed_a {
            2 * t + 8 * (reg / 2) + slot
        } else {
            t + 4 * (reg / 2)
        };
        (g + 8 * (reg % 2), col)
    });
    // B by k: a row of A times it gives a row of D, its columns summed
    // side by side (each in k order, as one dot product at a time would).
    let mut b_rows = [[0f64; 8]; 16];
    let packed_b = kind.btype != MmaType::Tf32;
    decode(kind.btype, b, &mut b_rows, |reg, lane, slot| {
        let (g, t) = (lane / 4, lane % 4);
        let row = if packed_b {
            2 * t + 8 * reg + slot
        } else {
            t + 4 * reg
        };
        (row, g)
    });
    // Accumulator element (row, col) lives in lane `4 * (row % 8) + col / 2`;
    // f32: register `2 * (row / 8) + col % 2`; f16: register `row / 8`,
    // half `col % 2`.
    let f16_acc = kind.ctype == MmaType::F16;
    for (row, a_row) in a_rows.iter().enumerate().take(m) {
        let mut sums = [0f64; 8];
        for (x, b_row) in a_row[..k].iter().zip(&b_rows) {
            for (sum, y) in sums.iter_mut().zip(b_row) {
                *sum += x * y;
            }
        }
        let (g, r8) = (row % 8, row / 8);
        for (col, sum) in sums.iter().enumerate().take(n) {
            let (lane, h) = (g * 4 + col / 2, col % 2);
            let reg = if f16_acc { r8 } else { 2 * r8 + h };
            let c_val = if f16_acc {
                half_of(MmaType::F16, c[reg][lane], h)
            } else {
                f32::from_bits(c[reg][lane] as u32) as f64
            };
            let v = sum + c_val;
            if kind.dtype == MmaType::F16 {
                let bits = f16::from_f64(v).to_bits() as u64;
                d[reg][lane] |= bits << (16 * h);
            } else {
                d[reg][lane] = (v as f32).to_bits() as u64;
            }
        }
    }
    d
}

/// `movmatrix.sync.aligned.m8n8.trans.b16`: lane `l` holds elements
/// (l/4, 2(l%4)) (low half) and (l/4, 2(l%4)+1) of an 8x8 matrix, the
/// `ldmatrix` layout; returns each lane's register of the transpose in the
/// same layout: lane `l` gets elements (2(l%4), l/4) and (2(l%4)+1, l/4).
pub fn movmatrix_trans(a: &[u64; 32]) -> [u64; 32] {
    let elem = |r: usize, c: usize| (a[4 * r + c / 2] >> (16 * (c % 2))) & 0xFFFF;
    std::array::from_fn(|lane| {
        let (g, c) = (lane / 4, 2 * (lane % 4));
        elem(c, g) | (elem(c + 1, g) << 16)
    })
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
    fn movmatrix_transposes_the_ldmatrix_layout() {
        // Element (r, c) = 16 r + c, in lane 4r + c/2, half c % 2.
        let a: [u64; 32] = std::array::from_fn(|l| {
            let (r, c) = (l / 4, 2 * (l % 4));
            (16 * r + c) as u64 | (((16 * r + c + 1) as u64) << 16)
        });
        let d = movmatrix_trans(&a);
        // Lane 13: transposed row 3, columns 2 and 3: elements (2,3), (3,3).
        assert_eq!(d[13], 0x23 | (0x33 << 16));
        assert_eq!(d[0], 0x10 << 16);
        assert_eq!(movmatrix_trans(&d), a);
        // ldmatrix.trans of the same rows gives what movmatrix gives.
        let rows = rows_of(|_, r, c| (16 * r + c) as u16);
        let t = ldmatrix(1, true, &rows);
        assert_eq!(std::array::from_fn::<u64, 32, _>(|l| t[l][0] as u64), d);
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
            bit_op: None,
            rounding: crate::ir::ops::Rounding::Rn,
        };
        let av = |r: usize, c: usize| ((r * 3 + c) % 7) as f32 - 3.0;
        let bv = |k: usize, n: usize| ((k + 2 * n) % 5) as f32 * 0.5;
        let (mut a, mut b, mut c) = ([[0u64; 32]; 4], [[0u64; 32]; 2], [[0u64; 32]; 4]);
        for lane in 0..32 {
            let (g, t) = (lane / 4, lane % 4);
            a[0][lane] = f16x2(av(g, 2 * t), av(g, 2 * t + 1));
            a[1][lane] = f16x2(av(g + 8, 2 * t), av(g + 8, 2 * t + 1));
            a[2][lane] = f16x2(av(g, 2 * t + 8), av(g, 2 * t + 9));
            a[3][lane] = f16x2(av(g + 8, 2 * t + 8), av(g + 8, 2 * t + 9));
            b[0][lane] = f16x2(bv(2 * t, g), bv(2 * t + 1, g));
            b[1][lane] = f16x2(bv(2 * t + 8, g), bv(2 * t + 9, g));
            for reg in &mut c {
                reg[lane] = 1.0f32.to_bits() as u64;
            }
        }
        let d = mma_sync(&kind, &a, &b, &c);
        for row in 0..16 {
            for col in 0..8 {
                let want: f32 = 1.0 + (0..16).map(|k| av(row, k) * bv(k, col)).sum::<f32>();
                let (g, t) = (row % 8, col / 2);
                let reg = 2 * (row / 8) + col % 2;
                assert_eq!(
                    f32::from_bits(d[reg][g * 4 + t] as u32),
                    want,
                    "({row},{col})"
                );
            }
        }
    }

    /// Element (row, col) of A, B or the accumulator, read straight from
    /// the ISA's fragment tables (one element at a time, lane first).
    fn a_elem(kind: &MmaKind, a: &Fragment, row: usize, col: usize) -> f64 {
        let (g, r8) = (row % 8, row / 8);
        if kind.atype == MmaType::Tf32 {
            let (t, c4) = (col % 4, col / 4);
            return tf32(a[r8 + 2 * c4][g * 4 + t]);
        }
        let (t, h, c8) = ((col % 8) / 2, col % 2, col / 8);
        half_of(kind.atype, a[r8 + 2 * c8][g * 4 + t], h)
    }

    fn b_elem(kind: &MmaKind, b: &Fragment, k: usize, n: usize) -> f64 {
        if kind.btype == MmaType::Tf32 {
            let (t, k4) = (k % 4, k / 4);
            return tf32(b[k4][n * 4 + t]);
        }
        let (t, h, k8) = ((k % 8) / 2, k % 2, k / 8);
        half_of(kind.btype, b[k8][n * 4 + t], h)
    }

    /// (register, lane, half) of accumulator element (row, col).
    fn acc_slot(kind: &MmaKind, row: usize, col: usize) -> (usize, usize, usize) {
        let (g, r8, t, h) = (row % 8, row / 8, col / 2, col % 2);
        if kind.ctype == MmaType::F16 {
            (r8, g * 4 + t, h)
        } else {
            (2 * r8 + h, g * 4 + t, 0)
        }
    }

    /// Every supported kind, on random register bits (infinities and NaNs
    /// included): the fragment decoding by register equals the ISA's
    /// tables read element by element, bit for bit.
    #[test]
    fn mma_decodes_fragments_as_the_isa_tables_say() {
        use crate::testing::xorshift;
        let mut next = xorshift(0x0123_4567_89ab_cdef);
        let shapes = [(MmaType::F16, 16), (MmaType::F16, 8), (MmaType::Bf16, 16)];
        let shapes =
            shapes
                .into_iter()
                .chain([(MmaType::Bf16, 8), (MmaType::Tf32, 8), (MmaType::Tf32, 4)]);
        for (ab, k) in shapes {
            for acc in [MmaType::F32, MmaType::F16] {
                let kind = MmaKind {
                    shape: MmaShape { m: 16, n: 8, k },
                    dtype: acc,
                    atype: ab,
                    btype: ab,
                    ctype: acc,
                    a_row: true,
                    b_col: true,
                    satfinite: false,
                    bit_op: None,
                    rounding: crate::ir::ops::Rounding::Rn,
                };
                let Some([na, nb, nc, _]) = mma_fragment_regs(&kind) else {
                    continue;
                };
                for round in 0..20 {
                    // Mostly finite values, some raw bits.
                    let mut value = || {
                        let bits = next();
                        if round % 4 == 0 {
                            bits
                        } else {
                            bits & 0xBFFF_BFFF_BFFF_BFFF
                        }
                    };
                    let mut frag = |regs: usize| -> Vec<[u64; 32]> {
                        (0..regs)
                            .map(|_| std::array::from_fn(|_| value() & 0xFFFF_FFFF))
                            .collect()
                    };
                    let (a, b, c) = (frag(na), frag(nb), frag(nc));
                    let d = mma_sync(&kind, &a, &b, &c);
                    let mut want = [[0u64; 32]; 4];
                    for row in 0..16 {
                        for col in 0..8 {
                            let mut sum = 0f64;
                            for kk in 0..k as usize {
                                sum += a_elem(&kind, &a, row, kk) * b_elem(&kind, &b, kk, col);
                            }
                            let (reg, lane, h) = acc_slot(&kind, row, col);
                            if acc == MmaType::F16 {
                                let v = sum + half_of(MmaType::F16, c[reg][lane], h);
                                want[reg][lane] |= (f16::from_f64(v).to_bits() as u64) << (16 * h);
                            } else {
                                let v = sum + f32::from_bits(c[reg][lane] as u32) as f64;
                                want[reg][lane] = (v as f32).to_bits() as u64;
                            }
                        }
                    }
                    // (Which NaN an operation passes on is the host's
                    // choice, and the compiler may swap a product's
                    // operands: NaNs compare as NaNs.)
                    let canonical = |v: u64| -> u64 {
                        if acc == MmaType::F16 {
                            let half = |h: u64| {
                                if f16::from_bits(h as u16).is_nan() {
                                    0x7fff
                                } else {
                                    h
                                }
                            };
                            half(v & 0xffff) | (half(v >> 16 & 0xffff) << 16)
                        } else if f32::from_bits(v as u32).is_nan() {
                            0x7fff_ffff
                        } else {
                            v
                        }
                    };
                    assert_eq!(
                        d.map(|r| r.map(canonical))[..4],
                        want.map(|r| r.map(canonical)),
                        "{kind:?}, round {round}"
                    );
                }
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
            bit_op: None,
            rounding: crate::ir::ops::Rounding::Rn,
        };
        assert_eq!(mma_fragment_regs(&kind), Some([1, 1, 2, 2]));
        kind.b_col = false;
        assert_eq!(mma_fragment_regs(&kind), None);
        kind.b_col = true;
        kind.shape = MmaShape { m: 16, n: 8, k: 8 };
        kind.atype = MmaType::Tf32;
        kind.btype = MmaType::Tf32;
        kind.ctype = MmaType::F32;
        kind.dtype = MmaType::F32;
        assert_eq!(mma_fragment_regs(&kind), Some([4, 2, 4, 4]));
    }
}
