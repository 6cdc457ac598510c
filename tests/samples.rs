//! Every corpus sample that uses only supported instructions runs through
//! both engines (the interpreter and the JIT), each giving the outputs of its
//! independent CPU reference (integers bit-exact, floats within the sample's
//! stated tolerance, printf text exact, expected faults reported), and the
//! two engines' outputs, printf text and error messages are bit-identical. A sample whose kernel
//! reaches an instruction warpjit does not implement yet would be refused
//! at launch with `unsupported`; no corpus sample may.

mod common;

use common::samples::{Outcome, Sample};
use warpjit::runtime::Engine;

/// Instruction families that may be unsupported for now (none).
const ALLOWED_UNSUPPORTED: &[&str] = &[];

#[test]
fn samples_match_their_references() {
    let filter = std::env::var("WARPJIT_SAMPLE").ok();
    let mut failures = Vec::new();
    let (mut passed, mut unsupported) = (0, 0);
    for sample in Sample::matching(filter.as_deref()) {
        for ptx in sample.ptx_files() {
            let label = format!(
                "{}/{}",
                sample.name(),
                ptx.file_name().unwrap().to_string_lossy()
            );
            let (outcome, interp) = sample.run(&ptx, Engine::Interp);
            let (jit_outcome, jit) = sample.run(&ptx, Engine::Jit);
            if let Outcome::Fail(why) = jit_outcome {
                eprintln!("FAIL (jit)   {label}: {why}");
                failures.push(format!("{label} (jit): {why}"));
            }
            if interp != jit {
                let what = if interp.error != jit.error {
                    format!("errors differ: {:?} vs {:?}", interp.error, jit.error)
                } else if interp.printf != jit.printf {
                    "printf output differs".to_string()
                } else {
                    let files: Vec<&str> = interp
                        .outputs
                        .iter()
                        .zip(&jit.outputs)
                        .filter(|(a, b)| a != b)
                        .map(|(a, _)| a.0.as_str())
                        .collect();
                    format!("outputs differ: {}", files.join(", "))
                };
                eprintln!("DIFFER       {label}: interpreter and JIT {what}");
                failures.push(format!("{label}: interpreter and JIT {what}"));
            }
            match outcome {
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
