//! Linking (`cuLink*`, numba-cuda's path without nvJitLink): PTX inputs
//! accumulate and `cuLinkComplete` links them into one module with
//! warpjit's linker ([`warpjit::front::link`]: `.extern` functions and
//! variables resolved across inputs, `.weak` definitions yielding, local
//! names kept apart). The image is the linked PTX text (NUL-terminated),
//! which `cuModuleLoadData` and `cuLibraryLoadData` load.
//!
//! Libraries (`CU_JIT_INPUT_LIBRARY`) are `ar` archives of GPU machine
//! code, such as NVIDIA's `libcudadevrt.a`: warpjit cannot run their
//! members, so it accepts an archive, reads the symbols its index lists,
//! and links without it. When a symbol stays undefined that an archive
//! would have provided, the link fails naming the symbol and the archive
//! (for `libcudadevrt.a`: device-runtime functions other than the grid
//! sync warpjit links itself, `warpjit::front::link::devrt`).
//! CUBIN, fatbin, object and LTO-IR inputs are refused with
//! `CUDA_ERROR_NO_BINARY_FOR_GPU`. Link errors go to stderr and to the
//! `CU_JIT_ERROR_LOG_BUFFER` the link was created with, as the driver's do.

use super::*;
use warpjit::front::link::inputs::{archive_symbols, explain, is_binary, link_image, ptx_text};

/// `CUjit_option`s the linker reads (the others are accepted and ignored).
pub(crate) const JIT_MAX_REGISTERS: c_int = 0;
const JIT_INFO_LOG_BUFFER: c_int = 3;
const JIT_INFO_LOG_BUFFER_SIZE_BYTES: c_int = 4;
const JIT_ERROR_LOG_BUFFER: c_int = 5;
const JIT_ERROR_LOG_BUFFER_SIZE_BYTES: c_int = 6;

/// `CUjitInputType`.
const INPUT_CUBIN: c_uint = 0;
const INPUT_PTX: c_uint = 1;
const INPUT_FATBINARY: c_uint = 2;
const INPUT_OBJECT: c_uint = 3;
const INPUT_LIBRARY: c_uint = 4;
const INPUT_NVVM: c_uint = 5;

/// One `CUlinkState`.
#[derive(Default)]
pub(crate) struct Link {
    /// The PTX inputs: name and text.
    inputs: Vec<(String, String)>,
    /// Archives given as libraries: name and the symbols their index lists.
    archives: Vec<(String, Vec<String>)>,
    /// The completed image (owned by the link state, as CUDA's is).
    image: Vec<u8>,
    /// `CU_JIT_ERROR_LOG_BUFFER` and its size (address, bytes).
    error_log: Option<(usize, usize)>,
    info_log: Option<(usize, usize)>,
    /// `CU_JIT_MAX_REGISTERS`: the image's kernels get `.maxnreg`.
    max_registers: Option<u32>,
}

impl Link {
    /// A link state with the log buffers of its options.
    unsafe fn new(n: c_uint, options: *const c_int, values: *const *mut c_void) -> Link {
        let mut link = Link::default();
        if n == 0 || options.is_null() || values.is_null() {
            return link;
        }
        let (mut error, mut error_size, mut info, mut info_size) = (0, 0, 0, 0);
        for i in 0..n as usize {
            let v = *values.add(i) as usize;
            match *options.add(i) {
                JIT_ERROR_LOG_BUFFER => error = v,
                JIT_ERROR_LOG_BUFFER_SIZE_BYTES => error_size = v,
                JIT_INFO_LOG_BUFFER => info = v,
                JIT_INFO_LOG_BUFFER_SIZE_BYTES => info_size = v,
                // The value is the number itself, in the pointer's place.
                JIT_MAX_REGISTERS => link.max_registers = Some(v as u32),
                _ => {}
            }
        }
        if error != 0 && error_size > 0 {
            link.error_log = Some((error, error_size));
        }
        if info != 0 && info_size > 0 {
            link.info_log = Some((info, info_size));
        }
        link
    }

