//! Hand-computed cases of the video instructions from the PTX ISA's
//! pseudo-code (§9.7.16): part selection and extension, saturation edges
//! with and without a data merge, the secondary operations, `vmad`'s
//! negation, plus-one and scaling, the SIMD masks, selectors, `.sat` and
//! `.add`.

use super::*;

fn sc(op: ScalarOp, types: &str, sat: bool, asel: Part, bsel: Part, second: Secondary) -> Scalar {
    let t: Vec<bool> = types.chars().map(|c| c == 's').collect();
    Scalar {
        op,
        d_signed: t[0],
        a_signed: t[1],
        b_signed: t[2],
        sat,
        asel,
        bsel,
        second,
    }
}

fn word(op: ScalarOp, types: &str, sat: bool) -> Scalar {
    sc(op, types, sat, Part::Word, Part::Word, Secondary::None)
}

#[test]
fn part_select_extends_by_type() {
    let x = 0x80ff_7f01;
    assert_eq!(part(x, true, Part::Byte(0)), 1);
    assert_eq!(part(x, true, Part::Byte(1)), 127);
    assert_eq!(part(x, true, Part::Byte(2)), -1);
    assert_eq!(part(x, false, Part::Byte(2)), 255);
    assert_eq!(part(x, true, Part::Byte(3)), -128);
    assert_eq!(part(x, false, Part::Byte(3)), 128);
    assert_eq!(part(x, true, Part::Half(1)), 0x80ff - 0x10000);
    assert_eq!(part(x, false, Part::Half(1)), 0x80ff);
    assert_eq!(part(x, true, Part::Half(0)), 0x7f01);
    assert_eq!(part(x, true, Part::Word), 0x80ff_7f01u32 as i32 as i64);
    assert_eq!(part(x, false, Part::Word), 0x80ff_7f01);
}

#[test]
fn scalar_arithmetic_and_saturation() {
    // vadd.s32.u32.s32 d, a.b0, b.h0: 255 + (-32768).
    let s = sc(
        ScalarOp::Add,
        "sus",
        true,
        Part::Byte(0),
        Part::Half(0),
        Secondary::None,
    );
    assert_eq!(scalar(&s, 0xff, 0x8000, 0), 0xffff_80ff);
    let add_s = word(ScalarOp::Add, "sss", true);
    assert_eq!(scalar(&add_s, 0x7fff_ffff, 1, 0), 0x7fff_ffff);
    assert_eq!(scalar(&add_s, 0x8000_0000, 0xffff_ffff, 0), 0x8000_0000);
    let add_s_wrap = word(ScalarOp::Add, "sss", false);
    assert_eq!(scalar(&add_s_wrap, 0x7fff_ffff, 1, 0), 0x8000_0000);
    let add_u = word(ScalarOp::Add, "uuu", true);
    assert_eq!(scalar(&add_u, 0xffff_ffff, 1, 0), 0xffff_ffff);
    assert_eq!(
        scalar(&word(ScalarOp::Add, "uuu", false), 0xffff_ffff, 1, 0),
        0
    );
    // Unsigned destination: a negative difference clamps to 0; a signed one keeps -1.
    assert_eq!(scalar(&word(ScalarOp::Sub, "uuu", true), 1, 2, 0), 0);
    assert_eq!(
        scalar(&word(ScalarOp::Sub, "suu", true), 1, 2, 0),
        0xffff_ffff
    );
    // Signed inputs into an unsigned saturated destination.
    assert_eq!(
        scalar(&word(ScalarOp::Add, "uss", true), 0x8000_0000, 0, 0),
        0
    );
    // |(-2^31) - (2^32 - 1)| needs 34 bits: with .sat.s32 it clamps.
    let ad = word(ScalarOp::AbsDiff, "ssu", true);
    assert_eq!(scalar(&ad, 0x8000_0000, 0xffff_ffff, 0), 0x7fff_ffff);
    assert_eq!(scalar(&word(ScalarOp::AbsDiff, "ssu", false), 5, 9, 0), 4);
    assert_eq!(
        scalar(&word(ScalarOp::Min, "sss", false), 0xffff_fffe, 3, 0),
        0xffff_fffe
    );
    assert_eq!(
        scalar(&word(ScalarOp::Min, "suu", false), 0xffff_fffe, 3, 0),
        3
    );
    assert_eq!(
        scalar(&word(ScalarOp::Max, "ssu", false), 0xffff_fffe, 3, 0),
        3
    );
}

