//! The timing model against real GPUs: every published measurement of
//! `ptx-samples/fidelity/published.toml` (sources in
//! `ptx-samples/fidelity/SOURCES.md`) reproduced by its run
//! (`runs.toml`) on its board's preset, printed as a table of published
//! value, model value and their ratio, then the mean absolute percentage
//! error per category and overall, and the rows off by more than 30%.
//!
//! Run: `cargo bench --bench fidelity [-- --filter TEXT] [--json PATH]
//! [--markdown PATH]` (`--markdown`: the table as docs/timing-model.md
//! carries it).
//! (rows whose id, preset or category contains TEXT). Figures:
//! docs/timing-model.md.
//!
//! `cargo bench --bench fidelity -- --run TEXT [--preset NAME] [--report]`
//! runs every run whose name contains TEXT on one preset (default sm_80),
//! rows or not, and prints its time, cycles, warp-instructions, occupancy,
//! reads and how long the simulation took (`--report`: and each timed
//! launch's timing report: stalls, memory traffic, caches, DRAM).
//!
//! `cargo bench --bench fidelity -- --hw FILE [--preset NAME] [--filter TEXT]`
//! compares the model with a GPU's own measurements of the same runs: the
//! JSON the hardware calibration kit wrote on it
//! (`ptx-samples/gen/hw_calibrate.py`, run by
//! `ptx-samples/gen/hw_device_run.sh`). Each run that ran is modelled on
//! the preset (default: `sm_XY` of the device's compute capability) at the
//! SM clock the kit read after the run, where it read one, in the steady
//! state the kit measures (it times repetitions of the whole run back to
//! back: each timed launch is modelled after one of itself, the L2 kept;
//! `fidelity::run_steady`), and printed as
//! measured against model time (the kernels' model time plus, per timed
//! launch, the kit's empty-kernel time), and each `[[run.read]]` (clock64 cycle
//! counts) as measured against model value, with the mean absolute
//! percentage error of each. Then the corpus samples the kit timed: each
//! launch's model time plus the kit's empty-kernel time (the launch's
//! fixed cost as events see it, which the model does not estimate) against
//! the measured median, with the driver's register count for occupancy and
//! the sample's SASS sidecar for issue costs where the preset takes it, and
//! the mean absolute percentage error (`--samples`: the samples alone).

#[path = "../tests/common/mod.rs"]
mod common;

use std::collections::{BTreeMap, HashMap};

