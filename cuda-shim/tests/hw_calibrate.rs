//! The hardware calibration kit (`ptx-samples/gen/hw_calibrate.py`) against
//! the libcuda.so cargo built for this test run, so that the kit is known to
//! work before a GPU is lent: corpus samples (texture and surface objects
//! and a cooperative launch among them), a BabelStream run (scaled
//! down by the kit's `--scale 64`) and the self-test runs that use every
//! runs.toml feature (reads of clock64 cycle counts, untimed launches,
//! `K*sm` (grids, scalars, buffer sizes), `occupancy:K`, buffer offsets,
//! every fill, and a kernel fault that poisons the
//! context, after which a fresh worker goes on), through the kit's
//! `--self-test` checks of its JSON. And `ptx-samples/gen/gpu_check.py`
//! likewise: its dry run over the corpus, `gpu_objects.py`'s round trips
//! through every texture and surface geometry, then the samples whose
//! launches need more than buffers (textures, surfaces, cooperative,
//! clusters, printf) through the shim. Needs python3; skipped (with a message)
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
            "cuda/texture_fetch",
            "cuda/surface_rw",
            "cuda/grid_sync",
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
        "\"id\": \"cuda/texture_fetch\"",
        "\"id\": \"cuda/surface_rw\"",
        "\"cooperative\": true",
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
    // 6 (sample, PTX) pairs and 5 runs: all ok but the self-test's fault,
    // after which a fresh worker ran the rest; every sample's outputs match.
    assert!(json.contains("\"items\": 11,"), "{json}");
    assert!(json.contains("\"ok\": 10,"), "{json}");
    assert!(json.contains("\"error\": 1,"), "{json}");
    assert!(json.contains("\"check_pass\": 6,"), "{json}");
    assert!(json.contains("\"check_fail\": 0\n"), "{json}");
}

#[test]
fn gpu_check_runs_against_the_shim() {
    let Some(python) = python3() else {
        eprintln!("skipped: no python3 (3.6 or later) to run ptx-samples/gen/gpu_check.py");
        return;
    };
    let lib = library();
    let lib = lib.to_str().unwrap();
    script(
        python,
        &["ptx-samples/gen/gpu_check.py", "--dry-run"],
        " 0 with problems",
    );
    // Every texture/surface geometry's copies and descriptors (no kernel).
    script(
        python,
        &["ptx-samples/gen/gpu_objects.py", "--libcuda", lib],
        "15 of 15 ok",
    );
    // texture_fetch, texture_cube, surface_rw, grid_sync (2 PTX),
    // cluster_dsmem, bulk_multicast, bulk_reduce, printf_basic (2 PTX)
    script(
        python,
        &[
            "ptx-samples/gen/gpu_check.py",
            "--libcuda",
            lib,
            "--jobs",
            "2",
            "--timeout",
            "300",
            "cuda/texture_fetch",
            "cuda/texture_cube",
            "cuda/surface_rw",
            "cuda/grid_sync",
            "cuda/cluster_dsmem",
            "cuda/bulk_multicast",
            "cuda/bulk_reduce",
            "cuda/printf_basic",
        ],
        "10 (sample, ptx) pairs, 10 PASS, 0 FAIL on warpjit",
    );
}

/// Runs a script of ptx-samples/gen (on the sm_90 preset where it loads the
/// shim) and checks that it succeeds and prints `expect`.
fn script(python: &str, args: &[&str], expect: &str) {
    let out = Command::new(python)
        .current_dir(repo())
        .args(args)
        .env("WARPJIT_ARCH", "sm_90")
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains(expect),
        "{}:\n{stdout}\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}
