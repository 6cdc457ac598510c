//! Stream-ordered allocation and memory pools through the C ABI: an
//! asynchronous allocation is usable by the work enqueued after it, an
//! asynchronous free takes effect when its stream reaches it (not before),
//! the pools account for what they hand out, and both calls may be
//! captured.

use std::ffi::{c_int, c_void};

mod common;
use common::*;

#[test]
fn asynchronous_frees_wait_for_their_stream_and_pools_count_the_bytes() {
    let lib = library();
    context(&lib);
    let attr = sym!(lib, b"cuDeviceGetAttribute", CuDeviceGetAttribute);
    let default_pool = sym!(
        lib,
        b"cuDeviceGetDefaultMemPool",
        unsafe extern "C" fn(*mut Handle, c_int) -> u32
    );
    let create_stream = sym!(lib, b"cuStreamCreate", CuStreamCreate);
    let host_fn = sym!(
        lib,
        b"cuLaunchHostFunc",
        unsafe extern "C" fn(Handle, unsafe extern "C" fn(*mut c_void), *mut c_void) -> u32
    );
    let alloc_async = sym!(
        lib,
        b"cuMemAllocAsync",
        unsafe extern "C" fn(*mut u64, usize, Handle) -> u32
    );
    let alloc_from = sym!(
        lib,
        b"cuMemAllocFromPoolAsync",
        unsafe extern "C" fn(*mut u64, usize, Handle, Handle) -> u32
    );
    let free_async = sym!(
        lib,
        b"cuMemFreeAsync",
        unsafe extern "C" fn(u64, Handle) -> u32
    );
    let memset_async = sym!(
        lib,
        b"cuMemsetD8Async",
        unsafe extern "C" fn(u64, u8, usize, Handle) -> u32
    );
    let dtoh_async = sym!(
        lib,
        b"cuMemcpyDtoHAsync_v2",
        unsafe extern "C" fn(*mut c_void, u64, usize, Handle) -> u32
    );
    let range = sym!(
        lib,
        b"cuMemGetAddressRange_v2",
        unsafe extern "C" fn(*mut u64, *mut usize, u64) -> u32
    );
    let sync = sym!(
        lib,
        b"cuStreamSynchronize",
        unsafe extern "C" fn(Handle) -> u32
    );
    let get = sym!(
        lib,
        b"cuMemPoolGetAttribute",
        unsafe extern "C" fn(Handle, c_int, *mut c_void) -> u32
    );
    let set = sym!(
        lib,
        b"cuMemPoolSetAttribute",
        unsafe extern "C" fn(Handle, c_int, *mut c_void) -> u32
    );
    let create_pool = sym!(
        lib,
        b"cuMemPoolCreate",
        unsafe extern "C" fn(*mut Handle, *const c_void) -> u32
    );
    let destroy_pool = sym!(
        lib,
        b"cuMemPoolDestroy",
        unsafe extern "C" fn(Handle) -> u32
    );
    let trim = sym!(
        lib,
        b"cuMemPoolTrimTo",
        unsafe extern "C" fn(Handle, usize) -> u32
    );
    let begin = sym!(
        lib,
        b"cuStreamBeginCapture_v2",
        unsafe extern "C" fn(Handle, c_int) -> u32
    );
    let end = sym!(
        lib,
        b"cuStreamEndCapture",
        unsafe extern "C" fn(Handle, *mut Handle) -> u32
    );
    let u64_attr = |pool: Handle, a: c_int| {
        let mut v = u64::MAX;
        // SAFETY: an out-pointer to a local of the attribute's type.
        assert_eq!(
            unsafe { get(pool, a, &mut v as *mut u64 as *mut c_void) },
            0
        );
        v
    };
    // SAFETY: out-pointers to locals; buffers of the sizes given.
    unsafe {
        let mut supported = 0;
        assert_eq!(attr(&mut supported, 115, 0), 0);
        assert_eq!(supported, 1, "MEMORY_POOLS_SUPPORTED");
        let mut pool: Handle = std::ptr::null_mut();
        assert_eq!(default_pool(&mut pool, 0), 0);
        let mut stream: Handle = std::ptr::null_mut();
        assert_eq!(create_stream(&mut stream, 1), 0); // non-blocking
        let null = std::ptr::null_mut();
        assert_eq!(host_fn(stream, hold_stream, null), 0);
        // Allocated at the call; used, read back and freed in stream order.
        let mut p = 0u64;
        assert_eq!(alloc_async(&mut p, 1000, stream), 0);
        assert_eq!(u64_attr(pool, 7), 1000, "used memory");
        assert_eq!(memset_async(p, 7, 1000, stream), 0);
        let mut host = vec![0u8; 1000];
        // Into pageable memory the copy is done when the call returns.
        assert_eq!(
            dtoh_async(host.as_mut_ptr() as *mut c_void, p, 1000, stream),
            0
        );
        assert!(host.iter().all(|&b| b == 7));
        assert_eq!(host_fn(stream, hold_stream, null), 0);
        assert_eq!(free_async(p, stream), 0);
        // Freeing null frees nothing (cuda.core's zero-byte buffers); an
        // address that is no allocation is an error.
        assert_eq!(free_async(0, stream), 0);
        assert_eq!(free_async(p + 8, stream), 1, "CUDA_ERROR_INVALID_VALUE");
        let (mut base, mut size) = (0u64, 0usize);
        assert_eq!(
            range(&mut base, &mut size, p),
            0,
            "freed only in stream order"
        );
        assert_eq!(sync(stream), 0);
        assert_ne!(
            range(&mut base, &mut size, p),
            0,
            "freed once the stream got there"
        );
        assert_eq!(u64_attr(pool, 7), 0);
        assert_eq!(u64_attr(pool, 8), 1000, "high water");
        let mut zero = 0u64;
        assert_eq!(set(pool, 8, &mut zero as *mut u64 as *mut c_void), 0);
        assert_eq!(u64_attr(pool, 8), 0, "high water reset");
        let mut threshold = u64::MAX;
        assert_eq!(set(pool, 4, &mut threshold as *mut u64 as *mut c_void), 0);
        assert_eq!(u64_attr(pool, 4), u64::MAX);
        assert_eq!(trim(pool, 0), 0);
        // A pool of one's own.
        let props = [0u8; 88];
        let mut mine: Handle = std::ptr::null_mut();
        assert_eq!(create_pool(&mut mine, props.as_ptr() as *const c_void), 0);
        assert_ne!(mine, pool);
        let mut q = 0u64;
        assert_eq!(alloc_from(&mut q, 64, mine, stream), 0);
        assert_eq!(u64_attr(mine, 7), 64);
        assert_eq!(free_async(q, stream), 0);
        assert_eq!(sync(stream), 0);
        assert_eq!(u64_attr(mine, 7), 0);
        assert_eq!(destroy_pool(mine), 0);
        assert_ne!(destroy_pool(pool), 0, "the default pool stays");
        // In a capture: allocated at the call (the graph's memory keeps its
        // address), the free an empty node.
        assert_eq!(begin(stream, 0), 0);
        assert_eq!(alloc_async(&mut q, 64, stream), 0);
        assert_eq!(memset_async(q, 1, 64, stream), 0);
        assert_eq!(free_async(q, stream), 0);
        let mut graph: Handle = std::ptr::null_mut();
        assert_eq!(end(stream, &mut graph), 0);
        assert_eq!(range(&mut base, &mut size, q), 0);
        assert_eq!((base, size), (q, 64));
    }
}
