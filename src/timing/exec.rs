//! What the cycle model needs from execution, as traits: it decides when
//! each warp issues its next instruction and asks an executor (the runtime
//! implements these over the interpreter's warp driver and the JIT's
//! pieces) to execute it then. The model never sees registers or memory
//! contents, only positions, masks and the addresses a warp used.

use crate::ir::{Block, FuncId};

/// The next instruction of a warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    pub func: FuncId,
    pub block: Block,
    /// An op index, or the block's op count for its terminator.
    pub pc: usize,
    pub mask: u32,
}

/// Where a warp stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    At(Pos),
    /// Waiting at a barrier.
    Waiting,
    Done,
}

/// The memory space of an access, after decoding generic addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemSpace {
    Global,
    Shared,
    Local,
}

/// The addresses one memory instruction used.
#[derive(Clone, Debug)]
pub struct MemAccess {
    pub kind: super::memory::Kind,
    pub space: MemSpace,
    /// Bytes per lane.
    pub size: u32,
    pub mask: u32,
    /// Device address (global), shared offset, or the lane's local offset.
    pub addrs: [u64; 32],
}

impl Default for MemAccess {
    fn default() -> MemAccess {
        MemAccess {
            kind: super::memory::Kind::Load,
            space: MemSpace::Global,
            size: 0,
            mask: 0,
            addrs: [0; 32],
        }
    }
}

/// What executing one issue unit did (`'a`: the executor's borrow, which
/// recorded addresses may come from).
#[derive(Clone, Debug, Default)]
pub struct StepOut<'a> {
    /// Ops `pc..end` ran (a compiled piece or one op; one past the op
    /// count when the block's terminator ran with them); 0 for a
    /// terminator. A fall-through jump (no issue slot, `Instr::free`) may
    /// have run after them as well: the warp then stands past it.
    pub end: usize,
    /// The instruction accessed memory; the step's `MemAccess` says how,
    /// and holds the addresses unless `addrs` does.
    pub access: bool,
    /// The access's addresses where the executor recorded them itself.
    pub addrs: Option<&'a [u64; 32]>,
    /// The warp waits at a barrier now.
    pub barrier: bool,
    /// The warp entered or left a function.
    pub frame_changed: bool,
}

/// One resident CTA.
pub trait CtaExec {
    type Fault;
    fn warps(&self) -> usize;
    /// Where warp `w` stands (no instruction is executed).
    fn next(&mut self, w: usize) -> Next;
    /// Executes the issue unit at `at` for warp `w`; `%clock` reads `clock`.
    /// A memory access's addresses land in `access`.
    fn step(
        &mut self,
        w: usize,
        at: Pos,
        clock: u64,
        access: &mut MemAccess,
    ) -> Result<StepOut<'_>, Self::Fault>;
    /// The addresses of the op at `at`, inside the issue unit warp `w` last
    /// executed, when that unit recorded them (a compiled piece runs all its
    /// ops when the first issues), its shape in `access`; `None` when it
    /// did not access memory.
    fn access(&mut self, w: usize, at: Pos, access: &mut MemAccess) -> Option<&[u64; 32]>;
    /// Whether executing the issue unit at `at` for warp `w` reads and
    /// writes only what is private to the warp (its registers, its local
    /// memory, parameters and constants) and leaves it running (no
    /// barrier, exit, call or fault report order at stake): the model may
    /// then execute it ahead of other warps' earlier instructions. The
    /// answer must depend on `at` alone (the model asks once per
    /// instruction).
    fn private(&self, w: usize, at: Pos) -> bool;
    /// How many leading ops of the issue unit at `at` (not `private`) may
    /// issue before it executes: ops that read and write only the warp's
    /// registers, need no addresses and cannot fault, so that the unit
    /// executes when its first op that touches memory others see issues,
    /// with the same results. 0 where it executes at its first op. The
    /// answer must depend on `at` alone (asked once per instruction).
    fn deferrable(&self, w: usize, at: Pos) -> u32;
    /// Releases every barrier that can complete, appending the warps it
    /// releases; a CTA whose live warps all wait forever is a fault.
    fn release(&mut self, released: &mut Vec<usize>) -> Result<(), Self::Fault>;
}

/// Starts and retires the CTAs of a grid.
pub trait GridExec {
    type Fault;
    type Cta: CtaExec<Fault = Self::Fault>;
    fn start(&mut self, linear: u64) -> Self::Cta;
    fn finish(&mut self, linear: u64, cta: Self::Cta);
}
