//! Tests of `cvt`: expected values computed by hand from the ISA's rules;
//! the NaN, `.ftz` and `.relu` cases also match what an H100 returned.
use super::cvt;
use crate::ir::ops::{CvtMods, IntRounding, Rounding, Ty, Ty::*};

/// Modifiers from their PTX spelling, e.g. `md("rn.ftz.sat")`.
fn md(s: &str) -> CvtMods {
    let mut m = CvtMods::default();
    for t in s.split('.').filter(|t| !t.is_empty()) {
        match t {
            "rn" => m.rounding = Some(Rounding::Rn),
            "rz" => m.rounding = Some(Rounding::Rz),
            "rm" => m.rounding = Some(Rounding::Rm),
            "rp" => m.rounding = Some(Rounding::Rp),
            "rna" => m.rounding = Some(Rounding::Rna),
            "rni" => m.int_rounding = Some(IntRounding::Rni),
            "rzi" => m.int_rounding = Some(IntRounding::Rzi),
            "rmi" => m.int_rounding = Some(IntRounding::Rmi),
            "rpi" => m.int_rounding = Some(IntRounding::Rpi),
            "ftz" => m.ftz = true,
            "sat" => m.sat = true,
            "relu" => m.relu = true,
            "satfinite" => m.satfinite = true,
            _ => panic!("unknown modifier {t}"),
        }
    }
    m
}

fn f32b(v: f32) -> u64 {
    v.to_bits() as u64
}

fn f64b(v: f64) -> u64 {
    v.to_bits()
}

const F32_NAN: u64 = 0x7FFF_FFFF;
const H_NAN: u64 = 0x7FFF;

// ---------------------------------------------------------------- int -> int

#[test]
fn int_extension_follows_source_signedness() {
    assert_eq!(cvt(U32, S8, md(""), 0x80), 0xFFFF_FF80);
    assert_eq!(cvt(S32, U8, md(""), 0x80), 0x80);
    assert_eq!(cvt(S64, S32, md(""), 0x8000_0000), 0xFFFF_FFFF_8000_0000);
    assert_eq!(cvt(U64, U32, md(""), 0x8000_0000), 0x8000_0000);
    assert_eq!(cvt(S16, S8, md(""), 0xFF), 0xFFFF);
    assert_eq!(cvt(U64, S16, md(""), 0x8000), 0xFFFF_FFFF_FFFF_8000);
    // .bN types are unsigned.
    assert_eq!(cvt(B32, B8, md(""), 0x80), 0x80);
    assert_eq!(cvt(S32, B16, md(""), 0xFFFF), 0xFFFF);
}

#[test]
fn int_truncation_and_input_masking() {
    assert_eq!(cvt(U8, U32, md(""), 0x1234), 0x34);
    assert_eq!(cvt(S8, S32, md(""), (-129i32) as u32 as u64), 0x7F);
    assert_eq!(cvt(U16, S64, md(""), u64::MAX), 0xFFFF);
    assert_eq!(cvt(S32, U64, md(""), 0x1_2345_6789), 0x2345_6789);
    // Bits above the source width are ignored.
    assert_eq!(cvt(U32, U8, md(""), 0xFFFF_FF01), 1);
    assert_eq!(cvt(S32, S8, md(""), 0xABCD_0001), 1);
    assert_eq!(cvt(U64, U64, md(""), u64::MAX), u64::MAX);
}

#[test]
fn int_saturation_clamps_to_destination_range() {
    let m = md("sat");
    assert_eq!(cvt(S8, S32, m, (-129i32) as u32 as u64), 0x80);
    assert_eq!(cvt(S8, S32, m, 128), 0x7F);
    assert_eq!(cvt(S8, S32, m, (-128i32) as u32 as u64), 0x80);
    assert_eq!(cvt(S8, S32, m, 127), 0x7F);
    assert_eq!(cvt(U8, S32, m, (-1i32) as u32 as u64), 0);
    assert_eq!(cvt(U8, S32, m, 256), 0xFF);
    assert_eq!(cvt(U8, S32, m, 255), 0xFF);
    assert_eq!(cvt(U8, U16, m, 0x100), 0xFF);
    assert_eq!(cvt(S8, U8, m, 0x80), 0x7F);
    assert_eq!(cvt(U32, S64, m, u64::MAX), 0);
    assert_eq!(cvt(U32, S64, m, 0x1_0000_0000), 0xFFFF_FFFF);
    assert_eq!(cvt(S32, U32, m, 0x8000_0000), 0x7FFF_FFFF);
    assert_eq!(cvt(U64, S64, m, i64::MIN as u64), 0);
    assert_eq!(cvt(S64, U64, m, u64::MAX), i64::MAX as u64);
    assert_eq!(cvt(S16, S64, m, i64::MIN as u64), 0x8000);
    assert_eq!(cvt(U16, S8, m, 0xFF), 0);
    // Without .sat the same values wrap.
    assert_eq!(cvt(U8, S32, md(""), 256), 0);
    assert_eq!(cvt(S32, U32, md(""), 0x8000_0000), 0x8000_0000);
}

// -------------------------------------------------------------- int -> float

#[test]
fn u64_max_to_f32_with_each_rounding() {
    // 2^64 - 1 lies between 0x5F7FFFFF (2^64 - 2^40) and 2^64 (0x5F800000).
    assert_eq!(cvt(F32, U64, md("rn"), u64::MAX), 0x5F80_0000);
    assert_eq!(cvt(F32, U64, md(""), u64::MAX), 0x5F80_0000);
    assert_eq!(cvt(F32, U64, md("rz"), u64::MAX), 0x5F7F_FFFF);
    assert_eq!(cvt(F32, U64, md("rm"), u64::MAX), 0x5F7F_FFFF);
    assert_eq!(cvt(F32, U64, md("rp"), u64::MAX), 0x5F80_0000);
    assert_eq!(cvt(F32, U64, md("rna"), u64::MAX), 0x5F80_0000);
    assert_eq!(cvt(F64, U64, md("rz"), u64::MAX), 0x43EF_FFFF_FFFF_FFFF);
    assert_eq!(cvt(F64, U64, md("rn"), u64::MAX), 0x43F0_0000_0000_0000);
}

