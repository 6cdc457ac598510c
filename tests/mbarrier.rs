//! `mbarrier` misuse and waits between the warps of a CTA, through the CLI
//! on every engine: a phase that can never complete is a deadlock report
//! naming the wait's line (not a hang), arrivals on an object never
//! initialized and objects outside shared memory are errors, and warps that
//! wait for each other by spinning (with `nanosleep`, `%globaltimer` polls as
//! libcu++'s barrier does before sm_80, or nothing) finish. The working cases from
//! real compilers are corpus samples (`cuda/barrier_memcpy_async`,
//! `cuda/pipeline_double_buffer`, `cuda/mbarrier_phases`).

#[path = "common/hostile.rs"]
#[allow(dead_code)]
mod hostile;

use hostile::{assert_no_crash, kernel, run, stderr, write_ptx, MODES};

/// Two warps; the barrier expects 96 arrivals and gets 64; each thread
/// then spins on `try_wait.parity` (line 19).
fn never_completes() -> String {
    kernel(
        "",
        "\t.shared .b64 bar;\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n\t.reg .pred %p<3>;\n\
         \tmov.u32 %r1, %tid.x;\n\tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra $L_arrive;\n\
         \tmbarrier.init.shared.b64 [bar], 96;\n$L_arrive:\n\tbar.sync 0;\n\
         \tmbarrier.arrive.shared.b64 %rd1, [bar];\n$L_wait:\n\
         \tmbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;\n\t@!%p2 bra $L_wait;\n\tret;",
    )
}

#[test]
fn a_phase_that_never_completes_is_a_deadlock_at_the_wait() {
    let path = write_ptx("mbar-deadlock", "k.ptx", &never_completes());
    for mode in &MODES[..2] {
        let mut args = vec!["--grid", "1", "--block", "64"];
        args.extend_from_slice(mode);
        let out = run(&path, &args);
        assert_no_crash(&out, "deadlock");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{mode:?}: {err}");
        assert!(err.contains("mbarrier deadlock"), "{mode:?}: {err}");
        assert!(err.contains("warp(s) 0, 1"), "{mode:?}: {err}");
        assert!(err.contains("k.ptx:19:"), "{mode:?}: {err}");
    }
    // Timed runs interleave warps by modeled time and meet the watchdog.
    let out = run(
        &path,
        &[
            "--grid",
            "1",
            "--block",
            "64",
            "--timing",
            "sm_80",
            "--watchdog-seconds",
            "0.5",
        ],
    );
    assert_no_crash(&out, "timed deadlock");
    assert!(stderr(&out).contains("watchdog"), "{}", stderr(&out));
}

#[test]
fn misuse_of_an_mbarrier_is_an_error_on_every_engine() {
    let cases = [
        (
            "uninit",
            "\t.shared .b64 bar;\n\t.reg .b64 %rd<2>;\n\
             \tmbarrier.arrive.shared.b64 %rd1, [bar];\n\tret;",
            "no pending arrivals",
        ),
        (
            "global",
            "\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, gbar;\n\
             \tmbarrier.init.b64 [%rd1], 1;\n\tret;",
            "not in shared memory",
        ),
        (
            "count",
            "\t.shared .b64 bar;\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, 0;\n\
             \tmbarrier.init.shared.b64 [bar], %r1;\n\tret;",
            "count 0 is outside",
        ),
        (
            "too-many",
            "\t.shared .b64 bar;\n\t.reg .b64 %rd<2>;\n\tmbarrier.init.shared.b64 [bar], 16;\n\
             \tmbarrier.arrive.shared.b64 %rd1, [bar], 20;\n\tret;",
            "only 16 pending",
        ),
    ];
    for (name, body, want) in cases {
        // The global object is declared at module scope.
        let text = kernel("", body).replace(".visible", ".global .align 8 .b64 gbar;\n.visible");
        let path = write_ptx("mbar-misuse", &format!("{name}.ptx"), &text);
        for mode in MODES {
            let mut args = vec!["--grid", "1", "--block", "32"];
            args.extend_from_slice(mode);
            let out = run(&path, &args);
            assert_no_crash(&out, name);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{name} {mode:?}: {err}");
            assert!(err.contains(want), "{name} {mode:?}: {err}");
            assert!(
                err.contains(&format!("{name}.ptx:")),
                "{name} {mode:?}: {err}"
            );
        }
    }
}

