//! Modules from PTX (also from the PTX a fatbin holds, `fatbin.rs`; SASS
//! cubins refused), libraries and kernels (a
//! `CUkernel` is a `CUfunction`), and function attributes. Linking
//! (`cuLink*`) is `link.rs`; its image is PTX text, which these load.

use super::*;
use warpjit::front::link::inputs::with_maxnreg;

// ---- Modules -----------------------------------------------------------------

/// Loads the PTX of a fatbin (or of a `__fatBinC_Wrapper_t`): the entry
/// for the device's compute capability (`fatbin::choose_ptx`). A fatbin
/// without PTX is `CUDA_ERROR_NO_BINARY_FOR_GPU`, with a line on stderr.
pub(crate) unsafe fn load_fatbin(
    s: &mut State,
    name: &str,
    image: *const c_void,
) -> Result<usize, CUresult> {
    let sm = s.arch.cc().map(|(a, b)| a * 10 + b).unwrap_or(80);
    let ptx = crate::fatbin::fatbins_at(image as *const u8)
        .and_then(|f| crate::fatbin::choose_ptx(&f, sm));
    match ptx {
        Ok(p) => {
            crate::entry::trace(format_args!("{name}: loading its sm_{} PTX", p.sm));
            let mut text = p.text.into_bytes();
            text.push(0);
            load_image(s, name, &text)
        }
        Err(e) => {
            eprintln!("warpjit: {name}: {e}");
            Err(NO_BINARY_FOR_GPU)
        }
    }
}

/// Whether an image starts with a fatbin's or a fatbin wrapper's magic.
pub(crate) unsafe fn is_fatbin(image: *const c_void) -> bool {
    crate::fatbin::has_magic(image_bytes(image))
}

/// Loads PTX text (a NUL-terminated image); SASS cubins and fatbins are
/// refused with an explanation.
fn load_image(s: &mut State, name: &str, image: &[u8]) -> Result<usize, CUresult> {
    if image.starts_with(b"\x7fELF")
        || image.starts_with(&crate::fatbin::FATBIN_MAGIC.to_le_bytes())
    {
        eprintln!(
            "warpjit: {name} is a compiled GPU binary (SASS cubin); warpjit runs PTX: load the PTX text instead (nvcc -ptx, NVRTC nvrtcGetPTX), or a fatbin holding PTX"
        );
        return Err(NO_BINARY_FOR_GPU);
    }
    let end = image.iter().position(|&b| b == 0).unwrap_or(image.len());
    let Ok(text) = std::str::from_utf8(&image[..end]) else {
        return Err(INVALID_PTX);
    };
    let loaded = s.dev_mut().load_ptx(name, text);
    match loaded {
        Ok(m) => {
            // Its variables are device memory copies may address.
            let names: Vec<String> = s
                .dev()
                .ir(m)
                .globals
                .values()
                .map(|g| g.name.clone())
                .collect();
            for n in names {
                let global = s.dev().global(m, &n);
                if let Ok((addr, size)) = global {
                    s.module_globals.insert(addr, size.max(1));
                }
            }
            let h = s.handle();
            s.modules.insert(h, m);
            Ok(h)
        }
        Err(e) => {
            eprintln!("{e}");
            Err(INVALID_PTX)
        }
    }
}