use common::fidelity::{self, Metric, Outcome, Row};
use warpjit::timing::Arch;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let filter = opt("--filter");
    let json = opt("--json");
    let markdown = opt("--markdown");
    if let Some(path) = opt("--hw") {
        if !args.iter().any(|a| a == "--samples") {
            against_hardware(&path, opt("--preset"), filter.as_deref());
        }
        samples_against_hardware(&path, opt("--preset"), filter.as_deref());
        return;
    }
    if let Some(text) = opt("--run") {
        let report = args.iter().any(|a| a == "--report");
        run_alone(&text, opt("--preset").as_deref().unwrap_or("sm_80"), report);
        return;
    }
    let runs: HashMap<String, fidelity::Run> = fidelity::runs()
        .into_iter()
        .map(|r| (r.name.clone(), r))
        .collect();
    let rows = fidelity::rows();
    let selected: Vec<&Row> = rows
        .iter()
        .filter(|r| {
            filter.as_deref().is_none_or(|f| {
                r.id.contains(f) || r.preset == f || r.category == f || r.gpu.contains(f)
            })
        })
        .collect();
    // Each (run, preset) once.
    let mut outcomes: HashMap<(String, String), Result<Outcome, String>> = HashMap::new();
    let mut model: HashMap<String, Result<f64, String>> = HashMap::new();
    let by_id: HashMap<&str, &Row> = rows.iter().map(|r| (r.id.as_str(), r)).collect();
    let value_of = |row: &Row,
                    outcomes: &mut HashMap<(String, String), Result<Outcome, String>>|
     -> Result<f64, String> {
        let run_name = row.run.clone().ok_or("no run")?;
        let run = runs
            .get(&run_name)
            .ok_or_else(|| format!("run {run_name} not written yet"))?;
        let key = (run_name.clone(), row.preset.clone());
        let o = outcomes.entry(key).or_insert_with(|| {
            let arch = Arch::builtin(&row.preset).map_err(|e| e.to_string())?;
            let t = std::time::Instant::now();
            let o = fidelity::run_on(run, &arch, None);
            let sim = match &o {
                Ok(o) => format!(
                    " ({:.1} M warp-instructions timed in {:.1} s)",
                    o.reports.iter().map(|r| r.warp_instructions).sum::<u64>() as f64 / 1e6,
                    o.reports.iter().map(|r| r.wall.as_secs_f64()).sum::<f64>()
                ),
                Err(_) => String::new(),
            };
            eprintln!(
                "  ran {run_name} on {} in {:.1} s{sim}",
                row.preset,
                t.elapsed().as_secs_f64()
            );
            o
        });
        fidelity::value(row, o.as_ref().map_err(|e| e.clone())?)
    };
    for row in &selected {
        let v = match &row.metric {
            Metric::Ratio { of, to } => {
                let get = |id: &str, outcomes: &mut _| -> Result<f64, String> {
                    let r = by_id.get(id).ok_or_else(|| format!("no row {id}"))?;
                    value_of(r, outcomes)
                };
                get(of, &mut outcomes).and_then(|a| Ok(a / get(to, &mut outcomes)?))
            }
            _ => value_of(row, &mut outcomes),
        };
        model.insert(row.id.clone(), v);
    }
    println!(
        "{:<40} {:<12} {:<9} {:>11} {:>11} {:>7} {:>7}  unit",
        "row", "preset", "category", "published", "model", "ratio", "error"
    );
    let mut errors: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut missing = Vec::new();
    let mut far = Vec::new();
    let mut records = Vec::new();
    for row in &selected {
        match &model[&row.id] {
            Ok(v) => {
                let err = (v - row.value) / row.value;
                println!(
                    "{:<40} {:<12} {:<9} {:>11.4} {:>11.4} {:>7.3} {:>+6.1}%  {}",
                    row.id,
                    row.preset,
                    row.category,
                    row.value,
                    v,
                    v / row.value,
                    100.0 * err,
                    row.unit
                );
                errors
                    .entry(row.category.clone())
                    .or_default()
                    .push(err.abs());
                if err.abs() > 0.3 {
                    far.push(row.id.clone());
                }
                records.push(serde_json::json!({
                    "id": row.id, "preset": row.preset, "category": row.category,
                    "gpu": row.gpu, "published": row.value, "model": v, "unit": row.unit,
                }));
            }
            Err(e) => missing.push(format!("{}: {e}", row.id)),
        }
    }
    println!();
    let mut all = Vec::new();
    for (cat, e) in &errors {
        println!(
            "MAPE {:<10} {:>6.1}%  ({} rows)",
            cat,
            100.0 * e.iter().sum::<f64>() / e.len() as f64,
            e.len()
        );
        all.extend(e);
    }
    if !all.is_empty() {
        println!(
            "MAPE {:<10} {:>6.1}%  ({} rows)",
            "overall",
            100.0 * all.iter().sum::<f64>() / all.len() as f64,
            all.len()
        );
    }
    println!("rows off by more than 30%: {}", far.len());
    for id in &far {
        println!("  {id}");
    }
    if !missing.is_empty() {
        println!("rows not modelled ({}):", missing.len());
        for m in &missing {
            println!("  {m}");
        }
    }
    if let Some(path) = json {
        let v = serde_json::json!({ "rows": records });
        std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    }
    if let Some(path) = markdown {
        let mut md = String::from(
            "| row | board (preset) | category | published | model | unit | error |\n| --- | --- | --- | ---: | ---: | --- | ---: |\n",
        );
        for r in &records {
            let (p, m) = (
                r["published"].as_f64().unwrap(),
                r["model"].as_f64().unwrap(),
            );
            md += &format!(
                "| {} | {} (`{}`) | {} | {} | {} | {} | {:+.1}% |\n",
                r["id"].as_str().unwrap(),
                r["gpu"].as_str().unwrap(),
                r["preset"].as_str().unwrap(),
                r["category"].as_str().unwrap(),
                figure(p),
                figure(m),
                r["unit"].as_str().unwrap(),
                100.0 * (m - p) / p
            );
        }
        std::fs::write(&path, md).unwrap();
    }
}

