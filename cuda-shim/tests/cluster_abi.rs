//! Thread-block clusters through the C ABI (WARPJIT_ARCH=sm_90): NVRTC's
//! `__cluster_dims__(2,1,1)` kernel (`ptx-samples/cuda/cluster_dsmem`:
//! cooperative groups' `this_cluster()`, distributed shared memory,
//! `cluster.sync()`) runs to its reference from `cuLaunchKernel` and from
//! `cuLaunchKernelEx` with `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`;
//! `CLUSTER_LAUNCH` and the function's cluster attributes read what the
//! kernel declares; shapes CUDA refuses are CUDA_ERROR_INVALID_CLUSTER_SIZE
//! at the call (16 CTAs only after `NON_PORTABLE_CLUSTER_SIZE_ALLOWED`),
//! and a module for sm_80 is CUDA_ERROR_NOT_SUPPORTED.

use std::ffi::{c_int, c_void, CString};

mod common;
use common::*;

type CuFuncSetAttribute = unsafe extern "C" fn(Handle, c_int, c_int) -> u32;

const INVALID_CLUSTER_SIZE: u32 = 912;
const NOT_SUPPORTED: u32 = 801;

/// A CLUSTER_DIMENSION attribute.
fn cluster(dims: [u32; 3]) -> LaunchAttribute {
    let mut attr = LaunchAttribute {
        id: 4,
        pad: 0,
        value: [0; 64],
    };
    for (d, v) in dims.iter().enumerate() {
        attr.value[4 * d..4 * d + 4].copy_from_slice(&v.to_ne_bytes());
    }
    attr
}

/// A kernel of one parameter that does nothing, for `target`.
fn empty_module(target: &str) -> CString {
    CString::new(format!(
        ".version 8.0\n.target {target}\n.address_size 64\n\n.visible .entry k(.param .u64 p)\n{{\n\tret;\n}}\n"
    ))
    .unwrap()
}