#[test]
fn int_to_float_ties_and_directions() {
    // 2^24 + 1: a tie between 2^24 and 2^24 + 2.
    let t = (1u64 << 24) + 1;
    assert_eq!(cvt(F32, U32, md("rn"), t), 0x4B80_0000);
    assert_eq!(cvt(F32, U32, md("rz"), t), 0x4B80_0000);
    assert_eq!(cvt(F32, U32, md("rm"), t), 0x4B80_0000);
    assert_eq!(cvt(F32, U32, md("rp"), t), 0x4B80_0001);
    assert_eq!(cvt(F32, U32, md("rna"), t), 0x4B80_0001);
    // 2^24 + 3: a tie between 2^24 + 2 (odd mantissa) and 2^24 + 4.
    assert_eq!(cvt(F32, U32, md("rn"), t + 2), 0x4B80_0002);
    assert_eq!(cvt(F32, U32, md("rz"), t + 2), 0x4B80_0001);
    // Negative: -(2^24 + 1).
    let n = (-(t as i32)) as u32 as u64;
    assert_eq!(cvt(F32, S32, md("rm"), n), 0xCB80_0001);
    assert_eq!(cvt(F32, S32, md("rp"), n), 0xCB80_0000);
    assert_eq!(cvt(F32, S32, md("rn"), n), 0xCB80_0000);
    // 2^53 + 1 to f64.
    let d = (1u64 << 53) + 1;
    assert_eq!(cvt(F64, U64, md("rn"), d), 0x4340_0000_0000_0000);
    assert_eq!(cvt(F64, U64, md("rp"), d), 0x4340_0000_0000_0001);
    assert_eq!(
        cvt(F64, S64, md("rm"), (-(d as i64)) as u64),
        0xC340_0000_0000_0001
    );
}

#[test]
fn int_to_float_exact_values() {
    assert_eq!(cvt(F32, S32, md("rn"), (-1i32) as u32 as u64), f32b(-1.0));
    assert_eq!(cvt(F32, S64, md("rz"), i64::MIN as u64), 0xDF00_0000);
    assert_eq!(cvt(F64, S32, md("rn"), 0x8000_0000), f64b(-2147483648.0));
    assert_eq!(cvt(F64, U32, md("rn"), 0xFFFF_FFFF), f64b(4294967295.0));
    assert_eq!(cvt(F16, S8, md("rn"), 0x80), 0xD800);
    assert_eq!(cvt(F16, U8, md("rn"), 0), 0);
    assert_eq!(cvt(Bf16, S16, md("rn"), (-1i16) as u16 as u64), 0xBF80);
    // The input is masked to the source width first.
    assert_eq!(cvt(F32, U8, md("rn"), 0xFF02), f32b(2.0));
}

#[test]
fn int_to_half_overflow_and_rounding() {
    // f16 max is 65504; 65520 is halfway to 2^16, which rounds to inf.
    assert_eq!(cvt(F16, U32, md("rn"), 65519), 0x7BFF);
    assert_eq!(cvt(F16, U32, md("rn"), 65520), 0x7C00);
    assert_eq!(cvt(F16, U32, md("rz"), 65520), 0x7BFF);
    assert_eq!(cvt(F16, U32, md("rm"), 1 << 20), 0x7BFF);
    assert_eq!(cvt(F16, U32, md("rp"), 65505), 0x7C00);
    assert_eq!(cvt(F16, S32, md("rm"), (-65505i32) as u32 as u64), 0xFC00);
    assert_eq!(cvt(F16, S32, md("rp"), (-65505i32) as u32 as u64), 0xFBFF);
    assert_eq!(cvt(F16, U32, md("rn.satfinite"), 65520), 0x7BFF);
    // 2049 is a tie between 2048 and 2050 in f16.
    assert_eq!(cvt(F16, U16, md("rn"), 2049), 0x6800);
    assert_eq!(cvt(F16, U16, md("rp"), 2049), 0x6801);
    assert_eq!(cvt(F16, U16, md("rna"), 2049), 0x6801);
    // bf16 keeps 8 significant bits: 257 is a tie between 256 and 258.
    assert_eq!(cvt(Bf16, U16, md("rn"), 257), 0x4380);
    assert_eq!(cvt(Bf16, U16, md("rp"), 257), 0x4381);
    assert_eq!(cvt(Bf16, U16, md("rn"), 259), 0x4382);
    assert_eq!(cvt(Bf16, U64, md("rz"), u64::MAX), 0x5F7F);
    assert_eq!(cvt(Bf16, U64, md("rn"), u64::MAX), 0x5F80);
}

#[test]
fn int_to_float_saturation() {
    assert_eq!(cvt(F32, S32, md("rn.sat"), 5), f32b(1.0));
    assert_eq!(cvt(F32, S32, md("rn.sat"), (-5i32) as u32 as u64), 0);
    assert_eq!(cvt(F32, S32, md("rn.sat"), 0), 0);
    assert_eq!(cvt(F64, U8, md("rn.sat"), 1), f64b(1.0));
    assert_eq!(cvt(F16, S8, md("rn.sat"), 0xFF), 0);
    assert_eq!(cvt(F16, U16, md("rn.sat"), 7), 0x3C00);
}

// -------------------------------------------------------------- float -> int

#[test]
fn float_to_int_rounding_modes_on_ties() {
    let cases: [(f32, [i32; 4]); 6] = [
        // value, [rni, rzi, rmi, rpi]
        (0.5, [0, 0, 0, 1]),
        (1.5, [2, 1, 1, 2]),
        (2.5, [2, 2, 2, 3]),
        (-0.5, [0, 0, -1, 0]),
        (-2.5, [-2, -2, -3, -2]),
        (2.7, [3, 2, 2, 3]),
    ];
    for (v, exp) in cases {
        for (mode, e) in ["rni", "rzi", "rmi", "rpi"].iter().zip(exp) {
            let got = cvt(S32, F32, md(mode), f32b(v));
            assert_eq!(got, e as u32 as u64, "cvt.{mode}.s32.f32 {v}");
            let got = cvt(S64, F64, md(mode), f64b(v as f64));
            assert_eq!(got, e as i64 as u64, "cvt.{mode}.s64.f64 {v}");
        }
    }
    // f16 1.5 and 2.5.
    assert_eq!(cvt(S16, F16, md("rni"), 0x3E00), 2);
    assert_eq!(cvt(S16, F16, md("rni"), 0x4100), 2);
    assert_eq!(cvt(U8, F16, md("rpi"), 0x4100), 3);
}

