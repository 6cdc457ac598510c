//! Racecheck on the suite's kernels with shared-memory races
//! (ptx-samples/sanitizer/bugs_race.cu, NVRTC output): missing barriers in
//! a scan, a stencil, a tiled matrix product, a transpose, a sort and a
//! broadcast; plain read-modify-writes where atomics were needed
//! (histogram, maximum, queue tail); an in-place Jacobi step; a
//! warp-synchronous reduction without `__syncwarp`. Each test asserts the
//! exact list of reports (hazard, block, and both accesses: thread and PTX
//! line), the same on both engines (racecheck runs on the interpreter
//! whichever engine the device names).

mod common;

use common::sanitizer::*;
use warpjit::runtime::KernelArg as A;
use warpjit::sanitizer::Hazard;

const MODULE: &str = "bugs_race";
const RAW: Hazard = Hazard::ReadAfterWrite;
const WAR: Hazard = Hazard::WriteAfterRead;
const WAW: Hazard = Hazard::WriteAfterWrite;

fn seq(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32).collect()
}

fn scrambled(n: usize) -> Vec<i32> {
    (0..n).map(|i| (i as i32 * 37) % 101).collect()
}

#[test]
fn scan_without_the_barrier_between_read_and_write() {
    let text = assert_races(
        MODULE,
        "scan_missing_read_barrier",
        x(1),
        x(128),
        |d| vec![A::Ptr(ints(d, &[1; 128])), A::Ptr(d.alloc(512).unwrap())],
        &[
            // Thread 0 writes s[0] while thread 1 (d = 1) may still read it.
            (WAR, X, (at(1), 73), (X, 79)),
            // Warp 1 reads s[31], which warp 0 has already updated.
            (RAW, X, (at(31), 79), (at(32), 73)),
        ],
    );
    assert!(
        text[0].starts_with("========= Error: Race reported between Read access and Write access (WAR hazard at __shared__ 0x0, 4 bytes) in block (0,0,0)\n"),
        "{}",
        text[0]
    );
    assert!(
        text[0].contains("bugs_race.cu:17\n") && text[0].contains("bugs_race.cu:19\n"),
        "{}",
        text[0]
    );
}

#[test]
fn stencil_tile_read_before_the_barrier() {
    assert_races(
        MODULE,
        "stencil_tile_missing_barrier",
        x(2),
        x(64),
        |d| {
            let i = floats(d, &seq(128));
            vec![A::Ptr(i), A::Ptr(d.alloc(512).unwrap()), A::I32(128)]
        },
        &[
            // Within warp 0: lanes read their neighbours' cells.
            (RAW, X, (X, 133), (at(1), 170)),
            (RAW, X, (at(1), 133), (X, 173)),
            // Lane 31 read tile[33] before warp 1 loaded it.
            (WAR, X, (at(31), 173), (at(32), 133)),
        ],
    );
}

#[test]
fn matmul_tiles_overwritten_while_other_warps_read_them() {
    let n = 32;
    assert_races(
        MODULE,
        "matmul_missing_trailing_barrier",
        [2, 2, 1],
        [16, 16, 1],
        |d| {
            let a = floats(d, &seq(n * n));
            let b = floats(d, &seq(n * n));
            let c = d.alloc(4 * (n * n) as u64).unwrap();
            vec![A::Ptr(a), A::Ptr(b), A::Ptr(c), A::I32(n as i32)]
        },
        &[
            // The second tile of `a` overwrites as[0][2], which (15, 0)
            // read for the first.
            (WAR, X, ([15, 0, 0], 268), (X, 250)),
            (WAR, X, ([0, 1, 0], 267), (X, 257)),
            // Warp 1 reads bs[0][0] after warp 0 loaded the next tile.
            (RAW, X, (X, 257), ([0, 2, 0], 267)),
        ],
    );
}

#[test]
fn shared_histogram_incremented_without_atomics() {
    assert_races(
        MODULE,
        "histogram_plain_increment",
        x(2),
        x(64),
        |d| {
            let data: Vec<u8> = (0..128).map(|i| (i * 7 % 16) as u8).collect();
            let data = upload(d, &data, |b| vec![b]);
            vec![A::Ptr(data), A::Ptr(zeroed(d, 64)), A::I32(128)]
        },
        &[
            // Lanes 0 and 16 count into the same bin.
            (WAR, X, (at(16), 347), (X, 349)),
            (RAW, X, (at(16), 349), (at(32), 347)),
            (WAW, X, (at(16), 349), (at(32), 349)),
        ],
    );
}

