//! `lop3` (PTX ISA §9.7.8.6): the three-input logic operation of an 8-bit
//! truth table, and its predicate form (PTX ISA 8.2).

use super::func::FnLower;
use super::mods::Mods;
use super::{error, unsupported};
use crate::front::ast::{Imm, Instruction, OperandKind};
use crate::front::{Diagnostic, DiagnosticKind};
use crate::ir::{BoolOp, CmpOp, IntTernOp, OpKind, Src, Ty, Unit};

impl FnLower<'_> {
    /// `lop3.b32 d, a, b, c, immLut` and, from PTX ISA 8.2, its predicate
    /// form `lop3.BoolOp.b32 d|p, a, b, c, immLut, q` with `.BoolOp` `.or`
    /// or `.and` (§9.7.8.6): `d = F(a, b, c)`, `p = (d != 0) BoolOp q`.
    /// `d` may be `_`, `p` may not (ptxas: "Predicate output expected").
    /// The predicate form is two micro-ops, the `lop3` and a `setp.ne`
    /// of its result combined with `q`; SASS does both in one `LOP3.LUT`.
    pub(super) fn lop3(&mut self, ins: &Instruction, m: &Mods, ty: Ty) -> Result<(), Diagnostic> {
        let combine = match m.bool_op() {
            None => None,
            Some(op @ (BoolOp::And | BoolOp::Or)) => Some(op),
            Some(BoolOp::Xor) => {
                return Err(error(
                    DiagnosticKind::Semantic,
                    ins.span,
                    "`lop3.xor`: the predicate form combines with `.or` or `.and`",
                ))
            }
        };
        let n = if combine.is_some() { 6 } else { 5 };
        let ops = self.operands(ins, n..=n)?;
        let lut = match &ops[4].kind {
            OperandKind::Imm(Imm::Int(v)) => *v as u8,
            _ => return Err(unsupported(ops[4].span, "a non-immediate lop3 truth table")),
        };
        let (d, p) = match (&ops[0].kind, combine) {
            (OperandKind::PredPair(d, p), Some(_)) if p != "_" => {
                let (d, p) = (d.clone(), p.clone());
                let d = if d == "_" {
                    self.temp(ty)
                } else {
                    self.reg_named(&d, ins)?
                };
                (d, Some(self.reg_named(&p, ins)?))
            }
            (OperandKind::PredPair(..), None) => {
                return Err(error(
                    DiagnosticKind::Semantic,
                    ops[0].span,
                    "`lop3` with a predicate output `d|p` needs `.or` or `.and`",
                ))
            }
            (_, Some(op)) => {
                return Err(error(
                    DiagnosticKind::Semantic,
                    ops[0].span,
                    format!(
                        "`lop3.{}` needs a predicate output `d|p` (`d` may be `_`)",
                        if op == BoolOp::And { "and" } else { "or" }
                    ),
                ))
            }
            (_, None) => (self.dst(&ops[0], ty)?, None),
        };
        let srcs = ops[1..4]
            .iter()
            .map(|o| self.src(ins, o, ty))
            .collect::<Result<Vec<_>, _>>()?;
        let kind = OpKind::IntTern {
            op: IntTernOp::Lop3(lut),
            ty,
        };
        self.emit(ins, kind, vec![d], srcs, Unit::Int, 1)?;
        let (Some(p), Some(combine)) = (p, combine) else {
            return Ok(());
        };
        let q = self.pred_src(ins, &ops[5])?;
        let kind = OpKind::Setp {
            cmp: CmpOp::Ne,
            ty: Ty::U32,
            ftz: false,
            combine: Some(combine),
        };
        let srcs = vec![Src::Reg(d), Src::Imm(0), q];
        self.emit(ins, kind, vec![p], srcs, Unit::Int, 1)
    }
}
