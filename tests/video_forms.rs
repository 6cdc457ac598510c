//! The video instructions (PTX ISA §9.7.16) parse, print back as written
//! and lower to one video micro-op each; the forms ptxas rejects are load
//! errors naming the instruction's line and column, never a panic.

use warpjit::front::{self, SourceFile};

const HEADER: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

fn module(body: &str) -> String {
    format!(
        "{HEADER}.visible .entry k()\n{{\n\t.reg .b32 %r<10>;\n\tmov.u32 %r1, 1;\n\tmov.u32 %r2, 2;\n\tmov.u32 %r3, 3;\n{body}\n\tret;\n}}\n"
    )
}

/// Every form the sample and the fuzzer use, as ptxas accepts them.
const FORMS: &[&str] = &[
    "vadd.s32.u32.s32.sat %r4, %r1.b1, %r2.h1;",
    "vsub.u32.s32.s32 %r4, %r1, %r2, %r3;",
    "vabsdiff.u32.u32.u32.add %r4, %r1, %r2, %r3;",
    "vmin.s32.s32.s32.sat.min %r4, %r1.b3, %r2.b0, %r3;",
    "vmax.u32.s32.u32.max %r4, %r1.h0, 7, %r3;",
    "vadd.s32.s32.s32.sat %r4.h1, %r1.b1, %r2.h1, %r3;",
    "vsub.u32.u32.u32 %r4.b2, %r1, %r2, %r3;",
    "vshl.u32.u32.u32.clamp %r4, %r1, %r2;",
    "vshr.s32.s32.u32.wrap.sat.max %r4, %r1.h1, %r2.b3, %r3;",
    "vshl.s32.u32.u32.wrap %r4.b0, %r1, %r2, %r3;",
    "vset.s32.u32.lt %r4, %r1, %r2;",
    "vset.u32.u32.ne.add %r4, %r1.b1, %r2.h1, %r3;",
    "vset.s32.s32.ge %r4.h0, %r1, %r2, %r3;",
    "vmad.s32.s32.s32.sat %r4, -%r1, %r2, %r3;",
    "vmad.u32.u32.u32 %r4, %r1, %r2, -%r3;",
    "vmad.s32.u32.s32 %r4, -%r1, -%r2, %r3;",
    "vmad.u32.u32.u32.po.shr7 %r4, %r1.h0, %r2.b2, %r3;",
    "vmad.u32.u32.u32.shr15.sat %r4, %r1.h1, %r2.h0, %r3;",
    "vadd2.u32.u32.u32.sat %r4, %r1, %r2, %r3;",
    "vsub2.s32.s32.s32.sat %r4.h0, %r1.h10, %r2.h32, %r3;",
    "vavrg2.s32.s32.s32 %r4.h1, %r1.h31, %r2.h02, %r3;",
    "vabsdiff2.u32.u32.u32.add %r4, %r1, %r2, %r3;",
    "vmin2.s32.u32.u32.add %r4.h10, %r1.h00, %r2.h22, %r3;",
    "vmax2.u32.s32.s32 %r4, %r1, %r2, %r3;",
    "vset2.u32.u32.ne.add %r4, %r1, %r2, %r3;",
    "vset2.s32.u32.lt %r4.h1, %r1.h21, %r2, %r3;",
    "vadd4.s32.s32.s32.sat %r4, %r1, %r2, %r3;",
    "vsub4.s32.s32.s32.sat %r4.b0, %r1.b3210, %r2.b7654, %r3;",
    "vavrg4.u32.u32.u32 %r4.b31, %r1, %r2, %r3;",
    "vabsdiff4.u32.u32.u32 %r4, %r1, %r2, %r3;",
    "vabsdiff4.u32.u32.u32.add %r4, %r1, %r2, %r3;",
    "vmin4.s32.s32.s32 %r4.b20, %r1.b7531, %r2.b0246, %r3;",
    "vmax4.u32.u32.u32.add %r4.b3210, %r1.b0123, %r2.b2222, %r3;",
    "vset4.s32.s32.lt %r4, %r1, %r2, %r3;",
    "vset4.u32.s32.ge.add %r4.b321, %r1, %r2.b4444, %r3;",
];

#[test]
fn every_form_parses_prints_back_and_lowers_to_a_video_op() {
    for form in FORMS {
        let text = module(&format!("\t{form}"));
        let ast = front::parse_str("v.ptx", &text).unwrap_or_else(|e| panic!("{form}: {e}"));
        let printed = front::print::module_to_string(&ast);
        assert!(printed.contains(form), "{form} printed as:\n{printed}");
        let source = SourceFile::new("v.ptx", text.clone());
        let ir = warpjit::ir::lower::run(&ast, &source).unwrap_or_else(|e| panic!("{form}: {e}"));
        warpjit::ir::verify::run(&ir).unwrap();
        let ir_text = warpjit::ir::text::module_to_string(&ir);
        assert_eq!(ir_text.matches("Video(").count(), 1, "{form}:\n{ir_text}");
    }
}

