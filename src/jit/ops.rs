//! Inline code for the common pure ops and special registers. Each fast
//! path computes exactly what [`crate::engine::pure::eval`] computes (values
//! as u64 bit patterns, narrow signed results sign-extended); anything not
//! listed returns `None` and the piece calls `pure::eval` instead.

use cranelift_codegen::ir::{
    condcodes::{FloatCC, IntCC},
    types, InstBuilder, Value,
};

use super::emit::{PieceBuilder, I32, I64};
use crate::engine::abi::offsets;
use crate::ir::{
    CmpOp, FloatOp, IntBinOp, IntTernOp, IntUnOp, Op, OpKind, Rounding, Space, SpecialReg, Ty,
};
use crate::runtime::memory::{LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW};

impl PieceBuilder<'_, '_> {
    /// `v` as a value of type `ty` held in a register: masked to the width,
    /// sign-extended for narrow signed types.
    pub fn normalize(&mut self, v: Value, ty: Ty) -> Value {
        let w = ty.bits();
        if w >= 64 {
            return v;
        }
        if ty.is_signed() {
            let sh = (64 - w) as i64;
            let l = self.b.ins().ishl_imm_s(v, sh);
            self.b.ins().sshr_imm_s(l, sh)
        } else {
            self.b.ins().band_imm_s(v, ty.mask() as i64)
        }
    }

    /// `div` or `rem` of `x` by `y` (both read as `ty`), as `sem::int`
    /// computes them: all ones where `y` is 0, and `y = -1` a negation or 0
    /// (the host's `sdiv` traps on `MIN / -1`).
    fn div_rem(&mut self, div: bool, x: Value, y: Value, ty: Ty) -> Value {
        let zero = self.b.ins().icmp_imm_s(IntCC::Equal, y, 0);
        let one = self.b.ins().iconst(I64, 1);
        let r = if ty.is_signed() {
            let minus_one = self.b.ins().icmp_imm_s(IntCC::Equal, y, -1);
            let special = self.b.ins().bor(zero, minus_one);
            let safe = self.b.ins().select(special, one, y);
            let (r, by_minus_one) = if div {
                (self.b.ins().sdiv(x, safe), self.b.ins().ineg(x))
            } else {
                (self.b.ins().srem(x, safe), self.b.ins().iconst(I64, 0))
            };
            self.b.ins().select(minus_one, by_minus_one, r)
        } else {
            let safe = self.b.ins().select(zero, one, y);
            if div {
                self.b.ins().udiv(x, safe)
            } else {
                self.b.ins().urem(x, safe)
            }
        };
        let ones = self.b.ins().iconst(I64, -1);
        let r = self.b.ins().select(zero, ones, r);
        self.normalize(r, ty)
    }

    /// `v` read as an integer of `ty` (sign- or zero-extended to 64 bits).
    fn int_value(&mut self, v: Value, ty: Ty) -> Value {
        self.normalize(v, ty)
    }

    pub(super) fn f32_of(&mut self, v: Value) -> Value {
        let lo = self.b.ins().ireduce(I32, v);
        self.b.ins().bitcast(types::F32, self.plain, lo)
    }

    fn f64_of(&mut self, v: Value) -> Value {
        self.b.ins().bitcast(types::F64, self.plain, v)
    }

    /// f32 result bits with NaNs made canonical (0x7fffffff), as PTX does.
    /// (Selected as 32 bits and then widened, so that the register write's
    /// mask to 32 bits folds away.)
    fn f32_result(&mut self, r: Value) -> Value {
        let bits = self.b.ins().bitcast(I32, self.plain, r);
        let nan = self.b.ins().fcmp(FloatCC::Unordered, r, r);
        let canon = self.b.ins().iconst(I32, 0x7fff_ffff);
        let bits = self.b.ins().select(nan, canon, bits);
        self.b.ins().uextend(I64, bits)
    }