/// Warp 1 publishes a flag in shared memory late; warp 0 waits for it in a
/// loop that sleeps (`nanosleep`), polls `%globaltimer` or does nothing
/// between reads.
fn spin_on_flag(pause: &str) -> String {
    kernel(
        ".param .u64 out",
        &format!(
            "\t.shared .u32 flag;\n\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<3>;\n\
             \tmov.u32 %r1, %tid.x;\n\tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra $L_go;\n\
             \tst.shared.u32 [flag], 0;\n$L_go:\n\tbar.sync 0;\n\
             \tsetp.lt.u32 %p1, %r1, 32;\n\t@%p1 bra $L_wait;\n\
             \tsetp.ne.u32 %p2, %r1, 32;\n\t@%p2 bra $L_done;\n\
             \tst.volatile.shared.u32 [flag], 7;\n\tbra.uni $L_done;\n\
             $L_wait:\n\tld.volatile.shared.u32 %r2, [flag];\n\tsetp.ne.u32 %p2, %r2, 0;\n\
             \t@%p2 bra $L_seen;\n\t{pause}\n\tbra.uni $L_wait;\n\
             $L_seen:\n\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
             \tmul.wide.u32 %rd2, %r1, 4;\n\tadd.u64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r2;\n\
             $L_done:\n\tret;"
        ),
    )
}

#[test]
fn warps_spinning_for_each_other_finish() {
    for (name, pause) in [
        ("nanosleep", "nanosleep.u32 100;"),
        ("globaltimer", "mov.u64 %rd1, %globaltimer;"),
        // A bare poll: the volatile load, run again, hands the turn on.
        ("poll", "add.u32 %r3, %r3, 1;"),
    ] {
        let path = write_ptx("mbar-spin", &format!("{name}.ptx"), &spin_on_flag(pause));
        let dir = path.parent().unwrap();
        for mode in MODES {
            let outfile = dir.join(format!("{name}-{}.bin", mode.len()));
            let arg = format!("out:256:{}", outfile.display());
            let mut args = vec!["--grid", "1", "--block", "64", "--arg", &arg];
            args.extend_from_slice(mode);
            args.extend_from_slice(&["--watchdog-seconds", "20"]);
            let out = run(&path, &args);
            assert_no_crash(&out, name);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{name} {mode:?}: {}",
                stderr(&out)
            );
            let bytes = std::fs::read(&outfile).unwrap();
            let words: Vec<u32> = bytes
                .chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            assert_eq!(words[..32], [7; 32], "{name} {mode:?}");
            assert_eq!(words[32..], [0; 32], "{name} {mode:?}");
        }
    }
}

