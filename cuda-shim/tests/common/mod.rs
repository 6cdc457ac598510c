//! What the C-ABI tests share: the built `libcuda.so` opened with dlopen
//! (libloading), symbols looked up with their cuda.h signatures, the
//! repository's root, and the primary context made current.

#![allow(dead_code)]

use std::ffi::{c_char, c_int, c_uint, c_void, CString};
use std::path::PathBuf;

use libloading::Library;

pub mod api;

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

/// `cuMemAlloc_v2`.
/// `CUDA_MEMCPY2D`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Memcpy2D {
    pub src_x: usize,
    pub src_y: usize,
    pub src_type: c_uint,
    pub src_host: *const c_void,
    pub src_device: u64,
    pub src_array: Handle,
    pub src_pitch: usize,
    pub dst_x: usize,
    pub dst_y: usize,
    pub dst_type: c_uint,
    pub dst_host: *mut c_void,
    pub dst_device: u64,
    pub dst_array: Handle,
    pub dst_pitch: usize,
    pub width: usize,
    pub height: usize,
}

/// `CUlaunchAttribute`: an id padded to 8 bytes, then a 64-byte value.
#[repr(C)]
pub struct LaunchAttribute {
    pub id: u32,
    pub pad: u32,
    pub value: [u8; 64],
}

/// `CUlaunchConfig`.
#[repr(C)]
pub struct LaunchConfig {
    pub grid: [c_uint; 3],
    pub block: [c_uint; 3],
    pub shared: c_uint,
    pub stream: Handle,
    pub attrs: *mut LaunchAttribute,
    pub num_attrs: c_uint,
}

/// `cuLaunchKernelEx`.
pub type LaunchEx =
    unsafe extern "C" fn(*const LaunchConfig, Handle, *mut *mut c_void, *mut *mut c_void) -> u32;

pub type CuMemAlloc = unsafe extern "C" fn(*mut u64, usize) -> u32;
/// `cuInit`.
pub type CuInit = unsafe extern "C" fn(c_uint) -> u32;
/// `cuModuleLoadData`.
pub type CuModuleLoadData = unsafe extern "C" fn(*mut Handle, *const c_void) -> u32;
/// `cuModuleGetFunction`.
pub type CuModuleGetFunction = unsafe extern "C" fn(*mut Handle, Handle, *const c_char) -> u32;
/// `cuMemcpyDtoH_v2`.
pub type CuMemcpyDtoH = unsafe extern "C" fn(*mut c_void, u64, usize) -> u32;
/// `cuMemcpyHtoD_v2`.
pub type CuMemcpyHtoD = unsafe extern "C" fn(u64, *const c_void, usize) -> u32;
/// `cuCtxSynchronize`.
pub type CuCtxSynchronize = unsafe extern "C" fn() -> u32;
/// `cuDeviceGetAttribute`.
pub type CuDeviceGetAttribute = unsafe extern "C" fn(*mut c_int, c_int, c_int) -> u32;
/// `cuDevicePrimaryCtxRetain`.
pub type CuDevicePrimaryCtxRetain = unsafe extern "C" fn(*mut Handle, c_int) -> u32;
/// `cuCtxSetCurrent`.
pub type CuCtxSetCurrent = unsafe extern "C" fn(Handle) -> u32;
/// `cuMemAllocManaged`.
pub type CuMemAllocManaged = unsafe extern "C" fn(*mut u64, usize, c_uint) -> u32;
/// `cuFuncGetAttribute`.
pub type CuFuncGetAttribute = unsafe extern "C" fn(*mut c_int, c_int, Handle) -> u32;
/// `cuStreamCreate`.
pub type CuStreamCreate = unsafe extern "C" fn(*mut Handle, c_uint) -> u32;
/// `cuMemFree_v2`.
pub type CuMemFree = unsafe extern "C" fn(u64) -> u32;

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
    let init = sym!(lib, b"cuInit", CuInit);
    let retain = sym!(lib, b"cuDevicePrimaryCtxRetain", CuDevicePrimaryCtxRetain);
    let set_current = sym!(lib, b"cuCtxSetCurrent", CuCtxSetCurrent);
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
    let load = sym!(lib, b"cuModuleLoadData", CuModuleLoadData);
    let get_function = sym!(lib, b"cuModuleGetFunction", CuModuleGetFunction);
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
    let create = sym!(lib, b"cuStreamCreate", CuStreamCreate);
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

