//! Every runnable corpus sample through the `warpjit run` command line: the
//! arguments are the sample's own (`in:`/`out:`/`bytes:`/`tex:`/`surf:`/scalars, `--global`,
//! `--global-out`), outputs are compared with the CPU references, printf text
//! with the expected stdout, and expected faults with the exit status and
//! stderr.

mod common;

use std::path::Path;
use std::process::Command;

use common::samples::{compare, Outcome, Sample};

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn dims(v: &serde_json::Value) -> String {
    let d: Vec<String> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.to_string())
        .collect();
    d.join(",")
}

/// Rewrites input paths to absolute ones; outputs stay relative to the run's directory.
fn cli_arg(spec: &str, dir: &Path) -> String {
    let abs = |p: &str| dir.join(p).display().to_string();
    match spec.split_once(':') {
        Some(("in", p)) => format!("in:{}", abs(p)),
        Some(("bytes", p)) => format!("bytes:{}", abs(p)),
        Some(("inout", rest)) => {
            let (i, o) = rest.split_once(':').unwrap();
            format!("inout:{}:{o}", abs(i))
        }
        // `tex:GEOM:FORMAT:SIZE:FILE[:OPTION]...` (`surf:`: FILE `-` is none).
        Some((kind @ ("tex" | "surf"), rest)) => {
            let mut parts: Vec<String> = rest.split(':').map(str::to_string).collect();
            if parts.len() > 3 && parts[3] != "-" {
                parts[3] = abs(&parts[3]);
            }
            format!("{kind}:{}", parts.join(":"))
        }
        _ => spec.to_string(),
    }
}

fn run_sample(sample: &Sample, ptx: &Path) -> Result<(), String> {
    let work = std::env::temp_dir().join(format!(
        "warpjit-cli-{}-{}",
        std::process::id(),
        sample.name().replace('/', "-")
    ));
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let result = run_in(sample, ptx, &work);
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn run_in(sample: &Sample, ptx: &Path, work: &Path) -> Result<(), String> {
    let spec = &sample.spec;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_warpjit"));
    cmd.current_dir(work).arg("run").arg(ptx);
    cmd.args(["--kernel", spec["kernel"].as_str().unwrap()]);
    if spec["cooperative"].as_bool() == Some(true) {
        cmd.arg("--cooperative");
    }
    if !spec["cluster"].is_null() {
        cmd.args(["--cluster", &dims(&spec["cluster"])]);
    }
    cmd.args([
        "--grid",
        &dims(&spec["grid"]),
        "--block",
        &dims(&spec["block"]),
    ]);
    cmd.args([
        "--shared",
        &spec["shared_bytes"].as_u64().unwrap_or(0).to_string(),
    ]);
    for a in strings(&spec["args"]) {
        cmd.arg("--arg").arg(cli_arg(&a, &sample.dir));
    }
    for g in strings(&spec["globals"]) {
        let (n, p) = g.split_once('=').unwrap();
        cmd.arg("--global")
            .arg(format!("{n}={}", sample.dir.join(p).display()));
    }
    for g in strings(&spec["globals_out"]) {
        cmd.arg("--global-out").arg(g);
    }
    let out = cmd.output().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    if let Some(expect) = spec.get("expect_error").filter(|v| !v.is_null()) {
        let kind = expect["kind"].as_str().unwrap();
        let contains = expect["contains"].as_str().unwrap_or("");
        let ok = out.status.code() == Some(1)
            && stderr.contains(&format!("{kind}:"))
            && stderr.contains(contains);
        return if ok {
            Ok(())
        } else {
            Err(format!(
                "expected a `{kind}` fault, got status {:?}: {stderr}",
                out.status
            ))
        };
    }
    if !out.status.success() {
        return Err(format!("status {:?}: {stderr}", out.status));
    }
    let mut problems = Vec::new();
    for e in spec["expect"].as_array().into_iter().flatten() {
        let got =
            std::fs::read(work.join(e["file"].as_str().unwrap())).map_err(|e| e.to_string())?;
        let want = std::fs::read(sample.dir.join(e["reference"].as_str().unwrap()))
            .map_err(|e| e.to_string())?;
        let tol = |k: &str| e[k].as_f64().unwrap_or(0.0);
        if let Err(p) = compare(
            e["type"].as_str().unwrap(),
            &got,
            &want,
            tol("abs_tol"),
            tol("rel_tol"),
        ) {
            problems.push(p);
        }
    }
    if let Some(s) = spec["stdout"].as_str() {
        if stdout != common::read(&sample.dir.join(s)) {
            problems.push("printf output differs".to_string());
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

#[test]
fn samples_through_warpjit_run() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for dir in common::sample_dirs() {
        let sample = Sample::load(&dir);
        let ptx = sample.ptx_files()[0].clone();
        // Samples the interpreter cannot load yet are covered by samples.rs.
        if matches!(
            sample.run(&ptx, warpjit::runtime::Engine::Jit).0,
            Outcome::Unsupported(_)
        ) {
            continue;
        }
        ran += 1;
        if let Err(e) = run_sample(&sample, &ptx) {
            failures.push(format!("{}: {e}", sample.name()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ran >= 40, "only {ran} samples ran");
}
