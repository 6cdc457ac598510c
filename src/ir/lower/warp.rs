//! Warp- and CTA-level instructions and calls: `shfl`, `vote`, `match`,
//! `redux`, `activemask`, barriers, fences, and `call` (including the device
//! runtime's `vprintf` and `__assertfail`).

use super::func::{FnLower, Sym};
use super::layout::align_up;
use super::mods::Mods;
use super::{error, unsupported, ModuleSym};
use crate::front::ast::{Instruction, Kw, Opcode, OperandKind};
use crate::front::{Diagnostic, DiagnosticKind};
use crate::ir::{AtomOp, BarKind, Callee, OpKind, ParamSlot, ShflMode, Src, Ty, Unit, VoteMode};

/// Lays out a callee's frame slots: parameters from 0, then return slots.
pub(crate) fn frame_slots(
    params: &[ParamSlot],
    returns: &[ParamSlot],
) -> (Vec<ParamSlot>, Vec<ParamSlot>) {
    let mut end = params.iter().map(|p| p.offset + p.size).max().unwrap_or(0);
    let mut rets = Vec::with_capacity(returns.len());
    for r in returns {
        let off = align_up(end as u64, r.align as u64) as u32;
        rets.push(ParamSlot {
            offset: off,
            ..r.clone()
        });
        end = off + r.size;
    }
    (params.to_vec(), rets)
}