#[test]
fn scalar_merge_saturation() {
    // vabsdiff.s32.s32.s32.sat d.h0, a.b0, b.b2, c: |-128 - 127| = 255.
    let s = sc(
        ScalarOp::AbsDiff,
        "sss",
        true,
        Part::Byte(0),
        Part::Byte(2),
        Secondary::Merge(Part::Half(0)),
    );
    assert_eq!(scalar(&s, 0x80, 0x007f_0000, 0xdead_beef), 0xdead_00ff);
    // 100 + 100 into a signed byte: 127; unsigned: 200; 200 + 100 unsigned: 255
    // (the hardware's unsigned minimum with the part's maximum).
    let merge_b2 = |types, sat| {
        sc(
            ScalarOp::Add,
            types,
            sat,
            Part::Word,
            Part::Word,
            Secondary::Merge(Part::Byte(2)),
        )
    };
    assert_eq!(
        scalar(&merge_b2("sss", true), 100, 100, 0x1122_3344),
        0x117f_3344
    );
    assert_eq!(
        scalar(&merge_b2("uuu", true), 100, 100, 0x1122_3344),
        0x11c8_3344
    );
    assert_eq!(
        scalar(&merge_b2("uuu", true), 200, 100, 0x1122_3344),
        0x11ff_3344
    );
    // A negative result is no lower bound's: as an unsigned 32-bit value it
    // clamps to the maximum (the ISA would merge 0 and 0x80 here).
    assert_eq!(
        scalar(&merge_b2("uss", true), 1, 0xffff_fffe, 0x1122_3344),
        0x11ff_3344
    );
    assert_eq!(
        scalar(&merge_b2("sss", true), 1, (-200i32) as u32, 0x1122_3344),
        0x117f_3344
    );
    // Without .sat the low byte of 300 (0x12c) is merged.
    assert_eq!(
        scalar(&merge_b2("uuu", false), 200, 100, 0x1122_3344),
        0x112c_3344
    );
    let h1 = sc(
        ScalarOp::Sub,
        "sss",
        true,
        Part::Word,
        Part::Word,
        Secondary::Merge(Part::Half(1)),
    );
    // d.h1 with .sat receives the clamped value's upper half: 0.
    assert_eq!(scalar(&h1, 0, 40000, 0xaaaa_bbbb), 0x0000_bbbb);
    assert_eq!(
        scalar(&Scalar { sat: false, ..h1 }, 0, 40000, 0xaaaa_bbbb),
        0x63c0_bbbb
    );
    let b3 = sc(
        ScalarOp::Max,
        "uuu",
        false,
        Part::Word,
        Part::Word,
        Secondary::Merge(Part::Byte(3)),
    );
    assert_eq!(scalar(&b3, 0x1234, 0x56, 0xffff_ffff), 0x34ff_ffff);
}

