//! The sanitizer (`Options::checks`, `warpjit run --check`) on kernels from
//! real compiler output: ptx-samples/sanitizer/bugs.cu (known bugs: each
//! test asserts the exact reports, kind, block, thread and PTX line) and
//! correct.cu (correct kernels: zero reports with every check on).
//! Regenerate the PTX with ptx-samples/gen/gen_sanitizer.py.

mod common;

use common::sanitizer::{at, brief, launch, x, ENGINES, X};
use warpjit::runtime::{Device, Engine, KernelArg, LaunchConfig, ModuleId, Options};
use warpjit::sanitizer::{Hazard, Report, ReportKind, Rw, SyncError};
use warpjit::Error;

/// A device with `checks` and the module `name` (bugs or correct) loaded,
/// on the default engine.
fn setup(checks: &str, name: &str) -> (Device, ModuleId) {
    common::sanitizer::setup(checks, name, Options::default().engine)
}

fn floats(dev: &mut Device, values: impl IntoIterator<Item = f32>) -> u64 {
    common::sanitizer::floats(dev, &values.into_iter().collect::<Vec<_>>())
}

/// A race report's hazard and both accesses: (thread x, PTX line) each.
fn race(r: &Report) -> (Hazard, (u32, u32), (u32, u32)) {
    let (h, _, (a, la), (b, lb)) = common::sanitizer::race(r);
    (h, (a[0], la), (b[0], lb))
}

// ---- memcheck ----------------------------------------------------------------

/// Memcheck alone runs on the launch's engine (the JIT by default):
/// both engines report the same.
#[test]
fn memcheck_off_by_one_read_names_the_allocation_and_the_offset() {
    for engine in [Engine::Jit, Engine::Interp] {
        memcheck_off_by_one_read(engine);
    }
}

fn memcheck_off_by_one_read(engine: Engine) {
    let (mut dev, m) = setup("memcheck", "bugs");
    dev.set_engine(engine);
    let input = floats(&mut dev, (0..256).map(|i| i as f32));
    let out = dev.alloc(1024).unwrap();
    let args = [
        KernelArg::Ptr(input),
        KernelArg::Ptr(out),
        KernelArg::I32(256),
    ];
    let r = launch(&dev, m, "copy_off_by_one", x(5), x(64), &args);
    let Err(Error::Launch(e)) = r else {
        panic!("the kernel faults: {r:?}")
    };
    assert_eq!((e.block, e.thread), (at(4), X));
    let reports = dev.take_reports();
    assert_eq!(reports.len(), 1, "{reports:?}");
    let r = &reports[0];
    assert_eq!(
        brief(r),
        (ReportKind::InvalidAccess(Rw::Read), at(4), X, 197)
    );
    assert_eq!((r.space, r.size, r.address), ("global", 4, input + 1024));
    assert_eq!(
        r.detail,
        format!("is out of bounds: 0 bytes after the end of a 1024-byte allocation at {input:#x}")
    );
    let a = r.access.as_ref().unwrap();
    assert_eq!(
        a.source_location.as_deref(),
        Some("/ptx-samples/sanitizer/bugs.cu:35")
    );
    assert_eq!(a.source_line, "ld.global.f32 \t%f1, [%rd5];");
    let text = r.to_string();
    assert!(
        text.starts_with("========= Invalid __global__ read of size 4 bytes\n"),
        "{text}"
    );
    assert!(
        text.contains("by thread (0,0,0) in block (4,0,0)"),
        "{text}"
    );
}

#[test]
fn memcheck_off_by_one_write() {
    let (mut dev, m) = setup("memcheck", "bugs");
    // The input has the extra element; the output does not.
    let input = floats(&mut dev, (0..257).map(|i| i as f32));
    let out = dev.alloc(1000).unwrap();
    let args = [
        KernelArg::Ptr(input),
        KernelArg::Ptr(out),
        KernelArg::I32(250),
    ];
    assert!(launch(&dev, m, "copy_off_by_one", x(4), x(64), &args).is_err());
    let reports = dev.take_reports();
    assert_eq!(reports.len(), 1, "{reports:?}");
    // i = 250 writes bytes 1000..1004 of a 1000-byte allocation.
    assert_eq!(
        brief(&reports[0]),
        (ReportKind::InvalidAccess(Rw::Write), at(3), at(58), 203)
    );
    assert_eq!(
        reports[0].detail,
        format!("is out of bounds: 0 bytes after the end of a 1000-byte allocation at {out:#x}")
    );
}

