//! The forms issue 27 added, on both engines, with hand-written expected
//! values from the PTX ISA: f32-to-tf32 conversions (rounding ties,
//! `.satfinite` of infinities and overflow, NaN, `.relu`), `cvt.pack.sat`
//! (saturation bounds and packing with `c`), and vector atomics (each
//! element's old value, a misaligned vector a misaligned-address fault on
//! both engines); the variants the ISA does not have are refused naming
//! the instruction and its line.

mod common;

use common::forms::{bytes, run_kernel, words, ENGINES};
use warpjit::interp::FaultKind;
use warpjit::runtime::Engine;
use warpjit::Error;

/// A kernel `k(.u64 in, .u64 out)` of one thread running `body` with
/// `%rd1` = in and `%rd2` = out (global addresses).
fn module(target: &str, body: &str) -> String {
    format!(
        ".version 8.8\n.target {target}\n.address_size 64\n\
         .visible .entry k(.param .u64 pin, .param .u64 pout)\n{{\n\
         \t.reg .b16 %h<20>;\n\t.reg .b32 %r<40>;\n\t.reg .f32 %f<20>;\n\t.reg .b64 %rd<10>;\n\
         \tld.param.u64 %rd1, [pin];\n\tld.param.u64 %rd2, [pout];\n\
         \tcvta.to.global.u64 %rd1, %rd1;\n\tcvta.to.global.u64 %rd2, %rd2;\n\
         {body}\n\tret;\n}}\n"
    )
}

/// Runs `body` once on `engine` with `input` in a buffer; returns the
/// first `out_len` bytes of the output buffer or the error.
fn run(
    engine: Engine,
    target: &str,
    body: &str,
    input: &[u8],
    out_len: usize,
) -> Result<Vec<u8>, Error> {
    run_kernel(engine, &module(target, body), None, 1, input, out_len)
}

/// The tf32 forms, in the order of the expected values below.
const TF32_FORMS: [&str; 8] = [
    "cvt.rna.tf32.f32",
    "cvt.rna.satfinite.tf32.f32",
    "cvt.rn.tf32.f32",
    "cvt.rz.tf32.f32",
    "cvt.rn.satfinite.tf32.f32",
    "cvt.rz.satfinite.tf32.f32",
    "cvt.rn.relu.tf32.f32",
    "cvt.rz.satfinite.relu.tf32.f32",
];

fn tf32_all(engine: Engine, x: u32) -> Vec<u32> {
    let mut body = String::from("\tld.global.f32 %f1, [%rd1];\n");
    for (i, form) in TF32_FORMS.iter().enumerate() {
        body += &format!(
            "\t{form} %r{i}, %f1;\n\tst.global.b32 [%rd2+{}], %r{i};\n",
            4 * i
        );
    }
    words(&run(engine, "sm_90", &body, &x.to_le_bytes(), 32).unwrap())
}

#[test]
fn tf32_conversions_round_saturate_and_relu_as_the_isa_says() {
    const MAX: u32 = 0x7F7F_E000;
    const NAN: u32 = 0x7FFF_FFFF;
    #[rustfmt::skip]
    let cases: [(u32, [u32; 8]); 9] = [
        // 1 + 2^-11: a tie between 1 and 1 + 2^-10.
        (0x3F80_1000, [0x3F80_2000, 0x3F80_2000, 0x3F80_0000, 0x3F80_0000, 0x3F80_0000, 0x3F80_0000, 0x3F80_0000, 0x3F80_0000]),
        // A tie above an odd mantissa: to even rounds up.
        (0x3F80_3000, [0x3F80_4000, 0x3F80_4000, 0x3F80_4000, 0x3F80_2000, 0x3F80_4000, 0x3F80_2000, 0x3F80_4000, 0x3F80_2000]),
        // The largest f32: rounds to infinity, or saturates.
        (0x7F7F_FFFF, [0x7F80_0000, MAX, 0x7F80_0000, MAX, MAX, MAX, 0x7F80_0000, MAX]),
        // Infinities.
        (0x7F80_0000, [0x7F80_0000, MAX, 0x7F80_0000, 0x7F80_0000, MAX, MAX, 0x7F80_0000, MAX]),
        (0xFF80_0000, [0xFF80_0000, 0xFF7F_E000, 0xFF80_0000, 0xFF80_0000, 0xFF7F_E000, 0xFF7F_E000, 0, 0]),
        // NaN: plain .rna passes its bits, the others give the canonical NaN.
        (0x7FC0_0001, [0x7FC0_0001, NAN, NAN, NAN, NAN, NAN, NAN, NAN]),
        // -(1.5 + 3 * 2^-12): negative values round by magnitude; relu gives +0.
        (0xBFC0_1800, [0xBFC0_2000, 0xBFC0_2000, 0xBFC0_2000, 0xBFC0_0000, 0xBFC0_2000, 0xBFC0_0000, 0, 0]),
        // A subnormal tie above an odd mantissa.
        (0x0000_3000, [0x0000_4000, 0x0000_4000, 0x0000_4000, 0x0000_2000, 0x0000_4000, 0x0000_2000, 0x0000_4000, 0x0000_2000]),
        // -0.
        (0x8000_0000, [0x8000_0000, 0x8000_0000, 0x8000_0000, 0x8000_0000, 0x8000_0000, 0x8000_0000, 0, 0]),
    ];
    for engine in ENGINES {
        for (x, want) in cases {
            assert_eq!(tf32_all(engine, x), want, "{engine:?}: {x:#x}");
        }
    }
}