#[test]
fn scalar_secondary_ops() {
    // vmin.s32.s32.s32.sat.add: the saturated minimum plus c wraps.
    let s = sc(
        ScalarOp::Min,
        "sss",
        true,
        Part::Word,
        Part::Word,
        Secondary::Add,
    );
    assert_eq!(scalar(&s, 0x7fff_ffff, 0x7fff_ffff, 1), 0x8000_0000);
    // c is extended by the destination type: -2 signed, 2^32 - 2 unsigned.
    let max_s = sc(
        ScalarOp::Add,
        "sss",
        false,
        Part::Word,
        Part::Word,
        Secondary::Max,
    );
    assert_eq!(scalar(&max_s, (-5i32) as u32, 2, 0xffff_fffe), 0xffff_fffe);
    let max_u = Scalar {
        d_signed: false,
        ..max_s
    };
    assert_eq!(scalar(&max_u, (-5i32) as u32, 2, 0xffff_fffe), 0xffff_fffe);
    let min_u = Scalar {
        second: Secondary::Min,
        ..max_u
    };
    assert_eq!(scalar(&min_u, (-5i32) as u32, 2, 0xffff_fffe), 0xffff_fffd);
    let min_s = Scalar {
        second: Secondary::Min,
        ..max_s
    };
    assert_eq!(scalar(&min_s, (-5i32) as u32, 2, 0xffff_fffe), 0xffff_fffd);
    // vadd.u32.u32.u32.min without .sat compares the 33-bit sum with c.
    let m = sc(
        ScalarOp::Add,
        "uuu",
        false,
        Part::Word,
        Part::Word,
        Secondary::Min,
    );
    assert_eq!(scalar(&m, 0xffff_ffff, 1, 5), 5);
    // No secondary op: c is not read.
    assert_eq!(scalar(&word(ScalarOp::Add, "uuu", false), 2, 3, 100), 5);
}

#[test]
fn scalar_shifts() {
    let shl = |wrap, sat| {
        sc(
            ScalarOp::Shl { wrap },
            "uuu",
            sat,
            Part::Word,
            Part::Word,
            Secondary::None,
        )
    };
    assert_eq!(scalar(&shl(false, false), 1, 40, 0), 0);
    assert_eq!(scalar(&shl(false, true), 1, 40, 0), 0xffff_ffff);
    assert_eq!(scalar(&shl(true, false), 1, 40, 0), 256);
    assert_eq!(scalar(&shl(false, false), 3, 31, 0), 0x8000_0000);
    assert_eq!(scalar(&shl(false, true), 3, 31, 0), 0xffff_ffff);
    let shr = |types, wrap, asel| {
        sc(
            ScalarOp::Shr { wrap },
            types,
            false,
            asel,
            Part::Word,
            Secondary::None,
        )
    };
    assert_eq!(
        scalar(&shr("ssu", false, Part::Word), 0x8000_0000, 33, 0),
        0xffff_ffff
    );
    assert_eq!(
        scalar(&shr("uuu", false, Part::Word), 0x8000_0000, 33, 0),
        0
    );
    assert_eq!(
        scalar(&shr("uuu", true, Part::Word), 0x8000_0000, 33, 0),
        0x4000_0000
    );
    assert_eq!(
        scalar(&shr("ssu", true, Part::Half(1)), 0x8000_0000, 4, 0),
        0xffff_f800
    );
    // The count's selector is read unsigned: b.b0 = 0xff clamps to 32.
    let by = sc(
        ScalarOp::Shr { wrap: false },
        "sss",
        false,
        Part::Word,
        Part::Byte(0),
        Secondary::None,
    );
    let by = Scalar {
        b_signed: false,
        ..by
    };
    assert_eq!(scalar(&by, 0x8000_0000, 0xff, 0), 0xffff_ffff);
    // A signed left shift saturates to the signed range.
    let s = sc(
        ScalarOp::Shl { wrap: true },
        "ssu",
        true,
        Part::Word,
        Part::Word,
        Secondary::None,
    );
    assert_eq!(scalar(&s, 0xffff_fff0, 28, 0), 0x8000_0000);
    assert_eq!(scalar(&s, 0x10, 27, 0), 0x7fff_ffff);
}

