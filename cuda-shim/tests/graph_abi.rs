//! Graphs built node by node through the C ABI: memset, kernel, memcpy,
//! empty and host nodes added out of order and ordered by
//! `cuGraphAddDependencies`; the queries (nodes, roots, edges, types,
//! dependencies) agree with what was built; the instantiated graph runs
//! NVRTC's saxpy between the memset and the copy; a cycle is refused at
//! instantiation; kernel parameters change in an executable graph, in a
//! clone, and through `cuGraphExecUpdate`, which refuses a changed topology.

use std::ffi::{c_int, c_uint, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};

mod common;
use common::api::*;
use common::*;

/// `CUDA_KERNEL_NODE_PARAMS_v2`.
#[repr(C)]
struct KernelParams {
    func: Handle,
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    kern: Handle,
    ctx: Handle,
}

/// `CUDA_MEMSET_NODE_PARAMS`.
#[repr(C)]
struct MemsetParams {
    dst: u64,
    pitch: usize,
    value: c_uint,
    element_size: c_uint,
    width: usize,
    height: usize,
}

/// `CUDA_MEMCPY3D` with the fields a linear copy uses.
#[repr(C)]
#[derive(Default)]
struct Memcpy3D {
    src_x: usize,
    src_y: usize,
    src_z: usize,
    src_lod: usize,
    src_type: c_uint,
    src_host: usize,
    src_device: u64,
    src_array: usize,
    reserved0: usize,
    src_pitch: usize,
    src_height: usize,
    dst_x: usize,
    dst_y: usize,
    dst_z: usize,
    dst_lod: usize,
    dst_type: c_uint,
    dst_host: usize,
    dst_device: u64,
    dst_array: usize,
    reserved1: usize,
    dst_pitch: usize,
    dst_height: usize,
    width: usize,
    height: usize,
    depth: usize,
}

/// `CUDA_HOST_NODE_PARAMS`.
#[repr(C)]
struct HostParams {
    f: unsafe extern "C" fn(*mut c_void),
    data: *mut c_void,
}

/// `CUgraphExecUpdateResultInfo`.
#[repr(C)]
struct UpdateInfo {
    result: c_int,
    error_node: Handle,
    error_from: Handle,
}

unsafe extern "C" fn count_call(data: *mut c_void) {
    (*(data as *const AtomicUsize)).fetch_add(1, Ordering::SeqCst);
}

type AddNode<P> = unsafe extern "C" fn(*mut Handle, Handle, *const Handle, usize, *const P) -> u32;
type AddNodeCtx<P> =
    unsafe extern "C" fn(*mut Handle, Handle, *const Handle, usize, *const P, Handle) -> u32;
type List = unsafe extern "C" fn(Handle, *mut Handle, *mut usize) -> u32;
type Edges = unsafe extern "C" fn(Handle, *const Handle, *const Handle, usize) -> u32;

/// The handles a list query gives.
unsafe fn listed(f: List, of: Handle) -> Vec<Handle> {
    let mut n = 0usize;
    assert_eq!(f(of, std::ptr::null_mut(), &mut n), 0);
    let mut v = vec![std::ptr::null_mut(); n + 1];
    let mut asked = n + 1;
    assert_eq!(f(of, v.as_mut_ptr(), &mut asked), 0);
    assert_eq!(asked, n, "the count written back");
    assert!(v[n].is_null(), "the rest of the array nulled");
    v.truncate(n);
    v
}

