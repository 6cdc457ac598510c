//! The timing options of `warpjit run` end to end: the JSON report's keys,
//! the text report, execution diagrams (text and HTML), `warpjit preset`
//! round-tripping through `--arch-file`, a ptxas log for registers, and
//! clear errors for a bad preset.

mod common;

use std::process::Command;

fn warpjit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_warpjit"))
}

/// `run` arguments for the saxpy sample (inputs from the sample directory).
fn saxpy(out: &std::path::Path) -> Vec<String> {
    let d = common::repo_root().join("ptx-samples/cuda/saxpy");
    let spec: serde_json::Value =
        serde_json::from_str(&common::read(&d.join("sample.json"))).unwrap();
    let dim = |k: &str| {
        spec[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut v = vec![
        "run".to_string(),
        d.join("kernel.compute_80.ptx").display().to_string(),
        "--grid".into(),
        dim("grid"),
        "--block".into(),
        dim("block"),
    ];
    for a in spec["args"].as_array().unwrap() {
        let a = a.as_str().unwrap();
        v.push("--arg".into());
        v.push(if let Some(p) = a.strip_prefix("in:") {
            format!("in:{}", d.join(p).display())
        } else if let Some(rest) = a.strip_prefix("inout:") {
            let (input, _) = rest.split_once(':').unwrap();
            format!("inout:{}:{}", d.join(input).display(), out.display())
        } else {
            a.to_string()
        });
    }
    v
}

#[test]
fn json_report_has_the_documented_keys() {
    let out = std::env::temp_dir().join(format!("warpjit-cli-timing-{}.bin", std::process::id()));
    let o = warpjit()
        .args(saxpy(&out))
        .args(["--timing", "sm_80", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["cycles"].as_u64().unwrap() > 0);
    assert!(v["ipc"].as_f64().unwrap() > 0.0);
    let occ = &v["occupancy"];
    assert!(occ["theoretical"].as_f64().unwrap() > 0.0);
    assert!(occ["achieved"].as_f64().unwrap() > 0.0);
    assert!(!occ["limiter"].as_str().unwrap().is_empty());
    for k in [
        "dependency",
        "memory",
        "barrier",
        "unit_busy",
        "no_eligible_warp",
    ] {
        assert!(v["stalls"][k].is_u64(), "stalls.{k}");
    }
    assert!(v["memory"]["l2_hit_rate"].is_f64());
    assert!(v["lines"].as_array().unwrap().len() > 3);
    // The results are still right.
    let want = std::fs::read(common::repo_root().join("ptx-samples/cuda/saxpy/y.expected.bin"));
    assert_eq!(std::fs::read(&out).unwrap(), want.unwrap());
    let _ = std::fs::remove_file(&out);
}

/// `--inputs-in-l2`: saxpy's input files start in the L2 (no DRAM read),
/// and the launch is shorter than from a cold L2; without `--timing` the
/// flag is an error.
#[test]
fn inputs_in_l2_start_the_launch_with_its_inputs_cached() {
    let out = std::env::temp_dir().join(format!("warpjit-cli-l2-{}.bin", std::process::id()));
    let run = |extra: &[&str]| {
        let o = warpjit()
            .args(saxpy(&out))
            .args(["--timing", "sm_80", "--json"])
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let (cold, warm) = (run(&[]), run(&["--inputs-in-l2"]));
    assert!(cold["memory"]["dram_sectors"].as_u64().unwrap() > 0);
    assert_eq!(warm["memory"]["dram_sectors"].as_u64(), Some(0));
    assert!(warm["cycles"].as_u64() < cold["cycles"].as_u64());
    let o = warpjit()
        .args(saxpy(&out))
        .arg("--inputs-in-l2")
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--inputs-in-l2 applies to timed launches"));
    let _ = std::fs::remove_file(&out);
}

#[test]
fn text_report_and_diagrams() {
    let dir = std::env::temp_dir().join(format!("warpjit-cli-diagram-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let html = dir.join("d.html");
    let o = warpjit()
        .args(saxpy(&dir.join("y.bin")))
        .args([
            "--timing",
            "sm_75",
            "--diagram",
            "0:0,0:1",
            "--diagram-window",
            "0:400",
        ])
        .arg("--diagram-html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("timing (sm_75, 1590 MHz):"), "{err}");
    assert!(err.contains("occupancy: theoretical"), "{err}");
    assert!(err.contains("# Cycle"), "{err}");
    assert!(err.contains("b0w0:") && err.contains("b0w1:"), "{err}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("<svg") && page.contains("<rect"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn presets_round_trip_and_bad_ones_are_clear_errors() {
    let dir = std::env::temp_dir().join(format!("warpjit-cli-preset-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let o = warpjit().args(["preset", "sm_86"]).output().unwrap();
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    let file = dir.join("mine.toml");
    std::fs::write(&file, text.replace("sm_count = 82", "sm_count = 2")).unwrap();
    let o = warpjit()
        .args(saxpy(&dir.join("y.bin")))
        .arg("--arch-file")
        .arg(&file)
        .arg("--json")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["sm_cycles"].as_array().unwrap().len(), 2);
    // A bad value names the file and the field.
    std::fs::write(
        &file,
        text.replace("clock_mhz = 1695.0", "clock_mhz = -1.0"),
    )
    .unwrap();
    let o = warpjit()
        .args(saxpy(&dir.join("y.bin")))
        .arg("--arch-file")
        .arg(&file)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("mine.toml") && err.contains("chip.clock_mhz"),
        "{err}"
    );
    // An unknown key too (presets are checked, not silently partial).
    std::fs::write(&file, text.replace("[units]", "[units]\nwarp_size = 32")).unwrap();
    let o = warpjit()
        .args(saxpy(&dir.join("y.bin")))
        .arg("--arch-file")
        .arg(&file)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("warp_size"), "{err}");
    let o = warpjit().args(["preset", "sm_99"]).output().unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("sm_80"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ptxas_log_gives_the_registers() {
    let out = std::env::temp_dir().join(format!("warpjit-cli-ptxas-{}.bin", std::process::id()));
    let log = common::repo_root().join("ptx-samples/gen/ptxas-v-saxpy.log");
    let o = warpjit()
        .args(saxpy(&out))
        .args(["--timing", "sm_80", "--json", "--ptxas-log"])
        .arg(&log)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["occupancy"]["regs_per_thread"], 12);
    assert_eq!(v["occupancy"]["regs_source"], "ptxas log");
    let _ = std::fs::remove_file(&out);
}

#[test]
fn auto_costs_take_the_sass_from_fermi_on_and_ptx_for_tesla() {
    let dir = std::env::temp_dir().join(format!("warpjit-cli-auto-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let costs = |preset: &str| {
        let o = warpjit()
            .args(saxpy(&dir.join("y.bin")))
            .args(["--timing", preset])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        err.lines()
            .find(|l| l.trim_start().starts_with("costs:"))
            .unwrap_or_else(|| panic!("no costs line: {err}"))
            .to_string()
    };
    // The sample's committed sidecar serves sm_80 and Fermi; the G80
    // preset takes the PTX model and says why.
    assert!(costs("sm_80").contains("SASS sm_80"));
    assert!(costs("sm_20").contains("SASS sm_80"));
    let g80 = costs("sm_10");
    assert!(
        g80.contains("PTX (auto: sm_80's SASS does not stand for CC 1.0"),
        "{g80}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
