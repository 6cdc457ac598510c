//! Contexts: the primary one and created ones on a per-thread current stack,
//! context synchronization and sticky errors (reset with the context),
//! context limits and cache configuration.

use super::*;
use crate::capture::check_unsafe_call;
use crate::queue::{current_context, wait_then};

// ---- Contexts ----------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(ctx: *mut Handle, device: c_int) -> CUresult {
    done(with_state(|s| {
        if device != 0 {
            return Err(INVALID_DEVICE);
        }
        out(ctx, PRIMARY as Handle)?;
        s.primary_retains += 1;
        Ok(())
    }))
}

/// The last release ends the primary context's life: its sticky error
/// goes with it (a later retain gets a usable context, as in CUDA).
#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRelease_v2(device: c_int) -> CUresult {
    done(with_state(|s| {
        if device != 0 {
            return Err(INVALID_DEVICE);
        }
        s.primary_retains = s.primary_retains.saturating_sub(1);
        if s.primary_retains == 0 {
            s.sched.reset_context(PRIMARY);
        }
        Ok(())
    }))
}

/// Waits for the work enqueued so far and clears the primary context's
/// sticky error.
#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxReset_v2(device: c_int) -> CUresult {
    if device != 0 {
        return INVALID_DEVICE;
    }
    done(wait_then(
        |s| Ok(s.sched.all_pending_tails()),
        |s| {
            s.sched.reset_context(PRIMARY);
            Ok(())
        },
    ))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v2(
    ctx: *mut Handle,
    flags: c_uint,
    device: c_int,
) -> CUresult {
    done(with_state(|s| {
        if device != 0 {
            return Err(INVALID_DEVICE);
        }
        let h = s.handle();
        out(ctx, h as Handle)?;
        s.contexts.push(h);
        s.context_flags.insert(h, flags);
        CTX_STACK.with(|st| st.borrow_mut().push(h));
        Ok(())
    }))
}

