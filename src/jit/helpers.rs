//! Rust functions that compiled pieces call: the pure-op fallback (the same
//! [`pure::eval`] the interpreter uses), the full global-memory check when
//! the inline one does not accept an access, and fault recording. All take the [`PieceEnv`] the driver built.

use crate::interp::abi::{PieceEnv, FAULT_MISALIGNED, FAULT_OUT_OF_BOUNDS};
use crate::interp::pure::{self, MAX_OPERANDS};
use crate::ir::Op;
use crate::runtime::memory::AccessFault;

/// Computes a pure op from `MAX_OPERANDS` source values into `out`.
///
/// # Safety
/// `op` points at a live op; `srcs` and `out` at `MAX_OPERANDS` u64s.
pub unsafe extern "C" fn jit_pure(op: *const Op, srcs: *const u64, out: *mut u64) {
    let op = &*op;
    let n = op.srcs.len().min(MAX_OPERANDS);
    let srcs = std::slice::from_raw_parts(srcs, n);
    let mut res = [0u64; MAX_OPERANDS];
    pure::eval(op, srcs, &mut res);
    std::ptr::copy_nonoverlapping(res.as_ptr(), out, MAX_OPERANDS);
}

/// Checks a global access the inline test did not accept (outside the
/// arena, misaligned, crossing a granule, or invalid): returns 0 if
/// [`GlobalMemory::check`](crate::runtime::memory::GlobalMemory::check)
/// accepts it, else `1 + fault code`.
///
/// # Safety
/// `env` is a live environment.
pub unsafe extern "C" fn jit_global_check(env: *mut PieceEnv, addr: u64, size: u64) -> u32 {
    let memory = &*(*env).memory;
    match memory.check(addr, size) {
        Ok(_) => 0,
        Err(AccessFault::OutOfBounds) => 1 + FAULT_OUT_OF_BOUNDS,
        Err(AccessFault::Misaligned) => 1 + FAULT_MISALIGNED,
    }
}

/// Records a fault of `lane` at op `op` if it precedes the one recorded
/// (lanes run in increasing order, so the first lane wins a tie).
///
/// # Safety
/// `env` is a live environment.
pub unsafe extern "C" fn jit_fault(
    env: *mut PieceEnv,
    op: u32,
    lane: u32,
    kind: u32,
    space: u32,
    addr: u64,
    size: u64,
) {
    let env = &mut *env;
    if op < env.fault_op {
        env.fault_op = op;
        env.fault_lane = lane;
        env.fault_kind = kind;
        env.fault_space = space;
        env.fault_addr = addr;
        env.fault_size = size;
    }
}
