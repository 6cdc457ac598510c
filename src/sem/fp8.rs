//! Conversions between f32/f16x2 and pairs of 8-bit floats (PTX ISA
//! §9.7.9.21, `cvt` with `.e4m3x2`/`.e5m2x2`): e4m3 (bias 7, no
//! infinities, S.1111.111 the NaN) and e5m2 (bias 15, IEEE-style
//! infinities and NaNs). Narrowing rounds to nearest even and saturates
//! (`.satfinite`, which the ISA requires): a magnitude beyond the largest
//! finite value, infinities included, gives that value with its sign; NaN
//! gives the NaN 0x7f. `.relu` turns negative results (and -0) into +0.
//! Widening to f16 is exact; a NaN of either format becomes f16's
//! canonical NaN 0x7fff, any other e5m2 value moves unchanged into f16's
//! high byte (e5m2 is f16 with its low byte dropped). Checked against an
//! H100 (sample `cuda/fp8_convert`, ptx-samples/hw/h100-gpucheck.json):
//! the e5m2 NaN's widening to 0x7fff is what it showed.

pub use crate::ir::Fp8;
use crate::sem::mma_forms::fp8_value;
use crate::sem::tensor::MmaType;

/// Mantissa bits, exponent bias, the largest finite code.
fn layout(ty: Fp8) -> (i32, i32, u8) {
    match ty {
        Fp8::E4m3 => (3, 7, 0x7e),
        Fp8::E5m2 => (2, 15, 0x7b),
    }
}

/// What `OpKind::CvtFp8` computes from its sources (the bits of `a`, `b`).
pub fn eval(form: crate::ir::Fp8Cvt, ty: Fp8, relu: bool, a: u64, b: u64) -> u64 {
    use crate::ir::Fp8Cvt::*;
    match form {
        FromF32 => pack_f32(f32::from_bits(a as u32), f32::from_bits(b as u32), ty, relu) as u64,
        FromF16x2 => pack_f16x2(a as u32, ty, relu) as u64,
        ToF16x2 => unpack_f16x2(a as u16, ty, relu) as u64,
    }
}

