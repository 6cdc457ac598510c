//! The shim through its C ABI, as a host program sees it: the built
//! `libcuda.so` is opened with dlopen (libloading) and a real corpus kernel
//! (NVRTC's saxpy) runs through cuInit … cuModuleLoadData … cuLaunchKernel
//! (both launch forms), with results checked against the sample's
//! reference; entry points resolve through cuGetProcAddress_v2 as
//! cuda-python resolves them; faults come back as CUDA's codes (sticky
//! errors of the context, at the next synchronizing call); a cubin is
//! refused with CUDA_ERROR_NO_BINARY_FOR_GPU; the entry points clients call
//! at start-up and for copies; fork. Streams, events and graphs are in
//! async_abi.rs, the environment's settings in env_abi.rs.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};

use libloading::Symbol;

mod common;
use common::api::*;
use common::*;

fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn saxpy_through_the_driver_api() {
    let lib = library();
    let init = sym!(lib, b"cuInit", CuInit);
    let get = sym!(
        lib,
        b"cuDeviceGet",
        unsafe extern "C" fn(*mut c_int, c_int) -> u32
    );
    let attr = sym!(lib, b"cuDeviceGetAttribute", CuDeviceGetAttribute);
    let retain = sym!(lib, b"cuDevicePrimaryCtxRetain", CuDevicePrimaryCtxRetain);
    let set_current = sym!(lib, b"cuCtxSetCurrent", CuCtxSetCurrent);
    let load = sym!(lib, b"cuModuleLoadData", CuModuleLoadData);
    let get_fn = sym!(lib, b"cuModuleGetFunction", CuModuleGetFunction);
    let alloc = sym!(lib, b"cuMemAlloc_v2", CuMemAlloc);
    let htod = sym!(lib, b"cuMemcpyHtoD_v2", CuMemcpyHtoD);
    let dtoh = sym!(lib, b"cuMemcpyDtoH_v2", CuMemcpyDtoH);
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
        // TEXTURE_PITCH_ALIGNMENT: scripts align pitched textures to it.
        let mut pitch_align = 0;
        assert_eq!(attr(&mut pitch_align, 51, dev), 0);
        assert_eq!(pitch_align, 32);
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
        // On the legacy stream, grid × 256 threads.
        let run = |params: *mut *mut c_void, extra: *mut *mut c_void| {
            launch(f, grid, 1, 1, 256, 1, 1, 0, null, params, extra)
        };
        assert_eq!(run(args.as_mut_ptr(), null as _), 0);
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
        assert_eq!(run(null as _, extra.as_mut_ptr()), 0);
        assert_eq!(dtoh(got.as_mut_ptr() as *mut c_void, dy, got.len()), 0);
        assert_eq!(floats(&got), floats(&want), "extra launch");
        // A wild pointer faults as CUDA reports it: launches are
        // asynchronous, so the fault is the context's sticky error, given
        // by the next synchronizing call. In a context of its own, so the
        // primary context (shared by the tests running beside this one)
        // stays usable; destroying the context clears the error.
        let create = sym!(
            lib,
            b"cuCtxCreate_v2",
            unsafe extern "C" fn(*mut Handle, c_uint, c_int) -> u32
        );
        let destroy = sym!(lib, b"cuCtxDestroy_v2", unsafe extern "C" fn(Handle) -> u32);
        let synchronize = sym!(lib, b"cuCtxSynchronize", CuCtxSynchronize);
        let mut faulty: Handle = std::ptr::null_mut();
        assert_eq!(create(&mut faulty, 0, dev), 0);
        let bad = 0x10u64;
        let mut wild: [*mut c_void; 4] = [
            &n as *const c_int as *mut c_void,
            &a as *const f32 as *mut c_void,
            &bad as *const u64 as *mut c_void,
            &dy as *const u64 as *mut c_void,
        ];
        assert_eq!(run(wild.as_mut_ptr(), null as _), 0, "enqueued");
        assert_eq!(synchronize(), 700, "CUDA_ERROR_ILLEGAL_ADDRESS");
        assert_eq!(destroy(faulty), 0);
        assert_eq!(set_current(ctx), 0);
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
        &b"cuGraphAddNode"[..],
        b"cuMipmappedArrayCreate",
        b"cuTexRefSetArray",
        b"cuMemcpy3DPeer",
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
    // An export table the shim does not provide (export_table_abi.rs has
    // the ones it does).
    let mut p: *const c_void = std::ptr::null();
    let unknown = [0xabu8; 16];
    assert_eq!(
        unsafe { table(&mut p, unknown.as_ptr() as *const c_void) },
        801
    );
    assert_eq!(unsafe { table(&mut p, std::ptr::null()) }, 1);
}

