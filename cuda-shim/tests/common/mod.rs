//! What the C-ABI tests share: the built `libcuda.so` opened with dlopen
//! (libloading), symbols looked up with their cuda.h signatures, the
//! repository's root, and the primary context made current.

#![allow(dead_code)]

use std::ffi::{c_int, c_uint, c_void};
use std::path::PathBuf;

use libloading::Library;

pub type Handle = *mut c_void;

/// `cuLaunchKernel`.
pub type Launch = unsafe extern "C" fn(
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

/// A symbol of `$lib` with the C signature `$ty` of cuda.h.
#[macro_export]
macro_rules! sym {
    ($lib:expr, $name:expr, $ty:ty) => {{
        let (lib, name): (&libloading::Library, &[u8]) = (&$lib, $name);
        // SAFETY: the symbol has the C signature of cuda.h.
        #[allow(unused_unsafe)]
        let s: libloading::Symbol<$ty> = unsafe { lib.get(name) }.unwrap();
        s
    }};
}

/// The shared library cargo built for this test run.
pub fn library() -> Library {
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/<test>-…: the cdylib is built beside it (and
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

/// The repository's root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// cuInit and the primary context made current.
pub fn context(lib: &Library) {
    let init = sym!(lib, b"cuInit", unsafe extern "C" fn(c_uint) -> u32);
    let retain = sym!(
        lib,
        b"cuDevicePrimaryCtxRetain",
        unsafe extern "C" fn(*mut Handle, c_int) -> u32
    );
    let set_current = sym!(lib, b"cuCtxSetCurrent", unsafe extern "C" fn(Handle) -> u32);
    let mut ctx: Handle = std::ptr::null_mut();
    // SAFETY: out-pointers to locals.
    unsafe {
        assert_eq!(init(0), 0);
        assert_eq!(retain(&mut ctx, 0), 0);
        assert_eq!(set_current(ctx), 0);
    }
}

/// NVRTC's saxpy from the corpus (`ptx-samples/cuda/saxpy`), loaded in the
/// current context: its function.
pub fn saxpy(lib: &Library) -> Handle {
    let load = sym!(
        lib,
        b"cuModuleLoadData",
        unsafe extern "C" fn(*mut Handle, *const c_void) -> u32
    );
    let get_function = sym!(
        lib,
        b"cuModuleGetFunction",
        unsafe extern "C" fn(*mut Handle, Handle, *const std::ffi::c_char) -> u32
    );
    let path = repo().join("ptx-samples/cuda/saxpy/kernel.compute_80.ptx");
    let ptx = std::ffi::CString::new(std::fs::read(path).unwrap()).unwrap();
    let (mut module, mut f): (Handle, Handle) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: out-pointers to locals and NUL-terminated strings.
    unsafe {
        assert_eq!(load(&mut module, ptx.as_ptr() as *const c_void), 0);
        assert_eq!(get_function(&mut f, module, c"_Z5saxpyifPKfPf".as_ptr()), 0);
    }
    f
}

/// Launches saxpy (`y[i] = a * x[i] + y[i]`, `i < n`) on the legacy
/// stream in 256-thread blocks; returns the launch's result.
pub fn launch_saxpy(lib: &Library, f: Handle, n: c_int, a: f32, x: u64, y: u64) -> u32 {
    let launch = sym!(lib, b"cuLaunchKernel", Launch);
    let mut args: [*mut c_void; 4] = [
        &n as *const c_int as *mut c_void,
        &a as *const f32 as *mut c_void,
        &x as *const u64 as *mut c_void,
        &y as *const u64 as *mut c_void,
    ];
    let null = std::ptr::null_mut();
    let grid = (n as u32).div_ceil(256);
    // SAFETY: saxpy's four arguments, as pointers to locals that outlive
    // the call (the library copies them).
    unsafe {
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
            null as _,
        )
    }
}

/// A host function (`cuLaunchHostFunc`) that holds the stream it runs on
/// for 200 ms.
pub unsafe extern "C" fn hold_stream(_: *mut c_void) {
    std::thread::sleep(std::time::Duration::from_millis(200));
}

/// An empty graph, captured on a new non-blocking stream.
pub fn empty_graph(lib: &Library) -> Handle {
    let create = sym!(
        lib,
        b"cuStreamCreate",
        unsafe extern "C" fn(*mut Handle, c_uint) -> u32
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
    let (mut s, mut graph): (Handle, Handle) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: out-pointers to locals.
    unsafe {
        assert_eq!(create(&mut s, 1), 0);
        assert_eq!(begin(s, 0), 0);
        assert_eq!(end(s, &mut graph), 0);
    }
    graph
}
