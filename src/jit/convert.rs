//! Inline code for float conversions without modifiers beyond their
//! rounding: f32 to f64, f64 to f32 (round to nearest even), and float to
//! integer truncating (`.rzi`) or to nearest even (`.rni`). Each computes
//! what `sem::cvt::cvt` computes, NaNs included (a NaN keeps its sign and
//! payload, quieted, between f32 and f64; to an integer it gives 0, or the
//! sign bit alone where the source is f64 or the destination 64 bits
//! wide), and out-of-range values saturate; anything else returns `None`
//! (the piece calls the interpreter's evaluator).

use cranelift_codegen::ir::{condcodes::FloatCC, types, InstBuilder, Value};

use super::emit::{PieceBuilder, I32, I64};
use crate::ir::{CvtMods, IntRounding, Rounding, Ty};

impl PieceBuilder<'_, '_> {
    /// `cvt` of the operand `x` (its register bits) from `src` to `dst`.
    pub fn float_cvt(&mut self, dst: Ty, src: Ty, mods: &CvtMods, x: Value) -> Option<Value> {
        if mods.ftz || mods.sat || mods.relu || mods.satfinite {
            return None;
        }
        match (dst, src) {
            (Ty::F64, Ty::F32) if mods.rounding.is_none() && mods.int_rounding.is_none() => {
                let f = self.f32_of(x);
                let w = self.b.ins().fpromote(types::F64, f);
                let bits = self.b.ins().bitcast(I64, self.plain, w);
                let q = self.converted_nan(x, true);
                let nan = self.b.ins().fcmp(FloatCC::Unordered, f, f);
                Some(self.b.ins().select(nan, q, bits))
            }
            (Ty::F32, Ty::F64)
                if matches!(mods.rounding, None | Some(Rounding::Rn))
                    && mods.int_rounding.is_none() =>
            {
                let f = self.b.ins().bitcast(types::F64, self.plain, x);
                let n = self.b.ins().fdemote(types::F32, f);
                let bits = self.b.ins().bitcast(I32, self.plain, n);
                let bits = self.b.ins().uextend(I64, bits);
                let q = self.converted_nan(x, false);
                let nan = self.b.ins().fcmp(FloatCC::Unordered, f, f);
                Some(self.b.ins().select(nan, q, bits))
            }
            (Ty::S32 | Ty::U32 | Ty::S64 | Ty::U64, Ty::F32 | Ty::F64)
                if matches!(mods.int_rounding, Some(IntRounding::Rzi | IntRounding::Rni))
                    && mods.rounding.is_none() =>
            {
                let f = if src == Ty::F32 {
                    self.f32_of(x)
                } else {
                    self.b.ins().bitcast(types::F64, self.plain, x)
                };
                let f = if mods.int_rounding == Some(IntRounding::Rni) {
                    self.round_to_nearest_even(f, src == Ty::F32)
                } else {
                    f
                };
                let wide = dst.bits() == 64;
                let ity = if wide { I64 } else { I32 };
                // Truncating, saturating, a NaN giving 0.
                let r = if dst.is_signed() {
                    self.b.ins().fcvt_to_sint_sat(ity, f)
                } else {
                    self.b.ins().fcvt_to_uint_sat(ity, f)
                };
                let r = if wide {
                    r
                } else if dst.is_signed() {
                    self.b.ins().sextend(I64, r)
                } else {
                    self.b.ins().uextend(I64, r)
                };
                if src == Ty::F32 && !wide {
                    return Some(r);
                }
                let sign_bit = 1u64 << (dst.bits() - 1);
                let nan_value = if dst.is_signed() && !wide {
                    // Sign-extended, as a narrow signed result is.
                    self.b.ins().iconst(I64, i32::MIN as i64)
                } else {
                    self.b.ins().iconst(I64, sign_bit as i64)
                };
                let nan = self.b.ins().fcmp(FloatCC::Unordered, f, f);
                Some(self.b.ins().select(nan, nan_value, r))
            }
            _ => None,
        }
    }

    /// The bits of the NaN `x` (f32, or f64) converted to f64 (`widen`) or
    /// to f32: its sign, an all-ones exponent, the quiet bit and its payload
    /// moved by the mantissas' difference (29 bits).
    fn converted_nan(&mut self, x: Value, widen: bool) -> Value {
        // (Field of the source, shift into the destination) for the sign
        // and the payload, and the destination's exponent and quiet bit.
        let (sign, payload, quiet): ((u64, i64), (u64, i64), u64) = if widen {
            ((0x8000_0000, 32), (0x007f_ffff, 29), 0x7ff8_0000_0000_0000)
        } else {
            ((1 << 63, -32), (0x000f_ffff_e000_0000, -29), 0x7fc0_0000)
        };
        let mut q = self.b.ins().iconst(I64, quiet as i64);
        for (field, shift) in [sign, payload] {
            let bits = self.b.ins().band_imm_s(x, field as i64);
            let moved = if shift > 0 {
                self.b.ins().ishl_imm_s(bits, shift)
            } else {
                self.b.ins().ushr_imm_s(bits, -shift)
            };
            q = self.b.ins().bor(q, moved);
        }
        q
    }

    /// `f` (f32 when `narrow`, exactly widened) rounded to an integral f64,
    /// ties to even: `(f + c) - c` with `c = ±2^52` rounds in the host's
    /// default mode where `|f| < 2^52`; larger values are integral already.
    fn round_to_nearest_even(&mut self, f: Value, narrow: bool) -> Value {
        let f = if narrow {
            self.b.ins().fpromote(types::F64, f)
        } else {
            f
        };
        let two52 = self.b.ins().f64const(4_503_599_627_370_496.0);
        let c = self.b.ins().fcopysign(two52, f);
        let up = self.b.ins().fadd(f, c);
        let r = self.b.ins().fsub(up, c);
        let magnitude = self.b.ins().fabs(f);
        let small = self.b.ins().fcmp(FloatCC::LessThan, magnitude, two52);
        self.b.ins().select(small, r, f)
    }
}
