//! The contract between the executor and compiled code: [`PieceEnv`], the
//! one `#[repr(C)]` struct generated code reads and writes, and
//! [`CompiledCode`], through which the warp driver finds a compiled piece
//! starting at an op.
//!
//! A *piece* is a run of ops of one basic block that compiled code executes
//! for every active lane, lane after lane (see `docs/jit-design.md` for why
//! that equals lockstep execution). The driver (`interp/warp.rs`, `interp/drive.rs`) keeps control flow,
//! the SIMT stack, calls and barriers, and executes every op outside a piece
//! itself, so a warp moves freely between compiled and interpreted ops.
//!
//! The field offsets below are the single source of truth for the layout the
//! code generator uses (as wasmtime's `VMOffsets`): `jit` only ever names a
//! field through these constants.

use std::mem::offset_of;

use crate::ir::{Block, FuncId};
use crate::runtime::memory::GlobalMemory;
use crate::sanitizer::{deferred::Deferred, shadow::InitShadow, CtaState};

/// A compiled piece: `entry(env, mask)` runs the ops `start..end` of its
/// block for the lanes in `mask`; it returns 0, or 1 when a lane faulted
/// (the fault fields of the env say where).
pub type PieceFn = unsafe extern "C" fn(env: *mut PieceEnv, mask: u32) -> u32;

/// A compiled run of ops.
#[derive(Clone, Copy, Debug)]
pub struct Piece {
    pub entry: PieceFn,
    /// One past the last op the piece executes.
    pub end: u32,
    /// The issue cost of its ops (what `%clock` advances by).
    pub cost: u32,
    /// Whether it touches local memory (the env's local pointers must be set).
    pub uses_local: bool,
    /// Timing builds: bit `i` is set when op `start + i` is a memory access
    /// whose lanes' addresses the piece records in the env's trace (slot
    /// `k` for the `k`-th such op); 0 otherwise.
    pub traced: u64,
    /// Its ops touch nothing another warp can see or change (no global,
    /// shared or generic access; see `jit::plan::is_private`): running it
    /// early or late leaves every other warp's results as they are.
    pub private: bool,
    /// Timing builds, a piece that is not private: its leading ops that
    /// may issue before it runs (`jit::plan::is_deferrable`), so that it
    /// runs when its first op that needs running issues; 0 otherwise.
    pub deferrable: u32,
}

/// Memory accesses one timing piece may record (see [`PieceEnv::trace`]).
pub const TRACE_SLOTS: usize = 8;

/// The trace slot of op `pc` of a piece starting at `start` whose traced
/// ops are `traced`, if that op is traced.
pub fn trace_slot(traced: u64, start: usize, pc: usize) -> Option<usize> {
    let i = pc.checked_sub(start)?;
    if i >= 64 || traced & (1 << i) == 0 {
        return None;
    }
    Some((traced & ((1u64 << i) - 1)).count_ones() as usize)
}

/// A compiled region: a loop whose lanes `entry(env, mask)` runs one after
/// another from its header until they leave it for `exit`. It returns 0
/// (every lane reached `exit`; registers updated), 1 (a lane faulted, or,
/// in a checked build, its accesses were not in the interpreter's order) or
/// 2 (a lane ran past what the watchdog allows: `step_cap`, then
/// `jit::helpers::jit_region_more`); on 1 or 2 no register was written and
/// the driver interprets the region instead.
#[derive(Clone, Debug)]
pub struct Region {
    pub entry: PieceFn,
    pub exit: Block,
    /// The region's blocks (sorted), to refuse entry when the warp's
    /// reconvergence point lies inside.
    pub blocks: Vec<Block>,
    /// Live-out registers it writes (the scratch it needs is 32 words each).
    pub live_outs: usize,
    pub uses_local: bool,
}

/// Compiled code for a module's functions.
pub trait CompiledCode: Sync {
    /// The piece starting at op `pc` of `block` of `func`, if one was compiled.
    fn piece(&self, func: FuncId, block: Block, pc: usize) -> Option<&Piece>;
    /// The region whose header is `block`, if one was compiled.
    fn region(&self, func: FuncId, block: Block) -> Option<&Region>;
}

/// Fault codes in [`PieceEnv::fault_kind`].
pub const FAULT_OUT_OF_BOUNDS: u32 = 0;
pub const FAULT_MISALIGNED: u32 = 1;

