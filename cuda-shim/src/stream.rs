//! Streams and events. Work runs when it is enqueued, so every stream is
//! idle and every recorded event complete.

use super::*;

// ---- Streams and events (work runs at enqueue) ----------------------------------

#[no_mangle]
pub unsafe extern "C" fn cuStreamCreate(stream: *mut Handle, _flags: c_uint) -> CUresult {
    done(with_state(|s| {
        let h = s.handle();
        out(stream, h as Handle)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamDestroy_v2(_stream: Handle) -> CUresult {
    done(with_state(|_| Ok(())))
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamSynchronize(_stream: Handle) -> CUresult {
    done(with_state(|_| Ok(())))
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamWaitEvent(
    _stream: Handle,
    _event: Handle,
    _flags: c_uint,
) -> CUresult {
    done(with_state(|_| Ok(())))
}

#[no_mangle]
pub unsafe extern "C" fn cuEventCreate(event: *mut Handle, _flags: c_uint) -> CUresult {
    done(with_state(|s| {
        let h = s.handle();
        s.events.insert(h, None);
        out(event, h as Handle)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuEventRecord(event: Handle, _stream: Handle) -> CUresult {
    done(with_state(|s| {
        let e = s.events.get_mut(&(event as usize)).ok_or(INVALID_HANDLE)?;
        *e = Some(Instant::now());
        Ok(())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuEventSynchronize(event: Handle) -> CUresult {
    done(with_state(|s| {
        s.events
            .get(&(event as usize))
            .map(|_| ())
            .ok_or(INVALID_HANDLE)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuEventElapsedTime(ms: *mut f32, start: Handle, end: Handle) -> CUresult {
    done(with_state(|s| {
        let a = s.events.get(&(start as usize)).ok_or(INVALID_HANDLE)?;
        let b = s.events.get(&(end as usize)).ok_or(INVALID_HANDLE)?;
        match (a, b) {
            (Some(a), Some(b)) => out(ms, b.saturating_duration_since(*a).as_secs_f32() * 1e3),
            _ => Err(600),
        }
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuEventDestroy_v2(event: Handle) -> CUresult {
    done(with_state(|s| {
        s.events
            .remove(&(event as usize))
            .map(|_| ())
            .ok_or(INVALID_HANDLE)
    }))
}

/// Work is done when enqueued: every stream is idle.
#[no_mangle]
pub unsafe extern "C" fn cuStreamQuery(_stream: Handle) -> CUresult {
    done(with_state(|_| Ok(())))
}

/// A recorded event has completed (work is done when enqueued).
#[no_mangle]
pub unsafe extern "C" fn cuEventQuery(event: Handle) -> CUresult {
    done(with_state(|s| {
        s.events
            .get(&(event as usize))
            .map(|_| ())
            .ok_or(INVALID_HANDLE)
    }))
}
