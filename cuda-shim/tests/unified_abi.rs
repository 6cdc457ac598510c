//! Unified addressing through the C ABI: the driver library places device
//! memory at its device addresses (`runtime/arena.rs`), so managed memory
//! (`cuMemAllocManaged`) and page-locked host memory mapped with
//! `cuMemHostGetDevicePointer` are one pointer for the host and for
//! kernels. NVRTC's saxpy (`ptx-samples/cuda/saxpy`) runs on arrays the
//! host fills and reads through those pointers directly, with no copy.

use std::ffi::{c_int, c_uint, c_void};

mod common;
use common::*;

#[test]
fn kernels_and_the_host_share_managed_and_mapped_memory() {
    let lib = library();
    context(&lib);
    let managed = sym!(lib, b"cuMemAllocManaged", CuMemAllocManaged);
    let host_alloc = sym!(
        lib,
        b"cuMemHostAlloc",
        unsafe extern "C" fn(*mut *mut c_void, usize, c_uint) -> u32
    );
    let host_dptr = sym!(
        lib,
        b"cuMemHostGetDevicePointer_v2",
        unsafe extern "C" fn(*mut u64, *mut c_void, c_uint) -> u32
    );
    let attribute = sym!(
        lib,
        b"cuPointerGetAttribute",
        unsafe extern "C" fn(*mut c_void, c_int, u64) -> u32
    );
    let sync = sym!(lib, b"cuCtxSynchronize", CuCtxSynchronize);
    let range = sym!(
        lib,
        b"cuMemGetAddressRange_v2",
        unsafe extern "C" fn(*mut u64, *mut usize, u64) -> u32
    );
    let dtoh = sym!(lib, b"cuMemcpyDtoH_v2", CuMemcpyDtoH);
    let free = sym!(lib, b"cuMemFree_v2", CuMemFree);
    let free_host = sym!(
        lib,
        b"cuMemFreeHost",
        unsafe extern "C" fn(*mut c_void) -> u32
    );

    let n: c_int = 1000;
    let a: f32 = 2.5;
    let f = saxpy(&lib);
    // SAFETY: every pointer passed is to a live local or to memory the
    // library returned, used within its size (n floats).
    unsafe {
        // x in managed memory, y in mapped page-locked host memory.
        let mut x = 0u64;
        assert_eq!(managed(&mut x, 4 * n as usize, 1), 0); // CU_MEM_ATTACH_GLOBAL
        let mut y_host: *mut c_void = std::ptr::null_mut();
        assert_eq!(host_alloc(&mut y_host, 4 * n as usize, 2), 0); // DEVICEMAP
        let mut y = 0u64;
        assert_eq!(host_dptr(&mut y, y_host, 0), 0);
        assert_eq!(y, y_host as u64, "mapped at its own address");
        let mut is_managed: c_int = -1;
        assert_eq!(
            attribute(&mut is_managed as *mut c_int as *mut c_void, 8, x),
            0
        );
        assert_eq!(is_managed, 1);
        assert_eq!(
            attribute(&mut is_managed as *mut c_int as *mut c_void, 8, y),
            0
        );
        assert_eq!(is_managed, 0);
        // Several at once (cuda.core's query): memory type, device ordinal,
        // managed; for memory CUDA does not know, its defaults, not an error.
        let attributes = sym!(
            lib,
            b"cuPointerGetAttributes",
            unsafe extern "C" fn(c_uint, *const c_int, *mut *mut c_void, u64) -> u32
        );
        let which: [c_int; 3] = [2, 9, 8];
        let (mut kind, mut ordinal, mut managed_flag) = (0u32, 7i32, 7i32);
        let mut outs: [*mut c_void; 3] = [
            &mut kind as *mut u32 as *mut c_void,
            &mut ordinal as *mut i32 as *mut c_void,
            &mut managed_flag as *mut i32 as *mut c_void,
        ];
        assert_eq!(attributes(3, which.as_ptr(), outs.as_mut_ptr(), x), 0);
        assert_eq!(
            (kind, ordinal, managed_flag),
            (2, 0, 1),
            "managed: device memory"
        );
        let stack = 0u64;
        assert_eq!(
            attributes(
                3,
                which.as_ptr(),
                outs.as_mut_ptr(),
                &stack as *const u64 as u64
            ),
            0
        );
        assert_eq!(
            (kind, ordinal, managed_flag),
            (0, -2, 0),
            "unknown memory: defaults"
        );
        // The host writes both through its pointers.
        let xs = std::slice::from_raw_parts_mut(x as *mut f32, n as usize);
        let ys = std::slice::from_raw_parts_mut(y_host as *mut f32, n as usize);
        for i in 0..n as usize {
            xs[i] = i as f32;
            ys[i] = 1.0 - i as f32 * 0.5;
        }
        assert_eq!(launch_saxpy(&lib, f, n, a, x, y), 0);
        assert_eq!(sync(), 0);
        // The host reads the kernel's results through its pointer.
        for (i, &v) in ys.iter().enumerate() {
            assert_eq!(v, a * i as f32 + (1.0 - i as f32 * 0.5), "y[{i}]");
        }
        // The mapped pointer is a device range: its extent, and copies
        // from it as from device memory.
        let (mut base, mut size) = (0u64, 0usize);
        assert_eq!(range(&mut base, &mut size, y + 8), 0);
        assert_eq!((base, size), (y, 4 * n as usize));
        let mut copy = vec![0f32; n as usize];
        assert_eq!(dtoh(copy.as_mut_ptr() as *mut c_void, y, 4 * n as usize), 0);
        assert_eq!(&copy[..], &ys[..]);
        assert_eq!(free(x), 0);
        assert_eq!(free_host(y_host), 0);
    }
}

