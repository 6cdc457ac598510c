//! Stream queues and their worker threads: the scheduler that makes the
//! shim's streams asynchronous. Each stream has a FIFO of work items and,
//! from its first item on, a worker thread that runs them in order; an
//! item starts once its dependencies (points in other streams: the legacy
//! stream's implicit synchronization, `cuStreamWaitEvent`, the previous
//! launch of a graph) are done. Workers hold the state lock only while
//! they pick, run (device ops) or finish an item: never while a host
//! function runs or while they wait, so the host thread keeps calling the
//! API. One condition variable, notified whenever an item finishes or a
//! stream goes away, wakes both workers and waiting host threads.
//!
//! Also here: stream handle resolution (`0`/`CU_STREAM_LEGACY` is the
//! legacy stream, `CU_STREAM_PER_THREAD` a blocking stream per host
//! thread), events' recorded state, and the contexts' sticky errors
//! (kernel faults, as on a GPU, are reported by the next synchronizing
//! call and stay until the context is reset).

use std::cell::Cell;
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Condvar, MutexGuard};
use std::time::Instant;

use super::*;
use crate::capture::{Capture, GraphExec};
use crate::ops::{Node, Op, OpError};

/// A stream's id: its handle, or `LEGACY`, or a per-thread stream's id.
pub(crate) type StreamId = usize;
/// The legacy default stream.
pub(crate) const LEGACY: StreamId = 0;
const CU_STREAM_LEGACY: usize = 1;
const CU_STREAM_PER_THREAD: usize = 2;
pub(crate) const CU_STREAM_NON_BLOCKING: c_uint = 1;

/// A point in a stream's order: done once the stream finished item `seq`.
pub(crate) type Point = (StreamId, u64);

pub(crate) type Guard = MutexGuard<'static, Option<State>>;

/// Notified whenever an item finishes or a stream is removed.
static WAKE: Condvar = Condvar::new();

