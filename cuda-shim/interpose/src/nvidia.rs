//! NVIDIA's own libraries, which the interposer calls through: NVRTC (the
//! copy the program was compiled by, already loaded) and nvJitLink (for
//! LTO-IR, loaded on first need). Found, in order:
//!
//! 1. a path in the environment (`WARPJIT_NVJITLINK`, `WARPJIT_NVRTC`);
//! 2. a copy already loaded in the process, by file name (the shared
//!    objects `dl_iterate_phdr` lists), never this library itself;
//! 3. the wheel's place beside any `site-packages` folder a loaded object
//!    comes from (`.../site-packages/nvidia/nvjitlink/lib/`, where
//!    `numba-cuda[cu12]` installs it; cuda-python's own extension modules
//!    are loaded from that folder by the time they call here);
//! 4. the dynamic loader's search (`LD_LIBRARY_PATH`, the system).
//!
//! Libraries opened here are opened `RTLD_LOCAL | RTLD_DEEPBIND`, so that
//! their calls to their own entry points reach themselves rather than the
//! interposer's entry points of the same names, and are never closed.

use std::ffi::{c_void, CStr, CString};

/// An opened shared library (never closed: its functions stay callable).
#[derive(Clone, Copy)]
pub struct Library(*mut c_void);

// SAFETY: a dlopen handle is a process-wide token; dlsym is thread-safe.
unsafe impl Send for Library {}
unsafe impl Sync for Library {}

impl Library {
    /// Opens `path` (a file path or a SONAME for the loader's search);
    /// `None` when it cannot be loaded. `already` only finds a copy that is
    /// loaded (`RTLD_NOLOAD`).
    pub fn open(path: &str, already: bool) -> Option<Library> {
        let c = CString::new(path).ok()?;
        let mut flags = libc::RTLD_NOW | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND;
        if already {
            flags |= libc::RTLD_NOLOAD;
        }
        // SAFETY: a NUL-terminated path; the handle is kept for the process.
        let h = unsafe { libc::dlopen(c.as_ptr(), flags) };
        (!h.is_null()).then_some(Library(h))
    }

    /// `name` in this library as a function of type `F` (a C function
    /// pointer type).
    ///
    /// # Safety
    /// `F` must be the C signature the library defines `name` with.
    pub unsafe fn function<F: Copy>(&self, name: &CStr) -> Option<F> {
        assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
        let p = self.symbol(name)?;
        Some(std::mem::transmute_copy::<*mut c_void, F>(&p))
    }

    /// The address of `name` in this library (or those it loaded), if any.
    pub fn symbol(&self, name: &CStr) -> Option<*mut c_void> {
        // SAFETY: a live handle and a NUL-terminated name.
        let p = unsafe { libc::dlsym(self.0, name.as_ptr()) };
        (!p.is_null()).then_some(p)
    }
}

/// The paths of the shared objects loaded in this process, in load order.
pub fn loaded_objects() -> Vec<String> {
    unsafe extern "C" fn each(
        info: *mut libc::dl_phdr_info,
        _size: usize,
        data: *mut c_void,
    ) -> libc::c_int {
        let paths = &mut *(data as *mut Vec<String>);
        let name = (*info).dlpi_name;
        if !name.is_null() {
            let s = CStr::from_ptr(name).to_string_lossy();
            if !s.is_empty() {
                paths.push(s.into_owned());
            }
        }
        0
    }
    let mut paths: Vec<String> = Vec::new();
    // SAFETY: the callback only reads the loader's entries and writes `paths`.
    unsafe { libc::dl_iterate_phdr(Some(each), &mut paths as *mut Vec<String> as *mut c_void) };
    paths
}

/// This library's own path (so that it is never taken for NVIDIA's).
fn own_path() -> Option<String> {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: any address inside this library; dladdr fills `info`.
    let ok = unsafe { libc::dladdr(own_path as *const c_void, &mut info) };
    if ok == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr's file name is NUL-terminated and lives with the library.
    Some(
        unsafe { CStr::from_ptr(info.dli_fname) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// The file name part of a path.
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// An already loaded library whose file name starts with one of `prefixes`
/// (not this one).
pub fn already_loaded(prefixes: &[&str]) -> Option<Library> {
    let own = own_path();
    loaded_objects()
        .iter()
        .filter(|p| Some(p.as_str()) != own.as_deref())
        .filter(|p| prefixes.iter().any(|x| file_name(p).starts_with(x)))
        .find_map(|p| Library::open(p, true))
}

/// The `site-packages` (or `dist-packages`) folders loaded objects come from.
fn package_folders() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in loaded_objects() {
        for marker in ["/site-packages/", "/dist-packages/"] {
            if let Some(i) = p.find(marker) {
                let folder = p[..i + marker.len() - 1].to_string();
                if !out.contains(&folder) {
                    out.push(folder);
                }
            }
        }
    }
    out
}

/// A library of NVIDIA's, looked for as the module doc says: `env` (a
/// path), a loaded file whose name starts with `loaded`, `wheel` under a
/// `site-packages` folder of a loaded object, then `soname`.
fn find(env: &str, loaded: &str, wheel: &str, soname: &str) -> Option<Library> {
    if let Ok(path) = std::env::var(env) {
        return Library::open(&path, false);
    }
    if let Some(l) = already_loaded(&[loaded]) {
        return Some(l);
    }
    for folder in package_folders() {
        let path = format!("{folder}/{wheel}");
        if std::path::Path::new(&path).exists() {
            if let Some(l) = Library::open(&path, false) {
                return Some(l);
            }
        }
    }
    Library::open(soname, false)
}

/// NVIDIA's nvJitLink 12 (`WARPJIT_NVJITLINK`; the wheel
/// `nvidia-nvjitlink-cu12`).
pub fn nvjitlink() -> Option<Library> {
    find(
        "WARPJIT_NVJITLINK",
        "libnvJitLink.so",
        "nvidia/nvjitlink/lib/libnvJitLink.so.12",
        "libnvJitLink.so.12",
    )
}

/// NVIDIA's NVRTC 12 (`WARPJIT_NVRTC`; the wheel
/// `nvidia-cuda-nvrtc-cu12`), for the LTO keep-alive kernel.
pub fn nvrtc() -> Option<Library> {
    find(
        "WARPJIT_NVRTC",
        "libnvrtc.so",
        "nvidia/cuda_nvrtc/lib/libnvrtc.so.12",
        "libnvrtc.so.12",
    )
}
