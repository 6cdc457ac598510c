//! Every failure path of a launch is a clear, typed error naming the kernel,
//! block, thread and PTX line — never a panic or a hang. The kernels are real
//! corpus samples launched with bad arguments, or real PTX with one
//! instruction changed to provoke the fault.

mod common;

use std::time::Duration;

use warpjit::interp::FaultKind;
use warpjit::runtime::{args, Device, LaunchConfig, ModuleId, Options};
use warpjit::Error;

fn sample_ptx(name: &str) -> String {
    common::read(
        &common::repo_root()
            .join("ptx-samples/cuda")
            .join(name)
            .join("kernel.compute_80.ptx"),
    )
}

fn device() -> Device {
    Device::new(Options {
        arena_bytes: 64 << 20,
        ..Options::default()
    })
}

fn cfg(grid: u32, block: u32) -> LaunchConfig {
    LaunchConfig {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        shared_bytes: 0,
    }
}

/// vector_add(a, b, c, n) with the given buffers and n.
fn vector_add_params(dev: &mut Device, m: ModuleId, len: u64, n: u32) -> Vec<u8> {
    let k = dev.kernel(m, None).unwrap();
    let a = dev.alloc(len).unwrap();
    let b = dev.alloc(len).unwrap();
    let c = dev.alloc(len).unwrap();
    let (slots, total) = dev.kernel_params(m, k);
    let mut p = vec![0u8; total as usize];
    for (slot, v) in slots.iter().zip([a, b, c]) {
        p[slot.offset as usize..slot.offset as usize + 8].copy_from_slice(&v.to_le_bytes());
    }
    let at = slots[3].offset as usize;
    p[at..at + 4].copy_from_slice(&n.to_le_bytes());
    p
}

/// Parameters for a kernel: a fresh 64 KiB buffer for every 8-byte (pointer)
/// parameter, `scalar` for every 4-byte one.
fn buffers_and_scalars(
    dev: &mut Device,
    m: ModuleId,
    k: warpjit::ir::FuncId,
    scalar: u32,
) -> Vec<u8> {
    let (slots, total) = dev.kernel_params(m, k);
    let slots = slots.to_vec();
    let mut p = vec![0u8; total as usize];
    for s in &slots {
        let at = s.offset as usize;
        if s.size == 8 {
            let buf = dev.alloc(1 << 16).unwrap();
            p[at..at + 8].copy_from_slice(&buf.to_le_bytes());
        } else if s.size == 4 {
            p[at..at + 4].copy_from_slice(&scalar.to_le_bytes());
        }
    }
    p
}

fn launch_error(r: Result<warpjit::runtime::LaunchReport, Error>) -> Box<warpjit::LaunchError> {
    match r {
        Err(Error::Launch(e)) => e,
        Err(other) => panic!("expected a launch fault, got: {other}"),
        Ok(_) => panic!("expected a launch fault, the launch succeeded"),
    }
}

#[test]
fn out_of_bounds_access_names_kernel_block_thread_and_line() {
    let mut dev = device();
    let m = dev
        .load_ptx("vector_add.ptx", &sample_ptx("vector_add"))
        .unwrap();
    let k = dev.kernel(m, None).unwrap();
    // Buffers of 100 floats but n = 1000: thread 100 of block 0 reads past the end.
    let p = vector_add_params(&mut dev, m, 400, 1000);
    let e = launch_error(dev.launch(m, k, cfg(4, 256), &p));
    assert_eq!(e.kind, FaultKind::IllegalAddress);
    assert_eq!(e.block, [0, 0, 0]);
    assert_eq!(e.thread, [100, 0, 0]);
    let text = e.to_string();
    assert!(text.contains("kernel `vector_add`"), "{text}");
    assert!(text.contains("vector_add.ptx:"), "{text}");
    assert!(text.contains("ld.global"), "{text}");
    assert!(
        text.contains("illegal address: 4-byte global access"),
        "{text}"
    );
}

