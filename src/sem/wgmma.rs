//! Hopper's warpgroup MMA (`wgmma.mma_async.sync.aligned.m64nNkK`, PTX ISA
//! §9.7.15), executed one warp at a time: `.f16`/`.bf16` (k16, f32 or, for
//! f16, f16 accumulators), `.tf32` (k8, f32), `.e4m3`/`.e5m2` (k32, f32 or
//! f16) and `.s8`/`.u8` (k32, s32, `.satfinite` optional), with A in shared
//! memory or in registers.
//!
//! Operands in shared memory come through 64-bit matrix descriptors:
//! bits 0–13 the start address >> 4, 16–29 the leading-dimension byte
//! offset >> 4 (LBO), 32–45 the stride-dimension byte offset >> 4 (SBO),
//! 49–51 the base offset, 62–63 the swizzle mode (0 none, 1 128-byte,
//! 2 64-byte, 3 32-byte). In the canonical layouts an operand is a stack of
//! 8-row core groups `SBO` bytes apart; each row holds `W` contiguous bytes
//! (`W` = the swizzle width, 16 without swizzle) along the contiguous
//! dimension (K for K-major, M/N for MN-major, selected by the transpose
//! immediates of the 16-bit types; the others are K-major), further
//! `W`-byte blocks `LBO` bytes apart; swizzling XORs the 16-byte chunk index
//! (address bits 4..) with address bits 7.. .
//!
//! A in registers: warp `w` of the warpgroup holds rows `16w..16w+16` of A
//! in four registers laid out as an `mma.m16n8kK` A fragment of the same
//! element type ([`super::mma_forms::place`]).
//!
//! D (64 x N) is spread over the warpgroup's 4 warps: warp `w` holds rows
//! `16w..16w+16`, each 8-column block `j` laid out as an `mma.m16n8`
//! accumulator (f32/s32: registers `4j..4j+4`; f16: `2j..2j+2`, packed).
//! Each warp computes its own rows independently. Numerics are those of
//! [`super::tensor`]: exact products summed in f64, rounded once (tf32
//! inputs keep their top 19 bits); integers are exact, wrapping to s32 or
//! clamping with `.satfinite`.

use super::mma_forms::{fp8_value, place, saturate, Operand};
use super::tensor::MmaType;
use half::{bf16, f16};

/// An input element type of a `wgmma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WgmmaInput {
    F16,
    Bf16,
    Tf32,
    E4m3,
    E5m2,
    S8,
    U8,
}

impl WgmmaInput {
    pub fn bytes(self) -> usize {
        match self {
            WgmmaInput::F16 | WgmmaInput::Bf16 => 2,
            WgmmaInput::Tf32 => 4,
            _ => 1,
        }
    }

    fn mma_type(self) -> MmaType {
        match self {
            WgmmaInput::F16 => MmaType::F16,
            WgmmaInput::Bf16 => MmaType::Bf16,
            WgmmaInput::Tf32 => MmaType::Tf32,
            WgmmaInput::E4m3 => MmaType::E4m3,
            WgmmaInput::E5m2 => MmaType::E5m2,
            WgmmaInput::S8 => MmaType::S8,
            WgmmaInput::U8 => MmaType::U8,
        }
    }

    pub fn is_int(self) -> bool {
        matches!(self, WgmmaInput::S8 | WgmmaInput::U8)
    }

    /// The element's value (exact in f64 for every type).
    fn value(self, bits: u32) -> f64 {
        match self {
            WgmmaInput::F16 => f16::from_bits(bits as u16).to_f64(),
            WgmmaInput::Bf16 => bf16::from_bits(bits as u16).to_f64(),
            WgmmaInput::Tf32 => f32::from_bits(bits & 0xFFFF_E000) as f64,
            WgmmaInput::E4m3 | WgmmaInput::E5m2 => fp8_value(self.mma_type(), bits as u8),
            WgmmaInput::S8 => bits as u8 as i8 as f64,
            WgmmaInput::U8 => bits as u8 as f64,
        }
    }
}

/// The accumulator type of a `wgmma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WgmmaAcc {
    F32,
    F16,
    S32,
}

/// One `wgmma.mma_async.sync.aligned.m64nNkK{.satfinite}.dtype.atype.btype`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WgmmaKind {
    pub n: u16,
    pub atype: WgmmaInput,
    pub btype: WgmmaInput,
    pub dtype: WgmmaAcc,
    /// A comes from four registers per lane instead of a descriptor.
    pub a_in_regs: bool,
    pub satfinite: bool,
    /// `imm-scale-a`/`imm-scale-b`: 1 or -1.
    pub negate_a: bool,
    pub negate_b: bool,
    /// `imm-trans-a`/`imm-trans-b`: A is M-major / B is N-major.
    pub trans_a: bool,
    pub trans_b: bool,
}

