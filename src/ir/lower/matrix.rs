//! Warp-level matrix instructions (PTX ISA §9.7.14): `ldmatrix`, `stmatrix`
//! and `mma.sync`, lowered to warp-collective micro-ops on the tensor unit.
//! The fragment layouts are [`crate::sem::tensor`]'s.

use super::func::FnLower;
use super::mods::Mods;
use super::{error, unsupported};
use crate::front::ast::{Instruction, Kw, Modifier, Opcode, OperandKind, ScalarType, StateSpace};
use crate::front::{Diagnostic, DiagnosticKind};
use crate::ir::{OpKind, Ty, Unit};
use crate::sem::tensor::{mma_fragment_regs, MmaKind, MmaShape, MmaType};
use crate::sem::wmma::BitOp;

fn mma_type(t: ScalarType) -> Option<MmaType> {
    Some(match t {
        ScalarType::F16 => MmaType::F16,
        ScalarType::Bf16 => MmaType::Bf16,
        ScalarType::Tf32 => MmaType::Tf32,
        ScalarType::F32 => MmaType::F32,
        ScalarType::F64 => MmaType::F64,
        ScalarType::S8 => MmaType::S8,
        ScalarType::U8 => MmaType::U8,
        ScalarType::S4 => MmaType::S4,
        ScalarType::U4 => MmaType::U4,
        ScalarType::E4m3 => MmaType::E4m3,
        ScalarType::E5m2 => MmaType::E5m2,
        ScalarType::S32 => MmaType::S32,
        ScalarType::B1 => MmaType::B1,
        _ => return None,
    })
}

impl FnLower<'_> {
    pub(crate) fn matrix(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        let name = super::instr::instruction_name(ins, ins.opcode);
        let no = || unsupported(ins.span, format_args!("`{name}`"));
        match ins.opcode {
            Opcode::Ldmatrix | Opcode::Stmatrix => {
                let num = if m.has(Kw::X4) {
                    4
                } else if m.has(Kw::X2) {
                    2
                } else {
                    1
                };
                let shape_ok = ins
                    .modifiers
                    .iter()
                    .any(|md| matches!(md, Modifier::Shape { m: 8, n: 8, k: 0 }));
                if !shape_ok || m.types.first() != Some(&ScalarType::B16) {
                    return Err(no());
                }
                let trans = m.has(Kw::Trans);
                let space = match m.space {
                    None => None,
                    Some(StateSpace::Shared | StateSpace::SharedCta) => Some(StateSpace::Shared),
                    Some(_) => return Err(no()),
                };
                let ops = self.operands(ins, 2..=2)?;
                let (vec_op, addr_op) = if ins.opcode == Opcode::Ldmatrix {
                    (&ops[0], &ops[1])
                } else {
                    (&ops[1], &ops[0])
                };
                let items = match &vec_op.kind {
                    OperandKind::Vector(items) if items.len() == num as usize => items.clone(),
                    _ => {
                        return Err(error(
                            DiagnosticKind::Semantic,
                            vec_op.span,
                            format!("expected {{...}} with {num} registers"),
                        ))
                    }
                };
                let (space, base, offset) = self.address_of(ins, addr_op, space)?;
                if ins.opcode == Opcode::Ldmatrix {
                    let dsts = items
                        .iter()
                        .map(|o| self.dst(o, Ty::B32))
                        .collect::<Result<Vec<_>, _>>()?;
                    self.emit(
                        ins,
                        OpKind::Ldmatrix {
                            num,
                            trans,
                            space,
                            offset,
                        },
                        dsts,
                        vec![base],
                        Unit::LsuShared,
                        num as u16,
                    )
                } else {
                    let mut srcs = vec![base];
                    for o in &items {
                        srcs.push(self.src(ins, o, Ty::B32)?);
                    }
                    self.emit(
                        ins,
                        OpKind::Stmatrix {
                            num,
                            trans,
                            space,
                            offset,
                        },
                        vec![],
                        srcs,
                        Unit::LsuShared,
                        num as u16,
                    )
                }
            }
            _ => {
                let shape = ins.modifiers.iter().find_map(|md| match md {
                    Modifier::Shape { m, n, k } => Some(MmaShape {
                        m: *m,
                        n: *n,
                        k: *k,
                    }),
                    _ => None,
                });
                let (Some(shape), [d, a, b, c]) = (shape, m.types.as_slice()) else {
                    return Err(no());
                };
                let (Some(dtype), Some(atype), Some(btype), Some(ctype)) =
                    (mma_type(*d), mma_type(*a), mma_type(*b), mma_type(*c))
                else {
                    return Err(no());
                };
                let layouts: Vec<Kw> = m
                    .kws
                    .iter()
                    .copied()
                    .filter(|k| matches!(k, Kw::Row | Kw::Col))
                    .collect();
                let kind = MmaKind {
                    shape,
                    dtype,
                    atype,
                    btype,
                    ctype,
                    a_row: layouts.first() != Some(&Kw::Col),
                    b_col: layouts.get(1) != Some(&Kw::Row),
                    satfinite: m.has(Kw::Satfinite),
                    bit_op: if m.has(Kw::Xor) {
                        Some(BitOp::Xor)
                    } else if m.has(Kw::And) {
                        Some(BitOp::And)
                    } else {
                        None
                    },
                };
                // `.sp` (sparse A) and rounding other than to nearest are
                // not executed.
                let other_rounding = [Kw::Rz, Kw::Rm, Kw::Rp].iter().any(|k| m.has(*k));
                if m.has(Kw::Sp) || other_rounding || kind.bit_op.is_some() != m.has(Kw::Popc) {
                    return Err(no());
                }
                let regs = mma_fragment_regs(&kind).ok_or_else(no)?;
                let ops = self.operands(ins, 4..=4)?;
                let mut lists = Vec::new();
                for (k, o) in ops.iter().enumerate() {
                    let want = [regs[3], regs[0], regs[1], regs[2]][k];
                    match &o.kind {
                        OperandKind::Vector(items) if items.len() == want => {
                            lists.push(items.clone())
                        }
                        _ => {
                            return Err(error(
                                DiagnosticKind::Semantic,
                                o.span,
                                format!("expected {{...}} with {want} registers"),
                            ))
                        }
                    }
                }
                let wide = |t: MmaType| if t == MmaType::F64 { Ty::B64 } else { Ty::B32 };
                let dsts = lists[0]
                    .iter()
                    .map(|o| self.dst(o, wide(dtype)))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut srcs = Vec::new();
                for (list, t) in lists[1..].iter().zip([atype, btype, ctype]) {
                    for o in list {
                        srcs.push(self.src(ins, o, wide(t))?);
                    }
                }
                let regs8 = [regs[0] as u8, regs[1] as u8, regs[2] as u8, regs[3] as u8];
                // Issue slots on the tensor unit: k/8 for the f16/bf16/tf32
                // forms; the others by the bits of a row of A (128 per slot).
                let cost = if crate::sem::mma_forms::regs(&kind).is_some() {
                    (shape.k as u32 * crate::sem::mma_forms::elem_bits(atype) / 128).max(1) as u16
                } else {
                    (shape.k / 8).max(1)
                };
                self.emit(
                    ins,
                    OpKind::Mma { kind, regs: regs8 },
                    dsts,
                    srcs,
                    Unit::Tensor,
                    cost,
                )
            }
        }
    }
}