#[test]
fn scalar_set() {
    let set = |cmp, types: &str, second| {
        let t: Vec<bool> = types.chars().map(|c| c == 's').collect();
        Scalar {
            op: ScalarOp::Set(cmp),
            d_signed: false,
            a_signed: t[0],
            b_signed: t[1],
            sat: false,
            asel: Part::Word,
            bsel: Part::Word,
            second,
        }
    };
    assert_eq!(
        scalar(&set(VideoCmp::Lt, "us", Secondary::None), 0xffff_ffff, 0, 0),
        0
    );
    assert_eq!(
        scalar(&set(VideoCmp::Lt, "su", Secondary::None), 0xffff_ffff, 0, 0),
        1
    );
    assert_eq!(
        scalar(&set(VideoCmp::Lt, "su", Secondary::Add), 0xffff_ffff, 0, 10),
        11
    );
    let merged = set(VideoCmp::Lt, "su", Secondary::Merge(Part::Byte(3)));
    assert_eq!(scalar(&merged, 0xffff_ffff, 0, 0xffff_ffff), 0x01ff_ffff);
    // vset's c is signed when a source type is: max(1, -1) is 1; with
    // unsigned sources it is unsigned: max(1, 0xffffffff) is 0xffffffff.
    let max = set(VideoCmp::Ne, "ss", Secondary::Max);
    assert_eq!(scalar(&max, 1, 2, 0xffff_ffff), 1);
    let min = set(VideoCmp::Ge, "ss", Secondary::Min);
    assert_eq!(scalar(&min, 1, 2, 0xffff_ffff), 0xffff_ffff);
    let max_u = set(VideoCmp::Ne, "uu", Secondary::Max);
    assert_eq!(scalar(&max_u, 1, 2, 0xffff_ffff), 0xffff_ffff);
    for (cmp, want) in [
        (VideoCmp::Eq, 0),
        (VideoCmp::Ne, 1),
        (VideoCmp::Le, 1),
        (VideoCmp::Gt, 0),
    ] {
        assert_eq!(
            scalar(&set(cmp, "ss", Secondary::None), 0xffff_fffe, 3, 0),
            want
        );
    }
}

fn mad(types: &str) -> Vmad {
    let t: Vec<bool> = types.chars().map(|c| c == 's').collect();
    Vmad {
        a_signed: t[0],
        b_signed: t[1],
        asel: Part::Word,
        bsel: Part::Word,
        neg_product: false,
        neg_c: false,
        plus_one: false,
        sat: false,
        shift: 0,
    }
}

#[test]
fn vmad_cases() {
    // The 32-bit sources multiply as signed values and c is sign-extended:
    // (-1) * (-1) + (-1) = 0, also with .sat.
    let m = mad("uu");
    assert_eq!(vmad(&m, 0xffff_ffff, 0xffff_ffff, 0xffff_ffff), 0);
    let sat = Vmad { sat: true, ..m };
    assert_eq!(vmad(&sat, 0xffff_ffff, 0xffff_ffff, 0xffff_ffff), 0);
    assert_eq!(vmad(&sat, 0x7fff_ffff, 4, 0), 0xffff_ffff);
    assert_eq!(vmad(&sat, 0, 0, 0xffff_ffff), 0xffff_ffff);
    let po = Vmad {
        plus_one: true,
        ..m
    };
    assert_eq!(vmad(&po, 3, 4, 5), 18);
    let po7 = Vmad { shift: 7, ..po };
    assert_eq!(vmad(&po7, 100, 200, 56), 156);
    // -(a*b) + c and (a*b) - c.
    let np = Vmad {
        neg_product: true,
        ..mad("ss")
    };
    assert_eq!(vmad(&np, 3, 4, 5), (-7i32) as u32);
    let nc = Vmad {
        neg_c: true,
        ..mad("uu")
    };
    assert_eq!(vmad(&nc, 3, 4, 20), (-8i32) as u32);
    let nc_sat = Vmad { sat: true, ..nc };
    assert_eq!(vmad(&nc_sat, 3, 4, 20), (-8i32) as u32);
    // -(u32 * u32) + s32 is signed: -(2^31 - 1)^2 clamps to S32_MIN; the
    // words 0xffffffff are -1, so -((-1) * (-1)) is -1.
    let big = Vmad {
        neg_product: true,
        sat: true,
        ..mad("uu")
    };
    assert_eq!(vmad(&big, 0x7fff_ffff, 0x7fff_ffff, 0), 0x8000_0000);
    assert_eq!(vmad(&big, 0xffff_ffff, 0xffff_ffff, 0), 0xffff_ffff);
    // An arithmetic scale of a negative signed result.
    let s15 = Vmad { shift: 15, ..np };
    assert_eq!(vmad(&s15, 1, 0x1_0000, 0), (-2i32) as u32);
    // vmad.u32.u32.u32.shr15 d, a.h0, b.h0, c.
    let h = Vmad {
        asel: Part::Half(0),
        bsel: Part::Half(0),
        shift: 15,
        ..mad("uu")
    };
    assert_eq!(vmad(&h, 0x0001_ffff, 0x0000_ffff, 0), 0x1_fffc);
    // s32 * u32 with a = -1, b = 0x7fffffff; the word 0xffffffff is -1 also
    // as a .u32 source.
    let su = Vmad {
        sat: true,
        ..mad("su")
    };
    assert_eq!(vmad(&su, 0xffff_ffff, 0x7fff_ffff, 0), 0x8000_0001);
    assert_eq!(vmad(&su, 0xffff_ffff, 0xffff_ffff, 0), 1);
    assert_eq!(vmad(&mad("su"), 0xffff_ffff, 0xffff_ffff, 0xffff_ffff), 0);
    // Byte selectors sign-extend: (-128) * 127 + 0.
    let b = Vmad {
        asel: Part::Byte(3),
        bsel: Part::Byte(0),
        ..mad("ss")
    };
    assert_eq!(vmad(&b, 0x8000_0000, 0x7f, 0), (-16256i32) as u32);
}