#[test]
fn a_graph_built_node_by_node_runs_in_dependency_order_and_updates() {
    let api = api();
    let lib = library();
    let create = sym!(
        lib,
        b"cuGraphCreate",
        unsafe extern "C" fn(*mut Handle, c_uint) -> u32
    );
    let add_kernel = sym!(lib, b"cuGraphAddKernelNode_v2", AddNode<KernelParams>);
    let add_memset = sym!(lib, b"cuGraphAddMemsetNode", AddNodeCtx<MemsetParams>);
    let add_memcpy = sym!(lib, b"cuGraphAddMemcpyNode", AddNodeCtx<Memcpy3D>);
    let add_host = sym!(lib, b"cuGraphAddHostNode", AddNode<HostParams>);
    let add_empty = sym!(
        lib,
        b"cuGraphAddEmptyNode",
        unsafe extern "C" fn(*mut Handle, Handle, *const Handle, usize) -> u32
    );
    let add_deps = sym!(lib, b"cuGraphAddDependencies", Edges);
    let remove_deps = sym!(lib, b"cuGraphRemoveDependencies", Edges);
    let nodes_of = sym!(lib, b"cuGraphGetNodes", List);
    let roots_of = sym!(lib, b"cuGraphGetRootNodes", List);
    let deps_of = sym!(lib, b"cuGraphNodeGetDependencies", List);
    let dependents_of = sym!(lib, b"cuGraphNodeGetDependentNodes", List);
    let edges_of = sym!(
        lib,
        b"cuGraphGetEdges",
        unsafe extern "C" fn(Handle, *mut Handle, *mut Handle, *mut usize) -> u32
    );
    let type_of = sym!(
        lib,
        b"cuGraphNodeGetType",
        unsafe extern "C" fn(Handle, *mut c_int) -> u32
    );
    let exec_set = sym!(
        lib,
        b"cuGraphExecKernelNodeSetParams_v2",
        unsafe extern "C" fn(Handle, Handle, *const KernelParams) -> u32
    );
    let node_set = sym!(
        lib,
        b"cuGraphKernelNodeSetParams_v2",
        unsafe extern "C" fn(Handle, *const KernelParams) -> u32
    );
    let update = sym!(
        lib,
        b"cuGraphExecUpdate_v2",
        unsafe extern "C" fn(Handle, Handle, *mut UpdateInfo) -> u32
    );
    let clone = sym!(
        lib,
        b"cuGraphClone",
        unsafe extern "C" fn(*mut Handle, Handle) -> u32
    );
    let destroy_node = sym!(
        lib,
        b"cuGraphDestroyNode",
        unsafe extern "C" fn(Handle) -> u32
    );
    let null = std::ptr::null_mut();
    // SAFETY: the driver API with valid handles; every pointer given to a
    // node outlives the graph's launches.
    unsafe {
        let stream = api.stream();
        let n = 256usize;
        let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let dx = api.buffer(&x);
        let dy = api.buffer(&vec![0.0; n]);
        let mut host = vec![0f32; n];
        let calls = AtomicUsize::new(0);
        let mut graph: Handle = null;
        assert_eq!(create(&mut graph, 0), 0);
        // The nodes, added copy first, memset last.
        let copy = Memcpy3D {
            src_type: 2,
            src_device: dy,
            dst_type: 1,
            dst_host: host.as_mut_ptr() as usize,
            width: n * 4,
            height: 1,
            depth: 1,
            ..Default::default()
        };
        let (mut c, mut k, mut m, mut e, mut h) = (null, null, null, null, null);
        assert_eq!(
            add_memcpy(&mut c, graph, std::ptr::null(), 0, &copy, null),
            0
        );
        let (count, mut a) = (n as c_int, 2f32);
        let mut args: [*mut c_void; 4] = [
            &count as *const c_int as *mut c_void,
            &mut a as *mut f32 as *mut c_void,
            &dx as *const u64 as *mut c_void,
            &dy as *const u64 as *mut c_void,
        ];
        let kernel = |args: &mut [*mut c_void; 4]| KernelParams {
            func: api.saxpy,
            grid: [1, 1, 1],
            block: [n as c_uint, 1, 1],
            shared: 0,
            params: args.as_mut_ptr(),
            extra: std::ptr::null_mut(),
            kern: std::ptr::null_mut(),
            ctx: std::ptr::null_mut(),
        };
        assert_eq!(
            add_kernel(&mut k, graph, std::ptr::null(), 0, &kernel(&mut args)),
            0
        );
        let fill = MemsetParams {
            dst: dy,
            pitch: 0,
            value: 1f32.to_bits(),
            element_size: 4,
            width: n,
            height: 1,
        };
        assert_eq!(
            add_memset(&mut m, graph, std::ptr::null(), 0, &fill, null),
            0
        );
        assert_eq!(add_empty(&mut e, graph, [k].as_ptr(), 1), 0);
        let hp = HostParams {
            f: count_call,
            data: &calls as *const AtomicUsize as *mut c_void,
        };
        assert_eq!(add_host(&mut h, graph, [e].as_ptr(), 1, &hp), 0);
        // memset -> kernel -> empty -> {copy, host}.
        assert_eq!(add_deps(graph, [m, e].as_ptr(), [k, c].as_ptr(), 2), 0);
        assert_eq!(
            add_deps(graph, [m].as_ptr(), [k].as_ptr(), 1),
            1,
            "a duplicate edge"
        );
        assert_eq!(listed(*nodes_of, graph), vec![c, k, m, e, h]);
        assert_eq!(listed(*roots_of, graph), vec![m]);
        assert_eq!(listed(*deps_of, c), vec![e]);
        assert_eq!(listed(*dependents_of, e), vec![c, h]);
        let mut ne = 0usize;
        assert_eq!(
            edges_of(graph, std::ptr::null_mut(), std::ptr::null_mut(), &mut ne),
            0
        );
        assert_eq!(ne, 4);
        let types: Vec<c_int> = [c, k, m, e, h]
            .iter()
            .map(|&node| {
                let mut t = -1;
                assert_eq!(type_of(node, &mut t), 0);
                t
            })
            .collect();
        assert_eq!(
            types,
            vec![1, 0, 2, 5, 3],
            "memcpy kernel memset empty host"
        );
        // A cycle cannot be instantiated.
        let mut exec: Handle = null;
        assert_eq!(add_deps(graph, [c].as_ptr(), [m].as_ptr(), 1), 0);
        assert_eq!(
            (api.instantiate)(&mut exec, graph, 0),
            1,
            "CUDA_ERROR_INVALID_VALUE"
        );
        assert_eq!(remove_deps(graph, [c].as_ptr(), [m].as_ptr(), 1), 0);
        assert_eq!((api.instantiate)(&mut exec, graph, 0), 0);
        let launch = |exec: Handle, host: &Vec<f32>, a: f32| {
            assert_eq!((api.graph_launch)(exec, stream), 0);
            assert_eq!((api.stream_synchronize)(stream), 0);
            let want: Vec<f32> = x.iter().map(|v| a * v + 1.0).collect();
            assert_eq!(host, &want, "a = {a}");
        };
        launch(exec, &host, 2.0);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        // New kernel arguments for the executable graph only.
        *(args[1] as *mut f32) = 3.0;
        assert_eq!(exec_set(exec, k, &kernel(&mut args)), 0);
        launch(exec, &host, 3.0);
        // A clone has nodes of its own and runs the graph's parameters.
        let mut copy_graph: Handle = null;
        assert_eq!(clone(&mut copy_graph, graph), 0);
        let cloned = listed(*nodes_of, copy_graph);
        assert_eq!(cloned.len(), 5);
        assert!(cloned.iter().all(|n| ![c, k, m, e, h].contains(n)));
        let mut cloned_exec: Handle = null;
        assert_eq!((api.instantiate)(&mut cloned_exec, copy_graph, 0), 0);
        launch(cloned_exec, &host, 2.0);
        // The graph's kernel node changed, then the executable updated.
        *(args[1] as *mut f32) = 4.0;
        assert_eq!(node_set(k, &kernel(&mut args)), 0);
        let mut info = UpdateInfo {
            result: -1,
            error_node: null,
            error_from: null,
        };
        assert_eq!(update(exec, graph, &mut info), 0);
        assert_eq!(info.result, 0, "CU_GRAPH_EXEC_UPDATE_SUCCESS");
        launch(exec, &host, 4.0);
        assert_eq!(calls.load(Ordering::SeqCst), 4);
        // Another node: the topology changed.
        let mut extra: Handle = null;
        assert_eq!(add_empty(&mut extra, graph, std::ptr::null(), 0), 0);
        assert_eq!(
            update(exec, graph, &mut info),
            910,
            "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE"
        );
        assert_eq!(
            info.result, 2,
            "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED"
        );
        assert_eq!(destroy_node(extra), 0);
        assert_eq!(destroy_node(h), 0);
        assert_eq!(listed(*nodes_of, graph), vec![c, k, m, e]);
        assert_eq!(listed(*dependents_of, e), vec![c]);
        assert_eq!((api.exec_destroy)(exec), 0);
        assert_eq!((api.exec_destroy)(cloned_exec), 0);
        assert_eq!((api.graph_destroy)(graph), 0);
        assert_eq!((api.graph_destroy)(copy_graph), 0);
        assert_eq!((api.stream_destroy)(stream), 0);
    }
}

