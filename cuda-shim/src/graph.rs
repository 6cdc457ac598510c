//! Graphs as CUDA defines them: nodes (kernel, memcpy, memset, host,
//! empty, child graph, event record and wait) with dependency edges, built
//! node by node (`cuGraphCreate`, `cuGraphAdd*Node`, `cuGraphAddDependencies`)
//! or by stream capture (`capture.rs`: each captured op a node depending on
//! the one before); `graph_edit.rs` edits and queries them.
//!
//! An instantiated graph runs its nodes one after another on the launch
//! stream in a topological order (Kahn's, taking the earliest-added ready
//! node first): a schedule the graph's edges allow, as a GPU's may run
//! independent nodes in any order or at once. A node's ops are made when
//! it is added, as a stream op enqueued on a capturing stream would be
//! (parameters copied, configuration checked), so a kernel node's launch is
//! the launch path's own.

use std::ops::Range;

use super::*;
use crate::capture::Capture;
use crate::ops::{HostFn, HostPtr, Node, Op};
use crate::queue::Queue;

/// `CUgraphNodeType`.
pub(crate) const KERNEL: c_int = 0;
const MEMCPY: c_int = 1;
const MEMSET: c_int = 2;
const HOST: c_int = 3;
const CHILD: c_int = 4;
const EMPTY: c_int = 5;
const WAIT_EVENT: c_int = 6;
const EVENT_RECORD: c_int = 7;
const MEM_FREE: c_int = 11;

/// Each node's handle and the range of its ops in a graph's schedule.
pub(crate) type Spans = Vec<(usize, Range<usize>)>;

/// A graph: its nodes in the order they were added.
#[derive(Clone, Default)]
pub(crate) struct Graph {
    pub nodes: Vec<GraphNode>,
}

#[derive(Clone)]
pub(crate) struct GraphNode {
    pub handle: usize,
    /// `CUgraphNodeType`.
    pub kind: c_int,
    /// What the node does when the graph runs, in order.
    pub ops: Vec<Node>,
    /// The nodes it depends on (handles of the same graph).
    pub deps: Vec<usize>,
}

impl Graph {
    /// A captured graph: each captured op a node, with the dependencies
    /// its stream's order and the capture's event waits gave it.
    pub(crate) fn captured(s: &mut State, nodes: Vec<Node>, deps: Vec<Vec<usize>>) -> Graph {
        let handles: Vec<usize> = nodes.iter().map(|_| s.handle()).collect();
        let nodes = nodes
            .into_iter()
            .zip(deps)
            .zip(&handles)
            .map(|((node, deps), &handle)| GraphNode {
                handle,
                kind: kind_of(&node),
                ops: vec![node],
                deps: deps.iter().map(|&d| handles[d]).collect(),
            })
            .collect();
        Graph { nodes }
    }

    pub(crate) fn index(&self, handle: usize) -> Option<usize> {
        self.nodes.iter().position(|n| n.handle == handle)
    }

    /// The nodes in the order they run: topological, the earliest added
    /// ready node first; with each node's span in the flattened ops.
    /// A cycle is CUDA_ERROR_INVALID_VALUE.
    pub(crate) fn schedule(&self) -> Result<(Vec<Node>, Spans), CUresult> {
        let n = self.nodes.len();
        let mut waiting: Vec<usize> = self.nodes.iter().map(|x| x.deps.len()).collect();
        let mut done = vec![false; n];
        let (mut ops, mut spans) = (Vec::new(), Vec::new());
        for _ in 0..n {
            let next = (0..n)
                .find(|&i| !done[i] && waiting[i] == 0)
                .ok_or(INVALID_VALUE)?;
            done[next] = true;
            let node = &self.nodes[next];
            let start = ops.len();
            ops.extend(node.ops.iter().cloned());
            spans.push((node.handle, start..ops.len()));
            for (i, other) in self.nodes.iter().enumerate() {
                waiting[i] -= other.deps.iter().filter(|&&d| d == node.handle).count();
            }
        }
        Ok((ops, spans))
    }
}

/// The node type of a captured op.
fn kind_of(node: &Node) -> c_int {
    match node {
        Node::Op(Op::Launch(_)) => KERNEL,
        Node::Op(Op::WriteStaged { .. } | Op::WriteFromHost { .. } | Op::Read { .. })
        | Node::Op(Op::DeviceCopy { .. }) => MEMCPY,
        Node::Op(Op::Memset { .. }) => MEMSET,
        Node::Op(Op::HostFunc { .. } | Op::Callback { .. }) => HOST,
        Node::Op(Op::Free { .. }) => MEM_FREE,
        Node::Op(Op::Wait | Op::RecordEvent { .. }) => EMPTY,
        Node::RecordEvent(_) => EVENT_RECORD,
        Node::WaitEvent(_) => WAIT_EVENT,
    }
}