#[test]
fn cluster_launches_through_the_c_abi() {
    // Before the library reads it: this test binary's only test.
    std::env::set_var("WARPJIT_ARCH", "sm_90");
    let lib = library();
    context(&lib);
    let load = sym!(lib, b"cuModuleLoadData", CuModuleLoadData);
    let get_function = sym!(lib, b"cuModuleGetFunction", CuModuleGetFunction);
    let alloc = sym!(lib, b"cuMemAlloc_v2", CuMemAlloc);
    let htod = sym!(lib, b"cuMemcpyHtoD_v2", CuMemcpyHtoD);
    let dtoh = sym!(lib, b"cuMemcpyDtoH_v2", CuMemcpyDtoH);
    let attribute = sym!(lib, b"cuDeviceGetAttribute", CuDeviceGetAttribute);
    let func_attribute = sym!(lib, b"cuFuncGetAttribute", CuFuncGetAttribute);
    let set_func_attribute = sym!(lib, b"cuFuncSetAttribute", CuFuncSetAttribute);
    let launch = sym!(lib, b"cuLaunchKernel", Launch);
    let launch_ex = sym!(lib, b"cuLaunchKernelEx", LaunchEx);
    let sync = sym!(lib, b"cuCtxSynchronize", CuCtxSynchronize);

    let dir = repo().join("ptx-samples/cuda/cluster_dsmem");
    let ptx = CString::new(std::fs::read(dir.join("kernel.compute_90.ptx")).unwrap()).unwrap();
    let input = std::fs::read(dir.join("in.bin")).unwrap();
    let outputs = ["halo", "hist", "info", "elected"];
    let wants: Vec<Vec<u8>> = outputs
        .iter()
        .map(|o| std::fs::read(dir.join(format!("{o}.expected.bin"))).unwrap())
        .collect();
    let null = std::ptr::null_mut();
    let (mut module, mut f): (Handle, Handle) = (null, null);
    let mut value: c_int = 0;
    // SAFETY: out-pointers to locals; the parameter arrays point at the
    // kernels' arguments (five device pointers; one), as they declare.
    unsafe {
        assert_eq!(attribute(&mut value, 120, 0), 0);
        assert_eq!(value, 1, "CLUSTER_LAUNCH");
        assert_eq!(load(&mut module, ptx.as_ptr() as *const c_void), 0);
        assert_eq!(get_function(&mut f, module, c"cluster_dsmem".as_ptr()), 0);
        for (attr, want) in [(10, 1), (11, 2), (12, 1), (13, 1), (14, 0)] {
            assert_eq!(func_attribute(&mut value, attr, f), 0);
            assert_eq!(value, want, "function attribute {attr}");
        }
        let mut bufs = [0u64; 5];
        assert_eq!(alloc(&mut bufs[0], input.len()), 0);
        assert_eq!(
            htod(bufs[0], input.as_ptr() as *const c_void, input.len()),
            0
        );
        for (b, want) in bufs[1..].iter_mut().zip(&wants) {
            assert_eq!(alloc(b, want.len()), 0);
        }
        let mut params: Vec<*mut c_void> = bufs
            .iter_mut()
            .map(|b| b as *mut u64 as *mut c_void)
            .collect();
        let check = |what: &str| {
            for ((b, want), name) in bufs[1..].iter().zip(&wants).zip(outputs) {
                let mut got = vec![0u8; want.len()];
                assert_eq!(dtoh(got.as_mut_ptr() as *mut c_void, *b, got.len()), 0);
                assert_eq!(&got, want, "{what}: {name}");
            }
        };
        let p = params.as_mut_ptr();
        assert_eq!(launch(f, 4, 1, 1, 128, 1, 1, 0, null, p, null as _), 0);
        assert_eq!(sync(), 0);
        check("cuLaunchKernel (.reqnctapercluster)");

        let mut attr = cluster([2, 1, 1]);
        let mut config = LaunchConfig {
            grid: [4, 1, 1],
            block: [128, 1, 1],
            shared: 0,
            stream: null,
            attrs: &mut attr,
            num_attrs: 1,
        };
        assert_eq!(launch_ex(&config, f, p, null as _), 0);
        assert_eq!(sync(), 0);
        check("cuLaunchKernelEx with CLUSTER_DIMENSION");
        // Another shape than the kernel declares.
        attr = cluster([4, 1, 1]);
        config.attrs = &mut attr;
        assert_eq!(launch_ex(&config, f, p, null as _), INVALID_CLUSTER_SIZE);
        let error_name = sym!(
            lib,
            b"cuGetErrorName",
            unsafe extern "C" fn(u32, *mut *const std::ffi::c_char) -> u32
        );
        let mut name = std::ptr::null();
        assert_eq!(error_name(INVALID_CLUSTER_SIZE, &mut name), 0);
        assert_eq!(
            std::ffi::CStr::from_ptr(name).to_str().unwrap(),
            "CUDA_ERROR_INVALID_CLUSTER_SIZE"
        );

        // A kernel without a shape of its own.
        let text = empty_module("sm_90");
        let (mut m2, mut k): (Handle, Handle) = (null, null);
        assert_eq!(load(&mut m2, text.as_ptr() as *const c_void), 0);
        assert_eq!(get_function(&mut k, m2, c"k".as_ptr()), 0);
        let mut arg = 0u64;
        let mut kp = [&mut arg as *mut u64 as *mut c_void];
        let kp = kp.as_mut_ptr();
        let try_shape = |grid: u32, dims: [u32; 3]| {
            let mut attr = cluster(dims);
            let config = LaunchConfig {
                grid: [grid, 1, 1],
                block: [32, 1, 1],
                shared: 0,
                stream: null,
                attrs: &mut attr,
                num_attrs: 1,
            };
            let r = launch_ex(&config, k, kp, null as _);
            assert_eq!(sync(), 0);
            r
        };
        assert_eq!(try_shape(8, [8, 1, 1]), 0);
        assert_eq!(
            try_shape(6, [4, 1, 1]),
            INVALID_CLUSTER_SIZE,
            "grid not whole clusters"
        );
        assert_eq!(
            try_shape(16, [16, 1, 1]),
            INVALID_CLUSTER_SIZE,
            "16 CTAs, portable"
        );
        assert_eq!(set_func_attribute(k, 14, 1), 0);
        assert_eq!(func_attribute(&mut value, 14, k), 0);
        assert_eq!(value, 1, "NON_PORTABLE_CLUSTER_SIZE_ALLOWED");
        assert_eq!(try_shape(16, [16, 1, 1]), 0, "16 CTAs, non-portable");
        assert_eq!(try_shape(32, [32, 1, 1]), INVALID_CLUSTER_SIZE, "32 CTAs");

        // Clusters need an sm_90 module.
        let text = empty_module("sm_80");
        let (mut m3, mut k3): (Handle, Handle) = (null, null);
        assert_eq!(load(&mut m3, text.as_ptr() as *const c_void), 0);
        assert_eq!(get_function(&mut k3, m3, c"k".as_ptr()), 0);
        let mut attr = cluster([2, 1, 1]);
        let config = LaunchConfig {
            grid: [2, 1, 1],
            block: [32, 1, 1],
            shared: 0,
            stream: null,
            attrs: &mut attr,
            num_attrs: 1,
        };
        assert_eq!(launch_ex(&config, k3, kp, null as _), NOT_SUPPORTED);
    }
}
