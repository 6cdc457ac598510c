//! Stream capture and graphs. While a stream captures, what is enqueued on
//! it (launches, async copies and memsets, host functions, external event
//! records and waits) becomes a node of a sequence instead of running;
//! `cuStreamEndCapture` turns the sequence into a `CUgraph` (`graph.rs`,
//! where graphs are also built node by node),
//! `cuGraphInstantiate*` into a `CUgraphExec` (its nodes' ops in a
//! topological order), and `cuGraphLaunch` enqueues them, in order, on a
//! stream. Other streams join a capture by waiting on an event recorded
//! in it (fork) and are joined back by the capturing stream's waits; the
//! graph's edges follow each stream's order and these waits. Also the
//! capture rules the
//! shim enforces: the legacy stream is unusable while a blocking stream
//! captures, synchronizing with or querying a capturing stream or a
//! captured event invalidates the capture, and potentially unsafe calls
//! follow the threads' capture interaction modes.

use std::cell::Cell;
use std::sync::Arc;
use std::thread::ThreadId;

use super::*;
use crate::graph::Graph;
use crate::ops::{Node, Op};
use crate::queue::{current_context, enqueue, resolve, Point, Scheduler, StreamId, LEGACY};

const MODE_GLOBAL: c_int = 0;
const MODE_RELAXED: c_int = 2;

const STATUS_NONE: c_int = 0;
const STATUS_ACTIVE: c_int = 1;
const STATUS_INVALIDATED: c_int = 2;

/// `CUgraphInstantiate_flags`.
const AUTO_FREE_ON_LAUNCH: u64 = 1;
const DEVICE_LAUNCH: u64 = 4;
const USE_NODE_PRIORITY: u64 = 8;

thread_local! {
    /// This thread's capture interaction mode (`cuThreadExchangeStreamCaptureMode`).
    static THREAD_MODE: Cell<c_int> = const { Cell::new(MODE_GLOBAL) };
}

/// A capture in progress, held by the stream that began it (its owner);
/// other streams join it by waiting on an event recorded in it (fork) and
/// leave it when the owner ends it, which requires the owner to have
/// waited on their last work (join).
pub(crate) struct Capture {
    pub id: u64,
    pub mode: c_int,
    pub thread: ThreadId,
    /// The handle the graph will have (`cuStreamGetCaptureInfo` reports it).
    pub graph: usize,
    pub nodes: Vec<Node>,
    /// Each node's dependencies (indices into `nodes`).
    pub deps: Vec<Vec<usize>>,
    /// Per stream in the capture (the owner and the streams that joined
    /// it): the nodes its next node depends on.
    pub frontier: HashMap<StreamId, Vec<usize>>,
    /// Per event recorded in the capture: the nodes its record followed.
    pub recorded: HashMap<usize, Vec<usize>>,
    pub invalidated: bool,
}

impl Capture {
    pub(crate) fn new(id: u64, mode: c_int, graph: usize) -> Capture {
        Capture {
            id,
            mode,
            thread: std::thread::current().id(),
            graph,
            nodes: Vec::new(),
            deps: Vec::new(),
            frontier: HashMap::new(),
            recorded: HashMap::new(),
            invalidated: false,
        }
    }

    /// Appends a node made on `stream`, after that stream's frontier.
    pub(crate) fn push(&mut self, stream: StreamId, node: Node) {
        let deps = self.frontier.get(&stream).cloned().unwrap_or_default();
        self.nodes.push(node);
        self.deps.push(deps);
        self.frontier.insert(stream, vec![self.nodes.len() - 1]);
    }

    /// `stream` waits on what `event`'s record in this capture followed.
    pub(crate) fn merge(&mut self, stream: StreamId, event: usize) {
        let from = self.recorded.get(&event).cloned().unwrap_or_default();
        let f = self.frontier.entry(stream).or_default();
        for n in from {
            if !f.contains(&n) {
                f.push(n);
            }
        }
    }

    /// Whether every stream that joined has been joined back: its last
    /// nodes are among what the owner's frontier follows.
    fn joined_back(&self, owner: StreamId) -> bool {
        let mut seen = vec![false; self.nodes.len()];
        let mut todo = self.frontier.get(&owner).cloned().unwrap_or_default();
        while let Some(n) = todo.pop() {
            if !std::mem::replace(&mut seen[n], true) {
                todo.extend(&self.deps[n]);
            }
        }
        self.frontier
            .iter()
            .filter(|(&s, _)| s != owner)
            .all(|(_, f)| f.iter().all(|&n| seen[n]))
    }
}

