//! Bit-level description of the four float formats (f16, bf16, f32, f64),
//! their special values, and exact rounding of an `f64` into the narrower
//! ones under every IEEE rounding mode.
//!
//! The narrow formats are computed through `f64`: an operation on f16, bf16
//! or f32 operands is evaluated in `f64` and, when that is not exact, turned
//! into its *round-to-odd* value (the truncation of the exact result with its
//! last bit forced to 1 when inexact). Round-to-odd to 53 bits followed by
//! any rounding to `p <= 51` bits gives the same result as rounding the exact
//! value once (Boldo & Melquiond, "Emulation of FMA and correctly rounded
//! sums: proved algorithms using rounding to odd", IEEE TC 2008). All three
//! narrow formats have `p <= 24`, so [`round_f64`] applied to such a value is
//! the single correct rounding the PTX ISA requires.
use crate::ir::ops::Rounding;

/// A binary interchange format: exponent and fraction field widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fmt {
    pub ebits: u32,
    pub mbits: u32,
}

pub(crate) const F16: Fmt = Fmt {
    ebits: 5,
    mbits: 10,
};
pub(crate) const BF16: Fmt = Fmt { ebits: 8, mbits: 7 };
pub(crate) const F32: Fmt = Fmt {
    ebits: 8,
    mbits: 23,
};
pub(crate) const F64: Fmt = Fmt {
    ebits: 11,
    mbits: 52,
};

/// The NaN that f64 operations generate for invalid operations
/// (`inf - inf`, `0 * inf`, `sqrt(-1)`): measured on an H100, it is the
/// negative default NaN `0xFFF8_0000_0000_0000`.
pub(crate) const F64_DEFAULT_NAN: u64 = 0xFFF8_0000_0000_0000;

impl Fmt {
    pub const fn width(self) -> u32 {
        1 + self.ebits + self.mbits
    }
    pub const fn mask(self) -> u64 {
        if self.width() == 64 {
            u64::MAX
        } else {
            (1u64 << self.width()) - 1
        }
    }
    pub const fn sign_bit(self) -> u64 {
        1u64 << (self.ebits + self.mbits)
    }
    pub const fn exp_mask(self) -> u64 {
        ((1u64 << self.ebits) - 1) << self.mbits
    }
    pub const fn frac_mask(self) -> u64 {
        (1u64 << self.mbits) - 1
    }
    pub const fn bias(self) -> i32 {
        (1i32 << (self.ebits - 1)) - 1
    }
    /// Magnitude bits (sign cleared).
    pub const fn abs(self, x: u64) -> u64 {
        x & self.mask() & !self.sign_bit()
    }
    pub const fn is_neg(self, x: u64) -> bool {
        x & self.sign_bit() != 0
    }
    pub const fn is_nan(self, x: u64) -> bool {
        self.abs(x) > self.exp_mask()
    }
    pub const fn is_inf(self, x: u64) -> bool {
        self.abs(x) == self.exp_mask()
    }
    pub const fn is_subnormal(self, x: u64) -> bool {
        let a = self.abs(x);
        a != 0 && a & self.exp_mask() == 0
    }
    /// The NaN the GPU returns from f16, bf16 and f32 arithmetic: all
    /// magnitude bits set, sign clear (`0x7FFF`, `0x7FFF_FFFF`; measured on an
    /// H100). For f64 (which propagates payloads) this is only used where the
    /// ISA names a canonical NaN.
    pub const fn canonical_nan(self) -> u64 {
        self.mask() >> 1
    }
    pub const fn quiet(self, x: u64) -> u64 {
        (x | (1u64 << (self.mbits - 1))) & self.mask()
    }
    pub const fn inf(self, neg: bool) -> u64 {
        self.exp_mask() | if neg { self.sign_bit() } else { 0 }
    }
    pub const fn zero(self, neg: bool) -> u64 {
        if neg {
            self.sign_bit()
        } else {
            0
        }
    }
    pub const fn max_finite(self, neg: bool) -> u64 {
        (self.exp_mask() - (1u64 << self.mbits)) | self.frac_mask() | self.zero(neg)
    }
    pub const fn one(self) -> u64 {
        (self.bias() as u64) << self.mbits
    }
    /// Subnormals become zero of the same sign (`.ftz`).
    pub const fn flush(self, x: u64) -> u64 {
        let x = x & self.mask();
        if self.is_subnormal(x) {
            x & self.sign_bit()
        } else {
            x
        }
    }
    /// Flushes when `ftz` is set.
    pub const fn flush_if(self, ftz: bool, x: u64) -> u64 {
        if ftz {
            self.flush(x)
        } else {
            x & self.mask()
        }
    }