/// The ops `record` enqueues on a stream that captures into a fresh
/// sequence (made for the call and removed after it).
fn recorded(
    s: &mut State,
    record: impl FnOnce(&mut State, Handle) -> Result<(), CUresult>,
) -> Result<Vec<Node>, CUresult> {
    let id = s.handle();
    let mut q = Queue::new(true, 0);
    q.capture = Some(Capture::new(u64::MAX, 2, 0));
    s.sched.queues.insert(id, q);
    let r = record(s, id as Handle);
    let capture = s.sched.queues.remove(&id).and_then(|q| q.capture);
    r?;
    match capture {
        Some(c) if !c.invalidated => Ok(c.nodes),
        _ => Err(INVALID_VALUE),
    }
}

pub(crate) fn graph_mut(s: &mut State, graph: Handle) -> Result<&mut Graph, CUresult> {
    s.sched
        .graphs
        .get_mut(&(graph as usize))
        .ok_or(INVALID_VALUE)
}

/// The graph holding node `node`, and its index there.
pub(crate) fn find(s: &State, node: Handle) -> Result<(usize, usize), CUresult> {
    s.sched
        .graphs
        .iter()
        .find_map(|(&g, graph)| graph.index(node as usize).map(|i| (g, i)))
        .ok_or(INVALID_VALUE)
}

/// Adds a node of `kind` doing `ops` after `deps`, writing its handle.
unsafe fn add(
    s: &mut State,
    out_node: *mut Handle,
    graph: Handle,
    deps: *const Handle,
    count: usize,
    kind: c_int,
    ops: Vec<Node>,
) -> Result<(), CUresult> {
    if out_node.is_null() || (deps.is_null() && count > 0) {
        return Err(INVALID_VALUE);
    }
    let handle = s.handle();
    let g = graph_mut(s, graph)?;
    let deps: Vec<usize> = (0..count).map(|i| *deps.add(i) as usize).collect();
    for (i, d) in deps.iter().enumerate() {
        if g.index(*d).is_none() || deps[..i].contains(d) {
            return Err(INVALID_VALUE);
        }
    }
    g.nodes.push(GraphNode {
        handle,
        kind,
        ops,
        deps,
    });
    *out_node = handle as Handle;
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphCreate(graph: *mut Handle, flags: c_uint) -> CUresult {
    if graph.is_null() || flags != 0 {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        let h = s.handle();
        s.sched.graphs.insert(h, Graph::default());
        *graph = h as Handle;
        Ok(())
    }))
}

/// `CUDA_KERNEL_NODE_PARAMS_v2` (v1 is its first ten fields).
#[repr(C)]
pub struct KernelNodeParams {
    func: Handle,
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    kern: Handle,
    ctx: Handle,
}

/// The launch a kernel node's parameters describe (`v2`: the function may
/// be given as a library kernel, which is the same handle here).
pub(crate) unsafe fn kernel_ops(
    s: &mut State,
    p: *const KernelNodeParams,
    v2: bool,
) -> Result<Vec<Node>, CUresult> {
    let p = p.as_ref().ok_or(INVALID_VALUE)?;
    let f = match (p.func.is_null(), v2) {
        (true, true) => p.kern,
        _ => p.func,
    };
    let config = crate::launch::launch_config(p.grid, p.block, p.shared);
    recorded(s, |s, stream| {
        crate::launch::enqueue_launch(s, f, config, stream, p.params, p.extra, false, None)
    })
}