#[test]
fn float_to_int_default_rounding() {
    // No integer rounding given: .rzi, or the integral form of `rounding`.
    assert_eq!(cvt(S32, F32, md(""), f32b(2.7)), 2);
    assert_eq!(cvt(S32, F32, md(""), f32b(-2.7)), (-2i32) as u32 as u64);
    assert_eq!(cvt(S32, F32, md("rn"), f32b(2.5)), 2);
    assert_eq!(cvt(S32, F32, md("rn"), f32b(2.7)), 3);
    assert_eq!(cvt(S32, F32, md("rm"), f32b(-2.1)), (-3i32) as u32 as u64);
    assert_eq!(cvt(S32, F32, md("rp"), f32b(2.1)), 3);
    assert_eq!(cvt(S32, F32, md("rna"), f32b(2.5)), 3);
    assert_eq!(cvt(S32, F32, md("rna"), f32b(-2.5)), (-3i32) as u32 as u64);
}

#[test]
fn float_to_int_nan() {
    // Zero unless the source is f64 or the destination is 64 bits wide;
    // then 1 << (width - 1).
    let n32 = 0x7FC0_0000;
    assert_eq!(cvt(S32, F32, md("rni"), n32), 0);
    assert_eq!(cvt(U32, F32, md("rzi"), n32), 0);
    assert_eq!(cvt(U8, F32, md("rzi"), 0xFFFF_FFFF), 0);
    assert_eq!(cvt(S64, F32, md("rzi"), n32), 1 << 63);
    assert_eq!(cvt(U64, F32, md("rzi"), n32), 1 << 63);
    assert_eq!(cvt(S16, F16, md("rzi"), 0x7E00), 0);
    assert_eq!(cvt(U64, F16, md("rzi"), 0x7C01), 1 << 63);
    assert_eq!(cvt(S32, Bf16, md("rzi"), 0x7FC0), 0);
    let n64 = 0x7FF8_0000_0000_0000;
    assert_eq!(cvt(S32, F64, md("rzi"), n64), 0x8000_0000);
    assert_eq!(cvt(U32, F64, md("rzi"), n64), 0x8000_0000);
    assert_eq!(cvt(U8, F64, md("rzi"), n64), 0x80);
    assert_eq!(cvt(S16, F64, md("rni"), 0xFFF0_0000_0000_0001), 0x8000);
    assert_eq!(cvt(U64, F64, md("rzi"), n64), 1 << 63);
}

#[test]
fn float_to_int_saturates() {
    let inf = f32b(f32::INFINITY);
    let ninf = f32b(f32::NEG_INFINITY);
    assert_eq!(cvt(S32, F32, md("rzi"), inf), 0x7FFF_FFFF);
    assert_eq!(cvt(S32, F32, md("rzi"), ninf), 0x8000_0000);
    assert_eq!(cvt(U32, F32, md("rzi"), ninf), 0);
    assert_eq!(cvt(U64, F32, md("rzi"), inf), u64::MAX);
    assert_eq!(cvt(S8, F32, md("rzi"), inf), 0x7F);
    // Just beyond the range, and exactly at its ends.
    assert_eq!(cvt(S32, F32, md("rzi"), f32b(2147483648.0)), 0x7FFF_FFFF);
    assert_eq!(cvt(S32, F32, md("rzi"), f32b(-2147483648.0)), 0x8000_0000);
    assert_eq!(cvt(S32, F32, md("rzi"), 0xCF00_0001), 0x8000_0000);
    assert_eq!(cvt(U32, F32, md("rzi"), 0x4F7F_FFFF), 0xFFFF_FF00);
    assert_eq!(cvt(U32, F32, md("rzi"), f32b(4294967296.0)), 0xFFFF_FFFF);
    assert_eq!(cvt(U32, F64, md("rni"), f64b(4294967295.5)), 0xFFFF_FFFF);
    assert_eq!(cvt(U32, F64, md("rzi"), f64b(4294967295.5)), 0xFFFF_FFFF);
    assert_eq!(cvt(S32, F64, md("rni"), f64b(2147483647.5)), 0x7FFF_FFFF);
    assert_eq!(cvt(S32, F64, md("rzi"), f64b(2147483647.5)), 0x7FFF_FFFF);
    assert_eq!(cvt(S32, F64, md("rzi"), f64b(-2147483648.5)), 0x8000_0000);
    assert_eq!(cvt(S32, F64, md("rmi"), f64b(-2147483648.5)), 0x8000_0000);
    assert_eq!(cvt(S32, F64, md("rpi"), f64b(-2147483648.5)), 0x8000_0000);
    assert_eq!(cvt(S32, F64, md("rpi"), f64b(-2147483647.5)), 0x8000_0001);
    assert_eq!(cvt(S64, F64, md("rzi"), f64b(9.3e18)), i64::MAX as u64);
    assert_eq!(cvt(S64, F64, md("rzi"), f64b(-9.3e18)), i64::MIN as u64);
    assert_eq!(
        cvt(S64, F64, md("rzi"), 0xC3E0_0000_0000_0000),
        i64::MIN as u64
    );
    assert_eq!(
        cvt(U64, F64, md("rzi"), 0x43EF_FFFF_FFFF_FFFF),
        0xFFFF_FFFF_FFFF_F800
    );
    assert_eq!(
        cvt(U64, F64, md("rzi"), f64b(1.8446744073709552e19)),
        u64::MAX
    );
    // Negative values to unsigned types give 0 whatever the rounding.
    assert_eq!(cvt(U32, F64, md("rmi"), f64b(-0.5)), 0);
    assert_eq!(cvt(U32, F64, md("rpi"), f64b(-0.5)), 0);
    assert_eq!(cvt(U16, F16, md("rzi"), 0xBC00), 0);
    assert_eq!(cvt(U8, F32, md("rzi"), f32b(-1e30)), 0);
    // Narrow destinations.
    assert_eq!(cvt(U16, F16, md("rzi"), 0x7BFF), 65504);
    assert_eq!(cvt(S8, F16, md("rzi"), 0xBC00), 0xFF);
    assert_eq!(cvt(S8, F16, md("rzi"), 0x63D0), 0x7F); // 1000.0
    assert_eq!(cvt(S8, F32, md("rzi"), f32b(-128.9)), 0x80);
    assert_eq!(cvt(S8, F32, md("rmi"), f32b(-128.9)), 0x80);
    assert_eq!(cvt(U8, F32, md("rni"), f32b(255.5)), 0xFF);
    assert_eq!(cvt(U8, F32, md("rni"), f32b(254.5)), 0xFE);
    // bf16 0x4700 is 32768.0.
    assert_eq!(cvt(S16, Bf16, md("rzi"), 0x4700), 0x7FFF);
    // .sat is redundant.
    assert_eq!(cvt(S8, F32, md("rzi.sat"), f32b(300.0)), 0x7F);
}

