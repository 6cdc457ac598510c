//! Rust functions that compiled pieces call: the pure-op fallback (the same
//! [`pure::eval`] the interpreter uses), the full global-memory check when
//! the inline one does not accept an access, atomics, fault recording, and
//! the replay of a checked build's deferred access hooks ([`jit_replay`]).
//! All take the [`PieceEnv`] the driver built.

use crate::engine::abi::{PieceEnv, FAULT_MISALIGNED, FAULT_OUT_OF_BOUNDS};
use crate::engine::pure::{self, MAX_OPERANDS};
use crate::ir::{AtomOp, Op, OpKind, Space};
use crate::runtime::memory::{AccessFault, GLOBAL_BASE, LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
use crate::sanitizer::deferred::Context;
use crate::sem;

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

/// Computes a pure op of one destination and at most three sources from
/// the values `a`, `b`, `c` (the first `op.srcs.len()` of them): what
/// [`jit_pure`] computes, with the operands in registers.
///
/// # Safety
/// `op` points at a live op.
pub unsafe extern "C" fn jit_pure3(op: *const Op, a: u64, b: u64, c: u64) -> u64 {
    let op = &*op;
    let srcs = [a, b, c];
    let mut res = [0u64; MAX_OPERANDS];
    pure::eval(op, &srcs[..op.srcs.len().min(3)], &mut res);
    res[0]
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

/// Executes one lane's atomic `op` at `addr` with operands `b` and `c`,
/// writing the old value to `out`: the interpreter's checks (`interp/lanes.rs`)
/// and update rule (`sem::int::atom_int`, `sem::float::atom_float`), with
/// host atomics for global memory. Returns 0, or `1 + fault code`.
///
/// # Safety
/// `env` is a live environment (its shared and local pointers set), `op` an
/// atomic op, `out` writable.
pub unsafe extern "C" fn jit_atom(
    env: *mut PieceEnv,
    op: *const Op,
    lane: u32,
    addr: u64,
    b: u64,
    c: u64,
    out: *mut u64,
) -> u32 {
    atom_elements(
        &mut *env,
        &*op,
        lane,
        addr,
        &[b],
        c,
        std::slice::from_raw_parts_mut(out, 1),
    )
}

/// [`jit_atom`] for a vector atomic (`vec` elements, PTX ISA 8.1): `bs`
/// points to the `vec` operands, `out` receives the `vec` old values. The
/// whole vector is checked as one access, then each element is updated
/// atomically on its own, as the interpreter does.
///
/// # Safety
/// As [`jit_atom`]; `bs` and `out` hold `vec` values each.
pub unsafe extern "C" fn jit_atom_vec(
    env: *mut PieceEnv,
    op: *const Op,
    lane: u32,
    addr: u64,
    bs: u64,
    _c: u64,
    out: *mut u64,
) -> u32 {
    let op = &*op;
    let n = match op.kind {
        OpKind::Atom { vec, .. } => usize::from(vec.max(1)),
        _ => unreachable!("jit_atom_vec runs atomics only"),
    };
    let bs = std::slice::from_raw_parts(bs as *const u64, n);
    let out = std::slice::from_raw_parts_mut(out, n);
    atom_elements(&mut *env, op, lane, addr, bs, 0, out)
}

/// The checks and updates of [`jit_atom`] for `bs.len()` consecutive
/// elements: one check of the whole span, then one atomic per element.
fn atom_elements(
    env: &mut PieceEnv,
    op: &Op,
    lane: u32,
    addr: u64,
    bs: &[u64],
    c: u64,
    out: &mut [u64],
) -> u32 {
    let OpKind::Atom {
        space, op: aop, ty, ..
    } = op.kind
    else {
        unreachable!("jit_atom runs atomics only")
    };
    let size = ty.bytes() as u64;
    let total = size * bs.len() as u64;
    let update = |b: u64| {
        move |old: u64| -> u64 {
            if ty.is_float() && !matches!(aop, AtomOp::Exch | AtomOp::Cas) {
                sem::float::atom_float(aop, ty, old, b)
            } else {
                sem::int::atom_int(aop, ty, old, b, c)
            }
        }
    };
    let (space_now, off) = match space {
        Space::Generic if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&addr) => {
            (Space::Shared, addr - SHARED_WINDOW)
        }
        Space::Generic if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&addr) => {
            (Space::Local, addr - LOCAL_WINDOW)
        }
        Space::Generic => (Space::Global, addr),
        Space::FrameParam => (Space::Local, env.frame_base.wrapping_add(addr)),
        other => (other, addr),
    };
    let fault = |f: AccessFault| match f {
        AccessFault::OutOfBounds => 1 + FAULT_OUT_OF_BOUNDS,
        AccessFault::Misaligned => 1 + FAULT_MISALIGNED,
    };
    let (base, len) = match space_now {
        Space::Global | Space::Const => {
            // SAFETY: the caller's environment is live.
            let memory = unsafe { &*env.memory };
            return match memory.check(off, total) {
                Ok(o) => {
                    for (k, (&b, old)) in bs.iter().zip(out.iter_mut()).enumerate() {
                        *old = memory.atomic_update(o + k as u64 * size, size, &mut update(b));
                    }
                    0
                }
                Err(f) => fault(f),
            };
        }
        Space::Shared => (env.shared, env.shared_len),
        Space::Local => (env.local_ptrs[lane as usize], env.local_lens[lane as usize]),
        _ => return fault(AccessFault::OutOfBounds),
    };
    if off % total.clamp(1, 32) != 0 {
        return fault(AccessFault::Misaligned);
    }
    if off.checked_add(total).is_none_or(|end| end > len) {
        return fault(AccessFault::OutOfBounds);
    }
    // Shared and local memory belong to this CTA's thread: a plain
    // read-modify-write is atomic with respect to every other lane.
    for (k, (&b, old)) in bs.iter().zip(out.iter_mut()).enumerate() {
        // SAFETY: `off + total <= len` was checked above, and `base` is
        // valid for `len` bytes.
        unsafe {
            let p = base.add(off as usize + k * size as usize);
            let mut bytes = [0u8; 8];
            std::ptr::copy_nonoverlapping(p, bytes.as_mut_ptr(), size as usize);
            *old = u64::from_le_bytes(bytes);
            let new = update(b)(*old).to_le_bytes();
            std::ptr::copy_nonoverlapping(new.as_ptr(), p, size as usize);
        }
    }
    0
}