#[test]
fn memcheck_loop_reading_one_past_the_end() {
    let (mut dev, m) = setup("memcheck", "bugs");
    let input = floats(&mut dev, (0..256).map(|i| i as f32));
    let out = dev.alloc(4).unwrap();
    let args = [
        KernelArg::Ptr(input),
        KernelArg::Ptr(out),
        KernelArg::I32(256),
    ];
    assert!(launch(&dev, m, "sum_off_by_one", x(1), x(1), &args).is_err());
    let reports = dev.take_reports();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(
        brief(&reports[0]),
        (ReportKind::InvalidAccess(Rw::Read), X, X, 267)
    );
    assert_eq!(reports[0].address, input + 1024);
}

#[test]
fn memcheck_use_after_free() {
    for engine in [Engine::Jit, Engine::Interp] {
        memcheck_use_after_free_on(engine);
    }
}

fn memcheck_use_after_free_on(engine: Engine) {
    let (mut dev, m) = setup("memcheck", "bugs");
    dev.set_engine(engine);
    let input = floats(&mut dev, (0..256).map(|i| i as f32));
    let out = dev.alloc(1024).unwrap();
    dev.free(input).unwrap();
    let args = [
        KernelArg::Ptr(input),
        KernelArg::Ptr(out),
        KernelArg::I32(256),
    ];
    assert!(launch(&dev, m, "scale", x(4), x(64), &args).is_err());
    let reports = dev.take_reports();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(
        brief(&reports[0]),
        (ReportKind::InvalidAccess(Rw::Read), X, X, 313)
    );
    assert_eq!(
        reports[0].detail,
        format!("is 0 bytes inside a 1024-byte allocation at {input:#x} that was freed (use after free)")
    );
}

#[test]
fn without_memcheck_a_fault_makes_no_report() {
    for engine in ENGINES {
        without_memcheck_a_fault_makes_no_report_on(engine);
    }
}

fn without_memcheck_a_fault_makes_no_report_on(engine: Engine) {
    let (mut dev, m) = common::sanitizer::setup("", "bugs", engine);
    let input = floats(&mut dev, (0..256).map(|i| i as f32));
    let out = dev.alloc(1024).unwrap();
    let args = [
        KernelArg::Ptr(input),
        KernelArg::Ptr(out),
        KernelArg::I32(256),
    ];
    assert!(launch(&dev, m, "copy_off_by_one", x(5), x(64), &args).is_err());
    assert!(dev.take_reports().is_empty());
}

// ---- initcheck ---------------------------------------------------------------

#[test]
fn initcheck_reads_of_a_buffer_never_written() {
    for engine in ENGINES {
        initcheck_reads_of_a_buffer_never_written_on(engine);
    }
}

fn initcheck_reads_of_a_buffer_never_written_on(engine: Engine) {
    let (mut dev, m) = common::sanitizer::setup("initcheck", "bugs", engine);
    let input = dev.alloc(1024).unwrap();
    let out = dev.alloc(1024).unwrap();
    let args = [
        KernelArg::Ptr(input),
        KernelArg::Ptr(out),
        KernelArg::I32(256),
    ];
    launch(&dev, m, "scale", x(4), x(64), &args).unwrap();
    let reports = dev.take_reports();
    assert_eq!(reports.len(), 1, "one report per PTX line: {reports:?}");
    let r = &reports[0];
    assert_eq!(brief(r), (ReportKind::UninitializedRead, X, X, 313));
    assert_eq!((r.space, r.size, r.address), ("global", 4, input));
    assert!(r
        .to_string()
        .starts_with("========= Uninitialized __global__ memory read of size 4 bytes\n"));
    // Once written (a copy, a memset, or a kernel's stores), no report.
    dev.write(input, &[0; 512]).unwrap();
    dev.memset(input + 512, 0, 512).unwrap();
    launch(&dev, m, "scale", x(4), x(64), &args).unwrap();
    assert!(dev.take_reports().is_empty());
    let args = [
        KernelArg::Ptr(out),
        KernelArg::Ptr(input),
        KernelArg::I32(256),
    ];
    launch(&dev, m, "scale", x(4), x(64), &args).unwrap();
    assert!(dev.take_reports().is_empty(), "the kernel wrote `out`");
}

