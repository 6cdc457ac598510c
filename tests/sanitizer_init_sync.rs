//! Initcheck and synccheck on the suite's kernels (NVRTC output).
//!
//! ptx-samples/sanitizer/bugs_init.cu reads memory never written: global
//! counts and outputs the host did not zero (through atomics and plain
//! loads), a shared accumulator and a halo never set, the unset tail of a
//! partial block, a pitched matrix's padding, a buffer copied one element
//! short, device-heap memory. bugs_sync.cu misuses barriers and
//! warp-synchronous operations: wrong `__syncwarp` masks, shuffles, ballots,
//! matches and reductions in divergent code naming absent lanes, a named
//! barrier whose count is below its arrivals, `__syncthreads()` in
//! lane- and warp-divergent branches, a named barrier whose counts differ
//! between warps, a half-warp broadcast reading a lane outside its member
//! mask, and a `cp.async` whose source size exceeds the copy. Each test
//! asserts the exact reports (kind, block, thread, PTX line, and address
//! or message), the same on both engines.

mod common;

use common::sanitizer::*;
use warpjit::runtime::{Device, KernelArg as A};
use warpjit::sanitizer::{Report, ReportKind, SyncError};
use warpjit::Error;

fn seq(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32).collect()
}

/// Runs `kernel` of `module` with `check` on each engine; returns the
/// launch's outcome (Ok, or the error's text) and reports, checking both
/// engines agree on them.
fn run_checked(
    check: &str,
    module: &str,
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
    mut args: impl FnMut(&mut Device) -> Vec<A>,
) -> (Result<(), String>, Vec<Report>) {
    let mut first: Option<(Result<(), String>, Vec<String>)> = None;
    let mut last = None;
    for engine in ENGINES {
        let (mut dev, m) = setup(check, module, engine);
        let args = args(&mut dev);
        let r = launch(&dev, m, kernel, grid, block, &args)
            .map(|_| ())
            .map_err(|e| e.to_string());
        let reports = dev.take_reports();
        let text = reports.iter().map(|r| r.to_string()).collect();
        match &first {
            None => first = Some((r.clone(), text)),
            Some(f) => assert_eq!(f, &(r.clone(), text), "{engine:?}"),
        }
        last = Some((r, reports));
    }
    last.unwrap()
}

// ---- initcheck ---------------------------------------------------------------

const INIT: &str = "bugs_init";
const UNINIT: ReportKind = ReportKind::UninitializedRead;

/// One initcheck report, which is returned.
fn one_uninit(
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
    args: impl FnMut(&mut Device) -> Vec<A>,
) -> Report {
    let (r, mut reports) = run_checked("initcheck", INIT, kernel, grid, block, args);
    r.unwrap();
    assert_eq!(reports.len(), 1, "{reports:#?}");
    reports.remove(0)
}

