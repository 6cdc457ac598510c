//! The thread's stack (PTX ISA 7.3, sm_52: §9.7.17.1 `stacksave`,
//! §9.7.17.2 `stackrestore`, §9.7.17.3 `alloca`), what LLVM's NVPTX back end
//! emits for variable-length arrays and `__builtin_alloca`: each becomes
//! one [`OpKind::Stack`] op, which both engines run in the interpreter
//! (`interp::exec`, as the other ops that touch the warp's frames).

use super::func::FnLower;
use super::mods::Mods;
use super::{error, instr::instruction_name};
use crate::front::ast::{Imm, Instruction, Opcode, OperandKind, ScalarType};
use crate::front::{Diagnostic, DiagnosticKind};
use crate::ir::{OpKind, Src, StackOp, Ty, Unit};

/// The largest `immAlign` ptxas takes.
const MAX_ALIGN: i64 = 1 << 23;
/// The alignment `alloca` guarantees whatever `immAlign` says.
const MIN_ALIGN: u32 = 8;

impl FnLower<'_> {
    pub(crate) fn stack(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        let name = instruction_name(ins, ins.opcode);
        let bad = |msg: String| error(DiagnosticKind::Semantic, ins.span, msg);
        let ty = match (m.types.as_slice(), m.kws.is_empty() && m.space.is_none()) {
            ([ScalarType::U32], true) => Ty::U32,
            ([ScalarType::U64], true) => Ty::U64,
            _ => {
                let op = ins.opcode.name();
                return Err(bad(format!(
                    "`{name}`: the form is `{op}.u32` or `{op}.u64`"
                )));
            }
        };
        match ins.opcode {
            Opcode::Alloca => {
                let ops = self.operands(ins, 2..=3)?;
                let align = match ops.get(2).map(|o| &o.kind) {
                    None => MIN_ALIGN,
                    Some(OperandKind::Imm(Imm::Int(a)))
                        if *a > 0 && *a <= MAX_ALIGN && a.count_ones() == 1 =>
                    {
                        (*a as u32).max(MIN_ALIGN)
                    }
                    Some(_) => {
                        return Err(error(
                            DiagnosticKind::Semantic,
                            ops[2].span,
                            format!(
                                "`{name}`: the alignment is an immediate power of two up to 2^23"
                            ),
                        ))
                    }
                };
                let ptr = self.dst(&ops[0], ty)?;
                let size = self.src(ins, &ops[1], ty)?;
                let kind = OpKind::Stack {
                    op: StackOp::Alloca { align },
                    ty,
                };
                self.emit(ins, kind, vec![ptr], vec![size], Unit::Int, 2)
            }
            Opcode::Stacksave => {
                let ops = self.operands(ins, 1..=1)?;
                let d = self.dst(&ops[0], ty)?;
                let kind = OpKind::Stack {
                    op: StackOp::Save,
                    ty,
                };
                self.emit(ins, kind, vec![d], vec![], Unit::Int, 1)
            }
            _ => {
                let ops = self.operands(ins, 1..=1)?;
                let a = self.src(ins, &ops[0], ty)?;
                if !matches!(a, Src::Reg(_)) {
                    return Err(error(
                        DiagnosticKind::Semantic,
                        ops[0].span,
                        format!("`{name}` takes a register (a value of `stacksave`)"),
                    ));
                }
                let kind = OpKind::Stack {
                    op: StackOp::Restore,
                    ty,
                };
                self.emit(ins, kind, vec![], vec![a], Unit::Int, 1)
            }
        }
    }
}
