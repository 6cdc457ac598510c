//! Float comparisons (`setp`/`set` operators, PTX ISA §9.7.3.5 and
//! §9.7.4's `setp` on f16/bf16 forms), `testp` (§9.7.3.1) and the
//! floating-point `redux.sync` reduction (§9.7.13, `redux.sync`).
use super::fmt::{Fmt, BF16, F16, F32, F64};
use crate::ir::ops::{CmpOp, TestProp, Ty};

/// Float comparison (`setp.cmp.ftz.ty`), ordered and unordered forms; for
/// packed x2 types returns bit 0 for the low half and bit 1 for the high half.
///
/// `.ftz` flushes subnormal operands first (ignored for f64, which has no
/// `.ftz`). The unsigned-integer operators (`lo ls hi hs`) are not valid
/// for floats and give 0.
pub fn compare_float(cmp: CmpOp, ty: Ty, ftz: bool, a: u64, b: u64) -> u64 {
    let one = |fmt: Fmt, x: u64, y: u64| compare1(fmt, cmp, ftz && fmt != F64, x, y) as u64;
    let half = |x: u64, i: u32| (x >> (16 * i)) & 0xFFFF;
    match ty {
        Ty::F16 => one(F16, a, b),
        Ty::Bf16 => one(BF16, a, b),
        Ty::F32 => one(F32, a, b),
        Ty::F64 => one(F64, a, b),
        Ty::F16x2 => one(F16, half(a, 0), half(b, 0)) | one(F16, half(a, 1), half(b, 1)) << 1,
        Ty::Bf16x2 => one(BF16, half(a, 0), half(b, 0)) | one(BF16, half(a, 1), half(b, 1)) << 1,
        _ => 0,
    }
}

fn compare1(fmt: Fmt, cmp: CmpOp, ftz: bool, a: u64, b: u64) -> bool {
    let (a, b) = (fmt.flush_if(ftz, a), fmt.flush_if(ftz, b));
    let unordered = fmt.is_nan(a) || fmt.is_nan(b);
    // NaN operands compare false in every ordered relation below.
    let (x, y) = (fmt.to_f64(a), fmt.to_f64(b));
    match cmp {
        CmpOp::Eq => x == y,
        CmpOp::Ne => !unordered && x != y,
        CmpOp::Lt => x < y,
        CmpOp::Le => x <= y,
        CmpOp::Gt => x > y,
        CmpOp::Ge => x >= y,
        CmpOp::Equ => unordered || x == y,
        CmpOp::Neu => unordered || x != y,
        CmpOp::Ltu => unordered || x < y,
        CmpOp::Leu => unordered || x <= y,
        CmpOp::Gtu => unordered || x > y,
        CmpOp::Geu => unordered || x >= y,
        CmpOp::Num => !unordered,
        CmpOp::Nan => unordered,
        CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs => false,
    }
}

/// `testp.prop.ty` (f32 and f64; f16 and bf16 by the same definitions;
/// packed types give false). Zeros count as normal, as the ISA says.
pub fn testp(prop: TestProp, ty: Ty, a: u64) -> bool {
    let fmt = match ty {
        Ty::F16 => F16,
        Ty::Bf16 => BF16,
        Ty::F32 => F32,
        Ty::F64 => F64,
        _ => return false,
    };
    let (nan, inf, sub) = (fmt.is_nan(a), fmt.is_inf(a), fmt.is_subnormal(a));
    match prop {
        TestProp::Finite => !nan && !inf,
        TestProp::Infinite => inf,
        TestProp::Number => !nan,
        TestProp::NotANumber => nan,
        TestProp::Normal => !nan && !inf && !sub,
        TestProp::Subnormal => sub,
    }
}