/// A device whose allocations (and CTAs' shared memory) are rounded as a
/// GPU's or not, with memcheck on or off.
fn rounding_device(engine: warpjit::runtime::Engine, round: bool, memcheck: bool) -> Device {
    let mut options = Options {
        arena_bytes: 64 << 20,
        engine,
        round_allocations: round,
        ..Options::default()
    };
    options.checks.memcheck = memcheck;
    Device::new(options)
}

#[test]
fn rounded_allocations_let_small_overruns_through_as_a_gpu_does() {
    // Buffers of 100 floats (400 bytes, rounded up to 512 as on a GPU)
    // and n = 128: threads 100-127 read and write the padding. With exact
    // bounds, or with memcheck on, thread 100 faults; past the rounding,
    // every mode faults.
    for engine in [
        warpjit::runtime::Engine::Interp,
        warpjit::runtime::Engine::Jit,
    ] {
        let run = |round: bool, memcheck: bool, n: u32| {
            let mut dev = rounding_device(engine, round, memcheck);
            let m = dev
                .load_ptx("vector_add.ptx", &sample_ptx("vector_add"))
                .unwrap();
            let k = dev.kernel(m, None).unwrap();
            let p = vector_add_params(&mut dev, m, 400, n);
            dev.launch(m, k, cfg(1, 256), &p)
        };
        assert!(run(true, false, 128).is_ok(), "{engine:?}: rounded");
        let e = launch_error(run(false, false, 128));
        assert_eq!(
            (e.kind, e.thread),
            (FaultKind::IllegalAddress, [100, 0, 0]),
            "{engine:?}"
        );
        assert!(
            run(true, true, 128).is_err(),
            "{engine:?}: memcheck keeps exact bounds"
        );
        let e = launch_error(run(true, false, 256));
        assert_eq!(
            (e.kind, e.thread),
            (FaultKind::IllegalAddress, [128, 0, 0]),
            "{engine:?}"
        );
    }
}

/// NVVM's code for a dynamic shared array of 7 ints: a 16-byte vector load
/// of elements 4-7 (numba-cuda's LTO output for `dynsmem[4:6]`), so that
/// it reads 4 bytes past the 28 the launch gives. A GPU allocates shared
/// memory in 128-byte units and runs it; `off` moves the load.
fn shared_tail_ptx(off: u32) -> String {
    format!(
        ".version 8.8\n.target sm_80\n.address_size 64\n\
         .extern .shared .align 16 .b8 smem[];\n\
         .visible .entry tail(.param .u64 out)\n{{\n\
         .reg .b32 %r<6>;\n.reg .b64 %rd<3>;\n\
         ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n\
         mov.u32 %r1, 99;\n\
         st.shared.v4.u32 [smem], {{%r1, %r1, %r1, %r1}};\n\
         st.shared.v2.u32 [smem+16], {{%r1, %r1}};\nst.shared.u32 [smem+24], %r1;\n\
         ld.shared.v4.u32 {{%r2, %r3, %r4, %r5}}, [smem+{off}];\n\
         st.global.v2.u32 [%rd2], {{%r2, %r3}};\nst.global.u32 [%rd2+8], %r4;\nret;\n}}\n"
    )
}

