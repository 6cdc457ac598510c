//! The shim through its C ABI, as a host program sees it: the built
//! `libcuda.so` is opened with dlopen (libloading) and a real corpus kernel
//! (NVRTC's saxpy) runs through cuInit … cuModuleLoadData … cuLaunchKernel
//! (both launch forms), with results checked against the sample's
//! reference; entry points resolve through cuGetProcAddress_v2 as
//! cuda-python resolves them; faults come back as CUDA's codes; a cubin is
//! refused with CUDA_ERROR_NO_BINARY_FOR_GPU.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::path::PathBuf;

use libloading::{Library, Symbol};

type Handle = *mut c_void;

/// The shared library cargo built for this test run.
fn library() -> Library {
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/c_abi-…: the cdylib is built beside it (and
    // uplifted to target/<profile>/ by a plain build).
    let deps = exe.parent().unwrap();
    let path = [
        deps.join("libcuda.so"),
        deps.parent().unwrap().join("libcuda.so"),
    ]
    .into_iter()
    .find(|p| p.exists())
    .expect("libcuda.so is built with the tests");
    // SAFETY: loading our own cdylib; its initializers are Rust statics.
    unsafe { Library::new(&path) }.unwrap()
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

macro_rules! sym {
    ($lib:expr, $name:expr, $ty:ty) => {{
        // SAFETY: the symbol has the C signature of cuda.h.
        #[allow(unused_unsafe)]
        let s: Symbol<$ty> = unsafe { $lib.get($name) }.unwrap();
        s
    }};
}

#[test]
fn saxpy_through_the_driver_api() {
    let lib = library();
    let init = sym!(lib, b"cuInit", unsafe extern "C" fn(c_uint) -> u32);
    let get = sym!(
        lib,
        b"cuDeviceGet",
        unsafe extern "C" fn(*mut c_int, c_int) -> u32
    );
    let attr = sym!(
        lib,
        b"cuDeviceGetAttribute",
        unsafe extern "C" fn(*mut c_int, c_int, c_int) -> u32
    );
    let retain = sym!(
        lib,
        b"cuDevicePrimaryCtxRetain",
        unsafe extern "C" fn(*mut Handle, c_int) -> u32
    );
    let set_current = sym!(lib, b"cuCtxSetCurrent", unsafe extern "C" fn(Handle) -> u32);
    let load = sym!(
        lib,
        b"cuModuleLoadData",
        unsafe extern "C" fn(*mut Handle, *const c_void) -> u32
    );
    let get_fn = sym!(
        lib,
        b"cuModuleGetFunction",
        unsafe extern "C" fn(*mut Handle, Handle, *const c_char) -> u32
    );
    let alloc = sym!(
        lib,
        b"cuMemAlloc_v2",
        unsafe extern "C" fn(*mut u64, usize) -> u32
    );
    let htod = sym!(
        lib,
        b"cuMemcpyHtoD_v2",
        unsafe extern "C" fn(u64, *const c_void, usize) -> u32
    );
    let dtoh = sym!(
        lib,
        b"cuMemcpyDtoH_v2",
        unsafe extern "C" fn(*mut c_void, u64, usize) -> u32
    );
    type Launch = unsafe extern "C" fn(
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
        *mut *mut c_void,
    ) -> u32;
    let launch = sym!(lib, b"cuLaunchKernel", Launch);
    let sample = repo().join("ptx-samples/cuda/saxpy");
    let ptx = CString::new(std::fs::read(sample.join("kernel.compute_80.ptx")).unwrap()).unwrap();
    let x = std::fs::read(sample.join("x.bin")).unwrap();
    let y = std::fs::read(sample.join("y.bin")).unwrap();
    let want = std::fs::read(sample.join("y.expected.bin")).unwrap();
    let n: c_int = 5000;
    let a: f32 = 2.5;
    unsafe {
        assert_eq!(init(0), 0);
        let mut dev = -1;
        assert_eq!(get(&mut dev, 0), 0);
        let (mut major, mut minor) = (0, 0);
        assert_eq!(attr(&mut major, 75, dev), 0);
        assert_eq!(attr(&mut minor, 76, dev), 0);
        assert_eq!((major, minor), (8, 0), "the default preset is sm_80");
        let mut ctx: Handle = std::ptr::null_mut();
        assert_eq!(retain(&mut ctx, dev), 0);
        assert_eq!(set_current(ctx), 0);
        let mut module: Handle = std::ptr::null_mut();
        assert_eq!(load(&mut module, ptx.as_ptr() as *const c_void), 0);
        let mut f: Handle = std::ptr::null_mut();
        let name = CString::new("_Z5saxpyifPKfPf").unwrap();
        assert_eq!(get_fn(&mut f, module, name.as_ptr()), 0);
        let (mut dx, mut dy) = (0u64, 0u64);
        assert_eq!(alloc(&mut dx, x.len()), 0);
        assert_eq!(alloc(&mut dy, y.len()), 0);
        assert_eq!(htod(dx, x.as_ptr() as *const c_void, x.len()), 0);
        // kernelParams: pointers to each argument.
        assert_eq!(htod(dy, y.as_ptr() as *const c_void, y.len()), 0);
        let mut args: [*mut c_void; 4] = [
            &n as *const c_int as *mut c_void,
            &a as *const f32 as *mut c_void,
            &dx as *const u64 as *mut c_void,
            &dy as *const u64 as *mut c_void,
        ];
        let grid = (n as u32).div_ceil(256);
        let null = std::ptr::null_mut();
        assert_eq!(
            launch(
                f,
                grid,
                1,
                1,
                256,
                1,
                1,
                0,
                null,
                args.as_mut_ptr(),
                null as _
            ),
            0
        );
        let mut got = vec![0u8; y.len()];
        assert_eq!(dtoh(got.as_mut_ptr() as *mut c_void, dy, got.len()), 0);
        assert_eq!(floats(&got), floats(&want), "kernelParams launch");
        // `extra`: one packed parameter buffer (int, float, two pointers).
        assert_eq!(htod(dy, y.as_ptr() as *const c_void, y.len()), 0);
        let mut packed = Vec::new();
        packed.extend_from_slice(&n.to_le_bytes());
        packed.extend_from_slice(&a.to_le_bytes());
        packed.extend_from_slice(&dx.to_le_bytes());
        packed.extend_from_slice(&dy.to_le_bytes());
        let mut size = packed.len();
        let mut extra: [*mut c_void; 5] = [
            // CU_LAUNCH_PARAM_BUFFER_POINTER, CU_LAUNCH_PARAM_BUFFER_SIZE are 1 and 2.
            std::ptr::without_provenance_mut(1),
            packed.as_mut_ptr() as *mut c_void,
            std::ptr::without_provenance_mut(2),
            &mut size as *mut usize as *mut c_void,
            std::ptr::null_mut(),
        ];
        assert_eq!(
            launch(
                f,
                grid,
                1,
                1,
                256,
                1,
                1,
                0,
                null,
                null as _,
                extra.as_mut_ptr()
            ),
            0
        );
        assert_eq!(dtoh(got.as_mut_ptr() as *mut c_void, dy, got.len()), 0);
        assert_eq!(floats(&got), floats(&want), "extra launch");
        // A wild pointer faults as CUDA reports it.
        let bad = 0x10u64;
        let mut wild: [*mut c_void; 4] = [
            &n as *const c_int as *mut c_void,
            &a as *const f32 as *mut c_void,
            &bad as *const u64 as *mut c_void,
            &dy as *const u64 as *mut c_void,
        ];
        let rc = launch(
            f,
            grid,
            1,
            1,
            256,
            1,
            1,
            0,
            null,
            wild.as_mut_ptr(),
            null as _,
        );
        assert_eq!(rc, 700, "CUDA_ERROR_ILLEGAL_ADDRESS");
        // A cubin is refused.
        let cubin = b"\x7fELF\x02\x01\x01\x33 not really";
        let mut m2: Handle = std::ptr::null_mut();
        assert_eq!(load(&mut m2, cubin.as_ptr() as *const c_void), 209);
    }
}

#[test]
fn entry_points_resolve_through_get_proc_address() {
    let lib = library();
    type GetProc =
        unsafe extern "C" fn(*const c_char, *mut *const c_void, c_int, u64, *mut c_int) -> u32;
    let get_proc = sym!(lib, b"cuGetProcAddress_v2", GetProc);
    let error_name = sym!(
        lib,
        b"cuGetErrorName",
        unsafe extern "C" fn(u32, *mut *const c_char) -> u32
    );
    unsafe {
        for (name, direct) in [
            ("cuMemAlloc", &b"cuMemAlloc_v2"[..]),
            ("cuMemcpyHtoD", b"cuMemcpyHtoD_v2"),
            ("cuCtxPushCurrent", b"cuCtxPushCurrent_v2"),
            ("cuLaunchKernel", b"cuLaunchKernel"),
        ] {
            let c = CString::new(name).unwrap();
            let mut p: *const c_void = std::ptr::null();
            let mut status = -1;
            assert_eq!(
                get_proc(c.as_ptr(), &mut p, 12090, 0, &mut status),
                0,
                "{name}"
            );
            assert_eq!(status, 0);
            let d: Symbol<*const c_void> = lib.get(direct).unwrap();
            assert_eq!(p, *d, "{name} resolves to the exported function");
        }
        // The same base name resolves by the CUDA version asked for.
        for (name, version, direct) in [
            ("cuCtxCreate", 3020, &b"cuCtxCreate_v2"[..]),
            ("cuCtxCreate", 11040, b"cuCtxCreate_v3"),
            ("cuCtxCreate", 12050, b"cuCtxCreate_v4"),
            ("cuCtxGetDevice", 12090, b"cuCtxGetDevice"),
            ("cuCtxGetDevice", 13000, b"cuCtxGetDevice_v2"),
        ] {
            let c = CString::new(name).unwrap();
            let mut p: *const c_void = std::ptr::null();
            assert_eq!(
                get_proc(c.as_ptr(), &mut p, version, 0, std::ptr::null_mut()),
                0
            );
            let d: Symbol<*const c_void> = lib.get(direct).unwrap();
            assert_eq!(p, *d, "{name}@{version}");
        }
        let c = CString::new("cuNoSuchThing").unwrap();
        let mut p: *const c_void = std::ptr::null();
        let mut status = -1;
        assert_eq!(get_proc(c.as_ptr(), &mut p, 12090, 0, &mut status), 500);
        assert_eq!(status, 1);
        let mut s: *const c_char = std::ptr::null();
        assert_eq!(error_name(700, &mut s), 0);
        assert_eq!(
            CStr::from_ptr(s).to_str().unwrap(),
            "CUDA_ERROR_ILLEGAL_ADDRESS"
        );
    }
}

#[test]
fn every_other_entry_point_is_a_not_supported_stub() {
    let lib = library();
    for name in [
        &b"cuGraphCreate"[..],
        b"cuArrayCreate_v2",
        b"cuTexObjectCreate",
        b"cuMemAllocManaged",
    ] {
        let f = sym!(lib, name, unsafe extern "C" fn() -> u32);
        // SAFETY: stubs ignore their arguments.
        assert_eq!(unsafe { f() }, 801, "{}", String::from_utf8_lossy(name));
    }
    let table = sym!(
        lib,
        b"cuGetExportTable",
        unsafe extern "C" fn(*mut *const c_void, *const c_void) -> u32
    );
    let mut p: *const c_void = std::ptr::null();
    assert_eq!(unsafe { table(&mut p, std::ptr::null()) }, 801);
}

#[test]
fn link_library_kernel_and_occupancy() {
    let lib = library();
    let init = sym!(lib, b"cuInit", unsafe extern "C" fn(c_uint) -> u32);
    let retain = sym!(
        lib,
        b"cuDevicePrimaryCtxRetain",
        unsafe extern "C" fn(*mut Handle, c_int) -> u32
    );
    let set_current = sym!(lib, b"cuCtxSetCurrent", unsafe extern "C" fn(Handle) -> u32);
    type LinkCreate =
        unsafe extern "C" fn(c_uint, *mut c_int, *mut *mut c_void, *mut Handle) -> u32;
    type LinkAdd = unsafe extern "C" fn(
        Handle,
        c_uint,
        *mut c_void,
        usize,
        *const c_char,
        c_uint,
        *mut c_int,
        *mut *mut c_void,
    ) -> u32;
    type LibLoad = unsafe extern "C" fn(
        *mut Handle,
        *const c_void,
        *mut c_int,
        *mut *mut c_void,
        c_uint,
        *mut c_int,
        *mut *mut c_void,
        c_uint,
    ) -> u32;
    let create = sym!(lib, b"cuLinkCreate_v2", LinkCreate);
    let add = sym!(lib, b"cuLinkAddData_v2", LinkAdd);
    let complete = sym!(
        lib,
        b"cuLinkComplete",
        unsafe extern "C" fn(Handle, *mut *mut c_void, *mut usize) -> u32
    );
    let load = sym!(lib, b"cuLibraryLoadData", LibLoad);
    let kernel = sym!(
        lib,
        b"cuLibraryGetKernel",
        unsafe extern "C" fn(*mut Handle, Handle, *const c_char) -> u32
    );
    let attr = sym!(
        lib,
        b"cuFuncGetAttribute",
        unsafe extern "C" fn(*mut c_int, c_int, Handle) -> u32
    );
    let occ = sym!(
        lib,
        b"cuOccupancyMaxActiveBlocksPerMultiprocessor",
        unsafe extern "C" fn(*mut c_int, Handle, c_int, usize) -> u32
    );
    let mut ptx =
        std::fs::read(repo().join("ptx-samples/cuda/saxpy/kernel.compute_80.ptx")).unwrap();
    let null = std::ptr::null_mut();
    unsafe {
        assert_eq!(init(0), 0);
        let mut ctx: Handle = null;
        assert_eq!(retain(&mut ctx, 0), 0);
        assert_eq!(set_current(ctx), 0);
        let mut link: Handle = null;
        assert_eq!(create(0, null as _, null as _, &mut link), 0);
        let name = CString::new("saxpy.ptx").unwrap();
        // CU_JIT_INPUT_PTX = 1; a cubin input (0) is refused.
        assert_eq!(
            add(
                link,
                0,
                ptx.as_mut_ptr() as _,
                ptx.len(),
                name.as_ptr(),
                0,
                null as _,
                null as _
            ),
            209
        );
        assert_eq!(
            add(
                link,
                1,
                ptx.as_mut_ptr() as _,
                ptx.len(),
                name.as_ptr(),
                0,
                null as _,
                null as _
            ),
            0
        );
        let (mut image, mut size): (*mut c_void, usize) = (null, 0);
        assert_eq!(complete(link, &mut image, &mut size), 0);
        let mut library: Handle = null;
        assert_eq!(
            load(
                &mut library,
                image,
                null as _,
                null as _,
                0,
                null as _,
                null as _,
                0
            ),
            0
        );
        let mut k: Handle = null;
        let kname = CString::new("_Z5saxpyifPKfPf").unwrap();
        assert_eq!(kernel(&mut k, library, kname.as_ptr()), 0);
        let mut regs = 0;
        assert_eq!(attr(&mut regs, 4, k), 0); // CU_FUNC_ATTRIBUTE_NUM_REGS
        assert!((8..=64).contains(&regs), "{regs}");
        let mut blocks = 0;
        assert_eq!(occ(&mut blocks, k, 256, 0), 0);
        // Pointer attributes of a device allocation.
        let alloc = sym!(
            lib,
            b"cuMemAlloc_v2",
            unsafe extern "C" fn(*mut u64, usize) -> u32
        );
        let pattr = sym!(
            lib,
            b"cuPointerGetAttribute",
            unsafe extern "C" fn(*mut c_void, c_int, u64) -> u32
        );
        let mut d = 0u64;
        assert_eq!(alloc(&mut d, 1000), 0);
        let mut kind: c_uint = 0;
        assert_eq!(pattr(&mut kind as *mut c_uint as _, 2, d + 10), 0);
        assert_eq!(kind, 2, "CU_MEMORYTYPE_DEVICE");
        let (mut start, mut len) = (0u64, 0usize);
        assert_eq!(pattr(&mut start as *mut u64 as _, 11, d + 10), 0);
        assert_eq!(pattr(&mut len as *mut usize as _, 12, d + 10), 0);
        assert_eq!((start, len), (d, 1000));
        // sm_80: 2048 threads per SM, and saxpy is small: 8 blocks of 256.
        assert_eq!(blocks, 8);
    }
}