unsafe fn add_kernel(
    node: *mut Handle,
    graph: Handle,
    deps: *const Handle,
    count: usize,
    p: *const KernelNodeParams,
    v2: bool,
) -> CUresult {
    done(crate::context::need_context().and_then(|()| {
        with_state(|s| {
            let ops = kernel_ops(s, p, v2)?;
            add(s, node, graph, deps, count, KERNEL, ops)
        })
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddKernelNode(
    node: *mut Handle,
    graph: Handle,
    deps: *const Handle,
    count: usize,
    p: *const KernelNodeParams,
) -> CUresult {
    add_kernel(node, graph, deps, count, p, false)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddKernelNode_v2(
    node: *mut Handle,
    graph: Handle,
    deps: *const Handle,
    count: usize,
    p: *const KernelNodeParams,
) -> CUresult {
    add_kernel(node, graph, deps, count, p, true)
}

/// `CUDA_MEMSET_NODE_PARAMS`.
#[repr(C)]
pub struct MemsetNodeParams {
    dst: u64,
    pitch: usize,
    value: c_uint,
    element_size: c_uint,
    width: usize,
    height: usize,
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddMemsetNode(
    node: *mut Handle,
    graph: Handle,
    deps: *const Handle,
    count: usize,
    p: *const MemsetNodeParams,
    _ctx: Handle,
) -> CUresult {
    done(with_state(|s| {
        let p = p.as_ref().ok_or(INVALID_VALUE)?;
        let width = p.element_size as usize;
        if ![1, 2, 4].contains(&width) || p.width == 0 || p.height == 0 {
            return Err(INVALID_VALUE);
        }
        let row = p.width.checked_mul(width).ok_or(INVALID_VALUE)?;
        if p.height > 1 && p.pitch < row {
            return Err(INVALID_VALUE);
        }
        let mut ops = Vec::with_capacity(p.height);
        for r in 0..p.height as u64 {
            let dst = (r.checked_mul(p.pitch as u64))
                .and_then(|o| p.dst.checked_add(o))
                .ok_or(INVALID_VALUE)?;
            s.check_device_range(dst, row)?;
            ops.push(Node::Op(Op::Memset {
                dst,
                value: p.value,
                width,
                count: p.width,
            }));
        }
        add(s, node, graph, deps, count, MEMSET, ops)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddMemcpyNode(
    node: *mut Handle,
    graph: Handle,
    deps: *const Handle,
    count: usize,
    p: *const crate::memory::Memcpy3D,
    _ctx: Handle,
) -> CUresult {
    done(with_state(|s| {
        let ops = recorded(s, |s, stream| crate::memory::enqueue_3d(s, p, stream))?;
        add(s, node, graph, deps, count, MEMCPY, ops)
    }))
}

/// `CUDA_HOST_NODE_PARAMS`.
#[repr(C)]
pub struct HostNodeParams {
    f: Option<HostFn>,
    data: *mut c_void,
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddHostNode(
    node: *mut Handle,
    graph: Handle,
    deps: *const Handle,
    count: usize,
    p: *const HostNodeParams,
) -> CUresult {
    done(with_state(|s| {
        let p = p.as_ref().ok_or(INVALID_VALUE)?;
        let f = p.f.ok_or(INVALID_VALUE)?;
        let op = Op::HostFunc {
            f,
            data: HostPtr(p.data),
        };
        add(s, node, graph, deps, count, HOST, vec![Node::Op(op)])
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddEmptyNode(
    node: *mut Handle,
    graph: Handle,
    deps: *const Handle,
    count: usize,
) -> CUresult {
    done(with_state(|s| {
        add(s, node, graph, deps, count, EMPTY, Vec::new())
    }))
}

unsafe fn add_event(
    node: *mut Handle,
    graph: Handle,
    deps: *const Handle,
    count: usize,
    event: Handle,
    record: bool,
) -> CUresult {
    done(with_state(|s| {
        let e = event as usize;
        if !s.sched.events.contains_key(&e) {
            return Err(INVALID_HANDLE);
        }
        let (kind, op) = match record {
            true => (EVENT_RECORD, Node::RecordEvent(e)),
            false => (WAIT_EVENT, Node::WaitEvent(e)),
        };
        add(s, node, graph, deps, count, kind, vec![op])
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddEventRecordNode(
    node: *mut Handle,
    graph: Handle,
    deps: *const Handle,
    count: usize,
    event: Handle,
) -> CUresult {
    add_event(node, graph, deps, count, event, true)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddEventWaitNode(
    node: *mut Handle,
    graph: Handle,
    deps: *const Handle,
    count: usize,
    event: Handle,
) -> CUresult {
    add_event(node, graph, deps, count, event, false)
}

/// The child graph is copied when the node is added, as CUDA does.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddChildGraphNode(
    node: *mut Handle,
    graph: Handle,
    deps: *const Handle,
    count: usize,
    child: Handle,
) -> CUresult {
    done(with_state(|s| {
        let (ops, _) = graph_mut(s, child)?.schedule()?;
        add(s, node, graph, deps, count, CHILD, ops)
    }))
}