#[test]
fn rounded_shared_memory_lets_a_vector_load_past_the_end_through() {
    for engine in [
        warpjit::runtime::Engine::Interp,
        warpjit::runtime::Engine::Jit,
    ] {
        let run = |round: bool, memcheck: bool, off: u32| {
            let mut dev = rounding_device(engine, round, memcheck);
            let m = dev.load_ptx("tail.ptx", &shared_tail_ptx(off)).unwrap();
            let k = dev.kernel(m, None).unwrap();
            let out = dev.alloc(16).unwrap();
            let launch = LaunchConfig {
                grid: [1, 1, 1],
                block: [1, 1, 1],
                shared_bytes: 28,
            };
            let r = dev.launch(m, k, launch, &out.to_le_bytes());
            let mut got = [0u8; 12];
            dev.read(out, &mut got).unwrap();
            (r, got)
        };
        let (r, got) = run(true, false, 16);
        assert!(r.is_ok(), "{engine:?}: rounded to 128 bytes");
        assert_eq!(got, [[99, 0, 0, 0]; 3].concat()[..], "{engine:?}");
        let e = launch_error(run(false, false, 16).0);
        assert_eq!(
            e.kind,
            FaultKind::IllegalAddress,
            "{engine:?}: exact bounds"
        );
        assert!(
            run(true, true, 16).0.is_err(),
            "{engine:?}: memcheck is exact"
        );
        let e = launch_error(run(true, false, 128).0);
        assert_eq!(
            e.kind,
            FaultKind::IllegalAddress,
            "{engine:?}: past the rounding"
        );
    }
}

#[test]
fn misaligned_access_is_reported() {
    let mut dev = device();
    let m = dev
        .load_ptx("vector_add.ptx", &sample_ptx("vector_add"))
        .unwrap();
    let k = dev.kernel(m, None).unwrap();
    let mut p = vector_add_params(&mut dev, m, 4096, 32);
    // Shift pointer `a` by 2 bytes: every 4-byte load is misaligned.
    let a = u64::from_le_bytes(p[0..8].try_into().unwrap()) + 2;
    p[0..8].copy_from_slice(&a.to_le_bytes());
    let e = launch_error(dev.launch(m, k, cfg(1, 32), &p));
    assert_eq!(e.kind, FaultKind::MisalignedAddress, "{e}");
    assert!(e.to_string().contains("misaligned"), "{e}");
}

#[test]
fn wild_addresses_never_touch_host_memory() {
    // Pointers far outside the arena, at 0, and at host-looking addresses.
    for bad in [0u64, 8, 0xdead_beef, 0x7fff_ffff_f000, u64::MAX - 7] {
        let mut dev = device();
        let m = dev
            .load_ptx("vector_add.ptx", &sample_ptx("vector_add"))
            .unwrap();
        let k = dev.kernel(m, None).unwrap();
        let mut p = vector_add_params(&mut dev, m, 4096, 32);
        p[16..24].copy_from_slice(&bad.to_le_bytes()); // output pointer c
        let e = launch_error(dev.launch(m, k, cfg(1, 32), &p));
        assert!(
            matches!(
                e.kind,
                FaultKind::IllegalAddress | FaultKind::MisalignedAddress
            ),
            "{bad:#x}: {e}"
        );
    }
}

#[test]
fn trap_is_reported_with_its_line() {
    let ptx = sample_ptx("vector_add").replacen("ret;", "trap;", 1);
    let mut dev = device();
    let m = dev.load_ptx("trap.ptx", &ptx).unwrap();
    let k = dev.kernel(m, None).unwrap();
    let p = vector_add_params(&mut dev, m, 4096, 1024);
    let e = launch_error(dev.launch(m, k, cfg(1, 32), &p));
    assert_eq!(e.kind, FaultKind::Trap);
    assert!(e.to_string().contains("trap"), "{e}");
}

