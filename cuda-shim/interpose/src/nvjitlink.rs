//! nvJitLink (`nvJitLink.h`, CUDA 12), linking to PTX.
//!
//! A link takes its options (`-arch=sm_XX` required, as nvJitLink's;
//! `-lto`, `-ptx`, `-maxrregcount=N` read; the others accepted) and its
//! inputs:
//! - PTX, and "CUBINs" that are PTX text (what the NVRTC interposer and
//!   this linker hand out), linked by warpjit's linker;
//! - LTO-IR, given to NVIDIA's own nvJitLink ([`crate::nvidia::nvjitlink`])
//!   with `-lto -ptx` at completion; its PTX joins the others;
//! - `ar` archives of GPU machine code (`libcudadevrt.a`), read for the
//!   symbols their index lists, so that a symbol only they define is named
//!   in the error;
//! - real CUBINs, fatbins and host objects: refused (`INVALID_INPUT`), the
//!   error log saying why.
//!
//! `nvJitLinkComplete` links; the linked "CUBIN" and the linked PTX are
//! both the linked PTX text (NUL-terminated), which warpjit's
//! `cuModuleLoadData`/`cuLibraryLoadData` load. The logs are the link's
//! own. `nvJitLinkVersion` answers NVIDIA's nvJitLink's version where it is
//! found, and fails where it is not: numba-cuda takes a working
//! `nvJitLinkVersion` to mean that LTO is available. Every entry point is
//! exported under its plain name and the versioned names the CUDA 12.0 to
//! 12.9 headers call (`__nvJitLinkCreate_12_9`, ...).

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::sync::OnceLock;

use warpjit::front::link::inputs;

use crate::{lto_keep, nvidia};

/// `nvJitLinkResult`.
const SUCCESS: c_int = 0;
const ERROR_MISSING_ARCH: c_int = 2;
const ERROR_INVALID_INPUT: c_int = 3;
const ERROR_PTX_COMPILE: c_int = 4;
const ERROR_NVVM_COMPILE: c_int = 5;
const ERROR_INTERNAL: c_int = 6;

/// `nvJitLinkInputType`.
const INPUT_CUBIN: c_uint = 1;
const INPUT_PTX: c_uint = 2;
const INPUT_LTOIR: c_uint = 3;
const INPUT_FATBIN: c_uint = 4;
const INPUT_OBJECT: c_uint = 5;
const INPUT_LIBRARY: c_uint = 6;
const INPUT_ANY: c_uint = 10;

/// One `nvJitLinkHandle`.
#[derive(Default)]
pub struct Linker {
    arch: String,
    max_registers: Option<u32>,
    /// PTX inputs: name and text.
    ptx: Vec<(String, String)>,
    /// LTO-IR inputs: name and bytes.
    ltoir: Vec<(String, Vec<u8>)>,
    /// Archives: name and the symbols their index lists.
    archives: Vec<(String, Vec<String>)>,
    /// The linked PTX, NUL-terminated, once complete.
    linked: Option<Vec<u8>>,
    error_log: String,
    info_log: String,
}

impl Linker {
    /// A linker for `options` (`-arch` is required).
    pub fn new(options: &[&str]) -> Result<Linker, c_int> {
        let mut l = Linker::default();
        for o in options {
            let o = o.trim();
            if let Some(a) = o
                .strip_prefix("-arch=")
                .or_else(|| o.strip_prefix("--arch="))
            {
                l.arch = a.to_string();
            } else if let Some(n) = o.strip_prefix("-maxrregcount=") {
                l.max_registers = n.parse().ok();
            }
        }
        if l.arch.is_empty() {
            return Err(ERROR_MISSING_ARCH);
        }
        Ok(l)
    }

    fn fail(&mut self, message: String, code: c_int) -> c_int {
        self.error_log.push_str(&message);
        self.error_log.push('\n');
        code
    }

