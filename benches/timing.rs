//! Timing-mode speed on the corpus: every sample launched untimed (the JIT,
//! the baseline) and timed by the cycle model (sm_80), side by side in the
//! same run, launch wall times without loading and compiling, on one core (the timed path is single-threaded; run under
//! `taskset -c 0` with `RAYON_NUM_THREADS=1` so the baseline is too). Prints
//! per sample the warp-instructions, both median wall times and the timed
//! rate in million warp-instructions per second, then the totals; with
//! `--sampling`, also the error of `--sample-waves 1` against full
//! simulation on a 4-SM preset where the samples span several waves; with
//! `--sass`, the timed launches use SASS costs from the committed sidecars
//! (the rate then counts folded warp-instructions too: the model steps
//! through every op).
//!
//! Run: `RAYON_NUM_THREADS=1 taskset -c 0 cargo bench --bench timing`
//! (figures in docs/performance.md).

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Duration;

use common::samples::Sample;
use warpjit::runtime::{Costs, Engine, TimingOptions};
use warpjit::timing::Arch;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let reps: usize = args
        .iter()
        .position(|a| a == "--reps")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let sampling = args.iter().any(|a| a == "--sampling");
    let filter = args
        .iter()
        .position(|a| a == "--filter")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let sass = args.iter().any(|a| a == "--sass");
    let base = TimingOptions::new(Arch::builtin("sm_80").unwrap());
    // Figures depend on the host: name it with them.
    println!("host: {}\n", host_cpu());
    println!(
        "{:<34} {:>12} {:>10} {:>10} {:>10} {:>12}",
        "sample", "warp-instr", "cycles", "JIT ms", "timed ms", "M w-instr/s"
    );
    let (mut total_instr, mut total_plain, mut total_timed) =
        (0u64, Duration::ZERO, Duration::ZERO);
    for sample in Sample::matching(filter.as_deref()) {
        let ptx = sample.ptx_files()[0].clone();
        let mut t = base.clone();
        if sass {
            let table = warpjit::sass::read_sidecar(&ptx, &common::read(&ptx)).expect("a sidecar");
            t.costs = Costs::Sass(std::sync::Arc::new(table));
        }
        // Warm up (and skip samples that fault by design).
        let (_, observed) = sample.run_with(&ptx, Engine::Jit, Some(&t));
        let Some(mut report) = observed.timing else {
            continue;
        };
        report.warp_instructions += report.folded_instructions;
        let mut plain = Vec::new();
        let mut timed = Vec::new();
        for _ in 0..reps {
            plain.push(sample.run(&ptx, Engine::Jit).1.elapsed);
            let (_, o) = sample.run_with(&ptx, Engine::Jit, Some(&t));
            timed.push(o.timing.map(|r| r.wall).unwrap_or_default());
        }
        let (p, q) = (median(plain), median(timed));
        total_instr += report.warp_instructions;
        total_plain += p;
        total_timed += q;
        println!(
            "{:<34} {:>12} {:>10} {:>10.2} {:>10.2} {:>12.2}",
            sample.name(),
            report.warp_instructions,
            report.cycles,
            p.as_secs_f64() * 1e3,
            q.as_secs_f64() * 1e3,
            report.warp_instructions as f64 / q.as_secs_f64() / 1e6
        );
    }
    println!(
        "{:<34} {:>12} {:>10} {:>10.2} {:>10.2} {:>12.2}",
        "total",
        total_instr,
        "",
        total_plain.as_secs_f64() * 1e3,
        total_timed.as_secs_f64() * 1e3,
        total_instr as f64 / total_timed.as_secs_f64() / 1e6
    );
    if sampling {
        sampling_error();
    }
}

/// The host CPU's model name and cache sizes, as Linux reports them.
fn host_cpu() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |key: &str| {
        info.lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim() == key)
            .map(|(_, v)| v.trim().to_string())
    };
    let cache = |level: &str| {
        (0..8)
            .map(|i| format!("/sys/devices/system/cpu/cpu0/cache/index{i}"))
            .find(|d| {
                std::fs::read_to_string(format!("{d}/level")).is_ok_and(|l| l.trim() == level)
                    && std::fs::read_to_string(format!("{d}/type"))
                        .is_ok_and(|t| t.trim() != "Instruction")
            })
            .and_then(|d| std::fs::read_to_string(format!("{d}/size")).ok())
            .map(|s| format!("L{level} {}", s.trim()))
    };
    let mut parts = vec![field("model name").unwrap_or_else(|| "unknown CPU".into())];
    if let (Some(family), Some(model)) = (field("cpu family"), field("model")) {
        parts.push(format!("family {family} model {model}"));
    }
    parts.extend(["1", "2", "3"].into_iter().filter_map(cache));
    parts.join(", ")
}

/// `--sample-waves 1` against full simulation on a 1-SM sm_80.
fn sampling_error() {
    let mut arch = Arch::builtin("sm_80").unwrap();
    arch.chip.sm_count = 1;
    let full = TimingOptions::new(arch.clone());
    let mut sampled = TimingOptions::new(arch);
    sampled.sample_waves = Some(1);
    println!("\nsampling (1-SM sm_80, 1 wave simulated vs all):");
    println!(
        "{:<34} {:>6} {:>10} {:>10} {:>8}",
        "sample", "waves", "full", "sampled", "error"
    );
    let mut errors = Vec::new();
    for dir in common::sample_dirs() {
        let sample = Sample::load(&dir);
        let ptx = sample.ptx_files()[0].clone();
        let (_, a) = sample.run_with(&ptx, Engine::Jit, Some(&full));
        let (_, b) = sample.run_with(&ptx, Engine::Jit, Some(&sampled));
        let (Some(a), Some(b)) = (a.timing, b.timing) else {
            continue;
        };
        if b.simulated_ctas == b.grid_ctas {
            continue; // one wave: nothing to extrapolate
        }
        let per_wave = b.simulated_ctas.max(1);
        let waves = b.grid_ctas.div_ceil(per_wave);
        let err = (b.estimated_cycles as f64 - a.cycles as f64) / a.cycles as f64;
        errors.push(err.abs());
        println!(
            "{:<34} {:>6} {:>10} {:>10} {:>7.1}%",
            sample.name(),
            waves,
            a.cycles,
            b.estimated_cycles,
            100.0 * err
        );
    }
    if !errors.is_empty() {
        let mean = errors.iter().sum::<f64>() / errors.len() as f64;
        let max = errors.iter().cloned().fold(0.0, f64::max);
        println!(
            "{} samples: mean |error| {:.1}%, max {:.1}%",
            errors.len(),
            100.0 * mean,
            100.0 * max
        );
    }
}
