//! Page-locked host memory (allocated in the arena where device addresses
//! are host addresses, or registered), pointer attributes, and the memory
//! the host and kernels share under unified addressing (mapped page-locked
//! memory, managed memory).

use super::*;
use crate::capture::check_unsafe_call;
use crate::memory::Loc;
use crate::queue::wait_then;

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
        if s.dev().unified_addresses() {
            // In the arena, whose device addresses are host addresses: the
            // device reaches it at the same pointer, as CUDA gives every
            // page-locked allocation under unified addressing.
            let a = s
                .dev_mut()
                .alloc(bytes.max(1) as u64)
                .map_err(|e| errors::code_of(&e))?;
            s.host_allocations.insert(a as usize, bytes.max(1));
            return out(p, a as *mut c_void);
        }
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
            if let Loc::Device(a) = s.classify(p as u64) {
                return s.dev_mut().free(a).map_err(|e| errors::code_of(&e));
            }
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
    done(with_state(|s| pointer_attribute(s, data, attr, ptr)))
}

/// Several attributes at once. Unlike `cuPointerGetAttribute`, a pointer
/// that is not CUDA memory is not an error: its attributes read as CUDA's
/// defaults for unknown memory (null context and pointers, memory type 0,
/// device ordinal -2, false, 0).
#[no_mangle]
pub unsafe extern "C" fn cuPointerGetAttributes(
    n: c_uint,
    attrs: *const c_int,
    data: *mut *mut c_void,
    ptr: u64,
) -> CUresult {
    if n > 0 && (attrs.is_null() || data.is_null()) {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        for i in 0..n as usize {
            let (attr, out) = (*attrs.add(i), *data.add(i));
            if out.is_null() {
                return Err(INVALID_VALUE);
            }
            if pointer_attribute(s, out, attr, ptr).is_ok() {
                continue;
            }
            match attr {
                1 | 3 | 4 | 7 | 11 | 12 | 14 | 17 | 18 | 19 | 20 => *(out as *mut u64) = 0,
                9 => *(out as *mut c_int) = -2, // DEVICE_ORDINAL of host memory
                2 | 6 | 8 | 10 | 13 | 15 | 16 | 21 => *(out as *mut c_int) = 0,
                _ => return Err(INVALID_VALUE),
            }
        }
        Ok(())
    }))
}

/// One attribute of `ptr` into `data` (`CUDA_ERROR_INVALID_VALUE` for
/// memory that is not CUDA's, or an attribute it has not).
unsafe fn pointer_attribute(
    s: &State,
    data: *mut c_void,
    attr: c_int,
    ptr: u64,
) -> Result<(), CUresult> {
    {
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
            // Page-locked memory in the arena is mapped at its own address;
            // managed memory is reached from the host at its own address.
            3 if device.is_some() || matches!(s.classify(ptr), Loc::Device(_)) => {
                *(data as *mut u64) = ptr // DEVICE_POINTER
            }
            4 if host.is_some() || s.managed.contains(&base) => *(data as *mut u64) = ptr, // HOST_POINTER
            6 => *(data as *mut c_int) = 1,  // SYNC_MEMOPS
            7 => *(data as *mut u64) = base, // BUFFER_ID
            8 => *(data as *mut c_int) = s.managed.contains(&base) as c_int, // IS_MANAGED
            9 => *(data as *mut c_int) = 0,  // DEVICE_ORDINAL
            11 => *(data as *mut u64) = base, // RANGE_START_ADDR
            12 => *(data as *mut usize) = size as usize, // RANGE_SIZE
            13 => *(data as *mut c_int) = 1, // MAPPED
            _ => return Err(INVALID_VALUE),
        }
        Ok(())
    }
}

// ---- Memory the host and kernels share (unified addressing) -------------------

/// Prints `message` on stderr the first time `once` is passed.
fn explain_once(once: &std::sync::Once, message: &str) {
    once.call_once(|| eprintln!("warpjit: {message}"));
}

/// The device pointer of page-locked host memory: `cuMemHostAlloc` memory
/// lies in the arena at its device addresses, so it is its own device
/// pointer; memory registered with `cuMemHostRegister` lies outside the
/// arena and is not mapped: `CUDA_ERROR_INVALID_VALUE`, what CUDA returns
/// for memory that is not mapped.
#[no_mangle]
pub unsafe extern "C" fn cuMemHostGetDevicePointer_v2(
    dptr: *mut u64,
    p: *mut c_void,
    flags: c_uint,
) -> CUresult {
    static ONCE: std::sync::Once = std::sync::Once::new();
    done(with_state(|s| {
        if dptr.is_null() || p.is_null() || flags != 0 {
            return Err(INVALID_VALUE);
        }
        let a = p as usize;
        let allocated = s
            .host_allocations
            .range(..=a)
            .next_back()
            .is_some_and(|(&b, &n)| a < b + n);
        if allocated {
            if let Loc::Device(d) = s.classify(a as u64) {
                return out(dptr, d);
            }
        }
        explain_once(
            &ONCE,
            "cuMemHostGetDevicePointer: only memory from cuMemHostAlloc (placed in warpjit's device arena) is mapped; registered host memory (cuMemHostRegister) is not: copy it to device memory",
        );
        Err(INVALID_VALUE)
    }))
}

