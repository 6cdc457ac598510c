//! The hardware calibration kit (`ptx-samples/gen/hw_calibrate.py`) against
//! the libcuda.so cargo built for this test run, so that the kit is known to
//! work before a GPU is lent: two corpus samples, a BabelStream run (scaled
//! down by the kit's `--scale 64`) and the self-test runs that use every
//! runs.toml feature (reads of clock64 cycle counts, untimed launches,
//! `K*sm` (grids, scalars, buffer sizes), `occupancy:K`, buffer offsets,
//! every fill, and a kernel fault that poisons the
//! context, after which a fresh worker goes on), through the kit's
//! `--self-test` checks of its JSON. Needs python3; skipped (with a message)
//! without it.

use std::path::PathBuf;
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The shared library cargo built for this test run (as in c_abi.rs).
fn library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    [
        deps.join("libcuda.so"),
        deps.parent().unwrap().join("libcuda.so"),
    ]
    .into_iter()
    .find(|p| p.exists())
    .expect("libcuda.so is built with the tests")
}

fn python3() -> Option<&'static str> {
    let ok = Command::new("python3")
        .args([
            "-c",
            "import sys; sys.exit(0 if sys.version_info >= (3, 6) else 1)",
        ])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    ok.then_some("python3")
}

#[test]
fn calibration_kit_runs_against_the_shim() {
    let Some(python) = python3() else {
        eprintln!("skipped: no python3 (3.6 or later) to run ptx-samples/gen/hw_calibrate.py");
        return;
    };
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hw_calibrate.json");
    let _ = std::fs::remove_file(&out);
    let result = Command::new(python)
        .current_dir(repo())
        .arg("ptx-samples/gen/hw_calibrate.py")
        .arg("--self-test")
        .arg("--libcuda")
        .arg(library())
        .arg("--out")
        .arg(&out)
        .args(["--scale", "64"])
        .args([
            "cuda/vector_add",
            "clang/saxpy",
            "fidelity/babelstream_copy_f64",
            "fidelity/selftest_",
        ])
        .env("WARPJIT_ARCH", "sm_90")
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&result.stdout);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(
        result.status.success(),
        "hw_calibrate.py --self-test failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("self-test: PASS"), "{stdout}");
    let json = std::fs::read_to_string(&out).unwrap();
    for want in [
        "\"schema\": \"warpjit-hwcal/1\"",
        "\"complete\": true",
        "\"id\": \"cuda/vector_add\"",
        "\"id\": \"clang/saxpy\"",
        "\"id\": \"fidelity/babelstream_copy_f64\"",
        "\"id\": \"fidelity/selftest_chain_add_s32\"",
        "\"id\": \"fidelity/selftest_fma_throughput\"",
        "\"id\": \"fidelity/selftest_occupancy\"",
        "\"bytes_spec\": \"256*sm\"",
        "\"bytes\": 33792,",
        "\"shared_bytes_spec\": \"occupancy:2\"",
        "\"context_poisoned\": \"CUDA_ERROR_ILLEGAL_ADDRESS",
        "\"name\": \"warpjit (sm_90 model)\"",
        "\"sm_count\": 132",
        "\"u32:132\"",
    ] {
        assert!(json.contains(want), "{want} not in {}", out.display());
    }
    // 2 samples and 5 runs: all ok but the self-test's fault, after which a
    // fresh worker ran the rest.
    assert!(json.contains("\"items\": 7,"), "{json}");
    assert!(json.contains("\"ok\": 6,"), "{json}");
    assert!(json.contains("\"error\": 1,"), "{json}");
}