impl FnLower<'_> {
    /// `wgmma.fence`, `wgmma.commit_group`, `wgmma.wait_group` (no-ops: each
    /// `wgmma` completes at issue) and `wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}`
    /// with both operands in shared memory.
    pub(crate) fn wgmma(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        use crate::sem::wgmma::{WgmmaInput, WgmmaKind};
        let name = super::instr::instruction_name(ins, ins.opcode);
        let no = || unsupported(ins.span, format_args!("`{name}`"));
        if !m.has(Kw::MmaAsync) {
            if m.has(Kw::Fence) || m.has(Kw::CommitGroup) || m.has(Kw::WaitGroup) {
                return self.emit(ins, OpKind::Nop, vec![], vec![], Unit::Tensor, 1);
            }
            return Err(no());
        }
        let n = match ins.modifiers.iter().find_map(|md| match md {
            Modifier::Shape { m: 64, n, k: 16 } => Some(*n),
            _ => None,
        }) {
            Some(n) if WgmmaKind::valid_n(n) => n,
            _ => return Err(no()),
        };
        let input = match m.types.as_slice() {
            [ScalarType::F32, ScalarType::F16, ScalarType::F16] => WgmmaInput::F16,
            [ScalarType::F32, ScalarType::Bf16, ScalarType::Bf16] => WgmmaInput::Bf16,
            _ => return Err(no()),
        };
        if m.has(Kw::Sp) {
            return Err(no());
        }
        let ops = self.operands(ins, 8..=8)?;
        let imm = |k: usize| match &ops[k].kind {
            OperandKind::Imm(crate::front::ast::Imm::Int(v)) => Ok(*v),
            _ => Err(error(
                DiagnosticKind::Semantic,
                ops[k].span,
                "expected an immediate",
            )),
        };
        let kind = WgmmaKind {
            n,
            input,
            negate_a: imm(4)? == -1,
            negate_b: imm(5)? == -1,
            trans_a: imm(6)? != 0,
            trans_b: imm(7)? != 0,
        };
        let items = match &ops[0].kind {
            OperandKind::Vector(items) if items.len() == kind.acc_regs() => items.clone(),
            _ => {
                let want = kind.acc_regs();
                return Err(error(
                    DiagnosticKind::Semantic,
                    ops[0].span,
                    format!("expected {{...}} with {want} registers"),
                ));
            }
        };
        if matches!(ops[1].kind, OperandKind::Vector(_)) {
            return Err(unsupported(
                ops[1].span,
                "wgmma with the A operand in registers",
            ));
        }
        let dsts = items
            .iter()
            .map(|o| self.dst(o, Ty::B32))
            .collect::<Result<Vec<_>, _>>()?;
        let mut srcs = vec![
            self.src(ins, &ops[1], Ty::B64)?,
            self.src(ins, &ops[2], Ty::B64)?,
            self.pred_src(ins, &ops[3])?,
        ];
        for o in &items {
            srcs.push(self.src(ins, o, Ty::B32)?);
        }
        self.emit(
            ins,
            OpKind::Wgmma { kind },
            dsts,
            srcs,
            Unit::Tensor,
            (n / 8).max(1),
        )
    }
}
