//! Asynchronous streams through the C ABI: host functions hold their
//! stream and the events behind it, events and cross-stream waits order
//! kernels, a captured stream replays as a graph, an event query
//! invalidates a capture, an asynchronous fault is sticky until its
//! context goes, and a short copy on an idle stream completes at once
//! while one behind other work keeps its place.

use std::ffi::{c_int, c_void};

mod common;
use common::api::*;
use common::*;

#[test]
fn a_host_function_holds_its_stream_and_the_events_behind_it() {
    let api = api();
    // SAFETY: the driver API with valid handles and pointers throughout.
    unsafe {
        let stream = api.stream();
        let (start, end) = (api.event(0), api.event(0));
        assert_eq!((api.event_query)(end), 0, "never recorded: complete");
        assert_eq!((api.event_record)(start, stream), 0);
        let release = hold(&api, stream);
        assert_eq!((api.event_record)(end, stream), 0);
        assert_eq!((api.event_query)(end), 600, "CUDA_ERROR_NOT_READY");
        assert_eq!((api.stream_query)(stream), 600);
        let mut ms = -1f32;
        assert_eq!((api.event_elapsed)(&mut ms, start, end), 600);
        release.send(()).unwrap();
        assert_eq!((api.event_synchronize)(end), 0);
        assert_eq!((api.event_query)(end), 0);
        assert_eq!((api.stream_query)(stream), 0);
        assert_eq!((api.event_elapsed)(&mut ms, start, end), 0);
        assert!(ms >= 0.0, "{ms}");
        // Timing disabled (CU_EVENT_DISABLE_TIMING): no elapsed time.
        let untimed = api.event(2);
        assert_eq!((api.event_record)(untimed, stream), 0);
        assert_eq!((api.event_elapsed)(&mut ms, start, untimed), 400);
        for e in [start, end, untimed] {
            assert_eq!((api.event_destroy)(e), 0);
        }
        assert_eq!((api.stream_destroy)(stream), 0);
        assert_eq!((api.stream_destroy)(stream), 400, "destroyed");
    }
}

#[test]
fn stream_wait_event_orders_kernels_on_two_streams() {
    let api = api();
    let n = 1000usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    // SAFETY: as above.
    unsafe {
        let (a, b) = (api.stream(), api.stream());
        let dx = api.buffer(&x);
        let dy = api.buffer(&vec![1.0; n]);
        let dz = api.buffer(&vec![0.0; n]);
        // Stream A, held: y = 2x + 1 is written only once it is released.
        let release = hold(&api, a);
        assert_eq!(api.saxpy(n as c_int, 2.0, dx, dy, a), 0);
        let written = api.event(0);
        assert_eq!((api.event_record)(written, a), 0);
        // Stream B reads y after that: z = 3y.
        assert_eq!((api.stream_wait)(b, written, 0), 0);
        assert_eq!(api.saxpy(n as c_int, 3.0, dy, dz, b), 0);
        assert_eq!((api.stream_query)(b), 600, "B waits for A");
        release.send(()).unwrap();
        assert_eq!((api.stream_synchronize)(b), 0);
        let want: Vec<f32> = x.iter().map(|v| 3.0 * (2.0 * v + 1.0)).collect();
        assert_eq!(api.read(dz, n), want);
        assert_eq!((api.event_destroy)(written), 0);
        assert_eq!((api.stream_destroy)(a), 0);
        assert_eq!((api.stream_destroy)(b), 0);
    }
}

#[test]
fn a_captured_graph_replays() {
    let api = api();
    let n = 512usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    // SAFETY: as above.
    unsafe {
        let stream = api.stream();
        let dx = api.buffer(&x);
        let dy = api.buffer(&vec![7.0; n]);
        let mut host: *mut c_void = std::ptr::null_mut();
        assert_eq!((api.host_alloc)(&mut host, n * 4, 0), 0);
        let out = std::slice::from_raw_parts_mut(host as *mut f32, n);
        // Captured: y = 1.0, y = 2.5 x + y, y copied to page-locked memory.
        assert_eq!((api.begin_capture)(stream, CAPTURE_THREAD_LOCAL), 0);
        let mut status = -1;
        assert_eq!((api.is_capturing)(stream, &mut status), 0);
        assert_eq!(status, 1, "CU_STREAM_CAPTURE_STATUS_ACTIVE");
        assert_eq!((api.memset32_async)(dy, 1f32.to_bits(), n, stream), 0);
        assert_eq!(api.saxpy(n as c_int, 2.5, dx, dy, stream), 0);
        assert_eq!((api.dtoh_async)(host, dy, n * 4, stream), 0);
        let mut graph: Handle = std::ptr::null_mut();
        assert_eq!((api.end_capture)(stream, &mut graph), 0);
        assert!(!graph.is_null());
        assert_eq!((api.is_capturing)(stream, &mut status), 0);
        assert_eq!(status, 0);
        assert_eq!((api.stream_synchronize)(stream), 0);
        assert_eq!(api.read(dy, n), vec![7.0; n], "captured work did not run");
        let mut exec: Handle = std::ptr::null_mut();
        assert_eq!((api.instantiate)(&mut exec, graph, 0), 0);
        for scale in [1.0f32, 3.0] {
            let x2: Vec<f32> = x.iter().map(|v| v * scale).collect();
            assert_eq!((api.htod_async)(dx, x2.as_ptr() as _, n * 4, stream), 0);
            assert_eq!((api.graph_launch)(exec, stream), 0);
            assert_eq!((api.stream_synchronize)(stream), 0);
            let want: Vec<f32> = x2.iter().map(|v| 2.5 * v + 1.0).collect();
            assert_eq!(out, &want[..], "replay with x scaled by {scale}");
        }
        assert_eq!((api.exec_destroy)(exec), 0);
        assert_eq!((api.graph_destroy)(graph), 0);
        assert_eq!((api.free_host)(host), 0);
        assert_eq!((api.stream_destroy)(stream), 0);
        // The legacy stream cannot capture.
        let legacy = std::ptr::null_mut();
        assert_eq!((api.begin_capture)(legacy, CAPTURE_THREAD_LOCAL), 900);
    }
}