    /// Adds one input.
    pub fn add(&mut self, kind: c_uint, data: &[u8], name: &str) -> c_int {
        let machine_code = |what: &str| {
            format!("{name}: {what}: GPU machine code, which warpjit cannot run; give the PTX (nvcc -ptx, NVRTC nvrtcGetPTX) or LTO-IR instead")
        };
        let kind = match kind {
            INPUT_ANY => match () {
                _ if inputs::ptx_text(data).is_some() => INPUT_PTX,
                _ if data.starts_with(b"!<arch>\n") => INPUT_LIBRARY,
                _ if data.starts_with(b"\x7fELF") => INPUT_CUBIN,
                _ if inputs::is_binary(data) => INPUT_FATBIN,
                _ => INPUT_LTOIR,
            },
            k => k,
        };
        match kind {
            INPUT_PTX | INPUT_CUBIN => match inputs::ptx_text(data) {
                Some(text) => {
                    self.ptx.push((name.to_string(), text.to_string()));
                    SUCCESS
                }
                None if kind == INPUT_PTX => {
                    self.fail(format!("{name}: not PTX text"), ERROR_INVALID_INPUT)
                }
                None => self.fail(machine_code("a CUBIN"), ERROR_INVALID_INPUT),
            },
            INPUT_LTOIR => {
                self.ltoir.push((name.to_string(), data.to_vec()));
                SUCCESS
            }
            INPUT_LIBRARY => match inputs::archive_symbols(data) {
                Some(symbols) => {
                    self.archives.push((name.to_string(), symbols));
                    SUCCESS
                }
                None => self.fail(
                    format!("{name}: a library that is not an `ar` archive"),
                    ERROR_INVALID_INPUT,
                ),
            },
            INPUT_FATBIN => self.fail(machine_code("a fatbin"), ERROR_INVALID_INPUT),
            INPUT_OBJECT => self.fail(machine_code("a host object"), ERROR_INVALID_INPUT),
            k => self.fail(
                format!("{name}: unknown input type {k}"),
                ERROR_INVALID_INPUT,
            ),
        }
    }

    /// Links the inputs (LTO-IR through NVIDIA's nvJitLink first).
    pub fn complete(&mut self) -> c_int {
        if !self.ltoir.is_empty() {
            // What PTX inputs use of the LTO-IR must survive its
            // whole-program optimization (crate::lto_keep).
            let needed = lto_keep::needed(&self.ptx);
            let mut ltoir = self.ltoir.clone();
            if !needed.funcs.is_empty() || !needed.vars.is_empty() {
                match lto_keep::stub_ltoir(&lto_keep::stub_source(&needed), &self.arch) {
                    Ok(stub) => ltoir.push(("<warpjit keep-alive kernel>".into(), stub)),
                    Err(message) => return self.fail(message, ERROR_NVVM_COMPILE),
                }
            }
            match lto_to_ptx(&self.arch, &ltoir).map(|t| lto_keep::finish(&t, &needed)) {
                Ok(text) => {
                    let n = self.ltoir.len();
                    self.ptx.push((format!("<LTO-IR of {n} input(s)>"), text));
                }
                Err((message, code)) => return self.fail(message, code),
            }
        }
        if self.ptx.is_empty() {
            return self.fail(
                "no PTX or LTO-IR inputs to link".into(),
                ERROR_INVALID_INPUT,
            );
        }
        match inputs::link_image(&self.ptx, self.max_registers) {
            Ok(image) => {
                self.info_log.push_str(&format!(
                    "warpjit: linked {} PTX input(s) for {}\n",
                    self.ptx.len(),
                    self.arch
                ));
                self.linked = Some(image);
                SUCCESS
            }
            Err(e) => {
                let message = inputs::explain(&e, &self.archives);
                self.fail(message, ERROR_PTX_COMPILE)
            }
        }
    }
}

type CreateFn = unsafe extern "C" fn(*mut *mut c_void, u32, *const *const c_char) -> c_int;
type DestroyFn = unsafe extern "C" fn(*mut *mut c_void) -> c_int;
type AddDataFn =
    unsafe extern "C" fn(*mut c_void, c_uint, *const c_void, usize, *const c_char) -> c_int;
