use super::*;
use crate::sem::tensor::{mma_fragment_regs, mma_sync, MmaShape};

fn kind(m: u16, k: u16, d: MmaType, a: MmaType, b: MmaType, c: MmaType) -> MmaKind {
    MmaKind {
        shape: MmaShape { m, n: 8, k },
        dtype: d,
        atype: a,
        btype: b,
        ctype: c,
        a_row: true,
        b_col: true,
        satfinite: false,
        bit_op: None,
        rounding: crate::ir::ops::Rounding::Rn,
    }
}

fn int_kind(m: u16, k: u16, a: MmaType, b: MmaType) -> MmaKind {
    kind(m, k, MmaType::S32, a, b, MmaType::S32)
}

/// Packs `p` elements of `w` bits (element 0 lowest).
fn pack(w: u32, elems: impl Iterator<Item = u64>) -> u64 {
    elems.enumerate().fold(0, |acc, (i, v)| {
        acc | ((v & ((1u64 << w) - 1)) << (w * i as u32))
    })
}

/// The A and B fragments of an `m16n8k32` `.s8`/`.u8` mma, written out
/// from the ISA's figure one register at a time: a0 (g, 4t+i), a1 (g+8,
/// 4t+i), a2 (g, 4t+i+16), a3 (g+8, 4t+i+16); b0 (4t+i, g), b1 (4t+i+16, g).
fn frags_m16n8k32_8bit(
    av: impl Fn(usize, usize) -> i64,
    bv: impl Fn(usize, usize) -> i64,
) -> (Vec<[u64; 32]>, Vec<[u64; 32]>) {
    let mut a = vec![[0u64; 32]; 4];
    let mut b = vec![[0u64; 32]; 2];
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        let arow = |r: usize, c0: usize| pack(8, (0..4).map(|i| av(r, c0 + i) as u64));
        a[0][lane] = arow(g, 4 * t);
        a[1][lane] = arow(g + 8, 4 * t);
        a[2][lane] = arow(g, 4 * t + 16);
        a[3][lane] = arow(g + 8, 4 * t + 16);
        let bcol = |r0: usize| pack(8, (0..4).map(|i| bv(r0 + i, g) as u64));
        b[0][lane] = bcol(4 * t);
        b[1][lane] = bcol(4 * t + 16);
    }
    (a, b)
}

/// The s32 accumulator element (row, col) of an m16n8 fragment: c0/c1 at
/// (g, 2t)/(g, 2t+1), c2/c3 at (g+8, ...).
fn acc_at(d: &[[u64; 32]], row: usize, col: usize) -> u64 {
    d[2 * (row / 8) + col % 2][4 * (row % 8) + col / 2]
}

#[test]
fn int8_m16n8k32_matches_the_isa_figure_with_mixed_signedness() {
    let av = |r: usize, c: usize| ((r * 7 + c * 13) % 256) as i64 - 128;
    let bv = |r: usize, c: usize| ((r * 11 + c * 3) % 256) as i64;
    let (a, b) = frags_m16n8k32_8bit(av, bv);
    let cinit = |r: usize, c: usize| (r * 8 + c) as i64 - 50;
    let c: Vec<[u64; 32]> = (0..4)
        .map(|reg| {
            std::array::from_fn(|lane| {
                let (g, t) = (lane / 4, lane % 4);
                cinit(g + 8 * (reg / 2), 2 * t + reg % 2) as i32 as u32 as u64
            })
        })
        .collect();
    let k = int_kind(16, 32, MmaType::S8, MmaType::U8);
    assert_eq!(mma_fragment_regs(&k), Some([4, 2, 4, 4]));
    let d = mma_sync(&k, &a, &b, &c);
    for row in 0..16 {
        for col in 0..8 {
            let want = cinit(row, col) + (0..32).map(|kk| av(row, kk) * bv(kk, col)).sum::<i64>();
            assert_eq!(
                acc_at(&d, row, col) as u32 as i32 as i64,
                want,
                "({row},{col})"
            );
        }
    }
}