fn simd(op: SimdOp, lanes: u8, types: &str, sat: bool) -> Simd {
    let t: Vec<bool> = types.chars().map(|c| c == 's').collect();
    let (asel, bsel, mask) = if lanes == 2 {
        ([0, 1, 0, 0], [2, 3, 0, 0], 0b11)
    } else {
        ([0, 1, 2, 3], [4, 5, 6, 7], 0b1111)
    };
    Simd {
        op,
        lanes,
        d_signed: t[0],
        a_signed: t[1],
        b_signed: t[2],
        sat,
        asel,
        bsel,
        mask,
        add: false,
    }
}

#[test]
fn simd_saturation() {
    let v = simd(SimdOp::Add, 2, "uuu", true);
    assert_eq!(super::simd(&v, 0xffff_0001, 0x0001_ffff, 0), 0xffff_ffff);
    let w = simd(SimdOp::Add, 2, "uuu", false);
    assert_eq!(super::simd(&w, 0xffff_0001, 0x0001_ffff, 0), 0);
    let s = simd(SimdOp::Add, 2, "sss", true);
    assert_eq!(super::simd(&s, 0x7fff_8000, 0x0001_ffff, 0), 0x7fff_8000);
    let sub = simd(SimdOp::Sub, 4, "uuu", true);
    assert_eq!(super::simd(&sub, 0x0001_0203, 0x0101_0101, 0), 0x0000_0102);
    let sub_s = simd(SimdOp::Sub, 4, "sss", true);
    assert_eq!(
        super::simd(&sub_s, 0x807f_0000, 0x01ff_0000, 0),
        0x807f_0000
    );
    // The destination type picks the range: signed inputs into unsigned bytes.
    let us = simd(SimdOp::Add, 4, "uss", true);
    assert_eq!(super::simd(&us, 0x80ff_7f01, 0x0000_7f01, 0), 0x0000_fe02);
}

#[test]
fn simd_average_absdiff_min_max() {
    let av = simd(SimdOp::Avrg, 4, "uuu", false);
    assert_eq!(super::simd(&av, 0x01ff_0003, 0x02ff_0004, 0), 0x02ff_0004);
    let avs = simd(SimdOp::Avrg, 4, "sss", false);
    // -3 + 0 floors to -2; -3 + 4 rounds 0.5 up to 1; -128 + -128 = -128.
    assert_eq!(super::simd(&avs, 0x80fd_00fd, 0x8004_0000, 0), 0x8001_00fe);
    let av2 = simd(SimdOp::Avrg, 2, "sss", false);
    assert_eq!(super::simd(&av2, 0x7fff_8000, 0x7fff_8001, 0), 0x7fff_8000);
    // __vabsdiffu4.
    let ad = simd(SimdOp::AbsDiff, 4, "uuu", false);
    assert_eq!(super::simd(&ad, 0x00ff_7f80, 0xff00_807f, 0), 0xffff_0101);
    let ads = simd(SimdOp::AbsDiff, 4, "sss", true);
    assert_eq!(super::simd(&ads, 0x0000_7f80, 0x0000_807f, 0), 0x0000_7f7f);
    let mn = simd(SimdOp::Min, 2, "sss", false);
    assert_eq!(super::simd(&mn, 0xfffe_0001, 0x0003_8000, 0), 0xfffe_8000);
    let mx = simd(SimdOp::Max, 2, "uuu", false);
    assert_eq!(super::simd(&mx, 0xfffe_0001, 0x0003_8000, 0), 0xfffe_8000);
}