#[test]
fn initcheck_names_the_first_unwritten_element_in_grid_order() {
    for engine in ENGINES {
        initcheck_names_the_first_unwritten_element_in_grid_order_on(engine);
    }
}

fn initcheck_names_the_first_unwritten_element_in_grid_order_on(engine: Engine) {
    let (mut dev, m) = common::sanitizer::setup("initcheck", "bugs", engine);
    let input = floats(&mut dev, (0..128).map(|i| i as f32));
    // A larger buffer, of which only the first 128 elements are copied.
    let big = dev.alloc(1024).unwrap();
    let mut data = vec![0u8; 512];
    dev.read(input, &mut data).unwrap();
    dev.write(big, &data).unwrap();
    let out = dev.alloc(1024).unwrap();
    let args = [
        KernelArg::Ptr(big),
        KernelArg::Ptr(out),
        KernelArg::I32(256),
    ];
    launch(&dev, m, "scale", x(4), x(64), &args).unwrap();
    let reports = dev.take_reports();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(
        brief(&reports[0]),
        (ReportKind::UninitializedRead, at(2), X, 313)
    );
    assert_eq!(reports[0].address, big + 512);
}

#[test]
fn initcheck_shared_tile_half_loaded() {
    for engine in ENGINES {
        initcheck_shared_tile_half_loaded_on(engine);
    }
}

fn initcheck_shared_tile_half_loaded_on(engine: Engine) {
    let (mut dev, m) = common::sanitizer::setup("initcheck", "bugs", engine);
    let input = floats(&mut dev, (0..64).map(|i| i as f32));
    let out = dev.alloc(256).unwrap();
    let args = [KernelArg::Ptr(input), KernelArg::Ptr(out)];
    launch(&dev, m, "half_loaded_tile", x(3), x(64), &args).unwrap();
    let reports = dev.take_reports();
    assert_eq!(reports.len(), 1, "{reports:?}");
    let r = &reports[0];
    // Thread 0 reads tile[63], which no thread wrote.
    assert_eq!(brief(r), (ReportKind::UninitializedRead, X, X, 369));
    assert_eq!((r.space, r.size), ("shared", 4));
}

// ---- racecheck ---------------------------------------------------------------

#[test]
fn racecheck_reduction_missing_syncthreads() {
    for engine in ENGINES {
        racecheck_reduction_missing_syncthreads_on(engine);
    }
}

fn racecheck_reduction_missing_syncthreads_on(engine: Engine) {
    let (mut dev, m) = common::sanitizer::setup("racecheck", "bugs", engine);
    let input = floats(&mut dev, (0..512).map(|i| i as f32));
    let out = dev.alloc(16).unwrap();
    let args = [KernelArg::Ptr(input), KernelArg::Ptr(out)];
    launch(&dev, m, "reduce_missing_sync", x(4), x(128), &args).unwrap();
    let reports = dev.take_reports();
    let got: Vec<_> = reports.iter().map(race).collect();
    use Hazard::*;
    assert_eq!(
        got,
        [
            // Within warp 0: s[t + k] read after lane t + k wrote s[t + k]
            // in the previous (unrolled) step, no barrier between.
            (ReadAfterWrite, (16, 68), (0, 75)),
            (ReadAfterWrite, (8, 77), (0, 84)),
            (ReadAfterWrite, (4, 86), (0, 93)),
            (ReadAfterWrite, (2, 95), (0, 102)),
            (ReadAfterWrite, (1, 104), (0, 110)),
            // Between warps: warp 0 read s[32] (k = 32) before warp 1 wrote it (k = 64).
            (WriteAfterRead, (0, 66), (32, 59)),
        ],
        "{reports:#?}"
    );
    assert!(
        reports.iter().all(|r| r.block == X),
        "the first block in grid order"
    );
    let text = reports[0].to_string();
    assert!(
        text.starts_with("========= Error: Race reported between Write access and Read access (RAW hazard at __shared__ 0x40, 4 bytes) in block (0,0,0)\n"),
        "{text}"
    );
}

