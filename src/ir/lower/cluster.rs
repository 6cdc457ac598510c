//! Lowering of the thread-block cluster instructions (sm_90): `mapa`
//! (PTX ISA §9.7.9.21), `getctarank` (§9.7.9.22), `barrier.cluster`
//! (§9.7.13.2) and `elect.sync` (§9.7.13.11). How a `.shared::cluster`
//! address names a CTA of the cluster is `interp::cluster`'s; accesses of
//! `.shared::cluster` memory become generic ones (`mem.rs`).

use super::func::FnLower;
use super::mods::Mods;
use super::{error, unsupported};
use crate::front::ast::{Instruction, Kw, Opcode, OperandKind, ScalarType, StateSpace};
use crate::front::{Diagnostic, DiagnosticKind};
use crate::ir::{OpKind, Ty, Unit};

impl FnLower<'_> {
    /// `mapa`, `getctarank` and `elect`.
    pub(super) fn cluster(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        let name = super::instr::instruction_name(ins, ins.opcode);
        match ins.opcode {
            Opcode::Mapa | Opcode::Getctarank => {
                let generic = match m.space {
                    None => true,
                    Some(StateSpace::SharedCluster) => false,
                    Some(s) => {
                        return Err(unsupported(ins.span, format_args!("`{name}` of `.{s}`")))
                    }
                };
                let ty = match m.types.as_slice() {
                    [ScalarType::U32] if !generic => Ty::U32,
                    [ScalarType::U64] => Ty::U64,
                    _ => {
                        return Err(error(
                            DiagnosticKind::Semantic,
                            ins.span,
                            format!(
                                "`{name}` needs the type `.u64`{}",
                                if generic { "" } else { " or `.u32`" }
                            ),
                        ))
                    }
                };
                if ins.opcode == Opcode::Mapa {
                    let ops = self.operands(ins, 3..=3)?;
                    let d = self.dst(&ops[0], ty)?;
                    let a = self.src(ins, &ops[1], ty)?;
                    let rank = self.src(ins, &ops[2], Ty::U32)?;
                    let kind = OpKind::Mapa { generic };
                    self.emit(ins, kind, vec![d], vec![a, rank], Unit::Int, 1)
                } else {
                    let ops = self.operands(ins, 2..=2)?;
                    let d = self.dst(&ops[0], Ty::U32)?;
                    let a = self.src(ins, &ops[1], ty)?;
                    let kind = OpKind::Getctarank { generic };
                    self.emit(ins, kind, vec![d], vec![a], Unit::Int, 1)
                }
            }
            Opcode::Elect => {
                if !m.has(Kw::Sync) {
                    return Err(error(
                        DiagnosticKind::Semantic,
                        ins.span,
                        "`elect` needs `.sync`",
                    ));
                }
                let ops = self.operands(ins, 2..=2)?;
                let (d, p) = match &ops[0].kind {
                    OperandKind::PredPair(d, p) => (d.clone(), p.clone()),
                    _ => {
                        return Err(error(
                            DiagnosticKind::Semantic,
                            ins.span,
                            "`elect.sync` needs `d|p` (either may be `_`)",
                        ))
                    }
                };
                let d = self.named_or_sink(&d, Ty::U32, ins)?;
                let p = self.named_or_sink(&p, Ty::Pred, ins)?;
                let mask = self.src(ins, &ops[1], Ty::B32)?;
                self.emit(ins, OpKind::Elect, vec![d, p], vec![mask], Unit::Control, 1)
            }
            _ => Err(unsupported(ins.span, format_args!("`{name}`"))),
        }
    }

    /// `barrier.cluster.arrive{.release,.relaxed}{.aligned}` and
    /// `barrier.cluster.wait{.acquire}{.aligned}`: no operands.
    pub(super) fn cluster_barrier(
        &mut self,
        ins: &Instruction,
        m: &Mods,
    ) -> Result<(), Diagnostic> {
        let wait = match (m.has(Kw::Arrive), m.has(Kw::Wait)) {
            (true, false) => false,
            (false, true) => true,
            _ => {
                return Err(error(
                    DiagnosticKind::Semantic,
                    ins.span,
                    "`barrier.cluster` needs `.arrive` or `.wait`",
                ))
            }
        };
        let allowed = |k: &Kw| match k {
            Kw::Cluster | Kw::Arrive | Kw::Wait | Kw::Aligned => true,
            Kw::Relaxed | Kw::Release => !wait,
            Kw::Acquire => wait,
            _ => false,
        };
        if let Some(k) = m.kws.iter().find(|k| !allowed(k)) {
            return Err(unsupported(
                ins.span,
                format_args!("`barrier.cluster` with `.{}`", k.name()),
            ));
        }
        if !ins.operands.is_empty() {
            return Err(error(
                DiagnosticKind::Semantic,
                ins.span,
                "`barrier.cluster` takes no operands",
            ));
        }
        let kind = OpKind::ClusterBar { wait };
        self.emit(ins, kind, vec![], vec![], Unit::Barrier, 1)
    }

    /// A register named in `d|p`, or a fresh temporary for `_`.
    fn named_or_sink(
        &mut self,
        name: &str,
        ty: Ty,
        ins: &Instruction,
    ) -> Result<crate::ir::Reg, Diagnostic> {
        if name == "_" {
            return Ok(self.temp(ty));
        }
        self.reg_named(name, ins)
    }
}
