//! Tests of [`super`]: the fragment layouts cover every element once, the
//! register counts are the ISA's, and a WMMA equals the `mma.sync`s it is
//! made of.

use super::*;
use crate::sem::tensor::{mma_sync, MmaKind, MmaType};
use crate::testing::xorshift;
use WmmaMatrix::{A, B, C};
use WmmaType::*;

/// Every (shape, matrix, type) the ISA lists, with its register count.
fn all_frags() -> Vec<(WmmaFrag, usize)> {
    let mut out = Vec::new();
    let mut add = |m, n, k, matrix, ty, regs| {
        out.push((
            WmmaFrag {
                shape: shape(m, n, k),
                matrix,
                ty,
            },
            regs,
        ))
    };
    for (m, n) in [(16, 16), (32, 8), (8, 32)] {
        let (ra, rb) = (m as usize * 16 / 64, n as usize * 16 / 64);
        add(m, n, 16, A, F16, 8);
        add(m, n, 16, B, F16, 8);
        add(m, n, 16, A, Bf16, ra);
        add(m, n, 16, B, Bf16, rb);
        for t in [S8, U8] {
            add(m, n, 16, A, t, ra / 2);
            add(m, n, 16, B, t, rb / 2);
        }
        add(m, n, 16, C, F16, 4);
        add(m, n, 16, C, F32, 8);
        add(m, n, 16, C, S32, 8);
    }
    add(16, 16, 8, A, Tf32, 4);
    add(16, 16, 8, B, Tf32, 4);
    add(16, 16, 8, C, F32, 8);
    add(8, 8, 4, A, F64, 1);
    add(8, 8, 4, B, F64, 1);
    add(8, 8, 4, C, F64, 2);
    for t in [S4, U4] {
        add(8, 8, 32, A, t, 1);
        add(8, 8, 32, B, t, 1);
    }
    add(8, 8, 32, C, S32, 2);
    add(8, 8, 128, A, B1, 1);
    add(8, 8, 128, B, B1, 1);
    add(8, 8, 128, C, S32, 2);
    out
}

#[test]
fn register_counts_are_the_isas_and_layouts_cover_each_element_once() {
    for (frag, regs) in all_frags() {
        assert_eq!(frag.regs(), Some(regs), "{frag:?}");
        let (rows, cols) = frag.dims();
        let mut seen = vec![vec![0u32; cols]; rows];
        for reg in 0..frag.unique() {
            for lane in 0..32 {
                for e in 0..frag.per_reg() {
                    let (r, c) = frag.element(reg, lane, e);
                    seen[r][c] += 1;
                }
            }
        }
        assert!(seen.iter().flatten().all(|&n| n == 1), "{frag:?}");
        // Duplicated registers repeat the distinct ones.
        for reg in frag.unique()..regs {
            assert_eq!(
                frag.element(reg, 5, 1),
                frag.element(reg % frag.unique(), 5, 1)
            );
        }
    }
    let bad = WmmaFrag {
        shape: shape(16, 16, 16),
        matrix: A,
        ty: Tf32,
    };
    assert_eq!(bad.regs(), None);
}

#[test]
fn encode_inverts_decode() {
    let mut next = xorshift(7);
    for (frag, regs) in all_frags() {
        let (rows, cols) = frag.dims();
        let bits = frag.ty.bits();
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1 << bits) - 1
        };
        let m: Vec<Vec<u64>> = (0..rows)
            .map(|_| (0..cols).map(|_| next() & mask).collect())
            .collect();
        let f = encode(&frag, &m);
        assert_eq!(f.len(), regs);
        assert_eq!(decode(&frag, &f), m, "{frag:?}");
    }
}

/// The sm_80 layout read off ptxas's SASS for `wmma.load.a.row.m16n16k16.f16`:
/// registers 0..4 at (g, 2t), (g+8, 2t), (g, 2t+8), (g+8, 2t+8).
#[test]
fn f16_a_is_the_mma_a_fragment() {
    let frag = WmmaFrag {
        shape: shape(16, 16, 16),
        matrix: A,
        ty: F16,
    };
    let lane = 4 * 3 + 2;
    assert_eq!(frag.element(0, lane, 0), (3, 4));
    assert_eq!(frag.element(1, lane, 1), (11, 5));
    assert_eq!(frag.element(2, lane, 0), (3, 12));
    assert_eq!(frag.element(7, lane, 0), (11, 12));
    // m8n32k16's C is Cᵀ as an m32n8k16 accumulator: register 0 of lane
    // (g, t) holds (2t, g).
    let c = WmmaFrag {
        shape: shape(8, 32, 16),
        matrix: C,
        ty: F32,
    };
    assert_eq!(c.element(0, lane, 0), (4, 3));
    assert_eq!(c.element(2, lane, 0), (4, 11));
}