/// An instantiated graph.
pub(crate) struct GraphExec {
    /// Its ops in the order they run.
    nodes: Arc<[Node]>,
    /// The flags it was instantiated with.
    flags: u64,
    /// Where its previous launch ends: launches of one graph run in order.
    last_launch: Option<Point>,
    /// The graph it was made from, as instantiated (its node handles name
    /// the executable's nodes), and each node's ops in `nodes`.
    pub source: Graph,
    spans: Vec<(usize, std::ops::Range<usize>)>,
}

impl GraphExec {
    /// Gives node `node` new ops (`cuGraphExecKernelNodeSetParams`).
    pub(crate) fn replace(&mut self, node: usize, ops: Vec<Node>) -> Result<(), CUresult> {
        let i = self
            .source
            .nodes
            .iter()
            .position(|n| n.handle == node)
            .ok_or(INVALID_VALUE)?;
        self.source.nodes[i].ops = ops;
        let (nodes, spans) = self.source.schedule()?;
        self.nodes = nodes.into();
        self.spans = spans;
        Ok(())
    }

    /// Takes a new source graph and schedule (`cuGraphExecUpdate`).
    pub(crate) fn set(
        &mut self,
        source: Graph,
        nodes: Vec<Node>,
        spans: Vec<(usize, std::ops::Range<usize>)>,
    ) {
        self.source = source;
        self.nodes = nodes.into();
        self.spans = spans;
    }
}

/// The legacy stream is used: that is invalid while a blocking stream
/// captures (CUDA_ERROR_STREAM_CAPTURE_IMPLICIT), and invalidates those
/// captures.
pub(crate) fn use_legacy_stream(sched: &mut Scheduler) -> Result<(), CUresult> {
    let mut hit = false;
    for (&id, q) in sched.queues.iter_mut() {
        if id != LEGACY && !q.non_blocking {
            if let Some(c) = &mut q.capture {
                c.invalidated = true;
                hit = true;
            }
        }
    }
    if hit {
        Err(STREAM_CAPTURE_IMPLICIT)
    } else {
        Ok(())
    }
}

/// A potentially unsafe call (allocation, free, context synchronization)
/// is prohibited while this thread has a capture not begun in relaxed
/// mode, or, for a thread in global mode, while any thread has a
/// global-mode capture: it fails with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
/// and invalidates those captures.
pub(crate) fn check_unsafe_call(sched: &mut Scheduler) -> Result<(), CUresult> {
    let mode = THREAD_MODE.try_with(Cell::get).unwrap_or(MODE_GLOBAL);
    if mode == MODE_RELAXED {
        return Ok(());
    }
    let me = std::thread::current().id();
    let mut hit = false;
    for q in sched.queues.values_mut() {
        if let Some(c) = &mut q.capture {
            let local = c.thread == me && c.mode != MODE_RELAXED;
            let global = c.thread != me && c.mode == MODE_GLOBAL && mode == MODE_GLOBAL;
            if local || global {
                c.invalidated = true;
                hit = true;
            }
        }
    }
    if hit {
        Err(STREAM_CAPTURE_UNSUPPORTED)
    } else {
        Ok(())
    }
}

/// The capture in progress on a stream (begun on it, or joined), if any.
pub(crate) fn capture_of(sched: &mut Scheduler, id: StreamId) -> Option<&mut Capture> {
    let owner = owner_of(sched, id)?;
    sched
        .queues
        .get_mut(&owner)
        .and_then(|q| q.capture.as_mut())
}

/// The stream whose capture `id` takes part in, if any.
pub(crate) fn owner_of(sched: &Scheduler, id: StreamId) -> Option<StreamId> {
    let q = sched.queues.get(&id)?;
    match q.capture {
        Some(_) => Some(id),
        None => q.joined,
    }
}

/// Invalidates capture `capture` if it is still in progress on `stream`.
pub(crate) fn invalidate(sched: &mut Scheduler, stream: StreamId, capture: u64) {
    if let Some(c) = capture_of(sched, stream) {
        if c.id == capture {
            c.invalidated = true;
        }
    }
}

