//! The static side of the timing model: for every op and terminator of a
//! module, the facts issue needs before executing it: its unit class, issue
//! cost, the registers it reads and writes (for the scoreboard), whether its
//! latency comes from the memory model, and its PTX line. Built once per
//! launch from the IR; the cycle model indexes it by (function, block, pc).

use cranelift_codegen::entity::EntityRef;

use super::arch::UnitClass;
use crate::ir::{self, FuncId, IntBinOp, IntTernOp, Module, OpKind, Space, Src, Terminator, Unit};

/// Where a memory op's latency comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemClass {
    /// Not a memory access.
    None,
    /// Global, local or generic: from the addresses the warp used, through
    /// the caches (whose state all SMs share).
    Dynamic,
    /// Shared memory: from the addresses the warp used, by bank conflicts
    /// alone (no state but the report's counters).
    Shared,
    /// Constant cache or parameter space: the preset's constant latency.
    Constant,
}

impl MemClass {
    /// An access whose cost comes from the addresses the warp used.
    #[inline]
    pub fn from_addresses(self) -> bool {
        matches!(self, MemClass::Dynamic | MemClass::Shared)
    }
}

/// Where a global load may be cached (its PTX cache operator).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum CachePolicy {
    /// In the L1 where the preset caches global loads there, and the L2.
    #[default]
    Default,
    /// In the L2 only (`.cg`, `L1::no_allocate`, `.volatile`, and `.cv`:
    /// the L2 is where global memory is coherent, and the H100 measured
    /// here serves a `.cv` pointer chase at its L2 latency).
    L2Only,
}

/// One issue slot's static facts.
#[derive(Clone, Debug)]
pub struct Instr {
    pub class: UnitClass,
    /// Hardware instructions this op stands for; 0 when folded (SASS
    /// costs, `timing::costs`: no instruction of its own, no issue slot).
    pub cost: u16,
    pub mem: MemClass,
    /// A global load's cache operator.
    pub cache: CachePolicy,
    /// Registers read (guard included), then written: `regs[srcs.0..srcs.1]`.
    pub srcs: (u32, u32),
    pub dsts: (u32, u32),
    /// A barrier (`bar.sync` and friends).
    pub barrier: bool,
    /// A 32-bit integer multiply priced by the PTX model: its cost is
    /// multiplied by the preset's `int_mul32_issues` (SASS costs clear it).
    pub int_mul32: bool,
    /// A fall-through into the next block: no hardware instruction, so it
    /// executes without taking an issue slot.
    pub free: bool,
    /// With `cost` 0 (folded, `timing::costs`): it issues right after the
    /// instruction before it, which it may as it only reads and writes the
    /// warp's registers (or is a branch); other folded instructions wait
    /// until the warp is picked again.
    pub drain: bool,
    /// An atomic that the machine code performs as a compare-and-swap
    /// loop (SASS costs, `timing::costs`): each lane's success under
    /// contention takes a round trip to where the atomic is performed.
    pub cas_loop: bool,
    /// 1-based PTX line.
    pub line: u32,
    /// The op's ordinal in its function (terminators included), for labels.
    pub ordinal: u32,
    /// Its block's op count (the pc of the block's terminator).
    pub block_ops: u32,
}

/// Every instruction of a module.
pub struct Program {
    pub instrs: Vec<Instr>,
    pub regs: Vec<u32>,
    /// Per function, per block: the index of its op 0 (its terminator
    /// follows its last op).
    base: Vec<Vec<u32>>,
    /// Registers per function (scoreboard size).
    pub reg_counts: Vec<usize>,
    /// Some instruction is folded (cost 0, `timing::costs`): the cycle
    /// model's paths for them are taken only then.
    pub folds: bool,
}

