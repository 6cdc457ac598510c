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
