//! Error names and descriptions, and entry points by name and CUDA version
//! (`cuGetProcAddress`).

use super::*;
use super::{
    capture::*, context::*, device::*, graph::*, graph_edit::*, host_memory::*, ipc::*, launch::*,
    link::*, memory::*, module::*, pool::*, stream::*, tensor_map::*, texture::*, user_object::*,
};
use super::{export_tables, stubs};

fn code(code: CUresult) -> Option<&'static (CUresult, &'static CStr, &'static CStr)> {
    CODES.iter().find(|e| e.0 == code)
}

#[no_mangle]
pub unsafe extern "C" fn cuGetErrorName(code: CUresult, name: *mut *const c_char) -> CUresult {
    match self::code(code) {
        Some(e) => done(out(name, e.1.as_ptr())),
        None => INVALID_VALUE,
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuGetErrorString(code: CUresult, text: *mut *const c_char) -> CUresult {
    match self::code(code) {
        Some(e) => done(out(text, e.2.as_ptr())),
        None => INVALID_VALUE,
    }
}

/// Whether `WARPJIT_TRACE_LOOKUPS` is set (read once).
pub(crate) fn tracing() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("WARPJIT_TRACE_LOOKUPS").is_some())
}

/// A line on stderr under `WARPJIT_TRACE_LOOKUPS`.
pub(crate) fn trace(line: std::fmt::Arguments) {
    if tracing() {
        eprintln!("warpjit: {line}");
    }
}

/// `name` without a trailing ABI version (`cuMemAlloc_v2` → `cuMemAlloc`).
pub(crate) fn base_name(name: &str) -> &str {
    match name.rfind("_v") {
        Some(i) if i + 2 < name.len() && name[i + 2..].bytes().all(|b| b.is_ascii_digit()) => {
            &name[..i]
        }
        _ => name,
    }
}