type HandleFn = unsafe extern "C" fn(*mut c_void) -> c_int;
type SizeFn = unsafe extern "C" fn(*mut c_void, *mut usize) -> c_int;
type TextFn = unsafe extern "C" fn(*mut c_void, *mut c_char) -> c_int;
type VersionFn = unsafe extern "C" fn(*mut c_uint, *mut c_uint) -> c_int;

/// NVIDIA's nvJitLink entry points used for LTO-IR.
struct Nvidia {
    create: CreateFn,
    destroy: DestroyFn,
    add_data: AddDataFn,
    complete: HandleFn,
    ptx_size: SizeFn,
    ptx: TextFn,
    error_log_size: SizeFn,
    error_log: TextFn,
    version: VersionFn,
}

/// NVIDIA's nvJitLink, looked for once.
fn nvidia() -> Option<&'static Nvidia> {
    static NVIDIA: OnceLock<Option<Nvidia>> = OnceLock::new();
    NVIDIA
        .get_or_init(|| {
            let lib = nvidia::nvjitlink()?;
            // SAFETY: nvJitLink.h's signatures for these names.
            unsafe {
                Some(Nvidia {
                    create: lib.function::<CreateFn>(c"nvJitLinkCreate")?,
                    destroy: lib.function::<DestroyFn>(c"nvJitLinkDestroy")?,
                    add_data: lib.function::<AddDataFn>(c"nvJitLinkAddData")?,
                    complete: lib.function::<HandleFn>(c"nvJitLinkComplete")?,
                    ptx_size: lib.function::<SizeFn>(c"nvJitLinkGetLinkedPtxSize")?,
                    ptx: lib.function::<TextFn>(c"nvJitLinkGetLinkedPtx")?,
                    error_log_size: lib.function::<SizeFn>(c"nvJitLinkGetErrorLogSize")?,
                    error_log: lib.function::<TextFn>(c"nvJitLinkGetErrorLog")?,
                    version: lib.function::<VersionFn>(c"nvJitLinkVersion")?,
                })
            }
        })
        .as_ref()
}

/// The PTX NVIDIA's nvJitLink makes of LTO-IR inputs (`-lto -ptx`).
fn lto_to_ptx(arch: &str, ltoir: &[(String, Vec<u8>)]) -> Result<String, (String, c_int)> {
    let Some(nv) = nvidia() else {
        return Err((
            "LTO-IR inputs need NVIDIA's nvJitLink 12 to become PTX, and it was not found (install nvidia-nvjitlink-cu12, or name its libnvJitLink.so.12 in WARPJIT_NVJITLINK)".into(),
            ERROR_NVVM_COMPILE,
        ));
    };
    let options: Vec<CString> = [format!("-arch={arch}"), "-lto".into(), "-ptx".into()]
        .into_iter()
        .map(|o| CString::new(o).unwrap_or_default())
        .collect();
    let ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
    let mut h: *mut c_void = std::ptr::null_mut();
    // SAFETY: nvJitLink's API, used as documented; `h` is destroyed below.
    unsafe {
        let rc = (nv.create)(&mut h, ptrs.len() as u32, ptrs.as_ptr());
        if rc != SUCCESS {
            return Err((
                format!("NVIDIA's nvJitLink refused the options {options:?} (error {rc})"),
                rc,
            ));
        }
        let mut rc = SUCCESS;
        for (name, data) in ltoir {
            let cname = CString::new(name.as_str()).unwrap_or_default();
            rc = (nv.add_data)(
                h,
                INPUT_LTOIR,
                data.as_ptr() as *const c_void,
                data.len(),
                cname.as_ptr(),
            );
            if rc != SUCCESS {
                break;
            }
        }
        if rc == SUCCESS {
            rc = (nv.complete)(h);
        }
        let result = if rc == SUCCESS {
            let mut n = 0usize;
            let mut buf = Vec::new();
            if (nv.ptx_size)(h, &mut n) == SUCCESS {
                buf.resize(n.max(1), 0u8);
                (nv.ptx)(h, buf.as_mut_ptr() as *mut c_char);
            }
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            Ok(String::from_utf8_lossy(&buf[..end]).into_owned())
        } else {
            let mut n = 0usize;
            let mut log = String::new();
            if (nv.error_log_size)(h, &mut n) == SUCCESS && n > 1 {
                let mut buf = vec![0u8; n];
                (nv.error_log)(h, buf.as_mut_ptr() as *mut c_char);
                log = String::from_utf8_lossy(&buf[..n - 1]).into_owned();
            }
            Err((
                format!("NVIDIA's nvJitLink, linking the LTO-IR to PTX: {log}"),
                rc,
            ))
        };
        (nv.destroy)(&mut h);
        result
    }
}

