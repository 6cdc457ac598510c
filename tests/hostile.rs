//! Hostile input (issue 23): whatever the PTX, the files and the command
//! line, `warpjit` gives a clear error or a result, never a panic, an abort,
//! a hang or an escape. The kernels run on both engines and, where it
//! applies, timed.

#[path = "common/hostile.rs"]
mod hostile;

use std::path::PathBuf;

use hostile::*;

#[test]
fn watchdog_seconds_out_of_range_is_a_clear_error() {
    let path = write_ptx("wd-secs", "k.ptx", &trivial());
    for bad in ["nan", "NaN", "inf", "-inf", "1e300", "-1", "1e20", "x", ""] {
        let opt = format!("--watchdog-seconds={bad}");
        let out = run(&path, &["--grid", "1", "--block", "1", &opt]);
        assert_no_crash(&out, bad);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("--watchdog-seconds"),
            "{bad}: {}",
            stderr(&out)
        );
    }
    // Large but representable limits and zero-length ones are accepted.
    for good in ["1e19", "0.5", "1e9"] {
        for mode in MODES {
            let mut args = vec!["--grid", "1", "--block", "1", "--watchdog-seconds", good];
            args.extend_from_slice(mode);
            let out = run(&path, &args);
            assert_no_crash(&out, good);
            assert!(out.status.success(), "{good} {mode:?}: {}", stderr(&out));
        }
    }
}

/// A kernel whose `printf` call has an unsupported specification (`%q`).
fn bad_printf() -> String {
    ".version 7.0\n.target sm_80\n.address_size 64\n\n\
     .extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n\
     .global .align 1 .b8 fmt[4] = {37, 113, 10, 0};\n\n\
     .visible .entry k()\n{\n\
     \t.reg .b64 %rd<3>;\n\t.reg .b32 %r<2>;\n\
     \tmov.u64 %rd1, fmt;\n\tcvta.global.u64 %rd2, %rd1;\n\
     \t{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %rd2;\n\
     \t.param .b64 param1;\n\tst.param.b64 [param1], 0;\n\
     \t.param .b32 retval0;\n\
     \tcall.uni (retval0), vprintf, (param0, param1);\n\
     \tld.param.b32 %r1, [retval0];\n\t}\n\tret;\n}\n"
        .to_string()
}

#[test]
fn printf_errors_name_printf_once() {
    let path = write_ptx("printf-err", "k.ptx", &bad_printf());
    for mode in MODES {
        let mut args = vec!["--grid", "1", "--block", "1"];
        args.extend_from_slice(mode);
        let out = run(&path, &args);
        assert_no_crash(&out, "printf");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{mode:?}: {err}");
        assert!(
            err.contains("printf: unsupported printf specification `%q\\n`"),
            "{mode:?}: {err}"
        );
        assert!(!err.contains("printf: printf"), "{mode:?}: {err}");
        assert!(err.contains("k.ptx:20:"), "{mode:?}: {err}");
    }
}

/// Every thread of every CTA stores through a null pointer.
fn all_fault() -> String {
    kernel(
        "",
        "\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n\
         \tmov.u32 %r1, %ctaid.x;\n\tmov.u64 %rd1, 0;\n\
         \tst.global.u32 [%rd1], %r1;\n\tret;",
    )
}

/// Every CTA stores through a null pointer, block 0 last: it first runs a
/// loop of barriers, long after the others faulted.
fn late_fault_in_block_zero() -> String {
    kernel(
        "",
        "\t.reg .pred %p<3>;\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n\
         \tmov.u32 %r1, %ctaid.x;\n\tmov.u64 %rd1, 0;\n\
         \tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra $L_fault;\n\
         \tmov.u32 %r2, 0;\n$L_loop:\n\tbar.sync 0;\n\tadd.u32 %r2, %r2, 1;\n\
         \tsetp.lt.u32 %p2, %r2, 20000;\n\t@%p2 bra.uni $L_loop;\n\
         $L_fault:\n\tst.global.u32 [%rd1], %r1;\n\tret;",
    )
}

