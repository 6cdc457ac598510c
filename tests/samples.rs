//! Every corpus sample that uses only supported instructions runs through the
//! interpreter and gives the outputs of its independent CPU reference
//! (integers bit-exact, floats within the sample's stated tolerance, printf
//! text exact, expected faults reported). Samples using instructions warpjit
//! does not implement yet would fail at load time with `unsupported`; no
//! corpus sample may.

mod common;

use common::samples::{Outcome, Sample};

/// Instruction families that may be unsupported for now (none).
const ALLOWED_UNSUPPORTED: &[&str] = &[];

#[test]
fn samples_match_their_references() {
    let filter = std::env::var("WARPJIT_SAMPLE").ok();
    let mut failures = Vec::new();
    let (mut passed, mut unsupported) = (0, 0);
    for dir in common::sample_dirs() {
        let sample = Sample::load(&dir);
        if filter
            .as_deref()
            .is_some_and(|f| !sample.name().contains(f))
        {
            continue;
        }
        for ptx in sample.ptx_files() {
            let label = format!(
                "{}/{}",
                sample.name(),
                ptx.file_name().unwrap().to_string_lossy()
            );
            match sample.run(&ptx) {
                Outcome::Pass => passed += 1,
                Outcome::Unsupported(what) => {
                    unsupported += 1;
                    if let Some(w) = what
                        .iter()
                        .find(|w| !ALLOWED_UNSUPPORTED.iter().any(|a| w.starts_with(a)))
                    {
                        failures.push(format!("{label}: unexpectedly unsupported: {w}"));
                    }
                    eprintln!("unsupported  {label}: {}", what.join(", "));
                }
                Outcome::Fail(why) => {
                    eprintln!("FAIL         {label}: {why}");
                    failures.push(format!("{label}: {why}"));
                }
            }
        }
    }
    eprintln!(
        "{passed} passed, {} failed, {unsupported} unsupported",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} sample runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        passed >= 40 || filter.is_some(),
        "only {passed} sample runs passed"
    );
}