/// Space codes in [`PieceEnv::fault_space`].
pub const SPACE_GLOBAL: u32 = 0;
pub const SPACE_SHARED: u32 = 1;
pub const SPACE_LOCAL: u32 = 2;
pub const SPACE_PARAM: u32 = 3;
pub const SPACE_GENERIC: u32 = 4;
pub const SPACE_CONST: u32 = 5;

/// Everything compiled code reads and writes, built by the driver.
#[repr(C)]
pub struct PieceEnv {
    /// The current frame's registers: register `r` of lane `l` is the u64 at
    /// `regs[r * 32 + l]`.
    pub regs: *mut u64,
    /// Host address of arena offset 0 (global memory).
    pub arena: *mut u8,
    pub memory: *const GlobalMemory,
    /// The arena's granule table (see `GlobalMemory::granules`) and the
    /// number of granules (the index of its zero sentinel).
    pub granules: *const u16,
    pub granule_count: u64,
    pub shared: *mut u8,
    pub shared_len: u64,
    pub params: *const u8,
    pub params_len: u64,
    /// Per-lane local memory and its length.
    pub local_ptrs: [*mut u8; 32],
    pub local_lens: [u64; 32],
    /// The current frame's offset in local memory.
    pub frame_base: u64,
    /// The warp's `%clock` before the piece's first op.
    pub clock: u64,
    pub tid: [[u32; 32]; 3],
    pub ntid: [u32; 3],
    pub ctaid: [u32; 3],
    pub nctaid: [u32; 3],
    pub warp_index: u32,
    pub dynamic_shared: u32,
    pub total_shared: u32,
    /// The first fault (lowest op, then lowest lane); `fault_op` is
    /// `u32::MAX` when none.
    pub fault_op: u32,
    pub fault_lane: u32,
    pub fault_kind: u32,
    pub fault_space: u32,
    pub fault_addr: u64,
    pub fault_size: u64,
    /// Regions: where lanes leave their live-out registers until every lane
    /// has finished (`scratch[k * 32 + lane]` for the k-th live-out), ...
    pub scratch: *mut u64,
    /// ... the steps (ops and terminators) a lane may take before the
    /// region asks the watchdog for more (`jit_region_more`, which leaves
    /// here the steps of a lane it stops), ...
    pub step_cap: u64,
    /// ... and what the region reports: thread-instructions executed, the
    /// most steps of one lane and the largest issue cost of one lane.
    pub region_ops: u64,
    pub region_steps: u64,
    pub region_cost: u64,
    /// Timing pieces: where they record their memory accesses (set by the
    /// driver before it runs a piece with traced ops).
    pub trace: *mut Trace,
    /// The launch's watchdog, for regions' long-running lanes
    /// (`jit::helpers::jit_region_more`; not read by generated code): the
    /// warp-instructions it may still execute, and its time limit.
    pub budget: *const std::sync::atomic::AtomicU64,
    pub deadline: Option<std::time::Instant>,
    /// Checked builds (`jit::compile_checked`), set by the driver before a
    /// piece of a checked launch runs: the CTA's sanitizer state, global
    /// memory's written bits (null without initcheck), the piece's function
    /// and the warp's counters before the piece (its first op, the only
    /// checked access of a checked piece, is instruction `san_instr + 1`),
    /// which the hooks (`sanitizer::hooks`) take as the interpreter's do.
    pub san: *mut CtaState,
    pub san_init: *const InitShadow,
    pub san_func: FuncId,
    pub san_instr: u32,
    pub san_wsync: u32,
    /// Where checked code writes its accesses
    /// (`sanitizer::deferred::DeferredLog::buffers`); for a region, how many
    /// it appended, and whether more did not fit (`san_log_len` reached
    /// `san_log_cap`).
    pub san_log: *mut Deferred,
    /// A checked piece's per-slot lane masks (`DeferredLog`).
    pub san_masks: *mut u32,
    pub san_log_len: u32,
    pub san_log_cap: u32,
    pub san_log_full: u32,
}

/// The memory accesses a timing piece recorded: per traced op (its slot),
/// each lane's address (the address operand plus the op's offset, before
/// generic decoding) and the lanes that executed it.
#[repr(C)]
pub struct Trace {
    pub addrs: [[u64; 32]; TRACE_SLOTS],
    /// Cleared by the driver before it runs a traced piece.
    pub masks: [u32; TRACE_SLOTS],
}

impl Default for Trace {
    fn default() -> Trace {
        Trace {
            addrs: [[0; 32]; TRACE_SLOTS],
            masks: [0; TRACE_SLOTS],
        }
    }
}