/// `v` (an f32 or f16 value, exact in f64) as an 8-bit float.
pub fn encode(v: f64, ty: Fp8, relu: bool) -> u8 {
    const NAN: u8 = 0x7f;
    if v.is_nan() {
        return NAN;
    }
    if relu && (v < 0.0 || (v == 0.0 && v.is_sign_negative())) {
        return 0;
    }
    let sign = if v.is_sign_negative() { 0x80 } else { 0 };
    let (mbits, bias, max_code) = layout(ty);
    let a = v.abs();
    if a == 0.0 {
        return sign;
    }
    let min_exp = 1 - bias;
    let exp = if a.is_infinite() {
        i32::MAX
    } else {
        (((a.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(min_exp)
    };
    if exp > 2 * bias {
        return sign | max_code;
    }
    // The quantum at this exponent; the quotient is exact (a has at most
    // 24 significant bits) and rounds to nearest even.
    let q = (a / 2f64.powi(exp - mbits)).round_ties_even() as i32;
    // Subnormals (exp == min_exp, q < 2^mbits) come out as q itself, and
    // a mantissa that rounds up to 2^(mbits+1) carries into the exponent.
    let code = ((exp + bias) << mbits) + q - (1 << mbits);
    sign | (code.min(max_code as i32) as u8)
}

/// An 8-bit float as f16 bits.
pub fn to_f16(bits: u8, ty: Fp8, relu: bool) -> u16 {
    let v = fp8_value(
        match ty {
            Fp8::E4m3 => MmaType::E4m3,
            Fp8::E5m2 => MmaType::E5m2,
        },
        bits,
    );
    if v.is_nan() {
        return 0x7fff;
    }
    if relu && (v < 0.0 || bits == 0x80) {
        return 0;
    }
    match ty {
        Fp8::E5m2 => (bits as u16) << 8,
        Fp8::E4m3 => half::f16::from_f64(v).to_bits(),
    }
}

/// `cvt.rn.satfinite{.relu}.<f8>x2.f32 d, a, b`: `a` to the high byte.
pub fn pack_f32(a: f32, b: f32, ty: Fp8, relu: bool) -> u16 {
    (encode(a as f64, ty, relu) as u16) << 8 | encode(b as f64, ty, relu) as u16
}

/// `cvt.rn.satfinite{.relu}.<f8>x2.f16x2 d, a`: each half of `a`, the high
/// one to the high byte.
pub fn pack_f16x2(a: u32, ty: Fp8, relu: bool) -> u16 {
    let half = |h: u16| half::f16::from_bits(h).to_f64();
    let hi = encode(half((a >> 16) as u16), ty, relu);
    let lo = encode(half(a as u16), ty, relu);
    (hi as u16) << 8 | lo as u16
}

/// `cvt.rn{.relu}.f16x2.<f8>x2 d, a`: each byte of `a` to its half.
pub fn unpack_f16x2(a: u16, ty: Fp8, relu: bool) -> u32 {
    (to_f16((a >> 8) as u8, ty, relu) as u32) << 16 | to_f16(a as u8, ty, relu) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips_through_f64() {
        for ty in [Fp8::E4m3, Fp8::E5m2] {
            let mt = if ty == Fp8::E4m3 {
                MmaType::E4m3
            } else {
                MmaType::E5m2
            };
            for bits in 0..=255u8 {
                let v = fp8_value(mt, bits);
                let (_, _, max) = layout(ty);
                if v.is_nan() {
                    assert_eq!(encode(v, ty, false), 0x7f);
                } else if v.is_infinite() {
                    assert_eq!(encode(v, ty, false), (bits & 0x80) | max);
                } else {
                    assert_eq!(encode(v, ty, false), bits, "{ty:?} {bits:#x} {v}");
                }
            }
        }
    }

    #[test]
    fn rounding_saturation_and_relu() {
        // e4m3 around 1.0: quantum 1/8; ties to even.
        assert_eq!(encode(1.0625, Fp8::E4m3, false), 0x38); // tie to even (1.0)
        assert_eq!(encode(1.1875, Fp8::E4m3, false), 0x3a); // tie to even (1.25)
        assert_eq!(encode(1.07, Fp8::E4m3, false), 0x39);
        // Largest finite and beyond: 448 (0x7e); 464 ties to even 448;
        // 480 would be the NaN code, so it saturates; infinity too.
        assert_eq!(encode(448.0, Fp8::E4m3, false), 0x7e);
        assert_eq!(encode(464.0, Fp8::E4m3, false), 0x7e);
        assert_eq!(encode(500.0, Fp8::E4m3, false), 0x7e);
        assert_eq!(encode(-1e30, Fp8::E4m3, false), 0xfe);
        assert_eq!(encode(f64::INFINITY, Fp8::E5m2, false), 0x7b);
        assert_eq!(encode(f64::NEG_INFINITY, Fp8::E5m2, false), 0xfb);
        // Subnormals: e4m3's smallest is 2^-9; half of it ties to 0.
        assert_eq!(encode(2f64.powi(-9), Fp8::E4m3, false), 0x01);
        assert_eq!(encode(2f64.powi(-10), Fp8::E4m3, false), 0x00);
        assert_eq!(encode(1.5 * 2f64.powi(-10), Fp8::E4m3, false), 0x01);
        // 7.5 * 2^-9 rounds to 8 * 2^-9: the smallest normal, 0x08.
        assert_eq!(encode(7.5 * 2f64.powi(-9), Fp8::E4m3, false), 0x08);
        assert_eq!(encode(-0.0, Fp8::E4m3, false), 0x80);
        assert_eq!(encode(-0.0, Fp8::E4m3, true), 0x00);
        assert_eq!(encode(-3.0, Fp8::E5m2, true), 0x00);
        assert_eq!(encode(f64::NAN, Fp8::E5m2, true), 0x7f);
        // Packing order: a to the high byte.
        assert_eq!(pack_f32(1.0, -2.0, Fp8::E4m3, false), 0x38c0);
        assert_eq!(pack_f16x2(0x3c00_c000, Fp8::E5m2, false), 0x3cc0);
        assert_eq!(unpack_f16x2(0x38c0, Fp8::E4m3, false), 0x3c00_c000);
        assert_eq!(unpack_f16x2(0x7f7c, Fp8::E4m3, false), 0x7fff_5e00); // 384
        assert_eq!(unpack_f16x2(0x3cc0, Fp8::E5m2, true), 0x3c00_0000);
        // An e5m2 NaN widens to the canonical f16 NaN, not to 0x7f00
        // (measured on an H100: ptx-samples/hw/h100-gpucheck.json).
        assert_eq!(unpack_f16x2(0x7f5f, Fp8::E5m2, false), 0x7fff_5f00);
        assert_eq!(unpack_f16x2(0x247f, Fp8::E5m2, false), 0x2400_7fff);
    }
}
