//! Hopper's warpgroup MMA (`wgmma.mma_async.sync.aligned.m64nNk16`, PTX ISA
//! §9.7.15), executed one warp at a time.
//!
//! Both operands come from shared memory through 64-bit matrix descriptors:
//! bits 0–13 the start address >> 4, 16–29 the leading-dimension byte
//! offset >> 4 (LBO), 32–45 the stride-dimension byte offset >> 4 (SBO),
//! 49–51 the base offset, 62–63 the swizzle mode (0 none, 1 128-byte,
//! 2 64-byte, 3 32-byte). In the canonical layouts an operand is a stack of
//! 8-row core groups `SBO` bytes apart; each row holds `W` contiguous bytes
//! (`W` = the swizzle width, 16 without swizzle) along the contiguous
//! dimension (K for K-major, M/N for MN-major, selected by the transpose
//! immediates), further `W`-byte blocks `LBO` bytes apart; swizzling XORs
//! the 16-byte chunk index (address bits 4..) with address bits 7.. .
//!
//! D (64 x N) is spread over the warpgroup's 4 warps: warp `w` holds rows
//! `16w..16w+16`, each 8-column block `j` in registers `4j..4j+4` laid out
//! as an `mma.m16n8` accumulator. Because A and B are read from shared
//! memory, each warp computes its own rows independently. Numerics are
//! those of [`super::tensor`]: exact products summed in f64, rounded once.

use half::{bf16, f16};

/// The input type of a `wgmma` (accumulators are f32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WgmmaInput {
    F16,
    Bf16,
}

/// One `wgmma.mma_async.sync.aligned.m64nNk16.f32.atype.btype`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WgmmaKind {
    pub n: u16,
    pub input: WgmmaInput,
    /// `imm-scale-a`/`imm-scale-b`: 1 or -1.
    pub negate_a: bool,
    pub negate_b: bool,
    /// `imm-trans-a`/`imm-trans-b`: A is M-major / B is N-major.
    pub trans_a: bool,
    pub trans_b: bool,
}

impl WgmmaKind {
    /// Accumulator registers per thread (`N / 2` f32 values).
    pub fn acc_regs(&self) -> usize {
        self.n as usize / 2
    }

    pub fn valid_n(n: u16) -> bool {
        (8..=256).contains(&n) && n % 8 == 0
    }
}

/// Byte address in shared memory of element (`outer`, `inner`) of an operand
/// whose contiguous dimension is `inner` (elements of 2 bytes).
fn element_address(desc: u64, outer: usize, inner: usize) -> usize {
    let start = ((desc & 0x3FFF) << 4) as usize;
    let lbo = (((desc >> 16) & 0x3FFF) << 4) as usize;
    let sbo = (((desc >> 32) & 0x3FFF) << 4) as usize;
    let (width, mask) = match desc >> 62 {
        1 => (128, 7),
        2 => (64, 3),
        3 => (32, 1),
        _ => (16, 0),
    };
    let byte = inner * 2;
    let logical =
        start + (outer / 8) * sbo + (outer % 8) * width + (byte / width) * lbo + byte % width;
    logical ^ (((logical >> 7) & mask) << 4)
}

fn load(shared: &[u8], at: usize, input: WgmmaInput) -> Result<f64, String> {
    let b = shared.get(at..at + 2).ok_or_else(|| {
        format!("wgmma operand at shared offset {at:#x} is outside shared memory")
    })?;
    let bits = u16::from_le_bytes([b[0], b[1]]);
    Ok(match input {
        WgmmaInput::F16 => f16::from_bits(bits).to_f64(),
        WgmmaInput::Bf16 => bf16::from_bits(bits).to_f64(),
    })
}

