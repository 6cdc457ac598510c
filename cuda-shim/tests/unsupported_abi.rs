//! A module with a kernel warpjit cannot run loads through the C ABI; its
//! other kernels run; a launch of that kernel is CUDA_ERROR_NOT_SUPPORTED
//! at the call (warpjit's report, with the PTX line, on stderr) and leaves
//! the context usable.

use std::ffi::{c_int, c_void, CString};

mod common;
use common::*;

const NOT_SUPPORTED: u32 = 801;

#[test]
fn an_unsupported_kernel_is_refused_at_its_launch_and_the_others_run() {
    let lib = library();
    context(&lib);
    let load = sym!(lib, b"cuModuleLoadData", CuModuleLoadData);
    let get_function = sym!(lib, b"cuModuleGetFunction", CuModuleGetFunction);
    let alloc = sym!(lib, b"cuMemAlloc_v2", CuMemAlloc);
    let htod = sym!(lib, b"cuMemcpyHtoD_v2", CuMemcpyHtoD);
    let dtoh = sym!(lib, b"cuMemcpyDtoH_v2", CuMemcpyDtoH);
    let sync = sym!(lib, b"cuCtxSynchronize", CuCtxSynchronize);

    // NVRTC's saxpy, and a copy of it named `broken` with a `tcgen05.fence`
    // (not executed).
    let saxpy =
        std::fs::read_to_string(repo().join("ptx-samples/cuda/saxpy/kernel.compute_80.ptx"))
            .unwrap();
    let entry = &saxpy[saxpy.find(".visible .entry").unwrap()..];
    let broken = entry.replace("_Z5saxpyifPKfPf", "broken").replacen(
        "\tret;",
        "\ttcgen05.fence::before_thread_sync;\n\tret;",
        1,
    );
    let text = format!("{saxpy}\n{broken}");
    let ptx = CString::new(text).unwrap();
    let (mut module, mut good, mut bad): (Handle, Handle, Handle) = (
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        std::ptr::null_mut(),
    );
    let n: c_int = 1000;
    let (mut x, mut y) = (0u64, 0u64);
    let xs: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let ys: Vec<f32> = (0..n).map(|i| 1.0 + i as f32).collect();
    let mut out = vec![0f32; n as usize];
    // SAFETY: out-pointers to locals, NUL-terminated strings, host buffers
    // of the copied sizes.
    unsafe {
        assert_eq!(load(&mut module, ptx.as_ptr() as *const c_void), 0);
        assert_eq!(
            get_function(&mut good, module, c"_Z5saxpyifPKfPf".as_ptr()),
            0
        );
        assert_eq!(get_function(&mut bad, module, c"broken".as_ptr()), 0);
        assert_eq!(alloc(&mut x, 4 * n as usize), 0);
        assert_eq!(alloc(&mut y, 4 * n as usize), 0);
        assert_eq!(htod(x, xs.as_ptr() as *const c_void, 4 * n as usize), 0);
        assert_eq!(htod(y, ys.as_ptr() as *const c_void, 4 * n as usize), 0);
        assert_eq!(launch_saxpy(&lib, bad, n, 2.0, x, y), NOT_SUPPORTED);
        assert_eq!(launch_saxpy(&lib, good, n, 2.0, x, y), 0);
        assert_eq!(sync(), 0);
        assert_eq!(dtoh(out.as_mut_ptr() as *mut c_void, y, 4 * n as usize), 0);
    }
    for (i, v) in out.iter().enumerate() {
        assert_eq!(*v, 2.0 * i as f32 + 1.0 + i as f32, "y[{i}]");
    }
}