/// The entry point for a base name: the implemented function whose name is
/// that base name, or it with an ABI version suffix (one per base name;
/// the base names whose ABI changed by CUDA version are resolved in
/// `cuGetProcAddress_v2`).
fn entry_point(name: &str) -> Option<*const c_void> {
    macro_rules! table {
        ($($f:ident),* $(,)?) => {
            $(
                if base_name(stringify!($f)) == name {
                    return Some($f as *const c_void);
                }
            )*
        };
    }
    table! {
        cuInit, cuDriverGetVersion, cuDeviceGetCount, cuDeviceGet, cuDeviceGetName,
        cuDeviceTotalMem_v2, cuDeviceGetAttribute, cuDeviceGetUuid_v2, cuDevicePrimaryCtxRetain,
        cuDevicePrimaryCtxRelease_v2, cuCtxCreate_v2, cuCtxDestroy_v2, cuCtxGetCurrent,
        cuCtxSetCurrent, cuCtxPushCurrent_v2, cuCtxPopCurrent_v2, cuCtxGetDevice,
        cuCtxSynchronize, cuModuleLoad, cuModuleLoadData, cuModuleLoadDataEx, cuModuleUnload,
        cuModuleGetFunction, cuModuleGetGlobal_v2, cuMemAlloc_v2, cuMemFree_v2, cuMemGetInfo_v2,
        cuMemGetAddressRange_v2, cuMemcpyHtoD_v2, cuMemcpyDtoH_v2, cuMemcpyDtoD_v2,
        cuMemcpyHtoDAsync_v2, cuMemcpyDtoHAsync_v2, cuMemcpyDtoDAsync_v2, cuMemsetD8_v2,
        cuMemsetD8Async, cuMemsetD32_v2, cuMemsetD32Async, cuLaunchKernel, cuStreamCreate,
        cuStreamDestroy_v2, cuStreamSynchronize, cuStreamWaitEvent, cuEventCreate,
        cuEventRecord, cuEventSynchronize, cuEventElapsedTime, cuEventDestroy_v2, cuEventQuery,
        cuStreamQuery, cuGetErrorName, cuGetErrorString, cuGetProcAddress_v2, cuLinkCreate_v2,
        cuLinkAddData_v2, cuLinkAddFile_v2, cuLinkComplete, cuLinkDestroy, cuLibraryLoadData,
        cuLibraryUnload, cuLibraryGetKernel, cuLibraryGetModule, cuKernelGetFunction,
        cuFuncGetAttribute, cuKernelGetAttribute, cuFuncSetAttribute, cuKernelSetAttribute,
        cuFuncSetCacheConfig, cuLaunchKernelEx, cuMemHostAlloc, cuMemAllocHost_v2,
        cuMemFreeHost, cuCtxDetach, cuFuncSetBlockShape, cuFuncSetSharedSize,
        cuPointerGetAttribute, cuCtxGetLimit, cuCtxSetLimit, cuCtxGetCacheConfig,
        cuCtxSetCacheConfig, cuOccupancyMaxActiveBlocksPerMultiprocessor,
        cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, cuOccupancyMaxPotentialBlockSize,
        cuOccupancyMaxPotentialBlockSizeWithFlags, cuStreamCreateWithPriority,
        cuCtxGetStreamPriorityRange, cuStreamGetPriority, cuStreamGetFlags, cuLaunchHostFunc,
        cuStreamAddCallback, cuEventRecordWithFlags, cuMemsetD16_v2, cuMemsetD16Async,
        cuMemHostRegister_v2, cuMemHostUnregister, cuDevicePrimaryCtxReset_v2,
        cuStreamBeginCapture_v2, cuStreamEndCapture, cuStreamIsCapturing,
        cuThreadExchangeStreamCaptureMode, cuGraphInstantiateWithFlags, cuGraphLaunch,
        cuGraphUpload, cuGraphExecDestroy, cuGraphDestroy, cuDeviceComputeCapability,
        cuDeviceGetPCIBusId, cuCtxGetApiVersion, cuCtxGetFlags, cuProfilerStart, cuProfilerStop,
        cuKernelSetCacheConfig, cuLibraryGetGlobal, cuMemHostGetDevicePointer_v2,
        cuMemAllocManaged, cuMemAllocPitch_v2, cuMemcpy, cuMemcpyAsync, cuMemcpy2D_v2,
        cuMemcpy2DUnaligned_v2, cuMemcpy2DAsync_v2, cuIpcGetMemHandle, cuIpcOpenMemHandle_v2,
        cuIpcCloseMemHandle, cuMemAllocAsync, cuMemAllocFromPoolAsync, cuMemFreeAsync,
        cuDeviceGetDefaultMemPool, cuDeviceGetMemPool, cuDeviceSetMemPool, cuMemPoolCreate,
        cuMemPoolDestroy, cuMemPoolTrimTo, cuMemPoolSetAttribute, cuMemPoolGetAttribute,
        cuMemcpy3D_v2, cuMemcpy3DAsync_v2, cuMemPrefetchAsync_v2, cuMemAdvise_v2,
        cuStreamAttachMemAsync, cuGraphInstantiateWithParams, cuGraphExecGetFlags, cuStreamGetId,
        cuStreamGetCtx, cuStreamGetDevice, cuUserObjectCreate, cuUserObjectRetain,
        cuUserObjectRelease, cuGraphRetainUserObject, cuGraphReleaseUserObject, cuPointerGetAttributes,
        cuArrayCreate_v2, cuArray3DCreate_v2, cuArrayDestroy, cuArrayGetDescriptor_v2,
        cuArray3DGetDescriptor_v2, cuTexObjectCreate, cuTexObjectDestroy,
        cuTexObjectGetResourceDesc, cuTexObjectGetTextureDesc, cuSurfObjectCreate,
        cuLaunchCooperativeKernel, cuGetExportTable, cuModuleGetLoadingMode,
        cuSurfObjectDestroy, cuTensorMapEncodeTiled, cuTensorMapReplaceAddress,
        cuGraphCreate, cuGraphAddMemsetNode, cuGraphAddMemcpyNode, cuGraphAddHostNode,
        cuGraphAddEmptyNode, cuGraphAddEventRecordNode, cuGraphAddEventWaitNode,
        cuGraphAddChildGraphNode, cuGraphGetNodes, cuGraphGetRootNodes, cuGraphNodeGetType,
        cuGraphDestroyNode, cuGraphClone,
    }
    None
}

