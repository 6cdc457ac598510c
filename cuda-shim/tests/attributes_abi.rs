//! Kernel attributes through the C ABI (`cuFuncGetAttribute`): a kernel's
//! `.const` size is its module's `.const` variables; its PTX version is its
//! PTX's `.target`, its binary version the device's.

use std::ffi::{c_int, c_void, CString};

mod common;
use common::api::*;
use common::*;

/// Kernel `bump` of `ptx` (GLOBALS_PTX or a variant), loaded.
fn bump_kernel(lib: &libloading::Library, ptx: &str) -> Handle {
    let load = sym!(lib, b"cuModuleLoadData", CuModuleLoadData);
    let get_fn = sym!(lib, b"cuModuleGetFunction", CuModuleGetFunction);
    let ptx = CString::new(ptx).unwrap();
    let name = CString::new("bump").unwrap();
    let (mut module, mut f): (Handle, Handle) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: the driver API with valid out-pointers and NUL-terminated strings.
    unsafe {
        assert_eq!(load(&mut module, ptx.as_ptr() as *const c_void), 0);
        assert_eq!(get_fn(&mut f, module, name.as_ptr()), 0);
    }
    f
}

/// `cuFuncGetAttribute(attr, f)`, which must succeed.
fn attribute(lib: &libloading::Library, attr: c_int, f: Handle) -> c_int {
    let get = sym!(lib, b"cuFuncGetAttribute", CuFuncGetAttribute);
    let mut v = -1;
    // SAFETY: a valid out-pointer and a function handle the library gave.
    assert_eq!(unsafe { get(&mut v, attr, f) }, 0);
    v
}

#[test]
fn a_kernels_const_size_is_its_modules_const_variables() {
    let api = api();
    let lib = library();
    let f = bump_kernel(&lib, GLOBALS_PTX);
    // CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: table[40] at 0, scale (8-aligned)
    // at 40, bias at 48.
    assert_eq!(attribute(&lib, 2, f), 52);
    assert_eq!(
        attribute(&lib, 2, api.saxpy),
        0,
        "saxpy has no .const variables"
    );
}

/// PTX_VERSION is the `.target` the PTX was written for (CUB's host code
/// picks its tuning policy by it, which must match what its device code was
/// compiled with); BINARY_VERSION the device's compute capability.
#[test]
fn a_kernels_ptx_version_is_its_targets_and_binary_version_the_devices() {
    let api = api();
    let lib = library();
    let f = bump_kernel(
        &lib,
        &GLOBALS_PTX.replace(".target sm_80", ".target sm_100a"),
    );
    assert_eq!(attribute(&lib, 5, f), 100); // CU_FUNC_ATTRIBUTE_PTX_VERSION
                                            // CU_FUNC_ATTRIBUTE_BINARY_VERSION: the default device (sm_80).
    assert_eq!(attribute(&lib, 6, f), 80);
    assert_eq!(attribute(&lib, 5, api.saxpy), 80, "saxpy is compute_80 PTX");
}
