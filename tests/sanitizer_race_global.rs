//! Racecheck of global memory within a CTA, on the suite's kernels
//! (ptx-samples/sanitizer/race_global.cu, NVRTC output): an in-place scan
//! with the barrier between its read and its write missing, a neighbour
//! exchange through a global buffer without a barrier, and a counter
//! incremented by a plain read-modify-write; then the same kernels made
//! correct, and blocks racing with each other on one word (racecheck
//! compares the accesses of one block only), which make no report. Each
//! test asserts the exact reports (hazard, block, both accesses: thread and
//! PTX line; the device address) on both engines.

mod common;

use common::sanitizer::*;
use warpjit::runtime::KernelArg as A;
use warpjit::sanitizer::Hazard;

const MODULE: &str = "race_global";
const RAW: Hazard = Hazard::ReadAfterWrite;
const WAR: Hazard = Hazard::WriteAfterRead;
const WAW: Hazard = Hazard::WriteAfterWrite;

/// Runs `kernel` with racecheck on each engine: it completes, and its
/// reports are `want`, each a 4-byte global hazard at `base` plus the
/// given offset. Returns the reports' text (of the last engine).
fn assert_global_races(
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
    args: impl Fn(&mut warpjit::runtime::Device) -> (u64, Vec<A>),
    want: &[(Race, u64)],
) -> Vec<String> {
    let mut text = Vec::new();
    for engine in ENGINES {
        let (mut dev, m) = setup("racecheck", MODULE, engine);
        let (base, args) = args(&mut dev);
        launch(&dev, m, kernel, grid, block, &args).unwrap();
        let reports = dev.take_reports();
        let got: Vec<(Race, u64)> = reports
            .iter()
            .map(|r| (race(r), r.address - base))
            .collect();
        assert_eq!(got, want, "{engine:?}: {reports:#?}");
        for r in &reports {
            assert_eq!((r.kernel.as_str(), r.space, r.size), (kernel, "global", 4));
        }
        text = reports.iter().map(|r| r.to_string()).collect();
    }
    text
}

#[test]
fn global_scan_without_the_barrier_between_read_and_write() {
    let text = assert_global_races(
        "gscan_missing_barrier",
        x(2),
        x(128),
        |d| {
            let a = ints(d, &[1; 256]);
            (a, vec![A::Ptr(a)])
        },
        &[
            // Thread 0 writes s[0] after thread 1 (d = 1) read it, within
            // warp 0 and no __syncwarp between the instructions.
            ((WAR, X, (at(1), 56), (X, 62)), 0),
            // Warp 1 reads s[31], which warp 0 already updated.
            ((RAW, X, (at(31), 62), (at(32), 56)), 31 * 4),
        ],
    );
    assert!(
        text[0].starts_with("========= Error: Race reported between Read access and Write access (WAR hazard at __global__ 0x"),
        "{}",
        text[0]
    );
    assert!(
        text[0].contains("race_global.cu:12\n") && text[0].contains("race_global.cu:13\n"),
        "{}",
        text[0]
    );
}

#[test]
fn global_neighbour_read_before_the_barrier() {
    assert_global_races(
        "gneighbour_missing_barrier",
        x(2),
        x(64),
        |d| {
            let v: Vec<f32> = (0..100).map(|i| i as f32).collect();
            let i = floats(d, &v);
            let t = d.alloc(400).unwrap();
            let o = d.alloc(400).unwrap();
            (t, vec![A::Ptr(i), A::Ptr(t), A::Ptr(o), A::I32(100)])
        },
        &[
            // Lane 0 reads tmp[1], stored by lane 1 in an earlier instruction.
            ((RAW, X, (at(1), 118), (X, 137)), 4),
            // Warp 1 stores tmp[32] after lane 31 of warp 0 read it.
            ((WAR, X, (at(31), 137), (at(32), 118)), 32 * 4),
        ],
    );
}

#[test]
fn global_counter_incremented_without_an_atomic() {
    assert_global_races(
        "gcounter_plain_increment",
        x(2),
        x(128),
        |d| {
            let c = ints(d, &[0]);
            (c, vec![A::Ptr(c)])
        },
        &[
            // Warp 1's lane 0 reads and writes what warp 0's lane 0 wrote.
            ((RAW, X, (X, 173), (at(32), 171)), 0),
            ((WAW, X, (X, 173), (at(32), 173)), 0),
            ((WAR, X, (X, 171), (at(32), 173)), 0),
        ],
    );
}

#[test]
fn global_accesses_ordered_by_barriers_or_in_other_blocks_make_no_report() {
    for engine in ENGINES {
        let (mut dev, m) = setup("all", MODULE, engine);
        let a = ints(&mut dev, &[1; 256]);
        launch(&dev, m, "gscan_ok", x(2), x(128), &[A::Ptr(a)]).unwrap();
        let want: Vec<i32> = (0..256).map(|i| i % 128 + 1).collect();
        assert_eq!(read_i32(&dev, a, 256), want, "{engine:?}");

        let v: Vec<f32> = (0..100).map(|i| i as f32).collect();
        let i = floats(&mut dev, &v);
        let (t, o) = (dev.alloc(400).unwrap(), dev.alloc(400).unwrap());
        let args = [A::Ptr(i), A::Ptr(t), A::Ptr(o), A::I32(100)];
        launch(&dev, m, "gneighbour_ok", x(2), x(64), &args).unwrap();
        let want: Vec<f32> = (0..100)
            .map(|i| {
                let j = if i % 64 != 63 && i + 1 < 100 {
                    i + 1
                } else {
                    i
                };
                2.0 * (i as f32 + j as f32)
            })
            .collect();
        assert_eq!(read_f32(&dev, o, 100), want, "{engine:?}");

        let (w, out) = (dev.alloc(4).unwrap(), dev.alloc(32).unwrap());
        launch(
            &dev,
            m,
            "gblocks_share_a_word",
            x(8),
            x(64),
            &[A::Ptr(w), A::Ptr(out)],
        )
        .unwrap();
        assert_eq!(read_i32(&dev, out, 8), [7; 8], "{engine:?}");

        let reports = dev.take_reports();
        assert!(reports.is_empty(), "{engine:?}: {reports:#?}");
    }
}