#[test]
fn cvt_pack_saturates_both_bounds_and_packs_c_above() {
    let body = "\tld.global.b32 %r1, [%rd1];\n\tld.global.b32 %r2, [%rd1+4];\n\
                \tld.global.b32 %r3, [%rd1+8];\n\
                \tcvt.pack.sat.u16.s32 %r10, %r1, %r2;\n\
                \tcvt.pack.sat.s16.s32 %r11, %r1, %r2;\n\
                \tcvt.pack.sat.u8.s32.b32 %r12, %r1, %r2, %r3;\n\
                \tcvt.pack.sat.s8.s32.b32 %r13, %r1, %r2, %r3;\n\
                \tcvt.pack.sat.s4.s32.b32 %r14, %r1, %r2, %r3;\n\
                \tcvt.pack.sat.s8.s32.b32 %r15, 200, -3, 0;\n\
                \tst.global.v4.b32 [%rd2], {%r10, %r11, %r12, %r13};\n\
                \tst.global.v2.b32 [%rd2+16], {%r14, %r15};";
    #[rustfmt::skip]
    let cases: [([u32; 3], [u32; 6]); 3] = [
        // a = -70000 (below every range), b = 70000 (above), c all ones.
        ([-70000i32 as u32, 70000, 0xFFFF_FFFF], [0x0000_FFFF, 0x8000_7FFF, 0xFFFF_00FF, 0xFFFF_807F, 0xFFFF_FF87, 0x0000_7FFD]),
        // In range: a = -2, b = 5; c = 0x1234_5678.
        ([-2i32 as u32, 5, 0x1234_5678], [0x0000_0005, 0xFFFE_0005, 0x5678_0005, 0x5678_FE05, 0x3456_78E5, 0x0000_7FFD]),
        // Exactly the bounds: a = 255, b = -128; c = 1.
        ([255, -128i32 as u32, 1], [0x00FF_0000, 0x00FF_FF80, 0x0001_FF00, 0x0001_7F80, 0x0000_0178, 0x0000_7FFD]),
    ];
    for engine in ENGINES {
        for (input, want) in cases {
            let out = words(&run(engine, "sm_80", body, &bytes(&input), 24).unwrap());
            assert_eq!(out, want, "{engine:?}: {input:x?}");
        }
    }
}

const VEC_ATOM: &str = "\tld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];\n\
    \tatom.global.v4.f32.add {%f5, %f6, %f7, %f8}, [%rd2+16], {%f1, %f2, %f3, %f4};\n\
    \tatom.global.v4.f32.add {%f9, %f10, %f11, %f12}, [%rd2+16], {%f1, %f2, %f3, %f4};\n\
    \tst.global.v4.f32 [%rd2+32], {%f9, %f10, %f11, %f12};\n\
    \tred.global.v2.f32.add [%rd2+8], {%f1, %f2};\n\
    \tmov.b32 %r1, 0x3C004000;\n\
    \tatom.global.v2.f16x2.max.noftz {%r2, %r3}, [%rd2+48], {%r1, %r1};\n\
    \tatom.global.v2.f16x2.max.noftz {%r4, %r5}, [%rd2+48], {%r1, %r1};\n\
    \tst.global.v2.b32 [%rd2+56], {%r4, %r5};\n\
    \tmov.b16 %h1, 0x3C00;\n\
    \tatom.global.v8.bf16.add.noftz {%h2, %h3, %h4, %h5, %h6, %h7, %h8, %h9}, [%rd2+64], {%h1, %h1, %h1, %h1, %h1, %h1, %h1, %h1};\n\
    \tatom.global.v2.f32.add {%f2, %f1}, [%rd2+80], {%f1, %f2};\n\
    \tst.global.v2.f32 [%rd2+88], {%f1, %f2};";

