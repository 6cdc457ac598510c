//! Every corpus sample timed by the cycle model (sm_80, and a second preset
//! with an older SM layout), on both engines: results stay those of the
//! untimed launch, bit for bit where the sample demands exactness (the
//! model only decides the order warps advance in), the
//! report is consistent (instructions match execution's count, stalls and
//! issues account for the cycles), the same on both engines and with solo
//! runs off, and the JSON has the documented keys.

mod common;

use common::samples::{Outcome, Sample};
use warpjit::runtime::{Engine, TimingOptions};
use warpjit::timing::Arch;

#[test]
fn timed_samples_keep_their_results() {
    let filter = std::env::var("WARPJIT_SAMPLE").ok();
    let mut failures = Vec::new();
    let mut timed = 0;
    for sample in Sample::matching(filter.as_deref()) {
        // Timed launches are not cooperative (grid-wide sync traps there)
        // and have no clusters.
        if sample.spec["cooperative"].as_bool() == Some(true) || sample.clustered() {
            continue;
        }
        let ptx = sample.ptx_files()[0].clone();
        let (_, plain) = sample.run(&ptx, Engine::Jit);
        for arch in ["sm_80", "sm_61"] {
            let t = TimingOptions::new(Arch::builtin(arch).unwrap());
            let mut jit_report = None;
            for engine in [Engine::Jit, Engine::Interp] {
                let (outcome, observed) = sample.run_with(&ptx, engine, Some(&t));
                let label = format!("{} on {arch} ({engine:?})", sample.name());
                if let Outcome::Fail(why) = &outcome {
                    failures.push(format!("{label}: {why}"));
                    continue;
                }
                // Bit for bit, but for outputs the sample compares with a
                // tolerance (float atomics across blocks sum in whatever
                // order the blocks run; the reference check above holds).
                let tolerant = |file: &str| {
                    sample.spec["expect"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|e| {
                            e["file"] == file
                                && (e["abs_tol"].as_f64().unwrap_or(0.0) > 0.0
                                    || e["rel_tol"].as_f64().unwrap_or(0.0) > 0.0)
                        })
                };
                let same = observed.printf == plain.printf
                    && observed.error == plain.error
                    && observed.outputs.len() == plain.outputs.len()
                    && observed
                        .outputs
                        .iter()
                        .zip(&plain.outputs)
                        .all(|(a, b)| a == b || (a.0 == b.0 && tolerant(&a.0)));
                if !same {
                    failures.push(format!("{label}: results differ from the untimed launch"));
                    continue;
                }
                let Some(r) = observed.timing else {
                    // An expected fault: no report.
                    continue;
                };
                timed += 1;
                let n_sched = Arch::builtin(arch).unwrap().scheduler.schedulers_per_sm as u64;
                let sm_cycles: u64 = r.sm_cycles.iter().sum();
                let stalls: u64 = r.stalls.iter().sum();
                let issue_cycles = sm_cycles * n_sched - stalls;
                if r.cycles == 0 || r.warp_instructions == 0 {
                    failures.push(format!("{label}: empty report"));
                } else if issue_cycles > r.warp_instructions {
                    failures.push(format!(
                        "{label}: {issue_cycles} scheduler-cycles issued but {} instructions",
                        r.warp_instructions
                    ));
                }
                let json = r.to_json();
                // Both engines give the model the same positions, masks and
                // addresses, so the same report, but where the outcome of a
                // race depends on when a piece executes (the JIT runs a
                // piece's ops together, when its first op that touches
                // memory other warps see issues; `tests/timing_order.rs`):
                // `cas_loop`'s retries.
                match engine {
                    Engine::Jit if arch == "sm_80" => {
                        // Solo runs change how fast the report comes, not
                        // what it says.
                        let walk = TimingOptions {
                            run_ahead: false,
                            ..t.clone()
                        };
                        let (_, o) = sample.run_with(&ptx, engine, Some(&walk));
                        if o.timing.map(|w| w.to_json()).as_ref() != Some(&json) {
                            failures.push(format!("{label}: solo runs change the report"));
                        }
                        jit_report = Some(json.clone());
                    }
                    Engine::Jit => jit_report = Some(json.clone()),
                    _ if sample.name() == "cuda/cas_loop" => {}
                    _ => {
                        if jit_report.as_ref() != Some(&json) {
                            failures.push(format!("{label}: report differs from the JIT's"));
                        }
                    }
                }
                for key in ["cycles", "ipc", "occupancy", "stalls"] {
                    if json.get(key).is_none() {
                        failures.push(format!("{label}: JSON lacks `{key}`"));
                    }
                }
                for key in ["theoretical", "achieved", "limiter"] {
                    if json["occupancy"].get(key).is_none() {
                        failures.push(format!("{label}: JSON lacks occupancy.{key}"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(timed > 100, "only {timed} timed runs");
}

/// The model sees exactly the addresses the lanes used: Triton's vector add
/// (4,112 floats, 5 blocks of 1,024 elements, predicated vector loads and
/// stores) touches each of its three arrays' 514 sectors once, the masked
/// tail lanes nothing, whether the JIT's pieces record the accesses (with
/// their lane masks) or the interpreter reads them from the registers.
#[test]
fn predicated_accesses_count_only_their_lanes() {
    let sample = Sample::matching(Some("triton/vector_add"))
        .into_iter()
        .find(|s| s.name() == "triton/vector_add")
        .expect("the sample");
    let ptx = sample.ptx_files()[0].clone();
    let t = TimingOptions::new(Arch::builtin("sm_80").unwrap());
    for engine in [Engine::Jit, Engine::Interp] {
        let (_, observed) = sample.run_with(&ptx, engine, Some(&t));
        let memory = observed.timing.expect("a timing report").memory;
        let per_array = (4112u64 * 4).div_ceil(32);
        assert_eq!(memory.sectors, 3 * per_array, "{engine:?}");
        assert_eq!((memory.global_loads, memory.global_stores), (80, 40));
    }
}