#[test]
fn histogram_atomics_on_counts_never_zeroed() {
    let kernel = "histogram_counts_not_zeroed";
    let data: Vec<u8> = (0..100).map(|i| (i * 7 % 16) as u8).collect();
    let mut counts = 0;
    let r = one_uninit(kernel, x(2), x(64), |d| {
        let dv = upload(d, &data, |b| vec![b]);
        counts = d.alloc(64).unwrap();
        vec![A::Ptr(dv), A::Ptr(counts), A::I32(100)]
    });
    assert_eq!(brief(&r), (UNINIT, X, X, 65));
    assert_eq!((r.space, r.size, r.address), ("global", 4, counts));
    assert_eq!(
        r.detail,
        format!("is 0 bytes inside a 64-byte allocation at {counts:#x}, never written")
    );
    let text = r.to_string();
    assert!(
        text.starts_with("========= Uninitialized __global__ memory read of size 4 bytes\n"),
        "{text}"
    );
    assert!(text.contains("atom.global.add.u32"), "{text}");
    // Every block's atomics find the counts unset (an atomic leaves unset
    // bytes unset), so the report is block 0's whatever ran first.
    for _ in 0..3 {
        let again = one_uninit(kernel, x(2), x(64), |d| {
            let dv = upload(d, &data, |b| vec![b]);
            vec![A::Ptr(dv), A::Ptr(d.alloc(64).unwrap()), A::I32(100)]
        });
        assert_eq!(again.to_string(), r.to_string());
    }
    // Zeroed first (the fix), no report; the counts are right.
    for engine in ENGINES {
        let (mut dev, m) = setup("initcheck", INIT, engine);
        let dv = upload(&mut dev, &data, |b| vec![b]);
        let counts = zeroed(&mut dev, 64);
        let args = [A::Ptr(dv), A::Ptr(counts), A::I32(100)];
        launch(&dev, m, kernel, x(2), x(64), &args).unwrap();
        assert!(dev.take_reports().is_empty(), "{engine:?}");
        let mut want = vec![0u32; 16];
        data.iter().for_each(|&b| want[(b & 15) as usize] += 1);
        assert_eq!(read_u32(&dev, counts, 16), want, "{engine:?}");
    }
}

#[test]
fn accumulating_into_an_output_never_zeroed() {
    let mut out = 0;
    let r = one_uninit("accumulate_into_unset_output", x(2), x(64), |d| {
        let xs = floats(d, &seq(100));
        out = d.alloc(400).unwrap();
        vec![A::Ptr(xs), A::F32(2.0), A::Ptr(out), A::I32(100)]
    });
    assert_eq!(brief(&r), (UNINIT, X, X, 110));
    assert_eq!(r.address, out);
    assert_eq!(
        r.detail,
        format!("is 0 bytes inside a 400-byte allocation at {out:#x}, never written")
    );
    assert_eq!(cu_line(&r), "bugs_init.cu:16");
}

/// The atomics read the unset accumulator, and what they leave derives
/// from it: the sum read after the barrier is unset too.
#[test]
fn shared_accumulator_never_zeroed_before_its_atomics() {
    let (r, reports) = run_checked(
        "initcheck",
        INIT,
        "shared_sum_not_zeroed",
        x(2),
        x(64),
        |d| vec![A::Ptr(floats(d, &seq(128))), A::Ptr(d.alloc(8).unwrap())],
    );
    r.unwrap();
    let got: Vec<_> = reports
        .iter()
        .map(|r| (brief(r), r.space, r.address))
        .collect();
    assert_eq!(
        got,
        [
            ((UNINIT, X, X, 148), "shared", 0),
            ((UNINIT, X, X, 158), "shared", 0)
        ]
    );
    assert_eq!(
        reports[0].detail,
        "(shared memory offset, never written in this block)"
    );
    assert!(reports[0].to_string().contains("atom.shared.add.f32"));
    assert!(reports[1].to_string().contains("ld.shared.f32"));
}

#[test]
fn stencil_halo_cells_never_loaded() {
    let (r, reports) = run_checked(
        "initcheck",
        INIT,
        "stencil_halo_not_loaded",
        x(2),
        x(64),
        |d| vec![A::Ptr(floats(d, &seq(128))), A::Ptr(d.alloc(512).unwrap())],
    );
    r.unwrap();
    let got: Vec<_> = reports.iter().map(|r| (brief(r), r.address)).collect();
    // The tile is at shared offset 0 (the kernel's own layout: the other
    // kernels' shared arrays overlap it): thread 0 reads tile[0], thread
    // 63 tile[65].
    assert_eq!(
        got,
        [
            ((UNINIT, X, X, 202), 0x0),
            ((UNINIT, X, at(63), 206), 0x104)
        ]
    );
}

