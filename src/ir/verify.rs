//! The IR verifier: the invariants every executor relies on.
//!
//! Run after lowering in debug builds and in tests: every block is
//! terminated and branches to existing blocks; every register an op reads or
//! writes exists; branch conditions are predicates written somewhere in the
//! function; guards and predicate results are predicate registers; ops have
//! the operand counts their kind requires; calls name existing functions;
//! registers that share a register-file slot are never live together
//! ([`super::slots::check`]).

use cranelift_codegen::entity::EntityRef;

use super::{Callee, Function, Module, OpKind, Reg, Src, Terminator, Ty};

pub fn run(module: &Module) -> Result<(), String> {
    for (_, f) in module.functions.iter() {
        if f.external {
            continue;
        }
        function(module, f).map_err(|e| format!("in `{}`: {e}", f.name))?;
    }
    Ok(())
}

fn function(module: &Module, f: &Function) -> Result<(), String> {
    let nblocks = f.blocks.len();
    let nregs = f.regs.len();
    let mut written = vec![false; nregs];
    for (_, b) in f.blocks.iter() {
        for op in &b.ops {
            for d in &op.dsts {
                if d.index() >= nregs {
                    return Err(format!("write to undefined register {d}"));
                }
                written[d.index()] = true;
            }
        }
    }
    for (bid, b) in f.blocks.iter() {
        for op in &b.ops {
            for s in &op.srcs {
                if let Src::Reg(r) = s {
                    if r.index() >= nregs {
                        return Err(format!("{bid}: read of undefined register {r}"));
                    }
                }
            }
            if let Some(g) = op.guard {
                if g.reg.index() >= nregs {
                    return Err(format!("{bid}: guard on undefined register"));
                }
                if f.regs[g.reg].ty != Ty::Pred {
                    return Err(format!("{bid}: guard {} is not a predicate", g.reg));
                }
            }
            // Predicate results and operands must be predicate registers.
            let pred_dsts: &[Reg] = match &op.kind {
                OpKind::Setp { .. } | OpKind::Testp { .. } | OpKind::Isspacep { .. } => &op.dsts,
                _ => &[],
            };
            for d in pred_dsts {
                if f.regs[*d].ty != Ty::Pred {
                    return Err(format!(
                        "{bid}: {:?} writes {d}, which is not a predicate",
                        op.kind
                    ));
                }
            }
            if let (OpKind::Selp, Some(Src::Reg(p))) = (&op.kind, op.srcs.get(2)) {
                if f.regs[*p].ty != Ty::Pred {
                    return Err(format!(
                        "{bid}: selp selects on {p}, which is not a predicate"
                    ));
                }
            }
            let (min_srcs, min_dsts) = match &op.kind {
                OpKind::Mov | OpKind::Cvt { .. } | OpKind::Testp { .. } | OpKind::IntUn { .. } => {
                    (1, 1)
                }
                OpKind::IntBin { .. } => (2, 1),
                OpKind::IntTern { .. } => (3, 1),
                OpKind::Setp { .. } | OpKind::Set { .. } => (2, 1),
                OpKind::Selp | OpKind::Slct { .. } | OpKind::Video(_) => (3, 1),
                OpKind::Ld { .. } => (1, 1),
                OpKind::St { .. } => (2, 0),
                OpKind::Atom { .. } => (2, 0),
                OpKind::Shfl { .. } => (4, 1),
                OpKind::ReadSpecial(_) | OpKind::Activemask => (0, 1),
                _ => (0, 0),
            };
            if op.srcs.len() < min_srcs || op.dsts.len() < min_dsts {
                return Err(format!(
                    "{bid}: {:?} has {} sources and {} destinations",
                    op.kind,
                    op.srcs.len(),
                    op.dsts.len()
                ));
            }
            if let OpKind::Call {
                callee: Callee::Direct(fid),
                ..
            } = op.kind
            {
                if module.functions.get(fid).is_none() {
                    return Err(format!("{bid}: call to undefined function"));
                }
            }
        }
        let targets: Vec<_> = super::cfg::successors(&b.term);
        if b.term == Terminator::Unset {
            return Err(format!("{bid} is not terminated"));
        }
        for t in targets {
            if t.index() >= nblocks {
                return Err(format!("{bid} branches to missing block {t}"));
            }
        }
        if let Terminator::Branch { cond, .. } = b.term {
            if f.regs[cond].ty != Ty::Pred {
                return Err(format!(
                    "{bid} branches on {cond}, which is not a predicate"
                ));
            }
            if !written[cond.index()] {
                return Err(format!("{bid} branches on {cond}, which is never written"));
            }
        }
    }
    super::slots::check(f, &f.slots)
}
