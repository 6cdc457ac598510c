//! The compile-path interposer (`libwarpjit_interpose.so`, cuda-shim/interpose)
//! through its C ABI, as clients call it: nvJitLink under its plain and
//! versioned names links `ptx-samples/link/two_files` (a PTX input and a
//! PTX "CUBIN") into an image that this libcuda.so loads and runs; its
//! errors (no `-arch`, machine code, LTO-IR without NVIDIA's nvJitLink, an
//! undefined symbol) come back as nvJitLink's codes with the reason in the
//! error log. NVRTC's `nvrtcGetCUBIN` handing out PTX is checked where
//! NVIDIA's NVRTC can be loaded (`WARPJIT_TEST_NVRTC` names it, or the
//! loader finds `libnvrtc.so.12`); skipped, saying so, where it cannot.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::path::PathBuf;

use libloading::Library;

mod common;
use common::*;

/// The interposer cargo built with these tests (built here if this package
/// was tested alone).
fn interposer() -> Library {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let profile_dir = deps.parent().unwrap();
    let candidates = [
        deps.join("libwarpjit_interpose.so"),
        profile_dir.join("libwarpjit_interpose.so"),
    ];
    if !candidates.iter().any(|p| p.exists()) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = std::process::Command::new(cargo);
        cmd.args(["build", "-q", "-p", "warpjit-interpose"]);
        if profile_dir.ends_with("release") {
            cmd.arg("--release");
        }
        assert!(
            cmd.status().unwrap().success(),
            "cargo build -p warpjit-interpose"
        );
    }
    let path: PathBuf = candidates
        .into_iter()
        .find(|p| p.exists())
        .expect("libwarpjit_interpose.so is built");
    // SAFETY: our own cdylib; it has no initializers.
    unsafe { Library::new(&path) }.unwrap()
}

type Create = unsafe extern "C" fn(*mut Handle, u32, *const *const c_char) -> c_int;
type AddData = unsafe extern "C" fn(Handle, c_uint, *const c_void, usize, *const c_char) -> c_int;
type Complete = unsafe extern "C" fn(Handle) -> c_int;
type GetSize = unsafe extern "C" fn(Handle, *mut usize) -> c_int;
type Get = unsafe extern "C" fn(Handle, *mut c_char) -> c_int;
type Destroy = unsafe extern "C" fn(*mut Handle) -> c_int;

/// NVRTC's `nvrtcCreateProgram` and `nvrtcCompileProgram`.
type CreateProgram = unsafe extern "C" fn(
    *mut Handle,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> c_int;
type Compile = unsafe extern "C" fn(Handle, c_int, *const *const c_char) -> c_int;

const CUBIN: c_uint = 1;
const PTX: c_uint = 2;
const LTOIR: c_uint = 3;
const FATBIN: c_uint = 4;
const MISSING_ARCH: c_int = 2;
const INVALID_INPUT: c_int = 3;

/// One nvJitLink link through the C ABI; `versioned` calls the
/// `__nvJitLink*_12_9` names a C program built with nvJitLink.h calls.
struct Link<'l> {
    lib: &'l Library,
    h: Handle,
    versioned: bool,
}

impl<'l> Link<'l> {
    fn name(&self, base: &str) -> Vec<u8> {
        let name = if self.versioned {
            format!("__nvJitLink{base}_12_9")
        } else {
            format!("nvJitLink{base}")
        };
        name.into_bytes()
    }

