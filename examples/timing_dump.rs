//! Prints every corpus sample's timing report (JSON, one line per run) on
//! four presets (sm_80, sm_61, sm_35, sm_90), both engines, plus a sampled
//! 2-SM run: diff two builds' outputs to check that a change to the timing
//! model's speed leaves its results identical.
//! `cargo run --release --example timing_dump > before.txt` (argument: a
//! sample-name filter; `ONLY=1`: sm_80 on the JIT only, first PTX file;
//! `NO_RUN_AHEAD=1`: without solo runs, whose output must be the same;
//! `ARCHS=sm_80,sm_13`: those presets instead of the four).
#[path = "../tests/common/mod.rs"]
mod common;
use common::samples::Sample;
use warpjit::runtime::{Engine, TimingOptions};
use warpjit::timing::Arch;
fn main() {
    let filter = std::env::args().nth(1);
    let only = std::env::var_os("ONLY").is_some();
    let archs: Vec<String> = match std::env::var("ARCHS") {
        Ok(list) => list.split(',').map(str::to_string).collect(),
        Err(_) => ["sm_80", "sm_61", "sm_35", "sm_90"]
            .map(String::from)
            .to_vec(),
    };
    for arch in archs.iter().map(String::as_str) {
        if only && arch != "sm_80" {
            continue;
        }
        let run_ahead = std::env::var_os("NO_RUN_AHEAD").is_none();
        let mut t = TimingOptions::new(Arch::builtin(arch).unwrap());
        t.run_ahead = run_ahead;
        let mut one = Arch::builtin(arch).unwrap();
        one.chip.sm_count = 2;
        let mut t2 = TimingOptions::new(one);
        t2.sample_waves = Some(1);
        t2.run_ahead = run_ahead;
        for sample in Sample::matching(filter.as_deref()) {
            for ptx in sample
                .ptx_files()
                .into_iter()
                .take(if only { 1 } else { usize::MAX })
            {
                for (engine, opts) in [(Engine::Jit, &t), (Engine::Interp, &t), (Engine::Jit, &t2)]
                {
                    if only && (engine == Engine::Interp || opts.sample_waves.is_some()) {
                        continue;
                    }
                    if engine == Engine::Interp && arch != "sm_80" {
                        continue;
                    }
                    let (outcome, o) = sample.run_with(&ptx, engine, Some(opts));
                    if !matches!(outcome, common::samples::Outcome::Pass) {
                        eprintln!("FAIL {} {:?}", sample.name(), outcome);
                    }
                    let mut j = match o.timing {
                        Some(r) => r.to_json(),
                        None => serde_json::json!(null),
                    };
                    if let Some(m) = j.as_object_mut() {
                        m.remove("wall_ms");
                        m.remove("wall");
                    }
                    println!(
                        "{} {} {:?} {} {}",
                        arch,
                        sample.name(),
                        engine,
                        ptx.file_name().unwrap().to_string_lossy(),
                        j
                    );
                }
            }
        }
    }
}
