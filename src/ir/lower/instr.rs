//! Arithmetic, logic, comparison, selection, conversion and moves
//! (PTX ISA §9.7.1–§9.7.9): each instruction to its micro-op with the
//! functional unit it issues to and its cost in hardware instructions.

use super::func::FnLower;
use super::mods::{prmt_mode, ty_of, Mods};
use super::{error, unsupported};
use crate::front::ast::{Instruction, Kw, Opcode, Operand, OperandKind, ScalarType};
use crate::front::{Diagnostic, DiagnosticKind};
use crate::ir::Rounding;
use crate::ir::{
    CvtMods, FloatMods, FloatOp, IntBinOp, IntTernOp, IntUnOp, OpKind, Reg, Src, TestProp, Ty, Unit,
};

/// The functional unit of a float op of type `ty`.
pub(crate) fn float_unit(ty: Ty) -> Unit {
    match ty {
        Ty::F64 => Unit::Fp64,
        Ty::F16 | Ty::F16x2 | Ty::Bf16 | Ty::Bf16x2 => Unit::Fp16,
        _ => Unit::Fp32,
    }
}

impl FnLower<'_> {
    /// The instruction's first type, converted.
    pub(crate) fn ty(&self, ins: &Instruction, m: &Mods, k: usize) -> Result<Ty, Diagnostic> {
        let t = *m.types.get(k).ok_or_else(|| {
            error(
                DiagnosticKind::Semantic,
                ins.span,
                format!("`{}` needs a type", ins.opcode.name()),
            )
        })?;
        ty_of(t).ok_or_else(|| {
            unsupported(
                ins.span,
                format_args!("`{}` on type .{t}", ins.opcode.name()),
            )
        })
    }

    fn srcs(&mut self, ins: &Instruction, ops: &[Operand], ty: Ty) -> Result<Vec<Src>, Diagnostic> {
        ops.iter().map(|o| self.src(ins, o, ty)).collect()
    }

    /// `d, a, b, ...` with all sources of type `ty`.
    /// (`ty` is the sources' type, `dty` the destination's.)
    fn simple(
        &mut self,
        ins: &Instruction,
        n_srcs: usize,
        (ty, dty): (Ty, Ty),
        kind: OpKind,
        unit: Unit,
        cost: u16,
    ) -> Result<(), Diagnostic> {
        let ops = self.operands(ins, n_srcs + 1..=n_srcs + 1)?;
        let d = self.dst(&ops[0], dty)?;
        let srcs = self.srcs(ins, &ops[1..], ty)?;
        self.emit(ins, kind, vec![d], srcs, unit, cost)
    }

    pub(crate) fn lower_op(&mut self, ins: &Instruction) -> Result<(), Diagnostic> {
        use Opcode::*;
        let m = Mods::of(ins);
        match ins.opcode {
            Add | Sub | Mul | Mad | Fma | Div | Rem | Min | Max | Abs | Neg | Addc | Subc
            | Madc | Mul24 | Mad24 | Sad | Copysign | Rcp | Sqrt | Rsqrt | Sin | Cos | Lg2
            | Ex2 | Tanh => self.arith(ins, &m),
            And | Or | Xor | Not | Cnot | Popc | Clz | Bfind | Brev | Bfe | Bfi | Prmt | Shf
            | Shl | Shr | Lop3 | Dp4a | Dp2a | Bmsk | Szext | Fns => self.bits(ins, &m),
            Setp => self.setp(ins, &m),
            Set => self.set(ins, &m),
            Selp => {
                let ty = self.ty(ins, &m, 0)?;
                let ops = self.operands(ins, 4..=4)?;
                let d = self.dst(&ops[0], ty)?;
                let a = self.src(ins, &ops[1], ty)?;
                let b = self.src(ins, &ops[2], ty)?;
                let p = self.pred_src(ins, &ops[3])?;
                self.emit(ins, OpKind::Selp, vec![d], vec![a, b, p], Unit::Int, 1)
            }
            Slct => {
                let ty = self.ty(ins, &m, 0)?;
                let cty = self.ty(ins, &m, 1)?;
                let ops = self.operands(ins, 4..=4)?;
                let d = self.dst(&ops[0], ty)?;
                let a = self.src(ins, &ops[1], ty)?;
                let b = self.src(ins, &ops[2], ty)?;
                let c = self.src(ins, &ops[3], cty)?;
                let kind = OpKind::Slct {
                    cty,
                    ftz: m.has(Kw::Ftz),
                };
                self.emit(ins, kind, vec![d], vec![a, b, c], Unit::Int, 1)
            }
            Testp => {
                let ty = self.ty(ins, &m, 0)?;
                let prop = m
                    .kws
                    .iter()
                    .find_map(|k| match k {
                        Kw::Finite => Some(TestProp::Finite),
                        Kw::Infinite => Some(TestProp::Infinite),
                        Kw::Number => Some(TestProp::Number),
                        Kw::Notanumber => Some(TestProp::NotANumber),
                        Kw::Normal => Some(TestProp::Normal),
                        Kw::Subnormal => Some(TestProp::Subnormal),
                        _ => None,
                    })
                    .ok_or_else(|| {
                        error(DiagnosticKind::Semantic, ins.span, "testp needs a property")
                    })?;
                self.simple(
                    ins,
                    1,
                    (ty, Ty::Pred),
                    OpKind::Testp { prop, ty },
                    float_unit(ty),
                    1,
                )
            }
            Tcgen05 | Clusterlaunchcontrol | Multimem | Setmaxnreg | Createpolicy
            | Griddepcontrol => self.hints_and_refusals(ins),
            St if m.has(Kw::Bulk) => self.hints_and_refusals(ins),
            Cvt => self.cvt(ins, &m),
            Mov => self.mov(ins, &m),
            Ld | Ldu | St | Atom | Red | Cvta | Isspacep | Prefetch | Prefetchu | Applypriority
            | Discard | Cp => self.memory(ins, &m),
            Shfl | Vote | Match | Redux | Activemask | Bar | Barrier | Membar | Fence
            | Nanosleep | Pmevent => self.warp(ins, &m),
            Ldmatrix | Stmatrix | Mma | Movmatrix => self.matrix(ins, &m),
            Wgmma => self.wgmma(ins, &m),
            Mbarrier => self.mbarrier(ins, &m),
            Tensormap => self.tensormap(ins, &m),
            Vadd | Vsub | Vabsdiff | Vmin | Vmax | Vshl | Vshr | Vmad | Vset | Vadd2 | Vsub2
            | Vavrg2 | Vabsdiff2 | Vmin2 | Vmax2 | Vset2 | Vadd4 | Vsub4 | Vavrg4 | Vabsdiff4
            | Vmin4 | Vmax4 | Vset4 => self.video(ins, &m),
            Wmma => self.wmma(ins, &m),
            Mapa | Getctarank | Elect => self.cluster(ins, &m),
            Alloca | Stacksave | Stackrestore => self.stack(ins, &m),
            Tex | Tld4 | Txq | Suld | Sust | Sured | Suq | Istypep => self.texture(ins, &m),
            op => Err(unsupported(
                ins.span,
                format_args!("`{}`", instruction_name(ins, op)),
            )),
        }
    }

    fn arith(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        use Opcode::*;
        if let Some(t @ (ScalarType::U16x2 | ScalarType::S16x2)) = m.types.first().copied() {
            return self.packed16(ins, m, t == ScalarType::S16x2);
        }
        let ty = self.ty(ins, m, 0)?;
        if ty.is_float() {
            return self.float(ins, m, ty);
        }
        let (op_bin, cost64) = match ins.opcode {
            Add if m.has(Kw::Sat) => (Some(IntBinOp::AddSat), 1),
            Sub if m.has(Kw::Sat) => (Some(IntBinOp::SubSat), 1),
            Add | Sub if m.has(Kw::Cc) => (None, 1),
            Add => (Some(IntBinOp::Add), 2),
            Sub => (Some(IntBinOp::Sub), 2),
            Mul if m.has(Kw::Hi) => (Some(IntBinOp::MulHi), 4),
            Mul if m.has(Kw::Wide) => (Some(IntBinOp::MulWide), 1),
            Mul => (Some(IntBinOp::MulLo), 3),
            Mul24 if m.has(Kw::Hi) => (Some(IntBinOp::Mul24Hi), 1),
            Mul24 => (Some(IntBinOp::Mul24Lo), 1),
            Div => (Some(IntBinOp::Div), 70),
            Rem => (Some(IntBinOp::Rem), 70),
            Min => (Some(IntBinOp::Min), 2),
            Max => (Some(IntBinOp::Max), 2),
            _ => (None, 1),
        };
        let wide = ty.bits() == 64;
        if let Some(op) = op_bin {
            let cost = match op {
                IntBinOp::Div | IntBinOp::Rem if !wide => 20,
                _ if wide => cost64,
                _ => 1,
            };
            let dty = if op == IntBinOp::MulWide {
                ty.widened()
            } else {
                ty
            };
            return self.simple(
                ins,
                2,
                (ty, dty),
                OpKind::IntBin { op, ty },
                Unit::Int,
                cost,
            );
        }
        match ins.opcode {
            Add | Sub | Addc | Subc => {
                let ops = self.operands(ins, 3..=3)?;
                let d = self.dst(&ops[0], ty)?;
                let mut srcs = self.srcs(ins, &ops[1..], ty)?;
                let carry_in = matches!(ins.opcode, Addc | Subc);
                let carry_out = m.has(Kw::Cc);
                let cc = self.carry_reg();
                if carry_in {
                    srcs.push(Src::Reg(cc));
                }
                let dsts = if carry_out { vec![d, cc] } else { vec![d] };
                let subtract = matches!(ins.opcode, Sub | Subc);
                let kind = OpKind::AddCarry {
                    ty,
                    subtract,
                    carry_in,
                    carry_out,
                };
                self.emit(ins, kind, dsts, srcs, Unit::Int, 1)
            }
            Mad | Madc if m.has(Kw::Cc) || ins.opcode == Madc => {
                let ops = self.operands(ins, 4..=4)?;
                let d = self.dst(&ops[0], ty)?;
                let mut srcs = self.srcs(ins, &ops[1..], ty)?;
                let carry_in = ins.opcode == Madc;
                let carry_out = m.has(Kw::Cc);
                let cc = self.carry_reg();
                if carry_in {
                    srcs.push(Src::Reg(cc));
                }
                let dsts = if carry_out { vec![d, cc] } else { vec![d] };
                let kind = OpKind::MadCarry {
                    hi: m.has(Kw::Hi),
                    ty,
                    carry_in,
                    carry_out,
                };
                self.emit(ins, kind, dsts, srcs, Unit::Int, if wide { 4 } else { 1 })
            }
            Mad | Mad24 | Sad => {
                let op = match ins.opcode {
                    Mad if m.has(Kw::Hi) && m.has(Kw::Sat) => IntTernOp::MadHiSat,
                    Mad if m.has(Kw::Hi) => IntTernOp::MadHi,
                    Mad if m.has(Kw::Wide) => IntTernOp::MadWide,
                    Mad => IntTernOp::MadLo,
                    Mad24 if m.has(Kw::Hi) => IntTernOp::Mad24Hi,
                    Mad24 => IntTernOp::Mad24Lo,
                    _ => IntTernOp::Sad,
                };
                let ops = self.operands(ins, 4..=4)?;
                let wide_op = op == IntTernOp::MadWide;
                let dty = if wide_op { ty.widened() } else { ty };
                let d = self.dst(&ops[0], dty)?;
                let a = self.src(ins, &ops[1], ty)?;
                let b = self.src(ins, &ops[2], ty)?;
                let c = self.src(ins, &ops[3], dty)?;
                let cost = if wide && !wide_op { 4 } else { 1 };
                self.emit(
                    ins,
                    OpKind::IntTern { op, ty },
                    vec![d],
                    vec![a, b, c],
                    Unit::Int,
                    cost,
                )
            }
            Abs | Neg => {
                let op = if ins.opcode == Abs {
                    IntUnOp::Abs
                } else {
                    IntUnOp::Neg
                };
                self.simple(
                    ins,
                    1,
                    (ty, ty),
                    OpKind::IntUn { op, ty },
                    Unit::Int,
                    if wide { 2 } else { 1 },
                )
            }
            op => Err(unsupported(
                ins.span,
                format_args!("`{}` on integers", op.name()),
            )),
        }
    }

    fn float(&mut self, ins: &Instruction, m: &Mods, ty: Ty) -> Result<(), Diagnostic> {
        use Opcode::*;
        let mods = FloatMods {
            rounding: m.rounding(),
            ftz: m.has(Kw::Ftz),
            sat: m.has(Kw::Sat),
            relu: m.has(Kw::Relu),
        };
        let approx = m.has(Kw::Approx);
        let f64_ = ty == Ty::F64;
        let (op, n, unit, cost) = match ins.opcode {
            Add => (FloatOp::Add, 2, float_unit(ty), 1),
            Sub => (FloatOp::Sub, 2, float_unit(ty), 1),
            Mul => (FloatOp::Mul, 2, float_unit(ty), 1),
            Fma | Mad => (FloatOp::Fma, 3, float_unit(ty), 1),
            Div if approx => (FloatOp::DivApprox, 2, Unit::Sfu, 2),
            Div if m.has(Kw::Full) => (FloatOp::DivFull, 2, Unit::Sfu, 4),
            Div => (FloatOp::Div, 2, float_unit(ty), if f64_ { 20 } else { 10 }),
            Min if m.has(Kw::NaN) => (FloatOp::MinNaN, 2, float_unit(ty), 1),
            Max if m.has(Kw::NaN) => (FloatOp::MaxNaN, 2, float_unit(ty), 1),
            Min => (FloatOp::Min, 2, float_unit(ty), 1),
            Max => (FloatOp::Max, 2, float_unit(ty), 1),
            Abs => (FloatOp::Abs, 1, float_unit(ty), 1),
            Neg => (FloatOp::Neg, 1, float_unit(ty), 1),
            Copysign => (FloatOp::Copysign, 2, float_unit(ty), 2),
            Rcp if approx && f64_ => (FloatOp::RcpApproxF64, 1, Unit::Sfu, 2),
            Rcp if approx => (FloatOp::RcpApprox, 1, Unit::Sfu, 1),
            Rcp => (FloatOp::Rcp, 1, float_unit(ty), if f64_ { 16 } else { 8 }),
            Sqrt if approx => (FloatOp::SqrtApprox, 1, Unit::Sfu, 2),
            Sqrt => (FloatOp::Sqrt, 1, float_unit(ty), if f64_ { 20 } else { 8 }),
            Rsqrt => (FloatOp::Rsqrt, 1, Unit::Sfu, if f64_ { 4 } else { 1 }),
            Sin => (FloatOp::Sin, 1, Unit::Sfu, 2),
            Cos => (FloatOp::Cos, 1, Unit::Sfu, 2),
            Lg2 => (FloatOp::Lg2, 1, Unit::Sfu, 1),
            Ex2 => (FloatOp::Ex2, 1, Unit::Sfu, 2),
            Tanh => (FloatOp::Tanh, 1, Unit::Sfu, 1),
            op => {
                return Err(unsupported(
                    ins.span,
                    format_args!("`{}` on floats", op.name()),
                ))
            }
        };
        self.simple(ins, n, (ty, ty), OpKind::Float { op, ty, mods }, unit, cost)
    }

    fn bits(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        use Opcode::*;
        let ty = self.ty(ins, m, 0)?;
        let wide = ty.bits() == 64;
        let c2 = if wide { 2 } else { 1 };
        match ins.opcode {
            And | Or | Xor | Shl | Shr => {
                let op = match ins.opcode {
                    And => IntBinOp::And,
                    Or => IntBinOp::Or,
                    Xor => IntBinOp::Xor,
                    Shl => IntBinOp::Shl,
                    _ => IntBinOp::Shr,
                };
                let ops = self.operands(ins, 3..=3)?;
                let d = self.dst(&ops[0], ty)?;
                let a = self.src_maybe_not(ins, &ops[1], ty)?;
                let b_ty = if matches!(op, IntBinOp::Shl | IntBinOp::Shr) {
                    Ty::U32
                } else {
                    ty
                };
                let b = self.src_maybe_not(ins, &ops[2], b_ty)?;
                self.emit(
                    ins,
                    OpKind::IntBin { op, ty },
                    vec![d],
                    vec![a, b],
                    Unit::Int,
                    c2,
                )
            }
            Not | Cnot | Popc | Clz | Brev | Bfind => {
                let op = match ins.opcode {
                    Not => IntUnOp::Not,
                    Cnot => IntUnOp::Cnot,
                    Popc => IntUnOp::Popc,
                    Clz => IntUnOp::Clz,
                    Brev => IntUnOp::Brev,
                    _ if m.has(Kw::Shiftamt) => IntUnOp::BfindShiftAmt,
                    _ => IntUnOp::Bfind,
                };
                let dty = if matches!(
                    op,
                    IntUnOp::Popc | IntUnOp::Clz | IntUnOp::Bfind | IntUnOp::BfindShiftAmt
                ) {
                    Ty::U32
                } else {
                    ty
                };
                self.simple(ins, 1, (ty, dty), OpKind::IntUn { op, ty }, Unit::Int, c2)
            }
            Bfe | Bfi | Prmt | Shf | Lop3 | Dp4a | Dp2a | Fns => {
                let (op, n) = match ins.opcode {
                    // `fns.b32`: ptxas expands it into a short loop.
                    Fns => (IntTernOp::Fns, 3),
                    Bfe => (IntTernOp::Bfe, 3),
                    Bfi => (IntTernOp::Bfi, 4),
                    Prmt => (IntTernOp::Prmt(prmt_mode(m)), 3),
                    Shf if m.has(Kw::L) => (
                        IntTernOp::ShfL {
                            clamp: m.has(Kw::Clamp),
                        },
                        3,
                    ),
                    Shf => (
                        IntTernOp::ShfR {
                            clamp: m.has(Kw::Clamp),
                        },
                        3,
                    ),
                    Lop3 => return self.lop3(ins, m, ty),
                    Dp4a | Dp2a => {
                        let b_ty = self.ty(ins, m, 1)?;
                        let (a_signed, b_signed) = (ty.is_signed(), b_ty.is_signed());
                        let op = if ins.opcode == Dp4a {
                            IntTernOp::Dp4a { a_signed, b_signed }
                        } else {
                            IntTernOp::Dp2a {
                                hi: m.has(Kw::Hi),
                                a_signed,
                                b_signed,
                            }
                        };
                        let rty = if a_signed || b_signed {
                            Ty::S32
                        } else {
                            Ty::U32
                        };
                        return self.simple(
                            ins,
                            3,
                            (Ty::U32, rty),
                            OpKind::IntTern { op, ty: rty },
                            Unit::Int,
                            1,
                        );
                    }
                    _ => unreachable!(),
                };
                let ops = self.operands(ins, n + 1..=n + 1)?;
                let d = self.dst(&ops[0], ty)?;
                let mut srcs = Vec::with_capacity(n);
                for (k, o) in ops[1..].iter().enumerate() {
                    // Position and length operands of bfe/bfi are u32.
                    let sty = match (ins.opcode, k) {
                        (Bfe, 1 | 2) | (Bfi, 2 | 3) | (Shf, 2) => Ty::U32,
                        _ => ty,
                    };
                    srcs.push(self.src(ins, o, sty)?);
                }
                self.emit(
                    ins,
                    OpKind::IntTern { op, ty },
                    vec![d],
                    srcs,
                    Unit::Int,
                    c2,
                )
            }
            Bmsk => {
                let op = if m.has(Kw::Wrap) {
                    IntBinOp::BmskWrap
                } else {
                    IntBinOp::BmskClamp
                };
                self.simple(
                    ins,
                    2,
                    (Ty::U32, ty),
                    OpKind::IntBin { op, ty },
                    Unit::Int,
                    1,
                )
            }
            Szext => {
                let op = if m.has(Kw::Wrap) {
                    IntBinOp::SzextWrap
                } else {
                    IntBinOp::SzextClamp
                };
                self.simple(
                    ins,
                    2,
                    (Ty::U32, ty),
                    OpKind::IntBin { op, ty },
                    Unit::Int,
                    1,
                )
            }
            op => Err(unsupported(ins.span, format_args!("`{}`", op.name()))),
        }
    }

    /// A predicate source, which may be negated (`!p`).
    pub(crate) fn pred_src(&mut self, ins: &Instruction, op: &Operand) -> Result<Src, Diagnostic> {
        self.src_maybe_not(ins, op, Ty::Pred)
    }

    /// A source that may be written `!p` (predicate logic): negation becomes a `not`.
    fn src_maybe_not(
        &mut self,
        ins: &Instruction,
        op: &Operand,
        ty: Ty,
    ) -> Result<Src, Diagnostic> {
        if let OperandKind::Not(inner) = &op.kind {
            let v = self.src(ins, inner, Ty::Pred)?;
            let t = self.temp(Ty::Pred);
            self.emit(
                ins,
                OpKind::IntUn {
                    op: IntUnOp::Not,
                    ty: Ty::Pred,
                },
                vec![t],
                vec![v],
                Unit::Int,
                1,
            )?;
            return Ok(Src::Reg(t));
        }
        self.src(ins, op, ty)
    }

    fn setp(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        let ty = self.ty(ins, m, 0)?;
        let cmp = m.cmp().ok_or_else(|| {
            error(
                DiagnosticKind::Semantic,
                ins.span,
                "setp needs a comparison",
            )
        })?;
        let combine = m.bool_op();
        let n = if combine.is_some() { 4 } else { 3 };
        let ops = self.operands(ins, n..=n)?;
        let dsts: Vec<Reg> = match &ops[0].kind {
            OperandKind::PredPair(p, q) => {
                let mk = |name: &str| crate::front::ast::Operand {
                    kind: OperandKind::Name {
                        name: name.to_string(),
                        component: None,
                    },
                    span: ops[0].span,
                };
                vec![self.dst(&mk(p), Ty::Pred)?, self.dst(&mk(q), Ty::Pred)?]
            }
            _ => vec![self.dst(&ops[0], Ty::Pred)?],
        };
        let a = self.src(ins, &ops[1], ty)?;
        let b = self.src(ins, &ops[2], ty)?;
        let mut srcs = vec![a, b];
        if combine.is_some() {
            srcs.push(self.pred_src(ins, &ops[3])?);
        }
        let kind = OpKind::Setp {
            cmp,
            ty,
            ftz: m.has(Kw::Ftz),
            combine,
        };
        let unit = if ty.is_float() {
            float_unit(ty)
        } else {
            Unit::Int
        };
        self.emit(
            ins,
            kind,
            dsts,
            srcs,
            unit,
            if ty.bits() == 64 && !ty.is_float() {
                2
            } else {
                1
            },
        )
    }

    /// `add min max` on packed 16-bit integers (`.u16x2`, `.s16x2`; `.relu`
    /// on `min`/`max.s16x2`), PTX ISA §9.7.1.1, §9.7.1.10-11: one op on
    /// 32-bit registers. (PTX has no packed `sub`: ptxas rejects it.)
    fn packed16(&mut self, ins: &Instruction, m: &Mods, signed: bool) -> Result<(), Diagnostic> {
        let relu = m.has(Kw::Relu);
        let op = match (ins.opcode, relu) {
            (Opcode::Add, false) => IntBinOp::Add16x2,
            (Opcode::Min, false) => IntBinOp::Min16x2,
            (Opcode::Max, false) => IntBinOp::Max16x2,
            (Opcode::Min, true) if signed => IntBinOp::Min16x2Relu,
            (Opcode::Max, true) if signed => IntBinOp::Max16x2Relu,
            _ => {
                let name = instruction_name(ins, ins.opcode);
                return Err(unsupported(ins.span, format_args!("`{name}`")));
            }
        };
        if m.has(Kw::Sat) {
            let name = instruction_name(ins, ins.opcode);
            return Err(error(
                DiagnosticKind::Semantic,
                ins.span,
                format!("`{name}`: `.sat` is not defined for packed 16-bit integers"),
            ));
        }
        let ty = if signed { Ty::S32 } else { Ty::U32 };
        let kind = OpKind::IntBin { op, ty };
        self.simple(ins, 2, (ty, ty), kind, Unit::Int, 1)
    }

    fn set(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        let dty = self.ty(ins, m, 0)?;
        let sty = self.ty(ins, m, 1)?;
        let cmp = m
            .cmp()
            .ok_or_else(|| error(DiagnosticKind::Semantic, ins.span, "set needs a comparison"))?;
        let combine = m.bool_op();
        let n = if combine.is_some() { 4 } else { 3 };
        let ops = self.operands(ins, n..=n)?;
        let d = self.dst(&ops[0], dty)?;
        let mut srcs = vec![self.src(ins, &ops[1], sty)?, self.src(ins, &ops[2], sty)?];
        if combine.is_some() {
            srcs.push(self.pred_src(ins, &ops[3])?);
        }
        let kind = OpKind::Set {
            cmp,
            dty,
            sty,
            ftz: m.has(Kw::Ftz),
            combine,
        };
        self.emit(ins, kind, vec![d], srcs, Unit::Int, 1)
    }

    fn cvt(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        if m.has(Kw::Pack) {
            return self.cvt_pack(ins, m);
        }
        if m.has(Kw::Rs) {
            let name = instruction_name(ins, ins.opcode);
            return Err(unsupported(
                ins.span,
                format_args!("`{name}`: stochastic rounding (sm_100a and later), not executed"),
            ));
        }
        if m.types
            .iter()
            .any(|t| matches!(t, ScalarType::E4m3x2 | ScalarType::E5m2x2))
        {
            return self.cvt_fp8(ins, m);
        }
        if m.types.as_slice() == [ScalarType::Tf32, ScalarType::F32]
            && m.rounding() == Some(Rounding::Rna)
            && !m.has(Kw::Satfinite)
            && !m.has(Kw::Relu)
        {
            return self.cvt_rna_tf32(ins);
        }
        if m.types.first() == Some(&ScalarType::Tf32) {
            if m.types.as_slice() != [ScalarType::Tf32, ScalarType::F32] {
                let name = instruction_name(ins, ins.opcode);
                return Err(unsupported(ins.span, format_args!("`{name}`")));
            }
            return self.cvt_tf32(ins, m);
        }
        let dst = self.ty(ins, m, 0)?;
        let src = self.ty(ins, m, 1)?;
        let mods = CvtMods {
            rounding: m.rounding(),
            int_rounding: m.int_rounding(),
            ftz: m.has(Kw::Ftz),
            sat: m.has(Kw::Sat),
            relu: m.has(Kw::Relu),
            satfinite: m.has(Kw::Satfinite),
        };
        let unit = if dst == Ty::F64 || src == Ty::F64 {
            Unit::Fp64
        } else if dst.is_float() != src.is_float() {
            Unit::Sfu
        } else if dst.is_float() {
            Unit::Fp32
        } else {
            Unit::Int
        };
        let kind = OpKind::Cvt { dst, src, mods };
        if matches!(dst, Ty::F16x2 | Ty::Bf16x2) {
            // `cvt.rn.f16x2.f32 d, a, b`: a goes to the upper half, b to the lower.
            let ops = self.operands(ins, 3..=3)?;
            let d = self.dst(&ops[0], dst)?;
            let a = self.src(ins, &ops[1], src)?;
            let b = self.src(ins, &ops[2], src)?;
            let packed = self.temp(Ty::B64);
            self.emit(
                ins,
                OpKind::Pack { bits: 32 },
                vec![packed],
                vec![b, a],
                Unit::Int,
                0,
            )?;
            return self.emit(ins, kind, vec![d], vec![Src::Reg(packed)], unit, 1);
        }
        self.simple(ins, 1, (src, dst), kind, unit, 1)
    }

    fn mov(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        let ty = self.ty(ins, m, 0)?;
        let ops = self.operands(ins, 2..=2)?;
        match (&ops[0].kind, &ops[1].kind) {
            (_, OperandKind::Vector(items)) => {
                let d = self.dst(&ops[0], ty)?;
                let bits = ty.bits() / items.len().max(1) as u32;
                let ety = Ty::B64.unsigned_of_bits(bits);
                let srcs = self.srcs(ins, items, ety)?;
                self.emit(ins, OpKind::Pack { bits }, vec![d], srcs, Unit::Int, 1)
            }
            (OperandKind::Vector(items), _) => {
                let bits = ty.bits() / items.len().max(1) as u32;
                let ety = Ty::B64.unsigned_of_bits(bits);
                let dsts = items
                    .iter()
                    .map(|o| self.dst(o, ety))
                    .collect::<Result<Vec<_>, _>>()?;
                let a = self.src(ins, &ops[1], ty)?;
                self.emit(ins, OpKind::Unpack { bits }, dsts, vec![a], Unit::Int, 1)
            }
            _ => self.simple(ins, 1, (ty, ty), OpKind::Mov, Unit::Int, 1),
        }
    }
}

impl Ty {
    /// The unsigned type of `bits` width (used for vector element moves).
    pub(crate) fn unsigned_of_bits(self, bits: u32) -> Ty {
        match bits {
            1 => Ty::Pred,
            8 => Ty::B8,
            16 => Ty::B16,
            32 => Ty::B32,
            _ => Ty::B64,
        }
    }
}

/// `opcode.modifiers` as written, for messages.
pub(crate) fn instruction_name(ins: &Instruction, _op: Opcode) -> String {
    let mut s = ins.opcode.name().to_string();
    for m in &ins.modifiers {
        s.push('.');
        s.push_str(&m.to_string());
    }
    s
}