#[test]
fn link_library_kernel_and_occupancy() {
    let lib = library();
    let init = sym!(lib, b"cuInit", CuInit);
    let retain = sym!(lib, b"cuDevicePrimaryCtxRetain", CuDevicePrimaryCtxRetain);
    let set_current = sym!(lib, b"cuCtxSetCurrent", CuCtxSetCurrent);
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
    let attr = sym!(lib, b"cuFuncGetAttribute", CuFuncGetAttribute);
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
        // CU_JIT_INPUT_PTX = 1; a cubin input (0) of machine code is refused.
        let mut elf = *b"\x7fELF\x02\x01\x01\0";
        assert_eq!(
            add(
                link,
                0,
                elf.as_mut_ptr() as _,
                elf.len(),
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
        let alloc = sym!(lib, b"cuMemAlloc_v2", CuMemAlloc);
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

// ---- Issue 25: entry points clients call -----------------------------------------------

impl Memcpy2D {
    fn new(width: usize, height: usize) -> Memcpy2D {
        let null = std::ptr::null_mut();
        Memcpy2D {
            src_x: 0,
            src_y: 0,
            src_type: 0,
            src_host: null,
            src_device: 0,
            src_array: null,
            src_pitch: 0,
            dst_x: 0,
            dst_y: 0,
            dst_type: 0,
            dst_host: null,
            dst_device: 0,
            dst_array: null,
            dst_pitch: 0,
            width,
            height,
        }
    }
}

#[test]
fn entry_points_clients_call_at_init_and_for_copies() {
    let api = api();
    let lib = library();
    type U32Fn<A> = unsafe extern "C" fn(A) -> u32;
    let cc = sym!(
        lib,
        b"cuDeviceComputeCapability",
        unsafe extern "C" fn(*mut c_int, *mut c_int, c_int) -> u32
    );
    let bus_id = sym!(
        lib,
        b"cuDeviceGetPCIBusId",
        unsafe extern "C" fn(*mut c_char, c_int, c_int) -> u32
    );
    let api_version = sym!(
        lib,
        b"cuCtxGetApiVersion",
        unsafe extern "C" fn(Handle, *mut c_uint) -> u32
    );
    let ctx_flags = sym!(lib, b"cuCtxGetFlags", U32Fn<*mut c_uint>);
    let set_current = sym!(lib, b"cuCtxSetCurrent", U32Fn<Handle>);
    let get_current = sym!(lib, b"cuCtxGetCurrent", U32Fn<*mut Handle>);
    let profiler_start = sym!(lib, b"cuProfilerStart", unsafe extern "C" fn() -> u32);
    let profiler_stop = sym!(lib, b"cuProfilerStop", unsafe extern "C" fn() -> u32);
    let kernel_cache = sym!(
        lib,
        b"cuKernelSetCacheConfig",
        unsafe extern "C" fn(Handle, c_int, c_int) -> u32
    );
    let func_cache = sym!(
        lib,
        b"cuFuncSetCacheConfig",
        unsafe extern "C" fn(Handle, c_int) -> u32
    );
    let attr = sym!(lib, b"cuDeviceGetAttribute", CuDeviceGetAttribute);
    let host_dptr = sym!(
        lib,
        b"cuMemHostGetDevicePointer_v2",
        unsafe extern "C" fn(*mut u64, *mut c_void, c_uint) -> u32
    );
    let managed = sym!(lib, b"cuMemAllocManaged", CuMemAllocManaged);
    let alloc_pitch = sym!(
        lib,
        b"cuMemAllocPitch_v2",
        unsafe extern "C" fn(*mut u64, *mut usize, usize, usize, c_uint) -> u32
    );
    let memcpy = sym!(
        lib,
        b"cuMemcpy",
        unsafe extern "C" fn(u64, u64, usize) -> u32
    );
    let memcpy_async = sym!(
        lib,
        b"cuMemcpyAsync",
        unsafe extern "C" fn(u64, u64, usize, Handle) -> u32
    );
    let copy2d = sym!(lib, b"cuMemcpy2D_v2", U32Fn<*const Memcpy2D>);
    let copy2d_unaligned = sym!(lib, b"cuMemcpy2DUnaligned_v2", U32Fn<*const Memcpy2D>);
    let copy2d_async = sym!(
        lib,
        b"cuMemcpy2DAsync_v2",
        unsafe extern "C" fn(*const Memcpy2D, Handle) -> u32
    );
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
    let library_load = sym!(lib, b"cuLibraryLoadData", LibLoad);
    let library_global = sym!(
        lib,
        b"cuLibraryGetGlobal",
        unsafe extern "C" fn(*mut u64, *mut usize, Handle, *const c_char) -> u32
    );
    type GetProc =
        unsafe extern "C" fn(*const c_char, *mut *const c_void, c_int, u64, *mut c_int) -> u32;
    let get_proc = sym!(lib, b"cuGetProcAddress_v2", GetProc);
    let null = std::ptr::null_mut();
    // SAFETY: the driver API with valid handles and pointers throughout.
    unsafe {
        let (mut major, mut minor) = (-1, -1);
        assert_eq!(cc(&mut major, &mut minor, 0), 0);
        let (mut a75, mut a76) = (0, 0);
        assert_eq!(attr(&mut a75, 75, 0), 0);
        assert_eq!(attr(&mut a76, 76, 0), 0);
        assert_eq!((major, minor), (a75, a76));
        assert_eq!(
            cc(&mut major, &mut minor, 1),
            101,
            "CUDA_ERROR_INVALID_DEVICE"
        );
        let mut id = [0x55 as c_char; 32];
        assert_eq!(bus_id(id.as_mut_ptr(), 32, 0), 0);
        assert_eq!(
            CStr::from_ptr(id.as_ptr()).to_str().unwrap(),
            "0000:00:00.0"
        );
        let mut short = [0x55 as c_char; 8];
        assert_eq!(bus_id(short.as_mut_ptr(), 5, 0), 0);
        assert_eq!(CStr::from_ptr(short.as_ptr()).to_bytes(), b"0000");
        assert_eq!(short[5], 0x55, "nothing written past len");
        // Contexts: the API version, and the flags a context was created with.
        let mut version = 0;
        assert_eq!(api_version(null, &mut version), 0);
        assert_eq!(version, 3020);
        let mut primary: Handle = null;
        assert_eq!(get_current(&mut primary), 0);
        let mut flags = 99;
        assert_eq!(ctx_flags(&mut flags), 0);
        assert_eq!(flags, 0);
        let mut ctx: Handle = null;
        assert_eq!((api.ctx_create)(&mut ctx, 4, 0), 0); // CU_CTX_SCHED_BLOCKING_SYNC
        assert_eq!(ctx_flags(&mut flags), 0);
        assert_eq!(flags, 4);
        assert_eq!(api_version(ctx, &mut version), 0);
        assert_eq!((api.ctx_destroy)(ctx), 0);
        assert_eq!(
            api_version(ctx, &mut version),
            201,
            "CUDA_ERROR_INVALID_CONTEXT"
        );
        assert_eq!(set_current(primary), 0);
        assert_eq!(profiler_start(), 0);
        assert_eq!(profiler_stop(), 0);
        assert_eq!(kernel_cache(api.saxpy, 2, 0), 0); // CU_FUNC_CACHE_PREFER_L1
        assert_eq!(func_cache(api.saxpy, 1), 0);
        // Device pointers are host pointers (the arena at its device
        // addresses): page-locked memory is mapped at its own address, and
        // managed memory exists (tests/unified_abi.rs runs kernels on both).
        let (mut can_map, mut can_manage) = (-1, -1);
        assert_eq!(attr(&mut can_map, 19, 0), 0);
        assert_eq!(attr(&mut can_manage, 83, 0), 0);
        assert_eq!((can_map, can_manage), (1, 1));
        let mut host: *mut c_void = null;
        assert_eq!((api.host_alloc)(&mut host, 4096, 2), 0); // CU_MEMHOSTALLOC_DEVICEMAP
        let mut d = 0u64;
        assert_eq!(host_dptr(&mut d, host, 0), 0);
        assert_eq!(d, host as u64);
        assert_eq!((api.free_host)(host), 0);
        assert_eq!(
            host_dptr(&mut d, host, 0),
            1,
            "freed: CUDA_ERROR_INVALID_VALUE"
        );
        assert_eq!(managed(&mut d, 4096, 1), 0);
        assert_ne!(d, 0);
        // Pitched allocations: rows at multiples of 512 bytes.
        let (mut pitched, mut pitch) = (0u64, 0usize);
        assert_eq!(alloc_pitch(&mut pitched, &mut pitch, 100, 3, 4), 0);
        assert_eq!(pitch, 512);
        assert_eq!(
            alloc_pitch(&mut d, &mut pitch, 100, 3, 3),
            1,
            "element size"
        );
        // cuMemcpy: each pointer is device or host memory.
        let src: Vec<u8> = (0..=255).collect();
        let mut back = vec![0u8; 256];
        let (mut d1, mut d2) = (0u64, 0u64);
        assert_eq!((api.alloc)(&mut d1, 256), 0);
        assert_eq!((api.alloc)(&mut d2, 256), 0);
        let h = |p: *const u8| p as u64;
        assert_eq!(memcpy(d1, h(src.as_ptr()), 256), 0, "HtoD");
        assert_eq!(memcpy(d2 + 16, d1, 240), 0, "DtoD");
        assert_eq!(memcpy(h(back.as_mut_ptr()), d2 + 16, 240), 0, "DtoH");
        assert_eq!(&back[..240], &src[..240]);
        let mut host_copy = vec![0u8; 256];
        assert_eq!(
            memcpy(h(host_copy.as_mut_ptr()), h(src.as_ptr()), 256),
            0,
            "HtoH"
        );
        assert_eq!(host_copy, src);
        assert_eq!(
            memcpy(d1 + 200, h(src.as_ptr()), 100),
            1,
            "past the allocation"
        );
        let stream = api.stream();
        back.fill(0);
        assert_eq!(memcpy_async(d2, d1, 256, stream), 0);
        assert_eq!(memcpy_async(h(back.as_mut_ptr()), d2, 256, stream), 0);
        assert_eq!((api.stream_synchronize)(stream), 0);
        assert_eq!(back, src);
        // 2D: 3 rows of 100 bytes from a 128-byte-pitched host image into
        // the pitched allocation at column 8, and back out at pitch 100.
        let image: Vec<u8> = (0..3 * 128).map(|i| (i * 7 % 251) as u8).collect();
        let mut p = Memcpy2D::new(100, 3);
        p.src_type = 1;
        p.src_host = image.as_ptr() as _;
        p.src_pitch = 128;
        p.dst_type = 2;
        p.dst_device = pitched;
        p.dst_pitch = pitch;
        p.dst_x = 8;
        assert_eq!(copy2d(&p), 0);
        let mut out = vec![0u8; 300];
        let mut q = Memcpy2D::new(100, 3);
        q.src_type = 4; // CU_MEMORYTYPE_UNIFIED: the pointer says device
        q.src_device = pitched;
        q.src_x = 8;
        q.src_pitch = pitch;
        q.dst_type = 1;
        q.dst_host = out.as_mut_ptr() as _;
        q.dst_pitch = 100;
        assert_eq!(copy2d_unaligned(&q), 0);
        for r in 0..3 {
            assert_eq!(&out[r * 100..][..100], &image[r * 128..][..100], "row {r}");
        }
        out.fill(0);
        assert_eq!(copy2d_async(&q, stream), 0);
        assert_eq!((api.stream_synchronize)(stream), 0);
        assert_eq!(&out[200..], &image[256..356]);
        q.dst_pitch = 50;
        assert_eq!(copy2d(&q), 1, "pitch below the width");
        q.dst_pitch = 100;
        q.dst_type = 3; // CU_MEMORYTYPE_ARRAY with a null array handle
        assert_eq!(copy2d(&q), 1, "not an array");
        assert_eq!((api.stream_destroy)(stream), 0);
        // cuLibraryGetGlobal: a library's variables.
        let ptx = CString::new(GLOBALS_PTX).unwrap();
        let mut library: Handle = null;
        let code = ptx.as_ptr() as *const c_void;
        assert_eq!(
            library_load(
                &mut library,
                code,
                null as _,
                null as _,
                0,
                null as _,
                null as _,
                0
            ),
            0
        );
        let (mut counter, mut size) = (0u64, 0usize);
        let name = CString::new("counter").unwrap();
        assert_eq!(
            library_global(&mut counter, &mut size, library, name.as_ptr()),
            0
        );
        assert_eq!(size, 4);
        let mut value = 0u32;
        assert_eq!((api.dtoh)(&mut value as *mut u32 as _, counter, 4), 0);
        assert_eq!(value, 7);
        let missing = CString::new("nope").unwrap();
        assert_eq!(
            library_global(&mut counter, &mut size, library, missing.as_ptr()),
            500
        );
        // Resolved by base name as cuda-python resolves them.
        for (name, direct) in [
            ("cuMemcpy2D", &b"cuMemcpy2D_v2"[..]),
            ("cuMemAllocPitch", b"cuMemAllocPitch_v2"),
            ("cuMemHostGetDevicePointer", b"cuMemHostGetDevicePointer_v2"),
            ("cuDeviceComputeCapability", b"cuDeviceComputeCapability"),
            ("cuMemcpyAsync", b"cuMemcpyAsync"),
        ] {
            let c = CString::new(name).unwrap();
            let mut f: *const c_void = std::ptr::null();
            assert_eq!(
                get_proc(c.as_ptr(), &mut f, 12090, 0, null as _),
                0,
                "{name}"
            );
            let want: Symbol<*const c_void> = lib.get(direct).unwrap();
            assert_eq!(f, *want, "{name}");
        }
    }
}

extern "C" {
    fn fork() -> c_int;
    fn waitpid(pid: c_int, status: *mut c_int, options: c_int) -> c_int;
    fn alarm(seconds: c_uint) -> c_uint;
    fn _exit(code: c_int) -> !;
}

#[test]
fn after_fork_the_child_gets_not_initialized() {
    let api = api();
    let lib = library();
    let init = sym!(lib, b"cuInit", CuInit);
    let get_current = sym!(
        lib,
        b"cuCtxGetCurrent",
        unsafe extern "C" fn(*mut Handle) -> u32
    );
    let (init, get_current) = (*init, *get_current);
    // SAFETY: the driver API with valid handles; the child calls only the
    // shim's entry points (which must not lock or allocate there) and
    // async-signal-safe libc functions.
    unsafe {
        let stream = api.stream();
        // Pending work the child must not wait for (its worker thread
        // exists only in the parent).
        let release = hold(&api, stream);
        let pid = fork();
        assert!(pid >= 0, "fork");
        if pid == 0 {
            alarm(20); // a hang ends as SIGALRM, not as a stuck test
            let mut ctx: Handle = std::ptr::null_mut();
            let codes = [
                (api.stream_synchronize)(stream),
                (api.ctx_synchronize)(),
                (api.stream_query)(stream),
                init(0),
                get_current(&mut ctx),
            ];
            let all_three = codes.iter().all(|&c| c == 3);
            _exit(if all_three {
                3
            } else {
                100 + codes[0] as c_int % 100
            });
        }
        let mut status = 0;
        assert_eq!(waitpid(pid, &mut status, 0), pid);
        assert_eq!(
            status & 0x7f,
            0,
            "the child ended by signal {}",
            status & 0x7f
        );
        assert_eq!(
            (status >> 8) & 0xff,
            3,
            "CUDA_ERROR_NOT_INITIALIZED in the child"
        );
        // The parent's driver is untouched.
        release.send(()).unwrap();
        assert_eq!((api.stream_synchronize)(stream), 0);
        assert_eq!((api.stream_destroy)(stream), 0);
    }
}
