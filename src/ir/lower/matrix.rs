//! Warp-level matrix instructions (PTX ISA §9.7.14): `ldmatrix`, `stmatrix`
//! and `mma.sync`, lowered to warp-collective micro-ops on the tensor unit.
//! The fragment layouts are [`crate::sem::tensor`]'s.

use super::func::FnLower;
use super::mods::Mods;
use super::{error, unsupported};
use crate::front::ast::{Instruction, Kw, Modifier, Opcode, OperandKind, ScalarType, StateSpace};
use crate::front::{Diagnostic, DiagnosticKind};
use crate::ir::{OpKind, Rounding, Ty, Unit};
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
            Opcode::Movmatrix => {
                let shape_ok = ins
                    .modifiers
                    .iter()
                    .any(|md| matches!(md, Modifier::Shape { m: 8, n: 8, k: 0 }));
                if !shape_ok || !m.has(Kw::Trans) || m.types.as_slice() != [ScalarType::B16] {
                    return Err(no());
                }
                let ops = self.operands(ins, 2..=2)?;
                let d = self.dst(&ops[0], Ty::B32)?;
                let a = self.src(ins, &ops[1], Ty::B32)?;
                self.emit(ins, OpKind::Movmatrix, vec![d], vec![a], Unit::Tensor, 1)
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
                    // `.rz .rm .rp`: the f64 forms only (the others' regs
                    // are `None` with them).
                    rounding: match m.rounding() {
                        Some(r @ (Rounding::Rz | Rounding::Rm | Rounding::Rp)) => r,
                        _ => Rounding::Rn,
                    },
                };
                // `.sp` (sparse A) is not executed.
                if m.has(Kw::Sp) || kind.bit_op.is_some() != m.has(Kw::Popc) {
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
    /// `wgmma` completes at issue) and `wgmma.mma_async.sync.aligned.m64nNkK`
    /// for the types [`crate::sem::wgmma`] executes, A in shared memory or in
    /// registers. Operands: `d, a, b-desc, scale-d`, then `imm-scale-a,
    /// imm-scale-b` (floating-point types), then `imm-trans-a` (A in shared
    /// memory) and `imm-trans-b` (16-bit types).
    pub(crate) fn wgmma(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        use crate::sem::wgmma::{WgmmaAcc, WgmmaInput, WgmmaKind};
        let name = super::instr::instruction_name(ins, ins.opcode);
        let no = || unsupported(ins.span, format_args!("`{name}`"));
        if !m.has(Kw::MmaAsync) {
            if m.has(Kw::Fence) || m.has(Kw::CommitGroup) || m.has(Kw::WaitGroup) {
                return self.emit(ins, OpKind::Nop, vec![], vec![], Unit::Tensor, 1);
            }
            return Err(no());
        }
        if m.has(Kw::Sp) {
            return Err(unsupported(ins.span, "sparse `wgmma` (`.sp`)"));
        }
        let input = |t: &ScalarType| {
            Some(match t {
                ScalarType::F16 => WgmmaInput::F16,
                ScalarType::Bf16 => WgmmaInput::Bf16,
                ScalarType::Tf32 => WgmmaInput::Tf32,
                ScalarType::E4m3 => WgmmaInput::E4m3,
                ScalarType::E5m2 => WgmmaInput::E5m2,
                ScalarType::S8 => WgmmaInput::S8,
                ScalarType::U8 => WgmmaInput::U8,
                _ => return None,
            })
        };
        let (dtype, atype, btype) = match m.types.as_slice() {
            [d, a, b] => {
                let dtype = match d {
                    ScalarType::F32 => WgmmaAcc::F32,
                    ScalarType::F16 => WgmmaAcc::F16,
                    ScalarType::S32 => WgmmaAcc::S32,
                    _ => return Err(no()),
                };
                match (input(a), input(b)) {
                    (Some(a), Some(b)) => (dtype, a, b),
                    _ => return Err(no()),
                }
            }
            _ => return Err(no()),
        };
        let want_k = 32 / atype.bytes() as u16;
        let n = match ins.modifiers.iter().find_map(|md| match md {
            Modifier::Shape { m: 64, n, k } if *k == want_k => Some(*n),
            _ => None,
        }) {
            Some(n) if WgmmaKind::valid_n(n) => n,
            _ => return Err(no()),
        };
        let a_in_regs = ins
            .operands
            .get(1)
            .is_some_and(|o| matches!(o.kind, OperandKind::Vector(_)));
        let sixteen = atype.bytes() == 2;
        let count = if atype.is_int() {
            4
        } else if !sixteen {
            6
        } else if a_in_regs {
            7
        } else {
            8
        };
        let ops = self.operands(ins, count..=count)?;
        let imm = |k: usize| match ops.get(k).map(|o| &o.kind) {
            None => Ok(0),
            Some(OperandKind::Imm(crate::front::ast::Imm::Int(v))) => Ok(*v),
            Some(_) => Err(error(
                DiagnosticKind::Semantic,
                ops[k].span,
                "expected an immediate",
            )),
        };
        let kind = WgmmaKind {
            n,
            atype,
            btype,
            dtype,
            a_in_regs,
            satfinite: m.has(Kw::Satfinite),
            negate_a: count > 4 && imm(4)? == -1,
            negate_b: count > 4 && imm(5)? == -1,
            trans_a: sixteen && !a_in_regs && imm(6)? != 0,
            trans_b: sixteen && imm(count - 1)? != 0,
        };
        if !kind.valid_types() || (kind.satfinite && !atype.is_int()) {
            return Err(no());
        }
        let vector = |k: usize, want: usize| match &ops[k].kind {
            OperandKind::Vector(items) if items.len() == want => Ok(items.clone()),
            _ => Err(error(
                DiagnosticKind::Semantic,
                ops[k].span,
                format!("expected {{...}} with {want} registers"),
            )),
        };
        let items = vector(0, kind.acc_regs())?;
        let dsts = items
            .iter()
            .map(|o| self.dst(o, Ty::B32))
            .collect::<Result<Vec<_>, _>>()?;
        let mut srcs = Vec::new();
        if a_in_regs {
            for o in &vector(1, 4)? {
                srcs.push(self.src(ins, o, Ty::B32)?);
            }
        } else {
            srcs.push(self.src(ins, &ops[1], Ty::B64)?);
        }
        srcs.push(self.src(ins, &ops[2], Ty::B64)?);
        srcs.push(self.pred_src(ins, &ops[3])?);
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