#[test]
fn simd_add_reduction() {
    // __vsadu2: vabsdiff2.u32.u32.u32.add, the full 17-bit sum.
    let sad = Simd {
        add: true,
        ..simd(SimdOp::AbsDiff, 2, "uuu", false)
    };
    assert_eq!(super::simd(&sad, 0x0000_ffff, 0xffff_0000, 0), 0x1_fffe);
    assert_eq!(super::simd(&sad, 0x0000_ffff, 0xffff_0000, 5), 0x2_0003);
    // Signed elements add their sign: (1-3) + (0-0) to 10.
    let sub = Simd {
        add: true,
        ..simd(SimdOp::Sub, 4, "sss", false)
    };
    assert_eq!(super::simd(&sub, 0x0000_0001, 0x0000_0003, 10), 8);
    // Only the masked elements add.
    let masked = Simd {
        mask: 0b0100,
        ..sub
    };
    assert_eq!(super::simd(&masked, 0x0005_0001, 0x0001_0003, 10), 14);
    // vset4 counts.
    let set = Simd {
        add: true,
        ..simd(SimdOp::Set(VideoCmp::Ne), 4, "uuu", false)
    };
    assert_eq!(super::simd(&set, 0x0102_0304, 0x0102_0000, 0xffff_ffff), 1);
}

#[test]
fn simd_masks_and_selectors() {
    let m = Simd {
        mask: 0b0101,
        ..simd(SimdOp::Add, 4, "uuu", false)
    };
    assert_eq!(
        super::simd(&m, 0x0101_0101, 0x0101_0101, 0xaabb_ccdd),
        0xaa02_cc02
    );
    let h1 = Simd {
        mask: 0b10,
        ..simd(SimdOp::Max, 2, "sss", false)
    };
    assert_eq!(
        super::simd(&h1, 0xfffe_0001, 0x0003_0000, 0x1234_5678),
        0x0003_5678
    );
    // vmin2.s32.u32.u32.add d.h10, a.h00, b.h22, c.
    let sel = Simd {
        asel: [0, 0, 0, 0],
        bsel: [2, 2, 0, 0],
        add: true,
        ..simd(SimdOp::Min, 2, "suu", false)
    };
    assert_eq!(super::simd(&sel, 7, 3, 100), 106);
    // a.b0123 (reversed) plus b.b4567.
    let rev = Simd {
        asel: [3, 2, 1, 0],
        bsel: [7, 6, 5, 4],
        ..simd(SimdOp::Add, 4, "uuu", false)
    };
    assert_eq!(super::simd(&rev, 0x0403_0201, 0x4030_2010, 0), 0x1122_3344);
    // A selector into b extends by the type of the operand it belongs to:
    // a.h32 (unsigned) minus b.h10 (signed), saturated to s16.
    let cross = Simd {
        asel: [2, 3, 0, 0],
        bsel: [0, 1, 0, 0],
        ..simd(SimdOp::Sub, 2, "sus", true)
    };
    assert_eq!(
        super::simd(&cross, 0xffff_ffff, 0x0000_ffff, 0),
        0x0001_7fff
    );
    let lt = simd(SimdOp::Set(VideoCmp::Lt), 4, "uss", false);
    assert_eq!(super::simd(&lt, 0x807f_00ff, 0, 0), 0x0100_0001);
    let ltu = simd(SimdOp::Set(VideoCmp::Lt), 4, "uuu", false);
    assert_eq!(super::simd(&ltu, 0x807f_00ff, 0, 0), 0);
    let merged = Simd {
        mask: 0b01,
        ..simd(SimdOp::Set(VideoCmp::Ge), 2, "uss", false)
    };
    assert_eq!(super::simd(&merged, 5, 5, 0xabcd_ef01), 0xabcd_0001);
}