#[test]
fn warp_synchronous_reduction_without_syncwarp() {
    let mut want = Vec::new();
    // Each unrolled step k reads s[t + k] that lane k wrote in the step
    // before, and lane k then overwrites what lane 0 read.
    for (k, line) in [(16, 413), (8, 418), (4, 423), (2, 428), (1, 433)] {
        want.push((RAW, X, (at(k), line), (X, line + 3)));
        want.push((WAR, X, (X, line + 3), (at(k), line + 5)));
    }
    assert_races(
        MODULE,
        "warp_reduce_without_syncwarp",
        x(2),
        x(64),
        |d| vec![A::Ptr(floats(d, &seq(128))), A::Ptr(d.alloc(8).unwrap())],
        &want,
    );
}

#[test]
fn broadcast_read_without_the_barrier() {
    let text = assert_races(
        MODULE,
        "broadcast_missing_barrier",
        x(2),
        x(64),
        |d| {
            let i = floats(d, &(1..=128).map(|v| v as f32).collect::<Vec<_>>());
            vec![A::Ptr(i), A::Ptr(d.alloc(512).unwrap())]
        },
        &[(RAW, X, (X, 496), (at(1), 487))],
    );
    assert!(text[0].contains("bugs_race.cu:98\n"), "{}", text[0]);
}

#[test]
fn transpose_reads_the_tile_before_the_other_warps_fill_it() {
    assert_races(
        MODULE,
        "transpose_missing_barrier",
        x(1),
        [32, 32, 1],
        |d| {
            let i = floats(d, &seq(1024));
            vec![A::Ptr(i), A::Ptr(d.alloc(4096).unwrap()), A::I32(32)]
        },
        &[
            // Warp 0 read tile[1][0] before warp 1 (row 1) wrote it ...
            (WAR, X, (at(1), 563), ([0, 1, 0], 553)),
            // ... and warp 1 reads tile[0][1], which warp 0 wrote.
            (RAW, X, (at(1), 553), ([0, 1, 0], 563)),
        ],
    );
}

#[test]
fn odd_even_sort_phases_without_barriers() {
    assert_races(
        MODULE,
        "odd_even_sort_missing_barrier",
        x(1),
        x(64),
        |d| vec![A::Ptr(ints(d, &scrambled(128)))],
        &[
            (RAW, X, (at(1), 621), (X, 615)),
            (WAW, X, (at(1), 621), (X, 623)),
            (WAR, X, (at(1), 616), (X, 623)),
            (RAW, X, (X, 623), (at(1), 616)),
            (WAW, X, (at(1), 623), (at(2), 621)),
            (WAR, X, (at(1), 615), (at(2), 621)),
        ],
    );
}

#[test]
fn jacobi_step_done_in_place() {
    assert_races(
        MODULE,
        "jacobi_in_place",
        x(1),
        x(64),
        |d| {
            let i = floats(d, &seq(64));
            vec![A::Ptr(i), A::Ptr(d.alloc(256).unwrap()), A::I32(2)]
        },
        &[
            (WAR, X, (at(2), 776), (at(1), 780)),
            (WAR, X, (at(30), 775), (at(31), 780)),
            (RAW, X, (at(31), 780), (at(32), 776)),
        ],
    );
}

#[test]
fn block_maximum_with_a_plain_compare_and_store() {
    assert_races(
        MODULE,
        "shared_max_plain_store",
        x(1),
        x(64),
        |d| vec![A::Ptr(ints(d, &scrambled(64))), A::Ptr(d.alloc(4).unwrap())],
        &[
            (WAR, X, (X, 843), (at(1), 850)),
            (RAW, X, (at(31), 850), (at(32), 843)),
            (WAW, X, (at(31), 850), (at(32), 850)),
        ],
    );
}

#[test]
fn queue_tail_claimed_without_atomics() {
    assert_races(
        MODULE,
        "shared_queue_plain_tail",
        x(1),
        x(64),
        |d| vec![A::Ptr(ints(d, &scrambled(64))), A::Ptr(d.alloc(4).unwrap())],
        &[
            (WAR, X, (at(29), 919), (at(1), 922)),
            (RAW, X, (at(29), 922), (at(32), 919)),
            (WAW, X, (at(29), 922), (at(32), 922)),
        ],
    );
}

/// Every block races the same way; the reports name the first block in
/// grid order, whatever the threads running the blocks.
#[test]
fn races_of_many_blocks_are_reported_once_for_the_first() {
    let mut seen = Vec::new();
    for _ in 0..2 {
        let text = assert_races(
            MODULE,
            "shared_max_plain_store",
            x(16),
            x(64),
            |d| {
                let i = ints(d, &scrambled(64 * 16));
                vec![A::Ptr(i), A::Ptr(d.alloc(64).unwrap())]
            },
            &[
                (WAR, X, (X, 843), (at(1), 850)),
                (RAW, X, (at(31), 850), (at(32), 843)),
                (WAW, X, (at(31), 850), (at(32), 850)),
            ],
        );
        seen.push(text);
    }
    assert_eq!(seen[0], seen[1]);
}