/// Byte offsets of [`PieceEnv`]'s fields, for the code generator.
pub mod offsets {
    use super::*;
    pub const REGS: i32 = offset_of!(PieceEnv, regs) as i32;
    pub const ARENA: i32 = offset_of!(PieceEnv, arena) as i32;
    pub const GRANULES: i32 = offset_of!(PieceEnv, granules) as i32;
    pub const GRANULE_COUNT: i32 = offset_of!(PieceEnv, granule_count) as i32;
    pub const SHARED: i32 = offset_of!(PieceEnv, shared) as i32;
    pub const SHARED_LEN: i32 = offset_of!(PieceEnv, shared_len) as i32;
    pub const PARAMS: i32 = offset_of!(PieceEnv, params) as i32;
    pub const PARAMS_LEN: i32 = offset_of!(PieceEnv, params_len) as i32;
    pub const LOCAL_PTRS: i32 = offset_of!(PieceEnv, local_ptrs) as i32;
    pub const LOCAL_LENS: i32 = offset_of!(PieceEnv, local_lens) as i32;
    pub const FRAME_BASE: i32 = offset_of!(PieceEnv, frame_base) as i32;
    pub const CLOCK: i32 = offset_of!(PieceEnv, clock) as i32;
    pub const TID: i32 = offset_of!(PieceEnv, tid) as i32;
    pub const NTID: i32 = offset_of!(PieceEnv, ntid) as i32;
    pub const CTAID: i32 = offset_of!(PieceEnv, ctaid) as i32;
    pub const NCTAID: i32 = offset_of!(PieceEnv, nctaid) as i32;
    pub const WARP_INDEX: i32 = offset_of!(PieceEnv, warp_index) as i32;
    pub const DYNAMIC_SHARED: i32 = offset_of!(PieceEnv, dynamic_shared) as i32;
    pub const TOTAL_SHARED: i32 = offset_of!(PieceEnv, total_shared) as i32;
    pub const FAULT_OP: i32 = offset_of!(PieceEnv, fault_op) as i32;
    pub const SCRATCH: i32 = offset_of!(PieceEnv, scratch) as i32;
    pub const STEP_CAP: i32 = offset_of!(PieceEnv, step_cap) as i32;
    pub const REGION_OPS: i32 = offset_of!(PieceEnv, region_ops) as i32;
    pub const REGION_STEPS: i32 = offset_of!(PieceEnv, region_steps) as i32;
    pub const REGION_COST: i32 = offset_of!(PieceEnv, region_cost) as i32;
    pub const TRACE: i32 = offset_of!(PieceEnv, trace) as i32;
    pub const SAN_LOG: i32 = offset_of!(PieceEnv, san_log) as i32;
    pub const SAN_MASKS: i32 = offset_of!(PieceEnv, san_masks) as i32;
    pub const SAN_LOG_LEN: i32 = offset_of!(PieceEnv, san_log_len) as i32;
    pub const SAN_LOG_CAP: i32 = offset_of!(PieceEnv, san_log_cap) as i32;
    pub const SAN_LOG_FULL: i32 = offset_of!(PieceEnv, san_log_full) as i32;
    /// Within [`Trace`].
    pub const TRACE_ADDRS: i32 = offset_of!(Trace, addrs) as i32;
    pub const TRACE_MASKS: i32 = offset_of!(Trace, masks) as i32;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generated code indexes per-lane arrays with 8-byte and 4-byte
    /// strides and reads pointers as 64-bit values.
    #[test]
    fn layout_assumptions_hold() {
        assert_eq!(std::mem::size_of::<*mut u8>(), 8);
        assert_eq!(offsets::LOCAL_LENS - offsets::LOCAL_PTRS, 32 * 8);
        assert_eq!(offset_of!(PieceEnv, tid) % 4, 0, "tid rows are u32 arrays");
        assert_eq!(
            offsets::TRACE_MASKS - offsets::TRACE_ADDRS,
            (TRACE_SLOTS * 32 * 8) as i32,
            "trace slots are rows of 32 u64s, then the masks"
        );
    }

    #[test]
    fn trace_slots_count_the_traced_ops_before() {
        let traced = 0b1011_0100u64;
        assert_eq!(trace_slot(traced, 10, 12), Some(0));
        assert_eq!(trace_slot(traced, 10, 13), None);
        assert_eq!(trace_slot(traced, 10, 14), Some(1));
        assert_eq!(trace_slot(traced, 10, 17), Some(3));
        assert_eq!(trace_slot(traced, 10, 9), None);
    }
}
