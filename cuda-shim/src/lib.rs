//! `libcuda.so.1` on warpjit: the CUDA Driver API's C ABI over one warpjit
//! [`Device`], so host programs written against NVIDIA's driver run their
//! PTX on a CPU (`LD_LIBRARY_PATH` at the built library; see
//! `docs/driver-api.md`).
//!
//! One device (attributes from the timing preset `WARPJIT_ARCH`, default
//! sm_80); a primary context and created contexts on a per-thread current
//! stack; modules from PTX text; device memory; launches with
//! `kernelParams` or `extra`. Work runs synchronously when it is enqueued,
//! which keeps every stream and event ordering guarantee. Handles are
//! small integers cast to the opaque pointer types. Every entry point
//! checks its pointers and returns `CUDA_ERROR_INVALID_VALUE` rather than
//! dereferencing null.

#![allow(non_snake_case, clippy::missing_safety_doc)]

mod errors;

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::Mutex;
use std::time::Instant;

use errors::*;
use warpjit::ir::FuncId;
use warpjit::runtime::{Device, LaunchConfig, ModuleId, Options};
use warpjit::timing::Arch;

pub use errors::{CUresult, CODES};

type Handle = *mut c_void;

struct State {
    device: Device,
    arch: Arch,
    modules: HashMap<usize, ModuleId>,
    functions: Vec<(ModuleId, FuncId)>,
    /// Live allocations: address → size (for cuMemGetAddressRange).
    allocations: HashMap<u64, u64>,
    events: HashMap<usize, Option<Instant>>,
    next_handle: usize,
    contexts: Vec<usize>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

thread_local! {
    /// This thread's current-context stack (context handles).
    static CTX_STACK: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// The primary context's handle.
const PRIMARY: usize = 1;

fn with_state<T>(f: impl FnOnce(&mut State) -> Result<T, CUresult>) -> Result<T, CUresult> {
    let mut guard = STATE.lock().unwrap_or_else(|e| e.into_inner());
    match guard.as_mut() {
        Some(s) => f(s),
        None => Err(NOT_INITIALIZED),
    }
}

fn done(r: Result<(), CUresult>) -> CUresult {
    r.err().unwrap_or(SUCCESS)
}

unsafe fn out<T>(p: *mut T, v: T) -> Result<(), CUresult> {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    p.write(v);
    Ok(())
}

impl State {
    fn handle(&mut self) -> usize {
        self.next_handle += 1;
        self.next_handle
    }
}

// ---- Initialization, version, devices -------------------------------------

#[no_mangle]
pub unsafe extern "C" fn cuInit(_flags: c_uint) -> CUresult {
    let mut guard = STATE.lock().unwrap_or_else(|e| e.into_inner());
    if guard.is_none() {
        let name = std::env::var("WARPJIT_ARCH").unwrap_or_else(|_| "sm_80".into());
        let arch = match Arch::builtin(&name) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("warpjit: WARPJIT_ARCH: {e}");
                return INVALID_VALUE;
            }
        };
        *guard = Some(State {
            device: Device::new(Options::default()),
            arch,
            modules: HashMap::new(),
            functions: Vec::new(),
            allocations: HashMap::new(),
            events: HashMap::new(),
            next_handle: PRIMARY,
            contexts: vec![PRIMARY],
        });
    }
    SUCCESS
}

