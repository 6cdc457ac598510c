//! Stream and graph queries through the C ABI: a stream's id, context and
//! device; a captured graph instantiated with a parameter block keeps its
//! flags and reports its result.

use std::ffi::{c_int, c_uint};

mod common;
use common::*;

/// `CUDA_GRAPH_INSTANTIATE_PARAMS`.
#[repr(C)]
struct InstantiateParams {
    flags: u64,
    upload_stream: Handle,
    err_node_out: Handle,
    result_out: c_int,
}

#[test]
fn streams_report_their_id_context_and_device_and_graphs_their_flags() {
    let lib = library();
    context(&lib);
    let create = sym!(lib, b"cuStreamCreate", CuStreamCreate);
    let get_id = sym!(
        lib,
        b"cuStreamGetId",
        unsafe extern "C" fn(Handle, *mut u64) -> u32
    );
    let get_ctx = sym!(
        lib,
        b"cuStreamGetCtx",
        unsafe extern "C" fn(Handle, *mut Handle) -> u32
    );
    let get_dev = sym!(
        lib,
        b"cuStreamGetDevice",
        unsafe extern "C" fn(Handle, *mut c_int) -> u32
    );
    let current = sym!(
        lib,
        b"cuCtxGetCurrent",
        unsafe extern "C" fn(*mut Handle) -> u32
    );
    let instantiate = sym!(
        lib,
        b"cuGraphInstantiateWithParams",
        unsafe extern "C" fn(*mut Handle, Handle, *mut InstantiateParams) -> u32
    );
    let flags_of = sym!(
        lib,
        b"cuGraphExecGetFlags",
        unsafe extern "C" fn(Handle, *mut u64) -> u32
    );
    // SAFETY: out-pointers to locals.
    unsafe {
        let (mut a, mut b): (Handle, Handle) = (std::ptr::null_mut(), std::ptr::null_mut());
        assert_eq!(create(&mut a, 1), 0);
        assert_eq!(create(&mut b, 1), 0);
        let (mut ia, mut ib) = (0u64, 0u64);
        assert_eq!(get_id(a, &mut ia), 0);
        assert_eq!(get_id(b, &mut ib), 0);
        assert_ne!(ia, ib);
        let (mut ctx, mut cur): (Handle, Handle) = (std::ptr::null_mut(), std::ptr::null_mut());
        assert_eq!(get_ctx(a, &mut ctx), 0);
        assert_eq!(current(&mut cur), 0);
        assert_eq!(ctx, cur);
        let mut dev = -1;
        assert_eq!(get_dev(a, &mut dev), 0);
        assert_eq!(dev, 0);
        assert_ne!(get_id(0x7777 as Handle, &mut ia), 0, "not a stream");
        // An empty captured graph, instantiated to free its memory on
        // relaunch (CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH).
        let graph = empty_graph(&lib);
        let mut p = InstantiateParams {
            flags: 1,
            upload_stream: std::ptr::null_mut(),
            err_node_out: std::ptr::null_mut(),
            result_out: -1,
        };
        let mut exec: Handle = std::ptr::null_mut();
        assert_eq!(instantiate(&mut exec, graph, &mut p), 0);
        assert_eq!(p.result_out, 0, "CUDA_GRAPH_INSTANTIATE_SUCCESS");
        let mut flags = 0u64;
        assert_eq!(flags_of(exec, &mut flags), 0);
        assert_eq!(flags, 1);
        p.flags = 1 << 40;
        assert_eq!(instantiate(&mut exec, graph, &mut p), 1);
        assert_eq!(p.result_out, 1, "CUDA_GRAPH_INSTANTIATE_ERROR");
    }
}

static DESTROYED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

unsafe extern "C" fn count_destruction(p: *mut std::ffi::c_void) {
    assert_eq!(p as usize, 0x1234);
    DESTROYED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

/// A user object lives while the caller, a graph or a graph instantiated
/// from it holds a reference; its destructor runs once, when the last goes.
#[test]
fn user_objects_live_as_long_as_their_graphs() {
    use std::sync::atomic::Ordering::SeqCst;
    let lib = library();
    context(&lib);
    let create_obj = sym!(
        lib,
        b"cuUserObjectCreate",
        unsafe extern "C" fn(
            *mut Handle,
            *mut std::ffi::c_void,
            unsafe extern "C" fn(*mut std::ffi::c_void),
            c_uint,
            c_uint,
        ) -> u32
    );
    let release = sym!(
        lib,
        b"cuUserObjectRelease",
        unsafe extern "C" fn(Handle, c_uint) -> u32
    );
    let graph_retain = sym!(
        lib,
        b"cuGraphRetainUserObject",
        unsafe extern "C" fn(Handle, Handle, c_uint, c_uint) -> u32
    );
    let instantiate = sym!(
        lib,
        b"cuGraphInstantiateWithFlags",
        unsafe extern "C" fn(*mut Handle, Handle, u64) -> u32
    );
    let destroy_graph = sym!(lib, b"cuGraphDestroy", unsafe extern "C" fn(Handle) -> u32);
    let destroy_exec = sym!(
        lib,
        b"cuGraphExecDestroy",
        unsafe extern "C" fn(Handle) -> u32
    );
    // SAFETY: out-pointers to locals; the destructor takes the pointer given.
    unsafe {
        let mut obj: Handle = std::ptr::null_mut();
        let data = 0x1234 as *mut std::ffi::c_void;
        assert_eq!(create_obj(&mut obj, data, count_destruction, 2, 1), 0);
        assert_eq!(
            create_obj(&mut obj, data, count_destruction, 1, 0),
            1,
            "flags"
        );
        let graph = empty_graph(&lib);
        // The graph takes one of the caller's two references.
        assert_eq!(graph_retain(graph, obj, 1, 1), 0);
        assert_eq!(release(obj, 1), 0);
        let mut exec: Handle = std::ptr::null_mut();
        assert_eq!(instantiate(&mut exec, graph, 0), 0);
        assert_eq!(destroy_graph(graph), 0);
        assert_eq!(DESTROYED.load(SeqCst), 0, "the executable graph holds it");
        assert_eq!(destroy_exec(exec), 0);
        assert_eq!(DESTROYED.load(SeqCst), 1);
        assert_eq!(release(obj, 1), 1, "gone");
    }
}