/// A figure with about four significant digits.
fn figure(v: f64) -> String {
    let digits = (3 - v.abs().max(1e-9).log10().floor() as i32).clamp(0, 4) as usize;
    format!("{v:.digits$}")
}

/// `--run TEXT`: the runs whose name contains TEXT, on `preset`.
fn run_alone(text: &str, preset: &str, report: bool) {
    let arch = Arch::builtin(preset).unwrap_or_else(|e| panic!("{preset}: {e}"));
    println!(
        "{:<40} {:<10} {:>12} {:>14} {:>10} {:>7} {:>8}  reads",
        "run", "preset", "time (us)", "cycles", "M warp-in", "blk/SM", "sim (s)"
    );
    for run in fidelity::runs().iter().filter(|r| r.name.contains(text)) {
        let t = std::time::Instant::now();
        match fidelity::run_on(run, &arch, None) {
            Ok(o) => {
                let mut reads: Vec<String> =
                    o.reads.iter().map(|(k, v)| format!("{k}={v}")).collect();
                reads.sort();
                println!(
                    "{:<40} {:<10} {:>12.2} {:>14} {:>10.2} {:>7} {:>8.1}  {}",
                    run.name,
                    preset,
                    o.seconds * 1e6,
                    o.cycles,
                    o.reports.iter().map(|r| r.warp_instructions).sum::<u64>() as f64 / 1e6,
                    o.reports
                        .iter()
                        .map(|r| r.blocks_per_sm.to_string())
                        .collect::<Vec<_>>()
                        .join(","),
                    t.elapsed().as_secs_f64(),
                    reads.join(" ")
                );
                if report {
                    for r in &o.reports {
                        print!("{}", r.to_text(&|_| String::new()));
                    }
                }
            }
            Err(e) => println!("{:<40} {:<10} error: {e}", run.name, preset),
        }
    }
}