#[test]
fn int_products_wrap_or_saturate() {
    // Every A and B element -128 (s8): each dot product is 32 * 16384 = 2^19;
    // C near the s32 limits overflows.
    let (a, b) = frags_m16n8k32_8bit(|_, _| -128, |_, _| -128);
    let c = vec![[(i32::MAX - 5) as u32 as u64; 32]; 4];
    let mut k = int_kind(16, 32, MmaType::S8, MmaType::S8);
    let wrapped = mma_sync(&k, &a, &b, &c);
    let exact = (i32::MAX - 5) as i64 + (1 << 19);
    assert_eq!(wrapped[0][0] as u32 as i32, exact as i32);
    k.satfinite = true;
    assert_eq!(mma_sync(&k, &a, &b, &c)[3][31] as u32 as i32, i32::MAX);
    // Negative side: A = -128, B = 127 (u8 would be 255: use s8).
    let (a, b) = frags_m16n8k32_8bit(|_, _| -128, |_, _| 127);
    let c = vec![[(i32::MIN + 3) as u32 as u64; 32]; 4];
    assert_eq!(mma_sync(&k, &a, &b, &c)[1][7] as u32 as i32, i32::MIN);
    // In range, .satfinite changes nothing.
    let c = vec![[0u64; 32]; 4];
    assert_eq!(
        mma_sync(&k, &a, &b, &c)[2][2] as u32 as i32,
        -128 * 127 * 32
    );
}

#[test]
fn sub_byte_elements_sign_extend() {
    // m8n8k32 .s4.u4: A row g holds 8 nibbles per register at 8t..8t+8.
    let k = int_kind(8, 32, MmaType::S4, MmaType::U4);
    assert_eq!(mma_fragment_regs(&k), Some([1, 1, 2, 2]));
    let av = |r: usize, c: usize| ((r + c) % 16) as i64 - 8;
    let bv = |r: usize, c: usize| ((r * 3 + c) % 16) as i64;
    let a = vec![std::array::from_fn(|lane| {
        let (g, t) = (lane / 4, lane % 4);
        pack(4, (0..8).map(|i| av(g, 8 * t + i) as u64))
    })];
    let b = vec![std::array::from_fn(|lane| {
        let (g, t) = (lane / 4, lane % 4);
        pack(4, (0..8).map(|i| bv(8 * t + i, g) as u64))
    })];
    let c = vec![[0u64; 32]; 2];
    let d = mma_sync(&k, &a, &b, &c);
    for row in 0..8 {
        for col in 0..8 {
            let want: i64 = (0..32).map(|kk| av(row, kk) * bv(kk, col)).sum();
            // m8n8: c0 (g, 2t), c1 (g, 2t+1).
            let got = d[col % 2][4 * row + col / 2] as u32 as i32 as i64;
            assert_eq!(got, want, "({row},{col})");
        }
    }
}

#[test]
fn single_bit_forms_count_xor_and_and() {
    // m16n8k256 .b1: a0 row g, a1 row g+8, cols 32t..; a2/a3 cols +128;
    // b0 rows 32t.., b1 rows +128.
    let mut k = int_kind(16, 256, MmaType::B1, MmaType::B1);
    assert_eq!(mma_fragment_regs(&k), None, "b1 needs a bit op");
    let bit_a = |r: usize, c: usize| ((r * 5 + c * c) % 3 == 0) as u64;
    let bit_b = |r: usize, c: usize| ((r + 7 * c) % 4 == 1) as u64;
    let mut a = vec![[0u64; 32]; 4];
    let mut b = vec![[0u64; 32]; 2];
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        for (reg, (row, c0)) in [(g, 0), (g + 8, 0), (g, 128), (g + 8, 128)]
            .into_iter()
            .enumerate()
        {
            a[reg][lane] = pack(1, (0..32).map(|i| bit_a(row, c0 + 32 * t + i)));
        }
        for (reg, r0) in [0, 128].into_iter().enumerate() {
            b[reg][lane] = pack(1, (0..32).map(|i| bit_b(r0 + 32 * t + i, g)));
        }
    }
    let c = vec![[3u64; 32]; 4];
    for op in [BitOp::Xor, BitOp::And] {
        k.bit_op = Some(op);
        let d = mma_sync(&k, &a, &b, &c);
        for row in 0..16 {
            for col in 0..8 {
                let want: u64 = 3
                    + (0..256)
                        .map(|kk| match op {
                            BitOp::Xor => bit_a(row, kk) ^ bit_b(kk, col),
                            BitOp::And => bit_a(row, kk) & bit_b(kk, col),
                        })
                        .sum::<u64>();
                assert_eq!(acc_at(&d, row, col), want, "{op:?} ({row},{col})");
            }
        }
    }
}

