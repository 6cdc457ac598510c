//! The legacy warp-level matrix instructions `wmma.load`, `wmma.store` and
//! `wmma.mma` (PTX ISA §9.7.14.4), lowered to warp-collective micro-ops.
//! Shapes, types and register counts are checked against the ISA's table
//! ([`crate::sem::wmma`]); anything else fails at load naming the
//! instruction.

use super::func::FnLower;
use super::mem::lsu_unit;
use super::mods::Mods;
use super::{error, unsupported};
use crate::front::ast::{Instruction, Kw, Modifier, Operand, OperandKind, ScalarType, StateSpace};
use crate::front::{Diagnostic, DiagnosticKind};
use crate::ir::{OpKind, Rounding, Src, Ty, Unit};
use crate::sem::tensor::MmaShape;
use crate::sem::wmma::{BitOp, WmmaFrag, WmmaKind, WmmaMatrix, WmmaType};

fn wmma_type(t: ScalarType) -> Option<WmmaType> {
    Some(match t {
        ScalarType::F16 => WmmaType::F16,
        ScalarType::Bf16 => WmmaType::Bf16,
        ScalarType::Tf32 => WmmaType::Tf32,
        ScalarType::F32 => WmmaType::F32,
        ScalarType::F64 => WmmaType::F64,
        ScalarType::S8 => WmmaType::S8,
        ScalarType::U8 => WmmaType::U8,
        ScalarType::S4 => WmmaType::S4,
        ScalarType::U4 => WmmaType::U4,
        ScalarType::B1 => WmmaType::B1,
        ScalarType::S32 => WmmaType::S32,
        _ => return None,
    })
}

/// A fragment register's IR type: f64 elements take 64-bit registers.
fn reg_ty(t: WmmaType) -> Ty {
    if t == WmmaType::F64 {
        Ty::B64
    } else {
        Ty::B32
    }
}

/// The registers of a fragment operand `{...}` (a lone register for a
/// one-register fragment), checking their number.
fn fragment(op: &Operand, want: usize) -> Result<Vec<Operand>, Diagnostic> {
    match &op.kind {
        OperandKind::Vector(items) if items.len() == want => Ok(items.clone()),
        OperandKind::Name { .. } if want == 1 => Ok(vec![op.clone()]),
        _ => Err(error(
            DiagnosticKind::Semantic,
            op.span,
            format!("expected {{...}} with {want} registers"),
        )),
    }
}