#[test]
fn float_to_int_ftz_flushes_f32_subnormal_inputs() {
    let tiny = 0x0000_0001;
    let ntiny = 0x8000_0001;
    assert_eq!(cvt(S32, F32, md("rpi"), tiny), 1);
    assert_eq!(cvt(S32, F32, md("rpi.ftz"), tiny), 0);
    assert_eq!(cvt(S32, F32, md("rmi"), ntiny), 0xFFFF_FFFF);
    assert_eq!(cvt(S32, F32, md("rmi.ftz"), ntiny), 0);
    // Only f32 inputs are flushed.
    assert_eq!(cvt(S32, F64, md("rpi.ftz"), 1), 1);
    assert_eq!(cvt(S32, F16, md("rpi.ftz"), 1), 1);
}

// ------------------------------------------------------------ float -> float

#[test]
fn f64_to_f32_rounding() {
    let tie = f64b(1.0 + 2f64.powi(-24));
    assert_eq!(cvt(F32, F64, md("rn"), tie), f32b(1.0));
    assert_eq!(cvt(F32, F64, md("rz"), tie), f32b(1.0));
    assert_eq!(cvt(F32, F64, md("rm"), tie), f32b(1.0));
    assert_eq!(cvt(F32, F64, md("rp"), tie), 0x3F80_0001);
    assert_eq!(cvt(F32, F64, md("rna"), tie), 0x3F80_0001);
    let above = f64b(1.0 + 2f64.powi(-24) + 2f64.powi(-52));
    assert_eq!(cvt(F32, F64, md("rn"), above), 0x3F80_0001);
    let odd_tie = f64b(1.0 + 3.0 * 2f64.powi(-24));
    assert_eq!(cvt(F32, F64, md("rn"), odd_tie), 0x3F80_0002);
    let ntie = f64b(-(1.0 + 2f64.powi(-24)));
    assert_eq!(cvt(F32, F64, md("rm"), ntie), 0xBF80_0001);
    assert_eq!(cvt(F32, F64, md("rp"), ntie), 0xBF80_0000);
    assert_eq!(cvt(F32, F64, md("rz"), ntie), 0xBF80_0000);
    // Exact values, zeros and infinities.
    assert_eq!(cvt(F32, F64, md("rz"), f64b(0.5)), f32b(0.5));
    assert_eq!(cvt(F32, F64, md("rm"), f64b(-0.0)), 0x8000_0000);
    assert_eq!(cvt(F32, F64, md("rn"), f64b(f64::INFINITY)), 0x7F80_0000);
    assert_eq!(
        cvt(F32, F64, md("rz"), f64b(f64::NEG_INFINITY)),
        0xFF80_0000
    );
}

#[test]
fn f64_to_f32_overflow_and_underflow() {
    let big = f64b(1e300);
    let nbig = f64b(-1e300);
    assert_eq!(cvt(F32, F64, md("rn"), big), 0x7F80_0000);
    assert_eq!(cvt(F32, F64, md("rz"), big), 0x7F7F_FFFF);
    assert_eq!(cvt(F32, F64, md("rm"), big), 0x7F7F_FFFF);
    assert_eq!(cvt(F32, F64, md("rp"), big), 0x7F80_0000);
    assert_eq!(cvt(F32, F64, md("rm"), nbig), 0xFF80_0000);
    assert_eq!(cvt(F32, F64, md("rp"), nbig), 0xFF7F_FFFF);
    let tiny = f64b(1e-300);
    let ntiny = f64b(-1e-300);
    assert_eq!(cvt(F32, F64, md("rn"), tiny), 0);
    assert_eq!(cvt(F32, F64, md("rp"), tiny), 1);
    assert_eq!(cvt(F32, F64, md("rm"), ntiny), 0x8000_0001);
    assert_eq!(cvt(F32, F64, md("rn"), ntiny), 0x8000_0000);
    // 2^-149 exactly, and the tie at 2^-150 (rounds to even: zero).
    assert_eq!(cvt(F32, F64, md("rn"), f64b(2f64.powi(-149))), 1);
    assert_eq!(cvt(F32, F64, md("rn"), f64b(2f64.powi(-150))), 0);
    assert_eq!(cvt(F32, F64, md("rna"), f64b(2f64.powi(-150))), 1);
    assert_eq!(cvt(F32, F64, md("rn"), f64b(3.0 * 2f64.powi(-150))), 2);
}