/// A synchronous memset of memory the host reads directly (mapped
/// page-locked host memory, managed memory) has happened when it returns,
/// even behind other work on its stream, as CUDA's memsets are fully
/// synchronous there.
#[test]
fn synchronous_memsets_of_host_visible_memory_are_done_on_return() {
    let lib = library();
    context(&lib);
    let managed = sym!(lib, b"cuMemAllocManaged", CuMemAllocManaged);
    let host_alloc = sym!(
        lib,
        b"cuMemHostAlloc",
        unsafe extern "C" fn(*mut *mut c_void, usize, c_uint) -> u32
    );
    let host_fn = sym!(
        lib,
        b"cuLaunchHostFunc",
        unsafe extern "C" fn(Handle, unsafe extern "C" fn(*mut c_void), *mut c_void) -> u32
    );
    let memset8 = sym!(
        lib,
        b"cuMemsetD8_v2",
        unsafe extern "C" fn(u64, u8, usize) -> u32
    );
    let memset32 = sym!(
        lib,
        b"cuMemsetD32_v2",
        unsafe extern "C" fn(u64, c_uint, usize) -> u32
    );
    let free = sym!(lib, b"cuMemFree_v2", CuMemFree);
    let free_host = sym!(
        lib,
        b"cuMemFreeHost",
        unsafe extern "C" fn(*mut c_void) -> u32
    );
    let sync = sym!(lib, b"cuCtxSynchronize", CuCtxSynchronize);
    // SAFETY: pointers the library returned, used within their sizes.
    unsafe {
        let mut m = 0u64;
        assert_eq!(managed(&mut m, 64, 1), 0);
        let mut h: *mut c_void = std::ptr::null_mut();
        assert_eq!(host_alloc(&mut h, 64, 2), 0); // DEVICEMAP
        std::ptr::write_bytes(m as *mut u8, 0xee, 64);
        std::ptr::write_bytes(h as *mut u8, 0xee, 64);
        let null = std::ptr::null_mut();
        assert_eq!(host_fn(null, hold_stream, null), 0);
        assert_eq!(memset8(h as u64, 0, 64), 0);
        let hs = std::slice::from_raw_parts(h as *const u8, 64);
        assert!(hs.iter().all(|&b| b == 0), "mapped host memory: {hs:?}");
        assert_eq!(host_fn(null, hold_stream, null), 0);
        assert_eq!(memset32(m, 7, 16), 0);
        let ms = std::slice::from_raw_parts(m as *const u32, 16);
        assert!(ms.iter().all(|&w| w == 7), "managed memory: {ms:?}");
        assert_eq!(sync(), 0);
        assert_eq!(free(m), 0);
        assert_eq!(free_host(h), 0);
    }
}

/// Prefetches, advice and stream attachment of managed memory are checked
/// (a managed range, a known stream, a valid flag) and move nothing: host
/// and kernels share one coherent memory (`CONCURRENT_MANAGED_ACCESS` 1).
#[test]
fn prefetch_advice_and_attachment_check_their_range() {
    let lib = library();
    context(&lib);
    let attr = sym!(lib, b"cuDeviceGetAttribute", CuDeviceGetAttribute);
    let managed = sym!(lib, b"cuMemAllocManaged", CuMemAllocManaged);
    let alloc = sym!(lib, b"cuMemAlloc_v2", CuMemAlloc);
    let prefetch = sym!(
        lib,
        b"cuMemPrefetchAsync",
        unsafe extern "C" fn(u64, usize, c_int, Handle) -> u32
    );
    let advise = sym!(
        lib,
        b"cuMemAdvise",
        unsafe extern "C" fn(u64, usize, c_int, c_int) -> u32
    );
    let attach = sym!(
        lib,
        b"cuStreamAttachMemAsync",
        unsafe extern "C" fn(Handle, u64, usize, c_uint) -> u32
    );
    // SAFETY: out-pointers to locals; ranges within the allocations.
    unsafe {
        let mut concurrent = 0;
        assert_eq!(attr(&mut concurrent, 89, 0), 0);
        assert_eq!(concurrent, 1);
        let (mut m, mut d) = (0u64, 0u64);
        assert_eq!(managed(&mut m, 4096, 1), 0);
        assert_eq!(alloc(&mut d, 4096), 0);
        let null = std::ptr::null_mut();
        assert_eq!(prefetch(m, 4096, 0, null), 0);
        assert_eq!(prefetch(m + 4000, 200, 0, null), 1, "past the allocation");
        assert_eq!(prefetch(d, 4096, 0, null), 1, "not managed");
        assert_eq!(advise(m, 1024, 1, 0), 0); // SET_READ_MOSTLY
        assert_eq!(attach(null, m, 0, 4), 0); // SINGLE, whole allocation
        assert_eq!(attach(null, m, 0, 3), 1, "not a flag");
    }
}