#[test]
fn the_fault_reported_is_the_first_faulting_cta_in_grid_order() {
    // CTAs run in parallel; the report must not depend on which faulted
    // first in time. (A timed launch runs CTAs in the model's order, one
    // thread: it reports the first fault in modeled time, deterministic.)
    let path = write_ptx("first-cta", "k.ptx", &late_fault_in_block_zero());
    for mode in &MODES[..2] {
        for _ in 0..10 {
            let mut args = vec!["--grid", "16", "--block", "64"];
            args.extend_from_slice(mode);
            let out = run(&path, &args);
            assert_no_crash(&out, "fault");
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{mode:?}: {err}");
            assert!(err.contains("illegal_address"), "{mode:?}: {err}");
            assert!(
                err.contains("block (0, 0, 0), thread (0, 0, 0)"),
                "{mode:?}: {err}"
            );
        }
    }
    let path = write_ptx("first-cta", "all.ptx", &all_fault());
    for mode in MODES {
        for _ in 0..30 {
            let mut args = vec!["--grid", "64", "--block", "64"];
            args.extend_from_slice(mode);
            let out = run(&path, &args);
            assert_no_crash(&out, "fault");
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{mode:?}: {err}");
            assert!(err.contains("illegal_address"), "{mode:?}: {err}");
            assert!(
                err.contains("block (0, 0, 0), thread (0, 0, 0)"),
                "{mode:?}: {err}"
            );
        }
    }
}

/// A loop that never ends (one add and a branch).
fn spin() -> String {
    kernel(
        "",
        "\t.reg .b32 %r<2>;\n\tmov.u32 %r1, 0;\n$L_spin:\n\
         \tadd.u32 %r1, %r1, 1;\n\tbra.uni $L_spin;\n\tret;",
    )
}

#[test]
fn watchdog_reports_name_the_ptx_line_on_every_engine() {
    let path = write_ptx("wd-line", "k.ptx", &spin());
    for limit in [
        &["--watchdog-instructions", "100000"][..],
        &["--watchdog-seconds", "0.3"][..],
    ] {
        for mode in MODES {
            let mut args = vec!["--grid", "1", "--block", "32"];
            args.extend_from_slice(limit);
            args.extend_from_slice(mode);
            let out = run(&path, &args);
            assert_no_crash(&out, "watchdog");
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{mode:?} {limit:?}: {err}");
            assert!(err.contains("watchdog"), "{mode:?} {limit:?}: {err}");
            // The loop's add (line 10) or its branch (line 11).
            assert!(
                err.contains("k.ptx:10:") || err.contains("k.ptx:11:"),
                "{mode:?} {limit:?}: {err}"
            );
        }
    }
}

/// A kernel taking one parameter of type `ty` (and doing nothing with it).
fn scalar_param(ty: &str) -> String {
    kernel(&format!(".param .{ty} p"), "\tret;")
}

#[test]
fn float_arguments_out_of_range_are_errors() {
    let dir = "float-args";
    for (ty, bad, good) in [
        (
            "f32",
            &["1e999", "1e39", "-3.5e38"][..],
            &["3.4e38", "inf", "-inf", "nan", "1e-50"][..],
        ),
        (
            "f64",
            &["1e999", "-1e400"][..],
            &["1.7e308", "inf", "NaN"][..],
        ),
        ("f16", &["1e6", "70000"][..], &["65504", "-inf"][..]),
    ] {
        let path = write_ptx(dir, &format!("{ty}.ptx"), &scalar_param(ty));
        for v in bad {
            let arg = format!("{ty}:{v}");
            let out = run(&path, &["--grid", "1", "--block", "1", "--arg", &arg]);
            assert_no_crash(&out, &arg);
            assert_eq!(out.status.code(), Some(2), "{arg}: {}", stderr(&out));
            assert!(
                stderr(&out).contains(&format!("out of range for {ty}")),
                "{arg}: {}",
                stderr(&out)
            );
        }
        for v in good {
            let arg = format!("{ty}:{v}");
            let out = run(&path, &["--grid", "1", "--block", "1", "--arg", &arg]);
            assert!(out.status.success(), "{arg}: {}", stderr(&out));
        }
    }
}

#[test]
fn timing_options_without_timing_are_errors() {
    let path = write_ptx("untimed", "k.ptx", &trivial());
    for opt in [
        &["--regs", "32"][..],
        &["--diagram", "0:0"][..],
        &["--json"][..],
        &["--sample-waves", "1"][..],
    ] {
        for engine in &MODES[..2] {
            let mut args = vec!["--grid", "1", "--block", "32"];
            args.extend_from_slice(opt);
            args.extend_from_slice(engine);
            let out = run(&path, &args);
            assert_no_crash(&out, opt[0]);
            assert_eq!(out.status.code(), Some(2), "{opt:?}: {}", stderr(&out));
            let err = stderr(&out);
            assert!(
                err.contains(opt[0]) && err.contains("--timing"),
                "{opt:?}: {err}"
            );
        }
    }
}