#[test]
fn f64_shapes_follow_the_isa_figures_as_fma_chains() {
    // m16n8k16 .f64: a_i (g + 8 (i % 2), t + 4 (i / 2)), b_i (t + 4 i, g).
    let av = |r: usize, c: usize| (r as f64 - 3.5) * 0.25 + c as f64 / 3.0;
    let bv = |r: usize, c: usize| 1.0 / (1.0 + r as f64 + 2.0 * c as f64);
    for (m, kk) in [(8u16, 4u16), (16, 4), (16, 8), (16, 16)] {
        let k = kind(
            m,
            kk,
            MmaType::F64,
            MmaType::F64,
            MmaType::F64,
            MmaType::F64,
        );
        let [na, nb, nc, _] = mma_fragment_regs(&k).unwrap();
        assert_eq!((na, nb), (m as usize * kk as usize / 32, kk as usize / 4));
        let a: Vec<[u64; 32]> = (0..na)
            .map(|i| {
                std::array::from_fn(|lane| {
                    let (g, t) = (lane / 4, lane % 4);
                    let row = if m == 8 { g } else { g + 8 * (i % 2) };
                    av(row, t + 4 * if m == 8 { i } else { i / 2 }).to_bits()
                })
            })
            .collect();
        let b: Vec<[u64; 32]> = (0..nb)
            .map(|i| std::array::from_fn(|lane| bv(lane % 4 + 4 * i, lane / 4).to_bits()))
            .collect();
        let c: Vec<[u64; 32]> = (0..nc).map(|r| [(r as f64 + 0.5).to_bits(); 32]).collect();
        let d = mma_sync(&k, &a, &b, &c);
        for row in 0..m as usize {
            for col in 0..8 {
                let reg = 2 * (row / 8) + col % 2;
                let mut want = reg as f64 + 0.5;
                for x in 0..kk as usize {
                    want = av(row, x).mul_add(bv(x, col), want);
                }
                let got = f64::from_bits(d[reg][4 * (row % 8) + col / 2]);
                assert_eq!(got.to_bits(), want.to_bits(), "m{m}k{kk} ({row},{col})");
            }
        }
    }
}

#[test]
fn fp8_values_decode() {
    use MmaType::{E4m3, E5m2};
    assert_eq!(fp8_value(E4m3, 0x38), 1.0);
    assert_eq!(fp8_value(E4m3, 0x7E), 448.0);
    assert_eq!(fp8_value(E4m3, 0x01), 2f64.powi(-9));
    assert_eq!(fp8_value(E4m3, 0xB8), -1.0);
    assert!(fp8_value(E4m3, 0x7F).is_nan());
    assert_eq!(fp8_value(E4m3, 0x78), 256.0, "S.1111.000 is finite in e4m3");
    assert_eq!(fp8_value(E5m2, 0x3C), 1.0);
    assert_eq!(fp8_value(E5m2, 0x7B), 57344.0);
    assert_eq!(fp8_value(E5m2, 0x01), 2f64.powi(-16));
    assert_eq!(fp8_value(E5m2, 0xFC), f64::NEG_INFINITY);
    assert!(fp8_value(E5m2, 0x7D).is_nan());
    // e5m2 is the top byte of an f16.
    for bits in 0..=255u8 {
        let h = f16::from_bits((bits as u16) << 8).to_f64();
        let v = fp8_value(E5m2, bits);
        assert!(v == h || (v.is_nan() && h.is_nan()), "{bits:#x}");
    }
}