fn slice(
    m: &[Vec<u64>],
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
) -> Vec<Vec<u64>> {
    m[rows].iter().map(|r| r[cols.clone()].to_vec()).collect()
}

/// A `.m16n16k16` (and `.m32n8k16`, `.m8n32k16`) WMMA equals the
/// `mma.m16n8k16`s covering its output, bit for bit (random bits,
/// infinities and NaNs included; NaNs compared as NaNs).
#[test]
fn wmma_equals_the_mmas_it_is_made_of() {
    let mut next = xorshift(0xfeed_beef);
    for (ab, mt) in [
        (F16, MmaType::F16),
        (Bf16, MmaType::Bf16),
        (Tf32, MmaType::Tf32),
    ] {
        for acc in [F32, F16] {
            if acc == F16 && ab != F16 {
                continue;
            }
            let macc = if acc == F16 {
                MmaType::F16
            } else {
                MmaType::F32
            };
            for (m, n) in [(16, 16), (32, 8), (8, 32)] {
                let k = if ab == Tf32 { 8 } else { 16 };
                if ab == Tf32 && m != 16 {
                    continue;
                }
                let kind = WmmaKind {
                    shape: shape(m, n, k),
                    dtype: acc,
                    atype: ab,
                    btype: ab,
                    ctype: acc,
                    satfinite: false,
                    bit_op: None,
                    rounding: crate::ir::ops::Rounding::Rn,
                };
                let mk = MmaKind {
                    shape: MmaShape { m: 16, n: 8, k },
                    dtype: macc,
                    atype: mt,
                    btype: mt,
                    ctype: macc,
                    a_row: true,
                    b_col: true,
                    satfinite: false,
                    bit_op: None,
                    rounding: crate::ir::ops::Rounding::Rn,
                };
                for _ in 0..4 {
                    let mut rnd = |rows: usize, cols: usize, bits: u32| -> Vec<Vec<u64>> {
                        (0..rows)
                            .map(|_| {
                                (0..cols)
                                    .map(|_| next() & ((1u64 << bits) - 1) & 0xBFFF_BFFF)
                                    .collect()
                            })
                            .collect()
                    };
                    let (am, bm, cm) = (
                        rnd(m as usize, k as usize, ab.bits()),
                        rnd(k as usize, n as usize, ab.bits()),
                        rnd(m as usize, n as usize, acc.bits()),
                    );
                    let a = encode(&kind.frag(A), &am);
                    let b = encode(&kind.frag(B), &bm);
                    let c = encode(&kind.frag(C), &cm);
                    let d = decode(&kind.d_frag(), &wmma_mma(&kind, &a, &b, &c));
                    // The same through mma.m16n8k16 tiles (transposes of m8n32
                    // need no care: the D element is the dot product of a row
                    // of A and a column of B either way).
                    for i0 in (0..m as usize).step_by(16) {
                        for j0 in (0..n as usize).step_by(8) {
                            let rows = i0..(i0 + 16).min(m as usize);
                            let sub_a = slice(&am, rows.clone(), 0..k as usize);
                            let sub_b = slice(&bm, 0..k as usize, j0..j0 + 8);
                            let sub_c = slice(&cm, rows.clone(), j0..j0 + 8);
                            let pad = |mut v: Vec<Vec<u64>>, w: usize| {
                                while v.len() < 16 {
                                    v.push(vec![0; w]);
                                }
                                v
                            };
                            let (sub_a, sub_c) = (pad(sub_a, k as usize), pad(sub_c, 8));
                            let tile = |matrix| WmmaFrag {
                                shape: shape(16, 16, k),
                                matrix,
                                ty: if matrix == C { acc } else { ab },
                            };
                            // The first mma tile of a 16x16 WMMA fragment is
                            // the mma fragment itself.
                            let fa = encode(&tile(A), &sub_a);
                            let mut wide_b = sub_b.clone();
                            let mut wide_c = sub_c.clone();
                            for r in &mut wide_b {
                                r.extend(vec![0; 8]);
                            }
                            for r in &mut wide_c {
                                r.extend(vec![0; 8]);
                            }
                            let fb = encode(&tile(B), &wide_b);
                            let fc = encode(&tile(C), &wide_c);
                            let (na, nb, nc) = if ab == Tf32 {
                                (4, 2, 4)
                            } else {
                                (4, 2, if acc == F16 { 2 } else { 4 })
                            };
                            let md = mma_sync(&mk, &fa[..na], &fb[..nb], &fc[..nc]);
                            let md: Vec<[u64; 32]> = md[..nc].to_vec();
                            let mut md_wide = md.clone();
                            md_wide.extend(vec![[0u64; 32]; nc]);
                            let got = decode(&tile(C), &md_wide);
                            for (ii, i) in rows.clone().enumerate() {
                                for jj in 0..8 {
                                    let (x, y) = (got[ii][jj], d[i][j0 + jj]);
                                    let nan = |v: u64| {
                                        if acc == F16 {
                                            f16::from_bits(v as u16).is_nan()
                                        } else {
                                            f32::from_bits(v as u32).is_nan()
                                        }
                                    };
                                    assert!(
                                        x == y || nan(x) && nan(y),
                                        "{kind:?} ({i},{}) {x:#x} {y:#x}",
                                        j0 + jj
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Integer, sub-byte, b1 and f64 products against a plain GEMM.
#[test]
fn integer_bit_and_f64_products_match_a_plain_gemm() {
    let mut next = xorshift(99);
    let cases = [
        (shape(16, 16, 16), S8, U8, None),
        (shape(32, 8, 16), U8, U8, None),
        (shape(8, 32, 16), S8, S8, None),
        (shape(8, 8, 32), S4, S4, None),
        (shape(8, 8, 32), U4, U4, None),
        (shape(8, 8, 128), B1, B1, Some(BitOp::Xor)),
        (shape(8, 8, 128), B1, B1, Some(BitOp::And)),
        (shape(8, 8, 4), F64, F64, None),
    ];
    for (sh, at, bt, bit_op) in cases {
        let acc = if at == F64 { F64 } else { S32 };
        let kind = WmmaKind {
            shape: sh,
            dtype: acc,
            atype: at,
            btype: bt,
            ctype: acc,
            satfinite: false,
            bit_op,
            rounding: crate::ir::ops::Rounding::Rn,
        };
        assert!(kind.regs().is_some(), "{kind:?}");
        let (m, n, k) = (sh.m as usize, sh.n as usize, sh.k as usize);
        let elem = |t: WmmaType, v: u64| -> (u64, f64) {
            match t {
                F64 => {
                    let x = (v % 17) as f64 - 8.0;
                    (x.to_bits(), x)
                }
                S32 => {
                    let x = (v % 2001) as i64 - 1000;
                    (x as i32 as u32 as u64, x as f64)
                }
                _ => {
                    let b = v & ((1 << t.bits()) - 1);
                    (b, int_of(t, b) as f64)
                }
            }
        };
        let mut gen = |rows: usize, cols: usize, t| -> (Vec<Vec<u64>>, Vec<Vec<f64>>) {
            let cells: Vec<Vec<(u64, f64)>> = (0..rows)
                .map(|_| (0..cols).map(|_| elem(t, next())).collect())
                .collect();
            (
                cells
                    .iter()
                    .map(|r| r.iter().map(|c| c.0).collect())
                    .collect(),
                cells
                    .iter()
                    .map(|r| r.iter().map(|c| c.1).collect())
                    .collect(),
            )
        };
        let (ab, av) = gen(m, k, at);
        let (bb, bv) = gen(k, n, bt);
        let (cb, cv) = gen(m, n, acc);
        let d = wmma_mma(
            &kind,
            &encode(&kind.frag(A), &ab),
            &encode(&kind.frag(B), &bb),
            &encode(&kind.frag(C), &cb),
        );
        let dm = decode(&kind.d_frag(), &d);
        for i in 0..m {
            for j in 0..n {
                let want: f64 = cv[i][j]
                    + (0..k)
                        .map(|kk| match bit_op {
                            Some(BitOp::Xor) => (ab[i][kk] ^ bb[kk][j]) as f64,
                            Some(BitOp::And) => (ab[i][kk] & bb[kk][j]) as f64,
                            None => av[i][kk] * bv[kk][j],
                        })
                        .sum::<f64>();
                let got = if acc == F64 {
                    f64::from_bits(dm[i][j])
                } else {
                    dm[i][j] as u32 as i32 as f64
                };
                assert_eq!(got, want, "{kind:?} ({i},{j})");
            }
        }
    }
}

#[test]
fn integer_satfinite_clamps_and_plain_wraps() {
    let kind = WmmaKind {
        shape: shape(8, 8, 32),
        dtype: S32,
        atype: U4,
        btype: U4,
        ctype: S32,
        satfinite: true,
        bit_op: None,
        rounding: crate::ir::ops::Rounding::Rn,
    };
    let ones = |r, c| vec![vec![15u64; c]; r];
    let a = encode(&kind.frag(A), &ones(8, 32));
    let b = encode(&kind.frag(B), &ones(32, 8));
    let c = encode(&kind.frag(C), &vec![vec![i32::MAX as u64; 8]; 8]);
    let d = decode(&kind.d_frag(), &wmma_mma(&kind, &a, &b, &c));
    assert_eq!(d[3][5], i32::MAX as u64);
    let wrap = WmmaKind {
        satfinite: false,
        ..kind
    };
    let d = decode(&wrap.d_frag(), &wmma_mma(&wrap, &a, &b, &c));
    assert_eq!(d[3][5] as u32, (i32::MAX as u32).wrapping_add(32 * 225));
}