#[test]
fn diagrams_of_nothing_are_errors() {
    let path = write_ptx("diagram", "k.ptx", &trivial());
    let timed = ["--grid", "2", "--block", "64", "--timing", "sm_80"];
    for (extra, says) in [
        (&["--diagram", "2:0"][..], "the grid has 2 CTAs"),
        (&["--diagram", "0:2"][..], "has 2 warps"),
        (
            &["--diagram", "0:0", "--diagram-window", "10:5"][..],
            "empty",
        ),
        (
            &["--diagram", "0:0", "--diagram-window", "100000:200000"][..],
            "no instruction",
        ),
        (&["--diagram-window", "0:10"][..], "need --diagram"),
    ] {
        let mut args = timed.to_vec();
        args.extend_from_slice(extra);
        let out = run(&path, &args);
        assert_no_crash(&out, extra[1]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(says), "{extra:?}: {err}");
    }
    let mut args = timed.to_vec();
    args.extend_from_slice(&["--diagram", "1:1", "--diagram-window", "0:100000"]);
    let out = run(&path, &args);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn occupancy_of_an_impossible_block_is_an_error() {
    for block in ["0", "1025"] {
        let out = warpjit()
            .args([
                "occupancy",
                "--arch",
                "sm_80",
                "--block",
                block,
                "--regs",
                "32",
            ])
            .output()
            .unwrap();
        assert_no_crash(&out, block);
        assert_eq!(out.status.code(), Some(2), "{block}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("--block"),
            "{block}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn the_largest_grid_runs_or_fails_without_aborting() {
    // 2^31 - 1 CTAs: no per-CTA state is allocated up front. Every CTA
    // faults; the first is reported and the rest are cancelled.
    let path = write_ptx("huge-grid", "k.ptx", &all_fault());
    for mode in MODES {
        let mut args = vec![
            "--grid",
            "2147483647",
            "--block",
            "32",
            "--watchdog-seconds",
            "60",
        ];
        args.extend_from_slice(mode);
        let out = run(&path, &args);
        assert_no_crash(&out, "grid");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{mode:?}: {err}");
        assert!(err.contains("illegal_address"), "{mode:?}: {err}");
        assert!(err.contains("block (0, 0, 0)"), "{mode:?}: {err}");
    }
    // CTAs that do nothing: the watchdog's time limit stops the launch
    // long before the last.
    let path = write_ptx("huge-grid", "trivial.ptx", &trivial());
    for mode in MODES {
        let mut args = vec![
            "--grid",
            "2147483647",
            "--block",
            "32",
            "--watchdog-seconds",
            "1",
        ];
        args.extend_from_slice(mode);
        let start = std::time::Instant::now();
        let out = run(&path, &args);
        assert_no_crash(&out, "grid");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{mode:?}: {err}");
        assert!(err.contains("time limit"), "{mode:?}: {err}");
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "{mode:?}"
        );
    }
}

/// Every thread prints `text` `n` times.
fn printf_loop(text: &str, n: u32) -> String {
    let bytes: Vec<String> = text.bytes().chain([0]).map(|b| b.to_string()).collect();
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n\n\
         .extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n\
         .global .align 1 .b8 fmt[{len}] = {{{bytes}}};\n\n\
         .visible .entry k()\n{{\n\
         \t.reg .pred %p<2>;\n\t.reg .b64 %rd<3>;\n\t.reg .b32 %r<3>;\n\
         \tmov.u64 %rd1, fmt;\n\tcvta.global.u64 %rd2, %rd1;\n\tmov.u32 %r2, 0;\n\
         $L_loop:\n\
         \t{{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %rd2;\n\
         \t.param .b64 param1;\n\tst.param.b64 [param1], 0;\n\
         \t.param .b32 retval0;\n\
         \tcall.uni (retval0), vprintf, (param0, param1);\n\
         \tld.param.b32 %r1, [retval0];\n\t}}\n\
         \tadd.u32 %r2, %r2, 1;\n\tsetp.lt.u32 %p1, %r2, {n};\n\t@%p1 bra.uni $L_loop;\n\
         \tret;\n}}\n",
        len = bytes.len(),
        bytes = bytes.join(", "),
    )
}

#[test]
fn a_printf_flood_is_capped_like_cudas_fifo() {
    // 64 threads x 1000 calls x 20 bytes: 1.28 MB, past the 1 MiB buffer.
    let line = "0123456789abcdefghi\n";
    let path = write_ptx("printf-flood", "k.ptx", &printf_loop(line, 1000));
    for mode in MODES {
        for (extra, cap) in [
            (&[][..], 1u64 << 20),
            (&["--printf-buffer", "100"][..], 100),
        ] {
            let mut args = vec!["--grid", "1", "--block", "64"];
            args.extend_from_slice(extra);
            args.extend_from_slice(mode);
            let out = run(&path, &args);
            assert_no_crash(&out, "printf");
            let err = stderr(&out);
            assert!(out.status.success(), "{mode:?}: {err}");
            let printed = out.stdout.len() as u64;
            assert!(
                printed <= cap && printed > cap - 20,
                "{mode:?} {cap}: {printed} bytes"
            );
            assert!(out.stdout.starts_with(line.as_bytes()));
            assert_eq!(err.matches("printf buffer").count(), 1, "{mode:?}: {err}");
            assert!(err.contains("dropped"), "{mode:?}: {err}");
        }
    }
    // Within the buffer nothing is said.
    let path = write_ptx("printf-flood", "small.ptx", &printf_loop(line, 10));
    let out = run(&path, &["--grid", "1", "--block", "64"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout.len(), 64 * 10 * line.len());
    assert!(!stderr(&out).contains("printf buffer"), "{}", stderr(&out));
}

#[test]
fn devices_and_huge_files_are_refused_before_reading() {
    let big = scratch("big-files").join("big.ptx");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(300 << 20).unwrap(); // sparse: no disk used
    drop(f);
    for file in [PathBuf::from("/dev/zero"), big.clone()] {
        let out = warpjit().arg("check").arg(&file).output().unwrap();
        assert_no_crash(&out, "check");
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("not a regular file") || err.contains("above the limit"),
            "{err}"
        );
        let out = run(&file, &["--grid", "1", "--block", "1"]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    }
    // Kernel arguments read from files too, up to the device's memory.
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(2 << 30).unwrap();
    drop(f);
    let path = write_ptx("big-files", "k.ptx", &kernel(".param .u64 p", "\tret;"));
    let big_arg = format!("in:{}", big.display());
    for arg in ["in:/dev/zero", "bytes:/dev/zero", &big_arg] {
        let out = run(&path, &["--grid", "1", "--block", "1", "--arg", arg]);
        assert_no_crash(&out, arg);
        assert_eq!(out.status.code(), Some(2), "{arg}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("cannot read"),
            "{arg}: {}",
            stderr(&out)
        );
    }
    std::fs::remove_file(&big).unwrap();
}

/// A 32-byte vector access (`v4.b64`) at byte `at` of a buffer or of
/// shared memory.
fn vector_access(space: &str, op: &str, at: u32) -> String {
    let access = match op {
        "ld" => format!("\tld.{space}.v4.b64 {{%rd2, %rd3, %rd4, %rd5}}, [%rd1+{at}];"),
        _ => format!("\tst.{space}.v4.b64 [%rd1+{at}], {{%rd2, %rd3, %rd4, %rd5}};"),
    };
    let base = if space == "shared" {
        "\tmov.u64 %rd1, buf;"
    } else {
        "\tld.param.u64 %rd1, [p];"
    };
    kernel(
        ".param .u64 p",
        &format!(
            "\t.reg .b64 %rd<6>;\n\t.shared .align 32 .b8 buf[128];\n{base}\n\
             \tmov.u64 %rd2, 1;\n\tmov.u64 %rd3, 2;\n\tmov.u64 %rd4, 3;\n\tmov.u64 %rd5, 4;\n{access}\n\tret;"
        ),
    )
}

#[test]
fn a_32_byte_vector_access_must_be_32_byte_aligned() {
    let dir = "v4b64";
    let out_file = scratch(dir).join("out.bin");
    let arg = format!("out:128:{}", out_file.display());
    for space in ["global", "shared"] {
        for op in ["ld", "st"] {
            for (at, ok) in [(16, false), (8, false), (32, true), (64, true)] {
                let name = format!("{space}-{op}-{at}.ptx");
                let path = write_ptx(dir, &name, &vector_access(space, op, at));
                for mode in MODES {
                    let mut args = vec!["--grid", "1", "--block", "32", "--arg", &arg];
                    args.extend_from_slice(mode);
                    let out = run(&path, &args);
                    assert_no_crash(&out, &name);
                    let err = stderr(&out);
                    if ok {
                        assert!(out.status.success(), "{name} {mode:?}: {err}");
                    } else {
                        assert_eq!(out.status.code(), Some(1), "{name} {mode:?}: {err}");
                        assert!(err.contains("misaligned"), "{name} {mode:?}: {err}");
                        assert!(
                            err.contains(&format!("{name}:14:")),
                            "{name} {mode:?}: {err}"
                        );
                    }
                }
            }
        }
    }
}

/// A loop around a barrier that never ends.
fn barrier_spin() -> String {
    kernel("", "$L_spin:\n\tbar.sync 0;\n\tbra.uni $L_spin;\n\tret;")
}

#[test]
fn the_watchdog_stops_a_loop_around_a_barrier() {
    let path = write_ptx("bar-spin", "k.ptx", &barrier_spin());
    for limit in [
        &[
            "--watchdog-instructions",
            "100000",
            "--watchdog-seconds",
            "30",
        ][..],
        &["--watchdog-seconds", "0.5"][..],
    ] {
        for mode in MODES {
            for block in ["32", "128"] {
                let mut args = vec!["--grid", "2", "--block", block];
                args.extend_from_slice(limit);
                args.extend_from_slice(mode);
                let start = std::time::Instant::now();
                let out = run(&path, &args);
                assert_no_crash(&out, "bar-spin");
                let err = stderr(&out);
                assert_eq!(out.status.code(), Some(1), "{mode:?} {limit:?}: {err}");
                assert!(err.contains("watchdog"), "{mode:?} {limit:?}: {err}");
                assert!(err.contains("k.ptx:"), "{mode:?} {limit:?}: {err}");
                assert!(
                    start.elapsed() < std::time::Duration::from_secs(20),
                    "{mode:?} {limit:?}: {:?}",
                    start.elapsed()
                );
            }
        }
    }
}

#[test]
fn instruction_limits_below_the_charging_granularity_hold() {
    // 2 x 64 threads running ~10 instructions: more than 5.
    let path = write_ptx(
        "small-limit",
        "k.ptx",
        &spin().replace("bra.uni $L_spin;", "ret;"),
    );
    for mode in MODES {
        let mut args = vec![
            "--grid",
            "2",
            "--block",
            "64",
            "--watchdog-instructions",
            "5",
        ];
        args.extend_from_slice(mode);
        let out = run(&path, &args);
        assert_no_crash(&out, "small");
        assert_eq!(out.status.code(), Some(1), "{mode:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("instruction limit"),
            "{mode:?}: {}",
            stderr(&out)
        );
        let mut args = vec![
            "--grid",
            "2",
            "--block",
            "64",
            "--watchdog-instructions",
            "1000",
        ];
        args.extend_from_slice(mode);
        let out = run(&path, &args);
        assert!(out.status.success(), "{mode:?}: {}", stderr(&out));
    }
    let out = run(
        &path,
        &[
            "--grid",
            "1",
            "--block",
            "1",
            "--watchdog-instructions",
            "0",
        ],
    );
    assert_no_crash(&out, "zero");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--watchdog-instructions"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_watchdog_time_comes_from_the_environment() {
    let path = write_ptx("wd-env", "k.ptx", &spin());
    let start = std::time::Instant::now();
    let out = warpjit()
        .env("WARPJIT_WATCHDOG_SECONDS", "0.5")
        .args(["run", "--grid", "1", "--block", "32"])
        .arg(&path)
        .output()
        .unwrap();
    assert_no_crash(&out, "env");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("time limit"), "{}", stderr(&out));
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
    let out = warpjit()
        .env("WARPJIT_WATCHDOG_SECONDS", "nan")
        .args(["run", "--grid", "1", "--block", "32"])
        .arg(&path)
        .output()
        .unwrap();
    assert_no_crash(&out, "env nan");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("WARPJIT_WATCHDOG_SECONDS"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_jit_spin_loop_on_a_volatile_load_meets_the_time_limit() {
    // A compiled loop gives up after its step cap and is interpreted; each
    // time it is entered again it spent the cap anew, and the watchdog was
    // asked only every 4096 interpreted steps: a 1 s limit ended after
    // 4-6 s per warp (18.6 s in the run).
    let path = write_ptx(
        "spin-volatile",
        "k.ptx",
        &kernel(
            ".param .u64 p",
            "\t.reg .b64 %rd<3>;\n\t.reg .b32 %r<2>;\n\t.reg .pred %p<2>;\n\
             \tld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
             $L_wait:\n\tld.volatile.global.u32 %r1, [%rd2];\n\
             \tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra $L_wait;\n\tret;",
        ),
    );
    let start = std::time::Instant::now();
    let out = run(
        &path,
        &[
            "--grid",
            "4",
            "--block",
            "32",
            "--arg",
            "out:64:/dev/null",
            "--watchdog-seconds",
            "0.3",
        ],
    );
    assert_no_crash(&out, "spin");
    let err = stderr(&out);
    assert!(err.contains("time limit"), "{err}");
    assert!(err.contains("k.ptx:"), "{err}");
    assert!(
        start.elapsed().as_secs_f64() < 4.0,
        "took {:?}",
        start.elapsed()
    );
}
