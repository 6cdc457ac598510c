//! Device memory (allocation, copies, memset; page-locked host memory and
//! pointer attributes are `host_memory.rs`'s). Copies and memsets
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
                .dev_mut()
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
        |s| s.free_allocation(dptr).map_err(|e| e.code),
    ))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    done(with_state(|s| {
        let total_bytes = s.dev().options().arena_bytes;
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
            .or_else(|| s.mapped_host_range(dptr))
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
    let capturing = s.sched.queues.get(&id).is_some_and(|q| q.capturing());
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
/// Enqueues a memset. The synchronous forms (`sync`) return once it is
/// done where the host sees the bytes directly (page-locked host memory
/// mapped into the arena, managed memory), as CUDA's memsets are fully
/// synchronous there; elsewhere they are asynchronous to the host.
fn memset(
    dst: u64,
    value: u32,
    width: usize,
    count: usize,
    stream: Handle,
    sync: bool,
) -> CUresult {
    done(wait_then(
        |s| {
            s.check_device_range(dst, count.saturating_mul(width))?;
            let host_visible = s.mapped_host_range(dst).is_some()
                || s.allocations
                    .range(..=dst)
                    .next_back()
                    .is_some_and(|(b, _)| s.managed.contains(b));
            let op = Op::Memset {
                dst,
                value,
                width,
                count,
            };
            let ticket = submit(s, stream, op)?;
            Ok(points(ticket, sync && host_visible))
        },
        |_| Ok(()),
    ))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD8_v2(dst: u64, value: u8, n: usize) -> CUresult {
    memset(dst, value as u32, 1, n, std::ptr::null_mut(), true)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD8Async(
    dst: u64,
    value: u8,
    n: usize,
    stream: Handle,
) -> CUresult {
    memset(dst, value as u32, 1, n, stream, false)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD16_v2(dst: u64, value: u16, n: usize) -> CUresult {
    memset(dst, value as u32, 2, n, std::ptr::null_mut(), true)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD16Async(
    dst: u64,
    value: u16,
    n: usize,
    stream: Handle,
) -> CUresult {
    memset(dst, value as u32, 2, n, stream, false)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD32_v2(dst: u64, value: c_uint, n: usize) -> CUresult {
    memset(dst, value, 4, n, std::ptr::null_mut(), true)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD32Async(
    dst: u64,
    value: c_uint,
    n: usize,
    stream: Handle,
) -> CUresult {
    memset(dst, value, 4, n, stream, false)
}

/// Device memory for `height` rows of `width` bytes, each row starting
/// at a multiple of 512 bytes (the pitch CUDA's allocator gives).
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocPitch_v2(
    dptr: *mut u64,
    pitch: *mut usize,
    width: usize,
    height: usize,
    element: c_uint,
) -> CUresult {
    if pitch.is_null() || width == 0 || height == 0 || ![4, 8, 16].contains(&element) {
        return INVALID_VALUE;
    }
    let Some(row) = width.checked_next_multiple_of(PITCH_ALIGN) else {
        return INVALID_VALUE;
    };
    let Some(bytes) = row.checked_mul(height) else {
        return OUT_OF_MEMORY;
    };
    match cuMemAlloc_v2(dptr, bytes) {
        SUCCESS => {
            *pitch = row;
            SUCCESS
        }
        e => e,
    }
}

const PITCH_ALIGN: usize = 512;

// ---- Unified-addressing and 2D copies --------------------------------------------

/// One end of a copy: host memory, or device memory (an address in
/// warpjit's arena).
#[derive(Clone, Copy)]
pub(crate) enum Loc {
    Host(*mut c_void),
    Device(u64),
}

impl State {
    /// Unified addressing: device addresses are those of the arena, every
    /// other address is a host pointer.
    pub(crate) fn classify(&self, p: u64) -> Loc {
        let base = warpjit::runtime::memory::GLOBAL_BASE;
        if p >= base && p - base < self.dev().options().arena_bytes {
            Loc::Device(p)
        } else {
            Loc::Host(p as *mut c_void)
        }
    }
}

/// What a copy call waits for, and the host-to-host copies it does itself
/// once it has waited.
#[derive(Default)]
struct Plan {
    /// Points a synchronous call waits for.
    sync: Vec<Point>,
    /// Points an asynchronous call waits for too (a pageable DtoH
    /// destination, host-to-host copies).
    always: Vec<Point>,
    /// (dst, src, len) copied by the calling thread.
    host: Vec<(HostPtr, HostPtr, usize)>,
}

/// Enqueues a copy of `len` bytes on `stream`, with CUDA's host
/// synchronization rules (as the HtoD, DtoH and DtoD entry points): a
/// host-to-host copy waits for the work enqueued so far and is then done
/// by the calling thread (refused in a capture).
unsafe fn plan_copy(
    s: &mut State,
    plan: &mut Plan,
    dst: Loc,
    src: Loc,
    len: usize,
    stream: Handle,
) -> Result<(), CUresult> {
    if len == 0 {
        return Ok(());
    }
    match (dst, src) {
        (Loc::Host(h), _) | (_, Loc::Host(h)) if h.is_null() => Err(INVALID_VALUE),
        (Loc::Device(d), Loc::Host(h)) => {
            let (ticket, page_locked) = copy_htod(s, d, h, len, stream)?;
            plan.sync.extend(points(ticket, page_locked));
            Ok(())
        }
        (Loc::Host(h), Loc::Device(d)) => {
            let (ticket, page_locked) = copy_dtoh(s, h, d, len, stream)?;
            let p = points(ticket, true);
            if !page_locked {
                plan.always.extend(p.iter().copied());
            }
            plan.sync.extend(p);
            Ok(())
        }
        (Loc::Device(d), Loc::Device(from)) => {
            s.check_device_range(from, len)?;
            s.check_device_range(d, len)?;
            let op = Op::DeviceCopy {
                dst: d,
                src: from,
                len,
            };
            submit(s, stream, op).map(|_| ())
        }
        (Loc::Host(d), Loc::Host(from)) => {
            let id = resolve(s, stream)?;
            if s.sched.queues.get(&id).is_some_and(|q| q.capturing()) {
                return Err(STREAM_CAPTURE_UNSUPPORTED);
            }
            plan.always.extend(s.sched.all_pending_tails());
            plan.host.push((HostPtr(d), HostPtr(from), len));
            Ok(())
        }
    }
}

/// Runs a copy call: `build` enqueues its copies; a synchronous call then
/// waits for them (and returns the context's asynchronous error), an
/// asynchronous one only for what CUDA completes before returning.
unsafe fn run_copy(
    synchronous: bool,
    build: impl FnOnce(&mut State, &mut Plan) -> Result<(), CUresult>,
) -> CUresult {
    let ctx = current_context();
    let host = std::cell::RefCell::new(Vec::new());
    let waited = std::cell::Cell::new(false);
    done(wait_then(
        |s| {
            let mut plan = Plan::default();
            build(s, &mut plan)?;
            *host.borrow_mut() = plan.host;
            waited.set(!plan.always.is_empty());
            let mut p = plan.always;
            if synchronous {
                p.extend(plan.sync);
            }
            Ok(p)
        },
        |s| {
            for (dst, src, len) in host.take() {
                // SAFETY: the client's host ranges, valid for `len` bytes.
                std::ptr::copy(src.0 as *const u8, dst.0 as *mut u8, len);
            }
            if synchronous {
                s.sched.take_error(ctx)
            } else if waited.get() {
                // Work the call waited for did not run if the context faulted.
                s.sched.fault(ctx)
            } else {
                Ok(())
            }
        },
    ))
}

/// Unified addressing: each pointer is device memory (in the arena) or
/// host memory. On the legacy stream, synchronous as the typed copies are.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy(dst: u64, src: u64, bytes: usize) -> CUresult {
    run_copy(true, |s, plan| {
        let (d, from) = (s.classify(dst), s.classify(src));
        plan_copy(s, plan, d, from, bytes, std::ptr::null_mut())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyAsync(
    dst: u64,
    src: u64,
    bytes: usize,
    stream: Handle,
) -> CUresult {
    run_copy(false, |s, plan| {
        let (d, from) = (s.classify(dst), s.classify(src));
        plan_copy(s, plan, d, from, bytes, stream)
    })
}

/// `CUDA_MEMCPY2D` (the `_v2` layout: `size_t` offsets and pitches).
#[repr(C)]
pub struct Memcpy2D {
    src_x: usize,
    src_y: usize,
    src_type: c_uint,
    src_host: *const c_void,
    src_device: u64,
    src_array: Handle,
    src_pitch: usize,
    dst_x: usize,
    dst_y: usize,
    dst_type: c_uint,
    dst_host: *mut c_void,
    dst_device: u64,
    dst_array: Handle,
    dst_pitch: usize,
    width: usize,
    height: usize,
}

/// Where row `row` of one side of a 2D copy starts (`CUmemorytype`: host
/// 1, device 2, unified 4; arrays, 3, are device sides by then: `array_or`).
fn row_start(
    s: &State,
    kind: c_uint,
    host: *const c_void,
    device: u64,
    (x, y, pitch): (usize, usize, usize),
    row: usize,
) -> Result<Loc, CUresult> {
    let off = y
        .checked_add(row)
        .and_then(|r| r.checked_mul(pitch))
        .and_then(|o| o.checked_add(x))
        .ok_or(INVALID_VALUE)?;
    match kind {
        1 if host.is_null() => Err(INVALID_VALUE),
        1 => Ok(Loc::Host((host as *mut u8).wrapping_add(off) as *mut c_void)),
        2 => Ok(Loc::Device(device.wrapping_add(off as u64))),
        3 => Err(NOT_SUPPORTED),
        4 => Ok(match s.classify(device) {
            Loc::Device(d) => Loc::Device(d.wrapping_add(off as u64)),
            Loc::Host(h) => Loc::Host((h as *mut u8).wrapping_add(off) as *mut c_void),
        }),
        _ => Err(INVALID_VALUE),
    }
}

/// A 2D copy: one copy when both sides are contiguous, else one per row.
unsafe fn plan_2d(
    s: &mut State,
    plan: &mut Plan,
    p: *const Memcpy2D,
    stream: Handle,
) -> Result<(), CUresult> {
    let p = p.as_ref().ok_or(INVALID_VALUE)?;
    let (w, h) = (p.width, p.height);
    if w == 0 || h == 0 {
        return Ok(());
    }
    let (src_type, src_device, src_pitch, _) =
        array_or(s, (p.src_type, p.src_device, p.src_pitch, 0), p.src_array)?;
    let (dst_type, dst_device, dst_pitch, _) =
        array_or(s, (p.dst_type, p.dst_device, p.dst_pitch, 0), p.dst_array)?;
    if h > 1 && (src_pitch < w + p.src_x || dst_pitch < w + p.dst_x) {
        return Err(INVALID_VALUE);
    }
    let src = Side {
        kind: src_type,
        host: p.src_host,
        device: src_device,
        at: (p.src_x, p.src_y, src_pitch),
    };
    let dst = Side {
        kind: dst_type,
        host: p.dst_host,
        device: dst_device,
        at: (p.dst_x, p.dst_y, dst_pitch),
    };
    plan_rows(s, plan, &src, &dst, (w, h), stream)
}

/// A side's (memory type, device address, pitch, rows per slice), an
/// array's (`CU_MEMORYTYPE_ARRAY`) being its texels' device memory.
fn array_or(
    s: &State,
    side: (c_uint, u64, usize, usize),
    array: Handle,
) -> Result<(c_uint, u64, usize, usize), CUresult> {
    match side.0 {
        3 => crate::texture::array_side(s, array),
        _ => Ok(side),
    }
}

/// One side of a 2D or 3D copy: its memory type and pointers, and where
/// its box starts (x in bytes, row, pitch).
struct Side {
    kind: c_uint,
    host: *const c_void,
    device: u64,
    at: (usize, usize, usize),
}

/// The `h` rows of `w` bytes of a box from `src` to `dst`: one copy when
/// both sides are contiguous, else one per row.
unsafe fn plan_rows(
    s: &mut State,
    plan: &mut Plan,
    src: &Side,
    dst: &Side,
    (w, h): (usize, usize),
    stream: Handle,
) -> Result<(), CUresult> {
    let contiguous = h == 1 || (src.at.2 == w && dst.at.2 == w);
    let (rows, len) = match contiguous {
        true => (1, w.checked_mul(h).ok_or(INVALID_VALUE)?),
        false => (h, w),
    };
    for row in 0..rows {
        let from = row_start(s, src.kind, src.host, src.device, src.at, row)?;
        let to = row_start(s, dst.kind, dst.host, dst.device, dst.at, row)?;
        plan_copy(s, plan, to, from, len, stream)?;
    }
    Ok(())
}

/// On the legacy stream, synchronous as the typed copies are.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2D_v2(p: *const Memcpy2D) -> CUresult {
    run_copy(true, |s, plan| plan_2d(s, plan, p, std::ptr::null_mut()))
}

/// The same copy (warpjit has no alignment requirements on pitches).
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2DUnaligned_v2(p: *const Memcpy2D) -> CUresult {
    cuMemcpy2D_v2(p)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2DAsync_v2(p: *const Memcpy2D, stream: Handle) -> CUresult {
    run_copy(false, |s, plan| plan_2d(s, plan, p, stream))
}

/// `CUDA_MEMCPY3D` (the `_v2` layout).
#[repr(C)]
pub struct Memcpy3D {
    src_x: usize,
    src_y: usize,
    src_z: usize,
    src_lod: usize,
    src_type: c_uint,
    src_host: *const c_void,
    src_device: u64,
    src_array: Handle,
    reserved0: *mut c_void,
    src_pitch: usize,
    src_height: usize,
    dst_x: usize,
    dst_y: usize,
    dst_z: usize,
    dst_lod: usize,
    dst_type: c_uint,
    dst_host: *mut c_void,
    dst_device: u64,
    dst_array: Handle,
    reserved1: *mut c_void,
    dst_pitch: usize,
    dst_height: usize,
    width: usize,
    height: usize,
    depth: usize,
}

/// A 3D copy: `depth` slices of `height` rows, each side's slice
/// `pitch * height` bytes after the last, each slice as a 2D copy.
unsafe fn plan_3d(
    s: &mut State,
    plan: &mut Plan,
    p: *const Memcpy3D,
    stream: Handle,
) -> Result<(), CUresult> {
    let p = p.as_ref().ok_or(INVALID_VALUE)?;
    let (w, h, d) = (p.width, p.height, p.depth);
    if w == 0 || h == 0 || d == 0 {
        return Ok(());
    }
    if p.src_lod != 0 || p.dst_lod != 0 {
        return Err(INVALID_VALUE);
    }
    let (src_type, src_device, src_pitch, src_height) = array_or(
        s,
        (p.src_type, p.src_device, p.src_pitch, p.src_height),
        p.src_array,
    )?;
    let (dst_type, dst_device, dst_pitch, dst_height) = array_or(
        s,
        (p.dst_type, p.dst_device, p.dst_pitch, p.dst_height),
        p.dst_array,
    )?;
    if (h > 1 || d > 1) && (src_pitch < w + p.src_x || dst_pitch < w + p.dst_x) {
        return Err(INVALID_VALUE);
    }
    if d > 1 && (src_height < h + p.src_y || dst_height < h + p.dst_y) {
        return Err(INVALID_VALUE);
    }
    for slice in 0..d {
        // Row 0 of this slice, counted in rows from the side's start.
        let row_of = |z: usize, y: usize, height: usize| {
            z.checked_add(slice)
                .and_then(|z| z.checked_mul(height))
                .and_then(|r| r.checked_add(y))
                .ok_or(INVALID_VALUE)
        };
        let src = Side {
            kind: src_type,
            host: p.src_host,
            device: src_device,
            at: (p.src_x, row_of(p.src_z, p.src_y, src_height)?, src_pitch),
        };
        let dst = Side {
            kind: dst_type,
            host: p.dst_host,
            device: dst_device,
            at: (p.dst_x, row_of(p.dst_z, p.dst_y, dst_height)?, dst_pitch),
        };
        plan_rows(s, plan, &src, &dst, (w, h), stream)?;
    }
    Ok(())
}

/// On the legacy stream, synchronous as the typed copies are.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy3D_v2(p: *const Memcpy3D) -> CUresult {
    run_copy(true, |s, plan| plan_3d(s, plan, p, std::ptr::null_mut()))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpy3DAsync_v2(p: *const Memcpy3D, stream: Handle) -> CUresult {
    run_copy(false, |s, plan| plan_3d(s, plan, p, stream))
}

/// A 3D copy enqueued on `stream` under the state lock without waiting
/// (graph memcpy nodes record it on a capturing stream); host-to-host
/// copies, which the calling thread would make, are refused.
pub(crate) unsafe fn enqueue_3d(
    s: &mut State,
    p: *const Memcpy3D,
    stream: Handle,
) -> Result<(), CUresult> {
    let mut plan = Plan::default();
    plan_3d(s, &mut plan, p, stream)?;
    match plan.host.is_empty() {
        true => Ok(()),
        false => Err(INVALID_VALUE),
    }
}