#[test]
fn racecheck_within_a_warp_without_syncwarp() {
    for engine in ENGINES {
        racecheck_within_a_warp_without_syncwarp_on(engine);
    }
}

fn racecheck_within_a_warp_without_syncwarp_on(engine: Engine) {
    let (mut dev, m) = common::sanitizer::setup("racecheck", "bugs", engine);
    let input = dev.alloc(128).unwrap();
    dev.memset(input, 1, 128).unwrap();
    let out = dev.alloc(128).unwrap();
    let args = [KernelArg::Ptr(input), KernelArg::Ptr(out)];
    launch(
        &dev,
        m,
        "warp_neighbor_missing_syncwarp",
        x(1),
        x(32),
        &args,
    )
    .unwrap();
    let reports = dev.take_reports();
    let got: Vec<_> = reports.iter().map(race).collect();
    assert_eq!(got, [(Hazard::ReadAfterWrite, (1, 152), (0, 159))]);
}

#[test]
fn racecheck_the_same_flag_written_by_two_warps() {
    for engine in ENGINES {
        racecheck_the_same_flag_written_by_two_warps_on(engine);
    }
}

fn racecheck_the_same_flag_written_by_two_warps_on(engine: Engine) {
    let (mut dev, m) = common::sanitizer::setup("racecheck", "bugs", engine);
    let out = dev.alloc(256).unwrap();
    launch(
        &dev,
        m,
        "flag_written_by_every_warp",
        x(2),
        x(64),
        &[KernelArg::Ptr(out)],
    )
    .unwrap();
    let reports = dev.take_reports();
    let got: Vec<_> = reports.iter().map(race).collect();
    assert_eq!(got, [(Hazard::WriteAfterWrite, (0, 456), (32, 456))]);
}

#[test]
fn reports_are_the_same_whatever_the_thread_scheduling() {
    let mut seen = Vec::new();
    for _ in 0..3 {
        let (mut dev, m) = setup("racecheck,initcheck", "bugs");
        let input = floats(&mut dev, (0..128 * 16).map(|i| i as f32));
        let out = dev.alloc(64).unwrap();
        let args = [KernelArg::Ptr(input), KernelArg::Ptr(out)];
        launch(&dev, m, "reduce_missing_sync", x(16), x(128), &args).unwrap();
        let text: Vec<String> = dev.take_reports().iter().map(|r| r.to_string()).collect();
        seen.push(text);
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]));
}

// ---- synccheck ---------------------------------------------------------------

#[test]
fn synccheck_barrier_count_not_a_multiple_of_32() {
    for engine in ENGINES {
        synccheck_barrier_count_not_a_multiple_of_32_on(engine);
    }
}

fn synccheck_barrier_count_not_a_multiple_of_32_on(engine: Engine) {
    let (mut dev, m) = common::sanitizer::setup("synccheck", "bugs", engine);
    let out = dev.alloc(256).unwrap();
    launch(
        &dev,
        m,
        "barrier_count_not_warp_multiple",
        x(1),
        x(64),
        &[KernelArg::Ptr(out)],
    )
    .unwrap();
    let reports = dev.take_reports();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(
        brief(&reports[0]),
        (ReportKind::Sync(SyncError::CountNotWarpMultiple), X, X, 394)
    );
}

#[test]
fn synccheck_shuffle_member_mask_missing_executing_lanes() {
    for engine in ENGINES {
        synccheck_shuffle_member_mask_missing_executing_lanes_on(engine);
    }
}