/// Managed memory: an allocation of the arena, which lies at its device
/// addresses (unified addressing), so the pointer is valid on the host and
/// in kernels, and host and kernels may touch it at the same time, as on
/// Linux GPUs from Pascal on (`CONCURRENT_MANAGED_ACCESS` reads 1: it is
/// one coherent memory). Where the arena could not be placed at its device addresses:
/// `CUDA_ERROR_NOT_SUPPORTED`, what CUDA returns on a device without
/// managed memory (`CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY` then reads 0).
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocManaged(
    dptr: *mut u64,
    bytes: usize,
    _flags: c_uint,
) -> CUresult {
    static ONCE: std::sync::Once = std::sync::Once::new();
    done(need_context().and_then(|()| {
        with_state(|s| {
            if dptr.is_null() || bytes == 0 {
                return Err(INVALID_VALUE);
            }
            if !s.dev().unified_addresses() {
                explain_once(
                    &ONCE,
                    "cuMemAllocManaged: warpjit's device memory could not be placed at its device addresses (another device of this process holds them), so there is no managed memory; use cuMemAlloc and copies",
                );
                return Err(NOT_SUPPORTED);
            }
            check_unsafe_call(&mut s.sched)?;
            let a = s
                .dev_mut()
                .alloc(bytes as u64)
                .map_err(|e| errors::code_of(&e))?;
            s.allocations.insert(a, bytes as u64);
            s.managed.insert(a);
            out(dptr, a)
        })
    }))
}

/// The range `[dptr, dptr + bytes)` lies in one managed allocation.
fn managed_range(s: &State, dptr: u64, bytes: usize) -> Result<(), CUresult> {
    let inside = s
        .allocations
        .range(..=dptr)
        .next_back()
        .is_some_and(|(&b, &n)| s.managed.contains(&b) && dptr + bytes as u64 <= b + n);
    if inside {
        Ok(())
    } else {
        Err(INVALID_VALUE)
    }
}

/// `CUmemLocation`: a location type and an id, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct MemLocation {
    kind: c_int,
    id: c_int,
}

/// Prefetching managed memory (to the device or the host): one memory
/// here, so a checked no-op.
#[no_mangle]
pub unsafe extern "C" fn cuMemPrefetchAsync(
    dptr: u64,
    bytes: usize,
    _device: c_int,
    stream: Handle,
) -> CUresult {
    done(with_state(|s| {
        crate::queue::resolve(s, stream)?;
        managed_range(s, dptr, bytes)
    }))
}

/// The CUDA 12.2 form (a `CUmemLocation`).
#[no_mangle]
pub unsafe extern "C" fn cuMemPrefetchAsync_v2(
    dptr: u64,
    bytes: usize,
    _location: MemLocation,
    _flags: c_uint,
    stream: Handle,
) -> CUresult {
    cuMemPrefetchAsync(dptr, bytes, 0, stream)
}

/// Advice on managed memory (read-mostly, preferred location, accessed
/// by): a checked no-op.
#[no_mangle]
pub unsafe extern "C" fn cuMemAdvise(
    dptr: u64,
    bytes: usize,
    _advice: c_int,
    _device: c_int,
) -> CUresult {
    done(with_state(|s| managed_range(s, dptr, bytes)))
}

/// The CUDA 12.2 form (a `CUmemLocation`).
#[no_mangle]
pub unsafe extern "C" fn cuMemAdvise_v2(
    dptr: u64,
    bytes: usize,
    advice: c_int,
    _location: MemLocation,
) -> CUresult {
    cuMemAdvise(dptr, bytes, advice, 0)
}

/// Attaching managed memory to a stream (or to the host, or globally):
/// host and kernels share one coherent memory here, so only checked.
/// `length` 0 means the whole allocation.
#[no_mangle]
pub unsafe extern "C" fn cuStreamAttachMemAsync(
    stream: Handle,
    dptr: u64,
    length: usize,
    flags: c_uint,
) -> CUresult {
    // CU_MEM_ATTACH_GLOBAL 1, _HOST 2, _SINGLE 4.
    if ![1, 2, 4].contains(&flags) {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        crate::queue::resolve(s, stream)?;
        managed_range(s, dptr, length)
    }))
}