impl FnLower<'_> {
    pub(crate) fn warp(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        use Opcode::*;
        match ins.opcode {
            Shfl => {
                let mode = if m.has(Kw::Up) {
                    ShflMode::Up
                } else if m.has(Kw::Down) {
                    ShflMode::Down
                } else if m.has(Kw::Bfly) {
                    ShflMode::Bfly
                } else {
                    ShflMode::Idx
                };
                let ops = self.operands(ins, 4..=5)?;
                let dsts = match &ops[0].kind {
                    OperandKind::PredPair(d, p) => {
                        let (d, p) = (d.clone(), p.clone());
                        vec![self.reg_named(&d, ins)?, self.reg_named(&p, ins)?]
                    }
                    _ => vec![self.dst(&ops[0], Ty::B32)?],
                };
                let mut srcs = vec![
                    self.src(ins, &ops[1], Ty::B32)?,
                    self.src(ins, &ops[2], Ty::B32)?,
                    self.src(ins, &ops[3], Ty::B32)?,
                ];
                srcs.push(match ops.get(4) {
                    Some(o) => self.src(ins, o, Ty::B32)?,
                    None => Src::Imm(0xFFFF_FFFF),
                });
                self.emit(ins, OpKind::Shfl { mode }, dsts, srcs, Unit::Control, 1)
            }
            Vote => {
                let mode = if m.has(Kw::All) {
                    VoteMode::All
                } else if m.has(Kw::Any) {
                    VoteMode::Any
                } else if m.has(Kw::Uni) {
                    VoteMode::Uni
                } else {
                    VoteMode::Ballot
                };
                let ops = self.operands(ins, 2..=3)?;
                let dty = if mode == VoteMode::Ballot {
                    Ty::B32
                } else {
                    Ty::Pred
                };
                let d = self.dst(&ops[0], dty)?;
                let (negate_src, a) = match &ops[1].kind {
                    OperandKind::Not(inner) => (true, self.src(ins, inner, Ty::Pred)?),
                    _ => (false, self.src(ins, &ops[1], Ty::Pred)?),
                };
                let mask = match ops.get(2) {
                    Some(o) => self.src(ins, o, Ty::B32)?,
                    None => Src::Imm(0xFFFF_FFFF),
                };
                self.emit(
                    ins,
                    OpKind::Vote { mode, negate_src },
                    vec![d],
                    vec![a, mask],
                    Unit::Control,
                    1,
                )
            }
            Match => {
                let ty = self.ty(ins, m, 0)?;
                let all = m.has(Kw::All);
                let ops = self.operands(ins, 3..=3)?;
                let dsts = match &ops[0].kind {
                    OperandKind::PredPair(d, p) => {
                        let (d, p) = (d.clone(), p.clone());
                        vec![self.reg_named(&d, ins)?, self.reg_named(&p, ins)?]
                    }
                    _ => vec![self.dst(&ops[0], Ty::B32)?],
                };
                let a = self.src(ins, &ops[1], ty)?;
                let mask = self.src(ins, &ops[2], Ty::B32)?;
                self.emit(
                    ins,
                    OpKind::Match { all, ty },
                    dsts,
                    vec![a, mask],
                    Unit::Control,
                    2,
                )
            }
            Redux => {
                let ty = self.ty(ins, m, 0)?;
                let op = m.atom_op().ok_or_else(|| {
                    error(
                        DiagnosticKind::Semantic,
                        ins.span,
                        "redux needs an operation",
                    )
                })?;
                // `redux.sync.{min,max}{.abs}{.NaN}.f32` (PTX ISA 8.6, sm_100a).
                let (abs, nan) = (m.has(Kw::Abs), m.has(Kw::NaN));
                let name = super::instr::instruction_name(ins, ins.opcode);
                if ty.is_float() && (ty != Ty::F32 || !matches!(op, AtomOp::Min | AtomOp::Max)) {
                    return Err(error(
                        DiagnosticKind::Semantic,
                        ins.span,
                        format!(
                            "`{name}`: floating-point `redux.sync` is `.min` or `.max` on `.f32`"
                        ),
                    ));
                }
                let f32_kw = |k: &Kw| matches!(k, Kw::Sync | Kw::Min | Kw::Max | Kw::Abs | Kw::NaN);
                if let Some(k) = m.kws.iter().find(|k| ty.is_float() && !f32_kw(k)) {
                    return Err(error(
                        DiagnosticKind::Semantic,
                        ins.span,
                        format!(
                            "`{name}`: `.{}` is not a modifier of `redux.sync` on `.f32`",
                            k.name()
                        ),
                    ));
                }
                if !ty.is_float() && (abs || nan) {
                    return Err(error(
                        DiagnosticKind::Semantic,
                        ins.span,
                        format!("`{name}`: `.abs` and `.NaN` are for `.f32` only"),
                    ));
                }
                let ops = self.operands(ins, 3..=3)?;
                let d = self.dst(&ops[0], ty)?;
                let a = self.src(ins, &ops[1], ty)?;
                let mask = self.src(ins, &ops[2], Ty::B32)?;
                self.emit(
                    ins,
                    OpKind::Redux { op, ty, abs, nan },
                    vec![d],
                    vec![a, mask],
                    Unit::Control,
                    1,
                )
            }
            Activemask => {
                let ops = self.operands(ins, 1..=1)?;
                let d = self.dst(&ops[0], Ty::B32)?;
                self.emit(ins, OpKind::Activemask, vec![d], vec![], Unit::Control, 1)
            }
            Bar | Barrier if m.has(Kw::Warp) => {
                let ops = self.operands(ins, 1..=1)?;
                let mask = self.src(ins, &ops[0], Ty::B32)?;
                self.emit(ins, OpKind::WarpSync, vec![], vec![mask], Unit::Control, 1)
            }
            Bar | Barrier => {
                if m.has(Kw::Cluster) {
                    return self.cluster_barrier(ins, m);
                }
                let kind = if m.has(Kw::Arrive) {
                    BarKind::Arrive
                } else if m.has(Kw::Red) {
                    if m.has(Kw::Popc) {
                        BarKind::RedPopc
                    } else if m.has(Kw::And) {
                        BarKind::RedAnd
                    } else {
                        BarKind::RedOr
                    }
                } else {
                    BarKind::Sync
                };
                let red = matches!(kind, BarKind::RedPopc | BarKind::RedAnd | BarKind::RedOr);
                let ops = &ins.operands;
                let (dsts, rest) = if red {
                    let dty = if kind == BarKind::RedPopc {
                        Ty::U32
                    } else {
                        Ty::Pred
                    };
                    let first = ops.first().ok_or_else(|| {
                        error(DiagnosticKind::Semantic, ins.span, "bar.red needs operands")
                    })?;
                    (vec![self.dst(first, dty)?], &ops[1..])
                } else {
                    (vec![], &ops[..])
                };
                let (id_ops, pred_op) = if red {
                    let n = rest.len();
                    if n < 2 {
                        return Err(error(
                            DiagnosticKind::Semantic,
                            ins.span,
                            "bar.red needs a barrier and a predicate",
                        ));
                    }
                    (&rest[..n - 1], Some(&rest[n - 1]))
                } else {
                    (rest, None)
                };
                if id_ops.is_empty() || id_ops.len() > 2 {
                    return Err(error(
                        DiagnosticKind::Semantic,
                        ins.span,
                        "a barrier takes a barrier number and an optional thread count",
                    ));
                }
                let mut srcs = Vec::new();
                for o in id_ops {
                    srcs.push(self.src(ins, o, Ty::U32)?);
                }
                let has_count = id_ops.len() == 2;
                let mut negate_pred = false;
                if let Some(p) = pred_op {
                    let v = match &p.kind {
                        OperandKind::Not(inner) => {
                            negate_pred = true;
                            self.src(ins, inner, Ty::Pred)?
                        }
                        _ => self.src(ins, p, Ty::Pred)?,
                    };
                    srcs.push(v);
                }
                let kind = OpKind::Bar {
                    kind,
                    has_count,
                    negate_pred,
                };
                self.emit(ins, kind, dsts, srcs, Unit::Barrier, 1)
            }
            Membar | Fence => self.emit(ins, OpKind::Fence, vec![], vec![], Unit::LsuGlobal, 1),
            // The sleep's length is only a hint: no operand to keep.
            Nanosleep => self.emit(ins, OpKind::Nanosleep, vec![], vec![], Unit::Control, 1),
            _ => self.emit(ins, OpKind::Nop, vec![], vec![], Unit::Control, 1),
        }
    }

    pub(super) fn reg_named(
        &mut self,
        name: &str,
        ins: &Instruction,
    ) -> Result<crate::ir::Reg, Diagnostic> {
        match self.lookup(name) {
            Some(Sym::Reg(r)) => Ok(r),
            _ if name == "_" => Ok(self.temp(Ty::Pred)),
            _ => Err(error(
                DiagnosticKind::Semantic,
                ins.span,
                format!("`{name}` is not a register"),
            )),
        }
    }

    /// `call{.uni} [(rets),] callee[, (args)][, prototype];`
    pub(crate) fn call(&mut self, ins: &Instruction) -> Result<(), Diagnostic> {
        let mut ops = ins.operands.iter().peekable();
        let rets: Vec<_> = match ops.peek().map(|o| &o.kind) {
            Some(OperandKind::List(items)) => {
                ops.next();
                items.clone()
            }
            _ => Vec::new(),
        };
        let callee_op = ops
            .next()
            .ok_or_else(|| error(DiagnosticKind::Semantic, ins.span, "call needs a callee"))?;
        let args: Vec<_> = match ops.peek().map(|o| &o.kind) {
            Some(OperandKind::List(items)) => {
                ops.next();
                items.clone()
            }
            _ => Vec::new(),
        };
        let proto = ops.next().and_then(|o| o.name().map(str::to_string));
        let callee_name = callee_op.name().unwrap_or_default().to_string();
        let (callee, params, returns) = match self.lookup(&callee_name) {
            Some(Sym::Reg(r)) => {
                let p = proto.ok_or_else(|| {
                    error(
                        DiagnosticKind::Semantic,
                        ins.span,
                        "indirect call needs a prototype",
                    )
                })?;
                let (params, returns) = self.prototypes.get(&p).cloned().ok_or_else(|| {
                    unsupported(
                        ins.span,
                        format_args!("indirect call through `{p}` (not a .callprototype)"),
                    )
                })?;
                let (params, returns) = frame_slots(&params, &returns);
                (Callee::Indirect(r), params, returns)
            }
            _ => match self.ctx.syms.get(&callee_name) {
                Some(ModuleSym::Func(f)) => {
                    let external = self.ctx_external(*f);
                    let callee = match callee_name.as_str() {
                        "vprintf" => Callee::Printf,
                        "__assertfail" => Callee::AssertFail,
                        "malloc" if external => Callee::Malloc,
                        "free" if external => Callee::Free,
                        _ if external => {
                            return Err(unsupported(
                                ins.span,
                                format_args!("call to external function `{callee_name}`"),
                            ));
                        }
                        _ => Callee::Direct(*f),
                    };
                    let (params, returns) = self.ctx.signatures[f].clone();
                    let shape_ok = match callee {
                        // `.extern .func (.param .b64 p) malloc (.param .b64 size)`
                        Callee::Malloc => {
                            params.len() == 1
                                && params[0].size == 8
                                && returns.len() == 1
                                && returns[0].size == 8
                        }
                        // `.extern .func free (.param .b64 p)`
                        Callee::Free => {
                            params.len() == 1 && params[0].size == 8 && returns.is_empty()
                        }
                        _ => true,
                    };
                    if !shape_ok {
                        return Err(error(
                            DiagnosticKind::Semantic,
                            ins.span,
                            format!("`{callee_name}` is declared with a signature other than the device runtime's"),
                        ));
                    }
                    (callee, params, returns)
                }
                _ => {
                    return Err(error(
                        DiagnosticKind::Semantic,
                        callee_op.span,
                        format!("`{callee_name}` is not a function"),
                    ))
                }
            },
        };
        if args.len() != params.len() || rets.len() != returns.len() {
            return Err(error(
                DiagnosticKind::Semantic,
                ins.span,
                format!(
                    "call passes {} arguments and {} results; `{callee_name}` takes {} and {}",
                    args.len(),
                    rets.len(),
                    params.len(),
                    returns.len()
                ),
            ));
        }
        let slot = |lw: &Self, o: &crate::front::ast::Operand| -> Result<u32, Diagnostic> {
            match o.name().and_then(|n| lw.lookup(n)) {
                Some(Sym::FrameParam(off)) => Ok(off),
                _ => Err(unsupported(
                    o.span,
                    "call arguments that are not `.param` variables",
                )),
            }
        };
        let arg_copies = args
            .iter()
            .zip(&params)
            .map(|(a, p)| Ok((slot(self, a)?, p.offset, p.size)))
            .collect::<Result<Vec<_>, Diagnostic>>()?;
        let ret_copies = rets
            .iter()
            .zip(&returns)
            .map(|(r, p)| Ok((p.offset, slot(self, r)?, p.size)))
            .collect::<Result<Vec<_>, Diagnostic>>()?;
        let cost = match callee {
            Callee::Printf | Callee::AssertFail => 1,
            _ => 2,
        };
        let _ = AtomOp::Add;
        self.emit(
            ins,
            OpKind::Call {
                callee,
                args: arg_copies,
                rets: ret_copies,
            },
            vec![],
            vec![],
            Unit::Control,
            cost,
        )
    }

    fn ctx_external(&self, f: crate::ir::FuncId) -> bool {
        self.ctx.external.contains(&f)
    }
}
