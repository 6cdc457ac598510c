//! Interprocess memory handles (`cuIpcGetMemHandle`, `cuIpcOpenMemHandle`,
//! `cuIpcCloseMemHandle`) over the runtime's page sharing
//! (`warpjit::runtime::ipc`): the exporter's pages are moved onto a memory
//! file, which another process maps into its own arena. Event handles are
//! not provided.

use super::*;
use crate::queue::wait_then;
use warpjit::runtime::ipc::HANDLE_BYTES;

/// `CUipcMemHandle`: 64 opaque bytes, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUipcMemHandle {
    reserved: [u8; HANDLE_BYTES],
}

/// `CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS`, the one flag (one device here:
/// nothing to enable).
const LAZY_ENABLE_PEER_ACCESS: c_uint = 1;

/// A handle to the allocation holding `dptr` (after the work enqueued so
/// far, which may write it, as the exporter's stores must be visible).
#[no_mangle]
pub unsafe extern "C" fn cuIpcGetMemHandle(handle: *mut CUipcMemHandle, dptr: u64) -> CUresult {
    if handle.is_null() {
        return INVALID_VALUE;
    }
    let mut bytes = [0u8; HANDLE_BYTES];
    let r = wait_then(
        |s| Ok(s.sched.all_pending_tails()),
        |s| {
            bytes = s
                .dev_mut()
                .ipc_export(dptr)
                .map_err(|e| errors::code_of(&e))?;
            Ok(())
        },
    );
    if r.is_ok() {
        (*handle).reserved = bytes;
    }
    done(r)
}

/// Maps another process's allocation; the same handle opened again gives
/// the same pointer (counted). A handle from this process is refused with
/// `CUDA_ERROR_INVALID_CONTEXT`, a handle that is not one with
/// `CUDA_ERROR_INVALID_HANDLE`.
#[no_mangle]
pub unsafe extern "C" fn cuIpcOpenMemHandle_v2(
    dptr: *mut u64,
    handle: CUipcMemHandle,
    flags: c_uint,
) -> CUresult {
    done(need_context().and_then(|()| {
        with_state(|s| {
            if dptr.is_null() || flags & !LAZY_ENABLE_PEER_ACCESS != 0 {
                return Err(INVALID_VALUE);
            }
            let (a, size) = s.dev_mut().ipc_open(&handle.reserved).map_err(|e| {
                let text = e.to_string();
                if text.contains("not a warpjit memory handle") {
                    INVALID_HANDLE
                } else if text.contains("process that exported it") {
                    INVALID_CONTEXT
                } else {
                    errors::code_of(&e)
                }
            })?;
            s.ipc_opened.insert(a, size);
            out(dptr, a)
        })
    }))
}

/// The CUDA 4.x form, with the same arguments.
#[no_mangle]
pub unsafe extern "C" fn cuIpcOpenMemHandle(
    dptr: *mut u64,
    handle: CUipcMemHandle,
    flags: c_uint,
) -> CUresult {
    cuIpcOpenMemHandle_v2(dptr, handle, flags)
}

/// Unmaps a pointer from `cuIpcOpenMemHandle` (after the work enqueued so
/// far, which may use it).
#[no_mangle]
pub unsafe extern "C" fn cuIpcCloseMemHandle(dptr: u64) -> CUresult {
    done(wait_then(
        |s| {
            if !s.dev().ipc_is_opened(dptr) {
                return Err(INVALID_VALUE);
            }
            Ok(s.sched.all_pending_tails())
        },
        |s| {
            s.dev_mut()
                .ipc_close(dptr)
                .map_err(|e| errors::code_of(&e))?;
            if !s.dev().ipc_is_opened(dptr) {
                s.ipc_opened.remove(&dptr);
            }
            Ok(())
        },
    ))
}