#[test]
fn ftz_on_f32_results_applies_after_rounding() {
    // Subnormal results are flushed, sign kept.
    assert_eq!(cvt(F32, F64, md("rp.ftz"), f64b(1e-300)), 0);
    assert_eq!(cvt(F32, F64, md("rm.ftz"), f64b(-1e-300)), 0x8000_0000);
    assert_eq!(cvt(F32, F64, md("rn.ftz"), f64b(1e-40)), 0);
    assert_eq!(cvt(F32, F64, md("rn"), f64b(1e-40)), 0x0001_16C2);
    // Just below 2^-126, rounding up to the smallest normal: not flushed
    // (the H100 agrees).
    assert_eq!(
        cvt(F32, F64, md("rn.ftz"), 0x380F_FFFF_FFFF_FFFF),
        0x0080_0000
    );
    assert_eq!(
        cvt(F32, F64, md("rn.ftz"), 0xB80F_FFFF_FFFF_FFFF),
        0x8080_0000
    );
    // bf16 subnormals widen to f32 subnormals.
    assert_eq!(cvt(F32, Bf16, md(""), 0x0001), 0x0001_0000);
    assert_eq!(cvt(F32, Bf16, md("ftz"), 0x0001), 0);
    assert_eq!(cvt(F32, Bf16, md("ftz"), 0x8040), 0x8000_0000);
    // f16 subnormals are f32 normals.
    assert_eq!(cvt(F32, F16, md("ftz"), 0x0001), 0x3380_0000);
}

#[test]
fn ftz_on_f32_inputs() {
    assert_eq!(cvt(F64, F32, md(""), 1), 0x36A0_0000_0000_0000);
    assert_eq!(cvt(F64, F32, md("ftz"), 1), 0);
    assert_eq!(cvt(F64, F32, md("ftz"), 0x8000_0001), 0x8000_0000_0000_0000);
    assert_eq!(cvt(F64, F32, md("ftz"), 0x0080_0000), f64b(2f64.powi(-126)));
    assert_eq!(cvt(F32, F32, md(""), 5), 5);
    assert_eq!(cvt(F32, F32, md("ftz"), 5), 0);
    assert_eq!(cvt(F32, F32, md("ftz"), 0x8000_0005), 0x8000_0000);
    assert_eq!(cvt(F32, F32, md("rpi.ftz"), 5), 0);
    assert_eq!(cvt(F32, F32, md("rpi"), 5), f32b(1.0));
    assert_eq!(cvt(Bf16, F32, md("rn"), 0x0040_0000), 0x0040);
    assert_eq!(cvt(Bf16, F32, md("rn.ftz"), 0x0040_0000), 0);
    // f16 destinations keep f32 subnormal inputs (H100 behaviour).
    assert_eq!(cvt(F16, F32, md("rp.ftz"), 1), 1);
    assert_eq!(cvt(F16, F32, md("rm.ftz"), 0x8000_0001), 0x8001);
    assert_eq!(cvt(F16, F32, md("rn.ftz"), 1), 0);
}

#[test]
fn f32_to_f16_rounding_overflow_and_subnormals() {
    assert_eq!(cvt(F16, F32, md("rn"), f32b(1.0)), 0x3C00);
    assert_eq!(cvt(F16, F32, md("rn"), f32b(-2.0)), 0xC000);
    assert_eq!(cvt(F16, F32, md("rn"), f32b(65504.0)), 0x7BFF);
    assert_eq!(cvt(F16, F32, md("rn"), 0x477F_EFFF), 0x7BFF); // just below 65520
    assert_eq!(cvt(F16, F32, md("rn"), f32b(65520.0)), 0x7C00);
    assert_eq!(cvt(F16, F32, md("rz"), f32b(65520.0)), 0x7BFF);
    assert_eq!(cvt(F16, F32, md("rz"), f32b(f32::INFINITY)), 0x7C00);
    assert_eq!(cvt(F16, F32, md("rm"), f32b(-1e10)), 0xFC00);
    assert_eq!(cvt(F16, F32, md("rp"), f32b(-1e10)), 0xFBFF);
    // 1 + 2^-11 is a tie.
    let tie = 0x3F80_1000;
    assert_eq!(cvt(F16, F32, md("rn"), tie), 0x3C00);
    assert_eq!(cvt(F16, F32, md("rna"), tie), 0x3C01);
    assert_eq!(cvt(F16, F32, md("rp"), tie), 0x3C01);
    // 1 + 3 * 2^-11 is a tie next to an odd mantissa.
    assert_eq!(cvt(F16, F32, md("rn"), 0x3F80_3000), 0x3C02);
    // Subnormal f16 results: 2^-24 is the smallest.
    assert_eq!(cvt(F16, F32, md("rn"), f32b(2f32.powi(-24))), 0x0001);
    assert_eq!(cvt(F16, F32, md("rn"), f32b(2f32.powi(-25))), 0);
    assert_eq!(cvt(F16, F32, md("rp"), f32b(2f32.powi(-25))), 1);
    assert_eq!(cvt(F16, F32, md("rn"), f32b(3.0 * 2f32.powi(-26))), 1);
    assert_eq!(cvt(F16, F32, md("rn"), f32b(-3.0 * 2f32.powi(-25))), 0x8002);
    assert_eq!(cvt(F16, F32, md("rn"), f32b(2f32.powi(-14))), 0x0400);
}

#[test]
fn f64_to_half_types_round_once() {
    // 1 + 2^-11 + 2^-40: above the f16 tie, but rounding first to f32 would
    // lose the 2^-40 and give a tie (double rounding).
    let v = f64b(1.0 + 2f64.powi(-11) + 2f64.powi(-40));
    assert_eq!(cvt(F16, F64, md("rn"), v), 0x3C01);
    assert_eq!(cvt(F16, F64, md("rz"), v), 0x3C00);
    assert_eq!(cvt(F16, F64, md("rn"), f64b(1e6)), 0x7C00);
    assert_eq!(cvt(F16, F64, md("rz"), f64b(-1e6)), 0xFBFF);
    let b = f64b(1.0 + 2f64.powi(-8) + 2f64.powi(-40));
    assert_eq!(cvt(Bf16, F64, md("rn"), b), 0x3F81);
    assert_eq!(cvt(Bf16, F64, md("rm"), b), 0x3F80);
    assert_eq!(cvt(Bf16, F64, md("rn"), f64b(1e300)), 0x7F80);
    assert_eq!(cvt(Bf16, F64, md("rz"), f64b(1e300)), 0x7F7F);
}