/// `cp.async.bulk` into shared memory completes its bytes on the
/// mbarrier; one of 24 bytes (not a multiple of 16) is a misaligned-address
/// fault at its line, and one past its source allocation an illegal
/// address, on every engine and timed.
#[test]
fn bulk_copies_complete_their_bytes_and_fault_at_their_line() {
    let body = |size: u32, from_offset: u32| {
        format!(
            "\t.shared .align 16 .b8 tile[64];\n\t.shared .align 8 .b64 bar;\n\
             \t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<3>;\n\
             \tld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
             \tmov.u32 %r1, %tid.x;\n\tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra $L_wait;\n\
             \tmbarrier.init.shared.b64 [bar], 1;\n\
             \tmbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [bar], {size};\n\
             \tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd1+{from_offset}], {size}, [bar];\n\
             $L_wait:\n\tbar.sync 0;\n\
             $L_spin:\n\tmbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;\n\t@!%p2 bra $L_spin;\n\
             \tld.shared.u32 %r2, [tile+12];\n\tst.global.u32 [%rd1+64], %r2;\n\tret;"
        )
    };
    let arg_in = |path: &std::path::Path| {
        let data: Vec<u8> = (0u8..68).collect();
        let f = path.with_file_name("in.bin");
        std::fs::write(&f, data).unwrap();
        let o = path.with_file_name("out.bin");
        format!("inout:{}:{}", f.display(), o.display())
    };
    for (name, size, from, want) in [
        ("ok", 32, 0, Ok(u32::from_le_bytes([12, 13, 14, 15]))),
        ("odd", 24, 0, Err("misaligned address")),
        ("past", 32, 48, Err("illegal address")),
    ] {
        let path = write_ptx(
            &format!("bulk-{name}"),
            "k.ptx",
            &kernel(".param .u64 p", &body(size, from)),
        );
        let input = arg_in(&path);
        for mode in MODES {
            let mut args = vec!["--grid", "1", "--block", "64", "--arg", input.as_str()];
            args.extend_from_slice(mode);
            let out = run(&path, &args);
            assert_no_crash(&out, name);
            let err = stderr(&out);
            match want {
                Ok(v) => {
                    assert!(out.status.success(), "{name} {mode:?}: {err}");
                    let bytes = std::fs::read(path.with_file_name("out.bin")).unwrap();
                    assert_eq!(bytes[64..68], v.to_le_bytes(), "{name} {mode:?}");
                }
                Err(what) => {
                    assert_eq!(out.status.code(), Some(1), "{name} {mode:?}: {err}");
                    assert!(
                        err.contains(what) && err.contains("k.ptx:19:"),
                        "{name} {mode:?}: {err}"
                    );
                }
            }
        }
    }
}

/// `cp.reduce.async.bulk`'s forms outside the ISA's table of operations
/// and element types are errors at their line; `.add.f32` flushes
/// subnormal inputs and results to zero (the ISA: "the current
/// implementation ... flushes subnormal inputs and results to
/// sign-preserving zero"), the f16 sums (`.noftz`) keep them. The forms
/// libcu++ emits are corpus sample `cuda/bulk_reduce`.
#[test]
fn bulk_reductions_follow_the_isa_table() {
    let form = |f: &str| {
        format!(
            "\t.shared .align 16 .b8 s[32];\n\t.reg .b64 %rd<3>;\n\tld.param.u64 %rd1, [p];\n\
             \tcp.reduce.async.bulk.{f} [%rd1], [s], 16;\n\tret;"
        )
    };
    for bad in [
        "global.shared::cta.bulk_group.add.f16",
        "global.shared::cta.bulk_group.add.noftz.u32",
        "global.shared::cta.bulk_group.min.f32",
        "global.shared::cta.bulk_group.inc.s32",
        "global.shared::cta.bulk_group.and.f32",
        "global.global.bulk_group.add.u32",
    ] {
        let err = warpjit::runtime::Device::new(Default::default())
            .load_ptx("k.ptx", &kernel(".param .u64 p", &form(bad)))
            .map(|_| ())
            .expect_err(bad)
            .to_string();
        assert!(err.contains("k.ptx:10:"), "{bad}: {err}");
    }
    // s: f32 {2^-140 (subnormal), 1.0, -0.0, 0} and eight f16 2^-24
    // (subnormal); the accumulator: f32 {2^-140, 2^-140, -2^-140, 0}, f16
    // 2^-24.
    let body = "\t.shared .align 16 .b8 s[32];\n\t.reg .b64 %rd<3>;\n\t.reg .b32 %r<3>;\n\
        \tld.param.u64 %rd1, [p];\n\
        \tmov.b32 %r2, 0x00080000;\n\tst.shared.u32 [s], %r2;\n\
        \tmov.b32 %r2, 0x3f800000;\n\tst.shared.u32 [s+4], %r2;\n\
        \tmov.b32 %r2, 0x80000000;\n\tst.shared.u32 [s+8], %r2;\n\
        \tmov.b32 %r2, 0;\n\tst.shared.u32 [s+12], %r2;\n\
        \tmov.b32 %r2, 0x00010001;\n\tst.shared.u32 [s+16], %r2;\n\
        \tst.shared.u32 [s+20], %r2;\n\tst.shared.u32 [s+24], %r2;\n\tst.shared.u32 [s+28], %r2;\n\
        \tcp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1], [s], 16;\n\
        \tcp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [%rd1+16], [s+16], 16;\n\
        \tret;";
    let path = write_ptx("bulk-red", "k.ptx", &kernel(".param .u64 p", body));
    let words: [u32; 8] = [
        0x0008_0000,
        0x0008_0000,
        0x8008_0000,
        0,
        0x0001_0001,
        0x0001_0001,
        0x0001_0001,
        0x0001_0001,
    ];
    let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let f = path.with_file_name("in.bin");
    std::fs::write(&f, input).unwrap();
    let o = path.with_file_name("out.bin");
    let spec = format!("inout:{}:{}", f.display(), o.display());
    for mode in MODES {
        let mut args = vec!["--grid", "1", "--block", "1", "--arg", spec.as_str()];
        args.extend_from_slice(mode);
        let out = run(&path, &args);
        assert!(out.status.success(), "{mode:?}: {}", stderr(&out));
        let got: Vec<u32> = std::fs::read(&o)
            .unwrap()
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        // f32: subnormal + subnormal flushed to +0; +0 + 1.0 = 1.0;
        // -0 + -0 = -0; 0 + 0 = 0. f16: 2^-24 + 2^-24 = 2^-23 per half.
        assert_eq!(
            got,
            [
                0,
                0x3f80_0000,
                0x8000_0000,
                0,
                0x0002_0002,
                0x0002_0002,
                0x0002_0002,
                0x0002_0002
            ],
            "{mode:?}"
        );
    }
}