// ---------------------------------------------------------------------------
// The C API.

/// Copies `text` NUL-terminated into `out` (the caller sized it from the
/// matching size call).
unsafe fn copy_out(text: &[u8], out: *mut c_char) -> c_int {
    if out.is_null() {
        return ERROR_INVALID_INPUT;
    }
    std::ptr::copy_nonoverlapping(text.as_ptr(), out as *mut u8, text.len());
    if text.last() != Some(&0) {
        out.add(text.len()).write(0);
    }
    SUCCESS
}

/// The size a NUL-terminated copy of `text` takes.
fn with_nul(text: &[u8]) -> usize {
    text.len() + usize::from(text.last() != Some(&0))
}

unsafe fn linker<'a>(h: *mut c_void) -> Option<&'a mut Linker> {
    (h as *mut Linker).as_mut()
}

unsafe fn create(h: *mut *mut c_void, n: u32, options: *const *const c_char) -> c_int {
    if h.is_null() {
        return ERROR_INVALID_INPUT;
    }
    let mut opts: Vec<&str> = Vec::new();
    for i in 0..n as usize {
        let p = if options.is_null() {
            std::ptr::null()
        } else {
            *options.add(i)
        };
        if !p.is_null() {
            opts.push(CStr::from_ptr(p).to_str().unwrap_or(""));
        }
    }
    match Linker::new(&opts) {
        Ok(l) => {
            *h = Box::into_raw(Box::new(l)) as *mut c_void;
            SUCCESS
        }
        Err(rc) => rc,
    }
}

unsafe fn destroy(h: *mut *mut c_void) -> c_int {
    if h.is_null() || (*h).is_null() {
        return ERROR_INVALID_INPUT;
    }
    drop(Box::from_raw(*h as *mut Linker));
    *h = std::ptr::null_mut();
    SUCCESS
}

unsafe fn add_data(
    h: *mut c_void,
    kind: c_uint,
    data: *const c_void,
    size: usize,
    name: *const c_char,
) -> c_int {
    let Some(l) = linker(h) else {
        return ERROR_INVALID_INPUT;
    };
    if data.is_null() {
        return ERROR_INVALID_INPUT;
    }
    let name = if name.is_null() {
        "<input>".into()
    } else {
        CStr::from_ptr(name).to_string_lossy()
    };
    l.add(
        kind,
        std::slice::from_raw_parts(data as *const u8, size),
        &name,
    )
}

unsafe fn add_file(h: *mut c_void, kind: c_uint, path: *const c_char) -> c_int {
    let Some(l) = linker(h) else {
        return ERROR_INVALID_INPUT;
    };
    if path.is_null() {
        return ERROR_INVALID_INPUT;
    }
    let path = CStr::from_ptr(path).to_string_lossy().into_owned();
    match std::fs::read(&path) {
        Ok(data) => l.add(kind, &data, &path),
        Err(e) => l.fail(format!("{path}: {e}"), ERROR_INVALID_INPUT),
    }
}

unsafe fn complete(h: *mut c_void) -> c_int {
    linker(h).map_or(ERROR_INVALID_INPUT, |l| l.complete())
}

unsafe fn linked_size(h: *mut c_void, size: *mut usize) -> c_int {
    match linker(h).and_then(|l| l.linked.as_ref()) {
        Some(image) if !size.is_null() => {
            *size = image.len();
            SUCCESS
        }
        _ => ERROR_INVALID_INPUT,
    }
}

unsafe fn linked(h: *mut c_void, out: *mut c_char) -> c_int {
    match linker(h).and_then(|l| l.linked.as_ref()) {
        Some(image) => copy_out(image, out),
        None => ERROR_INVALID_INPUT,
    }
}