pub(crate) fn lock() -> Guard {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

fn wait(guard: Guard) -> Guard {
    WAKE.wait(guard).unwrap_or_else(|e| e.into_inner())
}

struct Item {
    seq: u64,
    deps: Vec<Point>,
    op: Op,
    /// The context current when the item was enqueued (faults are its).
    ctx: usize,
}

pub(crate) struct Queue {
    pub non_blocking: bool,
    pub priority: c_int,
    items: VecDeque<Item>,
    /// Sequence number of the last item enqueued, and of the last finished.
    enqueued: u64,
    completed: u64,
    has_worker: bool,
    destroyed: bool,
    pub capture: Option<Capture>,
    /// The stream whose capture this one joined (by waiting on an event
    /// recorded in it), until that capture ends.
    pub joined: Option<StreamId>,
}

impl Queue {
    pub(crate) fn new(non_blocking: bool, priority: c_int) -> Queue {
        Queue {
            non_blocking,
            priority,
            items: VecDeque::new(),
            enqueued: 0,
            completed: 0,
            has_worker: false,
            destroyed: false,
            capture: None,
            joined: None,
        }
    }

    /// Whether work enqueued on the stream is captured.
    pub(crate) fn capturing(&self) -> bool {
        self.capture.is_some() || self.joined.is_some()
    }
}

/// What an event last recorded.
#[derive(Clone, Copy)]
pub(crate) enum Recorded {
    /// Nothing yet: an empty set of work, complete.
    Never,
    /// Work up to this point of a stream.
    Queued(Point),
    /// A point of a capture sequence (not work that will execute).
    Captured { stream: StreamId, capture: u64 },
}

pub(crate) struct Event {
    pub flags: c_uint,
    pub recorded: Recorded,
    /// Bumped by every record, so a superseded record does not stamp.
    pub generation: u64,
    /// When the latest record completed.
    pub time: Option<Instant>,
}

struct StickyError {
    code: CUresult,
    /// Kernel faults stay until the context is reset; other asynchronous
    /// errors are reported once.
    fault: bool,
}

#[derive(Default)]
pub(crate) struct Scheduler {
    pub queues: HashMap<StreamId, Queue>,
    pub events: HashMap<usize, Event>,
    sticky: HashMap<usize, StickyError>,
    pub graphs: HashMap<usize, crate::graph::Graph>,
    pub execs: HashMap<usize, GraphExec>,
    pub next_capture: u64,
}

/// Where an enqueued op went.
pub(crate) enum Ticket {
    /// Into a stream's queue, done at this point.
    Queued(Point),
    /// Into the stream's capture sequence (it will run when the graph does).
    Captured,
}

enum Next {
    Run(Item),
    Idle,
    Exit,
}

impl Scheduler {
    pub(crate) fn is_done(&self, (stream, seq): Point) -> bool {
        self.queues.get(&stream).is_none_or(|q| q.completed >= seq)
    }

    /// The point where the work enqueued on `stream` so far ends, if any
    /// of it is unfinished.
    pub(crate) fn pending_tail(&self, stream: StreamId) -> Option<Point> {
        let q = self.queues.get(&stream)?;
        (q.enqueued > q.completed).then_some((stream, q.enqueued))
    }

    /// The unfinished tails of every stream.
    pub(crate) fn all_pending_tails(&self) -> Vec<Point> {
        self.queues
            .keys()
            .filter_map(|&id| self.pending_tail(id))
            .collect()
    }

    pub(crate) fn event_complete(&self, e: &Event) -> bool {
        match e.recorded {
            Recorded::Never => true,
            Recorded::Queued(p) => self.is_done(p),
            Recorded::Captured { .. } => false,
        }
    }

    /// The context's kernel fault, if one happened (reported by the
    /// queries; work enqueued after it in that context does not run).
    pub(crate) fn fault(&self, ctx: usize) -> Result<(), CUresult> {
        match self.sticky.get(&ctx) {
            Some(e) if e.fault => Err(e.code),
            _ => Ok(()),
        }
    }

    /// The context's asynchronous error for a synchronizing call: a fault
    /// stays; another error is reported once.
    pub(crate) fn take_error(&mut self, ctx: usize) -> Result<(), CUresult> {
        let Some(e) = self.sticky.get(&ctx) else {
            return Ok(());
        };
        let code = e.code;
        if !e.fault {
            self.sticky.remove(&ctx);
        }
        Err(code)
    }

    /// Forgets the context's sticky error (context destroyed or reset).
    pub(crate) fn reset_context(&mut self, ctx: usize) {
        self.sticky.remove(&ctx);
    }

    /// Marks a stream destroyed: its worker finishes what is queued, then
    /// removes it. A capture in progress ends with it.
    pub(crate) fn destroy_stream(&mut self, id: StreamId) {
        for q in self.queues.values_mut() {
            if q.joined == Some(id) {
                q.joined = None;
            }
        }
        if let Some(q) = self.queues.get_mut(&id) {
            q.capture = None;
            q.destroyed = true;
            if !q.has_worker {
                self.queues.remove(&id);
            }
        }
        WAKE.notify_all();
    }

    fn next_item(&mut self, id: StreamId) -> Next {
        let Some(q) = self.queues.get(&id) else {
            return Next::Exit;
        };
        let ready = match q.items.front() {
            None if q.destroyed => return Next::Exit,
            None => false,
            Some(item) => item.deps.iter().all(|&p| self.is_done(p)),
        };
        if !ready {
            return Next::Idle;
        }
        match self.queues.get_mut(&id).and_then(|q| q.items.pop_front()) {
            Some(item) => Next::Run(item),
            None => Next::Idle,
        }
    }

    fn finish(&mut self, id: StreamId, item: &Item, result: Result<(), OpError>) {
        if let Err(e) = result {
            let replace = self
                .sticky
                .get(&item.ctx)
                .is_none_or(|s| !s.fault && e.fault);
            if replace {
                self.sticky.insert(
                    item.ctx,
                    StickyError {
                        code: e.code,
                        fault: e.fault,
                    },
                );
            }
        }
        if let Op::RecordEvent { event, generation } = item.op {
            if let Some(ev) = self.events.get_mut(&event) {
                if ev.generation == generation {
                    ev.time = Some(Instant::now());
                }
            }
        }
        if let Some(q) = self.queues.get_mut(&id) {
            q.completed = item.seq;
        }
    }
}

/// The context current on this thread (the primary one when none is).
pub(crate) fn current_context() -> usize {
    CTX_STACK
        .try_with(|st| st.borrow().last().copied())
        .ok()
        .flatten()
        .unwrap_or(PRIMARY)
}

/// This thread's `CU_STREAM_PER_THREAD` stream; destroyed when the
/// thread exits.
struct PerThreadStream(Cell<StreamId>);

impl Drop for PerThreadStream {
    fn drop(&mut self) {
        let id = self.0.get();
        // Not in a forked child (the thread that forked exits there with
        // the parent's stream id; the lock may be held forever there).
        if id != 0 && !crate::forked() {
            if let Some(s) = lock().as_mut() {
                s.sched.destroy_stream(id);
            }
        }
    }
}

thread_local! {
    static PER_THREAD: PerThreadStream = const { PerThreadStream(Cell::new(0)) };
}

/// The stream a handle names (creating the legacy and per-thread streams
/// on first use).
pub(crate) fn resolve(s: &mut State, stream: Handle) -> Result<StreamId, CUresult> {
    match stream as usize {
        0 | CU_STREAM_LEGACY => {
            s.sched
                .queues
                .entry(LEGACY)
                .or_insert_with(|| Queue::new(false, 0));
            Ok(LEGACY)
        }
        CU_STREAM_PER_THREAD => {
            let id = PER_THREAD
                .try_with(|p| p.0.get())
                .map_err(|_| INVALID_HANDLE)?;
            if id != 0 && s.sched.queues.contains_key(&id) {
                return Ok(id);
            }
            let id = s.handle();
            s.sched.queues.insert(id, Queue::new(false, 0));
            PER_THREAD
                .try_with(|p| p.0.set(id))
                .map_err(|_| INVALID_HANDLE)?;
            Ok(id)
        }
        h => match s.sched.queues.get(&h) {
            Some(q) if !q.destroyed => Ok(h),
            _ => Err(INVALID_HANDLE),
        },
    }
}

/// Enqueues `op` on the stream `stream` names (see [`enqueue`]) for the
/// current context.
pub(crate) fn submit(s: &mut State, stream: Handle, op: Op) -> Result<Ticket, CUresult> {
    let id = resolve(s, stream)?;
    submit_to(s, id, op)
}

/// [`submit`] on a resolved stream.
pub(crate) fn submit_to(s: &mut State, id: StreamId, op: Op) -> Result<Ticket, CUresult> {
    enqueue(s, id, op, Vec::new(), current_context())
}

/// Appends `op` to a resolved stream: to its capture sequence while it
/// captures, otherwise to its queue with the implicit dependencies of
/// the legacy stream (legacy work waits for the work before it on every
/// blocking stream; blocking-stream work waits for the legacy stream's)
/// and `deps`. Starts the stream's worker on first use.
pub(crate) fn enqueue(
    s: &mut State,
    id: StreamId,
    op: Op,
    mut deps: Vec<Point>,
    ctx: usize,
) -> Result<Ticket, CUresult> {
    let sched = &mut s.sched;
    if !sched.queues.contains_key(&id) {
        return Err(INVALID_HANDLE);
    }
    if let Some(c) = crate::capture::capture_of(sched, id) {
        if c.invalidated {
            return Err(STREAM_CAPTURE_INVALIDATED);
        }
        c.push(id, Node::Op(op));
        return Ok(Ticket::Captured);
    }
    let q = sched.queues.get_mut(&id).ok_or(INVALID_HANDLE)?;
    let non_blocking = q.non_blocking;
    if id == LEGACY {
        crate::capture::use_legacy_stream(sched)?;
        let blocking: Vec<StreamId> = sched
            .queues
            .iter()
            .filter(|(&other, q)| other != LEGACY && !q.non_blocking)
            .map(|(&other, _)| other)
            .collect();
        deps.extend(blocking.into_iter().filter_map(|b| sched.pending_tail(b)));
    } else if !non_blocking {
        deps.extend(sched.pending_tail(LEGACY));
    }
    let q = sched.queues.get_mut(&id).ok_or(INVALID_HANDLE)?;
    let idle = q.items.is_empty() && q.enqueued == q.completed;
    if idle && deps.iter().all(|&p| sched.is_done(p)) {
        match run_inline(s, id, op, ctx) {
            Ok(seq) => return Ok(Ticket::Queued((id, seq))),
            Err(op) => return queue_item(s, id, op, deps, ctx),
        }
    }
    queue_item(s, id, op, deps, ctx)
}

/// The most bytes a copy or memset runs on the calling thread
/// ([`run_inline`]): below this the hand-off to the stream's worker costs
/// more than the copy; above it the host should not wait.
pub(crate) const INLINE_BYTES: usize = 1 << 20;

/// Runs a short device op at once on the calling thread, under the state
/// lock, when the stream has nothing to wait for (the caller checked): the
/// op would be the next its worker runs, and CUDA allows an asynchronous
/// copy or memset to complete before the call returns. Saves the worker's
/// wake-up and the host's wait for it (tens to hundreds of microseconds on
/// a busy machine, more than a small copy). Kernels, host functions and
/// callbacks are always queued (they must not block or re-enter the
/// caller), and so are long copies and a free while a kernel holds the
/// device. Gives the op back when it does not run it.
fn run_inline(s: &mut State, id: StreamId, op: Op, ctx: usize) -> Result<u64, Op> {
    let short = match &op {
        Op::WriteStaged { data, .. } => data.len() <= INLINE_BYTES,
        Op::WriteFromHost { len, .. } | Op::Read { len, .. } | Op::DeviceCopy { len, .. } => {
            *len <= INLINE_BYTES
        }
        Op::Memset { width, count, .. } => width.saturating_mul(*count) <= INLINE_BYTES,
        Op::RecordEvent { .. } | Op::Wait => true,
        // Freeing changes the device: only when no kernel reads it.
        Op::Free { .. } => s.device.try_write().is_ok(),
        Op::Launch(_) | Op::HostFunc { .. } | Op::Callback { .. } => false,
    };
    if !short {
        return Err(op);
    }
    let Some(q) = s.sched.queues.get_mut(&id) else {
        return Err(op);
    };
    q.enqueued += 1;
    let seq = q.enqueued;
    run_locked(
        s,
        id,
        &Item {
            seq,
            deps: Vec::new(),
            op,
            ctx,
        },
    );
    WAKE.notify_all();
    Ok(seq)
}

/// Queues an item for the stream's worker (started on first use).
fn queue_item(
    s: &mut State,
    id: StreamId,
    op: Op,
    deps: Vec<Point>,
    ctx: usize,
) -> Result<Ticket, CUresult> {
    let q = s.sched.queues.get_mut(&id).ok_or(INVALID_HANDLE)?;
    if !q.has_worker {
        std::thread::Builder::new()
            .name(format!("warpjit-stream-{id:#x}"))
            .spawn(move || run_worker(id))
            .map_err(|_| OUT_OF_MEMORY)?;
        q.has_worker = true;
    }
    q.enqueued += 1;
    let seq = q.enqueued;
    q.items.push_back(Item { seq, deps, op, ctx });
    WAKE.notify_all();
    Ok(Ticket::Queued((id, seq)))
}

/// Whether an op enqueued now on `id` would have nothing to wait for: the
/// stream idle, and (by the legacy stream's rules) the streams it
/// synchronizes with idle too.
pub(crate) fn would_run_at_once(sched: &Scheduler, id: StreamId) -> bool {
    let Some(q) = sched.queues.get(&id) else {
        return false;
    };
    if q.capturing() || q.enqueued > q.completed {
        return false;
    }
    if id == LEGACY {
        sched
            .queues
            .iter()
            .all(|(&other, q)| other == LEGACY || q.non_blocking || q.enqueued == q.completed)
    } else {
        q.non_blocking || sched.pending_tail(LEGACY).is_none()
    }
}

/// The point a stream's finished work ends at (for records that complete
/// at once).
pub(crate) fn completed_point(sched: &Scheduler, id: StreamId) -> Point {
    (id, sched.queues.get(&id).map_or(0, |q| q.completed))
}

/// A stream's worker: runs its items in order until the stream is
/// destroyed and drained.
fn run_worker(id: StreamId) {
    let mut guard = lock();
    loop {
        let Some(s) = guard.as_mut() else {
            return;
        };
        match s.sched.next_item(id) {
            Next::Exit => {
                s.sched.queues.remove(&id);
                WAKE.notify_all();
                return;
            }
            Next::Idle => guard = wait(guard),
            Next::Run(item) => guard = execute(guard, id, item),
        }
    }
}

/// Runs one item: device ops under the state lock, host functions and
/// callbacks without it. Then marks it finished and wakes every waiter.
/// After a kernel fault its context is unusable, as on a GPU: its later
/// device work and host functions do not run (callbacks do, given the
/// error; event records still complete).
fn execute(mut guard: Guard, id: StreamId, item: Item) -> Guard {
    let faulted = guard
        .as_ref()
        .is_some_and(|s| s.sched.fault(item.ctx).is_err());
    let result = match &item.op {
        Op::HostFunc { .. } if faulted => Ok(()),
        Op::HostFunc { f, data } => {
            drop(guard);
            // SAFETY: the client's function and data, called as CUDA does.
            unsafe { f(data.0) };
            guard = lock();
            Ok(())
        }
        Op::Callback { f, stream, data } => {
            let status = guard
                .as_ref()
                .and_then(|s| s.sched.sticky.get(&item.ctx))
                .map_or(SUCCESS, |e| e.code);
            drop(guard);
            // SAFETY: as above.
            unsafe { f(*stream as Handle, status, data.0) };
            guard = lock();
            Ok(())
        }
        Op::Launch(_) if faulted => Ok(()),
        // A kernel runs under the device's read lock without the state
        // lock, so that kernels of other streams run at the same time and
        // host calls go on (those that change the device wait for it).
        op @ Op::Launch(_) => match guard.as_ref().map(|s| s.device.clone()) {
            Some(device) => {
                drop(guard);
                let result = {
                    let device = device.read().unwrap_or_else(|e| e.into_inner());
                    catch_unwind(AssertUnwindSafe(|| op.run(&device)))
                };
                guard = lock();
                result.unwrap_or(Err(OpError {
                    code: UNKNOWN,
                    fault: true,
                }))
            }
            None => Ok(()),
        },
        _ => {
            if let Some(s) = guard.as_mut() {
                run_locked(s, id, &item);
            }
            WAKE.notify_all();
            return guard;
        }
    };
    if let Some(s) = guard.as_mut() {
        s.sched.finish(id, &item, result);
    }
    WAKE.notify_all();
    guard
}

/// Runs an item that needs only the state (copies, memsets, frees, event
/// records, waits), on the stream's worker or at once on the calling
/// thread ([`run_inline`]), and marks it finished. After a fault in its
/// context, copies, memsets and frees do not run.
fn run_locked(s: &mut State, id: StreamId, item: &Item) {
    let skipped =
        s.sched.fault(item.ctx).is_err() && !matches!(item.op, Op::RecordEvent { .. } | Op::Wait);
    let result = match &item.op {
        _ if skipped => Ok(()),
        Op::Free { dptr } => s.free_allocation(*dptr),
        op => catch_unwind(AssertUnwindSafe(|| op.run(&s.dev()))).unwrap_or(Err(OpError {
            code: UNKNOWN,
            fault: true,
        })),
    };
    s.sched.finish(id, item, result);
}

/// Runs `prepare` under the state lock; waits, with the lock released,
/// until every point it returned is done; then runs `finish`.
pub(crate) fn wait_then<T>(
    prepare: impl FnOnce(&mut State) -> Result<Vec<Point>, CUresult>,
    finish: impl FnOnce(&mut State) -> Result<T, CUresult>,
) -> Result<T, CUresult> {
    if crate::forked() {
        return Err(NOT_INITIALIZED);
    }
    let mut guard = lock();
    let points = match guard.as_mut() {
        Some(s) => prepare(s)?,
        None => return Err(NOT_INITIALIZED),
    };
    loop {
        match guard.as_mut() {
            None => return Err(NOT_INITIALIZED),
            Some(s) if points.iter().all(|&p| s.sched.is_done(p)) => return finish(s),
            Some(_) => guard = wait(guard),
        }
    }
}
