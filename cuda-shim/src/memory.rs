//! Device memory (allocation, copies, memset), page-locked host memory
//! (allocated and registered) and pointer attributes. Copies and memsets
//! are stream work (`queue.rs`), with CUDA's host synchronization rules:
//! a pageable source is staged, a pageable destination is written before
//! the call returns, page-locked memory is read and written in stream
//! order.

use super::*;
use crate::capture::check_unsafe_call;
use crate::ops::{HostPtr, Op};
use crate::queue::{current_context, resolve, submit, submit_to, wait_then, Point, Ticket};

// ---- Memory ------------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn cuMemAlloc_v2(dptr: *mut u64, bytes: usize) -> CUresult {
    done(need_context().and_then(|()| {
        with_state(|s| {
            if bytes == 0 {
                return Err(INVALID_VALUE);
            }
            check_unsafe_call(&mut s.sched)?;
            let a = s
                .device
                .alloc(bytes as u64)
                .map_err(|e| errors::code_of(&e))?;
            s.allocations.insert(a, bytes as u64);
            out(dptr, a)
        })
    }))
}

/// Waits for the work enqueued so far (which may use the memory), then
/// frees.
#[no_mangle]
pub unsafe extern "C" fn cuMemFree_v2(dptr: u64) -> CUresult {
    if dptr == 0 {
        return SUCCESS;
    }
    done(wait_then(
        |s| {
            if !s.allocations.contains_key(&dptr) {
                return Err(INVALID_VALUE);
            }
            check_unsafe_call(&mut s.sched)?;
            Ok(s.sched.all_pending_tails())
        },
        |s| {
            s.device.free(dptr).map_err(|e| errors::code_of(&e))?;
            s.allocations.remove(&dptr);
            Ok(())
        },
    ))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    done(with_state(|s| {
        let total_bytes = s.device.options().arena_bytes;
        let used: u64 = s.allocations.values().sum();
        out(free, total_bytes.saturating_sub(used) as usize)?;
        out(total, total_bytes as usize)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemGetAddressRange_v2(
    base: *mut u64,
    size: *mut usize,
    dptr: u64,
) -> CUresult {
    done(with_state(|s| {
        let (b, n) = s
            .allocations
            .iter()
            .find(|(&b, &n)| dptr >= b && dptr < b + n)
            .map(|(&b, &n)| (b, n))
            .ok_or(NOT_FOUND)?;
        if !base.is_null() {
            *base = b;
        }
        if !size.is_null() {
            *size = n as usize;
        }
        Ok(())
    }))
}

/// Host-to-device: a page-locked source is read when the stream executes
/// the copy; a pageable one is first copied into a staging buffer (the
/// call returns once it is staged), as CUDA documents. In a capture the
/// node reads the source each time the graph runs.
unsafe fn copy_htod(
    s: &mut State,
    dst: u64,
    src: *const c_void,
    bytes: usize,
    stream: Handle,
) -> Result<(Ticket, bool), CUresult> {
    s.check_device_range(dst, bytes)?;
    let id = resolve(s, stream)?;
    let page_locked = s.is_page_locked(src, bytes);
    let capturing = s.sched.queues.get(&id).is_some_and(|q| q.capture.is_some());
    let op = if page_locked || capturing {
        Op::WriteFromHost {
            dst,
            src: HostPtr(src as *mut c_void),
            len: bytes,
        }
    } else {
        let data = std::slice::from_raw_parts(src as *const u8, bytes).to_vec();
        Op::WriteStaged { dst, data }
    };
    Ok((submit_to(s, id, op)?, page_locked))
}

/// Device-to-host, written when the stream executes the copy; whether the
/// destination is page-locked.
unsafe fn copy_dtoh(
    s: &mut State,
    dst: *mut c_void,
    src: u64,
    bytes: usize,
    stream: Handle,
) -> Result<(Ticket, bool), CUresult> {
    s.check_device_range(src, bytes)?;
    let id = resolve(s, stream)?;
    let op = Op::Read {
        src,
        dst: HostPtr(dst),
        len: bytes,
    };
    let page_locked = s.is_page_locked(dst, bytes);
    Ok((submit_to(s, id, op)?, page_locked))
}

/// The points to wait for: a queued op's, or none.
fn points(ticket: Ticket, wait: bool) -> Vec<Point> {
    match ticket {
        Ticket::Queued(p) if wait => vec![p],
        _ => Vec::new(),
    }
}

/// On the legacy stream: returns once a pageable source is staged, or
/// once a page-locked one is copied.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoD_v2(dst: u64, src: *const c_void, bytes: usize) -> CUresult {
    if src.is_null() && bytes > 0 {
        return INVALID_VALUE;
    }
    let ctx = current_context();
    done(wait_then(
        |s| {
            let (ticket, page_locked) = copy_htod(s, dst, src, bytes, std::ptr::null_mut())?;
            Ok(points(ticket, page_locked))
        },
        |s| s.sched.take_error(ctx),
    ))
}

/// On the legacy stream; returns once the copy is complete, with the
/// context's asynchronous error, if any.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoH_v2(dst: *mut c_void, src: u64, bytes: usize) -> CUresult {
    if dst.is_null() && bytes > 0 {
        return INVALID_VALUE;
    }
    let ctx = current_context();
    done(wait_then(
        |s| {
            let (ticket, _) = copy_dtoh(s, dst, src, bytes, std::ptr::null_mut())?;
            Ok(points(ticket, true))
        },
        |s| s.sched.take_error(ctx),
    ))
}

/// Device-to-device copies do not synchronize with the host.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoD_v2(dst: u64, src: u64, bytes: usize) -> CUresult {
    cuMemcpyDtoDAsync_v2(dst, src, bytes, std::ptr::null_mut())
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoDAsync_v2(
    dst: u64,
    src: *const c_void,
    bytes: usize,
    stream: Handle,
) -> CUresult {
    if src.is_null() && bytes > 0 {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        copy_htod(s, dst, src, bytes, stream).map(|_| ())
    }))
}

