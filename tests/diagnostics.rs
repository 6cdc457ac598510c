//! Bad input gets a clear error: file:line:col, the source line with a caret,
//! what was expected; every error in a file is reported; nothing panics.
//! The inputs are real corpus files with one defect injected at a known line.

mod common;

use warpjit::front::{self, DiagnosticKind};

fn vector_add() -> String {
    common::read(&common::repo_root().join("ptx-samples/cuda/vector_add/kernel.compute_80.ptx"))
}

/// Replaces the first occurrence of `from` in `text`, returning the new text
/// and the 1-based line where the replacement starts.
fn inject(text: &str, from: &str, to: &str) -> (String, usize) {
    let at = text
        .find(from)
        .unwrap_or_else(|| panic!("`{from}` not in the sample"));
    let line = text[..at].matches('\n').count() + 1;
    (text.replacen(from, to, 1), line)
}

fn line_of(text: &str, needle: &str) -> usize {
    text[..text.find(needle).unwrap()].matches('\n').count() + 1
}

#[test]
fn unknown_opcode_names_file_line_col_and_shows_a_caret() {
    let (text, line) = inject(&vector_add(), "ld.global.nc.f32", "lod.global.nc.f32");
    let err = front::parse_str("vector_add.ptx", &text).unwrap_err();
    assert_eq!(err.items.len(), 1, "{err}");
    assert_eq!(err.items[0].kind, DiagnosticKind::UnknownOpcode);
    let rendered = err.to_string();
    let src_line = text.lines().nth(line - 1).unwrap();
    let col = src_line.find("lod").unwrap() + 1;
    assert!(
        rendered.starts_with(&format!(
            "vector_add.ptx:{line}:{col}: unknown instruction: `lod`"
        )),
        "{rendered}"
    );
    assert!(rendered.contains(src_line), "{rendered}");
    assert!(rendered.contains("^^^"), "{rendered}");
}

#[test]
fn modifier_not_valid_for_the_opcode_is_rejected() {
    let (text, line) = inject(&vector_add(), "add.s64", "add.eq.s64");
    let err = front::parse_str("v.ptx", &text).unwrap_err();
    assert_eq!(err.items[0].kind, DiagnosticKind::BadModifier);
    assert!(err.to_string().contains(&format!("v.ptx:{line}:")), "{err}");
    assert!(
        err.to_string()
            .contains("`.eq` is not a valid modifier for `add`"),
        "{err}"
    );
}

#[test]
fn unknown_modifier_is_rejected() {
    let (text, _) = inject(&vector_add(), "ld.global.nc.f32", "ld.global.nc.f33");
    let err = front::parse_str("v.ptx", &text).unwrap_err();
    assert!(
        err.to_string().contains("`.f33` is not a PTX modifier"),
        "{err}"
    );
}

#[test]
fn missing_comma_says_what_was_expected() {
    let text = vector_add();
    let target = text
        .lines()
        .find(|l| l.trim_start().starts_with("add.s64"))
        .unwrap()
        .to_string();
    let broken = target.replacen(", ", " ", 1);
    let (text, line) = inject(&text, &target, &broken);
    let err = front::parse_str("v.ptx", &text).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains(&format!("v.ptx:{line}:")), "{msg}");
    assert!(msg.contains("expected `,` or `;`"), "{msg}");
}

#[test]
fn every_error_in_a_file_is_reported() {
    let text = vector_add();
    let (text, l1) = inject(&text, "ld.global.nc.f32", "lod.global.nc.f32");
    let (text, l2) = inject(&text, "st.global.f32", "st.global.q32");
    let (text, l3) = inject(&text, "ret;", "ret %r1 %r2;");
    let err = front::parse_str("v.ptx", &text).unwrap_err();
    let lines: Vec<usize> = err
        .items
        .iter()
        .map(|d| text[..d.span.start as usize].matches('\n').count() + 1)
        .collect();
    assert_eq!(lines, vec![l1, l2, l3], "{err}");
    assert!(err.to_string().ends_with("3 errors in v.ptx"), "{err}");
}

#[test]
fn errors_in_module_directives_are_reported_and_parsing_continues() {
    let text = vector_add();
    let (text, line) = inject(&text, ".address_size 64", ".address_size 48");
    let (text, _) = inject(&text, "ld.global.nc.f32", "lod.global.nc.f32");
    let err = front::parse_str("v.ptx", &text).unwrap_err();
    assert_eq!(err.items.len(), 2, "{err}");
    assert!(err.to_string().contains(&format!("v.ptx:{line}:")), "{err}");
    assert!(err.to_string().contains("must be 32 or 64"), "{err}");
}

