//! `CUresult` codes (cuda.h 12.9) with their names and descriptions, and
//! how warpjit's errors map onto them.

use std::ffi::CStr;

use warpjit::interp::FaultKind;
use warpjit::Error;

pub type CUresult = u32;

/// (code, name, description) for every code this library returns, as C
/// strings (`cuGetErrorName`/`cuGetErrorString` hand out pointers to them).
pub const CODES: &[(CUresult, &CStr, &CStr)] = &[
    (0, c"CUDA_SUCCESS", c"no error"),
    (1, c"CUDA_ERROR_INVALID_VALUE", c"invalid argument"),
    (2, c"CUDA_ERROR_OUT_OF_MEMORY", c"out of memory"),
    (3, c"CUDA_ERROR_NOT_INITIALIZED", c"initialization error"),
    (4, c"CUDA_ERROR_DEINITIALIZED", c"driver shutting down"),
    (
        100,
        c"CUDA_ERROR_NO_DEVICE",
        c"no CUDA-capable device is detected",
    ),
    (101, c"CUDA_ERROR_INVALID_DEVICE", c"invalid device ordinal"),
    (
        200,
        c"CUDA_ERROR_INVALID_IMAGE",
        c"device kernel image is invalid",
    ),
    (
        201,
        c"CUDA_ERROR_INVALID_CONTEXT",
        c"invalid device context",
    ),
    (
        209,
        c"CUDA_ERROR_NO_BINARY_FOR_GPU",
        c"no kernel image is available for execution on the device",
    ),
    (
        218,
        c"CUDA_ERROR_INVALID_PTX",
        c"a PTX JIT compilation failed",
    ),
    (301, c"CUDA_ERROR_FILE_NOT_FOUND", c"file not found"),
    (
        400,
        c"CUDA_ERROR_INVALID_HANDLE",
        c"invalid resource handle",
    ),
    (
        401,
        c"CUDA_ERROR_ILLEGAL_STATE",
        c"the operation cannot be performed in the present state",
    ),
    (500, c"CUDA_ERROR_NOT_FOUND", c"named symbol not found"),
    (600, c"CUDA_ERROR_NOT_READY", c"device not ready"),
    (
        700,
        c"CUDA_ERROR_ILLEGAL_ADDRESS",
        c"an illegal memory access was encountered",
    ),
    (
        701,
        c"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
        c"too many resources requested for launch",
    ),
    (
        702,
        c"CUDA_ERROR_LAUNCH_TIMEOUT",
        c"the launch timed out and was terminated",
    ),
    (710, c"CUDA_ERROR_ASSERT", c"device-side assert triggered"),
    (
        715,
        c"CUDA_ERROR_ILLEGAL_INSTRUCTION",
        c"an illegal instruction was encountered",
    ),
    (716, c"CUDA_ERROR_MISALIGNED_ADDRESS", c"misaligned address"),
    (
        719,
        c"CUDA_ERROR_LAUNCH_FAILED",
        c"unspecified launch failure",
    ),
    (
        712,
        c"CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
        c"part or all of the requested memory range is already mapped",
    ),
    (
        713,
        c"CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
        c"pointer does not correspond to a registered memory region",
    ),
    (801, c"CUDA_ERROR_NOT_SUPPORTED", c"operation not supported"),
    (
        900,
        c"CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
        c"operation not permitted when stream is capturing",
    ),
    (
        901,
        c"CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
        c"operation failed due to a previous error during capture",
    ),
    (
        902,
        c"CUDA_ERROR_STREAM_CAPTURE_MERGE",
        c"operation would result in a merge of separate capture sequences",
    ),
    (
        905,
        c"CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
        c"dependency created on uncaptured work in another stream",
    ),
    (
        906,
        c"CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
        c"operation would make the legacy stream depend on a capturing blocking stream",
    ),
    (
        907,
        c"CUDA_ERROR_CAPTURED_EVENT",
        c"operation not permitted on an event last recorded in a capturing stream",
    ),
    (
        908,
        c"CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD",
        c"attempt to terminate a thread-local capture sequence from another thread",
    ),
    (
        912,
        c"CUDA_ERROR_INVALID_CLUSTER_SIZE",
        c"invalid cluster size",
    ),
    (999, c"CUDA_ERROR_UNKNOWN", c"unknown error"),
];

pub const SUCCESS: CUresult = 0;
pub const INVALID_VALUE: CUresult = 1;
pub const OUT_OF_MEMORY: CUresult = 2;
pub const NOT_INITIALIZED: CUresult = 3;
pub const INVALID_DEVICE: CUresult = 101;
pub const INVALID_CONTEXT: CUresult = 201;
pub const NO_BINARY_FOR_GPU: CUresult = 209;
pub const INVALID_PTX: CUresult = 218;
pub const FILE_NOT_FOUND: CUresult = 301;
pub const INVALID_HANDLE: CUresult = 400;
pub const ILLEGAL_STATE: CUresult = 401;
pub const NOT_FOUND: CUresult = 500;
pub const NOT_READY: CUresult = 600;
pub const HOST_MEMORY_ALREADY_REGISTERED: CUresult = 712;
pub const HOST_MEMORY_NOT_REGISTERED: CUresult = 713;
pub const UNKNOWN: CUresult = 999;
pub const STREAM_CAPTURE_UNSUPPORTED: CUresult = 900;
pub const STREAM_CAPTURE_INVALIDATED: CUresult = 901;
pub const STREAM_CAPTURE_MERGE: CUresult = 902;
pub const STREAM_CAPTURE_UNMATCHED: CUresult = 903;
pub const STREAM_CAPTURE_UNJOINED: CUresult = 904;
pub const STREAM_CAPTURE_ISOLATION: CUresult = 905;
pub const STREAM_CAPTURE_IMPLICIT: CUresult = 906;
pub const CAPTURED_EVENT: CUresult = 907;
pub const STREAM_CAPTURE_WRONG_THREAD: CUresult = 908;
pub const NOT_SUPPORTED: CUresult = 801;

/// The code CUDA uses for what went wrong; launch faults also print
/// warpjit's report (kernel, block, thread, PTX line) on stderr.
pub fn code_of(e: &Error) -> CUresult {
    match e {
        Error::Module(_) | Error::Link(_) => INVALID_PTX,
        Error::Unsupported { .. } => {
            eprintln!("warpjit: {e}");
            NOT_SUPPORTED
        }
        Error::Launch(l) => {
            eprintln!("warpjit: {e}");
            match l.kind {
                FaultKind::IllegalAddress => 700,
                FaultKind::MisalignedAddress => 716,
                FaultKind::Assert => 710,
                // ptxas compiles `brkpt` to the `BPT.TRAP` of `trap`.
                FaultKind::Trap | FaultKind::Breakpoint => 715,
                FaultKind::Watchdog => 702,
                _ => 719,
            }
        }
        Error::InvalidArgument(m) => {
            eprintln!("warpjit: {m}");
            INVALID_VALUE
        }
        Error::OutOfMemory { .. } => OUT_OF_MEMORY,
        Error::InvalidCluster(_) => {
            eprintln!("warpjit: {e}");
            912 // CUDA_ERROR_INVALID_CLUSTER_SIZE
        }
        Error::ClustersUnsupported(_) => {
            eprintln!("warpjit: {e}");
            801 // CUDA_ERROR_NOT_SUPPORTED
        }
        Error::CooperativeTooLarge { .. } => {
            eprintln!("warpjit: {e}");
            720 // CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE
        }
        Error::InvalidAddress { .. } => INVALID_VALUE,
        Error::Jit(m) => {
            eprintln!("warpjit: {m}");
            999
        }
    }
}