impl WgmmaKind {
    /// Accumulator registers per thread (`N / 2` f32/s32 values, `N / 4`
    /// f16x2 pairs).
    pub fn acc_regs(&self) -> usize {
        if self.dtype == WgmmaAcc::F16 {
            self.n as usize / 4
        } else {
            self.n as usize / 2
        }
    }

    /// K of the shape: 32 bytes of each row of A.
    pub fn k(&self) -> usize {
        32 / self.atype.bytes()
    }

    pub fn valid_n(n: u16) -> bool {
        (8..=256).contains(&n) && n % 8 == 0
    }

    /// Whether the ISA lists this combination of types.
    pub fn valid_types(&self) -> bool {
        use WgmmaInput::*;
        match (self.atype, self.btype) {
            (F16, F16) => self.dtype != WgmmaAcc::S32,
            (Bf16, Bf16) | (Tf32, Tf32) => self.dtype == WgmmaAcc::F32,
            (E4m3 | E5m2, E4m3 | E5m2) => self.dtype != WgmmaAcc::S32,
            (S8 | U8, S8 | U8) => self.dtype == WgmmaAcc::S32,
            _ => false,
        }
    }
}

/// Byte address in shared memory of element (`outer`, `inner`) of an operand
/// whose contiguous dimension is `inner` (elements of `bytes` bytes).
fn element_address(desc: u64, outer: usize, inner: usize, bytes: usize) -> usize {
    let start = ((desc & 0x3FFF) << 4) as usize;
    let lbo = (((desc >> 16) & 0x3FFF) << 4) as usize;
    let sbo = (((desc >> 32) & 0x3FFF) << 4) as usize;
    let (width, mask) = match desc >> 62 {
        1 => (128, 7),
        2 => (64, 3),
        3 => (32, 1),
        _ => (16, 0),
    };
    let byte = inner * bytes;
    let logical =
        start + (outer / 8) * sbo + (outer % 8) * width + (byte / width) * lbo + byte % width;
    logical ^ (((logical >> 7) & mask) << 4)
}

fn load(shared: &[u8], at: usize, input: WgmmaInput) -> Result<f64, String> {
    let n = input.bytes();
    let b = shared.get(at..at + n).ok_or_else(|| {
        format!("wgmma operand at shared offset {at:#x} is outside shared memory")
    })?;
    let bits = b.iter().rev().fold(0u32, |acc, &x| (acc << 8) | x as u32);
    Ok(input.value(bits))
}

