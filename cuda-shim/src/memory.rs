//! Device memory (allocation, copies, memset), page-locked host memory and
//! pointer attributes. Copies run when called, `Async` ones included.

use super::*;

// ---- Memory ------------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn cuMemAlloc_v2(dptr: *mut u64, bytes: usize) -> CUresult {
    done(need_context().and_then(|()| {
        with_state(|s| {
            if bytes == 0 {
                return Err(INVALID_VALUE);
            }
            let a = s
                .device
                .alloc(bytes as u64)
                .map_err(|e| errors::code_of(&e))?;
            s.allocations.insert(a, bytes as u64);
            out(dptr, a)
        })
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemFree_v2(dptr: u64) -> CUresult {
    done(with_state(|s| {
        if dptr == 0 {
            return Ok(());
        }
        s.device.free(dptr).map_err(|e| errors::code_of(&e))?;
        s.allocations.remove(&dptr);
        Ok(())
    }))
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

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoD_v2(dst: u64, src: *const c_void, bytes: usize) -> CUresult {
    if src.is_null() && bytes > 0 {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        let data = std::slice::from_raw_parts(src as *const u8, bytes);
        s.device.write(dst, data).map_err(|e| errors::code_of(&e))
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoH_v2(dst: *mut c_void, src: u64, bytes: usize) -> CUresult {
    if dst.is_null() && bytes > 0 {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        let data = std::slice::from_raw_parts_mut(dst as *mut u8, bytes);
        s.device.read(src, data).map_err(|e| errors::code_of(&e))
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoD_v2(dst: u64, src: u64, bytes: usize) -> CUresult {
    done(with_state(|s| {
        let mut buf = vec![0u8; bytes];
        s.device
            .read(src, &mut buf)
            .map_err(|e| errors::code_of(&e))?;
        s.device.write(dst, &buf).map_err(|e| errors::code_of(&e))
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoDAsync_v2(
    dst: u64,
    src: *const c_void,
    bytes: usize,
    _stream: Handle,
) -> CUresult {
    cuMemcpyHtoD_v2(dst, src, bytes)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoHAsync_v2(
    dst: *mut c_void,
    src: u64,
    bytes: usize,
    _stream: Handle,
) -> CUresult {
    cuMemcpyDtoH_v2(dst, src, bytes)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoDAsync_v2(
    dst: u64,
    src: u64,
    bytes: usize,
    _stream: Handle,
) -> CUresult {
    cuMemcpyDtoD_v2(dst, src, bytes)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD8_v2(dst: u64, value: u8, n: usize) -> CUresult {
    done(with_state(|s| {
        s.device
            .memset(dst, value, n as u64)
            .map_err(|e| errors::code_of(&e))
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD8Async(
    dst: u64,
    value: u8,
    n: usize,
    _stream: Handle,
) -> CUresult {
    cuMemsetD8_v2(dst, value, n)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD32_v2(dst: u64, value: c_uint, n: usize) -> CUresult {
    done(with_state(|s| {
        let data: Vec<u8> = (0..n).flat_map(|_| value.to_le_bytes()).collect();
        s.device.write(dst, &data).map_err(|e| errors::code_of(&e))
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD32Async(
    dst: u64,
    value: c_uint,
    n: usize,
    _stream: Handle,
) -> CUresult {
    cuMemsetD32_v2(dst, value, n)
}

// ---- Page-locked host memory (plain host memory: copies are synchronous) --------

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

#[no_mangle]
pub unsafe extern "C" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    done(with_state(|s| {
        let size = s
            .host_allocations
            .remove(&(p as usize))
            .ok_or(INVALID_VALUE)?;
        let layout = std::alloc::Layout::from_size_align(size, 4096).map_err(|_| INVALID_VALUE)?;
        std::alloc::dealloc(p as *mut u8, layout);
        Ok(())
    }))
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
