//! The IR's stable text form for a few real kernels, checked against golden
//! files (regenerate with `UPDATE_GOLDEN=1 cargo test --test ir_golden` and
//! review the diff). Behaviour tests live in samples.rs; this pins the shape
//! of lowering: ops, functional units, costs, reconvergence points, uniformity.

mod common;

use warpjit::front::{self, SourceFile};

fn check(sample: &str) {
    let path = common::repo_root().join("ptx-samples").join(sample);
    let source = SourceFile::new(sample, common::read(&path));
    let ast = front::parse(&source).unwrap();
    let ir = warpjit::ir::lower::run(&ast, &source).unwrap();
    warpjit::ir::verify::run(&ir).unwrap();
    let text = warpjit::ir::text::module_to_string(&ir);
    let golden = common::repo_root()
        .join("tests/golden")
        .join(sample.replace('/', "__").replace(".ptx", ".ir"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &text).unwrap();
    }
    let want = std::fs::read_to_string(&golden).unwrap_or_default();
    assert!(
        text == want,
        "IR of {sample} differs from {}; rerun with UPDATE_GOLDEN=1 to accept",
        golden.display()
    );
}

#[test]
fn vector_add_ir() {
    check("cuda/vector_add/kernel.compute_80.ptx");
}

#[test]
fn device_functions_ir() {
    check("cuda/device_functions/kernel.compute_80.ptx");
}

#[test]
fn warp_vote_ir() {
    check("cuda/warp_vote/kernel.compute_80.ptx");
}
