//! The device heap through the C ABI: `cuCtxGetLimit`/`cuCtxSetLimit` of
//! `CU_LIMIT_MALLOC_HEAP_SIZE` (8 MiB by default, settable until a module
//! that calls `malloc` is loaded, fixed after), and a kernel of NVRTC's
//! output (`ptx-samples/heap/device_malloc.ptx`) whose threads `malloc`
//! until the heap set here is used up.

use std::ffi::{c_int, c_void, CString};

mod common;
use common::*;

const MALLOC_HEAP_SIZE: c_int = 2;
const INVALID_VALUE: u32 = 1;

#[test]
fn the_heap_size_limit_sets_the_device_heap_until_a_module_uses_it() {
    let lib = library();
    context(&lib);
    let get_limit = sym!(
        lib,
        b"cuCtxGetLimit",
        unsafe extern "C" fn(*mut usize, c_int) -> u32
    );
    let set_limit = sym!(
        lib,
        b"cuCtxSetLimit",
        unsafe extern "C" fn(c_int, usize) -> u32
    );
    let load = sym!(lib, b"cuModuleLoadData", CuModuleLoadData);
    let get_function = sym!(lib, b"cuModuleGetFunction", CuModuleGetFunction);
    let alloc = sym!(lib, b"cuMemAlloc_v2", CuMemAlloc);
    let launch = sym!(lib, b"cuLaunchKernel", Launch);
    let sync = sym!(lib, b"cuCtxSynchronize", CuCtxSynchronize);
    let dtoh = sym!(lib, b"cuMemcpyDtoH_v2", CuMemcpyDtoH);

    let path = repo().join("ptx-samples/heap/device_malloc.ptx");
    let ptx = CString::new(std::fs::read(&path).unwrap()).unwrap();
    let name = CString::new("exhaust").unwrap();
    let (mut module, mut func): (Handle, Handle) = (std::ptr::null_mut(), std::ptr::null_mut());
    let mut got: u64 = 0;
    let mut limit = 0usize;
    let mut flags = [0i32; 64];
    // SAFETY: every pointer is to a live local; the kernel's parameters
    // are an `int*` and an `unsigned long long`, as `exhaust` declares.
    unsafe {
        assert_eq!(get_limit(&mut limit, MALLOC_HEAP_SIZE), 0);
        assert_eq!(limit, 8 << 20, "CUDA's default heap");
        assert_eq!(set_limit(MALLOC_HEAP_SIZE, 1 << 20), 0);
        assert_eq!(load(&mut module, ptx.as_ptr() as *const c_void), 0);
        assert_eq!(
            set_limit(MALLOC_HEAP_SIZE, 2 << 20),
            INVALID_VALUE,
            "fixed once used"
        );
        assert_eq!(get_limit(&mut limit, MALLOC_HEAP_SIZE), 0);
        assert_eq!(limit, 1 << 20);
        assert_eq!(get_function(&mut func, module, name.as_ptr()), 0);
        assert_eq!(alloc(&mut got, 4 * 64), 0);
        let mut bytes: u64 = 100 << 10;
        let mut params: [*mut c_void; 2] = [
            &mut got as *mut u64 as *mut c_void,
            &mut bytes as *mut u64 as *mut c_void,
        ];
        let null = std::ptr::null_mut();
        assert_eq!(
            launch(
                func,
                1,
                1,
                1,
                64,
                1,
                1,
                0,
                null,
                params.as_mut_ptr(),
                null as _
            ),
            0
        );
        assert_eq!(sync(), 0);
        assert_eq!(dtoh(flags.as_mut_ptr() as *mut c_void, got, 4 * 64), 0);
    }
    // A 1 MiB heap holds ten blocks of 100 KiB.
    assert_eq!(flags.iter().sum::<i32>(), 10);
}