#[test]
fn partial_last_block_reduces_slots_never_loaded() {
    let r = one_uninit("reduce_partial_block_unset_tail", x(2), x(128), |d| {
        vec![
            A::Ptr(floats(d, &seq(200))),
            A::Ptr(d.alloc(8).unwrap()),
            A::I32(200),
        ]
    });
    // Block 1 holds elements 128 to 199: thread 8 adds s[72], element 200.
    assert_eq!(brief(&r), (UNINIT, at(1), at(8), 264));
    assert_eq!(r.space, "shared");
    assert_eq!(cu_line(&r), "bugs_init.cu:50");
}

#[test]
fn row_sums_read_the_pitch_padding() {
    let mut m = 0;
    let (r, reports) = run_checked(
        "initcheck",
        INIT,
        "row_sum_reads_padding",
        x(1),
        x(32),
        |d| {
            // 4 rows of 6 floats, in rows of 8 (32 bytes).
            m = d.alloc(4 * 32).unwrap();
            for row in 0..4u64 {
                let bytes: Vec<u8> = (0..6).flat_map(|c| (c as f32).to_le_bytes()).collect();
                d.write(m + row * 32, &bytes).unwrap();
            }
            vec![
                A::Ptr(m),
                A::Ptr(d.alloc(16).unwrap()),
                A::I32(6),
                A::I32(8),
                A::I32(4),
            ]
        },
    );
    r.unwrap();
    // Columns 6 and 7 of row 0, read by two instructions of the unrolled
    // loop.
    let got: Vec<_> = reports.iter().map(|r| (brief(r), r.address)).collect();
    assert_eq!(
        got,
        [((UNINIT, X, X, 413), m + 24), ((UNINIT, X, X, 415), m + 28)]
    );
    assert_eq!(
        reports[0].detail,
        format!("is 24 bytes inside a 128-byte allocation at {m:#x}, never written")
    );
}

#[test]
fn dot_product_of_a_vector_copied_one_element_short() {
    let mut y = 0;
    let r = one_uninit("dot_product", x(2), x(64), |d| {
        let xs = floats(d, &seq(256));
        y = d.alloc(1024).unwrap();
        d.write(y, &[0u8; 1020]).unwrap();
        vec![A::Ptr(xs), A::Ptr(y), A::Ptr(zeroed(d, 4)), A::I32(256)]
    });
    // Element 255 is thread 63's of block 1.
    assert_eq!(brief(&r), (UNINIT, at(1), at(63), 496));
    assert_eq!(r.address, y + 1020);
    assert_eq!(
        r.detail,
        format!("is 1020 bytes inside a 1024-byte allocation at {y:#x}, never written")
    );
}

#[test]
fn device_malloc_scratch_never_cleared() {
    let (r, reports) = run_checked(
        "initcheck",
        INIT,
        "device_malloc_not_cleared",
        x(1),
        x(32),
        |d| {
            let i = ints(d, &[1; 32 * 8]);
            vec![A::Ptr(i), A::Ptr(d.alloc(128).unwrap()), A::I32(8)]
        },
    );
    r.unwrap();
    // The heap is the module's first allocation, 16 bytes a block: thread
    // 0's block is at its start, each slot read by its own instruction.
    let heap = 0x1000_0000_0100u64;
    let got: Vec<_> = reports.iter().map(|r| (brief(r), r.address)).collect();
    let want: Vec<_> = (0..4)
        .map(|k| ((UNINIT, X, X, 646 + k as u32), heap + 4 * k))
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        reports[3].detail,
        format!("is 12 bytes inside a 8388608-byte allocation at {heap:#x}, never written")
    );
}

// ---- synccheck ---------------------------------------------------------------

const SYNC: &str = "bugs_sync";

/// One synccheck report of a launch that completes, which is returned.
fn one_sync(kernel: &str, block: [u32; 3], args: impl FnMut(&mut Device) -> Vec<A>) -> Report {
    let (r, mut reports) = run_checked("synccheck", SYNC, kernel, x(1), block, args);
    r.unwrap();
    assert_eq!(reports.len(), 1, "{reports:#?}");
    reports.remove(0)
}

