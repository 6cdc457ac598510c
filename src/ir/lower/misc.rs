//! Instructions with no effect on values here, and families recognised
//! without modelling their operands (refused at their line with the
//! reason): the Hopper hints (`setmaxnreg`, `griddepcontrol`,
//! `createpolicy`), Blackwell's `tcgen05`, `clusterlaunchcontrol` and
//! `st.bulk`, and multi-GPU `multimem`.

use super::func::FnLower;
use super::{error, unsupported};
use crate::front::ast::{Instruction, Opcode, OperandKind};
use crate::front::{Diagnostic, DiagnosticKind};
use crate::ir::{OpKind, Ty, Unit};

impl FnLower<'_> {
    pub(crate) fn hints_and_refusals(&mut self, ins: &Instruction) -> Result<(), Diagnostic> {
        use Opcode::*;
        match ins.opcode {
        Tcgen05 | Clusterlaunchcontrol => Err(unsupported(
            ins.span,
            format_args!(
                "`{}`: Blackwell-only (sm_100a and later), not executed",
                ins.opcode.name()
            ),
        )),
        St => Err(unsupported(
            ins.span,
            "`st.bulk`: Blackwell-only (sm_100 and later), not executed",
        )),
        // `setmaxnreg` (sm_90a) hints the register file's split between
        // warpgroups; `griddepcontrol` (sm_90) lets a dependent grid
        // start early or waits for the grids this one depends on, all
        // of which have finished when a launch starts here.
        Setmaxnreg => {
            let ops = self.operands(ins, 1..=1)?;
            match &ops[0].kind {
                OperandKind::Imm(crate::front::ast::Imm::Int(n))
                    if (24..=256).contains(n) && n % 8 == 0 => {}
                _ => {
                    return Err(error(
                        DiagnosticKind::Semantic,
                        ops[0].span,
                        "setmaxnreg takes an immediate register count in 24..=256, a multiple of 8",
                    ))
                }
            }
            self.emit(ins, OpKind::Nop, vec![], vec![], Unit::Int, 1)
        }
        // `createpolicy` makes an L2 cache policy that `.L2::cache_hint`
        // accesses take as an operand; caching has no architectural
        // effect here, so the policy is an opaque 0.
        Createpolicy => {
            let ops = self.operands(ins, 1..=4)?;
            let d = self.dst(&ops[0], Ty::U64)?;
            self.emit(
                ins,
                OpKind::Mov,
                vec![d],
                vec![crate::ir::Src::Imm(0)],
                Unit::Int,
                1,
            )
        }
        Griddepcontrol => {
            self.operands(ins, 0..=0)?;
            self.emit(ins, OpKind::Nop, vec![], vec![], Unit::Int, 1)
        }
        Multimem => Err(unsupported(
            ins.span,
            "`multimem`: multicast memory shared by several GPUs (warpjit has one device), not executed",
        )),
            op => unreachable!("{op:?} is not a hint or a refused family"),
        }
    }
}
