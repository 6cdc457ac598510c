//! Racecheck and the memory model's release and acquire: the kernels of
//! ptx-samples/sanitizer/race_order.cu (NVRTC output, compute_70, libcu++'s
//! `cuda::atomic_ref`) publish a shared table from warp 0 to warp 1 through
//! a flag, warp 0's lanes synchronized by `__syncwarp` before its lane 0
//! raises the flag. With relaxed atomics the table's reads race with its
//! writes; with a release store and acquire loads they are ordered: no
//! report. A named barrier with a thread count orders only the threads it
//! names: a warp outside it that reads the table after a barrier of its own
//! races with the writer. Atomics do not race with each other but do with
//! plain accesses: a shared histogram read back without the barrier after
//! its atomics races. Both engines. (The compute_70 files of the corpus samples
//! `barrier_memcpy_async` and `pipeline_double_buffer`, whose
//! `cuda::barrier` is built from such atomics, make no report either:
//! tests/sanitizer_mbarrier.rs.)

mod common;

use common::sanitizer::*;
use warpjit::runtime::KernelArg as A;
use warpjit::sanitizer::Hazard;

const MODULE: &str = "race_order";

#[test]
fn a_flag_raised_and_read_with_relaxed_atomics_orders_nothing() {
    assert_races(
        MODULE,
        "flag_relaxed",
        x(2),
        x(64),
        |d| vec![A::Ptr(d.alloc(128).unwrap())],
        // Thread 32 reads table[31], written by thread 31 (st.shared,
        // line 951) before the relaxed flag store.
        &[(Hazard::ReadAfterWrite, X, (at(31), 951), (at(32), 1005))],
    );
}

#[test]
fn a_release_store_and_acquire_loads_order_the_table() {
    for engine in ENGINES {
        let (mut dev, m) = setup("racecheck", MODULE, engine);
        let out = dev.alloc(128).unwrap();
        launch(&dev, m, "flag_release_acquire", x(2), x(64), &[A::Ptr(out)]).unwrap();
        let reports = dev.take_reports();
        assert!(reports.is_empty(), "{engine:?}: {reports:#?}");
        let want: Vec<i32> = (0..32).map(|i| (31 - i) * 3 + 1).collect();
        assert_eq!(read_i32(&dev, out, 32), want, "{engine:?}");
    }
}

#[test]
fn a_named_barrier_orders_only_the_threads_it_names() {
    assert_races(
        MODULE,
        "named_barrier_outsider",
        x(1),
        x(96),
        |d| vec![A::Ptr(d.alloc(256).unwrap())],
        // Thread 64 (warp 2, after `bar.sync 2, 32`) reads table[31],
        // which thread 31 wrote before `bar.sync 1, 64`.
        &[(Hazard::ReadAfterWrite, X, (at(31), 1146), (at(64), 1192))],
    );
}

#[test]
fn a_histogram_read_before_the_barrier_after_its_atomics_races() {
    assert_races(
        MODULE,
        "histogram_read_too_early",
        x(2),
        x(128),
        |d| {
            let bytes: Vec<u8> = (0..512).map(|i| (i * 7 % 256) as u8).collect();
            let input = upload(d, &bytes, |b| vec![b]);
            vec![A::Ptr(input), A::I32(512), A::Ptr(d.alloc(256).unwrap())]
        },
        &[
            // Thread 28's atomicAdd on hist[4] (its byte 196), then thread
            // 4's plain read of it, in warp 0 without __syncwarp.
            (Hazard::ReadAfterWrite, X, (at(28), 1257), (at(4), 1273)),
            // Thread 3 read hist[3] before thread 37 (warp 1) added to it.
            (Hazard::WriteAfterRead, X, (at(3), 1273), (at(37), 1257)),
        ],
    );
}