#[test]
fn eval_dispatches_and_ignores_high_bits() {
    let op = VideoOp::Simd(simd(SimdOp::AbsDiff, 4, "uuu", false));
    assert_eq!(
        eval(&op, 0xdead_0000_00ff_7f80, 0xff00_807f, 0),
        0xffff_0101
    );
    let op = VideoOp::Mad(mad("uu"));
    assert_eq!(eval(&op, 3, 4, 5), 17);
}

// The forms where the H100 and the ISA's pseudo-code disagree: each case is
// one thread's `a, b, c` and the GPU's result, measured on H100,
// ptx-samples/hw/h100-gpucheck.json (sample cuda/simd_video, the result slot
// in brackets; thread index i).

#[test]
fn measured_on_h100_merge_with_sat() {
    // [19] vsub.u32.u32.u32.sat d.b2, a.b0, b.b3, c (i=16): 0 - 255 merges 0xff.
    let s = sc(
        ScalarOp::Sub,
        "uuu",
        true,
        Part::Byte(0),
        Part::Byte(3),
        Secondary::Merge(Part::Byte(2)),
    );
    assert_eq!(scalar(&s, 0, 0xffff_ffff, 0x8080_8080), 0x80ff_8080);
    // [57] vsub.s32.u32.u32.sat d.b1, a.h0, b.h1, c: 0 - 65535 (i=16) and
    // 0x7f7f - 65535 (i=18) merge 0x7f; 255 (i=5) merges 0x7f.
    let s = sc(
        ScalarOp::Sub,
        "suu",
        true,
        Part::Half(0),
        Part::Half(1),
        Secondary::Merge(Part::Byte(1)),
    );
    assert_eq!(scalar(&s, 0, 0xffff_ffff, 0x8080_8080), 0x8080_7f80);
    assert_eq!(
        scalar(&s, 0x7f7f_7f7f, 0xffff_ffff, 0xffff_ffff),
        0xffff_7fff
    );
    assert_eq!(scalar(&s, 0x00ff_00ff, 0, 0x7fff_8000), 0x7fff_7f00);
    // [18] vadd.s32.s32.s32.sat d.h1, a.b1, b.h1, c: 127 + 0 (i=2) and
    // -128 + 0 (i=9) both merge 0.
    let s = sc(
        ScalarOp::Add,
        "sss",
        true,
        Part::Byte(1),
        Part::Half(1),
        Secondary::Merge(Part::Half(1)),
    );
    assert_eq!(scalar(&s, 0x7f7f_7f7f, 0, 0xffff_ffff), 0x0000_ffff);
    assert_eq!(scalar(&s, 0x01ff_807f, 0, 0x7f7f_7f7f), 0x0000_7f7f);
}

#[test]
fn measured_on_h100_shift_sat() {
    // [22] vshl.u32.u32.u32.wrap.sat d, a, b.b0: a << 31 wraps to 34 bits:
    // 0x7f80ff01 << 31 is +2^31 (i=24), 0xffffffff << 31 is negative (i=17).
    let s = sc(
        ScalarOp::Shl { wrap: true },
        "uuu",
        true,
        Part::Word,
        Part::Byte(0),
        Secondary::None,
    );
    assert_eq!(scalar(&s, 0x7f80_ff01, 0xffff_ffff, 0), 0x8000_0000);
    assert_eq!(scalar(&s, 0xffff_ffff, 0xffff_ffff, 0x0001_0203), 0);
    // [25] vshl.s32.s32.u32.clamp.sat d.h0, a.b2, b.b0, c: the 32-bit clamp's
    // low half: 123 << 9 = 0xf600 (i=344), 28 << 27 clamps to 0x7fffffff
    // (i=285), -125 << 31 wraps positive (i=257), 1 << 32 is +2^32 (i=42),
    // 3 << 32 wraps negative (i=361).
    let s = Scalar {
        b_signed: false,
        ..sc(
            ScalarOp::Shl { wrap: false },
            "sss",
            true,
            Part::Byte(2),
            Part::Byte(0),
            Secondary::Merge(Part::Half(0)),
        )
    };
    assert_eq!(
        scalar(&s, 0x5a7b_6237, 0xf18e_bc09, 0xe7fe_6ece),
        0xe7fe_f600
    );
    assert_eq!(
        scalar(&s, 0x591c_32d8, 0x37ac_f21b, 0x9417_1b6c),
        0x9417_ffff
    );
    assert_eq!(
        scalar(&s, 0x0183_a8b5, 0xe633_6d1f, 0xf989_d237),
        0xf989_ffff
    );
    assert_eq!(
        scalar(&s, 0x0001_0203, 0x7f7f_7f7f, 0x01ff_807f),
        0x01ff_ffff
    );
    assert_eq!(
        scalar(&s, 0x1e03_bfee, 0x5637_2931, 0xd13b_4799),
        0xd13b_0000
    );
}