/// `redux.sync.{min,max}{.abs}{.NaN}.f32` (PTX ISA 8.6, sm_100a) of the
/// member lanes' values `vals` (f32 bits): `.abs` takes each value's
/// magnitude (its sign bit cleared) first; `+0.0` is greater than `-0.0`;
/// with `.NaN` any NaN input makes the result the canonical NaN, without
/// it NaNs are left out and only all-NaN inputs give the canonical NaN.
/// Otherwise the result is the least (greatest) value's bits, subnormals
/// kept (the ISA has no `.ftz` here).
pub fn redux_f32(max: bool, abs: bool, nan: bool, vals: impl IntoIterator<Item = u32>) -> u32 {
    const CANONICAL_NAN: u32 = 0x7FFF_FFFF;
    // A total order on non-NaN bits in which -0.0 < +0.0.
    let key = |x: u32| {
        if x >> 31 == 0 {
            x as i64
        } else {
            -((x & 0x7FFF_FFFF) as i64) - 1
        }
    };
    let mut best: Option<u32> = None;
    for v in vals {
        let v = if abs { v & 0x7FFF_FFFF } else { v };
        if F32.is_nan(v as u64) {
            if nan {
                return CANONICAL_NAN;
            }
            continue;
        }
        best = Some(match best {
            Some(b) if (key(v) > key(b)) != max => b,
            Some(b) if key(v) == key(b) => b,
            _ => v,
        });
    }
    best.unwrap_or(CANONICAL_NAN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use CmpOp::*;

    fn f(x: f32) -> u64 {
        x.to_bits() as u64
    }
    fn d(x: f64) -> u64 {
        x.to_bits()
    }

    fn cmp32(c: CmpOp, a: f32, b: f32) -> u64 {
        compare_float(c, Ty::F32, false, a.to_bits() as u64, b.to_bits() as u64)
    }

    #[test]
    fn compare_ordered_and_unordered() {
        let n = f32::NAN;
        let table: [(CmpOp, [u64; 4]); 14] = [
            // (1,2), (2,2), (2,1), (1,NaN)
            (Eq, [0, 1, 0, 0]),
            (Ne, [1, 0, 1, 0]),
            (Lt, [1, 0, 0, 0]),
            (Le, [1, 1, 0, 0]),
            (Gt, [0, 0, 1, 0]),
            (Ge, [0, 1, 1, 0]),
            (Equ, [0, 1, 0, 1]),
            (Neu, [1, 0, 1, 1]),
            (Ltu, [1, 0, 0, 1]),
            (Leu, [1, 1, 0, 1]),
            (Gtu, [0, 0, 1, 1]),
            (Geu, [0, 1, 1, 1]),
            (Num, [1, 1, 1, 0]),
            (CmpOp::Nan, [0, 0, 0, 1]),
        ];
        for (c, want) in table {
            let got = [
                cmp32(c, 1.0, 2.0),
                cmp32(c, 2.0, 2.0),
                cmp32(c, 2.0, 1.0),
                cmp32(c, 1.0, n),
            ];
            assert_eq!(got, want, "{c:?}");
            assert_eq!(cmp32(c, n, n), want[3], "{c:?} both NaN");
        }
        // -0 == +0; infinities order.
        assert_eq!(cmp32(Eq, -0.0, 0.0), 1);
        assert_eq!(cmp32(Lt, f32::NEG_INFINITY, -3e38), 1);
        // Integer operators are not float comparisons.
        assert_eq!(cmp32(Lo, 1.0, 2.0), 0);
        assert_eq!(cmp32(Hs, 2.0, 1.0), 0);
    }

    #[test]
    fn compare_other_types_and_ftz() {
        // A subnormal equals zero only under .ftz.
        assert_eq!(compare_float(Eq, Ty::F32, false, 1, 0), 0);
        assert_eq!(compare_float(Eq, Ty::F32, true, 1, 0x8000_0000), 1);
        assert_eq!(compare_float(Gt, Ty::F16, true, 0x0001, 0), 0);
        assert_eq!(compare_float(Gt, Ty::F16, false, 0x0001, 0), 1);
        assert_eq!(compare_float(Lt, Ty::F64, false, d(1.0), d(1.5)), 1);
        assert_eq!(compare_float(Gt, Ty::F64, true, 1, 0), 1); // no ftz for f64
        assert_eq!(compare_float(Lt, Ty::Bf16, false, 0xBF80, 0x3F80), 1);
        assert_eq!(compare_float(Equ, Ty::Bf16, false, 0x7FC0, 0x3F80), 1);
        // Packed: bit 0 low half, bit 1 high half.
        assert_eq!(
            compare_float(Lt, Ty::F16x2, false, 0x3C00_4000, 0x4000_3C00),
            0b10
        );
        assert_eq!(
            compare_float(Lt, Ty::F16x2, false, 0x4000_3C00, 0x3C00_4000),
            0b01
        );
        assert_eq!(
            compare_float(Ne, Ty::Bf16x2, false, 0x3F80_3F80, 0x3F80_4000),
            0b01
        );
        assert_eq!(
            compare_float(CmpOp::Nan, Ty::F16x2, false, 0x7E00_7E00, 0),
            0b11
        );
        assert_eq!(compare_float(Eq, Ty::U32, false, 1, 1), 0);
    }

    #[test]
    fn testp_properties() {
        use TestProp::*;
        let cases: [(u64, [bool; 6]); 7] = [
            // Finite, Infinite, Number, NotANumber, Normal, Subnormal
            (f(1.0), [true, false, true, false, true, false]),
            (0, [true, false, true, false, true, false]),
            (0x8000_0000, [true, false, true, false, true, false]),
            (0x0000_0001, [true, false, true, false, false, true]),
            (0xFF80_0000, [false, true, true, false, false, false]),
            (0x7FC0_0000, [false, false, false, true, false, false]),
            (0xFF80_0001, [false, false, false, true, false, false]),
        ];
        let props = [Finite, Infinite, Number, NotANumber, Normal, Subnormal];
        for (x, want) in cases {
            for (p, w) in props.iter().zip(want) {
                assert_eq!(testp(*p, Ty::F32, x), w, "{p:?} {x:#x}");
            }
        }
        assert!(testp(Subnormal, Ty::F64, 1));
        assert!(!testp(Subnormal, Ty::F64, 0x0010_0000_0000_0000));
        assert!(testp(Normal, Ty::F64, 0x0010_0000_0000_0000));
        assert!(testp(Infinite, Ty::F64, 0x7FF0_0000_0000_0000));
        assert!(testp(NotANumber, Ty::F64, 0x7FF0_0000_0000_0001));
        assert!(!testp(Finite, Ty::F64, 0x7FF8_0000_0000_0000));
        assert!(testp(Subnormal, Ty::F16, 0x0200));
        assert!(!testp(Number, Ty::F16x2, 0));
    }

    #[test]
    fn redux_f32_orders_zeros_skips_or_propagates_nans() {
        let b = |x: f32| x.to_bits();
        const QNAN: u32 = 0x7FC0_0001;
        const SNAN: u32 = 0xFF80_0001;
        const CANON: u32 = 0x7FFF_FFFF;
        // +0 > -0 whatever the order of the lanes.
        for vals in [[b(0.0), b(-0.0)], [b(-0.0), b(0.0)]] {
            assert_eq!(redux_f32(false, false, false, vals), b(-0.0));
            assert_eq!(redux_f32(true, false, false, vals), b(0.0));
            // `.abs` makes both +0.
            assert_eq!(redux_f32(false, true, false, vals), b(0.0));
        }
        let vals = [b(-3.0), QNAN, b(2.0), b(-0.5)];
        assert_eq!(redux_f32(false, false, false, vals), b(-3.0));
        assert_eq!(redux_f32(true, false, false, vals), b(2.0));
        assert_eq!(redux_f32(false, true, false, vals), b(0.5));
        assert_eq!(redux_f32(true, true, false, vals), b(3.0));
        assert_eq!(redux_f32(false, false, true, vals), CANON);
        assert_eq!(redux_f32(true, true, true, vals), CANON);
        // All NaN: the canonical NaN, with or without `.NaN`.
        assert_eq!(redux_f32(true, false, false, [QNAN, SNAN]), CANON);
        assert_eq!(redux_f32(false, true, false, [SNAN]), CANON);
        // Infinities and subnormals are values like any other.
        let vals = [0x0000_0001, b(f32::NEG_INFINITY), 0x8000_0003];
        assert_eq!(redux_f32(false, false, false, vals), b(f32::NEG_INFINITY));
        assert_eq!(redux_f32(true, false, false, vals), 0x0000_0001);
        assert_eq!(redux_f32(false, true, false, vals), 0x0000_0001);
        assert_eq!(redux_f32(true, true, false, vals), b(f32::INFINITY));
    }
}