impl FnLower<'_> {
    pub(crate) fn wmma(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        let name = super::instr::instruction_name(ins, ins.opcode);
        let no = || unsupported(ins.span, format_args!("`{name}`"));
        let shape = ins
            .modifiers
            .iter()
            .find_map(|md| match md {
                Modifier::Shape { m, n, k } => Some(MmaShape {
                    m: *m,
                    n: *n,
                    k: *k,
                }),
                _ => None,
            })
            .ok_or_else(no)?;
        let layouts: Vec<bool> = m
            .kws
            .iter()
            .filter_map(|k| match k {
                Kw::Row => Some(true),
                Kw::Col => Some(false),
                _ => None,
            })
            .collect();
        if !(m.has(Kw::Sync) && m.has(Kw::Aligned)) {
            return Err(no());
        }
        if m.has(Kw::MmaOp) {
            return self.wmma_mma(ins, m, shape, &layouts);
        }
        let store = m.has(Kw::Store);
        if !(store || m.has(Kw::Load)) {
            return Err(no());
        }
        let matrix = if store && m.has(Kw::D) {
            WmmaMatrix::C
        } else if !store && m.has(Kw::A) {
            WmmaMatrix::A
        } else if !store && m.has(Kw::B) {
            WmmaMatrix::B
        } else if !store && m.has(Kw::C) {
            WmmaMatrix::C
        } else {
            return Err(no());
        };
        let (&[row_major], [t]) = (layouts.as_slice(), m.types.as_slice()) else {
            return Err(no());
        };
        let ty = wmma_type(*t).ok_or_else(no)?;
        let frag = WmmaFrag { shape, matrix, ty };
        let regs = frag.regs().ok_or_else(no)?;
        // Sub-byte multiplicands: A row-major and B column-major only.
        if ty.bits() < 8 && row_major != (matrix == WmmaMatrix::A) {
            return Err(no());
        }
        let space = match m.space {
            None => None,
            Some(s @ (StateSpace::Global | StateSpace::Shared | StateSpace::SharedCta)) => Some(s),
            Some(_) => return Err(no()),
        };
        let ops = self.operands(ins, 2..=3)?;
        let (frag_op, addr_op) = if store {
            (&ops[1], &ops[0])
        } else {
            (&ops[0], &ops[1])
        };
        let items = fragment(frag_op, regs)?;
        let (space, base, offset) = self.address_of(ins, addr_op, space)?;
        let stride = match ops.get(2) {
            Some(o) => self.src(ins, o, Ty::U32)?,
            None => Src::Imm(frag.default_stride(row_major)),
        };
        let elements = frag.dims().0 * frag.dims().1 / 32;
        let cost = (elements as u32 * ty.bits() / 128).max(1) as u16;
        let unit = lsu_unit(space);
        if store {
            let mut srcs = vec![base, stride];
            for o in &items {
                srcs.push(self.src(ins, o, reg_ty(ty))?);
            }
            let kind = OpKind::WmmaStore {
                frag,
                row_major,
                space,
                offset,
            };
            self.emit(ins, kind, vec![], srcs, unit, cost)
        } else {
            let dsts = items
                .iter()
                .map(|o| self.dst(o, reg_ty(ty)))
                .collect::<Result<Vec<_>, _>>()?;
            let kind = OpKind::WmmaLoad {
                frag,
                row_major,
                space,
                offset,
            };
            self.emit(ins, kind, dsts, vec![base, stride], unit, cost)
        }
    }

    fn wmma_mma(
        &mut self,
        ins: &Instruction,
        m: &Mods,
        shape: MmaShape,
        layouts: &[bool],
    ) -> Result<(), Diagnostic> {
        let name = super::instr::instruction_name(ins, ins.opcode);
        let no = || unsupported(ins.span, format_args!("`{name}`"));
        if layouts.len() != 2 {
            return Err(no());
        }
        let types = m
            .types
            .iter()
            .map(|t| wmma_type(*t))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(no)?;
        let (dtype, atype, btype, ctype) = match types.as_slice() {
            // The f16 form names only the accumulators.
            [d, c] => (*d, WmmaType::F16, WmmaType::F16, *c),
            [d, a, b, c] => (*d, *a, *b, *c),
            _ => return Err(no()),
        };
        let bit_op = if m.has(Kw::Xor) {
            Some(BitOp::Xor)
        } else if m.has(Kw::And) {
            Some(BitOp::And)
        } else {
            None
        };
        if bit_op.is_some() != m.has(Kw::Popc) {
            return Err(no());
        }
        // Sub-byte and b1 multiplies are `.row.col` only.
        if atype.bits() < 8 && layouts != [true, false] {
            return Err(no());
        }
        // `.rz .rm .rp`: the f64 form only.
        let rounding = match m.rounding() {
            Some(r @ (Rounding::Rz | Rounding::Rm | Rounding::Rp)) => r,
            _ => Rounding::Rn,
        };
        if rounding != Rounding::Rn && atype != WmmaType::F64 {
            return Err(unsupported(
                ins.span,
                format_args!("`{name}` with a rounding mode other than `.rn` on a non-f64 form"),
            ));
        }
        let kind = WmmaKind {
            shape,
            dtype,
            atype,
            btype,
            ctype,
            satfinite: m.has(Kw::Satfinite),
            bit_op,
            rounding,
        };
        let regs = kind.regs().ok_or_else(no)?;
        let ops = self.operands(ins, 4..=4)?;
        let lists = [
            fragment(&ops[0], regs[3])?,
            fragment(&ops[1], regs[0])?,
            fragment(&ops[2], regs[1])?,
            fragment(&ops[3], regs[2])?,
        ];
        let dsts = lists[0]
            .iter()
            .map(|o| self.dst(o, reg_ty(dtype)))
            .collect::<Result<Vec<_>, _>>()?;
        let mut srcs = Vec::new();
        for (list, t) in lists[1..].iter().zip([atype, btype, ctype]) {
            for o in list {
                srcs.push(self.src(ins, o, reg_ty(t))?);
            }
        }
        let regs8 = regs.map(|r| r as u8);
        // `mma`'s cost: 2 per m16n8k16 of 16-bit inputs, in proportion.
        let work = shape.m as u32 * shape.n as u32 * shape.k as u32 * atype.bits();
        let cost = (work / 16 / 1024).max(1) as u16;
        self.emit(
            ins,
            OpKind::WmmaMma { kind, regs: regs8 },
            dsts,
            srcs,
            Unit::Tensor,
            cost,
        )
    }
}