/// Synchronizing with or querying a capturing stream is invalid: it
/// invalidates the capture (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED).
pub(crate) fn refuse_if_capturing(sched: &mut Scheduler, id: StreamId) -> Result<(), CUresult> {
    match capture_of(sched, id) {
        Some(c) => {
            c.invalidated = true;
            Err(STREAM_CAPTURE_UNSUPPORTED)
        }
        None => Ok(()),
    }
}

// ---- Capture ---------------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn cuStreamBeginCapture_v2(stream: Handle, mode: c_int) -> CUresult {
    done(with_state(|s| {
        if !(MODE_GLOBAL..=MODE_RELAXED).contains(&mode) {
            return Err(INVALID_VALUE);
        }
        let id = resolve(s, stream)?;
        if id == LEGACY {
            return Err(STREAM_CAPTURE_UNSUPPORTED);
        }
        let graph = s.handle();
        let capture_id = s.sched.next_capture + 1;
        let q = s.sched.queues.get_mut(&id).ok_or(INVALID_HANDLE)?;
        if q.capture.is_some() {
            return Err(ILLEGAL_STATE);
        }
        if q.joined.is_some() {
            return Err(ILLEGAL_STATE);
        }
        q.capture = Some(Capture::new(capture_id, mode, graph));
        s.sched.next_capture = capture_id;
        Ok(())
    }))
}

/// Ends capture: the graph, or null and CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
/// when the capture was invalidated.
#[no_mangle]
pub unsafe extern "C" fn cuStreamEndCapture(stream: Handle, graph: *mut Handle) -> CUresult {
    if graph.is_null() {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        let id = resolve(s, stream)?;
        let q = s.sched.queues.get_mut(&id).ok_or(INVALID_HANDLE)?;
        if q.joined.is_some() {
            return Err(STREAM_CAPTURE_UNMATCHED);
        }
        let c = q.capture.as_ref().ok_or(ILLEGAL_STATE)?;
        if c.mode != MODE_RELAXED && c.thread != std::thread::current().id() {
            return Err(STREAM_CAPTURE_WRONG_THREAD);
        }
        let Some(c) = q.capture.take() else {
            return Err(ILLEGAL_STATE);
        };
        for q in s.sched.queues.values_mut() {
            if q.joined == Some(id) {
                q.joined = None;
            }
        }
        if c.invalidated || !c.joined_back(id) {
            *graph = std::ptr::null_mut();
            return Err(match c.invalidated {
                true => STREAM_CAPTURE_INVALIDATED,
                false => STREAM_CAPTURE_UNJOINED,
            });
        }
        let g = Graph::captured(s, c.nodes, c.deps);
        s.sched.graphs.insert(c.graph, g);
        *graph = c.graph as Handle;
        Ok(())
    }))
}

/// A stream's capture status, id and graph (the `cuStreamGetCaptureInfo`
/// family). Node handles do not exist here: the dependency set is
/// reported empty.
unsafe fn capture_info(
    stream: Handle,
    status: *mut c_int,
    id_out: *mut u64,
    graph_out: *mut Handle,
    deps_out: *mut *const Handle,
    edges_out: *mut *const c_void,
    count_out: *mut usize,
) -> CUresult {
    if status.is_null() {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        let id = resolve(s, stream)?;
        if id == LEGACY {
            use_legacy_status(&s.sched)?;
        }
        let (st, capture, graph) = match capture_of(&mut s.sched, id) {
            None => (STATUS_NONE, 0, 0),
            Some(c) if c.invalidated => (STATUS_INVALIDATED, c.id, c.graph),
            Some(c) => (STATUS_ACTIVE, c.id, c.graph),
        };
        *status = st;
        if !id_out.is_null() {
            *id_out = capture;
        }
        if !graph_out.is_null() {
            *graph_out = graph as Handle;
        }
        if !deps_out.is_null() {
            *deps_out = std::ptr::null();
        }
        if !edges_out.is_null() {
            *edges_out = std::ptr::null();
        }
        if !count_out.is_null() {
            *count_out = 0;
        }
        Ok(())
    }))
}