fn synccheck_shuffle_member_mask_missing_executing_lanes_on(engine: Engine) {
    let (mut dev, m) = common::sanitizer::setup("synccheck", "bugs", engine);
    let input = dev.alloc(128).unwrap();
    dev.memset(input, 0, 128).unwrap();
    let out = dev.alloc(128).unwrap();
    let args = [KernelArg::Ptr(input), KernelArg::Ptr(out)];
    launch(&dev, m, "shuffle_mask_misses_lanes", x(1), x(32), &args).unwrap();
    let reports = dev.take_reports();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(
        brief(&reports[0]),
        (ReportKind::Sync(SyncError::MaskMissesLanes), X, at(16), 430)
    );
}

#[test]
fn synccheck_ballot_naming_lanes_that_do_not_execute_it() {
    for engine in ENGINES {
        synccheck_ballot_naming_lanes_that_do_not_execute_it_on(engine);
    }
}

fn synccheck_ballot_naming_lanes_that_do_not_execute_it_on(engine: Engine) {
    let (mut dev, m) = common::sanitizer::setup("synccheck", "bugs", engine);
    let input = dev.alloc(128).unwrap();
    dev.memset(input, 1, 128).unwrap();
    let out = dev.alloc(128).unwrap();
    let args = [KernelArg::Ptr(input), KernelArg::Ptr(out)];
    launch(&dev, m, "ballot_in_divergent_branch", x(1), x(32), &args).unwrap();
    let reports = dev.take_reports();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(
        brief(&reports[0]),
        (ReportKind::Sync(SyncError::MaskNamesAbsentLanes), X, X, 501)
    );
    assert!(
        reports[0].detail.contains("names lanes 0xffff0000"),
        "{}",
        reports[0].detail
    );
}

// ---- correct kernels ---------------------------------------------------------

#[test]
fn correct_kernels_make_no_report_with_every_check() {
    for engine in ENGINES {
        correct_kernels_make_no_report_with_every_check_on(engine);
    }
}

fn correct_kernels_make_no_report_with_every_check_on(engine: Engine) {
    let (mut dev, m) = common::sanitizer::setup("all", "correct", engine);
    let n = 64 * 64;
    let input = floats(&mut dev, (0..n).map(|i| i as f32));
    let out = dev.alloc(n as u64 * 4).unwrap();
    // reduce: 32 blocks of 128.
    launch(
        &dev,
        m,
        "reduce",
        x(32),
        x(128),
        &[KernelArg::Ptr(input), KernelArg::Ptr(out)],
    )
    .unwrap();
    let mut sums = vec![0u8; 32 * 4];
    dev.read(out, &mut sums).unwrap();
    let first = f32::from_le_bytes(sums[..4].try_into().unwrap());
    assert_eq!(first, (0..128).sum::<i32>() as f32);
    // transpose: 64 x 64 in 32 x 32 tiles.
    let args = [
        KernelArg::Ptr(input),
        KernelArg::Ptr(out),
        KernelArg::I32(64),
        KernelArg::I32(64),
    ];
    launch(&dev, m, "transpose", [2, 2, 1], [32, 8, 1], &args).unwrap();
    let mut t = vec![0u8; 4 * n as usize];
    dev.read(out, &mut t).unwrap();
    let at = |i: usize| f32::from_le_bytes(t[4 * i..4 * i + 4].try_into().unwrap());
    assert_eq!((at(1), at(64)), (64.0, 1.0));
    // warp_neighbor: with its __syncwarp.
    launch(
        &dev,
        m,
        "warp_neighbor",
        x(1),
        x(32),
        &[KernelArg::Ptr(input), KernelArg::Ptr(out)],
    )
    .unwrap();
    // warp_sum: shuffles with the full mask, one atomic per warp.
    let sum = dev.alloc(4).unwrap();
    dev.memset(sum, 0, 4).unwrap();
    let args = [
        KernelArg::Ptr(input),
        KernelArg::Ptr(sum),
        KernelArg::I32(100),
    ];
    launch(&dev, m, "warp_sum", x(2), x(64), &args).unwrap();
    // broadcast: one writer, a barrier, every thread reads.
    let args = [KernelArg::Ptr(input), KernelArg::Ptr(out)];
    launch(&dev, m, "broadcast", x(8), x(128), &args).unwrap();
    let reports = dev.take_reports();
    assert!(reports.is_empty(), "{reports:#?}");
}