fn in_out(d: &mut Device) -> Vec<A> {
    let i = ints(d, &(0..128).collect::<Vec<_>>());
    vec![A::Ptr(i), A::Ptr(d.alloc(512).unwrap())]
}

#[test]
fn syncwarp_mask_of_the_lower_half_executed_by_the_upper_half() {
    let r = one_sync("half_warp_syncwarp_wrong_mask", x(32), in_out);
    assert_eq!(
        brief(&r),
        (ReportKind::Sync(SyncError::MaskMissesLanes), X, at(16), 47)
    );
    assert_eq!(
        r.detail,
        "member mask 0x0000ffff of a warp-synchronous instruction does not include the executing lane 16"
    );
    assert!(r.to_string().starts_with(
        "========= Warp-synchronous error detected. Invalid member mask: member mask 0x0000ffff"
    ));
    assert_eq!(
        r.access.as_ref().unwrap().source_line,
        "bar.warp.sync \t65535;"
    );
}

#[test]
fn full_mask_shuffles_inside_a_bounds_guard() {
    let (r, reports) = run_checked(
        "synccheck",
        SYNC,
        "shuffle_inside_bounds_guard",
        x(1),
        x(64),
        |d| {
            let i = floats(d, &[1.0; 40]);
            vec![A::Ptr(i), A::Ptr(d.alloc(16).unwrap()), A::I32(40)]
        },
    );
    r.unwrap();
    // Each of the five unrolled shuffles, in warp 1 where lanes 0 to 7
    // (threads 32 to 39) are in bounds.
    let got: Vec<_> = reports.iter().map(brief).collect();
    let absent = ReportKind::Sync(SyncError::MaskNamesAbsentLanes);
    let want: Vec<_> = [96, 101, 106, 110, 115]
        .into_iter()
        .map(|line| (absent, X, at(32), line))
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        reports[0].detail,
        "member mask 0xffffffff names lanes 0xffffff00 that do not execute this warp-synchronous instruction (executing: 0x000000ff)"
    );
}

#[test]
fn full_mask_ballot_in_a_loop_lanes_leave_early() {
    let r = one_sync("ballot_in_data_dependent_loop", x(32), |d| {
        let work: Vec<i32> = (0..32).map(|i| 1 + i % 3).collect();
        vec![A::Ptr(ints(d, &work)), A::Ptr(d.alloc(128).unwrap())]
    });
    // Second trip: the lanes with one item of work (every third) left.
    let absent = ReportKind::Sync(SyncError::MaskNamesAbsentLanes);
    assert_eq!(brief(&r), (absent, X, at(1), 223));
    assert!(r.detail.contains("names lanes 0x49249249"), "{}", r.detail);
    assert!(r.detail.contains("(executing: 0xb6db6db6)"), "{}", r.detail);
}

#[test]
fn match_any_in_a_branch_naming_the_whole_warp() {
    let r = one_sync("match_any_in_divergent_branch", x(32), |d| {
        let keys: Vec<i32> = (0..32)
            .map(|i| if i % 5 == 4 { -1 } else { i % 3 })
            .collect();
        vec![A::Ptr(ints(d, &keys)), A::Ptr(d.alloc(128).unwrap())]
    });
    let absent = ReportKind::Sync(SyncError::MaskNamesAbsentLanes);
    assert_eq!(brief(&r), (absent, X, X, 275));
    assert!(r.detail.contains("names lanes 0x21084210"), "{}", r.detail);
    assert!(r.to_string().contains("match.any.sync.b32"));
}