    fn create(lib: &'l Library, options: &[&str], versioned: bool) -> Result<Link<'l>, c_int> {
        let mut link = Link {
            lib,
            h: std::ptr::null_mut(),
            versioned,
        };
        let create = sym!(lib, &link.name("Create"), Create);
        let opts: Vec<CString> = options.iter().map(|o| CString::new(*o).unwrap()).collect();
        let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        // SAFETY: `ptrs` holds `ptrs.len()` NUL-terminated options.
        let rc = unsafe { create(&mut link.h, ptrs.len() as u32, ptrs.as_ptr()) };
        if rc == 0 {
            Ok(link)
        } else {
            Err(rc)
        }
    }

    fn add(&self, kind: c_uint, data: &[u8], name: &str) -> c_int {
        let add = sym!(self.lib, &self.name("AddData"), AddData);
        let name = CString::new(name).unwrap();
        // SAFETY: `data` is readable for its length.
        unsafe {
            add(
                self.h,
                kind,
                data.as_ptr() as *const c_void,
                data.len(),
                name.as_ptr(),
            )
        }
    }

    fn complete(&self) -> c_int {
        let complete = sym!(self.lib, &self.name("Complete"), Complete);
        // SAFETY: a live handle.
        unsafe { complete(self.h) }
    }

    /// A size-then-copy pair's result (`what` is "LinkedCubin", "ErrorLog", ...).
    fn get(&self, what: &str) -> Result<Vec<u8>, c_int> {
        let size = sym!(self.lib, &self.name(&format!("Get{what}Size")), GetSize);
        let get = sym!(self.lib, &self.name(&format!("Get{what}")), Get);
        let mut n = 0usize;
        // SAFETY: a live handle; the buffer has the size the library gave.
        unsafe {
            let rc = size(self.h, &mut n);
            if rc != 0 {
                return Err(rc);
            }
            let mut buf = vec![0u8; n];
            let rc = get(self.h, buf.as_mut_ptr() as *mut c_char);
            if rc != 0 {
                return Err(rc);
            }
            Ok(buf)
        }
    }

    fn error_log(&self) -> String {
        let log = self.get("ErrorLog").unwrap();
        CStr::from_bytes_until_nul(&log)
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }
}

impl Drop for Link<'_> {
    fn drop(&mut self) {
        if self.h.is_null() {
            return; // never created
        }
        let destroy = sym!(self.lib, &self.name("Destroy"), Destroy);
        // SAFETY: a live handle, nulled by the call.
        assert_eq!(unsafe { destroy(&mut self.h) }, 0);
        assert!(self.h.is_null());
    }
}

#[test]
fn nvjitlink_links_ptx_into_an_image_the_driver_runs() {
    let lib = library();
    context(&lib);
    let ip = interposer();
    for versioned in [false, true] {
        let link = Link::create(&ip, &["-arch=sm_80", "-lineinfo"], versioned).unwrap();
        assert_eq!(
            link.add(PTX, &sample("two_files/kernel.ptx"), "kernel.ptx"),
            0
        );
        // A PTX "CUBIN" (what the NVRTC interposer hands out) is PTX.
        assert_eq!(
            link.add(CUBIN, &sample("two_files/util.ptx"), "util.cubin"),
            0
        );
        assert_eq!(link.complete(), 0, "{}", link.error_log());
        let image = link.get("LinkedCubin").unwrap();
        assert_eq!(image.last(), Some(&0), "NUL-terminated PTX");
        assert_eq!(link.get("LinkedPtx").unwrap(), image);
        let info = link.get("InfoLog").unwrap();
        assert!(String::from_utf8_lossy(&info).contains("linked 2 PTX input(s) for sm_80"));
        run_two_files(&lib, &image);
    }
}

#[test]
fn nvjitlink_errors_say_why() {
    let ip = interposer();
    assert_eq!(Link::create(&ip, &["-O3"], false).err(), Some(MISSING_ARCH));

    // Machine code: refused at once, the log naming the input.
    let link = Link::create(&ip, &["-arch=sm_90"], false).unwrap();
    assert_eq!(
        link.add(CUBIN, b"\x7fELF\x02\x01\x01", "k.cubin"),
        INVALID_INPUT
    );
    assert_eq!(
        link.add(FATBIN, &[0x50, 0xed, 0x55, 0xba, 1, 0], "k.fatbin"),
        INVALID_INPUT
    );
    let log = link.error_log();
    assert!(log.contains("k.cubin: a CUBIN: GPU machine code"), "{log}");
    assert!(log.contains("k.fatbin: a fatbin"), "{log}");
    assert!(link.get("LinkedCubin").is_err(), "nothing linked");
    drop(link);

    // An undefined symbol: the linker's message, input, line and column.
    let link = Link::create(&ip, &["-arch=sm_80"], true).unwrap();
    assert_eq!(
        link.add(PTX, &sample("two_files/kernel.ptx"), "kernel.ptx"),
        0
    );
    assert_ne!(link.complete(), 0);
    let log = link.error_log();
    assert!(
        log.contains("kernel.ptx:101:2: error: undefined reference to `_Z5scalef`"),
        "{log}"
    );
    drop(link);

    // LTO-IR becomes PTX only through NVIDIA's nvJitLink: where it is not
    // found (CI) the link fails saying what it needs; where it is, it
    // rejects these bytes as LTO-IR. Either way the log says why.
    let link = Link::create(&ip, &["-arch=sm_80", "-lto"], false).unwrap();
    assert_eq!(link.add(LTOIR, b"not really LTO-IR", "k.ltoir"), 0);
    assert_ne!(link.complete(), 0);
    assert!(!link.error_log().is_empty());
}