#[test]
fn checked_launches_compute_what_unchecked_ones_do() {
    for engine in ENGINES {
        checked_launches_compute_what_unchecked_ones_do_on(engine);
    }
}

fn checked_launches_compute_what_unchecked_ones_do_on(engine: Engine) {
    let run = |checks: &str| {
        let (mut dev, m) = common::sanitizer::setup(checks, "correct", engine);
        let input = floats(&mut dev, (0..4096).map(|i| (i % 97) as f32));
        let out = dev.alloc(4096 * 4).unwrap();
        let args = [
            KernelArg::Ptr(input),
            KernelArg::Ptr(out),
            KernelArg::I32(64),
            KernelArg::I32(64),
        ];
        launch(&dev, m, "transpose", [2, 2, 1], [32, 8, 1], &args).unwrap();
        let mut t = vec![0u8; 4096 * 4];
        dev.read(out, &mut t).unwrap();
        t
    };
    assert_eq!(run(""), run("all"));
}

#[test]
fn timed_launches_refuse_checks() {
    let (mut dev, m) = setup("memcheck", "correct");
    let input = floats(&mut dev, (0..128).map(|i| i as f32));
    let out = dev.alloc(4).unwrap();
    let k = dev.kernel(m, Some("reduce")).unwrap();
    let params = dev
        .params(m, k, &[KernelArg::Ptr(input), KernelArg::Ptr(out)])
        .unwrap();
    let arch = warpjit::timing::Arch::builtin("sm_80").unwrap();
    let t = warpjit::runtime::TimingOptions::new(arch);
    let cfg = LaunchConfig {
        grid: x(1),
        block: x(128),
        shared_bytes: 0,
    };
    let r = dev.launch_timed(m, k, cfg, &params, &t);
    assert!(
        matches!(r, Err(Error::InvalidArgument(ref s)) if s.contains("sanitizer")),
        "{r:?}"
    );
}

// ---- the command line --------------------------------------------------------

fn warpjit(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_warpjit"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn cli_check_reports_to_stderr_and_fails() {
    let dir = std::env::temp_dir().join(format!("warpjit-san-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tile: Vec<u8> = (0..64).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let input = dir.join("in.bin");
    std::fs::write(&input, tile).unwrap();
    let bugs = common::repo_root().join("ptx-samples/sanitizer/bugs.ptx");
    let out = dir.join("out.bin");
    let base = [
        "run",
        bugs.to_str().unwrap(),
        "--kernel",
        "half_loaded_tile",
        "--grid",
        "1",
        "--block",
        "64",
    ];
    let inp = format!("in:{}", input.display());
    let outp = format!("out:256:{}", out.display());
    let args = [&base[..], &["--arg", &inp, "--arg", &outp]].concat();
    // Unchecked: success, nothing reported.
    let o = warpjit(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("ERROR SUMMARY"));
    // Repeated and comma-separated.
    let o = warpjit(
        &[
            &args[..],
            &["--check", "memcheck,racecheck", "--check", "initcheck"],
        ]
        .concat(),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("========= Uninitialized __shared__ memory read of size 4 bytes"),
        "{err}"
    );
    assert!(err.contains("bugs.ptx:369:"), "{err}");
    assert!(err.ends_with("========= ERROR SUMMARY: 1 error\n"), "{err}");
    // Clean with the checks that find nothing here.
    let o = warpjit(&[&args[..], &["--check", "synccheck"]].concat());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("ERROR SUMMARY: 0 errors"), "{err}");
    // A bad name is a usage error.
    let o = warpjit(&[&args[..], &["--check", "memchek"]].concat());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("`memchek` is not a check"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
