//! Streams and events as entry points: creating and destroying streams,
//! synchronizing and querying them, host functions and callbacks,
//! cross-stream waits, and events (record, query, synchronize, elapsed
//! time). The queues and workers behind them are in `queue.rs`; capture
//! in `capture.rs`.

use std::time::Instant;

use super::*;
use crate::capture::{capture_of, invalidate, refuse_if_capturing, use_legacy_stream};
use crate::ops::{HostFn, HostPtr, Node, Op, StreamCallback};
use crate::queue::{
    completed_point, current_context, enqueue, resolve, submit, wait_then, would_run_at_once,
    Event, Queue, Recorded, StreamId, Ticket, CU_STREAM_NON_BLOCKING, LEGACY,
};

/// `CUevent_flags`.
const EVENT_FLAGS: c_uint = 0x1 | 0x2 | 0x4;
const EVENT_DISABLE_TIMING: c_uint = 0x2;
/// `CU_EVENT_RECORD_EXTERNAL` / `CU_EVENT_WAIT_EXTERNAL`.
const EXTERNAL: c_uint = 0x1;

// ---- Streams ------------------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn cuStreamCreate(stream: *mut Handle, flags: c_uint) -> CUresult {
    cuStreamCreateWithPriority(stream, flags, 0)
}

/// Priorities are accepted and clamped to the range the context reports
/// (0 to 0: warpjit schedules streams alike).
#[no_mangle]
pub unsafe extern "C" fn cuStreamCreateWithPriority(
    stream: *mut Handle,
    flags: c_uint,
    _priority: c_int,
) -> CUresult {
    if stream.is_null() {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        if flags & !CU_STREAM_NON_BLOCKING != 0 {
            return Err(INVALID_VALUE);
        }
        let h = s.handle();
        s.sched
            .queues
            .insert(h, Queue::new(flags == CU_STREAM_NON_BLOCKING, 0));
        out(stream, h as Handle)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetStreamPriorityRange(
    least: *mut c_int,
    greatest: *mut c_int,
) -> CUresult {
    if !least.is_null() {
        *least = 0;
    }
    if !greatest.is_null() {
        *greatest = 0;
    }
    SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamGetPriority(stream: Handle, priority: *mut c_int) -> CUresult {
    done(with_state(|s| {
        let id = resolve(s, stream)?;
        let p = s.sched.queues.get(&id).map_or(0, |q| q.priority);
        out(priority, p)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamGetFlags(stream: Handle, flags: *mut c_uint) -> CUresult {
    done(with_state(|s| {
        let id = resolve(s, stream)?;
        let non_blocking = s.sched.queues.get(&id).is_some_and(|q| q.non_blocking);
        out(
            flags,
            if non_blocking {
                CU_STREAM_NON_BLOCKING
            } else {
                0
            },
        )
    }))
}

/// Returns at once; the stream's worker finishes its queued work, then
/// goes away (CUDA's semantics).
#[no_mangle]
pub unsafe extern "C" fn cuStreamDestroy_v2(stream: Handle) -> CUresult {
    done(with_state(|s| {
        let h = stream as usize;
        let created = h >= FIRST_HANDLE && s.sched.queues.contains_key(&h);
        if !created || resolve(s, stream).is_err() {
            return Err(INVALID_HANDLE);
        }
        s.sched.destroy_stream(h);
        Ok(())
    }))
}

/// Waits for the work enqueued on the stream so far; returns the
/// context's asynchronous error, if any.
#[no_mangle]
pub unsafe extern "C" fn cuStreamSynchronize(stream: Handle) -> CUresult {
    let ctx = current_context();
    done(wait_then(
        |s| {
            let id = resolve(s, stream)?;
            refuse_if_capturing(&mut s.sched, id)?;
            if id == LEGACY {
                use_legacy_stream(&mut s.sched)?;
            }
            Ok(s.sched.pending_tail(id).into_iter().collect())
        },
        |s| s.sched.take_error(ctx),
    ))
}

/// CUDA_ERROR_NOT_READY while work on the stream is pending.
#[no_mangle]
pub unsafe extern "C" fn cuStreamQuery(stream: Handle) -> CUresult {
    let ctx = current_context();
    done(with_state(|s| {
        let id = resolve(s, stream)?;
        refuse_if_capturing(&mut s.sched, id)?;
        if id == LEGACY {
            use_legacy_stream(&mut s.sched)?;
        }
        s.sched.fault(ctx)?;
        match s.sched.pending_tail(id) {
            Some(_) => Err(NOT_READY),
            None => Ok(()),
        }
    }))
}

/// Makes later work on `stream` wait for the event's latest record.
#[no_mangle]
pub unsafe extern "C" fn cuStreamWaitEvent(
    stream: Handle,
    event: Handle,
    flags: c_uint,
) -> CUresult {
    let ctx = current_context();
    done(with_state(|s| {
        let id = resolve(s, stream)?;
        wait_on(s, id, event as usize, flags & EXTERNAL != 0, ctx)
    }))
}

/// `cuStreamWaitEvent` on a resolved stream (also a graph's wait nodes).
pub(crate) fn wait_on(
    s: &mut State,
    id: StreamId,
    event: usize,
    external: bool,
    ctx: usize,
) -> Result<(), CUresult> {
    let recorded = s.sched.events.get(&event).ok_or(INVALID_HANDLE)?.recorded;
    if let Some(c) = capture_of(&mut s.sched, id) {
        if c.invalidated {
            return Err(STREAM_CAPTURE_INVALIDATED);
        }
        if external {
            c.push(id, Node::WaitEvent(event));
            return Ok(());
        }
        // An event recorded in this capture: the stream's next node
        // follows what the record followed (a join). Else an error.
        return match recorded {
            Recorded::Captured { capture, .. } if capture == c.id => {
                c.merge(id, event);
                Ok(())
            }
            Recorded::Captured { .. } => {
                c.invalidated = true;
                Err(STREAM_CAPTURE_MERGE)
            }
            _ => {
                c.invalidated = true;
                Err(STREAM_CAPTURE_ISOLATION)
            }
        };
    }
    if external {
        return Err(INVALID_VALUE);
    }
    if id == LEGACY {
        use_legacy_stream(&mut s.sched)?;
    }
    match recorded {
        Recorded::Never => Ok(()),
        Recorded::Queued(p) if s.sched.is_done(p) => Ok(()),
        Recorded::Queued(p) => enqueue(s, id, Op::Wait, vec![p], ctx).map(|_| ()),
        // A stream joins the capture the event was recorded in (a fork):
        // its work is captured from now on, after what the record followed.
        Recorded::Captured { stream, capture } => {
            let active =
                capture_of(&mut s.sched, stream).is_some_and(|c| c.id == capture && !c.invalidated);
            if !active || id == LEGACY {
                invalidate(&mut s.sched, stream, capture);
                return Err(if active {
                    STREAM_CAPTURE_IMPLICIT
                } else {
                    CAPTURED_EVENT
                });
            }
            if let Some(c) = capture_of(&mut s.sched, stream) {
                c.merge(id, event);
            }
            if let Some(q) = s.sched.queues.get_mut(&id) {
                q.joined = Some(stream);
            }
            Ok(())
        }
    }
}

/// Runs `f(data)` on a worker thread when the stream reaches it, holding
/// the stream (and what waits on it) until it returns.
#[no_mangle]
pub unsafe extern "C" fn cuLaunchHostFunc(
    stream: Handle,
    f: Option<HostFn>,
    data: *mut c_void,
) -> CUresult {
    let Some(f) = f else {
        return INVALID_VALUE;
    };
    done(with_state(|s| {
        let op = Op::HostFunc {
            f,
            data: HostPtr(data),
        };
        submit(s, stream, op).map(|_| ())
    }))
}

/// The older host callback (`CUstreamCallback`, given the stream and the
/// context's error status); not capturable.
#[no_mangle]
pub unsafe extern "C" fn cuStreamAddCallback(
    stream: Handle,
    f: Option<StreamCallback>,
    data: *mut c_void,
    flags: c_uint,
) -> CUresult {
    let Some(f) = f else {
        return INVALID_VALUE;
    };
    if flags != 0 {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        let id = resolve(s, stream)?;
        refuse_if_capturing(&mut s.sched, id)?;
        let op = Op::Callback {
            f,
            stream: stream as usize,
            data: HostPtr(data),
        };
        submit(s, stream, op).map(|_| ())
    }))
}

// ---- Events -------------------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn cuEventCreate(event: *mut Handle, flags: c_uint) -> CUresult {
    if event.is_null() {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        if flags & !EVENT_FLAGS != 0 {
            return Err(INVALID_VALUE);
        }
        let h = s.handle();
        s.sched.events.insert(
            h,
            Event {
                flags,
                recorded: Recorded::Never,
                generation: 0,
                time: None,
            },
        );
        out(event, h as Handle)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuEventRecord(event: Handle, stream: Handle) -> CUresult {
    cuEventRecordWithFlags(event, stream, 0)
}

/// Records the work enqueued on `stream` so far into the event; in a
/// capture, marks the event captured (with `CU_EVENT_RECORD_EXTERNAL`:
/// adds a record node instead).
#[no_mangle]
pub unsafe extern "C" fn cuEventRecordWithFlags(
    event: Handle,
    stream: Handle,
    flags: c_uint,
) -> CUresult {
    let ctx = current_context();
    done(with_state(|s| {
        if flags & !EXTERNAL != 0 {
            return Err(INVALID_VALUE);
        }
        let id = resolve(s, stream)?;
        record_on(s, event as usize, id, flags & EXTERNAL != 0, ctx)
    }))
}

/// `cuEventRecord` on a resolved stream (also a graph's record nodes).
pub(crate) fn record_on(
    s: &mut State,
    event: usize,
    id: StreamId,
    external: bool,
    ctx: usize,
) -> Result<(), CUresult> {
    if !s.sched.events.contains_key(&event) {
        return Err(INVALID_HANDLE);
    }
    if let Some(c) = capture_of(&mut s.sched, id) {
        if c.invalidated {
            return Err(STREAM_CAPTURE_INVALIDATED);
        }
        if external {
            c.push(id, Node::RecordEvent(event));
            return Ok(());
        }
        let frontier = c.frontier.get(&id).cloned().unwrap_or_default();
        c.recorded.insert(event, frontier);
        let capture = c.id;
        let owner = crate::capture::owner_of(&s.sched, id).unwrap_or(id);
        let recorded = Recorded::Captured {
            stream: owner,
            capture,
        };
        if let Some(e) = s.sched.events.get_mut(&event) {
            e.generation += 1;
            e.recorded = recorded;
            e.time = None;
        }
        return Ok(());
    }
    if external {
        return Err(INVALID_VALUE);
    }
    if id == LEGACY {
        use_legacy_stream(&mut s.sched)?;
    }
    let generation = s.sched.events.get(&event).map_or(0, |e| e.generation) + 1;
    // Nothing pending before it: the record completes now.
    let (recorded, time) = if would_run_at_once(&s.sched, id) {
        (
            Recorded::Queued(completed_point(&s.sched, id)),
            Some(Instant::now()),
        )
    } else {
        match enqueue(
            s,
            id,
            Op::RecordEvent { event, generation },
            Vec::new(),
            ctx,
        )? {
            Ticket::Queued(p) => (Recorded::Queued(p), None),
            Ticket::Captured => return Ok(()),
        }
    };
    if let Some(e) = s.sched.events.get_mut(&event) {
        e.generation = generation;
        e.recorded = recorded;
        e.time = time;
    }
    Ok(())
}

/// `Err` for an event last recorded in a capture sequence: querying or
/// synchronizing it invalidates the capture (CUDA_ERROR_CAPTURED_EVENT).
fn refuse_captured(s: &mut State, recorded: Recorded) -> Result<(), CUresult> {
    if let Recorded::Captured { stream, capture } = recorded {
        invalidate(&mut s.sched, stream, capture);
        return Err(CAPTURED_EVENT);
    }
    Ok(())
}

/// CUDA_ERROR_NOT_READY until the recorded work completes; an event never
/// recorded is complete.
#[no_mangle]
pub unsafe extern "C" fn cuEventQuery(event: Handle) -> CUresult {
    let ctx = current_context();
    done(with_state(|s| {
        let e = s
            .sched
            .events
            .get(&(event as usize))
            .ok_or(INVALID_HANDLE)?;
        let (recorded, complete) = (e.recorded, s.sched.event_complete(e));
        refuse_captured(s, recorded)?;
        s.sched.fault(ctx)?;
        if complete {
            Ok(())
        } else {
            Err(NOT_READY)
        }
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuEventSynchronize(event: Handle) -> CUresult {
    let ctx = current_context();
    done(wait_then(
        |s| {
            let e = s
                .sched
                .events
                .get(&(event as usize))
                .ok_or(INVALID_HANDLE)?;
            let recorded = e.recorded;
            refuse_captured(s, recorded)?;
            Ok(match recorded {
                Recorded::Queued(p) => vec![p],
                _ => Vec::new(),
            })
        },
        |s| s.sched.take_error(ctx),
    ))
}

/// Milliseconds between two completed records (host time when the
/// streams reached them).
#[no_mangle]
pub unsafe extern "C" fn cuEventElapsedTime(ms: *mut f32, start: Handle, end: Handle) -> CUresult {
    if ms.is_null() {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        let mut times = [None; 2];
        for (slot, h) in times.iter_mut().zip([start, end]) {
            let e = s.sched.events.get(&(h as usize)).ok_or(INVALID_HANDLE)?;
            if e.flags & EVENT_DISABLE_TIMING != 0 {
                return Err(INVALID_HANDLE);
            }
            match e.recorded {
                Recorded::Never => return Err(INVALID_HANDLE),
                Recorded::Captured { .. } => return Err(CAPTURED_EVENT),
                Recorded::Queued(_) if !s.sched.event_complete(e) => return Err(NOT_READY),
                Recorded::Queued(_) => *slot = Some(e.time.ok_or(NOT_READY)?),
            }
        }
        let [Some(a), Some(b)] = times else {
            return Err(NOT_READY);
        };
        let millis = if b >= a {
            b.duration_since(a).as_secs_f32() * 1e3
        } else {
            -(a.duration_since(b).as_secs_f32() * 1e3)
        };
        out(ms, millis)
    }))
}

/// CUDA 12.8's form (the same arguments).
#[no_mangle]
pub unsafe extern "C" fn cuEventElapsedTime_v2(
    ms: *mut f32,
    start: Handle,
    end: Handle,
) -> CUresult {
    cuEventElapsedTime(ms, start, end)
}

/// An event may be destroyed while its record is pending.
#[no_mangle]
pub unsafe extern "C" fn cuEventDestroy_v2(event: Handle) -> CUresult {
    done(with_state(|s| {
        s.sched
            .events
            .remove(&(event as usize))
            .map(|_| ())
            .ok_or(INVALID_HANDLE)
    }))
}

/// A stream's unique id (its handle's number; the legacy and per-thread
/// streams have their own).
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetId(stream: Handle, id: *mut u64) -> CUresult {
    done(with_state(|s| {
        let i = resolve(s, stream)?;
        out(id, i as u64)
    }))
}

/// The context current for the calling thread (every stream here belongs to
/// the one device's contexts, which share its memory).
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCtx(stream: Handle, ctx: *mut Handle) -> CUresult {
    match done(with_state(|s| resolve(s, stream).map(|_| ()))) {
        SUCCESS => crate::context::cuCtxGetCurrent(ctx),
        e => e,
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamGetDevice(stream: Handle, device: *mut c_int) -> CUresult {
    done(with_state(|s| {
        resolve(s, stream)?;
        out(device, 0)
    }))
}