#[test]
fn nvrtc_cubin_is_the_ptx_where_nvrtc_is_present() {
    let path = std::env::var("WARPJIT_TEST_NVRTC").unwrap_or_else(|_| "libnvrtc.so.12".into());
    // SAFETY: NVIDIA's NVRTC, if present.
    let Ok(nvrtc) = (unsafe { Library::new(&path) }) else {
        eprintln!("skipped: NVIDIA's NVRTC ({path}) cannot be loaded; set WARPJIT_TEST_NVRTC");
        return;
    };
    let ip = interposer();
    let create = sym!(nvrtc, b"nvrtcCreateProgram", CreateProgram);
    let compile = sym!(nvrtc, b"nvrtcCompileProgram", Compile);
    let ptx_size = sym!(nvrtc, b"nvrtcGetPTXSize", GetSize);
    let ptx = sym!(nvrtc, b"nvrtcGetPTX", Get);
    let real_cubin_size = sym!(nvrtc, b"nvrtcGetCUBINSize", GetSize);
    let cubin_size = sym!(ip, b"nvrtcGetCUBINSize", GetSize);
    let cubin = sym!(ip, b"nvrtcGetCUBIN", Get);
    let src = CString::new("extern \"C\" __global__ void k(float *a) { a[threadIdx.x] *= 2.0f; }")
        .unwrap();
    let name = CString::new("k.cu").unwrap();
    for (arch, has_cubin) in [("-arch=sm_80", true), ("-arch=compute_80", false)] {
        let opt = CString::new(arch).unwrap();
        let mut prog: Handle = std::ptr::null_mut();
        // SAFETY: NVRTC's API as documented; buffers sized by its size calls.
        unsafe {
            let null = std::ptr::null();
            assert_eq!(
                create(&mut prog, src.as_ptr(), name.as_ptr(), 0, null, null),
                0
            );
            assert_eq!(compile(prog, 1, &opt.as_ptr()), 0);
            let (mut n_ptx, mut n_cubin, mut n_real) = (0usize, 0usize, 0usize);
            assert_eq!(ptx_size(prog, &mut n_ptx), 0);
            assert_eq!(real_cubin_size(prog, &mut n_real), 0);
            assert_eq!(n_real > 0, has_cubin, "{arch}: NVIDIA's CUBIN");
            assert_eq!(cubin_size(prog, &mut n_cubin), 0);
            if !has_cubin {
                assert_eq!(n_cubin, 0, "{arch}: no CUBIN, as NVRTC says");
                continue;
            }
            assert_eq!(n_cubin, n_ptx, "{arch}: the CUBIN is the PTX");
            let (mut a, mut b) = (vec![0u8; n_ptx], vec![0u8; n_cubin]);
            assert_eq!(ptx(prog, a.as_mut_ptr() as *mut c_char), 0);
            assert_eq!(cubin(prog, b.as_mut_ptr() as *mut c_char), 0);
            assert_eq!(a, b);
            assert!(String::from_utf8_lossy(&b).contains(".target sm_80"));
        }
    }
}

/// Compiles `src` with NVIDIA's NVRTC (`nvrtc`), to LTO-IR (`-dlto`) or to
/// relocatable PTX.
fn nvrtc_compile(nvrtc: &Library, src: &str, lto: bool) -> Vec<u8> {
    let create = sym!(nvrtc, b"nvrtcCreateProgram", CreateProgram);
    let compile = sym!(nvrtc, b"nvrtcCompileProgram", Compile);
    let (size, get) = if lto {
        (
            sym!(nvrtc, b"nvrtcGetLTOIRSize", GetSize),
            sym!(nvrtc, b"nvrtcGetLTOIR", Get),
        )
    } else {
        (
            sym!(nvrtc, b"nvrtcGetPTXSize", GetSize),
            sym!(nvrtc, b"nvrtcGetPTX", Get),
        )
    };
    let src = CString::new(src).unwrap();
    let opts: Vec<CString> = ["-arch=compute_80", "-rdc=true"]
        .into_iter()
        .chain(lto.then_some("-dlto"))
        .map(|o| CString::new(o).unwrap())
        .collect();
    let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    let mut prog: Handle = std::ptr::null_mut();
    // SAFETY: NVRTC's API as documented; buffers sized by its size calls.
    unsafe {
        let null = std::ptr::null();
        assert_eq!(
            create(&mut prog, src.as_ptr(), c"t.cu".as_ptr(), 0, null, null),
            0
        );
        assert_eq!(compile(prog, ptrs.len() as c_int, ptrs.as_ptr()), 0);
        let mut n = 0usize;
        assert_eq!(size(prog, &mut n), 0);
        let mut buf = vec![0u8; n];
        assert_eq!(get(prog, buf.as_mut_ptr() as *mut c_char), 0);
        buf
    }
}