/// Stream capture across streams: two streams join a capture by waiting on
/// an event recorded in it (fork) and are joined back by the capturing
/// stream's waits; the graph's edges follow the waits; a capture whose
/// joined stream was not joined back ends with
/// CUDA_ERROR_STREAM_CAPTURE_UNJOINED.
#[test]
fn a_capture_forks_to_other_streams_and_joins_them_back() {
    let api = api();
    let lib = library();
    let nodes_of = sym!(lib, b"cuGraphGetNodes", List);
    let roots_of = sym!(lib, b"cuGraphGetRootNodes", List);
    let deps_of = sym!(lib, b"cuGraphNodeGetDependencies", List);
    let type_of = sym!(
        lib,
        b"cuGraphNodeGetType",
        unsafe extern "C" fn(Handle, *mut c_int) -> u32
    );
    let null = std::ptr::null_mut();
    // SAFETY: the driver API with valid handles and pointers.
    unsafe {
        let (s1, s2, s3) = (api.stream(), api.stream(), api.stream());
        let (fork, e2, e3) = (api.event(0), api.event(0), api.event(0));
        let n = 256usize;
        let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let dx = api.buffer(&vec![0.0; n]);
        let dy = api.buffer(&vec![0.0; n]);
        let calls = AtomicUsize::new(0);
        assert_eq!((api.begin_capture)(s1, CAPTURE_THREAD_LOCAL), 0);
        assert_eq!((api.event_record)(fork, s1), 0);
        assert_eq!((api.stream_wait)(s2, fork, 0), 0);
        assert_eq!((api.stream_wait)(s3, fork, 0), 0);
        let mut status = -1;
        assert_eq!((api.is_capturing)(s2, &mut status), 0);
        assert_eq!(status, 1, "s2 joined the capture");
        assert_eq!((api.htod_async)(dx, x.as_ptr() as _, n * 4, s2), 0);
        assert_eq!((api.event_record)(e2, s2), 0);
        assert_eq!((api.memset32_async)(dy, 1f32.to_bits(), n, s3), 0);
        let data = &calls as *const AtomicUsize as *mut c_void;
        assert_eq!((api.host_func)(s3, Some(count_call), data), 0);
        assert_eq!((api.event_record)(e3, s3), 0);
        assert_eq!((api.stream_wait)(s1, e2, 0), 0);
        assert_eq!((api.stream_wait)(s1, e3, 0), 0);
        assert_eq!(api.saxpy(n as c_int, 2.0, dx, dy, s1), 0);
        let mut graph: Handle = null;
        assert_eq!((api.end_capture)(s1, &mut graph), 0);
        assert_eq!((api.is_capturing)(s2, &mut status), 0);
        assert_eq!(status, 0, "the joined streams left with the capture's end");
        // copy (s2), memset and host function (s3), then the kernel.
        let nodes = listed(*nodes_of, graph);
        assert_eq!(nodes.len(), 4);
        let types: Vec<c_int> = nodes
            .iter()
            .map(|&node| {
                let mut t = -1;
                assert_eq!(type_of(node, &mut t), 0);
                t
            })
            .collect();
        assert_eq!(types, vec![1, 2, 3, 0]);
        assert_eq!(listed(*roots_of, graph), vec![nodes[0], nodes[1]]);
        assert_eq!(listed(*deps_of, nodes[2]), vec![nodes[1]]);
        assert_eq!(listed(*deps_of, nodes[3]), vec![nodes[0], nodes[2]]);
        let mut exec: Handle = null;
        assert_eq!((api.instantiate)(&mut exec, graph, 0), 0);
        assert_eq!((api.graph_launch)(exec, s1), 0);
        assert_eq!((api.stream_synchronize)(s1), 0);
        let want: Vec<f32> = x.iter().map(|v| 2.0 * v + 1.0).collect();
        assert_eq!(api.read(dy, n), want);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        // A stream forked off and never joined back.
        assert_eq!((api.begin_capture)(s1, CAPTURE_THREAD_LOCAL), 0);
        assert_eq!((api.event_record)(fork, s1), 0);
        assert_eq!((api.stream_wait)(s2, fork, 0), 0);
        assert_eq!((api.memset32_async)(dy, 0, n, s2), 0);
        let mut unjoined: Handle = null;
        assert_eq!(
            (api.end_capture)(s1, &mut unjoined),
            904,
            "CUDA_ERROR_STREAM_CAPTURE_UNJOINED"
        );
        assert!(unjoined.is_null());
        assert_eq!((api.exec_destroy)(exec), 0);
        assert_eq!((api.graph_destroy)(graph), 0);
        for s in [s1, s2, s3] {
            assert_eq!((api.stream_destroy)(s), 0);
        }
    }
}
