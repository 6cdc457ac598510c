//! `CUresult` codes (cuda.h 12.9) with their names and descriptions, and
//! how warpjit's errors map onto them.

use warpjit::interp::FaultKind;
use warpjit::Error;

pub type CUresult = u32;

/// (code, name, description) for every code this library returns.
pub const CODES: &[(CUresult, &str, &str)] = &[
    (0, "CUDA_SUCCESS", "no error"),
    (1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"),
    (2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"),
    (3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"),
    (4, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"),
    (
        100,
        "CUDA_ERROR_NO_DEVICE",
        "no CUDA-capable device is detected",
    ),
    (101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"),
    (
        200,
        "CUDA_ERROR_INVALID_IMAGE",
        "device kernel image is invalid",
    ),
    (201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"),
    (
        209,
        "CUDA_ERROR_NO_BINARY_FOR_GPU",
        "no kernel image is available for execution on the device",
    ),
    (
        218,
        "CUDA_ERROR_INVALID_PTX",
        "a PTX JIT compilation failed",
    ),
    (301, "CUDA_ERROR_FILE_NOT_FOUND", "file not found"),
    (400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"),
    (500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"),
    (600, "CUDA_ERROR_NOT_READY", "device not ready"),
    (
        700,
        "CUDA_ERROR_ILLEGAL_ADDRESS",
        "an illegal memory access was encountered",
    ),
    (
        701,
        "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
        "too many resources requested for launch",
    ),
    (
        702,
        "CUDA_ERROR_LAUNCH_TIMEOUT",
        "the launch timed out and was terminated",
    ),
    (710, "CUDA_ERROR_ASSERT", "device-side assert triggered"),
    (
        715,
        "CUDA_ERROR_ILLEGAL_INSTRUCTION",
        "an illegal instruction was encountered",
    ),
    (716, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"),
    (
        719,
        "CUDA_ERROR_LAUNCH_FAILED",
        "unspecified launch failure",
    ),
    (801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"),
    (999, "CUDA_ERROR_UNKNOWN", "unknown error"),
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
pub const NOT_FOUND: CUresult = 500;
pub const NOT_SUPPORTED: CUresult = 801;

/// The code CUDA uses for what went wrong; launch faults also print
/// warpjit's report (kernel, block, thread, PTX line) on stderr.
pub fn code_of(e: &Error) -> CUresult {
    match e {
        Error::Module(_) => INVALID_PTX,
        Error::Launch(l) => {
            eprintln!("warpjit: {e}");
            match l.kind {
                FaultKind::IllegalAddress => 700,
                FaultKind::MisalignedAddress => 716,
                FaultKind::Assert => 710,
                FaultKind::Trap => 715,
                FaultKind::Watchdog => 702,
                _ => 719,
            }
        }
        Error::InvalidArgument(m) => {
            eprintln!("warpjit: {m}");
            INVALID_VALUE
        }
        Error::OutOfMemory { .. } => OUT_OF_MEMORY,
        Error::InvalidAddress { .. } => INVALID_VALUE,
        Error::Jit(m) => {
            eprintln!("warpjit: {m}");
            999
        }
    }
}
