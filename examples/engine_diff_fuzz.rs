//! The differential fuzzer of the engines: generates random kernels
//! (`tests/difffuzz/gen.rs`) seed after seed, runs each on the interpreter
//! and the JIT, and reports every disagreement (with the program written to
//! `--out DIR`).
//!
//! `cargo run --release --example engine_diff_fuzz -- [--seconds S | --count N] [--seed FIRST] [--out DIR] [--dump SEED] [--checked]`
//! (`--checked`: both engines with every sanitizer check on, their reports
//! compared too)
//! (`WARPJIT_FUZZ_SHOW_FAULTS=1`: print each identical fault's first line)

#[path = "../tests/difffuzz/gen.rs"]
#[allow(dead_code)]
mod gen;
#[path = "../tests/difffuzz/run.rs"]
mod run;

use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    if let Some(seed) = opt("--dump") {
        let p = gen::generate(seed.parse().expect("--dump SEED"));
        print!("{}", p.ptx);
        return;
    }
    let seconds: Option<f64> = opt("--seconds").map(|s| s.parse().expect("--seconds S"));
    let count: u64 = opt("--count").map_or(u64::MAX, |s| s.parse().expect("--count N"));
    let first: u64 = opt("--seed").map_or(0, |s| s.parse().expect("--seed N"));
    let out = std::path::PathBuf::from(opt("--out").unwrap_or_else(|| "difffuzz-out".into()));
    let checked = args.iter().any(|a| a == "--checked");
    let deadline = seconds.map(|s| Instant::now() + Duration::from_secs_f64(s));
    let start = Instant::now();
    let (mut runs, mut ok_runs, mut fault_runs, mut disagreements, mut gen_failures) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    // Checked: programs with at least one sanitizer report.
    let mut reported = 0u64;
    let mut seed = first;
    while runs < count && deadline.is_none_or(|d| Instant::now() < d) {
        let p = gen::generate(seed);
        let first_run = if checked {
            let all = warpjit::sanitizer::Checks::parse("all").unwrap();
            run::execute_with(&p, warpjit::runtime::Engine::Interp, true, all)
        } else {
            run::execute(&p, warpjit::runtime::Engine::Interp)
        };
        if first_run.as_ref().is_ok_and(|o| !o.reports.is_empty()) {
            reported += 1;
        }
        match (
            first_run,
            if checked {
                run::compare_checked(seed)
            } else {
                run::compare(seed)
            },
        ) {
            (Err(e), _) => {
                gen_failures += 1;
                eprintln!("seed {seed}: {e}");
            }
            (Ok(o), Ok(())) => match &o.result {
                Ok(_) => ok_runs += 1,
                Err(e) => {
                    fault_runs += 1;
                    if std::env::var_os("WARPJIT_FUZZ_SHOW_FAULTS").is_some() {
                        eprintln!("seed {seed} faults: {}", e.lines().next().unwrap_or(""));
                    }
                }
            },
            (Ok(_), Err(why)) => {
                disagreements += 1;
                eprintln!("DISAGREEMENT seed {seed}: {why}");
                std::fs::create_dir_all(&out).unwrap();
                std::fs::write(out.join(format!("seed-{seed}.ptx")), &p.ptx).unwrap();
                std::fs::write(out.join(format!("seed-{seed}.txt")), &why).unwrap();
            }
        }
        runs += 1;
        seed += 1;
        if runs % 500 == 0 {
            eprintln!(
                "{runs} programs ({ok_runs} ran, {fault_runs} faulted identically{}), {disagreements} disagreements, {gen_failures} generator failures, {:.1}/s",
                if checked { format!(", {reported} with sanitizer reports") } else { String::new() },
                runs as f64 / start.elapsed().as_secs_f64()
            );
        }
    }
    println!(
        "seeds {first}..{seed}: {runs} programs ({ok_runs} ran to completion, {fault_runs} faulted identically on both engines{}), {disagreements} disagreements, {gen_failures} generator failures, {:.1} programs/s over {:.0} s",
        if checked { format!(", {reported} with sanitizer reports") } else { String::new() },
        runs as f64 / start.elapsed().as_secs_f64(),
        start.elapsed().as_secs_f64()
    );
    if disagreements > 0 || gen_failures > 0 {
        std::process::exit(1);
    }
}