#[test]
fn assert_reports_expression_file_line_block_and_thread() {
    // The sample's own expectation: block 1, thread 37 fails the assert.
    let dir = common::repo_root().join("ptx-samples/cuda/assert_fail");
    let sample = common::samples::Sample::load(&dir);
    match sample
        .run(
            &dir.join("kernel.compute_80.ptx"),
            warpjit::runtime::Engine::Jit,
        )
        .0
    {
        common::samples::Outcome::Pass => {}
        other => panic!("{other:?}"),
    }
    let mut dev = device();
    let m = dev
        .load_ptx(
            "assert.ptx",
            &common::read(&dir.join("kernel.compute_80.ptx")),
        )
        .unwrap();
    let k = dev.kernel(m, None).unwrap();
    let spec: serde_json::Value =
        serde_json::from_str(&common::read(&dir.join("sample.json"))).unwrap();
    let specs: Vec<_> = spec["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| args::parse_arg(a.as_str().unwrap()).unwrap())
        .collect();
    let tmp = std::env::temp_dir();
    let prepared = args::prepare(&mut dev, m, k, &specs, &dir, &tmp).unwrap();
    let grid: Vec<u32> = spec["grid"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect();
    let block: Vec<u32> = spec["block"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect();
    let c = LaunchConfig {
        grid: [grid[0], grid[1], grid[2]],
        block: [block[0], block[1], block[2]],
        shared_bytes: 0,
    };
    let e = launch_error(dev.launch(m, k, c, &prepared.params));
    assert_eq!(e.kind, FaultKind::Assert);
    assert_eq!(e.block, [1, 0, 0]);
    assert_eq!(e.thread, [37, 0, 0]);
    let text = e.to_string();
    assert!(text.contains("Assertion `"), "{text}");
    assert!(text.contains("kernel.cu:"), "{text}");
}

#[test]
fn divergent_barrier_is_an_error_not_a_hang() {
    // reduction_shared with its first __syncthreads made conditional on the lane parity.
    let ptx = sample_ptx("reduction_shared");
    let at = ptx.find("bar.sync").expect("the sample has a barrier");
    let line_start = ptx[..at].rfind('\n').unwrap() + 1;
    let mut broken = ptx.clone();
    broken.insert_str(line_start, "\t{\n\t.reg .pred %pdiv;\n\t.reg .b32 %rdiv;\n\tmov.u32 %rdiv, %tid.x;\n\tand.b32 %rdiv, %rdiv, 1;\n\tsetp.eq.u32 %pdiv, %rdiv, 0;\n\t@%pdiv bar.sync 0;\n\t}\n");
    let mut dev = device();
    let m = dev.load_ptx("div.ptx", &broken).unwrap();
    let k = dev.kernel(m, None).unwrap();
    let p = buffers_and_scalars(&mut dev, m, k, 1024);
    let e = launch_error(dev.launch(m, k, cfg(1, 512), &p));
    assert_eq!(e.kind, FaultKind::DivergentBarrier, "{e}");
    assert!(e.to_string().contains("divergent barrier"), "{e}");
}

#[test]
fn barrier_that_exited_threads_never_reach_is_a_deadlock() {
    // Threads 64 and up exit before a `bar.sync 0, 128`: only 64 of the 128 expected ever arrive.
    let ptx = sample_ptx("reduction_shared");
    let at = ptx.find("bar.sync").unwrap();
    let line_start = ptx[..at].rfind('\n').unwrap() + 1;
    let line_end = at + ptx[at..].find('\n').unwrap();
    let mut broken = ptx.clone();
    broken.replace_range(line_start..line_end, "\t{\n\t.reg .pred %pw;\n\t.reg .b32 %rw;\n\tmov.u32 %rw, %tid.x;\n\tsetp.ge.u32 %pw, %rw, 64;\n\t@%pw exit;\n\tbar.sync 0, 128;\n\t}");
    let mut dev = device();
    let m = dev.load_ptx("deadlock.ptx", &broken).unwrap();
    let k = dev.kernel(m, None).unwrap();
    let p = buffers_and_scalars(&mut dev, m, k, 1024);
    let e = launch_error(dev.launch(m, k, cfg(1, 256), &p));
    assert_eq!(e.kind, FaultKind::BarrierDeadlock, "{e}");
    assert!(e.to_string().contains("barrier deadlock"), "{e}");
}

#[test]
fn watchdog_stops_a_runaway_kernel() {
    let ptx = sample_ptx("mandelbrot");
    let mut dev = Device::new(Options {
        arena_bytes: 64 << 20,
        watchdog_instructions: 200_000,
        watchdog_time: Some(Duration::from_secs(20)),
        ..Options::default()
    });
    // An infinite loop: a label followed by a branch to itself, before the first ret.
    let looped = ptx.replacen("\tret;", "$L__spin:\n\tbra.uni $L__spin;\n\tret;", 1);
    let m = dev.load_ptx("spin.ptx", &looped).unwrap();
    let k = dev.kernel(m, None).unwrap();
    let p = buffers_and_scalars(&mut dev, m, k, 0);
    let start = std::time::Instant::now();
    let e = launch_error(dev.launch(m, k, cfg(2, 64), &p));
    assert_eq!(e.kind, FaultKind::Watchdog, "{e}");
    assert!(start.elapsed() < Duration::from_secs(20));
}

#[test]
fn an_instruction_limit_allows_exactly_that_many_warp_instructions() {
    // "A launch may execute at most N warp-instructions": a launch that
    // executes exactly N runs, one that needs N + 1 is stopped.
    for engine in [
        warpjit::runtime::Engine::Interp,
        warpjit::runtime::Engine::Jit,
    ] {
        let ptx = sample_ptx("mandelbrot");
        let run = |limit: u64| {
            let mut dev = Device::new(Options {
                arena_bytes: 64 << 20,
                watchdog_instructions: limit,
                engine,
                ..Options::default()
            });
            let m = dev.load_ptx("mandelbrot.ptx", &ptx).unwrap();
            let k = dev.kernel(m, None).unwrap();
            let p = buffers_and_scalars(&mut dev, m, k, 16);
            dev.launch(m, k, cfg(2, 64), &p)
        };
        let n = run(u64::MAX / 2).unwrap().warp_instructions;
        assert!(n > 100, "{engine:?}: {n}");
        assert!(run(n).is_ok(), "{engine:?}: exactly {n} warp-instructions");
        let e = launch_error(run(n - 1));
        assert_eq!(e.kind, FaultKind::Watchdog, "{engine:?}: {e}");
    }
}

#[test]
fn watchdog_time_limit_stops_a_runaway_compiled_loop() {
    // Mandelbrot's escape loop runs as a JIT region; with points inside the
    // set and an iteration limit of i32::MAX it would run for hours. The
    // region gives up after a bounded number of steps per lane and the
    // interpreter meets the time limit.
    let ptx = sample_ptx("mandelbrot");
    let mut dev = Device::new(Options {
        arena_bytes: 64 << 20,
        watchdog_time: Some(Duration::from_secs(2)),
        ..Options::default()
    });
    let m = dev.load_ptx("mandelbrot.ptx", &ptx).unwrap();
    let k = dev.kernel(m, None).unwrap();
    let out = dev.alloc(4 * 32).unwrap();
    let args = [
        warpjit::runtime::KernelArg::Ptr(out),
        warpjit::runtime::KernelArg::I32(32),
        warpjit::runtime::KernelArg::I32(1),
        warpjit::runtime::KernelArg::F32(-0.1),
        warpjit::runtime::KernelArg::F32(0.0),
        warpjit::runtime::KernelArg::F32(0.001),
        warpjit::runtime::KernelArg::F32(0.001),
        warpjit::runtime::KernelArg::I32(i32::MAX),
    ];
    let start = std::time::Instant::now();
    let e = match dev.launch_with(m, k, cfg(1, 32), &args) {
        Err(Error::Launch(e)) => e,
        other => panic!("expected the watchdog, got {other:?}"),
    };
    assert_eq!(e.kind, FaultKind::Watchdog, "{e}");
    assert!(e.to_string().contains("time limit"), "{e}");
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn bad_launch_configurations_and_arguments_are_clear_errors() {
    let mut dev = device();
    let m = dev
        .load_ptx("vector_add.ptx", &sample_ptx("vector_add"))
        .unwrap();
    let k = dev.kernel(m, None).unwrap();
    let p = vector_add_params(&mut dev, m, 4096, 32);
    fn msg<T>(r: Result<T, Error>) -> String {
        match r {
            Err(Error::InvalidArgument(s)) => s,
            Err(e) => panic!("expected InvalidArgument, got {e}"),
            Ok(_) => panic!("expected an error"),
        }
    }
    assert!(msg(dev.launch(m, k, cfg(1, 2048), &p)).contains("block dimension x is 2048"));
    let wide = LaunchConfig {
        grid: [1, 1, 1],
        block: [64, 32, 1],
        shared_bytes: 0,
    };
    assert!(msg(dev.launch(m, k, wide, &p)).contains("exceeds the limit of 1024"));
    assert!(msg(dev.launch(m, k, cfg(0, 32), &p)).contains("no zero dimension"));
    assert!(msg(dev.launch(m, k, cfg(1, 32), &p[..8])).contains("bytes of parameters"));
    let big = LaunchConfig {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        shared_bytes: 1 << 20,
    };
    assert!(msg(dev.launch(m, k, big, &p)).contains("shared memory"));
    // Argument specs: wrong count, wrong size, bad file.
    let specs = vec![args::parse_arg("u32:1").unwrap()];
    let here = std::path::Path::new(".");
    assert!(msg(args::prepare(&mut dev, m, k, &specs, here, here)).contains("takes 4 parameters"));
    let specs: Vec<_> = ["u32:1", "u64:2", "u64:3", "u32:4"]
        .iter()
        .map(|s| args::parse_arg(s).unwrap())
        .collect();
    assert!(msg(args::prepare(&mut dev, m, k, &specs, here, here)).contains("is 8 bytes"));
    let specs: Vec<_> = ["in:/nonexistent.bin", "u64:2", "u64:3", "u32:4"]
        .iter()
        .map(|s| args::parse_arg(s).unwrap())
        .collect();
    assert!(msg(args::prepare(&mut dev, m, k, &specs, here, here)).contains("cannot read"));
    assert!(
        matches!(dev.kernel(m, Some("nope")), Err(Error::InvalidArgument(s)) if s.contains("kernels: vector_add"))
    );
}

#[test]
fn unsupported_instructions_refuse_the_launch_naming_instruction_and_line() {
    // A real kernel with a `tcgen05.fence` (Blackwell's tensor memory, not
    // executed by warpjit): the module loads, the launch is refused at the
    // line.
    let ptx =
        sample_ptx("saxpy").replacen("\tret;", "\ttcgen05.fence::before_thread_sync;\n\tret;", 1);
    let line = ptx[..ptx.find("tcgen05").unwrap()].matches('\n').count() + 1;
    let mut dev = device();
    let m = dev.load_ptx("saxpy.ptx", &ptx).expect("the module loads");
    let k = dev.kernel(m, None).unwrap();
    let d = dev.unsupported(m, k).expect("saxpy reaches tcgen05");
    assert!(d.to_string().contains("unsupported: `tcgen05`"), "{d}");
    let params = vec![0u8; dev.kernel_params(m, k).1 as usize];
    match dev.launch(m, k, cfg(1, 32), &params) {
        Err(e @ Error::Unsupported { .. }) => {
            let text = e.to_string();
            assert!(
                text.contains("kernel `_Z5saxpyifPKfPf` cannot run"),
                "{text}"
            );
            assert!(text.contains(&format!("saxpy.ptx:{line}:")), "{text}");
            assert!(text.contains("unsupported: `tcgen05`"), "{text}");
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("tcgen05 ran"),
    }
}

#[test]
fn a_module_with_one_unsupported_kernel_runs_its_others() {
    // vector_add, plus a copy named `broken` that calls a function with a
    // `tcgen05.fence`: vector_add runs and is right; `broken` (and only it) is
    // refused at launch, naming the function's line; the timed launch too.
    let ptx = sample_ptx("vector_add");
    let entry = &ptx[ptx.find(".visible .entry").unwrap()..];
    let broken = entry
        .replacen("vector_add(", "broken(", 1)
        .replace("vector_add_param", "broken_param")
        .replacen("\tret;", "\tcall.uni stop, ();\n\tret;", 1);
    let text = format!(
        "{}.func stop()\n{{\n\ttcgen05.fence::before_thread_sync;\n\tret;\n}}\n{}",
        &ptx[..ptx.find(".visible .entry").unwrap()],
        format_args!("{entry}\n{broken}")
    );
    let line = text[..text.find("tcgen05").unwrap()].matches('\n').count() + 1;
    let mut dev = device();
    let m = dev.load_ptx("two.ptx", &text).expect("the module loads");
    let good = dev.kernel(m, Some("vector_add")).unwrap();
    let bad = dev.kernel(m, Some("broken")).unwrap();
    assert!(dev.unsupported(m, good).is_none());
    let n = 1000u32;
    let a: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let b: Vec<u8> = (0..n)
        .flat_map(|i| (2.0 * i as f32).to_le_bytes())
        .collect();
    let bufs: Vec<u64> = (0..3).map(|_| dev.alloc(4 * n as u64).unwrap()).collect();
    dev.write(bufs[0], &a).unwrap();
    dev.write(bufs[1], &b).unwrap();
    let (slots, total) = dev.kernel_params(m, good);
    let mut params = vec![0u8; total as usize];
    for (slot, v) in slots.iter().zip(&bufs) {
        params[slot.offset as usize..slot.offset as usize + 8].copy_from_slice(&v.to_le_bytes());
    }
    let at = slots[3].offset as usize;
    params[at..at + 4].copy_from_slice(&n.to_le_bytes());
    dev.launch(m, good, cfg(4, 256), &params)
        .expect("vector_add runs");
    let mut c = vec![0u8; 4 * n as usize];
    dev.read(bufs[2], &mut c).unwrap();
    for (i, w) in c.chunks(4).enumerate() {
        assert_eq!(f32::from_le_bytes(w.try_into().unwrap()), 3.0 * i as f32);
    }
    let refused = dev.launch(m, bad, cfg(4, 256), &params).unwrap_err();
    let msg = refused.to_string();
    assert!(matches!(refused, Error::Unsupported { .. }), "{msg}");
    assert!(msg.contains("kernel `broken` cannot run"), "{msg}");
    assert!(msg.contains(&format!("two.ptx:{line}:")), "{msg}");
    let t = warpjit::runtime::TimingOptions::new(warpjit::timing::Arch::builtin("sm_80").unwrap());
    assert!(matches!(
        dev.launch_timed(m, bad, cfg(4, 256), &params, &t),
        Err(Error::Unsupported { .. })
    ));
    dev.launch_timed(m, good, cfg(4, 256), &params, &t)
        .expect("vector_add runs timed");
}

#[test]
fn absurd_declarations_are_load_errors_not_crashes() {
    // Real PTX with a huge global, a huge shared array and a huge local frame added.
    let ptx = sample_ptx("vector_add")
        .replacen(".visible .entry", ".global .align 4 .b8 huge[100000000000000];\n.shared .b8 shuge[1000000000];\n.visible .entry", 1)
        .replacen("\tret;", "\t{\n\t.local .b8 lhuge[99999999999];\n\t}\n\tret;", 1);
    let mut dev = device();
    match dev.load_ptx("huge.ptx", &ptx) {
        Err(Error::Module(d)) => {
            let text = d.to_string();
            assert!(text.contains("`huge` is 100000000000000 bytes"), "{text}");
            assert!(
                text.contains("`shuge` takes static shared memory"),
                "{text}"
            );
            assert!(
                text.contains("`lhuge` makes the per-thread frame larger"),
                "{text}"
            );
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("loaded"),
    }
}