    /// Reports a failure on stderr and in the error log buffer.
    fn fail(&self, message: &str, code: CUresult) -> CUresult {
        eprintln!("warpjit: {message}");
        if let Some((buf, size)) = self.error_log {
            // SAFETY: the caller gave a buffer of `size` bytes for the log.
            unsafe { write_log(buf, size, message) };
        }
        code
    }

    fn add(&mut self, kind: c_uint, data: &[u8], name: &str) -> Result<(), CUresult> {
        let refuse = |what: &str| {
            self.fail(
                &format!("cuLinkAdd {name}: {what} cannot be linked: warpjit runs PTX (link the PTX text instead: nvcc -ptx, NVRTC nvrtcGetPTX, nvJitLink's PTX input)"),
                NO_BINARY_FOR_GPU,
            )
        };
        match kind {
            INPUT_PTX => {
                if is_binary(data) {
                    return Err(refuse("a compiled GPU binary (cubin/fatbin) given as PTX"));
                }
                let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
                let Ok(text) = std::str::from_utf8(&data[..end]) else {
                    return Err(self.fail(
                        &format!("cuLinkAdd {name}: the PTX is not UTF-8 text"),
                        INVALID_PTX,
                    ));
                };
                self.inputs.push((name.to_string(), text.to_string()));
                Ok(())
            }
            INPUT_LIBRARY => match archive_symbols(data) {
                Some(symbols) => {
                    self.archives.push((name.to_string(), symbols));
                    Ok(())
                }
                None => Err(refuse("a library that is not an `ar` archive")),
            },
            // The NVRTC and nvJitLink interposers hand out PTX text as
            // their "CUBIN": accepted as the PTX it is.
            INPUT_CUBIN => match ptx_text(data) {
                Some(text) => {
                    self.inputs.push((name.to_string(), text.to_string()));
                    Ok(())
                }
                None => Err(refuse("a CUBIN (GPU machine code)")),
            },
            INPUT_FATBINARY => Err(refuse("a fatbin")),
            INPUT_OBJECT => Err(refuse("an object file (GPU machine code)")),
            INPUT_NVVM => Err(refuse("LTO-IR (NVVM)")),
            _ => Err(self.fail(
                &format!("cuLinkAdd {name}: unknown input type {kind}"),
                INVALID_VALUE,
            )),
        }
    }

    /// Links the inputs into `self.image`.
    fn complete(&mut self) -> Result<(), CUresult> {
        if self.inputs.is_empty() {
            let archives = if self.archives.is_empty() {
                String::new()
            } else {
                " (archives of GPU machine code are not linked: warpjit cannot run them)".into()
            };
            return Err(self.fail(
                &format!("cuLinkComplete: no PTX inputs to link{archives}"),
                INVALID_VALUE,
            ));
        }
        match link_image(&self.inputs, self.max_registers) {
            Ok(image) => {
                self.image = image;
                if let Some((buf, size)) = self.info_log {
                    let note = format!("warpjit: linked {} PTX input(s)", self.inputs.len());
                    // SAFETY: the caller gave a buffer of `size` bytes for the log.
                    unsafe { write_log(buf, size, &note) };
                }
                Ok(())
            }
            Err(e) => {
                let message = explain(&e, &self.archives);
                Err(self.fail(&format!("cuLinkComplete: {message}"), INVALID_PTX))
            }
        }
    }
}

/// Writes `text` NUL-terminated into a log buffer of `size` bytes (cut to fit).
unsafe fn write_log(buf: usize, size: usize, text: &str) {
    let n = text.len().min(size - 1);
    let p = buf as *mut u8;
    std::ptr::copy_nonoverlapping(text.as_ptr(), p, n);
    p.add(n).write(0);
}

#[no_mangle]
pub unsafe extern "C" fn cuLinkCreate_v2(
    n: c_uint,
    options: *mut c_int,
    values: *mut *mut c_void,
    state: *mut Handle,
) -> CUresult {
    if state.is_null() {
        return INVALID_VALUE;
    }
    let link = Link::new(n, options, values);
    done(with_state(|s| {
        let h = s.handle();
        s.links.insert(h, link);
        out(state, h as Handle)
    }))
}