    /// The exact value of a non-NaN `x` of this format as an `f64` (every
    /// f16, bf16 and f32 value is representable in f64).
    pub fn to_f64(self, x: u64) -> f64 {
        if self == F64 {
            return f64::from_bits(x);
        }
        if self == F32 {
            // The host's widening is exact (subnormals included).
            return f32::from_bits(x as u32) as f64;
        }
        self.to_f64_bits(x)
    }

    /// `to_f64` worked out on the bits.
    fn to_f64_bits(self, x: u64) -> f64 {
        let neg = self.is_neg(x);
        let a = self.abs(x);
        let e = (a >> self.mbits) as i32;
        let f = a & self.frac_mask();
        let mag = if e == 0 {
            f as f64 * exp2i(1 - self.bias() - self.mbits as i32)
        } else if a >= self.exp_mask() {
            if f == 0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        } else {
            (f | (1u64 << self.mbits)) as f64 * exp2i(e - self.bias() - self.mbits as i32)
        };
        if neg {
            -mag
        } else {
            mag
        }
    }
}

/// `2^e` for `-1022 <= e <= 1023`, exactly.
pub(crate) fn exp2i(e: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&e));
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// Rounds a non-NaN `f64` (exact, or in round-to-odd form) to `fmt` with
/// `mode`, handling subnormal results, overflow (to infinity or the largest
/// finite value, as the mode dictates) and signed zeros.
pub(crate) fn round_f64(fmt: Fmt, x: f64, mode: Rounding) -> u64 {
    if fmt == F32 && mode == Rounding::Rn && !x.is_nan() {
        // The host's conversion is this rounding (IEEE 754 round to
        // nearest even, with subnormals, overflow and signed zeros).
        return (x as f32).to_bits() as u64;
    }
    round_f64_bits(fmt, x, mode)
}

/// `round_f64` worked out on the bits, for every format and mode.
fn round_f64_bits(fmt: Fmt, x: f64, mode: Rounding) -> u64 {
    let neg = x.is_sign_negative();
    let sign = fmt.zero(neg);
    if x.is_nan() {
        return fmt.canonical_nan();
    }
    if x.is_infinite() {
        return fmt.inf(neg);
    }
    if x == 0.0 {
        return sign;
    }
    let b = x.to_bits();
    let ef = ((b >> 52) & 0x7ff) as i32;
    let frac = b & ((1u64 << 52) - 1);
    // |x| = m * 2^e with m an integer.
    let (m, e) = if ef == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), ef - 1075)
    };
    let top = 63 - m.leading_zeros() as i32;
    let exp = e + top; // floor(log2 |x|)
    let emin = 1 - fmt.bias();
    // Exponent of the unit in the last place of the result.
    let mut q = exp.max(emin) - fmt.mbits as i32;
    let shift = q - e;
    let (mut kept, round, sticky) = if shift <= 0 {
        (m << (-shift) as u32, false, false)
    } else if shift < 64 {
        let s = shift as u32;
        let kept = m >> s;
        let round = (m >> (s - 1)) & 1 == 1;
        let sticky = m & ((1u64 << (s - 1)) - 1) != 0;
        (kept, round, sticky)
    } else {
        (0, false, true)
    };
    let inexact = round || sticky;
    let up = match mode {
        Rounding::Rn => round && (sticky || kept & 1 == 1),
        Rounding::Rna => round,
        Rounding::Rz => false,
        Rounding::Rm => neg && inexact,
        Rounding::Rp => !neg && inexact,
    };
    if up {
        kept += 1;
    }
    if kept == 0 {
        return sign;
    }
    if kept >> (fmt.mbits + 1) != 0 {
        kept >>= 1;
        q += 1;
    }
    let bits = if kept >> fmt.mbits == 0 {
        kept // subnormal
    } else {
        let biased = q + fmt.mbits as i32 + fmt.bias();
        if biased >= (1 << fmt.ebits) - 1 {
            return overflow(fmt, neg, mode);
        }
        ((biased as u64) << fmt.mbits) | (kept & fmt.frac_mask())
    };
    bits | sign
}

/// The result of a finite value too large for `fmt` under `mode`.
pub(crate) fn overflow(fmt: Fmt, neg: bool, mode: Rounding) -> u64 {
    let to_inf = match mode {
        Rounding::Rn | Rounding::Rna => true,
        Rounding::Rz => false,
        Rounding::Rm => neg,
        Rounding::Rp => !neg,
    };
    if to_inf {
        fmt.inf(neg)
    } else {
        fmt.max_finite(neg)
    }
}

