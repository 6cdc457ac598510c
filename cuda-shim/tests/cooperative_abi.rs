//! Cooperative launches through the C ABI: `cuLaunchCooperativeKernel` and
//! `cuLaunchKernelEx` with `CU_LAUNCH_ATTRIBUTE_COOPERATIVE` run NVRTC's
//! grid-sync kernel (`ptx-samples/cuda/grid_sync`: cooperative groups'
//! `this_grid().sync()`) to its reference; `COOPERATIVE_LAUNCH` reads 1; a
//! grid that cannot be resident at once is
//! CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE; a plain launch of the kernel
//! traps, as on a GPU.

use std::ffi::{c_int, c_uint, c_void, CString};

mod common;
use common::*;

type LaunchCooperative = unsafe extern "C" fn(
    Handle,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    Handle,
    *mut *mut c_void,
) -> u32;

const N: c_int = 10000;
const TOO_LARGE: u32 = 720;
/// What a `trap` reports (CUDA_ERROR_ILLEGAL_INSTRUCTION), as on a GPU.
const TRAPPED: u32 = 715;

#[test]
fn cooperative_launches_run_grid_wide_sync() {
    let lib = library();
    context(&lib);
    let load = sym!(lib, b"cuModuleLoadData", CuModuleLoadData);
    let get_function = sym!(lib, b"cuModuleGetFunction", CuModuleGetFunction);
    let alloc = sym!(lib, b"cuMemAlloc_v2", CuMemAlloc);
    let attribute = sym!(lib, b"cuDeviceGetAttribute", CuDeviceGetAttribute);
    let cooperative = sym!(lib, b"cuLaunchCooperativeKernel", LaunchCooperative);
    let launch_ex = sym!(lib, b"cuLaunchKernelEx", LaunchEx);
    let launch = sym!(lib, b"cuLaunchKernel", Launch);
    let sync = sym!(lib, b"cuCtxSynchronize", CuCtxSynchronize);
    let dtoh = sym!(lib, b"cuMemcpyDtoH_v2", CuMemcpyDtoH);

    let dir = repo().join("ptx-samples/cuda/grid_sync");
    let ptx = CString::new(std::fs::read(dir.join("kernel.compute_80.ptx")).unwrap()).unwrap();
    let want_b = std::fs::read(dir.join("b.expected.bin")).unwrap();
    let want_total = std::fs::read(dir.join("total.expected.bin")).unwrap();
    let (mut module, mut f): (Handle, Handle) = (std::ptr::null_mut(), std::ptr::null_mut());
    let (mut a, mut b, mut total) = (0u64, 0u64, 0u64);
    let n = N;
    let mut supported: c_int = 0;
    let null = std::ptr::null_mut();
    // SAFETY: out-pointers to locals; the parameter array points at the
    // kernel's four arguments (three pointers and an int), as it declares.
    unsafe {
        assert_eq!(attribute(&mut supported, 95, 0), 0);
        assert_eq!(supported, 1, "COOPERATIVE_LAUNCH");
        assert_eq!(load(&mut module, ptx.as_ptr() as *const c_void), 0);
        assert_eq!(get_function(&mut f, module, c"grid_sync".as_ptr()), 0);
        assert_eq!(alloc(&mut a, 4 * N as usize), 0);
        assert_eq!(alloc(&mut b, 4 * N as usize), 0);
        assert_eq!(alloc(&mut total, 8), 0);
        let mut params: [*mut c_void; 4] = [
            &mut a as *mut u64 as *mut c_void,
            &mut b as *mut u64 as *mut c_void,
            &mut total as *mut u64 as *mut c_void,
            &n as *const c_int as *mut c_void,
        ];
        let check = |what: &str| {
            let mut got_b = vec![0u8; want_b.len()];
            let mut got_total = [0u8; 8];
            assert_eq!(dtoh(got_b.as_mut_ptr() as *mut c_void, b, got_b.len()), 0);
            assert_eq!(dtoh(got_total.as_mut_ptr() as *mut c_void, total, 8), 0);
            assert_eq!(got_b, want_b, "{what}");
            assert_eq!(got_total[..], want_total[..], "{what}");
        };
        assert_eq!(
            cooperative(f, 12, 1, 1, 256, 1, 1, 0, null, params.as_mut_ptr()),
            0
        );
        assert_eq!(sync(), 0);
        check("cuLaunchCooperativeKernel");

        let mut attr = LaunchAttribute {
            id: 2,
            pad: 0,
            value: [0; 64],
        };
        attr.value[..4].copy_from_slice(&1i32.to_ne_bytes());
        let config = LaunchConfig {
            grid: [12, 1, 1],
            block: [256, 1, 1],
            shared: 0,
            stream: null,
            attrs: &mut attr,
            num_attrs: 1,
        };
        assert_eq!(launch_ex(&config, f, params.as_mut_ptr(), null as _), 0);
        assert_eq!(sync(), 0);
        check("cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_COOPERATIVE");

        assert_eq!(
            cooperative(f, 1 << 20, 1, 1, 256, 1, 1, 0, null, params.as_mut_ptr()),
            TOO_LARGE
        );
        // A plain launch gives the kernel no grid workspace: it traps.
        assert_eq!(
            launch(
                f,
                12,
                1,
                1,
                256,
                1,
                1,
                0,
                null,
                params.as_mut_ptr(),
                null as _
            ),
            0
        );
        assert_eq!(sync(), TRAPPED);
    }
}
