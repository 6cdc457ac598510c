//! Hostile input (issue 23), at load: names defined twice, non-UTF-8 files
//! and huge register ranges are load errors naming their line, never a
//! panic; the repeated names ptxas accepts still load.

#[path = "common/hostile.rs"]
mod hostile;

use hostile::*;

#[test]
fn names_defined_twice_are_load_errors_with_their_line() {
    // (name, module after the header, what the error says, its line:col)
    let cases = [
        (
            "label",
            ".visible .entry k()\n{\nL1:\n\tret;\nL1:\n\tret;\n}\n",
            "duplicate definition of label `L1`",
            "9:1",
        ),
        (
            "global",
            ".global .b32 x;\n.global .b64 x[4];\n.visible .entry k()\n{\n\tret;\n}\n",
            "duplicate definition of variable `x`",
            "6:1",
        ),
        (
            "param",
            ".visible .entry k(.param .u32 a, .param .u64 a)\n{\n\tret;\n}\n",
            "duplicate definition of parameter `a`",
            "5:34",
        ),
        (
            "reg",
            ".visible .entry k()\n{\n\t.reg .b32 %r1;\n\t.reg .b64 %r1;\n\tret;\n}\n",
            "duplicate definition of register `%r1`",
            "8:2",
        ),
        (
            "reg-range",
            ".visible .entry k()\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %r2;\n\tret;\n}\n",
            "duplicate definition of register `%r2`",
            "8:2",
        ),
        (
            "entry",
            ".visible .entry k()\n{\n\tret;\n}\n.visible .entry k()\n{\n\tret;\n}\n",
            "duplicate definition of function `k`",
            "9:17",
        ),
        (
            "texref",
            ".global .texref tex;\n.visible .entry k()\n{\n\tret;\n}\n",
            "unsupported: `.texref`",
            "5:9",
        ),
    ];
    for (name, body, says, at) in cases {
        let file = format!("{name}.ptx");
        let path = write_ptx("names", &file, &format!("{HEADER}{body}"));
        let out = warpjit().arg("check").arg(&path).output().unwrap();
        assert_no_crash(&out, name);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains(&format!("{file}:{at}: ")), "{name}: {err}");
        assert!(err.contains(says), "{name}: {err}");
        for mode in &MODES[..2] {
            let mut args = vec!["--grid", "1", "--block", "1"];
            args.extend_from_slice(mode);
            let out = run(&path, &args);
            assert_no_crash(&out, name);
            assert_eq!(out.status.code(), Some(1), "{name}: {}", stderr(&out));
            assert!(stderr(&out).contains(says), "{name}: {}", stderr(&out));
        }
    }
}

#[test]
fn names_ptxas_accepts_still_load() {
    let cases = [
        // A nested scope hides a register of the same name, of the same
        // type or another.
        ".visible .entry k()\n{\n\t.reg .b32 %r1;\n\t{\n\t.reg .b32 %r1;\n\tmov.b32 %r1, 0;\n\t}\n\t{\n\t.reg .b64 %r1;\n\tmov.b64 %r1, 0;\n\t}\n\tret;\n}\n",
        // Declarations and then the definition of a function.
        ".func f();\n.func f();\n.func f()\n{\n\tret;\n}\n.visible .entry k()\n{\n\tcall f, ();\n\tret;\n}\n",
        // A range and a name just past it.
        ".visible .entry k()\n{\n\t.reg .b32 %r<4>;\n\t.reg .b32 %r4;\n\t.reg .b32 %r01;\n\tret;\n}\n",
        // An .extern declaration of a variable.
        ".extern .global .b32 x[];\n.visible .entry k()\n{\n\tret;\n}\n",
    ];
    for (i, body) in cases.iter().enumerate() {
        let path = write_ptx(
            "names-ok",
            &format!("ok{i}.ptx"),
            &format!("{HEADER}{body}"),
        );
        let out = warpjit().arg("check").arg(&path).output().unwrap();
        assert!(out.status.success(), "{i}: {}", stderr(&out));
        let out = run(&path, &["--grid", "1", "--block", "1"]);
        assert!(out.status.success(), "{i}: {}", stderr(&out));
    }
}

#[test]
fn non_utf8_files_are_rejected_with_line_and_column() {
    let path = scratch("utf8").join("k.ptx");
    let mut bytes = trivial().into_bytes();
    let at = trivial().find("ret").unwrap();
    bytes.splice(at..at, [b'/', b'/', 0xff, b'\n']);
    std::fs::write(&path, bytes).unwrap();
    let out = warpjit().arg("check").arg(&path).output().unwrap();
    assert_no_crash(&out, "utf8");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("k.ptx:7:4: error: the file is not UTF-8"),
        "{}",
        stderr(&out)
    );
    let out = run(&path, &["--grid", "1", "--block", "1"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("k.ptx:7:4:"), "{}", stderr(&out));
}

#[test]
fn a_huge_register_range_is_refused_at_its_line() {
    // `%h<100000000>` used to build a hundred million registers: `check`
    // grew past 3.5 GB and ran for minutes.
    let path = write_ptx(
        "huge_regs",
        "k.ptx",
        &kernel("", "\t.reg .b32 %h<100000000>;\n\tret;"),
    );
    let start = std::time::Instant::now();
    let out = warpjit().arg("check").arg(&path).output().unwrap();
    assert_no_crash(&out, "check");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("k.ptx:7:2"), "{err}");
    assert!(err.contains("registers in one function"), "{err}");
    assert!(start.elapsed().as_secs() < 5, "took {:?}", start.elapsed());
}