#[test]
fn querying_a_captured_event_invalidates_the_capture() {
    let api = api();
    // SAFETY: as above.
    unsafe {
        let stream = api.stream();
        let event = api.event(0);
        assert_eq!((api.begin_capture)(stream, CAPTURE_THREAD_LOCAL), 0);
        assert_eq!((api.event_record)(event, stream), 0);
        assert_eq!((api.event_query)(event), 907, "CUDA_ERROR_CAPTURED_EVENT");
        let mut status = -1;
        assert_eq!((api.is_capturing)(stream, &mut status), 0);
        assert_eq!(status, 2, "CU_STREAM_CAPTURE_STATUS_INVALIDATED");
        let mut graph: Handle = 1 as Handle;
        assert_eq!((api.end_capture)(stream, &mut graph), 901);
        assert!(graph.is_null(), "no graph from an invalidated capture");
        assert_eq!((api.is_capturing)(stream, &mut status), 0);
        assert_eq!(status, 0, "CU_STREAM_CAPTURE_STATUS_NONE");
        assert_eq!((api.event_destroy)(event), 0);
        assert_eq!((api.stream_destroy)(stream), 0);
    }
}

#[test]
fn an_asynchronous_fault_is_sticky_until_its_context_goes() {
    let api = api();
    // SAFETY: as above; the wild pointer is only dereferenced by the guest.
    unsafe {
        let mut ctx: Handle = std::ptr::null_mut();
        assert_eq!((api.ctx_create)(&mut ctx, 0, 0), 0);
        let stream = api.stream();
        let dy = api.buffer(&[0.0; 256]);
        assert_eq!(api.saxpy(256, 1.0, 0x10, dy, stream), 0, "enqueued");
        assert_eq!((api.stream_synchronize)(stream), 700);
        assert_eq!((api.ctx_synchronize)(), 700, "sticky");
        // The faulted context's later work is enqueued but does not run.
        let mut host = vec![5f32; 256];
        assert_eq!((api.htod_async)(dy, host.as_ptr() as _, 1024, stream), 0);
        assert_eq!((api.stream_synchronize)(stream), 700);
        assert_eq!(
            (api.dtoh_async)(host.as_mut_ptr() as _, dy, 1024, stream),
            700
        );
        assert_eq!((api.stream_destroy)(stream), 0);
        assert_eq!((api.ctx_destroy)(ctx), 0);
        // The primary context is unaffected.
        let api = self::api();
        assert_eq!((api.ctx_synchronize)(), 0);
    }
}

#[test]
fn a_short_copy_on_an_idle_stream_completes_at_once_and_a_queued_one_keeps_its_place() {
    let api = api();
    // SAFETY: as above; the page-locked buffer outlives every copy from it.
    unsafe {
        let stream = api.stream();
        let n = 1024usize;
        let dev = api.buffer(&vec![0.0; n]);
        let mut pinned: *mut std::ffi::c_void = std::ptr::null_mut();
        assert_eq!((api.host_alloc)(&mut pinned, n * 4, 0), 0);
        let src = std::slice::from_raw_parts_mut(pinned as *mut f32, n);
        src.fill(1.0);
        // Idle stream: the copy and the memset run on the calling thread,
        // so the stream has nothing left when the calls return.
        assert_eq!((api.htod_async)(dev, pinned, n * 4, stream), 0);
        assert_eq!((api.stream_query)(stream), 0, "done at once");
        assert_eq!(api.read(dev, n), vec![1.0; n]);
        assert_eq!((api.memset32_async)(dev, 2f32.to_bits(), n, stream), 0);
        assert_eq!((api.stream_query)(stream), 0, "done at once");
        assert_eq!(api.read(dev, n), vec![2.0; n]);
        // Behind a host function the same copy waits its turn, reading
        // the source when the stream reaches it.
        let release = hold(&api, stream);
        src.fill(3.0);
        assert_eq!((api.htod_async)(dev, pinned, n * 4, stream), 0);
        assert_eq!((api.stream_query)(stream), 600, "CUDA_ERROR_NOT_READY");
        assert_eq!(
            api.read(dev, n),
            vec![2.0; n],
            "not run ahead of the host function"
        );
        src.fill(4.0);
        release.send(()).unwrap();
        assert_eq!((api.stream_synchronize)(stream), 0);
        assert_eq!(api.read(dev, n), vec![4.0; n]);
        // A copy past the inline limit is queued, and arrives.
        let big = vec![5f32; (1 << 20) / 4 + 1];
        let dbig = api.buffer(&vec![0.0; big.len()]);
        assert_eq!(
            (api.htod_async)(dbig, big.as_ptr() as _, big.len() * 4, stream),
            0
        );
        assert_eq!((api.stream_synchronize)(stream), 0);
        assert_eq!(api.read(dbig, big.len()), big);
        assert_eq!((api.free_host)(pinned), 0);
        assert_eq!((api.stream_destroy)(stream), 0);
    }
}