#[test]
fn fp8_m16n8k32_rounds_the_exact_sum_once() {
    use MmaType::{E4m3, E5m2, F16, F32};
    // A = 1.0 (e4m3 0x38) everywhere, B = 2^-9 (e5m2 ... ) patterns.
    let enc = |v: f64| -> i64 {
        (0..=255u8)
            .find(|&b| fp8_value(E4m3, b) == v)
            .expect("representable") as i64
    };
    let av = |r: usize, c: usize| ((r + c) % 5) as f64 - 2.0;
    let bv = |r: usize, c: usize| ((r * 3 + c) % 4) as f64 * 0.5;
    let (a, _) = frags_m16n8k32_8bit(|r, c| enc(av(r, c)), |_, _| 0);
    let (_, b) = frags_m16n8k32_8bit(|_, _| 0, |r, c| enc(bv(r, c)));
    for acc in [F32, F16] {
        let k = kind(16, 32, acc, E4m3, E4m3, acc);
        let [_, _, nc, _] = mma_fragment_regs(&k).unwrap();
        let c = vec![[0u64; 32]; nc];
        let d = mma_sync(&k, &a, &b, &c);
        for row in 0..16 {
            for col in 0..8 {
                let want: f64 = (0..32).map(|kk| av(row, kk) * bv(kk, col)).sum();
                let got = if acc == F16 {
                    // f16 accumulators: c0 row g (2t, 2t+1), c1 row g+8.
                    let reg = d[row / 8][4 * (row % 8) + col / 2];
                    f16::from_bits((reg >> (16 * (col % 2))) as u16).to_f64()
                } else {
                    f32::from_bits(acc_at(&d, row, col) as u32) as f64
                };
                assert_eq!(got, want, "{acc:?} ({row},{col})");
            }
        }
    }
    // Mixed e4m3 x e5m2 is a valid kind.
    assert!(mma_fragment_regs(&kind(16, 32, F32, E4m3, E5m2, F32)).is_some());
    assert!(mma_fragment_regs(&kind(16, 16, F32, E5m2, E5m2, F32)).is_some());
}

#[test]
fn unlisted_forms_are_refused() {
    use MmaType::*;
    // Wrong k for the type, satfinite on floats, column-major A, s32 for fp8.
    assert_eq!(mma_fragment_regs(&int_kind(16, 64, S8, S8)), None);
    assert_eq!(mma_fragment_regs(&int_kind(8, 16, S4, S4)), None);
    let mut k = kind(8, 4, F64, F64, F64, F64);
    k.satfinite = true;
    assert_eq!(mma_fragment_regs(&k), None);
    let mut k = int_kind(16, 32, S8, S8);
    k.a_row = false;
    assert_eq!(mma_fragment_regs(&k), None);
    assert_eq!(mma_fragment_regs(&kind(16, 32, S32, E4m3, E4m3, S32)), None);
    let mut k = int_kind(16, 32, S8, S8);
    k.bit_op = Some(BitOp::Xor);
    assert_eq!(mma_fragment_regs(&k), None);
    // Volta's m8n8k4 takes f16 A and B only (src/sem/mma_volta.rs).
    assert_eq!(
        mma_fragment_regs(&kind(8, 4, F32, F16, F16, F32)),
        Some([2, 2, 8, 8])
    );
    assert_eq!(
        mma_fragment_regs(&kind(8, 4, F32, F16, F16, F16)),
        Some([2, 2, 4, 8])
    );
    // An f16 D with an f32 C: ptxas refuses it.
    assert_eq!(mma_fragment_regs(&kind(8, 4, F16, F16, F16, F32)), None);
    assert_eq!(mma_fragment_regs(&kind(8, 4, F32, Bf16, Bf16, F32)), None);
}

/// f64 `.rz .rm .rp`: each fma of the chain rounds in the form's mode.
/// Row (1, +-2^-60, 0, 0) times column (1, 1, 0, 0) plus 0: the second fma
/// adds +-2^-60 to 1, which only a directed rounding keeps.
#[test]
fn f64_directed_rounding_rounds_each_fma() {
    use crate::ir::ops::Rounding::*;
    use MmaType::F64;
    let tiny = 2f64.powi(-60);
    let one = 1f64;
    let (up, down) = (1.0 + f64::EPSILON, 1.0 - f64::EPSILON / 2.0);
    for (sign, rn, rz, rm, rp) in [(1.0, one, one, one, up), (-1.0, one, down, down, one)] {
        let a = [1f64, sign * tiny, 0.0, 0.0].map(f64::to_bits);
        let b = [1f64, 1.0, 0.0, 0.0].map(f64::to_bits);
        for (mode, want) in [(Rn, rn), (Rz, rz), (Rm, rm), (Rp, rp)] {
            let mut k = kind(8, 4, F64, F64, F64, F64);
            k.rounding = mode;
            assert!(mma_fragment_regs(&k).is_some(), "{mode:?}");
            let got = f64::from_bits(dot(&k, &a, |i| b[i], 0));
            assert_eq!(got, want, "{sign} {mode:?}");
        }
    }
    // The other forms take `.rn` only.
    let mut k = kind(
        16,
        16,
        MmaType::F32,
        MmaType::F16,
        MmaType::F16,
        MmaType::F32,
    );
    k.rounding = Rz;
    assert!(mma_fragment_regs(&k).is_none());
}
