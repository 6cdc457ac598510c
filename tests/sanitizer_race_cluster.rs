//! Racecheck and the cluster barrier: the kernels of
//! ptx-samples/sanitizer/race_cluster.cu (NVRTC output, compute_90,
//! clusters of two CTAs from `__cluster_dims__`). Cooperative groups'
//! `cluster.sync()` (`barrier.cluster.arrive` + `wait`) ends the barrier
//! interval in every CTA of the cluster, as `__syncthreads()` does: a
//! shared-memory exchange ordered by it makes no report (it made two, a RAW
//! and a WAR hazard, while the cluster barrier did not end the interval),
//! and one whose read comes before it is still reported. Multicast bulk
//! copies (race_multicast.cu) are checked in each CTA they write into.
//! Both engines.

mod common;

use common::sanitizer::*;
use warpjit::runtime::KernelArg as A;
use warpjit::sanitizer::Hazard;

const MODULE: &str = "race_cluster";

fn input() -> Vec<i32> {
    (0..4 * 128).map(|i| i * 7 - 300).collect()
}

#[test]
fn a_cluster_barrier_orders_a_shared_exchange() {
    for engine in ENGINES {
        let (mut dev, m) = setup("racecheck", MODULE, engine);
        let inp = ints(&mut dev, &input());
        let out = zeroed(&mut dev, 4 * 128 * 4);
        launch(
            &dev,
            m,
            "cluster_exchange",
            x(4),
            x(128),
            &[A::Ptr(inp), A::Ptr(out)],
        )
        .unwrap();
        let reports = dev.take_reports();
        assert!(reports.is_empty(), "{engine:?}: {reports:#?}");
        let want: Vec<i32> = (0..4 * 128)
            .map(|i| input()[(i / 128) * 128 + 127 - i % 128] * 2)
            .collect();
        assert_eq!(read_i32(&dev, out, 4 * 128), want, "{engine:?}");
    }
}

#[test]
fn a_read_before_the_cluster_barrier_races() {
    assert_races(
        MODULE,
        "cluster_exchange_early",
        x(4),
        x(128),
        |d| {
            let inp = ints(d, &input());
            vec![A::Ptr(inp), A::Ptr(zeroed(d, 4 * 128 * 4))]
        },
        // In the same interval (warps 1 and 2 are not ordered): thread 64
        // writes s[64] (line 1061) after thread 63 read it (line 1067),
        // and reads s[63] after thread 63 wrote it.
        &[
            (Hazard::WriteAfterRead, X, (at(63), 1067), (at(64), 1061)),
            (Hazard::ReadAfterWrite, X, (at(63), 1061), (at(64), 1067)),
        ],
    );
}

/// ptx-samples/sanitizer/race_multicast.cu (compute_90a): multicast bulk
/// copies write into every CTA of the mask; their writes are checked in
/// the CTA they land in, ordered by that CTA's mbarrier.
const MULTICAST: &str = "race_multicast";

fn tile_input() -> Vec<i32> {
    (0..2 * 256).map(|i| i * 3 - 100).collect()
}

#[test]
fn multicast_copies_waited_for_make_no_report() {
    for engine in ENGINES {
        let (mut dev, m) = setup("all", MULTICAST, engine);
        let inp = ints(&mut dev, &tile_input());
        let out = zeroed(&mut dev, 4 * 256 * 4);
        launch(
            &dev,
            m,
            "multicast_ok",
            x(4),
            x(256),
            &[A::Ptr(inp), A::Ptr(out)],
        )
        .unwrap();
        let reports = dev.take_reports();
        assert!(reports.is_empty(), "{engine:?}: {reports:#?}");
        // Each CTA of cluster c holds tile c whole, from both CTAs' copies.
        let want: Vec<i32> = (0..4 * 256)
            .map(|i| tile_input()[(i / 512) * 256 + 255 - i % 256])
            .collect();
        assert_eq!(read_i32(&dev, out, 4 * 256), want, "{engine:?}");
    }
}

#[test]
fn a_read_before_the_multicast_wait_races() {
    assert_races(
        MULTICAST,
        "multicast_early",
        x(4),
        x(256),
        |d| {
            let inp = ints(d, &tile_input());
            vec![A::Ptr(inp), A::Ptr(zeroed(d, 4 * 256 * 4))]
        },
        // Rank 1's thread 0 reads tile[255], which its own copy (line 1365)
        // wrote, without waiting (line 1368). Rank 0's thread 0 reads the
        // same word before rank 1's copy writes it into rank 0: not
        // reported (threads are told apart within a CTA, and a copy's
        // writes come after what a thread of its index did before). The
        // same hazard in the second cluster is the same report.
        &[(Hazard::ReadAfterWrite, at(1), (X, 1365), (X, 1368))],
    );
}