/// A sample of `ptx-samples/link/`.
pub fn sample(path: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../ptx-samples/link")
        .join(path);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Loads a linked image of `ptx-samples/link/two_files` (kernel.ptx with
/// util.ptx) into the current context, runs `link_kernel` on 300 elements
/// and checks every result and util.ptx's `hits` counter.
pub fn run_two_files(lib: &Library, image: &[u8]) {
    let load = sym!(lib, b"cuModuleLoadData", CuModuleLoadData);
    let get_fn = sym!(lib, b"cuModuleGetFunction", CuModuleGetFunction);
    let get_global = sym!(
        lib,
        b"cuModuleGetGlobal_v2",
        unsafe extern "C" fn(*mut u64, *mut usize, Handle, *const c_char) -> u32
    );
    let alloc = sym!(lib, b"cuMemAlloc_v2", CuMemAlloc);
    let htod = sym!(lib, b"cuMemcpyHtoD_v2", CuMemcpyHtoD);
    let dtoh = sym!(lib, b"cuMemcpyDtoH_v2", CuMemcpyDtoH);
    let launch = sym!(lib, b"cuLaunchKernel", Launch);
    let n: c_int = 300;
    let input: Vec<f32> = (0..n).map(|i| i as f32 - 100.0).collect();
    let null = std::ptr::null_mut();
    // SAFETY: every pointer is to a live local of the size given.
    unsafe {
        let mut module: Handle = null;
        assert_eq!(load(&mut module, image.as_ptr() as *const c_void), 0);
        let mut f: Handle = null;
        let name = CString::new("link_kernel").unwrap();
        assert_eq!(get_fn(&mut f, module, name.as_ptr()), 0);
        let bytes = 4 * n as usize;
        let (mut din, mut dout, mut diout) = (0u64, 0u64, 0u64);
        assert_eq!(alloc(&mut din, bytes), 0);
        assert_eq!(alloc(&mut dout, bytes), 0);
        assert_eq!(alloc(&mut diout, bytes), 0);
        assert_eq!(htod(din, input.as_ptr() as *const c_void, bytes), 0);
        let mut args: [*mut c_void; 4] = [
            &din as *const u64 as *mut c_void,
            &dout as *const u64 as *mut c_void,
            &diout as *const u64 as *mut c_void,
            &n as *const c_int as *mut c_void,
        ];
        assert_eq!(
            launch(f, 3, 1, 1, 128, 1, 1, 0, null, args.as_mut_ptr(), null as _),
            0
        );
        let mut out = vec![0f32; n as usize];
        let mut iout = vec![0i32; n as usize];
        assert_eq!(dtoh(out.as_mut_ptr() as *mut c_void, dout, bytes), 0);
        assert_eq!(dtoh(iout.as_mut_ptr() as *mut c_void, diout, bytes), 0);
        for i in 0..n as usize {
            assert_eq!(out[i], 2.0f32.mul_add(input[i], 0.5) + 7.0, "out[{i}]");
            assert_eq!(iout[i], 8 * i as i32 + 100, "iout[{i}]");
        }
        // `hits` is util.ptx's variable, which kernel.ptx's extern resolved to.
        let (mut addr, mut size) = (0u64, 0usize);
        let hits = CString::new("hits").unwrap();
        assert_eq!(get_global(&mut addr, &mut size, module, hits.as_ptr()), 0);
        assert_eq!(size, 4);
        let mut count = 0u32;
        assert_eq!(dtoh(&mut count as *mut u32 as *mut c_void, addr, 4), 0);
        assert_eq!(count, n as u32);
    }
}

/// A module with a `.global` and a `.const` variable (40 + 12 bytes of
/// `.const`), and a kernel using both.
pub const GLOBALS_PTX: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.global .align 4 .u32 counter = 7;
.const .align 4 .b8 table[40];
.const .align 8 .u64 scale[1];
.const .align 4 .u32 bias = 3;
.visible .entry bump(.param .u64 out)
{
    .reg .u32 %r<4>;
    .reg .u64 %rd<3>;
    ld.param.u64 %rd1, [out];
    ld.const.u32 %r1, [table+4];
    ld.const.u32 %r2, [bias];
    ld.global.u32 %r3, [counter];
    add.u32 %r3, %r3, %r1;
    add.u32 %r3, %r3, %r2;
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], %r3;
    ret;
}
"#;