/// Computes warp `warp_in_group`'s 16 rows of `D = A*B (+ D if scale_d)`,
/// updating `acc[lane][reg]` (accumulator bits). `a_regs[lane]` holds the
/// lane's four A registers when A is in registers.
#[allow(clippy::too_many_arguments)]
pub fn wgmma_warp(
    kind: &WgmmaKind,
    warp_in_group: usize,
    desc_a: u64,
    a_regs: &[[u64; 4]; 32],
    desc_b: u64,
    scale_d: bool,
    shared: &[u8],
    acc: &mut [Vec<u64>],
) -> Result<(), String> {
    let k = kind.k();
    let n = kind.n as usize;
    // This warp's rows of A (16 x k) and all of B (k x N).
    let mut a = [[0f64; 32]; 16];
    if kind.a_in_regs {
        let ty = kind.atype.mma_type();
        let per = 4 / kind.atype.bytes();
        let w = 8 * kind.atype.bytes() as u32;
        for (lane, regs) in a_regs.iter().enumerate() {
            for (r, &v) in regs.iter().enumerate() {
                for e in 0..per {
                    let (row, col) = place(Operand::A, ty, 16, r, lane, e);
                    let bits = if w == 32 {
                        v as u32
                    } else {
                        (v >> (w * e as u32)) as u32 & ((1 << w) - 1)
                    };
                    a[row][col] = kind.atype.value(bits);
                }
            }
        }
    } else {
        for (r, row) in a.iter_mut().enumerate() {
            let m = 16 * warp_in_group + r;
            for (kk, v) in row.iter_mut().enumerate().take(k) {
                let at = if kind.trans_a {
                    element_address(desc_a, kk, m, kind.atype.bytes())
                } else {
                    element_address(desc_a, m, kk, kind.atype.bytes())
                };
                *v = load(shared, at, kind.atype)?;
            }
        }
    }
    let mut b = vec![[0f64; 32]; n];
    for (col, bcol) in b.iter_mut().enumerate() {
        for (kk, v) in bcol.iter_mut().enumerate().take(k) {
            let at = if kind.trans_b {
                element_address(desc_b, kk, col, kind.btype.bytes())
            } else {
                element_address(desc_b, col, kk, kind.btype.bytes())
            };
            *v = load(shared, at, kind.btype)?;
        }
    }
    let sign = if kind.negate_a != kind.negate_b {
        -1.0
    } else {
        1.0
    };
    let dot = |row: usize, col: usize| -> f64 {
        (0..k).map(|kk| a[row][kk] * b[col][kk]).sum::<f64>() * sign
    };
    for (lane, regs) in acc.iter_mut().enumerate().take(32) {
        let (g, t) = (lane / 4, lane % 4);
        for j in 0..n / 8 {
            if kind.dtype == WgmmaAcc::F16 {
                for (r, reg) in regs.iter_mut().skip(2 * j).take(2).enumerate() {
                    let mut out = 0u64;
                    for h in 0..2 {
                        let (row, col) = (g + 8 * r, 8 * j + 2 * t + h);
                        let c = if scale_d {
                            f16::from_bits((*reg >> (16 * h)) as u16).to_f64()
                        } else {
                            0.0
                        };
                        let v = f16::from_f64(dot(row, col) + c).to_bits() as u64;
                        out |= v << (16 * h);
                    }
                    *reg = out;
                }
                continue;
            }
            for (q, reg) in regs.iter_mut().skip(4 * j).take(4).enumerate() {
                let row = g + 8 * (q / 2);
                let col = 8 * j + 2 * t + (q % 2);
                *reg = if kind.dtype == WgmmaAcc::S32 {
                    // Products of 8-bit integers, 32 of them: exact in f64.
                    let c = if scale_d {
                        *reg as u32 as i32 as i64
                    } else {
                        0
                    };
                    saturate(dot(row, col) as i64 + c, kind.satfinite) as u32 as u64
                } else {
                    let c = if scale_d {
                        f32::from_bits(*reg as u32) as f64
                    } else {
                        0.0
                    };
                    ((dot(row, col) + c) as f32).to_bits() as u64
                };
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_addresses_follow_the_swizzle_patterns() {
        // 128-byte swizzle, SBO 1024: row r of a core group keeps chunk c at chunk c ^ r.
        let desc = (1u64 << 62) | (64u64 << 32);
        assert_eq!(element_address(desc, 0, 0, 2), 0);
        assert_eq!(element_address(desc, 1, 0, 2), 128 + 16);
        assert_eq!(element_address(desc, 3, 8, 2), 3 * 128 + ((1 ^ 3) * 16));
        assert_eq!(element_address(desc, 8, 0, 2), 1024);
        // 64-byte swizzle, SBO 512: chunk c of row r at c ^ ((r >> 1) & 3).
        let desc = (2u64 << 62) | (32u64 << 32);
        assert_eq!(element_address(desc, 2, 0, 2), 2 * 64 + 16);
        assert_eq!(element_address(desc, 8, 1, 2), 512 + 2);
        // No swizzle: 16-byte rows, K blocks LBO apart.
        let desc = (8u64 << 16) | (16u64 << 32);
        assert_eq!(element_address(desc, 1, 9, 2), 16 + 128 + 2);
    }

    #[test]
    fn computes_a_product_with_scale_and_accumulate() {
        // A 64x16 K-major, B 16x8 K-major, no swizzle: A[m][k] = m + k, B[k][n] = 1 if k == n.
        let kind = WgmmaKind {
            n: 8,
            atype: WgmmaInput::F16,
            btype: WgmmaInput::F16,
            dtype: WgmmaAcc::F32,
            a_in_regs: false,
            satfinite: false,
            negate_a: false,
            negate_b: false,
            trans_a: false,
            trans_b: false,
        };
        let mut shared = vec![0u8; 8192];
        // Core matrices of 8 rows x 16 bytes: K blocks 128 bytes apart, row groups 256.
        let (desc_a, desc_b) = (
            (8u64 << 16) | (16u64 << 32),
            256 | (8u64 << 16) | (16u64 << 32),
        );
        for m in 0..64 {
            for k in 0..16 {
                let at = element_address(desc_a, m, k, 2);
                shared[at..at + 2]
                    .copy_from_slice(&f16::from_f32((m + k) as f32).to_bits().to_le_bytes());
            }
        }
        for n in 0..8 {
            for k in 0..16 {
                let at = element_address(desc_b, n, k, 2);
                let v = if k == n { 1.0 } else { 0.0 };
                shared[at..at + 2].copy_from_slice(&f16::from_f32(v).to_bits().to_le_bytes());
            }
        }
        let mut acc: Vec<Vec<u64>> = vec![vec![2.0f32.to_bits() as u64; 4]; 32];
        wgmma_warp(
            &kind,
            1,
            desc_a,
            &[[0; 4]; 32],
            desc_b,
            true,
            &shared,
            &mut acc,
        )
        .unwrap();
        // Lane 5: g = 1, t = 1: register 1 is D[16 + 1][3] = (17 + 3) + 2.
        assert_eq!(f32::from_bits(acc[5][1] as u32), 22.0);
        // Register 2 is D[16 + 9][2] = 25 + 2 + 2.
        assert_eq!(f32::from_bits(acc[5][2] as u32), 29.0);
    }
    /// Writes `v` (raw bits of `bytes` bytes) at element (outer, inner).
    fn put(shared: &mut [u8], desc: u64, outer: usize, inner: usize, bytes: usize, v: u32) {
        let at = element_address(desc, outer, inner, bytes);
        shared[at..at + bytes].copy_from_slice(&v.to_le_bytes()[..bytes]);
    }

    /// Every input type, A from shared memory and from registers (the
    /// `mma.m16n8kK` A fragment: register r holds row g + 8 (r % 2),
    /// elements at columns p t + i + 4p (r / 2)), against a plain product.
    #[test]
    fn register_and_shared_a_give_the_plain_product() {
        use WgmmaInput::*;
        let cases = [
            (F16, F16, WgmmaAcc::F32),
            (F16, F16, WgmmaAcc::F16),
            (Bf16, Bf16, WgmmaAcc::F32),
            (Tf32, Tf32, WgmmaAcc::F32),
            (E4m3, E5m2, WgmmaAcc::F32),
            (E5m2, E5m2, WgmmaAcc::F16),
            (S8, U8, WgmmaAcc::S32),
            (U8, U8, WgmmaAcc::S32),
        ];
        // Small integers, exact in every type: encodings of `v`.
        let enc = |ty: WgmmaInput, v: i32| -> u32 {
            match ty {
                F16 => f16::from_f32(v as f32).to_bits() as u32,
                Bf16 => bf16::from_f32(v as f32).to_bits() as u32,
                Tf32 => (v as f32).to_bits(),
                S8 | U8 => v as u8 as u32,
                _ => (0..=255u32)
                    .find(|&b| fp8_value(ty.mma_type(), b as u8) == v as f64)
                    .unwrap(),
            }
        };
        for (at, bt, dt) in cases {
            let kind = WgmmaKind {
                n: 16,
                atype: at,
                btype: bt,
                dtype: dt,
                a_in_regs: false,
                satfinite: false,
                negate_a: false,
                negate_b: false,
                trans_a: false,
                trans_b: false,
            };
            assert!(kind.valid_types(), "{kind:?}");
            let k = kind.k();
            let signed = !matches!(at, U8);
            let av =
                |m: usize, kk: usize| ((m * 3 + kk * 5) % 7) as i32 - if signed { 3 } else { 0 };
            let bv = |kk: usize, n: usize| ((kk + 2 * n) % 5) as i32 - if bt == U8 { 0 } else { 2 };
            let (ab, bb) = (at.bytes(), bt.bytes());
            // K-major, no swizzle: 8-row core groups of 16-byte rows, K blocks
            // 128 bytes apart, groups 128 * (32 / 16) bytes apart.
            let desc_a = (8u64 << 16) | (16u64 << 32);
            let desc_b = (2048 / 16) | (8u64 << 16) | (16u64 << 32);
            let mut shared = vec![0u8; 4096];
            for m in 0..64 {
                for kk in 0..k {
                    put(&mut shared, desc_a, m, kk, ab, enc(at, av(m, kk)));
                }
            }
            for n in 0..16 {
                for kk in 0..k {
                    put(&mut shared, desc_b, n, kk, bb, enc(bt, bv(kk, n)));
                }
            }
            let per = 4 / ab;
            for warp in 0..4 {
                let a_regs: [[u64; 4]; 32] = std::array::from_fn(|lane| {
                    let (g, t) = (lane / 4, lane % 4);
                    std::array::from_fn(|r| {
                        let row = 16 * warp + g + 8 * (r % 2);
                        (0..per).fold(0u64, |acc, i| {
                            let col = per * t + i + 4 * per * (r / 2);
                            acc | ((enc(at, av(row, col)) as u64) << (8 * ab * i))
                        })
                    })
                });
                let c_bits = |row: usize, col: usize| -> u64 {
                    let c = (row + col) as i32 - 20;
                    match dt {
                        WgmmaAcc::F32 => (c as f32).to_bits() as u64,
                        WgmmaAcc::F16 => f16::from_f32(c as f32).to_bits() as u64,
                        WgmmaAcc::S32 => c as u32 as u64,
                    }
                };
                let init: Vec<Vec<u64>> = (0..32)
                    .map(|lane| {
                        let (g, t) = (lane / 4, lane % 4);
                        (0..kind.acc_regs())
                            .map(|r| {
                                if dt == WgmmaAcc::F16 {
                                    let (j, q) = (r / 2, r % 2);
                                    let (row, col) = (g + 8 * q, 8 * j + 2 * t);
                                    c_bits(row, col) | (c_bits(row, col + 1) << 16)
                                } else {
                                    let (j, q) = (r / 4, r % 4);
                                    c_bits(g + 8 * (q / 2), 8 * j + 2 * t + q % 2)
                                }
                            })
                            .collect()
                    })
                    .collect();
                let mut outs = Vec::new();
                for in_regs in [false, true] {
                    let kind = WgmmaKind {
                        a_in_regs: in_regs,
                        ..kind
                    };
                    let mut acc = init.clone();
                    wgmma_warp(
                        &kind, warp, desc_a, &a_regs, desc_b, true, &shared, &mut acc,
                    )
                    .unwrap();
                    outs.push(acc);
                }
                assert_eq!(outs[0], outs[1], "{kind:?} warp {warp}");
                let mut want = init.clone();
                for (lane, regs) in want.iter_mut().enumerate() {
                    let (g, t) = (lane / 4, lane % 4);
                    for (r, reg) in regs.iter_mut().enumerate() {
                        let value = |row: usize, col: usize| {
                            let c = (row + col) as i32 - 20;
                            let dot: i32 =
                                (0..k).map(|kk| av(16 * warp + row, kk) * bv(kk, col)).sum();
                            dot + c
                        };
                        *reg = match dt {
                            WgmmaAcc::F16 => {
                                let (j, q) = (r / 2, r % 2);
                                let (row, col) = (g + 8 * q, 8 * j + 2 * t);
                                let h = |v: i32| f16::from_f32(v as f32).to_bits() as u64;
                                h(value(row, col)) | (h(value(row, col + 1)) << 16)
                            }
                            _ => {
                                let (j, q) = (r / 4, r % 4);
                                let v = value(g + 8 * (q / 2), 8 * j + 2 * t + q % 2);
                                if dt == WgmmaAcc::S32 {
                                    v as u32 as u64
                                } else {
                                    (v as f32).to_bits() as u64
                                }
                            }
                        };
                    }
                }
                assert_eq!(outs[0], want, "{kind:?} warp {warp}");
            }
        }
    }

    #[test]
    fn integer_wgmma_saturates_with_satfinite() {
        let mut kind = WgmmaKind {
            n: 8,
            atype: WgmmaInput::U8,
            btype: WgmmaInput::U8,
            dtype: WgmmaAcc::S32,
            a_in_regs: true,
            satfinite: false,
            negate_a: false,
            negate_b: false,
            trans_a: false,
            trans_b: false,
        };
        let desc_b = (8u64 << 16) | (16u64 << 32);
        let shared = vec![0xFFu8; 1024];
        let a_regs = [[0xFFFF_FFFFu64; 4]; 32];
        let big = (i32::MAX - 10) as u32 as u64;
        let mut acc = vec![vec![big; 4]; 32];
        wgmma_warp(&kind, 0, 0, &a_regs, desc_b, true, &shared, &mut acc).unwrap();
        let sum = (i32::MAX - 10) as i64 + 32 * 255 * 255;
        assert_eq!(acc[7][3], sum as i32 as u32 as u64, "wraps");
        kind.satfinite = true;
        let mut acc = vec![vec![big; 4]; 32];
        wgmma_warp(&kind, 0, 0, &a_regs, desc_b, true, &shared, &mut acc).unwrap();
        assert_eq!(acc[7][3], i32::MAX as u32 as u64, "clamps");
    }
}
