//! The register estimate (used for occupancy when neither `--regs` nor a
//! ptxas log is given) against ptxas 12.9 (`-arch=sm_80 -v`) on every corpus
//! kernel (`ptx-samples/gen/ptxas-regs-sm_80.json`, from
//! `ptx-samples/gen/ptxas_regs.py`), and the ptxas log reader on a real log.
//! The error bounds asserted here are the ones docs/timing-model.md states.

mod common;

use warpjit::runtime::{Device, Options};
use warpjit::timing::regs;

#[test]
fn estimate_tracks_ptxas_on_the_corpus() {
    let root = common::repo_root().join("ptx-samples");
    let table: serde_json::Value =
        serde_json::from_str(&common::read(&root.join("gen/ptxas-regs-sm_80.json"))).unwrap();
    let mut rows = Vec::new();
    for (file, kernels) in table.as_object().unwrap() {
        let text = common::read(&root.join(file));
        let mut dev = Device::new(Options::default());
        let m = dev.load_ptx(file, &text).unwrap();
        for (name, want) in kernels.as_object().unwrap() {
            let k = dev.kernel(m, Some(name)).unwrap();
            let got = regs::estimate(dev.ir(m), k);
            rows.push((file.clone(), want.as_u64().unwrap() as f64, got as f64));
        }
    }
    assert!(rows.len() >= 60, "{} kernels", rows.len());
    let rel: Vec<f64> = rows.iter().map(|(_, w, g)| (g - w) / w).collect();
    let mean_abs = rel.iter().map(|r| r.abs()).sum::<f64>() / rel.len() as f64;
    let bias = rel.iter().sum::<f64>() / rel.len() as f64;
    let within_half = rel.iter().filter(|r| r.abs() <= 0.5).count() as f64 / rel.len() as f64;
    let mut report: Vec<String> = rows
        .iter()
        .map(|(f, w, g)| format!("{f}: ptxas {w} estimate {g}"))
        .collect();
    report.sort();
    eprintln!(
        "{} kernels: bias {:+.0}%, mean |relative error| {:.0}%, {:.0}% within 50%",
        rows.len(),
        100.0 * bias,
        100.0 * mean_abs,
        100.0 * within_half
    );
    assert!(bias.abs() < 0.1, "bias {bias:.2}\n{}", report.join("\n"));
    assert!(
        mean_abs < 0.3,
        "mean |error| {mean_abs:.2}\n{}",
        report.join("\n")
    );
    assert!(
        within_half > 0.9,
        "{within_half:.2} within 50%\n{}",
        report.join("\n")
    );
}

#[test]
fn reads_a_real_ptxas_log() {
    let log = common::read(&common::repo_root().join("ptx-samples/gen/ptxas-v-saxpy.log"));
    assert_eq!(regs::from_ptxas_log(&log, "_Z5saxpyifPKfPf"), Some(12));
}
