//! Interprocess memory handles through the C ABI, across two processes as
//! CUDA programs use them: this test program exports two allocations
//! (NVRTC's saxpy operands, `ptx-samples/cuda/saxpy`), runs itself again as
//! a child that opens the handles, runs saxpy on them and closes them, and
//! then reads the child's result from its own allocation. Opening one's
//! own handle and a handle that is not one are refused with CUDA's codes.

use std::ffi::{c_uint, c_void};
use std::process::Command;

mod common;
use common::*;

/// `CUipcMemHandle`, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
struct IpcHandle([u8; 64]);

type GetHandle = unsafe extern "C" fn(*mut IpcHandle, u64) -> u32;
type OpenHandle = unsafe extern "C" fn(*mut u64, IpcHandle, c_uint) -> u32;
type CloseHandle = unsafe extern "C" fn(u64) -> u32;

const CHILD: &str = "WARPJIT_IPC_TEST_HANDLES";

fn hex(h: &IpcHandle) -> String {
    h.0.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> IpcHandle {
    let mut h = [0u8; 64];
    for (i, b) in h.iter_mut().enumerate() {
        *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
    }
    IpcHandle(h)
}

fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn another_process_opens_runs_a_kernel_on_and_closes_exported_memory() {
    let lib = library();
    context(&lib);
    let alloc = sym!(lib, b"cuMemAlloc_v2", CuMemAlloc);
    let htod = sym!(lib, b"cuMemcpyHtoD_v2", CuMemcpyHtoD);
    let dtoh = sym!(lib, b"cuMemcpyDtoH_v2", CuMemcpyDtoH);
    let get = sym!(lib, b"cuIpcGetMemHandle", GetHandle);
    let open = sym!(lib, b"cuIpcOpenMemHandle_v2", OpenHandle);
    let sample = repo().join("ptx-samples/cuda/saxpy");
    let x = std::fs::read(sample.join("x.bin")).unwrap();
    let y = std::fs::read(sample.join("y.bin")).unwrap();
    let want = std::fs::read(sample.join("y.expected.bin")).unwrap();
    let (mut dx, mut dy) = (0u64, 0u64);
    let (mut hx, mut hy) = (IpcHandle([0; 64]), IpcHandle([0; 64]));
    // SAFETY: out-pointers to locals, buffers of the sizes given.
    unsafe {
        assert_eq!(alloc(&mut dx, x.len()), 0);
        assert_eq!(alloc(&mut dy, y.len()), 0);
        assert_eq!(htod(dx, x.as_ptr() as *const c_void, x.len()), 0);
        assert_eq!(htod(dy, y.as_ptr() as *const c_void, y.len()), 0);
        // A handle to the allocation holding an interior pointer too.
        assert_eq!(get(&mut hx, dx + 4), 0);
        assert_eq!(get(&mut hy, dy), 0);
        // Not in the process that exported it; not a handle at all.
        let mut p = 0u64;
        assert_eq!(open(&mut p, hx, 0), 201, "CUDA_ERROR_INVALID_CONTEXT");
        assert_eq!(open(&mut p, IpcHandle([7; 64]), 0), 400);
        assert_eq!(get(&mut hx, 0x10), 1, "not device memory");
        assert_eq!(get(&mut hx, dx), 0);
    }
    let status = Command::new(std::env::current_exe().unwrap())
        .args([
            "child_opens_the_handles",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, format!("{} {}", hex(&hx), hex(&hy)))
        .status()
        .unwrap();
    assert!(status.success(), "the child failed: {status}");
    let mut got = vec![0u8; y.len()];
    // SAFETY: a buffer of the size given.
    unsafe {
        assert_eq!(dtoh(got.as_mut_ptr() as *mut c_void, dy, got.len()), 0);
    }
    assert_eq!(floats(&got), floats(&want), "the child's saxpy");
}

/// The child's part (does nothing when run as an ordinary test).
#[test]
fn child_opens_the_handles() {
    let Ok(handles) = std::env::var(CHILD) else {
        return;
    };
    let (hx, hy) = handles.split_once(' ').unwrap();
    let (hx, hy) = (unhex(hx), unhex(hy));
    let lib = library();
    context(&lib);
    let open = sym!(lib, b"cuIpcOpenMemHandle_v2", OpenHandle);
    let close = sym!(lib, b"cuIpcCloseMemHandle", CloseHandle);
    let sync = sym!(lib, b"cuCtxSynchronize", CuCtxSynchronize);
    let dtoh = sym!(lib, b"cuMemcpyDtoH_v2", CuMemcpyDtoH);
    let x = std::fs::read(repo().join("ptx-samples/cuda/saxpy/x.bin")).unwrap();
    let f = saxpy(&lib);
    // SAFETY: out-pointers to locals, buffers of the sizes given.
    unsafe {
        let (mut dx, mut dy, mut again) = (0u64, 0u64, 0u64);
        assert_eq!(open(&mut dx, hx, 1), 0);
        assert_eq!(open(&mut dy, hy, 0), 0);
        assert_eq!(open(&mut again, hx, 0), 0);
        assert_eq!(again, dx, "a handle opened again gives the same pointer");
        assert_eq!(open(&mut again, hx, 2), 1, "an unknown flag");
        // The exporter's bytes, read here.
        let mut got = vec![0u8; x.len()];
        assert_eq!(dtoh(got.as_mut_ptr() as *mut c_void, dx, got.len()), 0);
        assert_eq!(got, x);
        assert_eq!(launch_saxpy(&lib, f, 5000, 2.5, dx, dy), 0);
        assert_eq!(sync(), 0);
        assert_eq!(close(dx), 0);
        assert_eq!(close(dx), 0, "opened twice, closed twice");
        assert_eq!(close(dx), 1, "no longer open");
        assert_eq!(close(dy), 0);
    }
}