fn class_of(unit: Unit, kind: &OpKind) -> (UnitClass, MemClass) {
    let mem = match kind {
        OpKind::Ld { space, .. } | OpKind::St { space, .. } | OpKind::Atom { space, .. } => {
            match space {
                Space::KernelParam | Space::FrameParam | Space::Const => MemClass::Constant,
                Space::Shared => MemClass::Shared,
                _ => MemClass::Dynamic,
            }
        }
        OpKind::CpAsync { .. } => MemClass::Dynamic,
        OpKind::WmmaLoad { space, .. } | OpKind::WmmaStore { space, .. } => match space {
            Space::Shared => MemClass::Shared,
            _ => MemClass::Dynamic,
        },
        _ => MemClass::None,
    };
    let class = match unit {
        Unit::Int => UnitClass::Int,
        Unit::Fp32 => UnitClass::Fp32,
        Unit::Fp64 => UnitClass::Fp64,
        Unit::Fp16 => UnitClass::Fp16,
        Unit::Sfu => UnitClass::Sfu,
        // Kernel parameters become constant-bank operands in SASS.
        Unit::LsuParam => UnitClass::Int,
        Unit::LsuGlobal
        | Unit::LsuGlobalCg
        | Unit::LsuGlobalCv
        | Unit::LsuLocal
        | Unit::LsuShared
        | Unit::LsuConst => UnitClass::Ls,
        Unit::Control | Unit::Barrier => UnitClass::Control,
        Unit::Tensor => UnitClass::Tensor,
    };
    (class, mem)
}

impl Program {
    /// The table for `module`; `line_of` maps a span's start to its line.
    pub fn build(module: &Module, line_of: &dyn Fn(u32) -> u32) -> Program {
        let mut p = Program {
            instrs: Vec::new(),
            regs: Vec::new(),
            base: Vec::new(),
            reg_counts: Vec::new(),
            folds: false,
        };
        for (_, f) in module.functions.iter() {
            let mut bases = Vec::with_capacity(f.blocks.len());
            let mut ordinal = 0u32;
            for (bid, b) in f.blocks.iter() {
                bases.push(p.instrs.len() as u32);
                for op in &b.ops {
                    let (class, mem) = class_of(op.unit, &op.kind);
                    let s0 = p.regs.len() as u32;
                    for s in &op.srcs {
                        if let Src::Reg(r) = s {
                            p.regs.push(r.index() as u32);
                        }
                    }
                    if let Some(g) = op.guard {
                        p.regs.push(g.reg.index() as u32);
                    }
                    let d0 = p.regs.len() as u32;
                    p.regs.extend(op.dsts.iter().map(|r| r.index() as u32));
                    let cache = match op.unit {
                        Unit::LsuGlobalCg => CachePolicy::L2Only,
                        Unit::LsuGlobalCv => CachePolicy::L2Only,
                        _ => CachePolicy::Default,
                    };
                    let int_mul32 = match &op.kind {
                        OpKind::IntBin { op, ty } => {
                            matches!(op, IntBinOp::MulLo | IntBinOp::MulHi) && ty.bits() == 32
                        }
                        OpKind::IntTern { op, ty } => {
                            matches!(op, IntTernOp::MadLo | IntTernOp::MadHi) && ty.bits() == 32
                        }
                        _ => false,
                    };
                    p.instrs.push(Instr {
                        class,
                        cost: op.cost.max(1),
                        mem,
                        cache,
                        srcs: (s0, d0),
                        dsts: (d0, p.regs.len() as u32),
                        barrier: matches!(op.kind, OpKind::Bar { .. }),
                        int_mul32,
                        free: false,
                        drain: false,
                        cas_loop: false,
                        line: line_of(op.span.start),
                        ordinal,
                        block_ops: b.ops.len() as u32,
                    });
                    ordinal += 1;
                }
                let s0 = p.regs.len() as u32;
                match &b.term {
                    Terminator::Branch { cond, .. } => p.regs.push(cond.index() as u32),
                    Terminator::Switch { index, .. } => p.regs.push(index.index() as u32),
                    _ => {}
                }
                let d0 = p.regs.len() as u32;
                p.instrs.push(Instr {
                    class: UnitClass::Control,
                    cost: 1,
                    mem: MemClass::None,
                    cache: CachePolicy::Default,
                    srcs: (s0, d0),
                    dsts: (d0, d0),
                    barrier: false,
                    int_mul32: false,
                    free: b.term.falls_through(bid),
                    drain: false,
                    cas_loop: false,
                    line: line_of(b.term_span.start),
                    ordinal,
                    block_ops: b.ops.len() as u32,
                });
                ordinal += 1;
            }
            p.base.push(bases);
            p.reg_counts.push(f.regs.len());
        }
        p
    }

    /// The index of the instruction at `pc` of `block` (`pc` = the block's
    /// op count for its terminator).
    #[inline]
    pub fn index(&self, func: FuncId, block: ir::Block, pc: usize) -> usize {
        self.base[func.index()][block.index()] as usize + pc
    }
}