/// Waits for the work enqueued so far (streams are shared by the
/// contexts here), then destroys the context and its sticky error.
#[no_mangle]
pub unsafe extern "C" fn cuCtxDestroy_v2(ctx: Handle) -> CUresult {
    let h = ctx as usize;
    done(wait_then(
        |s| {
            if !s.contexts.contains(&h) {
                return Err(INVALID_CONTEXT);
            }
            Ok(s.sched.all_pending_tails())
        },
        |s| {
            if h != PRIMARY {
                s.contexts.retain(|&c| c != h);
                s.context_flags.remove(&h);
                s.sched.reset_context(h);
            }
            CTX_STACK.with(|st| st.borrow_mut().retain(|&c| c != h));
            Ok(())
        },
    ))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCurrent(ctx: *mut Handle) -> CUresult {
    if forked() {
        return NOT_INITIALIZED;
    }
    let top = CTX_STACK
        .with(|st| st.borrow().last().copied())
        .unwrap_or(0);
    done(out(ctx, top as Handle))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxSetCurrent(ctx: Handle) -> CUresult {
    done(with_state(|s| {
        let h = ctx as usize;
        if h != 0 && !s.contexts.contains(&h) {
            return Err(INVALID_CONTEXT);
        }
        CTX_STACK.with(|st| {
            let mut st = st.borrow_mut();
            st.pop();
            if h != 0 {
                st.push(h);
            }
        });
        Ok(())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxPushCurrent_v2(ctx: Handle) -> CUresult {
    done(with_state(|s| {
        let h = ctx as usize;
        if !s.contexts.contains(&h) {
            return Err(INVALID_CONTEXT);
        }
        CTX_STACK.with(|st| st.borrow_mut().push(h));
        Ok(())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxPopCurrent_v2(ctx: *mut Handle) -> CUresult {
    if forked() {
        return NOT_INITIALIZED;
    }
    let top = CTX_STACK.with(|st| st.borrow_mut().pop());
    match top {
        Some(h) => {
            if !ctx.is_null() {
                *ctx = h as Handle;
            }
            SUCCESS
        }
        None => INVALID_CONTEXT,
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetDevice(device: *mut c_int) -> CUresult {
    if forked() {
        return NOT_INITIALIZED;
    }
    let has = CTX_STACK.with(|st| !st.borrow().is_empty());
    if !has {
        return INVALID_CONTEXT;
    }
    done(out(device, 0))
}

/// Waits for the work enqueued so far on every stream; returns the
/// context's asynchronous error, if any.
#[no_mangle]
pub unsafe extern "C" fn cuCtxSynchronize() -> CUresult {
    let ctx = current_context();
    done(wait_then(
        |s| {
            check_unsafe_call(&mut s.sched)?;
            Ok(s.sched.all_pending_tails())
        },
        |s| s.sched.take_error(ctx),
    ))
}

/// Every operation that needs a current context.
pub(crate) fn need_context() -> Result<(), CUresult> {
    if CTX_STACK.with(|st| st.borrow().is_empty()) {
        Err(INVALID_CONTEXT)
    } else {
        Ok(())
    }
}

/// `cuCtxCreate_v3(pctx, paramsArray, numParams, flags, dev)`: execution
/// affinity parameters are ignored (one device).
#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v3(
    ctx: *mut Handle,
    _params: *mut c_void,
    _n: c_int,
    flags: c_uint,
    device: c_int,
) -> CUresult {
    cuCtxCreate_v2(ctx, flags, device)
}

/// `cuCtxCreate_v4(pctx, ctxCreateParams, flags, dev)`.
#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v4(
    ctx: *mut Handle,
    _params: *mut c_void,
    flags: c_uint,
    device: c_int,
) -> CUresult {
    cuCtxCreate_v2(ctx, flags, device)
}

/// `cuCtxGetDevice_v2(device, ctx)` (CUDA 13): the device of `ctx`, or of
/// the current context when `ctx` is null.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetDevice_v2(device: *mut c_int, ctx: Handle) -> CUresult {
    if ctx.is_null() {
        return cuCtxGetDevice(device);
    }
    done(with_state(|s| {
        if !s.contexts.contains(&(ctx as usize)) {
            return Err(INVALID_CONTEXT);
        }
        out(device, 0)
    }))
}

/// PyCUDA's `Context.detach`.
#[no_mangle]
pub unsafe extern "C" fn cuCtxDetach(ctx: Handle) -> CUresult {
    cuCtxDestroy_v2(ctx)
}

// ---- Limits, cache configuration, occupancy -------------------------------------

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetLimit(value: *mut usize, limit: c_int) -> CUresult {
    done(with_state(|s| {
        let v = *s.limits.get(limit as usize).ok_or(INVALID_VALUE)?;
        out(value, v)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxSetLimit(limit: c_int, value: usize) -> CUresult {
    done(with_state(|s| {
        if limit == 2 && s.dev().heap().is_some() {
            // CU_LIMIT_MALLOC_HEAP_SIZE is fixed once a module that calls
            // malloc is loaded (CUDA: once a kernel that calls it ran).
            return Err(INVALID_VALUE);
        }
        let slot = s.limits.get_mut(limit as usize).ok_or(INVALID_VALUE)?;
        *slot = value;
        let mut o = s.dev().options().clone();
        match limit {
            // CU_LIMIT_STACK_SIZE: warpjit's local memory per thread.
            0 => o.stack_bytes = value.clamp(1024, 1 << 24) as u32,
            // CU_LIMIT_PRINTF_FIFO_SIZE.
            1 => o.printf_buffer_bytes = value as u64,
            // CU_LIMIT_MALLOC_HEAP_SIZE: the device heap.
            2 => o.malloc_heap_bytes = value as u64,
            _ => return Ok(()),
        }
        s.dev_mut().set_options(o);
        Ok(())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCacheConfig(config: *mut c_int) -> CUresult {
    done(with_state(|s| out(config, s.cache_config)))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxSetCacheConfig(config: c_int) -> CUresult {
    done(with_state(|s| {
        s.cache_config = config;
        Ok(())
    }))
}

/// The API version of a context (null: the current one): 3020, the
/// version of the `cuCtxCreate_v2` ABI every context here has.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetApiVersion(ctx: Handle, version: *mut c_uint) -> CUresult {
    let h = match ctx as usize {
        0 => match CTX_STACK.with(|st| st.borrow().last().copied()) {
            Some(h) => h,
            None => return INVALID_CONTEXT,
        },
        h => h,
    };
    done(with_state(|s| {
        if !s.contexts.contains(&h) {
            return Err(INVALID_CONTEXT);
        }
        out(version, 3020)
    }))
}

/// The current context's creation flags (the primary context's are 0).
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetFlags(flags: *mut c_uint) -> CUresult {
    let Some(h) = CTX_STACK.with(|st| st.borrow().last().copied()) else {
        return INVALID_CONTEXT;
    };
    done(with_state(|s| {
        if !s.contexts.contains(&h) {
            return Err(INVALID_CONTEXT);
        }
        out(flags, s.context_flags.get(&h).copied().unwrap_or(0))
    }))
}

/// Profiler ranges (nothing to profile: accepted).
#[no_mangle]
pub unsafe extern "C" fn cuProfilerStart() -> CUresult {
    done(with_state(|_| Ok(())))
}

#[no_mangle]
pub unsafe extern "C" fn cuProfilerStop() -> CUresult {
    done(with_state(|_| Ok(())))
}