/// Loads `form` and returns the rendered errors (the statement is on line 10).
fn load_error(form: &str) -> String {
    let text = module(&format!("\t{form}"));
    let source = SourceFile::new("v.ptx", text.clone());
    let ast = match front::parse(&source) {
        Ok(ast) => ast,
        Err(e) => return e.to_string(),
    };
    match warpjit::ir::lower::run(&ast, &source) {
        Ok(_) => panic!("`{form}` loaded"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn forms_ptxas_rejects_are_errors_at_their_line() {
    let cases = [
        (
            "vadd.s32.u32.s32.sat.add %r4.h1, %r1.b1, %r2.h1, %r3;",
            "cannot have a destination selector and a secondary operation",
        ),
        (
            "vmin4.s32.u32.u32.sat.add %r4, %r1, %r2, %r3;",
            "cannot take both `.sat` and `.add`",
        ),
        (
            "vmad.s32.s32.s32 %r4, -%r1, %r2, -%r3;",
            "negates either the product",
        ),
        (
            "vmad.s32.s32.s32.po %r4, -%r1, %r2, %r3;",
            "`vmad.po` takes no negated operand",
        ),
        (
            "vshl.u32.u32.u32 %r4, %r1, %r2;",
            "needs `.clamp` or `.wrap`",
        ),
        (
            "vshl.s32.u32.s32.clamp %r4, %r1, %r2;",
            "shift count type is `.u32`",
        ),
        (
            "vadd.s32.u32.s32 %r4, %r1.h2, %r2;",
            "`.h2` is not a source selector of `vadd`",
        ),
        (
            "vmin4.s32.u32.u32.add %r4.b01, %r1, %r2, %r3;",
            "`.b01` is not a destination mask of `vmin4`",
        ),
        (
            "vadd2.s32.u32.s32 %r4, %r1.b10, %r2, %r3;",
            "`.b10` is not a source selector of `vadd2`",
        ),
        (
            "vset4.s32.u32.lo %r4, %r1, %r2, %r3;",
            "`.lo` is not a modifier of `vset4`",
        ),
        (
            "vset.s32.u32.lt.sat %r4, %r1, %r2;",
            "`.sat` is not a modifier of `vset`",
        ),
        ("vadd.s32.u32 %r4, %r1, %r2;", "`vadd` takes 3 types"),
        (
            "vadd.s64.u32.s32 %r4, %r1, %r2;",
            "takes `.u32` or `.s32` types",
        ),
        (
            "vadd.s32.u32.s32.min %r4, %r1, %r2;",
            "takes an operand `c`",
        ),
        ("vmin4.s32.u32.u32 %r4, %r1, %r2;", "takes 4 operands"),
        (
            "vadd.s32.u32.s32 %r4, -%r1, %r2;",
            "takes no negated operand",
        ),
        (
            "vadd.s32.u32.s32.sat %r4, %r1, %r2, %r3.b0;",
            "`c` takes no selector",
        ),
        (
            "vadd.s32.u32.s32 %r4, %r1.b12345, %r2;",
            "is not a video selector",
        ),
        (
            "vadd.s32.u32.s32.sat.sat %r4, %r1, %r2;",
            "takes one `.sat` modifier",
        ),
    ];
    for (form, says) in cases {
        let err = load_error(form);
        assert!(err.contains("v.ptx:10:"), "{form}: {err}");
        assert!(err.contains(says), "{form}: {err}");
    }
}

/// Packed 16-bit integer arithmetic (`add min max` on `.u16x2`/`.s16x2`,
/// what NVRTC's half-word SIMD intrinsics become for compute_90) lowers;
/// what PTX does not define on those types is an error at its line.
#[test]
fn packed_16_bit_integer_forms_lower_and_undefined_ones_are_refused() {
    for form in [
        "add.u16x2 %r4, %r1, %r2;",
        "add.s16x2 %r4, %r1, %r2;",
        "min.u16x2 %r4, %r1, %r2;",
        "max.s16x2 %r4, %r1, %r2;",
        "min.relu.s16x2 %r4, %r1, %r2;",
        "max.relu.s16x2 %r4, %r1, %r2;",
    ] {
        let text = module(&format!("\t{form}"));
        let source = SourceFile::new("p.ptx", text);
        let ast = front::parse(&source).unwrap_or_else(|e| panic!("{form}: {e}"));
        warpjit::ir::lower::run(&ast, &source).unwrap_or_else(|e| panic!("{form}: {e}"));
    }
    for form in [
        "sub.u16x2 %r4, %r1, %r2;",
        "min.relu.u16x2 %r4, %r1, %r2;",
        "mul.lo.u16x2 %r4, %r1, %r2;",
        "add.sat.s16x2 %r4, %r1, %r2;",
    ] {
        let err = load_error(form);
        assert!(err.contains("v.ptx:10:"), "{form}: {err}");
    }
}
