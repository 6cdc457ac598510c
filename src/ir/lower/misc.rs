//! Instructions with no effect on values here, and families recognised
//! without modelling their operands (refused at their line with the
//! reason): the Hopper hints (`setmaxnreg`, `griddepcontrol`,
//! `createpolicy`), Blackwell's `tcgen05`, `clusterlaunchcontrol` and
//! `st.bulk`, and multi-GPU `multimem`; and the `cvt` forms outside the
//! scalar type pairs: between 8-bit float pairs and f32/f16x2, f32 to tf32
//! and `cvt.pack`.

use super::func::FnLower;
use super::mods::Mods;
use super::{error, unsupported};
use crate::front::ast::{Instruction, Kw, Opcode, OperandKind, ScalarType};
use crate::front::{Diagnostic, DiagnosticKind};
use crate::ir::{CmpOp, Fp8, Fp8Cvt, IntBinOp, OpKind, Rounding, Src, Ty, Unit};

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

    /// `cvt` between a pair of 8-bit floats and f32 or f16x2: the three
    /// forms the ISA has for `.e4m3x2`/`.e5m2x2` (`sem::fp8`), `.rn` only,
    /// `.satfinite` required when narrowing.
    pub(crate) fn cvt_fp8(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        let fp8 = |t: &ScalarType| match t {
            ScalarType::E4m3x2 => Some(Fp8::E4m3),
            ScalarType::E5m2x2 => Some(Fp8::E5m2),
            _ => None,
        };
        let bad = |why: &str| {
            Err(error(
                DiagnosticKind::Semantic,
                ins.span,
                format!(
                    "`{}`: {why}",
                    super::instr::instruction_name(ins, ins.opcode)
                ),
            ))
        };
        if m.rounding() != Some(Rounding::Rn) {
            return bad("conversions of 8-bit float pairs round with `.rn`");
        }
        let relu = m.has(Kw::Relu);
        let (form, ty, dst, srcs): (Fp8Cvt, Fp8, Ty, &[Ty]) = match m.types.as_slice() {
            [d, ScalarType::F32] if fp8(d).is_some() => (
                Fp8Cvt::FromF32,
                fp8(d).unwrap(),
                Ty::B16,
                &[Ty::F32, Ty::F32],
            ),
            [d, ScalarType::F16x2] if fp8(d).is_some() => {
                (Fp8Cvt::FromF16x2, fp8(d).unwrap(), Ty::B16, &[Ty::B32])
            }
            [ScalarType::F16x2, s] if fp8(s).is_some() => {
                (Fp8Cvt::ToF16x2, fp8(s).unwrap(), Ty::B32, &[Ty::B16])
            }
            _ => {
                return Err(unsupported(
                    ins.span,
                    format_args!("`{}`", super::instr::instruction_name(ins, ins.opcode)),
                ))
            }
        };
        if form != Fp8Cvt::ToF16x2 && !m.has(Kw::Satfinite) {
            return bad("narrowing to 8-bit floats needs `.satfinite`");
        }
        let n = srcs.len();
        let ops = self.operands(ins, n + 1..=n + 1)?;
        let d = self.dst(&ops[0], dst)?;
        let mut s = Vec::with_capacity(n);
        for (o, t) in ops[1..].iter().zip(srcs) {
            s.push(self.src(ins, o, *t)?);
        }
        let kind = OpKind::CvtFp8 { form, ty, relu };
        self.emit(ins, kind, vec![d], s, Unit::Fp16, 1)
    }

    /// `cvt.rna.tf32.f32 d, a` (what `wmma::__float_to_tf32` emits): `a`
    /// rounded to 10 mantissa bits, to nearest with ties away from zero,
    /// the 13 low bits cleared; infinities and NaNs pass unchanged. As
    /// integer ops: `d = exp(a) == 0xff ? a : (a + 0x1000) & 0xffffe000`
    /// (a carry out of the mantissa rounds up the exponent, to infinity
    /// past the largest finite value).
    pub(crate) fn cvt_rna_tf32(&mut self, ins: &Instruction) -> Result<(), Diagnostic> {
        let ops = self.operands(ins, 2..=2)?;
        let d = self.dst(&ops[0], Ty::B32)?;
        let a = self.src(ins, &ops[1], Ty::B32)?;
        let bin = |op| OpKind::IntBin { op, ty: Ty::B32 };
        let (sum, rounded, exp) = (self.temp(Ty::B32), self.temp(Ty::B32), self.temp(Ty::B32));
        let special = self.temp(Ty::Pred);
        self.emit(
            ins,
            bin(IntBinOp::Add),
            vec![sum],
            vec![a, Src::Imm(0x1000)],
            Unit::Int,
            1,
        )?;
        let mask = Src::Imm(0xFFFF_E000);
        let and = bin(IntBinOp::And);
        self.emit(
            ins,
            and.clone(),
            vec![rounded],
            vec![Src::Reg(sum), mask],
            Unit::Int,
            1,
        )?;
        let exp_mask = Src::Imm(0x7F80_0000);
        self.emit(ins, and, vec![exp], vec![a, exp_mask], Unit::Int, 1)?;
        let setp = OpKind::Setp {
            cmp: CmpOp::Eq,
            ty: Ty::B32,
            ftz: false,
            combine: None,
        };
        let srcs = vec![Src::Reg(exp), exp_mask];
        self.emit(ins, setp, vec![special], srcs, Unit::Int, 1)?;
        let srcs = vec![a, Src::Reg(rounded), Src::Reg(special)];
        self.emit(ins, OpKind::Selp, vec![d], srcs, Unit::Int, 1)
    }

    /// `cvt.rna{.satfinite}.tf32.f32`, `cvt.{rn,rz}{.satfinite}{.relu}.tf32.f32`
    /// (`sem::cvt_extra::tf32`; plain `.rna` is `cvt_rna_tf32`'s integer
    /// ops). `.rm`/`.rp` and `.rna` with `.relu` are no tf32 form.
    pub(crate) fn cvt_tf32(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        let name = super::instr::instruction_name(ins, ins.opcode);
        let rounding = m.rounding();
        let relu = m.has(Kw::Relu);
        let satfinite = m.has(Kw::Satfinite);
        let form_ok = match rounding {
            Some(Rounding::Rn | Rounding::Rz) => true,
            Some(Rounding::Rna) => !relu,
            _ => false,
        };
        if !form_ok || m.has(Kw::Ftz) || m.has(Kw::Sat) || m.int_rounding().is_some() {
            return Err(error(
                DiagnosticKind::Semantic,
                ins.span,
                format!(
                    "`{name}`: tf32 conversions are `.rna{{.satfinite}}` or `.rn`/`.rz` with optional `.satfinite` and `.relu`"
                ),
            ));
        }
        let rounding = rounding.unwrap_or(Rounding::Rn);
        let ops = self.operands(ins, 2..=2)?;
        let d = self.dst(&ops[0], Ty::B32)?;
        let a = self.src(ins, &ops[1], Ty::B32)?;
        let kind = OpKind::CvtTf32 {
            rounding,
            satfinite,
            relu,
        };
        self.emit(ins, kind, vec![d], vec![a], Unit::Fp32, 1)
    }

    /// `cvt.pack.sat.{u16,s16}.s32 d, a, b` and
    /// `cvt.pack.sat.{u8,s8,u4,s4}.s32.b32 d, a, b, c` (PTX ISA 6.5;
    /// `sem::cvt_extra::pack`): `c`'s low bits fill `d` above the packed
    /// pair of the narrower types. The 16-bit forms have no `c` and no
    /// `cType` (ptxas rejects `.u16.s32.b32`).
    pub(crate) fn cvt_pack(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        let name = super::instr::instruction_name(ins, ins.opcode);
        let (bits, signed) = match m.types.as_slice() {
            [d, ScalarType::S32] | [d, ScalarType::S32, ScalarType::B32] => match d {
                ScalarType::U16 => (16, false),
                ScalarType::S16 => (16, true),
                ScalarType::U8 => (8, false),
                ScalarType::S8 => (8, true),
                ScalarType::U4 => (4, false),
                ScalarType::S4 => (4, true),
                _ => return Err(unsupported(ins.span, format_args!("`{name}`"))),
            },
            _ => return Err(unsupported(ins.span, format_args!("`{name}`"))),
        };
        let with_c = m.types.len() == 3;
        let others = m.rounding().is_some()
            || m.int_rounding().is_some()
            || m.has(Kw::Ftz)
            || m.has(Kw::Relu)
            || m.has(Kw::Satfinite);
        if !m.has(Kw::Sat) || others || with_c != (bits < 16) {
            return Err(error(
                DiagnosticKind::Semantic,
                ins.span,
                format!(
                    "`{name}`: the forms are `cvt.pack.sat.{{u16,s16}}.s32 d, a, b` and `cvt.pack.sat.{{u8,s8,u4,s4}}.s32.b32 d, a, b, c`"
                ),
            ));
        }
        let n = if bits == 16 { 3 } else { 4 };
        let ops = self.operands(ins, n..=n)?;
        let d = self.dst(&ops[0], Ty::B32)?;
        let mut srcs = vec![
            self.src(ins, &ops[1], Ty::S32)?,
            self.src(ins, &ops[2], Ty::S32)?,
        ];
        if n == 4 {
            srcs.push(self.src(ins, &ops[3], Ty::B32)?);
        }
        let kind = OpKind::CvtPack { bits, signed };
        self.emit(ins, kind, vec![d], srcs, Unit::Int, 1)
    }
}
