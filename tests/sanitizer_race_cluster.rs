//! Racecheck and the cluster barrier: the kernels of
//! ptx-samples/sanitizer/race_cluster.cu (NVRTC output, compute_90,
//! clusters of two CTAs from `__cluster_dims__`). Cooperative groups'
//! `cluster.sync()` (`barrier.cluster.arrive` + `wait`) ends the barrier
//! interval in every CTA of the cluster, as `__syncthreads()` does: a
//! shared-memory exchange ordered by it makes no report (it made two, a RAW
//! and a WAR hazard, while the cluster barrier did not end the interval),
//! and one whose read comes before it is still reported. Both engines.

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