/// Round-to-odd of a value known as `s` (its round-to-nearest in f64) and the
/// sign of the exact error `exact - s` (`err`; 0 when `s` is exact): keeps
/// `s` when exact or when its last bit is already odd, else moves one ulp
/// toward the exact value (which makes the last bit odd).
pub(crate) fn round_odd(s: f64, err: f64) -> f64 {
    if err == 0.0 || s.to_bits() & 1 == 1 || !s.is_finite() || s == 0.0 {
        return s;
    }
    let away = (err > 0.0) == (s > 0.0);
    f64::from_bits(if away {
        s.to_bits() + 1
    } else {
        s.to_bits() - 1
    })
}

/// The exact error of `s = a + b` (Knuth's TwoSum; valid without overflow).
pub(crate) fn two_sum_err(a: f64, b: f64, s: f64) -> f64 {
    let bb = s - a;
    (a - (s - bb)) + (b - bb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Rounding::*;

    fn p2(e: i32) -> f64 {
        exp2i(e)
    }

    /// The host's f32 -> f64 widening (the fast path) agrees with the
    /// value worked out on the bits, for every non-NaN f32.
    #[test]
    fn f32_widening_matches_the_bits() {
        let mut x = 0u64;
        while x <= u32::MAX as u64 {
            if !F32.is_nan(x) {
                assert_eq!(
                    F32.to_f64(x).to_bits(),
                    F32.to_f64_bits(x).to_bits(),
                    "{x:#x}"
                );
            }
            x += 0x1_0001;
        }
        for x in [
            0,
            1,
            0x8000_0001,
            0x007F_FFFF,
            0x0080_0000,
            0x7F7F_FFFF,
            0x7F80_0000,
        ] {
            assert_eq!(
                F32.to_f64(x).to_bits(),
                F32.to_f64_bits(x).to_bits(),
                "{x:#x}"
            );
        }
    }

    /// The host's f64 -> f32 conversion (the fast path) agrees with the
    /// rounding worked out on the bits: ties, subnormals, overflow, zeros.
    #[test]
    fn f32_fast_path_matches_the_bits() {
        let mut next = crate::testing::xorshift(0x853c_49e6_748f_ea9bu64);
        let mut cases = vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
        ];
        for _ in 0..200_000 {
            let r = next();
            // Exponents around f32's range (subnormals, overflow), and
            // fractions with few low bits set (ties and near-ties).
            let e = 1023 - 160 + (r % 300);
            let frac = match (r >> 9) % 3 {
                0 => next() & ((1 << 52) - 1),
                1 => (next() & 0x7F_FFFF) << 29 | 1 << 28,
                _ => (next() & 0x7F_FFFF) << 29 | (r >> 20) & 0x1FFF_FFFF,
            };
            cases.push(f64::from_bits((r >> 63) << 63 | e << 52 | frac));
        }
        for x in cases {
            assert_eq!(round_f64(F32, x, Rn), round_f64_bits(F32, x, Rn), "{x:e}");
        }
    }

    #[test]
    fn field_helpers() {
        assert_eq!(F16.mask(), 0xFFFF);
        assert_eq!(F64.mask(), u64::MAX);
        assert_eq!(F32.sign_bit(), 0x8000_0000);
        assert_eq!(BF16.exp_mask(), 0x7F80);
        assert_eq!(F16.bias(), 15);
        assert_eq!(F16.one(), 0x3C00);
        assert_eq!(BF16.one(), 0x3F80);
        assert_eq!(F32.one(), 0x3F80_0000);
        assert_eq!(F64.one(), 0x3FF0_0000_0000_0000);
        assert_eq!(F16.max_finite(false), 0x7BFF);
        assert_eq!(F32.max_finite(true), 0xFF7F_FFFF);
        assert_eq!(F16.canonical_nan(), 0x7FFF);
        assert_eq!(F32.canonical_nan(), 0x7FFF_FFFF);
        assert_eq!(F32.quiet(0x7F80_0001), 0x7FC0_0001);
        assert_eq!(F64.quiet(0xFFF0_0000_0000_0001), 0xFFF8_0000_0000_0001);
    }

    #[test]
    fn classification() {
        assert!(F16.is_nan(0x7C01) && F16.is_nan(0xFFFF) && !F16.is_nan(0x7C00));
        assert!(F16.is_inf(0xFC00) && !F16.is_inf(0x7BFF));
        assert!(F32.is_subnormal(0x0000_0001) && F32.is_subnormal(0x807F_FFFF));
        assert!(!F32.is_subnormal(0x0080_0000) && !F32.is_subnormal(0x8000_0000));
        assert!(BF16.is_neg(0x8000) && !BF16.is_neg(0x7F80));
        // Bits above the width are ignored.
        assert!(!F16.is_nan(0xFFFF_0000) && F16.is_nan(0x1_7E00));
    }

    #[test]
    fn flush_keeps_sign_and_normals() {
        assert_eq!(F32.flush(0x0000_0001), 0);
        assert_eq!(F32.flush(0x807F_FFFF), 0x8000_0000);
        assert_eq!(F32.flush(0x0080_0000), 0x0080_0000);
        assert_eq!(F16.flush(0x83FF), 0x8000);
        assert_eq!(F16.flush(0x7E00), 0x7E00);
        assert_eq!(F16.flush_if(false, 0x1_0001), 0x0001);
        assert_eq!(F64.flush(1), 0);
    }

    #[test]
    fn to_f64_is_exact() {
        assert_eq!(F16.to_f64(0x3C00), 1.0);
        assert_eq!(F16.to_f64(0x0001), p2(-24));
        assert_eq!(F16.to_f64(0x7BFF), 65504.0);
        assert_eq!(F16.to_f64(0xC000), -2.0);
        assert_eq!(F16.to_f64(0x03FF), 1023.0 * p2(-24));
        assert_eq!(BF16.to_f64(0x3F80), 1.0);
        assert_eq!(BF16.to_f64(0x0001), p2(-133));
        assert_eq!(BF16.to_f64(0x7F7F), 255.0 * p2(120));
        assert_eq!(F32.to_f64(0x0000_0001), p2(-149));
        assert_eq!(F32.to_f64(0x3EAA_AAAB), f32::from_bits(0x3EAA_AAAB) as f64);
        assert_eq!(F16.to_f64(0xFC00), f64::NEG_INFINITY);
        assert!(F16.to_f64(0x7E00).is_nan());
        assert_eq!(F16.to_f64(0x8000).to_bits(), (-0.0f64).to_bits());
    }

    #[test]
    fn round_nearest_ties_to_even() {
        // f16 ulp at 1.0 is 2^-10: 1 + 2^-11 is a tie -> 1.0 (even).
        assert_eq!(round_f64(F16, 1.0 + p2(-11), Rn), 0x3C00);
        // 1 + 3*2^-11 is a tie between 0x3C01 and 0x3C02 -> even 0x3C02.
        assert_eq!(round_f64(F16, 1.0 + 3.0 * p2(-11), Rn), 0x3C02);
        // Just above the tie rounds up.
        assert_eq!(round_f64(F16, 1.0 + p2(-11) + p2(-30), Rn), 0x3C01);
        // Ties away from zero.
        assert_eq!(round_f64(F16, 1.0 + p2(-11), Rna), 0x3C01);
        assert_eq!(round_f64(F16, -(1.0 + p2(-11)), Rna), 0xBC01);
        // bf16: 1 + 2^-8 is a tie -> 1.0.
        assert_eq!(round_f64(BF16, 1.0 + p2(-8), Rn), 0x3F80);
        // f32: 1 + 2^-24 is a tie -> 1.0; 1 + 2^-24 + 2^-40 -> up.
        assert_eq!(round_f64(F32, 1.0 + p2(-24), Rn), 0x3F80_0000);
        assert_eq!(round_f64(F32, 1.0 + p2(-24) + p2(-40), Rn), 0x3F80_0001);
    }

    #[test]
    fn round_directed() {
        let x = 1.0 + p2(-12); // between 0x3C00 and 0x3C01 in f16
        assert_eq!(round_f64(F16, x, Rz), 0x3C00);
        assert_eq!(round_f64(F16, x, Rm), 0x3C00);
        assert_eq!(round_f64(F16, x, Rp), 0x3C01);
        assert_eq!(round_f64(F16, -x, Rz), 0xBC00);
        assert_eq!(round_f64(F16, -x, Rm), 0xBC01);
        assert_eq!(round_f64(F16, -x, Rp), 0xBC00);
        // Exact values are unchanged in every mode.
        for m in [Rn, Rz, Rm, Rp, Rna] {
            assert_eq!(round_f64(F16, 1.5, m), 0x3E00);
            assert_eq!(round_f64(F32, -0.75, m), 0xBF40_0000);
        }
        // Rounding up across a binade: 2 - 2^-12 -> 2.0 (0x4000) under Rp.
        assert_eq!(round_f64(F16, 2.0 - p2(-12), Rp), 0x4000);
        assert_eq!(round_f64(F16, 2.0 - p2(-12), Rz), 0x3FFF);
    }

    #[test]
    fn round_overflow_by_mode() {
        // f16 max is 65504; 65520 is the tie with 65536 -> inf under Rn.
        assert_eq!(round_f64(F16, 65520.0, Rn), 0x7C00);
        assert_eq!(round_f64(F16, 65519.0, Rn), 0x7BFF);
        assert_eq!(round_f64(F16, 1e6, Rz), 0x7BFF);
        assert_eq!(round_f64(F16, 1e6, Rm), 0x7BFF);
        assert_eq!(round_f64(F16, 1e6, Rp), 0x7C00);
        assert_eq!(round_f64(F16, -1e6, Rm), 0xFC00);
        assert_eq!(round_f64(F16, -1e6, Rp), 0xFBFF);
        assert_eq!(round_f64(F16, -1e6, Rz), 0xFBFF);
        assert_eq!(round_f64(F32, 1e300, Rn), 0x7F80_0000);
        assert_eq!(round_f64(F32, 1e300, Rz), 0x7F7F_FFFF);
        assert_eq!(round_f64(BF16, -1e300, Rn), 0xFF80);
        // Just above f16 max but below the tie: stays finite under Rn, up under Rp.
        assert_eq!(round_f64(F16, 65504.0 + 1.0, Rn), 0x7BFF);
        assert_eq!(round_f64(F16, 65504.0 + 1.0, Rp), 0x7C00);
    }

    #[test]
    fn round_subnormal_results() {
        assert_eq!(round_f64(F16, p2(-24), Rn), 0x0001);
        // 2^-25 is the tie between 0 and 2^-24 -> 0 (even).
        assert_eq!(round_f64(F16, p2(-25), Rn), 0x0000);
        assert_eq!(round_f64(F16, -p2(-25), Rn), 0x8000);
        assert_eq!(round_f64(F16, p2(-25) + p2(-40), Rn), 0x0001);
        assert_eq!(round_f64(F16, 3.0 * p2(-26), Rn), 0x0001);
        assert_eq!(round_f64(F16, p2(-60), Rp), 0x0001);
        assert_eq!(round_f64(F16, p2(-60), Rn), 0x0000);
        assert_eq!(round_f64(F16, -p2(-60), Rm), 0x8001);
        assert_eq!(round_f64(F16, -p2(-1000), Rm), 0x8001);
        // Largest subnormal rounding up to the smallest normal.
        assert_eq!(round_f64(F16, 1023.5 * p2(-24) + p2(-40), Rn), 0x0400);
        assert_eq!(round_f64(F32, p2(-149), Rn), 1);
        assert_eq!(round_f64(F32, 1.5 * p2(-149), Rn), 2);
        assert_eq!(round_f64(BF16, p2(-133), Rz), 1);
        assert_eq!(round_f64(BF16, p2(-134), Rn), 0);
    }

    #[test]
    fn round_special_inputs() {
        assert_eq!(round_f64(F16, 0.0, Rm), 0);
        assert_eq!(round_f64(F16, -0.0, Rp), 0x8000);
        assert_eq!(round_f64(F32, f64::INFINITY, Rz), 0x7F80_0000);
        assert_eq!(round_f64(F32, f64::NEG_INFINITY, Rz), 0xFF80_0000);
        assert_eq!(round_f64(F32, f64::NAN, Rn), 0x7FFF_FFFF);
    }

    #[test]
    fn overflow_helper() {
        assert_eq!(overflow(F32, false, Rm), 0x7F7F_FFFF);
        assert_eq!(overflow(F32, true, Rm), 0xFF80_0000);
        assert_eq!(overflow(BF16, false, Rna), 0x7F80);
    }

    #[test]
    fn round_to_odd_and_two_sum() {
        let one = 1.0f64;
        // Exact: unchanged.
        assert_eq!(round_odd(one, 0.0), one);
        // 1.0 has an even last bit: move toward the error.
        assert_eq!(round_odd(one, 1e-30).to_bits(), one.to_bits() + 1);
        assert_eq!(round_odd(one, -1e-30).to_bits(), one.to_bits() - 1);
        assert_eq!(round_odd(-one, -1e-30).to_bits(), (-one).to_bits() + 1);
        // Already odd: unchanged.
        let odd = f64::from_bits(one.to_bits() + 1);
        assert_eq!(round_odd(odd, -1e-30), odd);
        // TwoSum recovers the lost low part.
        let (a, b) = (1.0, p2(-60));
        let s = a + b;
        assert_eq!(s, 1.0);
        assert_eq!(two_sum_err(a, b, s), p2(-60));
        assert_eq!(two_sum_err(3.0, 4.0, 7.0), 0.0);
    }
}
