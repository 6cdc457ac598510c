//! Racecheck and the memory model's release and acquire: the kernels of
//! ptx-samples/sanitizer/race_order.cu (NVRTC output, compute_70, libcu++'s
//! `cuda::atomic_ref`) publish a shared table from warp 0 to warp 1 through
//! a flag, warp 0's lanes synchronized by `__syncwarp` before its lane 0
//! raises the flag. With relaxed atomics the table's reads race with its
//! writes; with a release store and acquire loads they are ordered: no
//! report. A named barrier with a thread count orders only the threads it
//! names: a warp outside it that reads the table after a barrier of its own
//! races with the writer. Both engines. (The compute_70 files of the corpus samples
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
        // line 950) before the relaxed flag store.
        &[(Hazard::ReadAfterWrite, X, (at(31), 950), (at(32), 1004))],
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
        &[(Hazard::ReadAfterWrite, X, (at(31), 1145), (at(64), 1191))],
    );
}