/// Computes warp `warp_in_group`'s 16 rows of `D = A*B (+ D if scale_d)`,
/// updating `acc[lane][reg]` (f32 bits).
pub fn wgmma_warp(
    kind: &WgmmaKind,
    warp_in_group: usize,
    desc_a: u64,
    desc_b: u64,
    scale_d: bool,
    shared: &[u8],
    acc: &mut [Vec<u64>],
) -> Result<(), String> {
    const K: usize = 16;
    let n = kind.n as usize;
    // This warp's rows of A (16 x 16) and all of B (16 x N).
    let mut a = [[0f64; K]; 16];
    for (r, row) in a.iter_mut().enumerate() {
        let m = 16 * warp_in_group + r;
        for (k, v) in row.iter_mut().enumerate() {
            let at = if kind.trans_a {
                element_address(desc_a, k, m)
            } else {
                element_address(desc_a, m, k)
            };
            *v = load(shared, at, kind.input)?;
        }
    }
    let mut b = vec![[0f64; K]; n];
    for (col, bcol) in b.iter_mut().enumerate() {
        for (k, v) in bcol.iter_mut().enumerate() {
            let at = if kind.trans_b {
                element_address(desc_b, k, col)
            } else {
                element_address(desc_b, col, k)
            };
            *v = load(shared, at, kind.input)?;
        }
    }
    let sign = if kind.negate_a != kind.negate_b {
        -1.0
    } else {
        1.0
    };
    for (lane, regs) in acc.iter_mut().enumerate().take(32) {
        let (g, t) = (lane / 4, lane % 4);
        for j in 0..n / 8 {
            for (q, reg) in regs.iter_mut().skip(4 * j).take(4).enumerate() {
                let row = g + 8 * (q / 2);
                let col = 8 * j + 2 * t + (q % 2);
                let dot: f64 = (0..K).map(|k| a[row][k] * b[col][k]).sum::<f64>() * sign;
                let c = if scale_d {
                    f32::from_bits(*reg as u32) as f64
                } else {
                    0.0
                };
                *reg = ((dot + c) as f32).to_bits() as u64;
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
        assert_eq!(element_address(desc, 0, 0), 0);
        assert_eq!(element_address(desc, 1, 0), 128 + 16);
        assert_eq!(element_address(desc, 3, 8), 3 * 128 + ((1 ^ 3) * 16));
        assert_eq!(element_address(desc, 8, 0), 1024);
        // 64-byte swizzle, SBO 512: chunk c of row r at c ^ ((r >> 1) & 3).
        let desc = (2u64 << 62) | (32u64 << 32);
        assert_eq!(element_address(desc, 2, 0), 2 * 64 + 16);
        assert_eq!(element_address(desc, 8, 1), 512 + 2);
        // No swizzle: 16-byte rows, K blocks LBO apart.
        let desc = (8u64 << 16) | (16u64 << 32);
        assert_eq!(element_address(desc, 1, 9), 16 + 128 + 2);
    }

    #[test]
    fn computes_a_product_with_scale_and_accumulate() {
        // A 64x16 K-major, B 16x8 K-major, no swizzle: A[m][k] = m + k, B[k][n] = 1 if k == n.
        let kind = WgmmaKind {
            n: 8,
            input: WgmmaInput::F16,
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
                let at = element_address(desc_a, m, k);
                shared[at..at + 2]
                    .copy_from_slice(&f16::from_f32((m + k) as f32).to_bits().to_le_bytes());
            }
        }
        for n in 0..8 {
            for k in 0..16 {
                let at = element_address(desc_b, n, k);
                let v = if k == n { 1.0 } else { 0.0 };
                shared[at..at + 2].copy_from_slice(&f16::from_f32(v).to_bits().to_le_bytes());
            }
        }
        let mut acc: Vec<Vec<u64>> = vec![vec![2.0f32.to_bits() as u64; 4]; 32];
        wgmma_warp(&kind, 1, desc_a, desc_b, true, &shared, &mut acc).unwrap();
        // Lane 5: g = 1, t = 1: register 1 is D[16 + 1][3] = (17 + 3) + 2.
        assert_eq!(f32::from_bits(acc[5][1] as u32), 22.0);
        // Register 2 is D[16 + 9][2] = 25 + 2 + 2.
        assert_eq!(f32::from_bits(acc[5][2] as u32), 29.0);
    }
}
