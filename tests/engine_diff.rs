//! The differential test of the engines: random well-typed kernels from
//! `difffuzz/gen.rs` run on the interpreter and on the JIT, whose outputs,
//! atomics, printf text and errors must be identical, and with every
//! sanitizer check on, their reports too. `examples/
//! engine_diff_fuzz.rs` runs the same comparison for as long as asked;
//! disagreements it finds are kept in `tests/difffuzz-regressions/`
//! (a seed per line) and replayed here.

#[path = "difffuzz/gen.rs"]
#[allow(dead_code)]
mod gen;
#[path = "difffuzz/run.rs"]
mod run;

#[test]
fn random_kernels_agree_on_both_engines() {
    let mut failures = Vec::new();
    for seed in 0..60 {
        if let Err(e) = run::compare(seed) {
            failures.push(format!("seed {seed}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn random_kernels_agree_on_both_engines_with_every_check_on() {
    let mut failures = Vec::new();
    for seed in 0..30 {
        if let Err(e) = run::compare_checked(seed) {
            failures.push(format!("seed {seed}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn regressions_agree_on_both_engines() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/difffuzz-regressions/seeds.txt");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return;
    };
    let mut failures = Vec::new();
    for seed in text
        .lines()
        .filter_map(|l| l.split('#').next()?.trim().parse::<u64>().ok())
    {
        if let Err(e) = run::compare(seed) {
            failures.push(format!("seed {seed}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