/// The bytes of an image: a NUL-terminated PTX text, or just the magic
/// number of a binary image (ELF cubin, fatbin), which starts with a
/// non-text byte and is longer than four bytes.
unsafe fn image_bytes<'a>(image: *const c_void) -> &'a [u8] {
    let p = image as *const u8;
    // Read the magic byte by byte: a text image may end (NUL) early.
    let mut magic = [0u8; 4];
    for (i, m) in magic.iter_mut().enumerate() {
        *m = p.add(i).read();
        if *m == 0 {
            break;
        }
    }
    if magic == *b"\x7fELF" || crate::fatbin::has_magic(&magic) {
        return std::slice::from_raw_parts(p, 4);
    }
    CStr::from_ptr(image as *const c_char).to_bytes_with_nul()
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadData(module: *mut Handle, image: *const c_void) -> CUresult {
    if image.is_null() {
        return INVALID_VALUE;
    }
    done(need_context().and_then(|()| {
        with_state(|s| {
            let h = if is_fatbin(image) {
                load_fatbin(s, "module.fatbin", image)?
            } else {
                load_image(s, "module.ptx", image_bytes(image))?
            };
            out(module, h as Handle)
        })
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadDataEx(
    module: *mut Handle,
    image: *const c_void,
    n: c_uint,
    options: *mut c_int,
    values: *mut *mut c_void,
) -> CUresult {
    // CU_JIT_MAX_REGISTERS (its value in the pointer's place) bounds the
    // kernels' registers as `.maxnreg` does; other options are accepted
    // and ignored.
    let mut max_registers = None;
    if !options.is_null() && !values.is_null() {
        for i in 0..n as usize {
            if *options.add(i) == link::JIT_MAX_REGISTERS {
                max_registers = Some(*values.add(i) as usize as u32);
            }
        }
    }
    let Some(max) = max_registers else {
        return cuModuleLoadData(module, image);
    };
    if image.is_null() {
        return INVALID_VALUE;
    }
    done(need_context().and_then(|()| {
        with_state(|s| {
            let bytes = image_bytes(image);
            // A text image comes with its NUL; a binary one is its magic.
            let text = match bytes.split_last() {
                Some((0, text)) => std::str::from_utf8(text).ok(),
                _ => None,
            };
            let h = match text {
                Some(text) => {
                    let text = with_maxnreg(text, max);
                    load_image(s, "module.ptx", text.as_bytes())?
                }
                None => load_image(s, "module.ptx", bytes)?,
            };
            out(module, h as Handle)
        })
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleLoad(module: *mut Handle, path: *const c_char) -> CUresult {
    if path.is_null() {
        return INVALID_VALUE;
    }
    let path = CStr::from_ptr(path).to_string_lossy().into_owned();
    let Ok(bytes) = std::fs::read(&path) else {
        return FILE_NOT_FOUND;
    };
    done(need_context().and_then(|()| {
        with_state(|s| {
            let h = load_image(s, &path, &bytes)?;
            out(module, h as Handle)
        })
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleUnload(module: Handle) -> CUresult {
    done(with_state(|s| {
        s.modules
            .remove(&(module as usize))
            .map(|_| ())
            .ok_or(INVALID_HANDLE)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleGetFunction(
    f: *mut Handle,
    module: Handle,
    name: *const c_char,
) -> CUresult {
    if name.is_null() {
        return INVALID_VALUE;
    }
    let name = CStr::from_ptr(name).to_string_lossy().into_owned();
    done(with_state(|s| {
        let m = *s.modules.get(&(module as usize)).ok_or(INVALID_HANDLE)?;
        let k = s.dev().kernel(m, Some(&name)).map_err(|_| NOT_FOUND)?;
        s.functions.push((m, k));
        out(f, s.functions.len() as Handle)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuModuleGetGlobal_v2(
    dptr: *mut u64,
    bytes: *mut usize,
    module: Handle,
    name: *const c_char,
) -> CUresult {
    if name.is_null() {
        return INVALID_VALUE;
    }
    let name = CStr::from_ptr(name).to_string_lossy().into_owned();
    done(with_state(|s| {
        let m = *s.modules.get(&(module as usize)).ok_or(INVALID_HANDLE)?;
        let (addr, size) = s.dev().global(m, &name).map_err(|_| NOT_FOUND)?;
        if !dptr.is_null() {
            *dptr = addr;
        }
        if !bytes.is_null() {
            *bytes = size as usize;
        }
        Ok(())
    }))
}

// ---- Libraries and kernels ------------------------------------------------------

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuLibraryLoadData(
    library: *mut Handle,
    code: *const c_void,
    _jit_options: *mut c_int,
    _jit_values: *mut *mut c_void,
    _n_jit: c_uint,
    _lib_options: *mut c_int,
    _lib_values: *mut *mut c_void,
    _n_lib: c_uint,
) -> CUresult {
    if code.is_null() {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        let h = if is_fatbin(code) {
            load_fatbin(s, "library.fatbin", code)?
        } else {
            load_image(s, "library.ptx", image_bytes(code))?
        };
        out(library, h as Handle)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuLibraryUnload(library: Handle) -> CUresult {
    cuModuleUnload(library)
}

/// A CUkernel is a CUfunction handle (usable wherever one is).
#[no_mangle]
pub unsafe extern "C" fn cuLibraryGetKernel(
    kernel: *mut Handle,
    library: Handle,
    name: *const c_char,
) -> CUresult {
    cuModuleGetFunction(kernel, library, name)
}

/// A library is its module: its variables are the module's.
#[no_mangle]
pub unsafe extern "C" fn cuLibraryGetGlobal(
    dptr: *mut u64,
    bytes: *mut usize,
    library: Handle,
    name: *const c_char,
) -> CUresult {
    cuModuleGetGlobal_v2(dptr, bytes, library, name)
}

#[no_mangle]
pub unsafe extern "C" fn cuLibraryGetModule(module: *mut Handle, library: Handle) -> CUresult {
    done(out(module, library))
}

#[no_mangle]
pub unsafe extern "C" fn cuKernelGetFunction(f: *mut Handle, kernel: Handle) -> CUresult {
    done(out(f, kernel))
}

/// The bytes of a module's `.const` variables (CUDA's user constant bank,
/// which every kernel of the module shares): laid out in declaration
/// order, each at its alignment.
fn const_bytes(ir: &warpjit::ir::Module) -> u64 {
    ir.globals
        .values()
        .filter(|g| g.constant && !g.external)
        .fold(0, |end, g| {
            end.next_multiple_of(u64::from(g.align.max(1))) + g.size
        })
}

/// The device's compute capability as `major * 10 + minor`.
fn device_version(s: &State) -> c_int {
    let (major, minor) = s.arch.cc().unwrap_or((8, 0));
    (major * 10 + minor) as c_int
}

/// `CUfunction_attribute` values of a kernel.
fn function_attribute(s: &State, f: Handle, attr: c_int) -> Result<c_int, CUresult> {
    let &(m, k) = s
        .functions
        .get((f as usize).wrapping_sub(1))
        .ok_or(INVALID_HANDLE)?;
    let device = s.dev();
    let ir = device.ir(m);
    let func = &ir.functions[k];
    let static_shared = ir.static_shared_of(k) as c_int;
    Ok(match attr {
        0 => func
            .maxntid
            .or(func.reqntid)
            .map(|t| (t[0] * t[1] * t[2]) as c_int)
            .unwrap_or(s.arch.occupancy.max_threads_per_block as c_int),
        1 => static_shared,
        2 => const_bytes(ir) as c_int,
        3 => func.frame_size as c_int,
        4 => warpjit::timing::regs::estimate(ir, k) as c_int,
        // PTX_VERSION: the virtual architecture the PTX was written for
        // (its `.target`), which CUB's host code reads to pick the tuning
        // policy its device code was compiled with; BINARY_VERSION: the
        // device's.
        5 => ir
            .target_version()
            .map_or_else(|| device_version(s), |v| v as c_int),
        6 => device_version(s),
        7 => 0,
        8 => s.arch.occupancy.shared_per_block as c_int - static_shared,
        9 => -1,
        // CLUSTER_SIZE_MUST_BE_SET, REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH,
        // NON_PORTABLE_CLUSTER_SIZE_ALLOWED.
        10 => func.explicit_cluster as c_int,
        11..=13 => func
            .reqnctapercluster
            .map_or(0, |d| d[(attr - 11) as usize] as c_int),
        14 => s
            .non_portable_cluster
            .contains(&((f as usize).wrapping_sub(1))) as c_int,
        _ => 0,
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuFuncGetAttribute(value: *mut c_int, attr: c_int, f: Handle) -> CUresult {
    done(with_state(|s| out(value, function_attribute(s, f, attr)?)))
}

#[no_mangle]
pub unsafe extern "C" fn cuKernelGetAttribute(
    value: *mut c_int,
    attr: c_int,
    kernel: Handle,
    _dev: c_int,
) -> CUresult {
    cuFuncGetAttribute(value, attr, kernel)
}

#[no_mangle]
pub unsafe extern "C" fn cuFuncSetAttribute(f: Handle, attr: c_int, value: c_int) -> CUresult {
    done(with_state(|s| {
        let i = (f as usize).wrapping_sub(1);
        if i >= s.functions.len() {
            return Err(INVALID_HANDLE);
        }
        // NON_PORTABLE_CLUSTER_SIZE_ALLOWED: clusters of up to 16 CTAs
        // (sm_90 and later); other attributes only tune the hardware.
        if attr == 14 {
            if value != 0 && s.arch.cc().is_ok_and(|(major, _)| major < 9) {
                return Err(crate::errors::code_of(
                    &warpjit::Error::ClustersUnsupported(format!("the device is {}", s.arch.name)),
                ));
            }
            match value != 0 {
                true => s.non_portable_cluster.insert(i),
                false => s.non_portable_cluster.remove(&i),
            };
        }
        Ok(())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuKernelSetAttribute(
    _attr: c_int,
    _value: c_int,
    _kernel: Handle,
    _dev: c_int,
) -> CUresult {
    done(with_state(|_| Ok(())))
}

#[no_mangle]
pub unsafe extern "C" fn cuFuncSetCacheConfig(_f: Handle, _config: c_int) -> CUresult {
    done(with_state(|_| Ok(())))
}

#[no_mangle]
pub unsafe extern "C" fn cuKernelSetCacheConfig(
    kernel: Handle,
    _config: c_int,
    dev: c_int,
) -> CUresult {
    done(with_state(|s| {
        if dev != 0 {
            return Err(INVALID_DEVICE);
        }
        s.functions
            .get((kernel as usize).wrapping_sub(1))
            .map(|_| ())
            .ok_or(INVALID_HANDLE)
    }))
}

/// Legacy launch-shape calls (PyCUDA issues them; launches pass their own
/// shapes).
#[no_mangle]
pub unsafe extern "C" fn cuFuncSetBlockShape(
    _f: Handle,
    _x: c_int,
    _y: c_int,
    _z: c_int,
) -> CUresult {
    done(with_state(|_| Ok(())))
}

#[no_mangle]
pub unsafe extern "C" fn cuFuncSetSharedSize(_f: Handle, _bytes: c_uint) -> CUresult {
    done(with_state(|_| Ok(())))
}

/// `CU_MODULE_EAGER_LOADING`: modules load whole at `cuModuleLoad*`
/// (cudart asks at start-up).
#[no_mangle]
pub unsafe extern "C" fn cuModuleGetLoadingMode(mode: *mut c_int) -> CUresult {
    done(out(mode, 1))
}
