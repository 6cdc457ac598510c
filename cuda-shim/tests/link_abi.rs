//! Linking through the C ABI, as numba-cuda links without nvJitLink:
//! `cuLinkCreate_v2` (with an error log buffer), `cuLinkAddData_v2` for
//! two PTX inputs of NVRTC's relocatable output (`ptx-samples/link/`), an
//! archive given as `libcudadevrt.a`, `cuLinkComplete`, `cuModuleLoadData`
//! of the image and a launch whose results are checked; link errors come
//! back as `CUDA_ERROR_INVALID_PTX` with the linker's message in the log
//! buffer, and machine-code inputs as `CUDA_ERROR_NO_BINARY_FOR_GPU`.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::path::PathBuf;

use libloading::Library;

mod common;
use common::*;
use warpjit::front::link::inputs::archive_with_index;

type LinkCreate = unsafe extern "C" fn(c_uint, *mut c_int, *mut *mut c_void, *mut Handle) -> u32;
type LinkAddData = unsafe extern "C" fn(
    Handle,
    c_uint,
    *mut c_void,
    usize,
    *const c_char,
    c_uint,
    *mut c_int,
    *mut *mut c_void,
) -> u32;
type LinkAddFile = unsafe extern "C" fn(
    Handle,
    c_uint,
    *const c_char,
    c_uint,
    *mut c_int,
    *mut *mut c_void,
) -> u32;
type LinkComplete = unsafe extern "C" fn(Handle, *mut *mut c_void, *mut usize) -> u32;
const PTX: c_uint = 1;
const CUBIN: c_uint = 0;
const FATBINARY: c_uint = 2;
const LIBRARY: c_uint = 4;

/// A link state with a 4 KiB error log, through the C ABI.
struct Linker<'l> {
    lib: &'l Library,
    state: Handle,
    log: Box<[u8; 4096]>,
}

impl<'l> Linker<'l> {
    fn new(lib: &'l Library) -> Linker<'l> {
        let create = sym!(lib, b"cuLinkCreate_v2", LinkCreate);
        let mut log = Box::new([0u8; 4096]);
        // CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES.
        let mut options: [c_int; 2] = [5, 6];
        let mut values: [*mut c_void; 2] = [
            log.as_mut_ptr() as *mut c_void,
            std::ptr::without_provenance_mut(log.len()),
        ];
        let mut state: Handle = std::ptr::null_mut();
        // SAFETY: options and values hold two entries; the log outlives the state.
        let rc = unsafe { create(2, options.as_mut_ptr(), values.as_mut_ptr(), &mut state) };
        assert_eq!(rc, 0);
        Linker { lib, state, log }
    }

    fn add(&self, kind: c_uint, data: &[u8], name: &str) -> u32 {
        let add = sym!(self.lib, b"cuLinkAddData_v2", LinkAddData);
        let name = CString::new(name).unwrap();
        let null = std::ptr::null_mut();
        // SAFETY: data is `data.len()` readable bytes.
        unsafe {
            add(
                self.state,
                kind,
                data.as_ptr() as *mut c_void,
                data.len(),
                name.as_ptr(),
                0,
                null,
                null as _,
            )
        }
    }

    fn add_file(&self, kind: c_uint, path: &std::path::Path) -> u32 {
        let add = sym!(self.lib, b"cuLinkAddFile_v2", LinkAddFile);
        let path = CString::new(path.to_str().unwrap()).unwrap();
        let null = std::ptr::null_mut();
        // SAFETY: a NUL-terminated path.
        unsafe { add(self.state, kind, path.as_ptr(), 0, null, null as _) }
    }

    /// `cuLinkComplete`: the code, and the image's bytes when it succeeded.
    fn complete(&self) -> (u32, Vec<u8>) {
        let complete = sym!(self.lib, b"cuLinkComplete", LinkComplete);
        let (mut image, mut size): (*mut c_void, usize) = (std::ptr::null_mut(), 0);
        // SAFETY: out-pointers to locals; the image lives until cuLinkDestroy.
        let rc = unsafe { complete(self.state, &mut image, &mut size) };
        let bytes = if rc == 0 {
            // SAFETY: the image is `size` bytes.
            unsafe { std::slice::from_raw_parts(image as *const u8, size) }.to_vec()
        } else {
            Vec::new()
        };
        (rc, bytes)
    }

    fn log(&self) -> String {
        CStr::from_bytes_until_nul(&self.log[..])
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }
}

impl Drop for Linker<'_> {
    fn drop(&mut self) {
        let destroy = sym!(
            self.lib,
            b"cuLinkDestroy",
            unsafe extern "C" fn(Handle) -> u32
        );
        // SAFETY: a live link state.
        assert_eq!(unsafe { destroy(self.state) }, 0);
    }
}