#[test]
fn reduce_add_with_the_active_mask_taken_before_the_branch() {
    let r = one_sync("reduce_add_with_stale_active_mask", x(32), |d| {
        let v: Vec<i32> = (0..32).map(|i| i % 4).collect();
        vec![A::Ptr(ints(d, &v)), A::Ptr(d.alloc(128).unwrap())]
    });
    let absent = ReportKind::Sync(SyncError::MaskNamesAbsentLanes);
    assert_eq!(brief(&r), (absent, X, at(1), 321));
    assert!(r.detail.contains("names lanes 0x11111111"), "{}", r.detail);
    assert!(r.to_string().contains("redux.sync.add.s32"));
}

#[test]
fn named_barrier_count_below_the_threads_arriving() {
    let r = one_sync("named_barrier_count_too_small", x(96), in_out);
    assert_eq!(
        brief(&r),
        (
            ReportKind::Sync(SyncError::CountBelowArrivals),
            X,
            at(64),
            370
        )
    );
    assert_eq!(
        r.detail,
        "barrier thread count 64 is smaller than the 96 threads arriving at it"
    );
    assert!(r.to_string().starts_with(
        "========= Barrier error detected. Invalid arguments: barrier thread count 64"
    ));
}

/// A barrier reached by half a warp, the other half skipping to the end of
/// the kernel: synccheck keeps CUDA's rule (a barrier in conditional code
/// must be reached by the whole block), fails the launch and reports it;
/// without synccheck the odd lanes, with nothing left to do, exit and the
/// barrier completes without them, as from Volta on.
#[test]
fn syncthreads_taken_by_the_even_lanes_only() {
    let kernel = "syncthreads_in_lane_divergent_branch";
    let (r, reports) = run_checked("synccheck", SYNC, kernel, x(1), x(64), in_out);
    let e = r.unwrap_err();
    assert!(e.contains("divergent barrier"), "{e}");
    assert_eq!(reports.len(), 1, "{reports:#?}");
    let r = &reports[0];
    assert_eq!(
        brief(r),
        (ReportKind::Sync(SyncError::DivergentWarp), X, X, 427)
    );
    assert_eq!(
        r.detail,
        "only lanes 0x55555555 of warp 0 reached it, live lanes are 0xffffffff"
    );
    assert!(r.to_string().starts_with(
        "========= Barrier error detected. Divergent thread(s) in warp: only lanes 0x55555555"
    ));
    let (r, reports) = run_checked("racecheck", SYNC, kernel, x(1), x(64), in_out);
    assert!(r.is_ok() && reports.is_empty(), "{r:?} {reports:#?}");
}

/// Warps meeting at two different `__syncthreads()`: the barrier completes
/// (the same barrier 0), and synccheck names both instructions.
#[test]
fn syncthreads_in_branches_on_the_warp_index() {
    let kernel = "syncthreads_in_warp_divergent_branches";
    let r = one_sync(kernel, x(64), in_out);
    assert_eq!(
        brief(&r),
        (ReportKind::Sync(SyncError::DivergentBlock), X, at(32), 488)
    );
    let other = r.other.as_ref().unwrap();
    assert_eq!((other.thread, other.line), (X, 480));
    assert_eq!(
        r.detail,
        "threads of the block wait at barrier 0 at two different instructions"
    );
    let text = r.to_string();
    assert!(
        text.starts_with("========= Barrier error detected. Divergent thread(s) in block: "),
        "{text}"
    );
    assert!(
        text.contains("=========     while thread (0,0,0) waits\n")
            && text.contains("bugs_sync.cu:96\n")
            && text.contains("bugs_sync.ptx:480:2: bar.sync \t0;"),
        "{text}"
    );
    // One report per launch, not per round or block.
    let (mut dev, m) = setup("synccheck", SYNC, warpjit::runtime::Engine::Jit);
    let args = in_out(&mut dev);
    launch(&dev, m, kernel, x(4), x(64), &args).unwrap();
    assert_eq!(dev.take_reports().len(), 1);
    let Err(Error::Launch(_)) = launch(
        &dev,
        m,
        "syncthreads_in_lane_divergent_branch",
        x(1),
        x(64),
        &args,
    ) else {
        panic!("a divergent barrier is a launch error")
    };
}