#[test]
fn bad_float_literal_and_unterminated_comment() {
    let text = vector_add();
    let line = line_of(&text, ".entry");
    let (t1, _) = inject(&text, ".entry", "/* oops\n.entry");
    let err = front::parse_str("v.ptx", &t1).unwrap_err();
    assert!(
        err.to_string().contains("unterminated `/*` comment"),
        "{err}"
    );
    assert!(err.to_string().contains(&format!("v.ptx:{line}:")), "{err}");

    let mut t2 = text.clone();
    let ret = t2.find("ret;").unwrap();
    t2.insert_str(ret, "mov.f32 %f9, 0f3F80;\n\t");
    let err = front::parse_str("v.ptx", &t2).unwrap_err();
    assert!(
        err.to_string().contains("needs exactly 8 hex digits"),
        "{err}"
    );
}

#[test]
fn missing_version_is_an_error() {
    let text = vector_add().replace(".version", "// .version");
    let err = front::parse_str("v.ptx", &text).unwrap_err();
    assert!(
        err.to_string().contains("must start with `.version`"),
        "{err}"
    );
}

/// Every prefix of a real file, and a sweep of single-byte corruptions, must
/// give a module or diagnostics: never a panic. (The fuzz target in fuzz/
/// explores far more; this keeps the property in every `cargo test`.)
#[test]
fn truncated_and_corrupted_real_files_never_panic() {
    let files = [
        "cuda/printf_basic/kernel.compute_80.ptx",
        "cuda/vector_add/kernel.compute_80.ptx",
    ];
    for f in files {
        let text = common::read(&common::repo_root().join("ptx-samples").join(f));
        let bytes = text.as_bytes();
        let step = (bytes.len() / 400).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            let prefix = String::from_utf8_lossy(&bytes[..cut]);
            if let Err(d) = front::parse_str("t.ptx", &prefix) {
                let _ = d.to_string();
            }
        }
        for (k, pos) in (0..bytes.len()).step_by(step).enumerate() {
            let mut corrupted = bytes.to_vec();
            corrupted[pos] = b"{}[]();,.@!%_-+0x\"/*\n"[k % 21];
            let text = String::from_utf8_lossy(&corrupted);
            if let Err(d) = front::parse_str("c.ptx", &text) {
                let _ = d.to_string();
            }
        }
    }
}

#[test]
fn deeply_nested_input_is_an_error_not_a_stack_overflow() {
    let mut text = vector_add();
    let ret = text.find("ret;").unwrap();
    text.insert_str(
        ret,
        &format!(
            "mov.b32 %r1, {}%r2{};\n\t",
            "{".repeat(100_000),
            "}".repeat(100_000)
        ),
    );
    let err = front::parse_str("v.ptx", &text).unwrap_err();
    assert!(err.to_string().contains("nested too deeply"), "{err}");

    let body = "{".repeat(100_000);
    let mut text = vector_add();
    let ret = text.find("ret;").unwrap();
    text.insert_str(ret, &body);
    assert!(front::parse_str("v.ptx", &text).is_err());
}

#[test]
fn red_without_a_reduction_is_rejected_as_ptxas_does() {
    // `red` reduces: .exch and .cas exist only on `atom`.
    for op in ["exch.b32", "cas.b32"] {
        let extra = if op.starts_with("cas") { ", %r1" } else { "" };
        let text = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
             \t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n\
             \tred.global.{op} [%rd1], %r1{extra};\n\tret;\n}}\n"
        );
        let source = front::SourceFile::new("r.ptx", text);
        let ast = front::parse(&source).unwrap();
        let err = warpjit::ir::lower::run(&ast, &source).unwrap_err();
        assert!(
            err.to_string()
                .contains("r.ptx:9:2: error: `red` has no `.exch` or `.cas`: use `atom`"),
            "{err}"
        );
    }
}

#[test]
fn hints_are_checked_as_ptxas_checks_them() {
    let cases = [
        (
            "setmaxnreg.inc.sync.aligned.u32 230;",
            "setmaxnreg takes an immediate register count in 24..=256, a multiple of 8",
        ),
        (
            "setmaxnreg.dec.sync.aligned.u32 16;",
            "setmaxnreg takes an immediate register count",
        ),
        (
            "ld.global.b32 %r1, [%rd1], %rd1;",
            "a cache-policy operand needs `.L2::cache_hint`",
        ),
        (
            "st.global.b32 [%rd1], %r1, %rd1;",
            "a cache-policy operand needs `.L2::cache_hint`",
        ),
    ];
    for (line, want) in cases {
        let text = format!(
            ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
             \t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n\t{line}\n\tret;\n}}\n"
        );
        let source = front::SourceFile::new("h.ptx", text);
        let ast = front::parse(&source).unwrap();
        let err = warpjit::ir::lower::run(&ast, &source).unwrap_err();
        assert!(
            err.to_string().contains("h.ptx:9:") && err.to_string().contains(want),
            "{line}: {err}"
        );
    }
}
