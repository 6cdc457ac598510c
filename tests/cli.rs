//! The `warpjit` binary: `check` on real samples and on broken input.

mod common;

use std::process::Command;

fn warpjit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_warpjit"))
}

#[test]
fn check_lists_kernels_and_exits_zero_on_a_clean_sample() {
    let path = common::repo_root().join("ptx-samples/cuda/struct_param/kernel.compute_80.ptx");
    let out = warpjit().arg("check").arg(&path).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("PTX 8.8, target sm_80"), "{stdout}");
    // The struct passed by value shows as a 24-byte .b8 array parameter.
    assert!(
        stdout.contains("kernel _Z9transform15TransformParamsPKfPdi("),
        "{stdout}"
    );
    assert!(stdout.contains("[24]"), "{stdout}");
    assert!(
        stdout.contains("C++: transform(TransformParams, float const*, double*, int)"),
        "{stdout}"
    );
}

/// Two instantiations of a template kernel, `kernel<1>` and `kernel<2>`,
/// each storing its argument, as NVRTC names them.
const TEMPLATES: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\n\
.visible .entry _Z6kernelILi1EEvPi(.param .u64 p)\n{\n\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;\n\
\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, 1;\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n\
.visible .entry _Z6kernelILi2EEvPi(.param .u64 p)\n{\n\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;\n\
\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, 2;\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n";

#[test]
fn kernel_is_found_by_its_cxx_name_or_an_unambiguous_base_name() {
    let dir = std::env::temp_dir().join(format!("warpjit-cli-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.ptx");
    std::fs::write(&path, TEMPLATES).unwrap();
    let out_file = dir.join("out.bin");
    let run = |kernel: &str| {
        warpjit()
            .arg("run")
            .arg(&path)
            .args(["--grid", "1", "--block", "1", "--kernel", kernel])
            .arg("--arg")
            .arg(format!("out:4:{}", out_file.display()))
            .output()
            .unwrap()
    };
    for (name, want) in [
        ("kernel<2>", 2u32),
        ("_Z6kernelILi1EEvPi", 1),
        ("void kernel<1>(int*)", 1),
    ] {
        let out = run(name);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v = u32::from_le_bytes(std::fs::read(&out_file).unwrap()[..4].try_into().unwrap());
        assert_eq!(v, want, "{name}");
    }
    let out = run("kernel");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("`kernel` names 2 kernels"), "{err}");
    assert!(err.contains("_Z6kernelILi2EEvPi (kernel<2>)"), "{err}");
    let out = run("kern");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no kernel `kern`"), "{err}");
}

#[test]
fn check_accepts_the_whole_corpus() {
    let files = common::corpus_ptx_files();
    let out = warpjit()
        .arg("check")
        .arg("--quiet")
        .args(&files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn check_exits_one_and_reports_errors_on_bad_input() {
    let good =
        common::read(&common::repo_root().join("ptx-samples/cuda/saxpy/kernel.compute_80.ptx"));
    let bad = good.replacen("fma.rn.f32", "fma.rn.f33", 1);
    let dir = std::env::temp_dir().join(format!("warpjit-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.ptx");
    std::fs::write(&path, bad).unwrap();
    let out = warpjit().arg("check").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.ptx:"), "{stderr}");
    assert!(stderr.contains("`.f33` is not a PTX modifier"), "{stderr}");
    assert!(stderr.contains('^'), "{stderr}");
}

#[test]
fn check_emit_ptx_prints_parseable_ptx() {
    let path = common::repo_root().join("ptx-samples/cuda/device_functions/kernel.compute_80.ptx");
    let out = warpjit()
        .args(["check", "--emit", "ptx"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(warpjit::front::parse_str("emitted.ptx", &text).is_ok());
    assert!(text.contains(".func"), "{text}");
}

#[test]
fn missing_file_is_a_clear_error() {
    let out = warpjit()
        .args(["check", "/nonexistent/k.ptx"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /nonexistent/k.ptx"));
}

#[test]
fn occupancy_command_prints_json() {
    let out = warpjit()
        .args([
            "occupancy",
            "--arch",
            "sm_80",
            "--block",
            "256",
            "--regs",
            "128",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["active_blocks_per_sm"], 2);
    assert_eq!(v["active_warps_per_sm"], 16);
    assert_eq!(v["occupancy"], 0.25);
    assert_eq!(v["limiter"], "registers");
    let bad = warpjit()
        .args([
            "occupancy",
            "--arch",
            "sm_99",
            "--block",
            "32",
            "--regs",
            "8",
        ])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown architecture `sm_99`"));
}

#[test]
fn cooperative_launches_sync_the_grid_and_refuse_what_cannot_be_resident() {
    let dir = common::repo_root().join("ptx-samples/cuda/grid_sync");
    let ptx = dir.join("kernel.compute_80.ptx");
    let tmp = std::env::temp_dir().join(format!("warpjit-cli-coop-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let run = |extra: &[&str], grid: &str| {
        let mut cmd = warpjit();
        cmd.arg("run")
            .arg(&ptx)
            .args(["--grid", grid, "--block", "256"]);
        for (bytes, name) in [(40000, "a"), (40000, "b"), (8, "total")] {
            cmd.arg("--arg").arg(format!(
                "out:{bytes}:{}",
                tmp.join(format!("{name}.bin")).display()
            ));
        }
        cmd.args(["--arg", "s32:10000"])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&["--cooperative"], "12");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read(tmp.join("total.bin")).unwrap(),
        std::fs::read(dir.join("total.expected.bin")).unwrap()
    );
    // Without a cooperative launch the grid workspace is null: a trap, as on a GPU.
    let out = run(&[], "12");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("trap"), "{err}");
    // More blocks than an sm_80 holds at once.
    let out = run(&["--cooperative"], "100000");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("only") && err.contains("resident at once"),
        "{err}"
    );
}

/// One of two kernels reaches a `tcgen05` (Blackwell-only, not executed): `run` runs the other and refuses
/// that one naming the line; `check` reports the line and the kernel.
#[test]
fn a_kernel_warpjit_cannot_run_is_refused_at_launch_not_at_load() {
    let dir = std::env::temp_dir().join(format!("warpjit-cli-refused-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.ptx");
    let text = TEMPLATES.replacen(
        "mov.u32 %r1, 2;",
        "mov.u32 %r1, 2;\n\ttcgen05.fence::before_thread_sync;",
        1,
    );
    std::fs::write(&path, &text).unwrap();
    let line = text[..text.find("tcgen05").unwrap()].matches('\n').count() + 1;
    let out_file = dir.join("out.bin");
    let run = |kernel: &str| {
        warpjit()
            .arg("run")
            .arg(&path)
            .args(["--grid", "1", "--block", "1", "--kernel", kernel])
            .arg("--arg")
            .arg(format!("out:4:{}", out_file.display()))
            .output()
            .unwrap()
    };
    let out = run("kernel<1>");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&out_file).unwrap()[..4], 1u32.to_le_bytes());
    let out = run("kernel<2>");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("kernel `_Z6kernelILi2EEvPi` cannot run on warpjit"),
        "{err}"
    );
    assert!(
        err.contains(&format!("t.ptx:{line}:2: unsupported: `tcgen05`")),
        "{err}"
    );
    let out = warpjit().arg("check").arg(&path).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("t.ptx:{line}:2: unsupported: `tcgen05`")),
        "{err}"
    );
    assert!(
        err.contains("1 of 2 kernels cannot run (their launches are refused): _Z6kernelILi2EEvPi"),
        "{err}"
    );
}