#[test]
fn vector_atomics_update_each_element_and_return_the_old_values() {
    let input = bytes(&[
        1.5f32.to_bits(),
        (-2.0f32).to_bits(),
        0.25f32.to_bits(),
        8.0f32.to_bits(),
    ]);
    for engine in ENGINES {
        let out = words(&run(engine, "sm_90", VEC_ATOM, &input, 96).unwrap());
        let f = |w: &[u32]| w.iter().map(|b| f32::from_bits(*b)).collect::<Vec<_>>();
        // The red.v2 at +8: the first two inputs.
        assert_eq!(f(&out[2..4]), [1.5, -2.0], "{engine:?}");
        // Two v4 adds at +16: twice the input; the second saw the first's.
        assert_eq!(f(&out[4..8]), [3.0, -4.0, 0.5, 16.0], "{engine:?}");
        assert_eq!(f(&out[8..12]), [1.5, -2.0, 0.25, 8.0], "{engine:?}");
        // f16x2 max of zeros with (2.0, 1.0): the second saw the first's.
        assert_eq!(out[12..14], [0x3C00_4000, 0x3C00_4000], "{engine:?}");
        assert_eq!(out[14..16], [0x3C00_4000, 0x3C00_4000], "{engine:?}");
        // v8.bf16 add of 0x3C00 (bf16 2^-7) to zeros: each element.
        assert_eq!(out[16..20], [0x3C00_3C00; 4], "{engine:?}");
        // Destinations that are also sources: every source is read first.
        assert_eq!(f(&out[20..22]), [1.5, -2.0], "{engine:?}");
        assert_eq!(f(&out[22..24]), [0.0, 0.0], "{engine:?}");
    }
}

#[test]
fn a_misaligned_vector_atomic_is_a_misaligned_address_fault() {
    // 8-byte aligned, not 16: each f32 element would be aligned on its own.
    let forms = [
        "\tatom.global.v4.f32.add {%f5, %f6, %f7, %f8}, [%rd2+8], {%f1, %f2, %f3, %f4};",
        "\tred.global.v8.f16.add.noftz [%rd2+8], {%h1, %h1, %h1, %h1, %h1, %h1, %h1, %h1};",
        "\tatom.global.v2.f32.add {%f5, %f6}, [%rd2+4], {%f1, %f2};",
    ];
    for engine in ENGINES {
        for form in forms {
            let body = format!("\tmov.f32 %f1, 0f3F800000;\n\tmov.b16 %h1, 0x3C00;\n{form}");
            match run(engine, "sm_90", &body, &[0; 4], 4) {
                Err(Error::Launch(e)) => {
                    assert_eq!(
                        e.kind,
                        FaultKind::MisalignedAddress,
                        "{engine:?} {form}: {e}"
                    );
                    assert!(
                        e.location.contains("t.ptx:16:"),
                        "{engine:?} {form}: {}",
                        e.location
                    );
                }
                other => panic!("{engine:?} {form}: {other:?}"),
            }
        }
    }
}

#[test]
fn forms_the_isa_does_not_have_are_refused_at_their_line() {
    let forms = [
        ("atom.global.v4.f32.min {%f5, %f6, %f7, %f8}, [%rd2], {%f1, %f2, %f3, %f4};", "atom.global.v4.f32.min"),
        ("atom.shared.v2.f32.add {%f5, %f6}, [%rd2], {%f1, %f2};", "atom.shared.v2.f32.add"),
        ("atom.global.v8.f32.add {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd2], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};", "atom.global.v8.f32.add"),
        ("atom.global.v2.u32.add {%r1, %r2}, [%rd2], {%r3, %r4};", "atom.global.v2.u32.add"),
        ("cvt.rm.tf32.f32 %r1, %f1;", "cvt.rm.tf32.f32"),
        ("cvt.rna.relu.tf32.f32 %r1, %f1;", "cvt.rna.relu.tf32.f32"),
        ("cvt.pack.sat.u32.s32.b32 %r1, %r2, %r3, %r4;", "cvt.pack.sat.u32.s32.b32"),
        ("cvt.pack.sat.u16.s32.b32 %r1, %r2, %r3;", "cvt.pack.sat.u16.s32.b32"),
        ("cvt.pack.sat.u8.s32 %r1, %r2, %r3;", "cvt.pack.sat.u8.s32"),
        ("cvt.rs.f16x2.f32 %r1, %f1, %f2, %r2;", "cvt.rs.f16x2.f32"),
    ];
    for (form, name) in forms {
        let text = format!("\t{form}");
        let err = run(Engine::Interp, "sm_90", &text, &[0; 4], 4)
            .unwrap_err()
            .to_string();
        assert!(err.contains(name), "{form}: {err}");
        assert!(err.contains("t.ptx:14:"), "{form}: {err}");
    }
}