/// Into page-locked memory: completes in stream order. Into pageable
/// memory: complete when the call returns (as CUDA does it).
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoHAsync_v2(
    dst: *mut c_void,
    src: u64,
    bytes: usize,
    stream: Handle,
) -> CUresult {
    if dst.is_null() && bytes > 0 {
        return INVALID_VALUE;
    }
    let ctx = current_context();
    let waited = std::cell::Cell::new(false);
    done(wait_then(
        |s| {
            let (ticket, page_locked) = copy_dtoh(s, dst, src, bytes, stream)?;
            waited.set(!page_locked);
            Ok(points(ticket, !page_locked))
        },
        // A copy the call waited for did not run if the context faulted.
        |s| match waited.get() {
            true => s.sched.fault(ctx),
            false => Ok(()),
        },
    ))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoDAsync_v2(
    dst: u64,
    src: u64,
    bytes: usize,
    stream: Handle,
) -> CUresult {
    done(with_state(|s| {
        s.check_device_range(src, bytes)?;
        s.check_device_range(dst, bytes)?;
        submit(
            s,
            stream,
            Op::DeviceCopy {
                dst,
                src,
                len: bytes,
            },
        )
        .map(|_| ())
    }))
}

/// Sets `count` elements of `width` bytes; asynchronous to the host (the
/// synchronous forms use the legacy stream).
fn memset(dst: u64, value: u32, width: usize, count: usize, stream: Handle) -> CUresult {
    done(with_state(|s| {
        s.check_device_range(dst, count.saturating_mul(width))?;
        let op = Op::Memset {
            dst,
            value,
            width,
            count,
        };
        submit(s, stream, op).map(|_| ())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD8_v2(dst: u64, value: u8, n: usize) -> CUresult {
    memset(dst, value as u32, 1, n, std::ptr::null_mut())
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD8Async(
    dst: u64,
    value: u8,
    n: usize,
    stream: Handle,
) -> CUresult {
    memset(dst, value as u32, 1, n, stream)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD16_v2(dst: u64, value: u16, n: usize) -> CUresult {
    memset(dst, value as u32, 2, n, std::ptr::null_mut())
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD16Async(
    dst: u64,
    value: u16,
    n: usize,
    stream: Handle,
) -> CUresult {
    memset(dst, value as u32, 2, n, stream)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD32_v2(dst: u64, value: c_uint, n: usize) -> CUresult {
    memset(dst, value, 4, n, std::ptr::null_mut())
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD32Async(
    dst: u64,
    value: c_uint,
    n: usize,
    stream: Handle,
) -> CUresult {
    memset(dst, value, 4, n, stream)
}

// ---- Page-locked host memory (host memory copies read and write directly) ----------

#[no_mangle]
pub unsafe extern "C" fn cuMemHostAlloc(
    p: *mut *mut c_void,
    bytes: usize,
    _flags: c_uint,
) -> CUresult {
    if p.is_null() {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        let layout =
            std::alloc::Layout::from_size_align(bytes.max(1), 4096).map_err(|_| INVALID_VALUE)?;
        let ptr = std::alloc::alloc_zeroed(layout);
        if ptr.is_null() {
            return Err(OUT_OF_MEMORY);
        }
        s.host_allocations.insert(ptr as usize, bytes.max(1));
        out(p, ptr as *mut c_void)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAllocHost_v2(p: *mut *mut c_void, bytes: usize) -> CUresult {
    cuMemHostAlloc(p, bytes, 0)
}

/// Waits for the work enqueued so far (copies may still read or write the
/// memory), then frees.
#[no_mangle]
pub unsafe extern "C" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    done(wait_then(
        |s| {
            if !s.host_allocations.contains_key(&(p as usize)) {
                return Err(INVALID_VALUE);
            }
            Ok(s.sched.all_pending_tails())
        },
        |s| {
            let size = s
                .host_allocations
                .remove(&(p as usize))
                .ok_or(INVALID_VALUE)?;
            let layout =
                std::alloc::Layout::from_size_align(size, 4096).map_err(|_| INVALID_VALUE)?;
            std::alloc::dealloc(p as *mut u8, layout);
            Ok(())
        },
    ))
}

/// Page-locks an existing host range: copies from and to it then read and
/// write it in stream order, as with `cuMemHostAlloc` memory.
#[no_mangle]
pub unsafe extern "C" fn cuMemHostRegister_v2(
    p: *mut c_void,
    bytes: usize,
    _flags: c_uint,
) -> CUresult {
    if p.is_null() || bytes == 0 {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        let start = p as usize;
        let end = start.checked_add(bytes).ok_or(INVALID_VALUE)?;
        let overlaps = s
            .host_registered
            .range(..end)
            .next_back()
            .is_some_and(|(&b, &n)| b + n > start);
        if overlaps || s.is_page_locked(p, 1) {
            return Err(HOST_MEMORY_ALREADY_REGISTERED);
        }
        s.host_registered.insert(start, bytes);
        Ok(())
    }))
}

/// CUDA 4.0's form (the same arguments).
#[no_mangle]
pub unsafe extern "C" fn cuMemHostRegister(
    p: *mut c_void,
    bytes: usize,
    flags: c_uint,
) -> CUresult {
    cuMemHostRegister_v2(p, bytes, flags)
}

/// Waits for the work enqueued so far, then unregisters.
#[no_mangle]
pub unsafe extern "C" fn cuMemHostUnregister(p: *mut c_void) -> CUresult {
    if p.is_null() {
        return INVALID_VALUE;
    }
    done(wait_then(
        |s| {
            if !s.host_registered.contains_key(&(p as usize)) {
                return Err(HOST_MEMORY_NOT_REGISTERED);
            }
            Ok(s.sched.all_pending_tails())
        },
        |s| {
            s.host_registered.remove(&(p as usize));
            Ok(())
        },
    ))
}

/// `CUpointer_attribute` values of a device or page-locked host pointer.
#[no_mangle]
pub unsafe extern "C" fn cuPointerGetAttribute(
    data: *mut c_void,
    attr: c_int,
    ptr: u64,
) -> CUresult {
    if data.is_null() {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        let device = s
            .allocations
            .iter()
            .find(|(&b, &n)| ptr >= b && ptr < b + n)
            .map(|(&b, &n)| (b, n));
        let host = s
            .host_allocations
            .iter()
            .chain(s.host_registered.iter())
            .find(|(&b, &n)| ptr >= b as u64 && ptr < (b + n) as u64)
            .map(|(&b, &n)| (b as u64, n as u64));
        let Some((base, size)) = device.or(host) else {
            return Err(INVALID_VALUE);
        };
        match attr {
            1 => *(data as *mut Handle) = PRIMARY as Handle, // CONTEXT
            2 => *(data as *mut c_uint) = if device.is_some() { 2 } else { 1 }, // MEMORY_TYPE
            3 if device.is_some() => *(data as *mut u64) = ptr, // DEVICE_POINTER
            4 if host.is_some() => *(data as *mut u64) = ptr, // HOST_POINTER
            6 => *(data as *mut c_int) = 1,                  // SYNC_MEMOPS
            7 => *(data as *mut u64) = base,                 // BUFFER_ID
            8 => *(data as *mut c_int) = 0,                  // IS_MANAGED
            9 => *(data as *mut c_int) = 0,                  // DEVICE_ORDINAL
            11 => *(data as *mut u64) = base,                // RANGE_START_ADDR
            12 => *(data as *mut usize) = size as usize,     // RANGE_SIZE
            13 => *(data as *mut c_int) = 1,                 // MAPPED
            _ => return Err(INVALID_VALUE),
        }
        Ok(())
    }))
}