/// A producer warp waiting at named barrier 1 with a count of 64 and two
/// consumer warps with 96: the round completes (96 threads of the last
/// count arrived), and synccheck names both instructions.
#[test]
fn named_barrier_counts_differ_between_warps() {
    let (r, reports) = run_checked(
        "synccheck",
        SYNC,
        "named_barrier_counts_differ",
        x(1),
        x(96),
        in_out,
    );
    r.unwrap();
    assert_eq!(reports.len(), 1, "{reports:#?}");
    let r = &reports[0];
    assert_eq!(
        brief(r),
        (ReportKind::Sync(SyncError::CountsDiffer), X, at(32), 555)
    );
    let other = r.other.as_ref().unwrap();
    assert_eq!((other.thread, other.line), (X, 546));
    assert_eq!(other.source_line, "bar.sync 1, 64;");
    assert_eq!(
        r.detail,
        "thread count 96 of barrier 1 differs from the count 64 of an earlier arrival in the same round"
    );
    let text = r.to_string();
    assert!(
        text.starts_with("========= Barrier error detected. Invalid arguments: thread count 96"),
        "{text}"
    );
    assert!(
        text.contains("bugs_sync.ptx:555:2: bar.sync 1, 96;")
            && text.contains("=========     while thread (0,0,0) arrives with another count\n")
            && text.contains("bugs_sync.ptx:546:2: bar.sync 1, 64;"),
        "{text}"
    );
}

/// Half-warp broadcasts from lane 0 without the width of 16: the upper
/// half's member mask (0xffff0000) leaves its source lane out.
#[test]
fn shuffle_source_lane_outside_the_member_mask() {
    let kernel = "half_warp_broadcast_without_width";
    let r = one_sync(kernel, x(32), in_out);
    assert_eq!(
        brief(&r),
        (ReportKind::Sync(SyncError::SourceNotMember), X, at(16), 600)
    );
    assert_eq!(
        r.detail,
        "lane 16 of a shuffle reads lane 0, which its member mask 0xffff0000 does not include"
    );
    assert!(r.to_string().starts_with(
        "========= Warp-synchronous error detected. Invalid member mask: lane 16 of a shuffle reads lane 0"
    ));
    assert!(r.to_string().contains("shfl.sync.idx.b32"));
    // Without synccheck (racecheck alone) nothing is reported.
    let (r, reports) = run_checked("racecheck", SYNC, kernel, x(1), x(32), in_out);
    assert!(r.is_ok() && reports.is_empty(), "{r:?} {reports:#?}");
}

/// `cp.async` of 16 bytes given the bytes left in the whole array as its
/// source size: synccheck reports the first lane (400 bytes left; the
/// copy reads 16).
#[test]
fn cp_async_source_size_larger_than_the_copy() {
    let kernel = "cp_async_src_size_not_clamped";
    let (r, reports) = run_checked("synccheck", SYNC, kernel, x(1), x(32), |d| {
        let i = floats(d, &seq(100));
        vec![A::Ptr(i), A::Ptr(d.alloc(128).unwrap()), A::I32(100)]
    });
    r.unwrap();
    assert_eq!(reports.len(), 1, "{reports:#?}");
    let r = &reports[0];
    assert_eq!(
        brief(r),
        (ReportKind::Sync(SyncError::CopySourceTooLarge), X, X, 642)
    );
    assert_eq!(
        r.detail,
        "cp.async source size 400 is larger than the copy size 16"
    );
    assert!(r.to_string().starts_with(
        "========= Asynchronous copy error detected. Invalid arguments: cp.async source size 400"
    ));
    assert_eq!(
        r.access.as_ref().unwrap().source_line,
        "cp.async.ca.shared.global [%r1], [%rd1], 16, %r2;"
    );
}