/// A GNU `ar` archive named like NVIDIA's device runtime, with a symbol
/// index (libcudadevrt.a's lists host symbols; its device code is a fatbin).
fn fake_cudadevrt() -> PathBuf {
    let a = archive_with_index(&["cudartErrorTable", "__CNPRT_VERSION_NUMBER__"]);
    // A directory per call: the tests run in parallel and would otherwise
    // read each other's half-written file.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("warpjit-link-abi-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("libcudadevrt.a");
    std::fs::write(&path, a).unwrap();
    path
}

#[test]
fn two_ptx_inputs_link_load_and_run() {
    let lib = library();
    context(&lib);
    let linker = Linker::new(&lib);
    assert_eq!(
        linker.add(PTX, &sample("two_files/kernel.ptx"), "kernel.ptx"),
        0
    );
    assert_eq!(
        linker.add(PTX, &sample("two_files/util.ptx"), "util.ptx"),
        0
    );
    // numba adds the device runtime for cooperative kernels: accepted, unused here.
    assert_eq!(linker.add_file(LIBRARY, &fake_cudadevrt()), 0);
    let (rc, image) = linker.complete();
    assert_eq!(rc, 0, "{}", linker.log());
    assert_eq!(image.last(), Some(&0), "a NUL-terminated PTX image");

    run_two_files(&lib, &image);
}

#[test]
fn link_errors_come_back_in_the_error_log() {
    let lib = library();
    context(&lib);
    // An undefined reference: the input, line, column and symbol.
    let linker = Linker::new(&lib);
    assert_eq!(
        linker.add(PTX, &sample("two_files/kernel.ptx"), "kernel.ptx"),
        0
    );
    assert_eq!(linker.complete().0, 218, "CUDA_ERROR_INVALID_PTX");
    let log = linker.log();
    assert!(
        log.contains("kernel.ptx:101:2: error: undefined reference to `_Z5scalef`"),
        "{log}"
    );
    assert!(log.contains("`hits`"), "{log}");
    drop(linker);

    // A duplicate definition: both inputs.
    let linker = Linker::new(&lib);
    assert_eq!(
        linker.add(PTX, &sample("two_files/util.ptx"), "util.ptx"),
        0
    );
    assert_eq!(
        linker.add(PTX, &sample("errors/duplicate.ptx"), "duplicate.ptx"),
        0
    );
    assert_eq!(linker.complete().0, 218);
    let log = linker.log();
    assert!(log.contains("duplicate.ptx:15:"), "{log}");
    assert!(
        log.contains("duplicate definition of `_Z5scalef` (first defined at util.ptx:34:"),
        "{log}"
    );
    drop(linker);

    // A grid sync calls the device runtime, which libcudadevrt.a has as
    // machine code: warpjit links its own grid-sync functions instead
    // (running them is tests/link.rs's).
    let linker = Linker::new(&lib);
    assert_eq!(
        linker.add(PTX, &sample("grid_sync/kernel.ptx"), "grid_sync.ptx"),
        0
    );
    assert_eq!(linker.add_file(LIBRARY, &fake_cudadevrt()), 0);
    let (rc, image) = linker.complete();
    assert_eq!(rc, 0, "{}", linker.log());
    let text = String::from_utf8_lossy(&image);
    assert!(
        text.contains(") cudaCGSynchronizeGrid(") && text.contains("atom.add.release.gpu.u32"),
        "{text}"
    );
    drop(linker);

    // Machine code and non-archive libraries are refused at once.
    let linker = Linker::new(&lib);
    assert_eq!(
        linker.add(CUBIN, b"\x7fELF\x02\x01\x01\x33 not really", "k.cubin"),
        209
    );
    assert!(
        linker
            .log()
            .contains("k.cubin: a CUBIN (GPU machine code) cannot be linked"),
        "{}",
        linker.log()
    );
    assert_eq!(
        linker.add(FATBINARY, &[0x50, 0xed, 0x55, 0xba, 1, 0], "k.fatbin"),
        209
    );
    assert_eq!(linker.add(PTX, b"\x7fELF\x02\x01\x01\x33", "k.ptx"), 209);
    assert_eq!(linker.add(LIBRARY, b"not an archive", "libx.a"), 209);
    // Nothing to link.
    assert_eq!(linker.complete().0, 1, "CUDA_ERROR_INVALID_VALUE");
}