/// Checked builds, at the end of a piece (`start`: its first op's index;
/// `slots`: its slots, `jit::plan::takes_slot`; a fault cuts the replay
/// where the interpreter would have stopped) or of a region whose lanes
/// all got through (`start` = `u32::MAX`): calls the hooks for the
/// accesses the code wrote to the env's deferred log, in the interpreter's
/// order (`DeferredLog::replay_piece`, `replay_loop`); 0 when it did, 1
/// when a region's order is not the interpreter's or its log overflowed
/// (the driver then interprets the region; nothing was written).
///
/// # Safety
/// `env` is the piece's environment with its `san` fields set by the
/// driver (`drive::san_env`: `san` live and not otherwise borrowed during
/// the call, `san_log` and `san_masks` its deferred log's buffers, written
/// as `DeferredLog` says).
pub unsafe extern "C" fn jit_replay(env: *mut PieceEnv, start: u32, slots: u32) -> u32 {
    let env = &mut *env;
    if env.san.is_null() {
        return 0;
    }
    let san = &mut *env.san;
    let mut log = std::mem::take(&mut san.deferred);
    let ctx = Context {
        warp: env.warp_index,
        func: env.san_func,
        wsync: env.san_wsync,
        instr: env.san_instr,
        global_base: GLOBAL_BASE,
    };
    let init = env.san_init.as_ref();
    let ok = if start == u32::MAX {
        let (len, full) = (env.san_log_len as usize, env.san_log_full != 0);
        log.replay_loop(len, full, san, init, &ctx)
    } else {
        let fault =
            (env.fault_op != u32::MAX).then(|| (env.fault_op.wrapping_sub(start), env.fault_lane));
        log.replay_piece(slots as usize, fault, san, init, &ctx);
        true
    };
    san.deferred = log;
    u32::from(!ok)
}

/// A region's lane has taken `steps` steps, past the env's `step_cap`:
/// the steps it may take before it asks again (about 2^23 more), or 0 when
/// the launch's watchdog says stop (the launch's instruction budget does
/// not hold `steps`, or its time limit has passed; `step_cap` is then set to
/// `steps`, which the driver charges before it interprets the region and
/// meets the watchdog). The steps are charged when the region returns, as
/// any region's; this only checks that they fit, so that a loop longer than
/// one cap runs compiled to its end.
///
/// # Safety
/// `env` is a region's environment, its `budget` the launch's.
pub unsafe extern "C" fn jit_region_more(env: *mut PieceEnv, steps: u64) -> u64 {
    let env = &mut *env;
    let budget = (*env.budget).load(std::sync::atomic::Ordering::Relaxed);
    let over_time = env.deadline.is_some_and(|d| std::time::Instant::now() > d);
    if over_time || steps >= budget {
        env.step_cap = steps;
        return 0;
    }
    steps.saturating_add(1 << 23).min(budget)
}