/// A PTX input calling a function only LTO-IR defines (numba's user `.ptx`
/// files calling its NRT): the function survives NVIDIA's whole-program
/// LTO and the kernel runs. Needs NVIDIA's NVRTC and nvJitLink
/// (`WARPJIT_TEST_NVRTC`, `WARPJIT_TEST_NVJITLINK`: their paths); skipped,
/// saying so, without them.
#[test]
fn ptx_inputs_keep_what_they_call_in_lto_ir() {
    let paths = (
        std::env::var("WARPJIT_TEST_NVRTC"),
        std::env::var("WARPJIT_TEST_NVJITLINK"),
    );
    let (Ok(nvrtc_path), Ok(nvjitlink_path)) = paths else {
        eprintln!(
            "skipped: set WARPJIT_TEST_NVRTC and WARPJIT_TEST_NVJITLINK to NVIDIA's libraries"
        );
        return;
    };
    // SAFETY: NVIDIA's libraries; loaded here, the interposer finds them loaded.
    let (nvrtc, _nvjitlink) = unsafe {
        (
            Library::new(&nvrtc_path).unwrap(),
            Library::new(&nvjitlink_path).unwrap(),
        )
    };
    let ltoir = nvrtc_compile(
        &nvrtc,
        "extern \"C\" __device__ int lto_triple(int x) { return 3 * x + 1; }\n\
         extern \"C\" __device__ int lto_bias = 5;",
        true,
    );
    let ptx = nvrtc_compile(
        &nvrtc,
        "extern \"C\" __device__ int lto_triple(int x);\nextern \"C\" __device__ int lto_bias;\n\
         extern \"C\" __global__ void use_lto(int *out) { out[threadIdx.x] = lto_triple(threadIdx.x) + lto_bias; }",
        false,
    );
    let lib = library();
    context(&lib);
    let ip = interposer();
    let link = Link::create(&ip, &["-arch=sm_80", "-lto"], false).unwrap();
    assert_eq!(link.add(LTOIR, &ltoir, "lib.ltoir"), 0);
    assert_eq!(link.add(PTX, &ptx, "use.ptx"), 0);
    assert_eq!(link.complete(), 0, "{}", link.error_log());
    let image = link.get("LinkedCubin").unwrap();
    let text = String::from_utf8_lossy(&image);
    assert!(
        !text.contains("__warpjit_keep"),
        "the keep-alive kernel is removed"
    );
    let load = sym!(lib, b"cuModuleLoadData", CuModuleLoadData);
    let get_fn = sym!(lib, b"cuModuleGetFunction", CuModuleGetFunction);
    let alloc = sym!(lib, b"cuMemAlloc_v2", CuMemAlloc);
    let dtoh = sym!(lib, b"cuMemcpyDtoH_v2", CuMemcpyDtoH);
    let launch = sym!(lib, b"cuLaunchKernel", Launch);
    let null = std::ptr::null_mut();
    // SAFETY: pointers to live locals of the sizes given.
    unsafe {
        let mut module: Handle = null;
        assert_eq!(load(&mut module, image.as_ptr() as *const c_void), 0);
        let mut f: Handle = null;
        assert_eq!(get_fn(&mut f, module, c"use_lto".as_ptr()), 0);
        let mut out = 0u64;
        assert_eq!(alloc(&mut out, 128), 0);
        let mut args: [*mut c_void; 1] = [&out as *const u64 as *mut c_void];
        assert_eq!(
            launch(f, 1, 1, 1, 32, 1, 1, 0, null, args.as_mut_ptr(), null as _),
            0
        );
        let mut got = [0i32; 32];
        assert_eq!(dtoh(got.as_mut_ptr() as *mut c_void, out, 128), 0);
        for (i, &v) in got.iter().enumerate() {
            assert_eq!(v, 3 * i as i32 + 1 + 5, "out[{i}]");
        }
    }
}