/// Queries on the legacy stream while a blocking stream captures fail
/// with CUDA_ERROR_STREAM_CAPTURE_IMPLICIT (without invalidating).
fn use_legacy_status(sched: &Scheduler) -> Result<(), CUresult> {
    let blocking_capture = sched
        .queues
        .iter()
        .any(|(&id, q)| id != LEGACY && !q.non_blocking && q.capturing());
    if blocking_capture {
        Err(STREAM_CAPTURE_IMPLICIT)
    } else {
        Ok(())
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamIsCapturing(stream: Handle, status: *mut c_int) -> CUresult {
    use std::ptr::null_mut;
    capture_info(
        stream,
        status,
        null_mut(),
        null_mut(),
        null_mut(),
        null_mut(),
        null_mut(),
    )
}

/// CUDA 10.1's form: status and id.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo(
    stream: Handle,
    status: *mut c_int,
    id: *mut u64,
) -> CUresult {
    use std::ptr::null_mut;
    capture_info(
        stream,
        status,
        id,
        null_mut(),
        null_mut(),
        null_mut(),
        null_mut(),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo_v2(
    stream: Handle,
    status: *mut c_int,
    id: *mut u64,
    graph: *mut Handle,
    deps: *mut *const Handle,
    count: *mut usize,
) -> CUresult {
    capture_info(stream, status, id, graph, deps, std::ptr::null_mut(), count)
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo_v3(
    stream: Handle,
    status: *mut c_int,
    id: *mut u64,
    graph: *mut Handle,
    deps: *mut *const Handle,
    edges: *mut *const c_void,
    count: *mut usize,
) -> CUresult {
    capture_info(stream, status, id, graph, deps, edges, count)
}

#[no_mangle]
pub unsafe extern "C" fn cuThreadExchangeStreamCaptureMode(mode: *mut c_int) -> CUresult {
    let Some(m) = mode.as_mut() else {
        return INVALID_VALUE;
    };
    if !(MODE_GLOBAL..=MODE_RELAXED).contains(m) {
        return INVALID_VALUE;
    }
    match THREAD_MODE.try_with(|t| t.replace(*m)) {
        Ok(previous) => {
            *m = previous;
            SUCCESS
        }
        Err(_) => INVALID_CONTEXT,
    }
}

// ---- Graphs ------------------------------------------------------------------------

/// Whether a node touches host memory or host code (not allowed in a
/// graph instantiated for device launch).
fn is_host_node(node: &Node) -> bool {
    match node {
        Node::Op(op) => matches!(
            op,
            Op::WriteFromHost { .. }
                | Op::WriteStaged { .. }
                | Op::Read { .. }
                | Op::HostFunc { .. }
                | Op::Callback { .. }
        ),
        Node::RecordEvent(_) | Node::WaitEvent(_) => true,
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiateWithFlags(
    exec: *mut Handle,
    graph: Handle,
    flags: u64,
) -> CUresult {
    if exec.is_null() {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        let source = s
            .sched
            .graphs
            .get(&(graph as usize))
            .ok_or(INVALID_HANDLE)?
            .clone();
        let (nodes, spans) = source.schedule()?;
        if flags & !(AUTO_FREE_ON_LAUNCH | DEVICE_LAUNCH | USE_NODE_PRIORITY) != 0 {
            return Err(INVALID_VALUE);
        }
        if flags & DEVICE_LAUNCH != 0
            && (flags & AUTO_FREE_ON_LAUNCH != 0 || nodes.iter().any(is_host_node))
        {
            return Err(INVALID_VALUE);
        }
        let h = s.handle();
        s.sched.execs.insert(
            h,
            GraphExec {
                nodes: nodes.into(),
                flags,
                last_launch: None,
                source,
                spans,
            },
        );
        s.user_objects.instantiated(graph as usize, h);
        *exec = h as Handle;
        Ok(())
    }))
}

/// `CUDA_GRAPH_INSTANTIATE_PARAMS`.
#[repr(C)]
pub struct GraphInstantiateParams {
    flags: u64,
    upload_stream: Handle,
    err_node_out: Handle,
    result_out: c_int,
}

/// `cuGraphInstantiateWithFlags` with its flags (and an upload stream,
/// which has nothing to upload) in a parameter block, whose result it sets
/// (`CUDA_GRAPH_INSTANTIATE_SUCCESS`, or `_ERROR` with the call's error).
#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiateWithParams(
    exec: *mut Handle,
    graph: Handle,
    params: *mut GraphInstantiateParams,
) -> CUresult {
    let Some(p) = params.as_mut() else {
        return INVALID_VALUE;
    };
    let r = cuGraphInstantiateWithFlags(exec, graph, p.flags);
    p.err_node_out = std::ptr::null_mut();
    // CUDA_GRAPH_INSTANTIATE_SUCCESS 0, _ERROR 1.
    p.result_out = if r == SUCCESS { 0 } else { 1 };
    r
}

/// CUDA 11's form (error node and log buffer; instantiation does not fail
/// on a node here).
#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiate_v2(
    exec: *mut Handle,
    graph: Handle,
    error_node: *mut Handle,
    log: *mut c_char,
    log_size: usize,
) -> CUresult {
    if !error_node.is_null() {
        *error_node = std::ptr::null_mut();
    }
    if !log.is_null() && log_size > 0 {
        *log = 0;
    }
    cuGraphInstantiateWithFlags(exec, graph, 0)
}

/// CUDA 10's form (the same arguments as `_v2`).
#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiate(
    exec: *mut Handle,
    graph: Handle,
    error_node: *mut Handle,
    log: *mut c_char,
    log_size: usize,
) -> CUresult {
    cuGraphInstantiate_v2(exec, graph, error_node, log, log_size)
}

/// Enqueues the graph's nodes on `stream`, in order, after the graph's
/// previous launch (into the stream's capture when it captures).
#[no_mangle]
pub unsafe extern "C" fn cuGraphLaunch(exec: Handle, stream: Handle) -> CUresult {
    done(with_state(|s| {
        let id = resolve(s, stream)?;
        let ctx = current_context();
        let e = s.sched.execs.get(&(exec as usize)).ok_or(INVALID_HANDLE)?;
        let (nodes, after) = (Arc::clone(&e.nodes), e.last_launch);
        let capturing = capture_of(&mut s.sched, id).is_some();
        if let Some(p) = after.filter(|&p| !capturing && !s.sched.is_done(p)) {
            enqueue(s, id, Op::Wait, vec![p], ctx)?;
        }
        for node in nodes.iter() {
            match node {
                Node::Op(op) => {
                    enqueue(s, id, op.clone(), Vec::new(), ctx)?;
                }
                Node::RecordEvent(event) => crate::stream::record_on(s, *event, id, true, ctx)?,
                Node::WaitEvent(event) => crate::stream::wait_on(s, id, *event, true, ctx)?,
            }
        }
        if !capturing {
            let tail = s.sched.pending_tail(id);
            if let Some(e) = s.sched.execs.get_mut(&(exec as usize)) {
                e.last_launch = tail;
            }
        }
        Ok(())
    }))
}

/// Nothing to upload: graphs run from host memory.
#[no_mangle]
pub unsafe extern "C" fn cuGraphUpload(exec: Handle, stream: Handle) -> CUresult {
    done(with_state(|s| {
        resolve(s, stream)?;
        s.sched
            .execs
            .get(&(exec as usize))
            .map(|_| ())
            .ok_or(INVALID_HANDLE)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphExecDestroy(exec: Handle) -> CUresult {
    destroy_holder(exec, |s| s.sched.execs.remove(&(exec as usize)).is_some())
}

/// Destroys a graph or executable graph (`remove` says whether it
/// existed) and drops the user-object references it held.
fn destroy_holder(h: Handle, remove: impl FnOnce(&mut State) -> bool) -> CUresult {
    let mut pending = None;
    let r = with_state(|s| {
        if !remove(s) {
            return Err(INVALID_HANDLE);
        }
        pending = Some(s.user_objects.dropped(h as usize));
        Ok(())
    });
    if let Some(p) = pending {
        p.run();
    }
    done(r)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphDestroy(graph: Handle) -> CUresult {
    destroy_holder(graph, |s| {
        s.sched.graphs.remove(&(graph as usize)).is_some()
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphExecGetFlags(exec: Handle, flags: *mut u64) -> CUresult {
    done(with_state(|s| {
        let e = s.sched.execs.get(&(exec as usize)).ok_or(INVALID_HANDLE)?;
        out(flags, e.flags)
    }))
}