#[no_mangle]
pub unsafe extern "C" fn cuDriverGetVersion(version: *mut c_int) -> CUresult {
    done(out(version, 12090))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetCount(count: *mut c_int) -> CUresult {
    done(with_state(|_| Ok(())).and_then(|()| out(count, 1)))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGet(device: *mut c_int, ordinal: c_int) -> CUresult {
    done(with_state(|_| {
        if ordinal != 0 {
            return Err(INVALID_DEVICE);
        }
        out(device, 0)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, device: c_int) -> CUresult {
    done(with_state(|s| {
        if device != 0 {
            return Err(INVALID_DEVICE);
        }
        if name.is_null() || len <= 0 {
            return Err(INVALID_VALUE);
        }
        let text = format!("warpjit ({} model)", s.arch.name);
        let n = text.len().min(len as usize - 1);
        std::ptr::copy_nonoverlapping(text.as_ptr(), name as *mut u8, n);
        *name.add(n) = 0;
        Ok(())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, device: c_int) -> CUresult {
    done(with_state(|s| {
        if device != 0 {
            return Err(INVALID_DEVICE);
        }
        out(bytes, s.device.options().arena_bytes as usize)
    }))
}

/// `CUdevice_attribute` values, consistent with the preset.
fn attribute(arch: &Arch, attr: c_int) -> Option<c_int> {
    let (major, minor) = arch.cc().unwrap_or((8, 0));
    let o = &arch.occupancy;
    Some(match attr {
        1 => o.max_threads_per_block as c_int, // MAX_THREADS_PER_BLOCK
        2 | 3 => 1024,                         // MAX_BLOCK_DIM_X/Y
        4 => 64,                               // MAX_BLOCK_DIM_Z
        5 => i32::MAX,                         // MAX_GRID_DIM_X
        6 | 7 => 65535,                        // MAX_GRID_DIM_Y/Z
        8 => 48 * 1024,                        // MAX_SHARED_MEMORY_PER_BLOCK
        9 => 64 * 1024,                        // TOTAL_CONSTANT_MEMORY
        10 => 32,                              // WARP_SIZE
        11 => i32::MAX,                        // MAX_PITCH
        12 => 65536,                           // MAX_REGISTERS_PER_BLOCK
        13 => (arch.chip.clock_mhz * 1000.0) as c_int, // CLOCK_RATE (kHz)
        14 => 512,                             // TEXTURE_ALIGNMENT
        15 => 1,                               // GPU_OVERLAP
        16 => arch.chip.sm_count as c_int,     // MULTIPROCESSOR_COUNT
        17 => 0,                               // KERNEL_EXEC_TIMEOUT
        18 => 0,                               // INTEGRATED
        19 => 1,                               // CAN_MAP_HOST_MEMORY
        20 => 0,                               // COMPUTE_MODE (default)
        31 => 1,                               // CONCURRENT_KERNELS
        33 | 34 | 50 => 0,                     // PCI bus / device / domain
        36 => 1000,                            // MEMORY_CLOCK_RATE (kHz, nominal)
        37 => 4096,                            // GLOBAL_MEMORY_BUS_WIDTH
        38 => (arch.memory.l2_kib * 1024) as c_int, // L2_CACHE_SIZE
        39 => (o.max_warps_per_sm * 32) as c_int, // MAX_THREADS_PER_MULTIPROCESSOR
        41 => 1,                               // UNIFIED_ADDRESSING
        75 => major as c_int,                  // COMPUTE_CAPABILITY_MAJOR
        76 => minor as c_int,                  // COMPUTE_CAPABILITY_MINOR
        81 => o.shared_per_sm as c_int,        // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
        82 => o.regs_per_sm as c_int,          // MAX_REGISTERS_PER_MULTIPROCESSOR
        83 => 1,                               // MANAGED_MEMORY
        97 => o.shared_per_block as c_int,     // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
        106 => o.max_blocks_per_sm as c_int,   // MAX_BLOCKS_PER_MULTIPROCESSOR
        115 => 0,                              // MEMORY_POOLS_SUPPORTED
        _ => return None,
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetAttribute(
    value: *mut c_int,
    attr: c_int,
    device: c_int,
) -> CUresult {
    done(with_state(|s| {
        if device != 0 {
            return Err(INVALID_DEVICE);
        }
        // Unknown attributes read as 0 (features warpjit does not offer).
        out(value, attribute(&s.arch, attr).unwrap_or(0))
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid_v2(uuid: *mut u8, device: c_int) -> CUresult {
    done(with_state(|_| {
        if device != 0 {
            return Err(INVALID_DEVICE);
        }
        if uuid.is_null() {
            return Err(INVALID_VALUE);
        }
        let bytes = *b"warpjit-device-0";
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), uuid, 16);
        Ok(())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid(uuid: *mut u8, device: c_int) -> CUresult {
    cuDeviceGetUuid_v2(uuid, device)
}

// ---- Contexts ----------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(ctx: *mut Handle, device: c_int) -> CUresult {
    done(with_state(|_| {
        if device != 0 {
            return Err(INVALID_DEVICE);
        }
        out(ctx, PRIMARY as Handle)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRelease_v2(device: c_int) -> CUresult {
    done(with_state(|_| {
        if device != 0 {
            Err(INVALID_DEVICE)
        } else {
            Ok(())
        }
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v2(
    ctx: *mut Handle,
    _flags: c_uint,
    device: c_int,
) -> CUresult {
    done(with_state(|s| {
        if device != 0 {
            return Err(INVALID_DEVICE);
        }
        let h = s.handle();
        s.contexts.push(h);
        out(ctx, h as Handle)?;
        CTX_STACK.with(|st| st.borrow_mut().push(h));
        Ok(())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxDestroy_v2(ctx: Handle) -> CUresult {
    done(with_state(|s| {
        let h = ctx as usize;
        let Some(i) = s.contexts.iter().position(|&c| c == h) else {
            return Err(INVALID_CONTEXT);
        };
        if h != PRIMARY {
            s.contexts.remove(i);
        }
        CTX_STACK.with(|st| st.borrow_mut().retain(|&c| c != h));
        Ok(())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCurrent(ctx: *mut Handle) -> CUresult {
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
    let has = CTX_STACK.with(|st| !st.borrow().is_empty());
    if !has {
        return INVALID_CONTEXT;
    }
    done(out(device, 0))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxSynchronize() -> CUresult {
    done(with_state(|_| Ok(())))
}

/// Every operation that needs a current context.
fn need_context() -> Result<(), CUresult> {
    if CTX_STACK.with(|st| st.borrow().is_empty()) {
        Err(INVALID_CONTEXT)
    } else {
        Ok(())
    }
}

// ---- Modules -----------------------------------------------------------------

/// Loads PTX text (a NUL-terminated image); SASS cubins and fatbins are
/// refused with an explanation.
fn load_image(s: &mut State, name: &str, image: &[u8]) -> Result<usize, CUresult> {
    if image.starts_with(b"\x7fELF") || image.starts_with(&[0x50, 0xed, 0x55, 0xba]) {
        eprintln!(
            "warpjit: {name} is a compiled GPU binary (cubin/fatbin); warpjit runs PTX: load the PTX text instead (nvcc -ptx, NVRTC nvrtcGetPTX)"
        );
        return Err(NO_BINARY_FOR_GPU);
    }
    let end = image.iter().position(|&b| b == 0).unwrap_or(image.len());
    let Ok(text) = std::str::from_utf8(&image[..end]) else {
        return Err(INVALID_PTX);
    };
    match s.device.load_ptx(name, text) {
        Ok(m) => {
            let h = s.handle();
            s.modules.insert(h, m);
            Ok(h)
        }
        Err(e) => {
            eprintln!("{e}");
            Err(INVALID_PTX)
        }
    }
}

/// The bytes of an image: a NUL-terminated PTX text, or just the magic
/// number of a binary image (ELF cubin, fatbin), which starts with a
/// non-text byte and is longer than four bytes.
unsafe fn image_bytes<'a>(image: *const c_void) -> &'a [u8] {
    let p = image as *const u8;
    // Read the magic byte by byte: a text image may end (NUL) early.
    let mut magic = [0u8; 4];
    for (i, m) in magic.iter_mut().enumerate() {
        *m = p.add(i).read();
        if *m == 0 {
            break;
        }
    }
    if magic == *b"\x7fELF" || magic == [0x50, 0xed, 0x55, 0xba] {
        return std::slice::from_raw_parts(p, 4);
    }
    CStr::from_ptr(image as *const c_char).to_bytes_with_nul()
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadData(module: *mut Handle, image: *const c_void) -> CUresult {
    if image.is_null() {
        return INVALID_VALUE;
    }
    done(need_context().and_then(|()| {
        with_state(|s| {
            let h = load_image(s, "module.ptx", image_bytes(image))?;
            out(module, h as Handle)
        })
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadDataEx(
    module: *mut Handle,
    image: *const c_void,
    _n: c_uint,
    _options: *mut c_int,
    _values: *mut *mut c_void,
) -> CUresult {
    cuModuleLoadData(module, image)
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleLoad(module: *mut Handle, path: *const c_char) -> CUresult {
    if path.is_null() {
        return INVALID_VALUE;
    }
    let path = CStr::from_ptr(path).to_string_lossy().into_owned();
    let Ok(bytes) = std::fs::read(&path) else {
        return FILE_NOT_FOUND;
    };
    done(need_context().and_then(|()| {
        with_state(|s| {
            let h = load_image(s, &path, &bytes)?;
            out(module, h as Handle)
        })
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleUnload(module: Handle) -> CUresult {
    done(with_state(|s| {
        s.modules
            .remove(&(module as usize))
            .map(|_| ())
            .ok_or(INVALID_HANDLE)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleGetFunction(
    f: *mut Handle,
    module: Handle,
    name: *const c_char,
) -> CUresult {
    if name.is_null() {
        return INVALID_VALUE;
    }
    let name = CStr::from_ptr(name).to_string_lossy().into_owned();
    done(with_state(|s| {
        let m = *s.modules.get(&(module as usize)).ok_or(INVALID_HANDLE)?;
        let k = s.device.kernel(m, Some(&name)).map_err(|_| NOT_FOUND)?;
        s.functions.push((m, k));
        out(f, s.functions.len() as Handle)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleGetGlobal_v2(
    dptr: *mut u64,
    bytes: *mut usize,
    module: Handle,
    name: *const c_char,
) -> CUresult {
    if name.is_null() {
        return INVALID_VALUE;
    }
    let name = CStr::from_ptr(name).to_string_lossy().into_owned();
    done(with_state(|s| {
        let m = *s.modules.get(&(module as usize)).ok_or(INVALID_HANDLE)?;
        let (addr, size) = s.device.global(m, &name).map_err(|_| NOT_FOUND)?;
        if !dptr.is_null() {
            *dptr = addr;
        }
        if !bytes.is_null() {
            *bytes = size as usize;
        }
        Ok(())
    }))
}

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

// ---- Launches ----------------------------------------------------------------

const LAUNCH_PARAM_END: usize = 0;
const LAUNCH_PARAM_BUFFER_POINTER: usize = 1;
const LAUNCH_PARAM_BUFFER_SIZE: usize = 2;

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuLaunchKernel(
    f: Handle,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    _stream: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    done(need_context().and_then(|()| {
        with_state(|s| {
            let i = (f as usize).wrapping_sub(1);
            let &(m, k) = s.functions.get(i).ok_or(INVALID_HANDLE)?;
            let (slots, total) = s.device.kernel_params(m, k);
            let mut buf = vec![0u8; total as usize];
            if !params.is_null() {
                for (n, slot) in slots.iter().enumerate() {
                    let p = *params.add(n) as *const u8;
                    if p.is_null() {
                        return Err(INVALID_VALUE);
                    }
                    let at = slot.offset as usize;
                    std::ptr::copy_nonoverlapping(p, buf[at..].as_mut_ptr(), slot.size as usize);
                }
            } else if !extra.is_null() {
                let (mut ptr, mut size) = (std::ptr::null::<u8>(), 0usize);
                let mut e = extra;
                loop {
                    match *e as usize {
                        LAUNCH_PARAM_END => break,
                        LAUNCH_PARAM_BUFFER_POINTER => ptr = *e.add(1) as *const u8,
                        LAUNCH_PARAM_BUFFER_SIZE => size = *(*e.add(1) as *const usize),
                        _ => return Err(INVALID_VALUE),
                    }
                    e = e.add(2);
                }
                if ptr.is_null() || size < total as usize {
                    return Err(INVALID_VALUE);
                }
                std::ptr::copy_nonoverlapping(ptr, buf.as_mut_ptr(), total as usize);
            } else if total > 0 {
                return Err(INVALID_VALUE);
            }
            let cfg = LaunchConfig {
                grid: [gx, gy, gz],
                block: [bx, by, bz],
                shared_bytes: shared,
            };
            let report = s
                .device
                .launch(m, k, cfg, &buf)
                .map_err(|e| errors::code_of(&e))?;
            print!("{}", report.printf);
            Ok(())
        })
    }))
}

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

// ---- Errors and entry points ------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn cuGetErrorName(code: CUresult, name: *mut *const c_char) -> CUresult {
    static NAMES: std::sync::OnceLock<Vec<(CUresult, std::ffi::CString, std::ffi::CString)>> =
        std::sync::OnceLock::new();
    let table = names(&NAMES);
    match table.iter().find(|e| e.0 == code) {
        Some(e) => done(out(name, e.1.as_ptr())),
        None => INVALID_VALUE,
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuGetErrorString(code: CUresult, text: *mut *const c_char) -> CUresult {
    static NAMES: std::sync::OnceLock<Vec<(CUresult, std::ffi::CString, std::ffi::CString)>> =
        std::sync::OnceLock::new();
    let table = names(&NAMES);
    match table.iter().find(|e| e.0 == code) {
        Some(e) => done(out(text, e.2.as_ptr())),
        None => INVALID_VALUE,
    }
}

fn names(
    cell: &'static std::sync::OnceLock<Vec<(CUresult, std::ffi::CString, std::ffi::CString)>>,
) -> &'static [(CUresult, std::ffi::CString, std::ffi::CString)] {
    cell.get_or_init(|| {
        CODES
            .iter()
            .map(|(c, n, d)| {
                (
                    *c,
                    std::ffi::CString::new(*n).unwrap(),
                    std::ffi::CString::new(*d).unwrap(),
                )
            })
            .collect()
    })
}

/// Entry points by base name, for `cuGetProcAddress`.
fn entry_point(name: &str) -> Option<*const c_void> {
    macro_rules! table {
        ($($base:literal => $f:ident),* $(,)?) => {
            match name { $($base => Some($f as *const c_void),)* _ => None }
        };
    }
    table! {
        "cuInit" => cuInit, "cuDriverGetVersion" => cuDriverGetVersion,
        "cuDeviceGetCount" => cuDeviceGetCount, "cuDeviceGet" => cuDeviceGet,
        "cuDeviceGetName" => cuDeviceGetName, "cuDeviceTotalMem" => cuDeviceTotalMem_v2,
        "cuDeviceGetAttribute" => cuDeviceGetAttribute, "cuDeviceGetUuid" => cuDeviceGetUuid_v2,
        "cuDevicePrimaryCtxRetain" => cuDevicePrimaryCtxRetain,
        "cuDevicePrimaryCtxRelease" => cuDevicePrimaryCtxRelease_v2,
        "cuCtxCreate" => cuCtxCreate_v2, "cuCtxDestroy" => cuCtxDestroy_v2,
        "cuCtxGetCurrent" => cuCtxGetCurrent, "cuCtxSetCurrent" => cuCtxSetCurrent,
        "cuCtxPushCurrent" => cuCtxPushCurrent_v2, "cuCtxPopCurrent" => cuCtxPopCurrent_v2,
        "cuCtxGetDevice" => cuCtxGetDevice, "cuCtxSynchronize" => cuCtxSynchronize,
        "cuModuleLoad" => cuModuleLoad, "cuModuleLoadData" => cuModuleLoadData,
        "cuModuleLoadDataEx" => cuModuleLoadDataEx, "cuModuleUnload" => cuModuleUnload,
        "cuModuleGetFunction" => cuModuleGetFunction, "cuModuleGetGlobal" => cuModuleGetGlobal_v2,
        "cuMemAlloc" => cuMemAlloc_v2, "cuMemFree" => cuMemFree_v2, "cuMemGetInfo" => cuMemGetInfo_v2,
        "cuMemGetAddressRange" => cuMemGetAddressRange_v2,
        "cuMemcpyHtoD" => cuMemcpyHtoD_v2, "cuMemcpyDtoH" => cuMemcpyDtoH_v2,
        "cuMemcpyDtoD" => cuMemcpyDtoD_v2, "cuMemcpyHtoDAsync" => cuMemcpyHtoDAsync_v2,
        "cuMemcpyDtoHAsync" => cuMemcpyDtoHAsync_v2, "cuMemcpyDtoDAsync" => cuMemcpyDtoDAsync_v2,
        "cuMemsetD8" => cuMemsetD8_v2, "cuMemsetD8Async" => cuMemsetD8Async,
        "cuMemsetD32" => cuMemsetD32_v2, "cuMemsetD32Async" => cuMemsetD32Async,
        "cuLaunchKernel" => cuLaunchKernel,
        "cuStreamCreate" => cuStreamCreate, "cuStreamDestroy" => cuStreamDestroy_v2,
        "cuStreamSynchronize" => cuStreamSynchronize, "cuStreamWaitEvent" => cuStreamWaitEvent,
        "cuEventCreate" => cuEventCreate, "cuEventRecord" => cuEventRecord,
        "cuEventSynchronize" => cuEventSynchronize, "cuEventElapsedTime" => cuEventElapsedTime,
        "cuEventDestroy" => cuEventDestroy_v2,
        "cuGetErrorName" => cuGetErrorName, "cuGetErrorString" => cuGetErrorString,
        "cuGetProcAddress" => cuGetProcAddress_v2,
    }
}

/// `cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, symbolStatus)`:
/// the entry point for a base name. The implemented entry points have one
/// ABI each across the versions clients ask for (the `_v2` forms).
#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress_v2(
    symbol: *const c_char,
    pfn: *mut *const c_void,
    _version: c_int,
    _flags: u64,
    status: *mut c_int,
) -> CUresult {
    if symbol.is_null() || pfn.is_null() {
        return INVALID_VALUE;
    }
    let name = CStr::from_ptr(symbol).to_string_lossy();
    match entry_point(&name) {
        Some(f) => {
            *pfn = f;
            if !status.is_null() {
                *status = 0; // CU_GET_PROC_ADDRESS_SUCCESS
            }
            SUCCESS
        }
        None => {
            *pfn = std::ptr::null();
            if !status.is_null() {
                *status = 1; // CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND
            }
            NOT_FOUND
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress(
    symbol: *const c_char,
    pfn: *mut *const c_void,
    version: c_int,
    flags: u64,
) -> CUresult {
    cuGetProcAddress_v2(symbol, pfn, version, flags, std::ptr::null_mut())
}

/// Programs linked against NVIDIA's runtime (cudart) need its private
/// export tables; warpjit does not provide them.
#[no_mangle]
pub unsafe extern "C" fn cuGetExportTable(
    _table: *mut *const c_void,
    _id: *const c_void,
) -> CUresult {
    NOT_SUPPORTED
}
