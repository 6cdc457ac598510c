//! Reading the hardware calibration kit's JSON (`ptx-samples/gen/hw_calibrate.py`,
//! schema `warpjit-hwcal/1`) for `cargo bench --bench fidelity -- --hw FILE`:
//! the runs that ran, their median times and read values, the SM clock
//! after each; failed runs left out; a scaled-down self-test file and
//! another schema refused.

mod common;

use common::hw::{measured, Measured};

/// A kit file as the kit writes one (abridged to the fields read).
fn kit_file(scale: u32) -> String {
    format!(
        r#"{{"schema": "warpjit-hwcal/1", "options": {{"reps": 3, "scale": {scale}}},
        "device": {{"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"}},
        "runs": [
          {{"name": "accelsim_lat_fma_f32", "status": "ok", "median_ms": 0.0123,
            "times_ms": [0.0125, 0.0123, 0.0121],
            "reads": [{{"name": "cycles", "values": [4101, 4099, 4100, 4180]}}],
            "clocks_after": {{"sm_clock_mhz": 1980}}}},
          {{"name": "selftest_fault", "status": "error", "error": "CUDA_ERROR_ILLEGAL_ADDRESS"}},
          {{"name": "babelstream_copy_f64", "status": "ok", "median_ms": 0.39,
            "reads": [], "clocks_after": null}}
        ]}}"#
    )
}

#[test]
fn the_kits_runs_read_back() {
    let (cc, runs) = measured(&kit_file(1)).unwrap();
    assert_eq!(cc, "9.0");
    assert_eq!(
        runs,
        [
            Measured {
                name: "accelsim_lat_fma_f32".into(),
                median_ms: 0.0123,
                reads: vec![("cycles".into(), 4100.5)],
                sm_clock_mhz: Some(1980.0),
            },
            Measured {
                name: "babelstream_copy_f64".into(),
                median_ms: 0.39,
                reads: vec![],
                sm_clock_mhz: None,
            },
        ]
    );
}

#[test]
fn scaled_files_and_other_schemas_are_refused() {
    let e = measured(&kit_file(64)).unwrap_err();
    assert!(e.contains("scaled down 64x"), "{e}");
    let e = measured(r#"{"schema": "other/2"}"#).unwrap_err();
    assert!(e.contains("not warpjit-hwcal/1"), "{e}");
}

#[test]
fn the_kits_samples_and_empty_kernel_read_back() {
    use common::hw::{measured_samples, MeasuredSample};
    let file = r#"{"schema": "warpjit-hwcal/1", "options": {"scale": 1},
        "device": {"compute_capability": "9.0"},
        "baseline": {"kernel": "hwcal_empty", "median_ms": 0.003072},
        "samples": [
          {"id": "cuda/saxpy", "status": "ok", "ptx": "kernel.compute_80.ptx",
           "median_ms": 0.0044, "func": {"num_regs": 12},
           "clocks_after": {"sm_clock_mhz": 1980}},
          {"id": "cuda/texture_fetch", "status": "error", "ptx": "kernel.compute_80.ptx"},
          {"id": "cuda/assert_fail", "status": "skipped", "reason": "expect_error"}
        ], "runs": []}"#;
    let (launch, samples) = measured_samples(file).unwrap();
    assert_eq!(launch, 0.003072);
    assert_eq!(
        samples,
        [MeasuredSample {
            id: "cuda/saxpy".into(),
            ptx: "kernel.compute_80.ptx".into(),
            median_ms: 0.0044,
            regs: Some(12),
            sm_clock_mhz: Some(1980.0),
        }]
    );
    // The committed H100 file reads back whole.
    let text =
        std::fs::read_to_string(common::repo_root().join("ptx-samples/hw/h100.json")).unwrap();
    let (launch, samples) = measured_samples(&text).unwrap();
    assert!(launch > 0.002 && launch < 0.005, "{launch}");
    assert!(samples.len() >= 100, "{}", samples.len());
    let (cc, runs) = common::hw::measured(&text).unwrap();
    assert_eq!(cc, "9.0");
    assert_eq!(runs.len(), 86);
}

/// The work distributor's rate, from the kit's calibration run on the H100
/// (65536 empty 64-thread CTAs: 42.6 µs, 39.5 µs past the launch cost):
/// `sm_90`'s `block_dispatch_cycles` gives an SM a CTA at most every 157
/// cycles. Without the limit the model ran the grid in 2.4 µs.
#[test]
fn the_h100s_block_dispatch_rate_holds() {
    let text =
        std::fs::read_to_string(common::repo_root().join("ptx-samples/hw/h100.json")).unwrap();
    let (_, runs) = common::hw::measured(&text).unwrap();
    let (launch_ms, _) = common::hw::measured_samples(&text).unwrap();
    let name = "calibration_block_dispatch_empty_64";
    let m = runs.iter().find(|r| r.name == name).unwrap();
    let run = common::fidelity::runs()
        .into_iter()
        .find(|r| r.name == name)
        .unwrap();
    let mut arch = warpjit::timing::Arch::builtin("sm_90").unwrap();
    arch.chip.clock_mhz = m.sm_clock_mhz.unwrap();
    let model_ms = common::fidelity::run_on(&run, &arch, None).unwrap().seconds * 1e3;
    let measured_ms = m.median_ms - launch_ms;
    assert!(
        (model_ms / measured_ms - 1.0).abs() < 0.1,
        "model {model_ms:.4} ms, the H100 {measured_ms:.4} ms"
    );
}
