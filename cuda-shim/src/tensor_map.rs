//! Tensor maps for the tensor memory accelerator: `cuTensorMapEncodeTiled`
//! and `cuTensorMapReplaceAddress` fill the caller's 128-byte `CUtensorMap`
//! with warpjit's layout (`warpjit::sem::tensor_map`, which the engines
//! read), checking the arguments as the CUDA documentation states (the
//! map itself 64-byte aligned)
//! (`CUDA_ERROR_INVALID_VALUE`); interleaved layouts, the packed sub-byte
//! types and the 128B-atomicity swizzles are `CUDA_ERROR_NOT_SUPPORTED`,
//! as are the im2col encoders (left in `stubs.rs`). No context is needed.

use std::ffi::c_void;

use warpjit::sem::tensor_map::{self, EncodeError, TensorMap, TiledArgs};

use crate::errors::{CUresult, INVALID_VALUE, NOT_SUPPORTED, SUCCESS};

/// # Safety
/// The pointers must be valid for `tensorRank` (strides: `tensorRank - 1`)
/// elements, and `tensor_map` for 128 bytes of writes, as in CUDA.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuTensorMapEncodeTiled(
    tensor_map: *mut c_void,
    data_type: u32,
    rank: u32,
    global_address: *mut c_void,
    global_dim: *const u64,
    global_strides: *const u64,
    box_dim: *const u32,
    element_strides: *const u32,
    interleave: u32,
    swizzle: u32,
    l2_promotion: u32,
    oob_fill: u32,
) -> CUresult {
    // CUDA: the map's address aligned to 64 bytes.
    if tensor_map.is_null()
        || tensor_map as usize % 64 != 0
        || global_dim.is_null()
        || box_dim.is_null()
        || element_strides.is_null()
    {
        return INVALID_VALUE;
    }
    if !(1..=tensor_map::MAX_RANK as u32).contains(&rank) || (rank > 1 && global_strides.is_null())
    {
        return INVALID_VALUE;
    }
    let n = rank as usize;
    let strides: &[u64] = if n > 1 {
        std::slice::from_raw_parts(global_strides, n - 1)
    } else {
        &[]
    };
    let args = TiledArgs {
        dtype: data_type,
        rank,
        addr: global_address as u64,
        dims: std::slice::from_raw_parts(global_dim, n),
        strides,
        boxdim: std::slice::from_raw_parts(box_dim, n),
        elem_strides: std::slice::from_raw_parts(element_strides, n),
        interleave,
        swizzle,
        l2_promotion,
        oob_fill,
    };
    match tensor_map::encode_tiled(&args) {
        Ok(bytes) => {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), tensor_map as *mut u8, bytes.len());
            SUCCESS
        }
        Err(EncodeError::InvalidValue(_)) => INVALID_VALUE,
        Err(EncodeError::NotSupported(_)) => NOT_SUPPORTED,
    }
}

/// # Safety
/// `tensor_map` must be valid for 128 bytes of reads and writes.
#[no_mangle]
pub unsafe extern "C" fn cuTensorMapReplaceAddress(
    tensor_map: *mut c_void,
    global_address: *mut c_void,
) -> CUresult {
    if tensor_map.is_null() {
        return INVALID_VALUE;
    }
    let mut bytes = [0u8; tensor_map::SIZE];
    std::ptr::copy_nonoverlapping(tensor_map as *const u8, bytes.as_mut_ptr(), bytes.len());
    let Ok(mut m) = TensorMap::from_bytes(&bytes) else {
        return INVALID_VALUE;
    };
    let addr = global_address as u64;
    if addr == 0 || addr % 16 != 0 {
        return INVALID_VALUE;
    }
    m.addr = addr;
    let bytes = m.to_bytes();
    std::ptr::copy_nonoverlapping(bytes.as_ptr(), tensor_map as *mut u8, bytes.len());
    SUCCESS
}
