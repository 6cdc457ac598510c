//! Lowering of the `mbarrier` family (PTX ISA §9.7.13.15) and of
//! `cp.async.mbarrier.arrive` (§9.7.9.25.3.3) to `OpKind::Mbarrier`.
//!
//! Every form addresses an object in the CTA's shared memory (`.shared`,
//! `.shared::cta`, or a generic address that must point there); the
//! arrivals and transaction counts (`arrive`, `arrive_drop`, `expect_tx`,
//! `complete_tx`) also take `.shared::cluster` addresses, an object in
//! another CTA of the cluster (`interp::cluster`). Memory-ordering
//! qualifiers (`.release`, `.acquire`, `.relaxed`, `.cta`, `.cluster`) need
//! nothing: the engines are sequentially consistent.

use super::func::FnLower;
use super::mods::Mods;
use super::{error, unsupported};
use crate::front::ast::{Instruction, Kw, ScalarType, StateSpace};
use crate::front::{Diagnostic, DiagnosticKind};
use crate::ir::{OpKind, Space, Src, Ty, Unit};
use crate::sem::mbarrier::MbarrierOp;

impl FnLower<'_> {
    /// `mbarrier.{init,inval,expect_tx,complete_tx,arrive,arrive_drop,
    /// test_wait,try_wait,pending_count}`.
    pub(super) fn mbarrier(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        let name = super::instr::instruction_name(ins, ins.opcode);
        if m.types.as_slice() != [ScalarType::B64] {
            return Err(error(
                DiagnosticKind::Semantic,
                ins.span,
                format!("`{name}` needs the type `.b64`"),
            ));
        }
        let arrive = m.has(Kw::Arrive) || m.has(Kw::ArriveDrop);
        let op = if arrive {
            MbarrierOp::Arrive {
                drop: m.has(Kw::ArriveDrop),
                no_complete: m.has(Kw::NoComplete),
                expect_tx: m.has(Kw::ExpectTx),
            }
        } else if m.has(Kw::Init) {
            MbarrierOp::Init
        } else if m.has(Kw::Inval) {
            MbarrierOp::Inval
        } else if m.has(Kw::ExpectTx) {
            MbarrierOp::ExpectTx
        } else if m.has(Kw::CompleteTx) {
            MbarrierOp::CompleteTx
        } else if m.has(Kw::TestWait) || m.has(Kw::TryWait) {
            MbarrierOp::Wait {
                parity: m.has(Kw::Parity),
                try_wait: m.has(Kw::TryWait),
            }
        } else if m.has(Kw::PendingCount) {
            MbarrierOp::PendingCount
        } else {
            return Err(unsupported(ins.span, format_args!("`{name}`")));
        };
        if op == MbarrierOp::PendingCount {
            let ops = self.operands(ins, 2..=2)?;
            let d = self.dst(&ops[0], Ty::U32)?;
            let state = self.src(ins, &ops[1], Ty::B64)?;
            return self.emit_mbarrier(ins, op, (Space::Shared, 0), vec![d], vec![state]);
        }
        let (n_min, n_max, addr_at) = match op {
            MbarrierOp::Init | MbarrierOp::ExpectTx | MbarrierOp::CompleteTx => (2, 2, 0),
            MbarrierOp::Inval => (1, 1, 0),
            MbarrierOp::Arrive {
                no_complete,
                expect_tx,
                ..
            } => {
                let n = if no_complete || expect_tx { 3 } else { 2 };
                (n, 3, 1)
            }
            // `waitComplete, [addr], state|phaseParity {, suspendTimeHint}`.
            MbarrierOp::Wait { try_wait, .. } => (3, if try_wait { 4 } else { 3 }, 1),
            _ => unreachable!(),
        };
        let ops = self.operands(ins, n_min..=n_max)?;
        let remote = matches!(
            op,
            MbarrierOp::Arrive { .. } | MbarrierOp::ExpectTx | MbarrierOp::CompleteTx
        );
        let space = match m.space {
            Some(StateSpace::SharedCluster) if remote => m.space,
            _ => self.mbarrier_space(ins, m)?,
        };
        let (space, addr, offset) = self.address_of(ins, &ops[addr_at], space)?;
        let u32_src = |l: &mut Self, i: usize| l.src(ins, &ops[i], Ty::U32);
        let (dsts, srcs) = match op {
            MbarrierOp::Init | MbarrierOp::ExpectTx | MbarrierOp::CompleteTx => {
                (vec![], vec![addr, u32_src(self, 1)?])
            }
            MbarrierOp::Inval => (vec![], vec![addr]),
            MbarrierOp::Arrive { expect_tx, .. } => {
                let state = self.dst(&ops[0], Ty::B64)?;
                let (count, tx) = match (expect_tx, ops.get(2)) {
                    (true, Some(_)) => (Src::Imm(1), u32_src(self, 2)?),
                    (false, Some(_)) => (u32_src(self, 2)?, Src::Imm(0)),
                    (_, None) => (Src::Imm(1), Src::Imm(0)),
                };
                (vec![state], vec![addr, count, tx])
            }
            MbarrierOp::Wait { parity, .. } => {
                let done = self.dst(&ops[0], Ty::Pred)?;
                let phase = if parity {
                    u32_src(self, 2)?
                } else {
                    self.src(ins, &ops[2], Ty::B64)?
                };
                // The suspend-time hint only bounds how long hardware may
                // sleep; it has no effect on the answer.
                if let Some(hint) = ops.get(3) {
                    u32_src(self, 3).map_err(|_| {
                        error(
                            DiagnosticKind::Semantic,
                            hint.span,
                            "try_wait's suspend-time hint is a .u32 value",
                        )
                    })?;
                }
                (vec![done], vec![addr, phase])
            }
            _ => unreachable!(),
        };
        self.emit_mbarrier(ins, op, (space, offset), dsts, srcs)
    }

    /// `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]`.
    pub(super) fn cp_async_mbarrier_arrive(
        &mut self,
        ins: &Instruction,
        m: &Mods,
    ) -> Result<(), Diagnostic> {
        let ops = self.operands(ins, 1..=1)?;
        let space = self.mbarrier_space(ins, m)?;
        let (space, addr, offset) = self.address_of(ins, &ops[0], space)?;
        let op = MbarrierOp::CpAsyncArrive {
            noinc: m.has(Kw::Noinc),
        };
        self.emit_mbarrier(ins, op, (space, offset), vec![], vec![addr])
    }

    /// The state space of an mbarrier operand: shared (`.shared`,
    /// `.shared::cta`) or generic (none).
    fn mbarrier_space(
        &self,
        ins: &Instruction,
        m: &Mods,
    ) -> Result<Option<StateSpace>, Diagnostic> {
        match m.space {
            None | Some(StateSpace::Shared | StateSpace::SharedCta) => Ok(m.space),
            Some(StateSpace::SharedCluster) => Err(unsupported(
                ins.span,
                "this mbarrier operation on `.shared::cluster` (only arrivals and transaction counts reach another CTA)",
            )),
            Some(s) => Err(error(
                DiagnosticKind::Semantic,
                ins.span,
                format!("an mbarrier object lives in shared memory, not `.{s}`"),
            )),
        }
    }

    fn emit_mbarrier(
        &mut self,
        ins: &Instruction,
        op: MbarrierOp,
        (space, offset): (Space, i64),
        dsts: Vec<crate::ir::Reg>,
        srcs: Vec<Src>,
    ) -> Result<(), Diagnostic> {
        let kind = OpKind::Mbarrier { op, space, offset };
        self.emit(ins, kind, dsts, srcs, Unit::LsuShared, 1)
    }
}