#[test]
fn f32_to_bf16() {
    assert_eq!(cvt(Bf16, F32, md("rn"), 0x3F80_8000), 0x3F80); // tie, even
    assert_eq!(cvt(Bf16, F32, md("rn"), 0x3F81_8000), 0x3F82); // tie, odd
    assert_eq!(cvt(Bf16, F32, md("rna"), 0x3F80_8000), 0x3F81);
    assert_eq!(cvt(Bf16, F32, md("rz"), 0x3F81_FFFF), 0x3F81);
    assert_eq!(cvt(Bf16, F32, md("rn"), 0x3F81_8001), 0x3F82);
    assert_eq!(cvt(Bf16, F32, md("rn"), 0x7F7F_FFFF), 0x7F80);
    assert_eq!(cvt(Bf16, F32, md("rz"), 0x7F7F_FFFF), 0x7F7F);
    assert_eq!(cvt(Bf16, F32, md("rn.satfinite"), 0x7F7F_FFFF), 0x7F7F);
    assert_eq!(cvt(Bf16, F32, md("rn"), 0x8000_0000), 0x8000);
}

#[test]
fn satfinite_and_relu() {
    let m = md("rn.satfinite");
    assert_eq!(cvt(F16, F32, m, f32b(65520.0)), 0x7BFF);
    assert_eq!(cvt(F16, F32, m, f32b(-65520.0)), 0xFBFF);
    assert_eq!(cvt(F16, F32, m, f32b(f32::INFINITY)), 0x7BFF);
    assert_eq!(cvt(F16, F32, m, f32b(f32::NEG_INFINITY)), 0xFBFF);
    assert_eq!(cvt(F16, F32, m, f32b(1.0)), 0x3C00);
    assert_eq!(cvt(F16, F32, m, F32_NAN), H_NAN);
    assert_eq!(
        cvt(Bf16, F32, md("rz.satfinite"), f32b(f32::INFINITY)),
        0x7F7F
    );
    let r = md("rn.relu");
    assert_eq!(cvt(F16, F32, r, f32b(-1.0)), 0);
    assert_eq!(cvt(F16, F32, r, f32b(-0.0)), 0);
    assert_eq!(cvt(F16, F32, r, f32b(f32::NEG_INFINITY)), 0);
    assert_eq!(cvt(F16, F32, r, f32b(1.5)), 0x3E00);
    assert_eq!(cvt(F16, F32, r, 0xFFC0_0000), H_NAN);
    assert_eq!(cvt(Bf16, F32, md("rz.relu"), f32b(-3.0)), 0);
    assert_eq!(
        cvt(Bf16, F32, md("rz.relu.satfinite"), f32b(f32::INFINITY)),
        0x7F7F
    );
    assert_eq!(
        cvt(Bf16, F32, md("rz.relu.satfinite"), f32b(f32::NEG_INFINITY)),
        0
    );
}

#[test]
fn widening_is_exact() {
    assert_eq!(cvt(F32, F16, md(""), 0x3C00), f32b(1.0));
    assert_eq!(cvt(F32, F16, md(""), 0x0001), f32b(2f32.powi(-24)));
    assert_eq!(cvt(F32, F16, md(""), 0xFC00), f32b(f32::NEG_INFINITY));
    assert_eq!(cvt(F32, F16, md(""), 0x8000), 0x8000_0000);
    assert_eq!(cvt(F64, F16, md(""), 0x7BFF), f64b(65504.0));
    assert_eq!(cvt(F32, Bf16, md(""), 0x3F81), 0x3F81_0000);
    assert_eq!(cvt(F64, Bf16, md(""), 0xFF80), f64b(f64::NEG_INFINITY));
    assert_eq!(cvt(F64, F32, md(""), f32b(0.1)), f64b(0.1f32 as f64));
    assert_eq!(cvt(F64, F32, md(""), 0x7F7F_FFFF), f64b(f32::MAX as f64));
    // f16 <-> bf16 round both ways.
    assert_eq!(cvt(Bf16, F16, md("rn"), 0x3C01), 0x3F80); // 1 + 2^-10
    assert_eq!(cvt(Bf16, F16, md("rp"), 0x3C01), 0x3F81);
    assert_eq!(cvt(F16, Bf16, md("rn"), 0x4780), 0x7C00); // 65536.0
    assert_eq!(cvt(F16, Bf16, md("rz"), 0x4780), 0x7BFF);
    assert_eq!(cvt(F16, Bf16, md("rn"), 0x0080), 0); // 2^-126
}

#[test]
fn same_type_integral_rounding() {
    let f = |m: &str, v: f32| cvt(F32, F32, md(m), f32b(v));
    assert_eq!(f("rni", 2.5), f32b(2.0));
    assert_eq!(f("rni", 3.5), f32b(4.0));
    assert_eq!(f("rni", -2.5), f32b(-2.0));
    assert_eq!(f("rni", -0.5), 0x8000_0000);
    assert_eq!(f("rzi", -0.7), 0x8000_0000);
    assert_eq!(f("rzi", 2.9), f32b(2.0));
    assert_eq!(f("rmi", -0.5), f32b(-1.0));
    assert_eq!(f("rmi", 0.5), 0);
    assert_eq!(f("rpi", 0.2), f32b(1.0));
    assert_eq!(f("rpi", -0.2), 0x8000_0000);
    assert_eq!(f("rni", 8388609.0), f32b(8388609.0));
    assert_eq!(f("rpi", 1e30), f32b(1e30));
    assert_eq!(f("rmi", f32::NEG_INFINITY), f32b(f32::NEG_INFINITY));
    assert_eq!(f("rni", -0.0), 0x8000_0000);
    let d = |m: &str, v: f64| cvt(F64, F64, md(m), f64b(v));
    assert_eq!(d("rni", 0.5), 0);
    assert_eq!(d("rni", 1.5), f64b(2.0));
    assert_eq!(d("rni", 2.5), f64b(2.0));
    assert_eq!(d("rmi", -1e-300), f64b(-1.0));
    assert_eq!(d("rpi", 4503599627370495.5), f64b(4503599627370496.0));
    assert_eq!(cvt(F16, F16, md("rni"), 0x3E00), 0x4000); // 1.5 -> 2
    assert_eq!(cvt(F16, F16, md("rni"), 0x4100), 0x4000); // 2.5 -> 2
    assert_eq!(cvt(F16, F16, md("rpi"), 0x0001), 0x3C00);
    assert_eq!(cvt(Bf16, Bf16, md("rmi"), 0xBF40), 0xBF80); // -0.75 -> -1
    assert_eq!(cvt(Bf16, Bf16, md("rzi"), 0x4321), 0x4321); // 161.0 is integral
    assert_eq!(cvt(Bf16, Bf16, md("rzi"), 0x4291), 0x4290); // 72.5 -> 72
    assert_eq!(cvt(Bf16, Bf16, md("rni"), 0x4291), 0x4290); // 72.5 -> 72 (even)
    assert_eq!(cvt(Bf16, Bf16, md("rpi"), 0x4291), 0x4292); // 72.5 -> 73
}

