//! NVRTC's CUBIN, as PTX: `nvrtcGetCUBINSize` and `nvrtcGetCUBIN`.
//!
//! NVRTC compiling for a real architecture (`-arch=sm_80`) produces both
//! the PTX and the CUBIN; these two entry points hand out the PTX
//! (NUL-terminated, as `nvrtcGetPTX` gives it) wherever NVRTC has a CUBIN
//! to give, so that clients which load "the CUBIN" load PTX. Where NVRTC
//! has no CUBIN (a virtual `compute_XX` target, `-dlto`) or no PTX, the
//! answer is NVRTC's own. The program handle is NVRTC's: its functions are
//! found in the NVRTC the program was created by (the next definition in
//! the global scope, else the loaded `libnvrtc.so*`).

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

use crate::nvidia;

type GetSize = unsafe extern "C" fn(*mut c_void, *mut usize) -> c_int;
type Get = unsafe extern "C" fn(*mut c_void, *mut c_char) -> c_int;

/// `NVRTC_ERROR_INTERNAL_ERROR`: NVRTC itself could not be found.
const INTERNAL_ERROR: c_int = 11;

/// The NVRTC entry points the two functions call.
struct Real {
    ptx_size: GetSize,
    ptx: Get,
    cubin_size: GetSize,
    cubin: Get,
}

/// NVIDIA's NVRTC, once found (not cached while it is not loaded yet).
fn real() -> Option<&'static Real> {
    static REAL: OnceLock<Real> = OnceLock::new();
    if let Some(r) = REAL.get() {
        return Some(r);
    }
    // The next definition after this library in the global scope (NVRTC
    // linked or preloaded after it), else the loaded libnvrtc.so itself.
    let lib = if next(c"nvrtcGetPTX").is_some() {
        None
    } else {
        Some(nvidia::already_loaded(&["libnvrtc.so", "libnvrtc.alt.so"])?)
    };
    let lookup = |name: &CStr| match lib {
        Some(l) => l.symbol(name),
        None => next(name),
    };
    // SAFETY: NVRTC's documented signatures (nvrtc.h).
    let real = unsafe {
        Real {
            ptx_size: std::mem::transmute::<*mut c_void, GetSize>(lookup(c"nvrtcGetPTXSize")?),
            ptx: std::mem::transmute::<*mut c_void, Get>(lookup(c"nvrtcGetPTX")?),
            cubin_size: std::mem::transmute::<*mut c_void, GetSize>(lookup(c"nvrtcGetCUBINSize")?),
            cubin: std::mem::transmute::<*mut c_void, Get>(lookup(c"nvrtcGetCUBIN")?),
        }
    };
    Some(REAL.get_or_init(|| real))
}

/// `name`'s next definition after this library (`RTLD_NEXT`).
fn next(name: &CStr) -> Option<*mut c_void> {
    // SAFETY: a NUL-terminated name.
    let p = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) };
    (!p.is_null()).then_some(p)
}

/// Whether the program has a CUBIN and PTX (then the PTX is handed out), and the PTX's size.
unsafe fn ptx_in_place_of_cubin(r: &Real, prog: *mut c_void) -> Result<Option<usize>, c_int> {
    let mut cubin = 0usize;
    let rc = (r.cubin_size)(prog, &mut cubin);
    if rc != 0 {
        return Err(rc);
    }
    let mut ptx = 0usize;
    if cubin == 0 || (r.ptx_size)(prog, &mut ptx) != 0 || ptx <= 1 {
        return Ok(None);
    }
    Ok(Some(ptx))
}

fn missing() -> c_int {
    eprintln!("warpjit: nvrtcGetCUBIN: NVIDIA's NVRTC is not loaded in this process (the interposer calls through to it)");
    INTERNAL_ERROR
}

/// # Safety
/// As NVRTC's: `prog` a program NVRTC created, `size` writable.
#[no_mangle]
pub unsafe extern "C" fn nvrtcGetCUBINSize(prog: *mut c_void, size: *mut usize) -> c_int {
    let Some(r) = real() else { return missing() };
    match ptx_in_place_of_cubin(r, prog) {
        Ok(Some(n)) if !size.is_null() => {
            *size = n;
            0
        }
        Ok(_) => (r.cubin_size)(prog, size),
        Err(rc) => rc,
    }
}

/// # Safety
/// As NVRTC's: `prog` a program NVRTC created, `cubin` holding the size
/// `nvrtcGetCUBINSize` gave.
#[no_mangle]
pub unsafe extern "C" fn nvrtcGetCUBIN(prog: *mut c_void, cubin: *mut c_char) -> c_int {
    let Some(r) = real() else { return missing() };
    match ptx_in_place_of_cubin(r, prog) {
        Ok(Some(_)) => (r.ptx)(prog, cubin),
        Ok(None) => (r.cubin)(prog, cubin),
        Err(rc) => rc,
    }
}
