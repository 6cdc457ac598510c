//! Uniformity analysis: which registers hold the same value in every active
//! lane of a warp, and which branches every active lane takes the same way.
//!
//! A side table for the JIT (uniform values are computed once per warp, not
//! per lane) and the timing model. Sources of uniformity: immediates,
//! addresses of globals and frame slots, kernel parameters, `%ctaid`,
//! `%ntid`, `%nctaid` and similar, and warp-wide results (votes, ballots,
//! reductions). A register is varying if any of its definitions reads a
//! varying value, is guarded by a varying predicate, is a per-lane source
//! (`%tid`, `%laneid`, loads from per-lane or shared memory, atomics,
//! shuffles...), or lies in a block that a varying branch controls (between
//! the branch and its reconvergence point). Solved to a fixpoint.

use cranelift_codegen::entity::{EntityRef, SecondaryMap};

use super::{Block, Function, OpKind, Reg, Space, SpecialReg, Src, Terminator};

#[derive(Clone, Debug, Default)]
pub struct Uniformity {
    /// `true`: the register is uniform across the active lanes.
    pub regs: SecondaryMap<Reg, bool>,
    /// `true`: the block's terminator is a uniform branch.
    pub branches: SecondaryMap<Block, bool>,
}

fn special_is_uniform(s: SpecialReg) -> bool {
    matches!(
        s,
        SpecialReg::Ntid(_)
            | SpecialReg::Ctaid(_)
            | SpecialReg::Nctaid(_)
            | SpecialReg::Warpid
            | SpecialReg::Nwarpid
            | SpecialReg::Smid
            | SpecialReg::Nsmid
            | SpecialReg::Gridid
            | SpecialReg::DynamicSmemSize
            | SpecialReg::TotalSmemSize
            | SpecialReg::AggrSmemSize
            | SpecialReg::Pm(_)
            | SpecialReg::Pm64(_)
            | SpecialReg::CurrentGraphExec
            | SpecialReg::ReservedSmem(_)
            | SpecialReg::Envreg(_)
            | SpecialReg::Cluster(_)
    )
}

pub fn analyze(f: &Function) -> Uniformity {
    let nregs = f.regs.len();
    let mut varying = vec![false; nregs];
    let mut divergent_block: SecondaryMap<Block, bool> = SecondaryMap::new();
    // Function parameters of a `.func` may differ per lane (callers diverge).
    loop {
        let mut changed = false;
        let is_varying = |s: &Src, varying: &[bool]| matches!(s, Src::Reg(r) if varying[r.index()]);
        for (b, data) in f.blocks.iter() {
            for op in &data.ops {
                let mut v = divergent_block[b]
                    || op.srcs.iter().any(|s| is_varying(s, &varying))
                    || op.guard.is_some_and(|g| varying[g.reg.index()]);
                v |= match &op.kind {
                    OpKind::ReadSpecial(s) => !special_is_uniform(*s),
                    OpKind::Ld { space, .. } => {
                        !(matches!(space, Space::KernelParam | Space::Const)
                            || (*space == Space::FrameParam && f.is_kernel))
                    }
                    OpKind::Atom { .. }
                    | OpKind::Elect
                    | OpKind::Stack { .. }
                    | OpKind::Mbarrier { .. }
                    | OpKind::Texture { .. }
                    | OpKind::Shfl { .. }
                    | OpKind::Match { .. } => true,
                    // Matrix fragments differ by lane even from a uniform
                    // address (`wmma.load`'s is the whole matrix's).
                    OpKind::Ldmatrix { .. }
                    | OpKind::WmmaLoad { .. }
                    | OpKind::Mma { .. }
                    | OpKind::Movmatrix
                    | OpKind::WmmaMma { .. }
                    | OpKind::Wgmma { .. } => true,
                    // Warp-wide results are the same in every active lane.
                    OpKind::Vote { .. } | OpKind::Redux { .. } | OpKind::Activemask => {
                        divergent_block[b]
                    }
                    OpKind::Bar { .. } => false,
                    OpKind::Call { .. } => true,
                    _ => false,
                };
                if matches!(
                    op.kind,
                    OpKind::Vote { .. } | OpKind::Redux { .. } | OpKind::Activemask
                ) && !divergent_block[b]
                {
                    v = op.guard.is_some_and(|g| varying[g.reg.index()]);
                }
                if v {
                    for d in &op.dsts {
                        if !varying[d.index()] {
                            varying[d.index()] = true;
                            changed = true;
                        }
                    }
                }
            }
        }
        // Blocks controlled by varying branches.
        for (b, data) in f.blocks.iter() {
            let cond_varying = match &data.term {
                Terminator::Branch { cond, .. } => varying[cond.index()],
                Terminator::Switch { index, .. } => varying[index.index()],
                _ => false,
            } || (divergent_block[b]
                && matches!(
                    data.term,
                    Terminator::Branch { .. } | Terminator::Switch { .. }
                ));
            if !cond_varying {
                continue;
            }
            let stop = f.cfg.ipdom[b];
            let mut work: Vec<Block> = f.cfg.succs[b].clone();
            let mut seen = vec![false; f.blocks.len()];
            while let Some(x) = work.pop() {
                if Some(x) == stop || seen[x.index()] {
                    continue;
                }
                seen[x.index()] = true;
                if !divergent_block[x] {
                    divergent_block[x] = true;
                    changed = true;
                }
                work.extend(f.cfg.succs[x].iter().copied());
            }
        }
        if !changed {
            break;
        }
    }
    let mut u = Uniformity::default();
    for (i, v) in varying.iter().enumerate() {
        u.regs[Reg::new(i)] = !v;
    }
    for (b, data) in f.blocks.iter() {
        u.branches[b] = match &data.term {
            Terminator::Branch { cond, .. } => !varying[cond.index()] && !divergent_block[b],
            Terminator::Switch { index, .. } => !varying[index.index()] && !divergent_block[b],
            _ => true,
        };
    }
    u
}