    pub fn inline_pure(&mut self, op: &Op, s: &[Value]) -> Option<Vec<Value>> {
        Some(match &op.kind {
            OpKind::Mov => vec![s[0]],
            OpKind::IntBin {
                op: IntBinOp::And | IntBinOp::Or | IntBinOp::Xor,
                ty: Ty::Pred,
            }
            | OpKind::IntUn {
                op: IntUnOp::Not,
                ty: Ty::Pred,
            } => {
                let r = match op.kind {
                    OpKind::IntBin {
                        op: IntBinOp::And, ..
                    } => self.b.ins().band(s[0], s[1]),
                    OpKind::IntBin {
                        op: IntBinOp::Or, ..
                    } => self.b.ins().bor(s[0], s[1]),
                    OpKind::IntBin { .. } => self.b.ins().bxor(s[0], s[1]),
                    _ => self.b.ins().bxor_imm_s(s[0], 1),
                };
                vec![self.b.ins().band_imm_s(r, 1)]
            }
            OpKind::Cvta { space, to_generic } => {
                let window = match space {
                    Space::Shared => SHARED_WINDOW,
                    Space::Local => LOCAL_WINDOW,
                    Space::KernelParam => PARAM_WINDOW,
                    _ => 0,
                };
                let delta = if *to_generic {
                    window
                } else {
                    window.wrapping_neg()
                };
                vec![self.b.ins().iadd_imm_s(s[0], delta as i64)]
            }
            OpKind::Pack { bits } => {
                let mut acc = self.b.ins().iconst(I64, 0);
                for (k, v) in s.iter().enumerate() {
                    let m = if *bits == 64 {
                        *v
                    } else {
                        self.b.ins().band_imm_s(*v, ((1u64 << bits) - 1) as i64)
                    };
                    let sh = self.b.ins().ishl_imm_s(m, (k as u32 * bits) as i64);
                    acc = self.b.ins().bor(acc, sh);
                }
                vec![acc]
            }
            OpKind::Unpack { bits } => (0..op.dsts.len())
                .map(|k| {
                    let sh = self.b.ins().ushr_imm_s(s[0], (k as u32 * bits) as i64);
                    if *bits == 64 {
                        sh
                    } else {
                        self.b.ins().band_imm_s(sh, ((1u64 << bits) - 1) as i64)
                    }
                })
                .collect(),
            OpKind::IntBin {
                op: IntBinOp::MulHi,
                ty,
            } if !ty.is_float() && ty.bits() == 32 => {
                let x = self.int_value(s[0], *ty);
                let y = self.int_value(s[1], *ty);
                let p = self.b.ins().imul(x, y);
                let hi = self.b.ins().sshr_imm_s(p, 32);
                vec![self.normalize(hi, *ty)]
            }
            OpKind::IntBin {
                op: IntBinOp::MulHi,
                ty,
            } if !ty.is_float() && ty.bits() == 64 => {
                // The high half of the 128-bit product.
                vec![if ty.is_signed() {
                    self.b.ins().smulhi(s[0], s[1])
                } else {
                    self.b.ins().umulhi(s[0], s[1])
                }]
            }
            OpKind::IntBin { op: o, ty } if !ty.is_float() && ty.bits() >= 8 => {
                let (a, b) = (s[0], s[1]);
                let r = match o {
                    IntBinOp::Add => self.b.ins().iadd(a, b),
                    IntBinOp::Sub => self.b.ins().isub(a, b),
                    IntBinOp::MulLo => self.b.ins().imul(a, b),
                    IntBinOp::And => self.b.ins().band(a, b),
                    IntBinOp::Or => self.b.ins().bor(a, b),
                    IntBinOp::Xor => self.b.ins().bxor(a, b),
                    IntBinOp::MulWide if ty.bits() <= 32 => {
                        let x = self.int_value(a, *ty);
                        let y = self.int_value(b, *ty);
                        let r = self.b.ins().imul(x, y);
                        return Some(vec![self.normalize(r, ty.widened())]);
                    }
                    IntBinOp::Min | IntBinOp::Max => {
                        let x = self.int_value(a, *ty);
                        let y = self.int_value(b, *ty);
                        let cc = match (o, ty.is_signed()) {
                            (IntBinOp::Min, true) => IntCC::SignedLessThanOrEqual,
                            (IntBinOp::Min, false) => IntCC::UnsignedLessThanOrEqual,
                            (_, true) => IntCC::SignedGreaterThanOrEqual,
                            (_, false) => IntCC::UnsignedGreaterThanOrEqual,
                        };
                        let c = self.b.ins().icmp(cc, x, y);
                        self.b.ins().select(c, x, y)
                    }
                    IntBinOp::Div | IntBinOp::Rem => {
                        let x = self.int_value(a, *ty);
                        let y = self.int_value(b, *ty);
                        return Some(vec![self.div_rem(*o == IntBinOp::Div, x, y, *ty)]);
                    }
                    IntBinOp::Shl | IntBinOp::Shr => {
                        let w = ty.bits() as i64;
                        let n = self.b.ins().band_imm_s(b, 0xffff_ffff);
                        let x = self.int_value(a, *ty);
                        let (r, big) = if *o == IntBinOp::Shl {
                            let zero = self.b.ins().iconst(I64, 0);
                            (self.b.ins().ishl(x, n), zero)
                        } else if ty.is_signed() {
                            let sign = self.b.ins().sshr_imm_s(x, 63);
                            (self.b.ins().sshr(x, n), sign)
                        } else {
                            let zero = self.b.ins().iconst(I64, 0);
                            (self.b.ins().ushr(x, n), zero)
                        };
                        let over = self
                            .b
                            .ins()
                            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, n, w);
                        self.b.ins().select(over, big, r)
                    }
                    _ => return None,
                };
                vec![self.normalize(r, *ty)]
            }
            OpKind::IntUn { op: o, ty } if !ty.is_float() && ty.bits() >= 8 => {
                let r = match o {
                    IntUnOp::Not => self.b.ins().bnot(s[0]),
                    IntUnOp::Neg => self.b.ins().ineg(s[0]),
                    _ => return None,
                };
                vec![self.normalize(r, *ty)]
            }
            OpKind::IntTern { op: o, ty } if !ty.is_float() && ty.bits() >= 8 => match o {
                IntTernOp::MadLo => {
                    let m = self.b.ins().imul(s[0], s[1]);
                    let r = self.b.ins().iadd(m, s[2]);
                    vec![self.normalize(r, *ty)]
                }
                IntTernOp::MadWide if ty.bits() <= 32 => {
                    let x = self.int_value(s[0], *ty);
                    let y = self.int_value(s[1], *ty);
                    let m = self.b.ins().imul(x, y);
                    let r = self.b.ins().iadd(m, s[2]);
                    vec![self.normalize(r, ty.widened())]
                }
                _ => return None,
            },
            OpKind::Setp {
                cmp,
                ty,
                ftz: false,
                combine: None,
            } => {
                let c = self.compare(*cmp, *ty, op, s)?;
                let p = self.b.ins().uextend(I64, c);
                let q = self.b.ins().bxor_imm_s(p, 1);
                vec![p, q]
            }
            OpKind::Selp => {
                let bit = self.b.ins().band_imm_s(s[2], 1);
                vec![self.b.ins().select(bit, s[0], s[1])]
            }
            OpKind::Float { op: o, ty, mods }
                if !mods.sat
                    && !mods.relu
                    && matches!(mods.rounding, None | Some(Rounding::Rn))
                    && (*ty == Ty::F32 || (*ty == Ty::F64 && !mods.ftz)) =>
            {
                return self.float(*o, *ty, mods.ftz, op, s);
            }
            // Integer to f32/f64, round to nearest even (an f32 result of
            // an integer is never subnormal: `.ftz` changes nothing).
            OpKind::Cvt { dst, src, mods }
                if matches!(dst, Ty::F32 | Ty::F64)
                    && !src.is_float()
                    && src.bits() >= 8
                    && matches!(mods.rounding, None | Some(Rounding::Rn))
                    && mods.int_rounding.is_none()
                    && !mods.sat
                    && !mods.relu
                    && !mods.satfinite =>
            {
                let v = self.int_value(s[0], *src);
                let fty = if *dst == Ty::F32 {
                    types::F32
                } else {
                    types::F64
                };
                let r = if src.is_signed() {
                    self.b.ins().fcvt_from_sint(fty, v)
                } else {
                    self.b.ins().fcvt_from_uint(fty, v)
                };
                if *dst == Ty::F64 {
                    vec![self.b.ins().bitcast(I64, self.plain, r)]
                } else {
                    self.set_f32_result(r);
                    let bits = self.b.ins().bitcast(I32, self.plain, r);
                    vec![self.b.ins().uextend(I64, bits)]
                }
            }
            // f32 to f16/bf16 (one or a packed pair) and f16/bf16 to f32,
            // without modifiers other than `.rn`: `sem::cvt`'s own helpers.
            OpKind::Cvt { dst, src, mods }
                if mods.int_rounding.is_none()
                    && matches!(mods.rounding, None | Some(Rounding::Rn))
                    && !(mods.ftz || mods.sat || mods.relu || mods.satfinite)
                    && half_conversion(*dst, *src).is_some() =>
            {
                let x = s[0];
                let r = match half_conversion(*dst, *src)? {
                    HalfCvt::Narrow(f) => self.call_u64_fn(f, x),
                    HalfCvt::NarrowPair(f) => {
                        let lo = self.call_u64_fn(f, x);
                        let upper = self.b.ins().ushr_imm_u(x, 32);
                        let hi = self.call_u64_fn(f, upper);
                        let hi = self.b.ins().ishl_imm_u(hi, 16);
                        self.b.ins().bor(hi, lo)
                    }
                    HalfCvt::WidenF16 => self.call_u64_fn(crate::sem::cvt::f16_to_f32, x),
                    // Exact, NaNs included: the bits move up.
                    HalfCvt::WidenBf16 => {
                        let low = self.b.ins().band_imm_s(x, 0xFFFF);
                        self.b.ins().ishl_imm_u(low, 16)
                    }
                };
                vec![r]
            }
            OpKind::Cvt { dst, src, mods }
                if !dst.is_float()
                    && !src.is_float()
                    && !mods.sat
                    && dst.bits() >= 8
                    && src.bits() >= 8 =>
            {
                let v = self.int_value(s[0], *src);
                vec![self.normalize(v, *dst)]
            }
            OpKind::Cvt { dst, src, mods } if src.is_float() => {
                vec![self.float_cvt(*dst, *src, mods, s[0])?]
            }
            _ => return None,
        })
    }

    /// The f32 operand `k` of `op` (`s[k]` its bits) for an operation whose
    /// result depends on a NaN operand only through its being NaN: the raw
    /// result of the float op that wrote it where one is recorded.
    fn f32_operand(&mut self, op: &Op, k: usize, s: &[Value]) -> Value {
        match self.f32_result_of(&op.srcs[k]) {
            Some(x) => x,
            None => self.f32_of(s[k]),
        }
    }

    /// An integer or (non-ftz) f32/f64 comparison of the operands `s` of
    /// `op`, as an i8 truth value.
    fn compare(&mut self, cmp: CmpOp, ty: Ty, op: &Op, s: &[Value]) -> Option<Value> {
        use CmpOp::*;
        let (a, b) = (s[0], s[1]);
        if !ty.is_float() {
            if ty.bits() < 8 {
                return None;
            }
            let (x, y) = match cmp {
                Lo | Ls | Hi | Hs => {
                    let u = ty.unsigned();
                    (self.int_value(a, u), self.int_value(b, u))
                }
                _ => (self.int_value(a, ty), self.int_value(b, ty)),
            };
            let signed = ty.is_signed();
            let cc = match cmp {
                Eq | Equ => IntCC::Equal,
                Ne | Neu => IntCC::NotEqual,
                Lt | Ltu if signed => IntCC::SignedLessThan,
                Le | Leu if signed => IntCC::SignedLessThanOrEqual,
                Gt | Gtu if signed => IntCC::SignedGreaterThan,
                Ge | Geu if signed => IntCC::SignedGreaterThanOrEqual,
                Lt | Ltu | Lo => IntCC::UnsignedLessThan,
                Le | Leu | Ls => IntCC::UnsignedLessThanOrEqual,
                Gt | Gtu | Hi => IntCC::UnsignedGreaterThan,
                Ge | Geu | Hs => IntCC::UnsignedGreaterThanOrEqual,
                Num | Nan => return None,
            };
            return Some(self.b.ins().icmp(cc, x, y));
        }
        let (x, y) = match ty {
            Ty::F32 => (self.f32_operand(op, 0, s), self.f32_operand(op, 1, s)),
            Ty::F64 => (self.f64_of(a), self.f64_of(b)),
            _ => return None,
        };
        let cc = match cmp {
            Eq => FloatCC::Equal,
            Ne => FloatCC::OrderedNotEqual,
            Lt => FloatCC::LessThan,
            Le => FloatCC::LessThanOrEqual,
            Gt => FloatCC::GreaterThan,
            Ge => FloatCC::GreaterThanOrEqual,
            Equ => FloatCC::UnorderedOrEqual,
            Neu => FloatCC::NotEqual,
            Ltu => FloatCC::UnorderedOrLessThan,
            Leu => FloatCC::UnorderedOrLessThanOrEqual,
            Gtu => FloatCC::UnorderedOrGreaterThan,
            Geu => FloatCC::UnorderedOrGreaterThanOrEqual,
            Num => FloatCC::Ordered,
            Nan => FloatCC::Unordered,
            Lo | Ls | Hi | Hs => return None,
        };
        Some(self.b.ins().fcmp(cc, x, y))
    }

    /// Round-to-nearest f32/f64 add, sub, mul and fma. f32 NaNs become the
    /// canonical NaN; an f64 NaN result takes `pure::eval`'s path (which
    /// picks which input NaN propagates).
    fn float(&mut self, o: FloatOp, ty: Ty, ftz: bool, op: &Op, s: &[Value]) -> Option<Vec<Value>> {
        if ty == Ty::F32 {
            match o {
                FloatOp::Min | FloatOp::Max if !ftz => {
                    return Some(vec![self.min_max(o, s, false)])
                }
                FloatOp::Ex2 => return Some(vec![self.ex2_f32(op, s, ftz)]),
                // (A flushed operand is zero or normal, and so is the result.)
                FloatOp::Abs | FloatOp::Neg => {
                    let a = if ftz {
                        self.flush_f32(s[0])
                    } else {
                        self.b.ins().band_imm_s(s[0], 0xffff_ffff)
                    };
                    let r = if o == FloatOp::Abs {
                        self.b.ins().band_imm_s(a, 0x7fff_ffff)
                    } else {
                        self.b.ins().bxor_imm_s(a, 0x8000_0000)
                    };
                    let x = self.f32_of(a);
                    let nan = self.b.ins().fcmp(FloatCC::Unordered, x, x);
                    let canon = self.b.ins().iconst(I64, 0x7fff_ffff);
                    return Some(vec![self.b.ins().select(nan, canon, r)]);
                }
                _ => {}
            }
        }
        if ty == Ty::F64 && matches!(o, FloatOp::Min | FloatOp::Max) {
            return Some(vec![self.min_max(o, s, true)]);
        }
        if ty == Ty::F64 && matches!(o, FloatOp::Abs | FloatOp::Neg) {
            // The sign bit, except that a NaN comes back quieted as it is.
            let a = s[0];
            let r = if o == FloatOp::Abs {
                self.b.ins().band_imm_s(a, i64::MAX)
            } else {
                self.b.ins().bxor_imm_s(a, i64::MIN)
            };
            let magnitude = self.b.ins().band_imm_s(a, i64::MAX);
            let nan = self.b.ins().icmp_imm_s(
                IntCC::UnsignedGreaterThan,
                magnitude,
                0x7ff0_0000_0000_0000,
            );
            let quiet = self.b.ins().bor_imm_s(a, 1 << 51);
            return Some(vec![self.b.ins().select(nan, quiet, r)]);
        }
        let supported = match o {
            FloatOp::Add
            | FloatOp::Sub
            | FloatOp::Mul
            | FloatOp::Fma
            | FloatOp::MulAdd
            | FloatOp::Div
            | FloatOp::DivFull
            | FloatOp::Rcp
            | FloatOp::Sqrt => true,
            // `approx` forms equal to exact ones (or, for rsqrt, an exact
            // recipe) on these types only.
            FloatOp::RcpApprox | FloatOp::SqrtApprox | FloatOp::Rsqrt => ty == Ty::F32,
            FloatOp::DivApprox => ty == Ty::F64,
            _ => false,
        };
        if !supported {
            return None;
        }
        // Every operation here makes a NaN result canonical, so an f32
        // operand's NaN matters only as being one (`f32_operand`).
        let conv = |p: &mut Self, k: usize| {
            if ty == Ty::F32 {
                if ftz {
                    let v = p.flush_f32(s[k]);
                    p.f32_of(v)
                } else {
                    p.f32_operand(op, k, s)
                }
            } else {
                p.f64_of(s[k])
            }
        };
        let a = conv(self, 0);
        let one = |p: &mut Self| {
            if ty == Ty::F32 {
                p.b.ins().f32const(1.0)
            } else {
                p.b.ins().f64const(1.0)
            }
        };
        let r = match o {
            FloatOp::Add
            | FloatOp::Sub
            | FloatOp::Mul
            | FloatOp::Div
            | FloatOp::DivFull
            | FloatOp::DivApprox => {
                let b = conv(self, 1);
                match o {
                    FloatOp::Add => self.b.ins().fadd(a, b),
                    FloatOp::Sub => self.b.ins().fsub(a, b),
                    FloatOp::Mul => self.b.ins().fmul(a, b),
                    _ => self.b.ins().fdiv(a, b),
                }
            }
            FloatOp::Fma | FloatOp::MulAdd => {
                let b = conv(self, 1);
                let c = conv(self, 2);
                self.b.ins().fma(a, b, c)
            }
            FloatOp::Rcp | FloatOp::RcpApprox => {
                let o1 = one(self);
                self.b.ins().fdiv(o1, a)
            }
            FloatOp::Sqrt | FloatOp::SqrtApprox => self.b.ins().sqrt(a),
            _ => {
                // rsqrt.approx.f32: 1/sqrt in f64, rounded once to f32.
                let x = self.b.ins().fpromote(types::F64, a);
                let r = self.b.ins().sqrt(x);
                let o1 = self.b.ins().f64const(1.0);
                let q = self.b.ins().fdiv(o1, r);
                self.b.ins().fdemote(types::F32, q)
            }
        };
        if ty == Ty::F32 {
            let bits = self.f32_result(r);
            if !ftz {
                self.set_f32_result(r);
            }
            return Some(vec![if ftz { self.flush_f32(bits) } else { bits }]);
        }
        let bits = self.b.ins().bitcast(I64, self.plain, r);
        let nan = self.b.ins().fcmp(FloatCC::Unordered, r, r);
        let slow = self.b.create_block();
        let done = self.b.create_block();
        self.b.append_block_param(done, I64);
        self.b.set_cold_block(slow);
        self.b.ins().brif(nan, slow, &[], done, &[bits.into()]);
        self.b.switch_to_block(slow);
        let v = self.call_pure_cold(op, s)[0];
        self.b.ins().jump(done, &[v.into()]);
        self.b.switch_to_block(done);
        Some(vec![self.b.block_params(done)[0]])
    }

    /// `ex2.approx{.ftz}.f32`: as `sem::float`'s approximate functions
    /// compute it, `exp2` in f64 rounded once to f32 (a NaN input gives
    /// the canonical NaN), the input and result flushed for `.ftz`.
    fn ex2_f32(&mut self, op: &Op, s: &[Value], ftz: bool) -> Value {
        let x = if ftz {
            let v = self.flush_f32(s[0]);
            self.f32_of(v)
        } else {
            self.f32_operand(op, 0, s)
        };
        let wide = self.b.ins().fpromote(types::F64, x);
        let e = self.call_f64_fn(crate::sem::float::exp2, wide);
        let r = self.b.ins().fdemote(types::F32, e);
        let bits = self.f32_result(r);
        if ftz {
            self.flush_f32(bits)
        } else {
            self.set_f32_result(r);
            bits
        }
    }

    /// An f32 (low 32 bits of `v`) with subnormals flushed to a zero of the same sign.
    fn flush_f32(&mut self, v: Value) -> Value {
        let a = self.b.ins().band_imm_s(v, 0xffff_ffff);
        let exp = self.b.ins().band_imm_s(a, 0x7f80_0000);
        let sub = self.b.ins().icmp_imm_s(IntCC::Equal, exp, 0);
        let sign = self.b.ins().band_imm_s(a, 0x8000_0000);
        self.b.ins().select(sub, sign, a)
    }

    /// `min`/`max` on f32 or f64 (`wide`), as `sem::float` computes them: a
    /// NaN operand yields the other, and -0 orders below +0; two NaNs give
    /// the canonical NaN (f32) or the second one quieted (f64).
    fn min_max(&mut self, o: FloatOp, s: &[Value], wide: bool) -> Value {
        let (a, b, x, y, sign) = if wide {
            let (x, y) = (self.f64_of(s[0]), self.f64_of(s[1]));
            (s[0], s[1], x, y, 1u64 << 63)
        } else {
            let a = self.b.ins().band_imm_s(s[0], 0xffff_ffff);
            let b = self.b.ins().band_imm_s(s[1], 0xffff_ffff);
            let (x, y) = (self.f32_of(a), self.f32_of(b));
            (a, b, x, y, 0x8000_0000)
        };
        let na = self.b.ins().fcmp(FloatCC::Unordered, x, x);
        let nb = self.b.ins().fcmp(FloatCC::Unordered, y, y);
        let lt = self.b.ins().fcmp(FloatCC::LessThan, x, y);
        let eq = self.b.ins().fcmp(FloatCC::Equal, x, y);
        let a_neg = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, a, sign as i64);
        let b_pos = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, b, sign as i64);
        let signs = self.b.ins().band(a_neg, b_pos);
        let tie = self.b.ins().band(eq, signs);
        let a_less = self.b.ins().bor(lt, tie);
        let r = if o == FloatOp::Min {
            self.b.ins().select(a_less, a, b)
        } else {
            self.b.ins().select(a_less, b, a)
        };
        let r = self.b.ins().select(nb, a, r);
        let r = self.b.ins().select(na, b, r);
        let both = self.b.ins().band(na, nb);
        let two_nans = if wide {
            self.b.ins().bor_imm_s(b, 1 << 51)
        } else {
            self.b.ins().iconst(I64, 0x7fff_ffff)
        };
        self.b.ins().select(both, two_nans, r)
    }

    /// A special register's value for the current lane.
    pub fn special(&mut self, s: SpecialReg) -> Value {
        let u32_at = |p: &mut Self, off: i32| {
            let v = p.load_env(I32, off);
            p.b.ins().uextend(I64, v)
        };
        match s {
            SpecialReg::Tid(d) => {
                let lane4 = self.b.ins().ishl_imm_s(self.lane, 2);
                let base = self.b.ins().iadd(self.env, lane4);
                let v = self
                    .b
                    .ins()
                    .load(I32, self.trusted, base, offsets::TID + d as i32 * 128);
                self.b.ins().uextend(I64, v)
            }
            SpecialReg::Ntid(d) => u32_at(self, offsets::NTID + 4 * d as i32),
            SpecialReg::Ctaid(d) => u32_at(self, offsets::CTAID + 4 * d as i32),
            SpecialReg::Nctaid(d) => u32_at(self, offsets::NCTAID + 4 * d as i32),
            SpecialReg::Laneid => self.lane,
            SpecialReg::Warpid => u32_at(self, offsets::WARP_INDEX),
            SpecialReg::Nwarpid => self.b.ins().iconst(I64, 64),
            SpecialReg::Smid | SpecialReg::Gridid => self.b.ins().iconst(I64, 0),
            SpecialReg::Nsmid => self.b.ins().iconst(I64, 1),
            SpecialReg::LanemaskEq
            | SpecialReg::LanemaskLt
            | SpecialReg::LanemaskLe
            | SpecialReg::LanemaskGt
            | SpecialReg::LanemaskGe => {
                let one = self.b.ins().iconst(I64, 1);
                let eq = self.b.ins().ishl(one, self.lane);
                let below = self.b.ins().iadd_imm_s(eq, -1);
                let le = self.b.ins().bor(below, eq);
                let v = match s {
                    SpecialReg::LanemaskEq => eq,
                    SpecialReg::LanemaskLt => below,
                    SpecialReg::LanemaskLe => le,
                    SpecialReg::LanemaskGt => self.b.ins().bnot(le),
                    _ => self.b.ins().bnot(below),
                };
                self.b.ins().band_imm_s(v, 0xffff_ffff)
            }
            SpecialReg::Clock | SpecialReg::ClockHi | SpecialReg::Clock64 => {
                let c = self
                    .b
                    .ins()
                    .iadd_imm_s(self.clock, self.clock_offset as i64);
                match s {
                    SpecialReg::Clock => self.b.ins().band_imm_s(c, 0xffff_ffff),
                    SpecialReg::ClockHi => self.b.ins().ushr_imm_s(c, 32),
                    _ => c,
                }
            }
            SpecialReg::DynamicSmemSize => u32_at(self, offsets::DYNAMIC_SHARED),
            SpecialReg::TotalSmemSize => u32_at(self, offsets::TOTAL_SHARED),
            SpecialReg::AggrSmemSize => {
                let user = u32_at(self, offsets::TOTAL_SHARED);
                self.b
                    .ins()
                    .iadd_imm_s(user, crate::engine::RESERVED_SHARED as i64)
            }
            SpecialReg::Pm(_) | SpecialReg::Pm64(_) | SpecialReg::CurrentGraphExec => {
                self.b.ins().iconst(I64, 0)
            }
            SpecialReg::Globaltimer
            | SpecialReg::GlobaltimerLo
            | SpecialReg::GlobaltimerHi
            | SpecialReg::ReservedSmem(_)
            | SpecialReg::Envreg(_)
            | SpecialReg::Cluster(_) => {
                unreachable!(
                    "the plan keeps timer, reserved-memory, envreg and cluster reads out of pieces"
                )
            }
        }
    }
}

/// A conversion between f32 and f16/bf16 the JIT does without `pure::eval`.
enum HalfCvt {
    /// f32 to f16 or bf16 through the helper.
    Narrow(extern "C" fn(u64) -> u64),
    /// Two f32 (low and high words) to a packed pair through the helper.
    NarrowPair(extern "C" fn(u64) -> u64),
    WidenF16,
    WidenBf16,
}

fn half_conversion(dst: Ty, src: Ty) -> Option<HalfCvt> {
    use crate::sem::cvt::{f32_to_bf16_rn, f32_to_f16_rn};
    Some(match (dst, src) {
        (Ty::F16, Ty::F32) => HalfCvt::Narrow(f32_to_f16_rn),
        (Ty::Bf16, Ty::F32) => HalfCvt::Narrow(f32_to_bf16_rn),
        (Ty::F16x2, Ty::F32) => HalfCvt::NarrowPair(f32_to_f16_rn),
        (Ty::Bf16x2, Ty::F32) => HalfCvt::NarrowPair(f32_to_bf16_rn),
        (Ty::F32, Ty::F16) => HalfCvt::WidenF16,
        (Ty::F32, Ty::Bf16) => HalfCvt::WidenBf16,
        _ => return None,
    })
}