/// `cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, symbolStatus)`:
/// the entry point for a base name. The implemented entry points have one
/// ABI each across the versions clients ask for (the `_v2` forms).
#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress_v2(
    symbol: *const c_char,
    pfn: *mut *const c_void,
    _version: c_int,
    _flags: u64,
    status: *mut c_int,
) -> CUresult {
    if symbol.is_null() || pfn.is_null() {
        return INVALID_VALUE;
    }
    let name = CStr::from_ptr(symbol).to_string_lossy();
    // Base names whose ABI changed with the CUDA version asked for
    // (cudaTypedefs.h: PFN_cuCtxCreate_v3020/_v11040/_v12050,
    // PFN_cuCtxGetDevice_v2000/_v13000, PFN_cuStreamGetCaptureInfo_v10010/
    // _v11030/_v12030, PFN_cuGraphInstantiate_v11000 and, from 12000,
    // cuGraphInstantiateWithFlags).
    let versioned: Option<*const c_void> = match &*name {
        "cuCtxCreate" if _version >= 12050 => Some(cuCtxCreate_v4 as *const c_void),
        "cuCtxCreate" if _version >= 11040 => Some(cuCtxCreate_v3 as *const c_void),
        "cuCtxGetDevice" if _version >= 13000 => Some(cuCtxGetDevice_v2 as *const c_void),
        "cuStreamGetCaptureInfo" if _version >= 12030 => {
            Some(cuStreamGetCaptureInfo_v3 as *const c_void)
        }
        "cuStreamGetCaptureInfo" if _version >= 11030 => {
            Some(cuStreamGetCaptureInfo_v2 as *const c_void)
        }
        "cuStreamGetCaptureInfo" => Some(cuStreamGetCaptureInfo as *const c_void),
        "cuGraphInstantiate" if _version >= 12000 => {
            Some(cuGraphInstantiateWithFlags as *const c_void)
        }
        "cuGraphInstantiate" => Some(cuGraphInstantiate_v2 as *const c_void),
        // Kernel node parameters gained the library kernel and context in
        // CUDA 12.0, the update its result structure; edges their data in
        // 12.3 (cudaTypedefs.h's PFN_..._v10000/_v12000/_v12030).
        "cuGraphAddKernelNode" if _version >= 12000 => {
            Some(cuGraphAddKernelNode_v2 as *const c_void)
        }
        "cuGraphAddKernelNode" => Some(cuGraphAddKernelNode as *const c_void),
        "cuGraphKernelNodeSetParams" if _version >= 12000 => {
            Some(cuGraphKernelNodeSetParams_v2 as *const c_void)
        }
        "cuGraphKernelNodeSetParams" => Some(cuGraphKernelNodeSetParams as *const c_void),
        "cuGraphExecKernelNodeSetParams" if _version >= 12000 => {
            Some(cuGraphExecKernelNodeSetParams_v2 as *const c_void)
        }
        "cuGraphExecKernelNodeSetParams" => Some(cuGraphExecKernelNodeSetParams as *const c_void),
        "cuGraphExecUpdate" if _version >= 12000 => Some(cuGraphExecUpdate_v2 as *const c_void),
        "cuGraphExecUpdate" => Some(cuGraphExecUpdate as *const c_void),
        "cuGraphAddDependencies" if _version >= 12030 => {
            Some(cuGraphAddDependencies_v2 as *const c_void)
        }
        "cuGraphAddDependencies" => Some(cuGraphAddDependencies as *const c_void),
        "cuGraphRemoveDependencies" if _version >= 12030 => {
            Some(cuGraphRemoveDependencies_v2 as *const c_void)
        }
        "cuGraphRemoveDependencies" => Some(cuGraphRemoveDependencies as *const c_void),
        "cuGraphGetEdges" if _version >= 12030 => Some(cuGraphGetEdges_v2 as *const c_void),
        "cuGraphGetEdges" => Some(cuGraphGetEdges as *const c_void),
        "cuGraphNodeGetDependencies" if _version >= 12030 => {
            Some(cuGraphNodeGetDependencies_v2 as *const c_void)
        }
        "cuGraphNodeGetDependencies" => Some(cuGraphNodeGetDependencies as *const c_void),
        "cuGraphNodeGetDependentNodes" if _version >= 12030 => {
            Some(cuGraphNodeGetDependentNodes_v2 as *const c_void)
        }
        "cuGraphNodeGetDependentNodes" => Some(cuGraphNodeGetDependentNodes as *const c_void),
        _ => None,
    };
    let stub = || {
        let f = stubs::lookup(&name);
        if f.is_some() {
            trace(format_args!("cuGetProcAddress: `{name}` is a stub"));
        }
        f
    };
    match versioned.or_else(|| entry_point(&name)).or_else(stub) {
        Some(f) => {
            *pfn = f;
            if !status.is_null() {
                *status = 0; // CU_GET_PROC_ADDRESS_SUCCESS
            }
            SUCCESS
        }
        None => {
            trace(format_args!("cuGetProcAddress: no entry point `{name}`"));
            *pfn = std::ptr::null();
            if !status.is_null() {
                *status = 1; // CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND
            }
            NOT_FOUND
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress(
    symbol: *const c_char,
    pfn: *mut *const c_void,
    version: c_int,
    flags: u64,
) -> CUresult {
    cuGetProcAddress_v2(symbol, pfn, version, flags, std::ptr::null_mut())
}

/// NVIDIA's runtime (cudart) asks for its private interfaces by id
/// (`export_tables.rs`).
#[no_mangle]
pub unsafe extern "C" fn cuGetExportTable(
    table: *mut *const c_void,
    id: *const c_void,
) -> CUresult {
    export_tables::get(table, id)
}