#[test]
fn float_saturation() {
    let s = |v: f32| cvt(F32, F32, md("sat"), f32b(v));
    assert_eq!(s(1.5), f32b(1.0));
    assert_eq!(s(0.5), f32b(0.5));
    assert_eq!(s(-0.5), 0);
    assert_eq!(s(-0.0), 0);
    assert_eq!(s(f32::INFINITY), f32b(1.0));
    assert_eq!(s(f32::NEG_INFINITY), 0);
    assert_eq!(cvt(F32, F32, md("sat"), F32_NAN), 0);
    assert_eq!(cvt(F32, F32, md("sat"), 0xFF80_0001), 0);
    assert_eq!(cvt(F32, F32, md("rni.sat"), f32b(0.7)), f32b(1.0));
    assert_eq!(cvt(F32, F64, md("rn.sat"), f64b(1.0000000001)), f32b(1.0));
    assert_eq!(cvt(F32, F64, md("rm.sat"), f64b(-1e-300)), 0);
    assert_eq!(cvt(F16, F32, md("rn.sat"), f32b(2.0)), 0x3C00);
    assert_eq!(cvt(F16, F32, md("rn.sat"), 0x7FC0_0000), 0);
    assert_eq!(cvt(F64, F16, md("sat"), 0x7E00), 0);
    assert_eq!(cvt(F64, F64, md("sat"), f64b(7.0)), f64b(1.0));
}

#[test]
fn nan_results() {
    // Canonical NaNs for f16/bf16 destinations and most f32 results.
    assert_eq!(cvt(F16, F32, md("rn"), 0x7FC0_0000), H_NAN);
    assert_eq!(cvt(F16, F32, md("rz"), 0xFF80_0001), H_NAN);
    assert_eq!(cvt(Bf16, F32, md("rn"), 0x7FA0_0000), H_NAN);
    assert_eq!(cvt(Bf16, F16, md("rn"), 0x7E00), H_NAN);
    assert_eq!(cvt(F16, F16, md(""), 0xFE01), H_NAN);
    assert_eq!(cvt(Bf16, Bf16, md("rni"), 0x7F81), H_NAN);
    assert_eq!(cvt(F32, F16, md(""), 0x7C01), F32_NAN);
    assert_eq!(cvt(F32, F32, md("rni"), 0xFFC0_0000), F32_NAN);
    assert_eq!(cvt(F32, F32, md("ftz"), 0x7F80_0001), F32_NAN);
    assert_eq!(cvt(F32, Bf16, md("ftz"), 0x7F81), F32_NAN);
    // Plain moves keep the bits, signalling NaNs included.
    assert_eq!(cvt(F32, F32, md(""), 0x7F80_0001), 0x7F80_0001);
    assert_eq!(
        cvt(F64, F64, md(""), 0xFFF0_0000_0000_0001),
        0xFFF0_0000_0000_0001
    );
    assert_eq!(cvt(F32, Bf16, md(""), 0xFF81), 0xFF81_0000);
    // f64 sources keep sign and top payload bits, quieted.
    assert_eq!(cvt(F32, F64, md("rn"), 0x7FF0_0000_0000_0001), 0x7FC0_0000);
    assert_eq!(cvt(F32, F64, md("rz"), 0xFFF8_0000_2000_0000), 0xFFC0_0001);
    assert_eq!(cvt(F16, F64, md("rn"), 0x7FF8_0000_0000_0000), 0x7E00);
    assert_eq!(cvt(F16, F64, md("rn"), 0xFFFF_FFFF_FFFF_FFFF), 0xFFFF);
    assert_eq!(cvt(Bf16, F64, md("rn"), 0xFFF0_0000_0000_0001), 0xFFC0);
    assert_eq!(
        cvt(F64, F64, md("rni"), 0x7FF0_0000_0000_0001),
        0x7FF8_0000_0000_0001
    );
    // Widening to f64 keeps sign and payload, quieted.
    assert_eq!(cvt(F64, F32, md(""), 0x7F80_0001), 0x7FF8_0000_2000_0000);
    assert_eq!(cvt(F64, F32, md(""), 0xFFC0_0000), 0xFFF8_0000_0000_0000);
    assert_eq!(cvt(F64, F16, md(""), 0x7D94), 0x7FFE_5000_0000_0000);
    assert_eq!(cvt(F64, Bf16, md(""), 0x7F9B), 0x7FFB_6000_0000_0000);
    // ... except cvt.ftz.f64.f32, which widens the canonical f32 NaN.
    assert_eq!(cvt(F64, F32, md("ftz"), 0x7F80_0001), 0x7FFF_FFFF_E000_0000);
}

// ---------------------------------------------------------- packed results