fn link_add(
    s: &mut State,
    state: Handle,
    kind: c_uint,
    data: &[u8],
    name: &str,
) -> Result<(), CUresult> {
    let link = s.links.get_mut(&(state as usize)).ok_or(INVALID_HANDLE)?;
    link.add(kind, data, name)
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuLinkAddData_v2(
    state: Handle,
    kind: c_uint,
    data: *mut c_void,
    size: usize,
    name: *const c_char,
    _n: c_uint,
    _options: *mut c_int,
    _values: *mut *mut c_void,
) -> CUresult {
    if data.is_null() {
        return INVALID_VALUE;
    }
    let bytes = std::slice::from_raw_parts(data as *const u8, size);
    let name = if name.is_null() {
        "input".into()
    } else {
        CStr::from_ptr(name).to_string_lossy().into_owned()
    };
    done(with_state(|s| link_add(s, state, kind, bytes, &name)))
}

#[no_mangle]
pub unsafe extern "C" fn cuLinkAddFile_v2(
    state: Handle,
    kind: c_uint,
    path: *const c_char,
    _n: c_uint,
    _options: *mut c_int,
    _values: *mut *mut c_void,
) -> CUresult {
    if path.is_null() {
        return INVALID_VALUE;
    }
    let path = CStr::from_ptr(path).to_string_lossy().into_owned();
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("warpjit: cuLinkAddFile: cannot read {path}");
        return FILE_NOT_FOUND;
    };
    done(with_state(|s| link_add(s, state, kind, &bytes, &path)))
}

/// Links the PTX inputs; the image is the linked PTX text (NUL-terminated),
/// owned by the link state until `cuLinkDestroy`.
#[no_mangle]
pub unsafe extern "C" fn cuLinkComplete(
    state: Handle,
    image: *mut *mut c_void,
    size: *mut usize,
) -> CUresult {
    if image.is_null() || size.is_null() {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        let link = s.links.get_mut(&(state as usize)).ok_or(INVALID_HANDLE)?;
        link.complete()?;
        out(image, link.image.as_mut_ptr() as *mut c_void)?;
        out(size, link.image.len())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuLinkDestroy(state: Handle) -> CUresult {
    done(with_state(|s| {
        s.links
            .remove(&(state as usize))
            .map(|_| ())
            .ok_or(INVALID_HANDLE)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpjit::front::link::inputs::archive_with_index;
    use warpjit::front::link::{LinkError, LinkProblem};

    #[test]
    fn undefined_symbols_an_archive_defines_name_it() {
        let mut link = Link::default();
        link.add(
            INPUT_LIBRARY,
            &archive_with_index(&["helper"]),
            "/x/libcudadevrt.a",
        )
        .unwrap();
        link.add(INPUT_LIBRARY, &archive_with_index(&["other"]), "libmine.a")
            .unwrap();
        let problems = vec![
            LinkProblem::Undefined {
                name: "helper".into(),
                at: "k.ptx:3:1".into(),
            },
            LinkProblem::Undefined {
                name: "other".into(),
                at: "k.ptx:4:1".into(),
            },
            LinkProblem::Undefined {
                name: "none".into(),
                at: "k.ptx:5:1".into(),
            },
        ];
        let text = explain(&LinkError::Symbols(problems), &link.archives);
        assert!(
            text.contains("`helper` is defined only in /x/libcudadevrt.a, the CUDA device runtime"),
            "{text}"
        );
        assert!(
            text.contains("`other` is defined only in libmine.a, an archive of GPU machine code"),
            "{text}"
        );
        assert!(
            text.contains("k.ptx:5:1: error: undefined reference to `none`"),
            "{text}"
        );
        assert!(link.add(INPUT_CUBIN, b"\x7fELF", "k.cubin").is_err());
        assert!(link.add(INPUT_LIBRARY, b"not an archive", "lib.a").is_err());
    }
}