/// `CU_JIT_MAX_REGISTERS` (given to `cuLinkCreate` or `cuModuleLoadDataEx`)
/// bounds a kernel's `CU_FUNC_ATTRIBUTE_NUM_REGS`, as ptxas's
/// `-maxrregcount` does (numba's `max_registers`).
#[test]
fn the_max_registers_option_bounds_num_regs() {
    let lib = library();
    context(&lib);
    let create = sym!(lib, b"cuLinkCreate_v2", LinkCreate);
    let add = sym!(lib, b"cuLinkAddData_v2", LinkAddData);
    let complete = sym!(lib, b"cuLinkComplete", LinkComplete);
    let destroy = sym!(lib, b"cuLinkDestroy", unsafe extern "C" fn(Handle) -> u32);
    let load = sym!(lib, b"cuModuleLoadData", CuModuleLoadData);
    let load_ex = sym!(
        lib,
        b"cuModuleLoadDataEx",
        unsafe extern "C" fn(
            *mut Handle,
            *const c_void,
            c_uint,
            *mut c_int,
            *mut *mut c_void,
        ) -> u32
    );
    let get_fn = sym!(lib, b"cuModuleGetFunction", CuModuleGetFunction);
    let attr = sym!(lib, b"cuFuncGetAttribute", CuFuncGetAttribute);
    let name = CString::new("link_kernel").unwrap();
    // CU_FUNC_ATTRIBUTE_NUM_REGS of link_kernel in a module.
    let regs = |module: Handle| {
        let mut f: Handle = std::ptr::null_mut();
        let mut n: c_int = 0;
        // SAFETY: out-pointers to locals; a loaded module.
        unsafe {
            assert_eq!(get_fn(&mut f, module, name.as_ptr()), 0);
            assert_eq!(attr(&mut n, 4, f), 0);
        }
        n
    };
    let kernel = sample("two_files/kernel.ptx");
    let util = sample("two_files/util.ptx");
    let linked = |max: Option<usize>| {
        let mut options = [0 as c_int]; // CU_JIT_MAX_REGISTERS
        let mut values = [std::ptr::without_provenance_mut::<c_void>(max.unwrap_or(0))];
        let count = max.is_some() as c_uint;
        let mut state: Handle = std::ptr::null_mut();
        let mut module: Handle = std::ptr::null_mut();
        // SAFETY: one option and value; the inputs outlive the calls; the
        // image lives until cuLinkDestroy, after the module is loaded.
        unsafe {
            assert_eq!(
                create(count, options.as_mut_ptr(), values.as_mut_ptr(), &mut state),
                0
            );
            for (data, n) in [(&kernel, "kernel.ptx"), (&util, "util.ptx")] {
                let n = CString::new(n).unwrap();
                let p = data.as_ptr() as *mut c_void;
                assert_eq!(
                    add(
                        state,
                        PTX,
                        p,
                        data.len(),
                        n.as_ptr(),
                        0,
                        std::ptr::null_mut(),
                        std::ptr::null_mut()
                    ),
                    0
                );
            }
            let (mut image, mut size): (*mut c_void, usize) = (std::ptr::null_mut(), 0);
            assert_eq!(complete(state, &mut image, &mut size), 0);
            assert_eq!(load(&mut module, image), 0);
            assert_eq!(destroy(state), 0);
        }
        regs(module)
    };
    let free = linked(None);
    assert!(free > 8, "link_kernel's estimate: {free} registers");
    assert_eq!(linked(Some(8)), 8, "bounded by the link option");
    assert_eq!(
        linked(Some(255)),
        free,
        "a bound above the estimate changes nothing"
    );
    // The same option at module load (NVRTC's mandelbrot).
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../ptx-samples/cuda/mandelbrot/kernel.compute_80.ptx");
    let mut text = std::fs::read(&path).unwrap();
    text.push(0);
    let mandelbrot = CString::new("mandelbrot").unwrap();
    let regs_of = |max: Option<usize>| {
        let mut options = [0 as c_int];
        let mut values = [std::ptr::without_provenance_mut::<c_void>(max.unwrap_or(0))];
        let (mut module, mut f): (Handle, Handle) = (std::ptr::null_mut(), std::ptr::null_mut());
        let mut n: c_int = 0;
        // SAFETY: one option and value; a NUL-terminated image; out-pointers to locals.
        unsafe {
            let image = text.as_ptr() as *const c_void;
            let count = max.is_some() as c_uint;
            assert_eq!(
                load_ex(
                    &mut module,
                    image,
                    count,
                    options.as_mut_ptr(),
                    values.as_mut_ptr()
                ),
                0
            );
            assert_eq!(get_fn(&mut f, module, mandelbrot.as_ptr()), 0);
            assert_eq!(attr(&mut n, 4, f), 0);
        }
        n
    };
    let free = regs_of(None);
    assert!(free > 8, "mandelbrot's estimate: {free} registers");
    assert_eq!(regs_of(Some(8)), 8);
}