#[test]
fn packed_destinations_take_two_f32_sources() {
    let pair = |a: f32, b: f32| (f32b(a) << 32) | f32b(b);
    assert_eq!(cvt(F16x2, F32, md("rn"), pair(1.0, 2.0)), 0x3C00_4000);
    assert_eq!(cvt(F16x2, F32, md("rz"), pair(65520.0, -0.5)), 0x7BFF_B800);
    assert_eq!(cvt(F16x2, F32, md("rn.relu"), pair(-1.0, 0.5)), 0x0000_3800);
    assert_eq!(
        cvt(F16x2, F32, md("rn.satfinite"), pair(f32::INFINITY, 1.0)),
        0x7BFF_3C00
    );
    assert_eq!(cvt(F16x2, F32, md("rn"), pair(f32::NAN, -2.0)), 0x7FFF_C000);
    assert_eq!(
        cvt(Bf16x2, F32, md("rn"), (0x3F80_8000 << 32) | 0x3F81_8000),
        0x3F80_3F82
    );
    assert_eq!(cvt(Bf16x2, F32, md("rz"), pair(-1.0, 3.0)), 0xBF80_4040);
    assert_eq!(
        cvt(
            Bf16x2,
            F32,
            md("rn.relu.satfinite"),
            pair(f32::INFINITY, f32::NEG_INFINITY)
        ),
        0x7F7F_0000
    );
}

#[test]
fn packed_conversions_beyond_ptx() {
    // Packed to packed: half by half.
    assert_eq!(cvt(Bf16x2, F16x2, md("rn"), 0x3C00_C000), 0x3F80_C000);
    assert_eq!(cvt(F16x2, Bf16x2, md("rn"), 0x4780_3F80), 0x7C00_3C00);
    // Other narrow sources use the same (a << 32) | b packing.
    let m1 = (-1i32) as u32 as u64;
    assert_eq!(cvt(F16x2, S32, md("rn"), (m1 << 32) | 2), 0xBC00_4000);
    assert_eq!(
        cvt(F16x2, F16, md(""), (0x3C00 << 32) | 0x4000),
        0x3C00_4000
    );
    // Pairs that are not conversions at all give 0.
    assert_eq!(cvt(F32, F16x2, md(""), 0x3C00_4000), 0);
    assert_eq!(cvt(S32, Bf16x2, md("rzi"), 0x3F80_3F80), 0);
    assert_eq!(cvt(F16x2, F64, md("rn"), f64b(1.0)), 0);
}

// -------------------------------------------------------------- robustness

const ALL: [Ty; 19] = [
    Pred, B8, B16, B32, B64, U8, U16, U32, U64, S8, S16, S32, S64, F16, F16x2, Bf16, Bf16x2, F32,
    F64,
];

#[test]
fn never_panics_and_results_fit_the_destination() {
    let inputs = [
        0,
        1,
        u64::MAX,
        0x8000_0000_0000_0000,
        0x7FF0_0000_0000_0000,
        0x7FF8_0000_0000_0001,
        0x0000_0000_7F80_0000,
        0x0000_0000_FFC0_0001,
        0x0000_0000_0000_7C00,
        0x0000_0000_0000_FF81,
        0x0000_0000_0000_0001,
        0x7F7F_FFFF_7F7F_FFFF,
        0x4F00_0000_CF00_0000,
        0x0123_4567_89AB_CDEF,
    ];
    let mods = [
        "",
        "rn",
        "rz",
        "rm",
        "rp",
        "rna",
        "rni",
        "rzi",
        "rmi",
        "rpi",
        "ftz",
        "sat",
        "rn.relu",
        "rz.satfinite",
        "rm.ftz.sat",
        "rni.ftz.sat",
        "rp.relu.satfinite.sat",
    ];
    for dst in ALL {
        for src in ALL {
            for m in mods {
                for x in inputs {
                    let r = cvt(dst, src, md(m), x);
                    assert_eq!(
                        r & !dst.mask(),
                        0,
                        "cvt.{m} {dst:?} {src:?} {x:#x} = {r:#x}"
                    );
                }
            }
        }
    }
}

#[test]
fn predicates_are_one_bit_unsigned() {
    assert_eq!(cvt(U32, Pred, md(""), 1), 1);
    assert_eq!(cvt(Pred, U32, md(""), 2), 0);
    assert_eq!(cvt(Pred, U32, md("sat"), 2), 1);
    assert_eq!(cvt(F32, Pred, md("rn"), 1), f32b(1.0));
    assert_eq!(cvt(Pred, F32, md("rzi"), f32b(5.0)), 1);
}

// ------------------------------------------------- the JIT's fast paths

/// The helpers the JIT calls for plain f32 <-> f16/bf16 conversions agree
/// with `cvt` on NaNs, infinities, zeros, subnormals, values that round
/// over to infinity or to zero, and a spread of random patterns.
#[test]
fn jit_fast_paths_agree_with_cvt() {
    use super::{f16_to_f32, f32_to_bf16_rn, f32_to_f16_rn};
    let mut next = crate::testing::xorshift(0x9E37_79B9_7F4A_7C15u64);
    let mut inputs: Vec<u64> = vec![
        0,
        0x8000_0000,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0xFFC0_0001,
        0x7F80_0001,
        0x0000_0001,
        0x807F_FFFF,
        0x477F_E000,
        0x477F_F000,
        0x3380_0000,
        0x3300_0000,
        0x7F7F_FFFF,
        0x7F7F_8000,
        0x0001_8000,
        0x3F80_8000,
        0x3F81_8000,
    ];
    inputs.extend((0..200_000).map(|_| next() & 0xFFFF_FFFF));
    // Exponents near the f16 range, where rounding and subnormals happen.
    inputs.extend((0..200_000).map(|_| {
        let r = next();
        (r & 0x807F_FFFF) | (((r >> 40) % 40 + 97) << 23)
    }));
    for &a in &inputs {
        // High bits beside the f32 are ignored.
        let dirty = a | (next() << 32);
        assert_eq!(
            f32_to_f16_rn(dirty),
            cvt(F16, F32, md("rn"), a),
            "f16 {a:#x}"
        );
        assert_eq!(
            f32_to_bf16_rn(dirty),
            cvt(Bf16, F32, md("rn"), a),
            "bf16 {a:#x}"
        );
    }
    for h in 0..=0xFFFFu64 {
        assert_eq!(
            f16_to_f32(h | (next() << 16)),
            cvt(F32, F16, md(""), h),
            "{h:#x}"
        );
    }
}
