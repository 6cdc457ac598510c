//! The sanitizer through the driver library: `WARPJIT_CHECK` read by
//! `cuInit` (a bad value is `CUDA_ERROR_INVALID_VALUE`), a use after free
//! through `cuMemFree` reported by memcheck, and the leak check at exit.
//! Each case runs in a process of its own (the variable is read once, and
//! the leak report comes at exit): the test runs its own executable with
//! the variable set and a role to play.

use std::ffi::{c_int, c_void, CString};
use std::path::PathBuf;

mod common;
use common::*;

/// The role a child process plays (unset in the parent).
const ROLE: &str = "WARPJIT_TEST_SANITIZER_ROLE";

/// Runs test `name` in a child process with `WARPJIT_CHECK=checks` and
/// `role`; returns its stderr (the child must pass).
fn child(name: &str, checks: &str, role: &str) -> String {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--test-threads=1", "--nocapture"])
        .env("WARPJIT_CHECK", checks)
        .env(ROLE, role)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{role}: {stderr}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("1 passed"),
        "the child ran the test"
    );
    stderr
}

#[test]
fn warpjit_check_is_read_by_cu_init() {
    if let Ok(code) = std::env::var(ROLE) {
        let lib = library();
        let init = sym!(lib, b"cuInit", CuInit);
        // SAFETY: the driver API.
        unsafe { assert_eq!(init(0).to_string(), code) };
        return;
    }
    let name = "warpjit_check_is_read_by_cu_init";
    for (value, code) in [
        ("memcheck", 0),
        ("racecheck,initcheck", 0),
        ("all", 0),
        ("", 0),
        ("memchek", 1),
        ("memcheck,", 0),
        ("leakcheck", 1),
    ] {
        let stderr = child(name, value, &code.to_string());
        if code != 0 {
            assert!(stderr.contains("WARPJIT_CHECK"), "{value}: {stderr}");
        }
    }
}

#[test]
fn memcheck_reports_use_after_free_and_leaks_at_exit() {
    let name = "memcheck_reports_use_after_free_and_leaks_at_exit";
    if std::env::var(ROLE).is_ok() {
        // SAFETY: the driver API with valid pointers.
        unsafe { use_after_free_and_leak() };
        return;
    }
    let stderr = child(name, "memcheck", "leak");
    assert!(
        stderr.contains("========= Invalid __global__ read of size 4 bytes\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("that was freed (use after free)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("by thread (0,0,0) in block (0,0,0)"),
        "{stderr}"
    );
    assert!(stderr.contains("module.ptx:313:"), "{stderr}");
    let leaks: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("========= Leaked "))
        .collect();
    assert_eq!(leaks.len(), 1, "{stderr}");
    assert!(
        leaks[0].starts_with("========= Leaked 1024 bytes at 0x"),
        "{stderr}"
    );
    assert!(
        stderr.contains("========= LEAK SUMMARY: 1024 bytes leaked in 1 allocations\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("========= ERROR SUMMARY: 2 errors"),
        "{stderr}"
    );
    // Without checks: no report, no summary.
    let stderr = child(name, "", "leak");
    assert!(!stderr.contains("========="), "{stderr}");
}

/// Allocates two buffers, frees one and launches `scale` on it (a fault
/// the next synchronizing call returns), and leaves the other allocated.
unsafe fn use_after_free_and_leak() {
    let lib = library();
    let init = sym!(lib, b"cuInit", CuInit);
    let retain = sym!(lib, b"cuDevicePrimaryCtxRetain", CuDevicePrimaryCtxRetain);
    let set_current = sym!(lib, b"cuCtxSetCurrent", CuCtxSetCurrent);
    let load = sym!(lib, b"cuModuleLoadData", CuModuleLoadData);
    let get_fn = sym!(lib, b"cuModuleGetFunction", CuModuleGetFunction);
    let alloc = sym!(lib, b"cuMemAlloc_v2", CuMemAlloc);
    let free = sym!(lib, b"cuMemFree_v2", CuMemFree);
    let htod = sym!(lib, b"cuMemcpyHtoD_v2", CuMemcpyHtoD);
    let launch = sym!(lib, b"cuLaunchKernel", Launch);
    let synchronize = sym!(lib, b"cuCtxSynchronize", CuCtxSynchronize);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../ptx-samples/sanitizer/bugs.ptx");
    let ptx = CString::new(std::fs::read(path).unwrap()).unwrap();
    assert_eq!(init(0), 0);
    let mut ctx: Handle = std::ptr::null_mut();
    assert_eq!(retain(&mut ctx, 0), 0);
    assert_eq!(set_current(ctx), 0);
    let mut module: Handle = std::ptr::null_mut();
    assert_eq!(load(&mut module, ptx.as_ptr() as *const c_void), 0);
    let mut f: Handle = std::ptr::null_mut();
    let name = CString::new("scale").unwrap();
    assert_eq!(get_fn(&mut f, module, name.as_ptr()), 0);
    let (mut input, mut out) = (0u64, 0u64);
    assert_eq!(alloc(&mut input, 1024), 0);
    assert_eq!(alloc(&mut out, 1024), 0);
    let data = [0u8; 1024];
    assert_eq!(htod(input, data.as_ptr() as *const c_void, 1024), 0);
    assert_eq!(free(input), 0);
    let n: c_int = 256;
    let mut args: [*mut c_void; 3] = [
        &input as *const u64 as *mut c_void,
        &out as *const u64 as *mut c_void,
        &n as *const c_int as *mut c_void,
    ];
    let null = std::ptr::null_mut();
    assert_eq!(
        launch(f, 4, 1, 1, 64, 1, 1, 0, null, args.as_mut_ptr(), null as _),
        0
    );
    assert_eq!(synchronize(), 700, "CUDA_ERROR_ILLEGAL_ADDRESS");
    // `out` is never freed: the leak check reports it at exit.
}