#[test]
fn measured_on_h100_vset_max() {
    // [29] vset.s32.s32.gt.max d, a.h1, b.h0, c: c is signed.
    let s = Scalar {
        op: ScalarOp::Set(VideoCmp::Gt),
        d_signed: false,
        ..sc(
            ScalarOp::Add,
            "sss",
            false,
            Part::Half(1),
            Part::Half(0),
            Secondary::Max,
        )
    };
    assert_eq!(scalar(&s, 0x7f7f_7f7f, 0xffff_ffff, 0xffff_ffff), 1);
    assert_eq!(scalar(&s, 0, 0, 0x8080_8080), 0);
}

#[test]
fn measured_on_h100_vmad() {
    let m = mad("uu");
    // [33] vmad.u32.u32.u32.po.shr7 d, a.h0, b.b2, c: c sign-extended, the
    // shift arithmetic: (0x80808080 + 1) >> 7 (i=0); -1 + 1 (i=2).
    let po = Vmad {
        asel: Part::Half(0),
        bsel: Part::Byte(2),
        plus_one: true,
        shift: 7,
        ..m
    };
    assert_eq!(vmad(&po, 0, 0, 0x8080_8080), 0xff01_0101);
    assert_eq!(vmad(&po, 0x7f7f_7f7f, 0, 0xffff_ffff), 0);
    // [34] vmad.u32.u32.u32.shr15.sat d, a.h1, b.h0, c: a negative sum
    // saturates to U32_MAX (i=0); 0x7f7f * 0xffff - 1 (i=18); 0xffff *
    // 0xffff + 0x10203, the halves zero-extended (i=17).
    let s15 = Vmad {
        asel: Part::Half(1),
        bsel: Part::Half(0),
        sat: true,
        shift: 15,
        ..m
    };
    assert_eq!(vmad(&s15, 0, 0, 0x8080_8080), 0xffff_ffff);
    assert_eq!(
        vmad(&s15, 0x7f7f_7f7f, 0xffff_ffff, 0xffff_ffff),
        0x0000_fefd
    );
    assert_eq!(
        vmad(&s15, 0xffff_ffff, 0xffff_ffff, 0x0001_0203),
        0x0001_fffe
    );
    // [36] vmad.u32.u32.u32.sat d, a, b, -c: the words multiply as signed:
    // (-2^31) * (-1) - 0xffff (i=29); 0xff00ff * (-1) - 0x7fff8000 clamps
    // (i=21); 0 - (-0x7f7f7f80) (i=0).
    let nc = Vmad {
        neg_c: true,
        sat: true,
        ..m
    };
    assert_eq!(
        vmad(&nc, 0x8000_0000, 0xffff_ffff, 0x0000_ffff),
        0x7fff_0001
    );
    assert_eq!(
        vmad(&nc, 0x00ff_00ff, 0xffff_ffff, 0x7fff_8000),
        0x8000_0000
    );
    assert_eq!(vmad(&nc, 0, 0, 0x8080_8080), 0x7f7f_7f80);
}