/// Bulk reductions from CTAs running in parallel into the same global
/// words are atomic per element: 512 CTAs each add 1 to the same 16 words
/// 200 times; every word ends at 102400 (before, a non-atomic
/// read-modify-write lost about 1% of the updates between CTAs).
#[test]
fn bulk_reductions_from_parallel_ctas_are_atomic() {
    let body = "\t.shared .align 16 .b8 s[64];\n\t.reg .b64 %rd<3>;\n\t.reg .b32 %r<4>;\n\t.reg .pred %p<3>;\n\
        \tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, %tid.x;\n\
        \tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra $L_done;\n\
        \tst.shared.v4.u32 [s], {1, 1, 1, 1};\n\tst.shared.v4.u32 [s+16], {1, 1, 1, 1};\n\
        \tst.shared.v4.u32 [s+32], {1, 1, 1, 1};\n\tst.shared.v4.u32 [s+48], {1, 1, 1, 1};\n\
        \tmov.u32 %r2, 0;\n\
        $L_loop:\n\
        \tcp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [s], 64;\n\
        \tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group.read 0;\n\
        \tadd.u32 %r2, %r2, 1;\n\tsetp.lt.u32 %p2, %r2, 200;\n\t@%p2 bra $L_loop;\n\
        $L_done:\n\tret;";
    let path = write_ptx("bulk-par", "k.ptx", &kernel(".param .u64 p", body));
    let o = path.with_file_name("out.bin");
    let spec = format!("out:64:{}", o.display());
    for mode in [&[][..], &["--engine", "interp"][..]] {
        let mut args = vec!["--grid", "512", "--block", "32", "--arg", spec.as_str()];
        args.extend_from_slice(mode);
        let out = run(&path, &args);
        assert!(out.status.success(), "{mode:?}: {}", stderr(&out));
        let got: Vec<u32> = std::fs::read(&o)
            .unwrap()
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, vec![512 * 200; 16], "{mode:?}");
    }
}