/// `--hw FILE`: the model against a kit file's measurements (module doc).
fn against_hardware(path: &str, preset: Option<String>, filter: Option<&str>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (cc, measured) = common::hw::measured(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (launch_ms, _) =
        common::hw::measured_samples(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let preset = preset.unwrap_or_else(|| format!("sm_{}", cc.replace('.', "")));
    let base = Arch::builtin(&preset).unwrap_or_else(|e| panic!("{preset}: {e}"));
    let runs: HashMap<String, fidelity::Run> = fidelity::runs()
        .into_iter()
        .map(|r| (r.name.clone(), r))
        .collect();
    println!(
        "{:<44} {:>8} {:>12} {:>12} {:>7}",
        "run (ms; model = launches + kernels) / read", "MHz", "measured", "model", "error"
    );
    let (mut time_errors, mut read_errors) = (Vec::new(), Vec::new());
    for m in measured
        .iter()
        .filter(|m| filter.is_none_or(|f| m.name.contains(f)))
    {
        let Some(run) = runs.get(&m.name) else {
            println!("{:<44} not in runs.toml", m.name);
            continue;
        };
        let mut arch = base.clone();
        if let Some(mhz) = m.sm_clock_mhz {
            arch.chip.clock_mhz = mhz;
        }
        // The kit times the run's repetitions back to back: the model's
        // steady state (`run_steady`), not a cold launch.
        match fidelity::run_steady(run, &arch, None) {
            Ok(o) => {
                // Each timed launch's fixed cost as events see it (the
                // kit's empty kernel), which the model does not estimate.
                let model = o.seconds * 1e3 + o.reports.len() as f64 * launch_ms;
                let err = (model - m.median_ms) / m.median_ms;
                time_errors.push(err.abs());
                println!(
                    "{:<44} {:>8.0} {:>12.5} {:>12.5} {:>+6.1}%",
                    m.name,
                    arch.chip.clock_mhz,
                    m.median_ms,
                    model,
                    err * 100.0
                );
                for (name, measured) in &m.reads {
                    if let Some(model) = o.reads.get(name) {
                        let err = (model - measured) / measured;
                        read_errors.push(err.abs());
                        println!(
                            "  {:<42} {:>8} {:>12.1} {:>12.1} {:>+6.1}%",
                            name,
                            "",
                            measured,
                            model,
                            err * 100.0
                        );
                    }
                }
            }
            Err(e) => println!("{:<44} model error: {e}", m.name),
        }
    }
    let mape = |v: &[f64]| 100.0 * v.iter().sum::<f64>() / v.len().max(1) as f64;
    println!(
        "\n{preset} against {path}: times of {} runs, MAPE {:.1}% (launch cost {launch_ms:.4} ms each, the kit's empty kernel); {} reads, MAPE {:.1}%",
        time_errors.len(),
        mape(&time_errors),
        read_errors.len(),
        mape(&read_errors)
    );
}

/// `--hw FILE` (and `--samples`): the corpus samples the kit timed, each
/// launch modelled on the preset and compared (module doc).
fn samples_against_hardware(path: &str, preset: Option<String>, filter: Option<&str>) {
    use common::samples::Sample;
    use warpjit::runtime::{Costs, Engine, TimingOptions};
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (cc, _) = common::hw::measured(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (baseline_ms, measured) =
        common::hw::measured_samples(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let preset = preset.unwrap_or_else(|| format!("sm_{}", cc.replace('.', "")));
    let base = Arch::builtin(&preset).unwrap_or_else(|e| panic!("{preset}: {e}"));
    println!(
        "\n{:<56} {:>10} {:>10} {:>10} {:>7}",
        "sample [ptx] (ms; model = launch + kernel)", "measured", "kernel", "model", "error"
    );
    let mut errors = Vec::new();
    let mut worst: Vec<(f64, String)> = Vec::new();
    for m in measured
        .iter()
        .filter(|m| filter.is_none_or(|f| m.id.contains(f)))
    {
        let dir = common::repo_root().join("ptx-samples").join(&m.id);
        let sample = Sample::load(&dir);
        let ptx = dir.join(&m.ptx);
        let mut arch = base.clone();
        if let Some(mhz) = m.sm_clock_mhz {
            arch.chip.clock_mhz = mhz;
        }
        let mut t = TimingOptions::new(arch.clone());
        t.regs = m.regs.map(|n| (n, "the driver's binary (kit)".to_string()));
        // The kit uploads the sample's inputs again before each timed
        // repetition: they are in the L2 when it starts.
        t.uploads_in_l2 = true;
        if arch.sm80_sass_applies() {
            let text = std::fs::read_to_string(&ptx).unwrap_or_default();
            if let Ok(table) = warpjit::sass::read_sidecar(&ptx, &text) {
                t.costs = Costs::Sass(std::sync::Arc::new(table));
            }
        }
        let name = format!("{} [{}]", m.id, m.ptx);
        let (outcome, observed) = sample.run_with(&ptx, Engine::Jit, Some(&t));
        match (outcome, observed.timing) {
            (common::samples::Outcome::Pass, Some(report)) => {
                let kernel = report.time_us() * 1e-3;
                let model = baseline_ms + kernel;
                let err = (model - m.median_ms) / m.median_ms;
                errors.push(err.abs());
                worst.push((err, name.clone()));
                println!(
                    "{:<56} {:>10.4} {:>10.4} {:>10.4} {:>+6.1}%",
                    name,
                    m.median_ms,
                    kernel,
                    model,
                    err * 100.0
                );
            }
            (o, _) => println!("{name:<56} not modelled: {o:?}"),
        }
    }
    let mape = 100.0 * errors.iter().sum::<f64>() / errors.len().max(1) as f64;
    worst.sort_by(|a, b| b.0.abs().total_cmp(&a.0.abs()));
    println!(
        "\n{preset} against {path}: {} sample launches, MAPE {mape:.1}% (launch cost {:.4} ms, the kit's empty kernel); off by more than 20%: {}",
        errors.len(),
        baseline_ms,
        worst.iter().filter(|w| w.0.abs() > 0.2).count()
    );
    for (e, n) in worst.iter().take(12).filter(|w| w.0.abs() > 0.2) {
        println!("  {:>+7.1}%  {n}", e * 100.0);
    }
}