unsafe fn log_size(h: *mut c_void, size: *mut usize, error: bool) -> c_int {
    let Some(l) = linker(h) else {
        return ERROR_INVALID_INPUT;
    };
    if size.is_null() {
        return ERROR_INVALID_INPUT;
    }
    *size = with_nul(if error {
        l.error_log.as_bytes()
    } else {
        l.info_log.as_bytes()
    });
    SUCCESS
}

unsafe fn log(h: *mut c_void, out: *mut c_char, error: bool) -> c_int {
    let Some(l) = linker(h) else {
        return ERROR_INVALID_INPUT;
    };
    copy_out(
        if error {
            l.error_log.as_bytes()
        } else {
            l.info_log.as_bytes()
        },
        out,
    )
}

unsafe fn error_log_size(h: *mut c_void, size: *mut usize) -> c_int {
    log_size(h, size, true)
}
unsafe fn error_log(h: *mut c_void, out: *mut c_char) -> c_int {
    log(h, out, true)
}
unsafe fn info_log_size(h: *mut c_void, size: *mut usize) -> c_int {
    log_size(h, size, false)
}
unsafe fn info_log(h: *mut c_void, out: *mut c_char) -> c_int {
    log(h, out, false)
}

unsafe fn version(major: *mut c_uint, minor: *mut c_uint) -> c_int {
    match nvidia() {
        Some(nv) => (nv.version)(major, minor),
        None => ERROR_INTERNAL,
    }
}

/// Exports `$imp` as `nvJitLink$base` and `__nvJitLink$base_12_N`.
macro_rules! export {
    ($base:literal, $imp:ident ( $($a:ident: $t:ty),* )) => {
        const _: () = {
            /// # Safety
            /// As nvJitLink's (nvJitLink.h).
            #[export_name = concat!("nvJitLink", $base)]
            pub unsafe extern "C" fn plain($($a: $t),*) -> c_int { $imp($($a),*) }
        };
        export!(@versions $base, $imp ($($a: $t),*), "0" "1" "2" "3" "4" "5" "6" "7" "8" "9");
    };
    (@versions $base:literal, $imp:ident ( $($a:ident: $t:ty),* ), $minor:literal $($rest:literal)*) => {
        const _: () = {
            /// # Safety
            /// As nvJitLink's (nvJitLink.h).
            #[export_name = concat!("__nvJitLink", $base, "_12_", $minor)]
            pub unsafe extern "C" fn versioned($($a: $t),*) -> c_int { $imp($($a),*) }
        };
        export!(@versions $base, $imp ($($a: $t),*), $($rest)*);
    };
    (@versions $base:literal, $imp:ident ( $($a:ident: $t:ty),* ), ) => {};
}

export!("Create", create(h: *mut *mut c_void, n: u32, options: *const *const c_char));
export!("Destroy", destroy(h: *mut *mut c_void));
export!("AddData", add_data(h: *mut c_void, kind: c_uint, data: *const c_void, size: usize, name: *const c_char));
export!("AddFile", add_file(h: *mut c_void, kind: c_uint, path: *const c_char));
export!("Complete", complete(h: *mut c_void));
export!("GetLinkedCubinSize", linked_size(h: *mut c_void, size: *mut usize));
export!("GetLinkedCubin", linked(h: *mut c_void, out: *mut c_char));
export!("GetLinkedPtxSize", linked_size(h: *mut c_void, size: *mut usize));
export!("GetLinkedPtx", linked(h: *mut c_void, out: *mut c_char));
export!("GetErrorLogSize", error_log_size(h: *mut c_void, size: *mut usize));
export!("GetErrorLog", error_log(h: *mut c_void, out: *mut c_char));
export!("GetInfoLogSize", info_log_size(h: *mut c_void, size: *mut usize));
export!("GetInfoLog", info_log(h: *mut c_void, out: *mut c_char));

/// # Safety
/// As nvJitLink's: `major`, `minor` writable.
#[no_mangle]
pub unsafe extern "C" fn nvJitLinkVersion(major: *mut c_uint, minor: *mut c_uint) -> c_int {
    version(major, minor)
}
