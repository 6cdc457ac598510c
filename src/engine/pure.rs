//! The value semantics of the pure micro-ops (those that only read their
//! sources and write their destinations) for one lane, shared by both
//! engines: the interpreter calls [`eval`] per active lane, and the JIT calls
//! it (through `jit::helpers`) for every pure op it does not generate inline.
//! Keeping one definition means the engines cannot disagree on these ops.

use crate::ir::{BoolOp, IntBinOp, IntTernOp, Op, OpKind, Space, Ty};
use crate::runtime::memory::{
    CLUSTER_RANK_SHIFT, CLUSTER_SHARED, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE,
};
use crate::sem;

/// Most sources or destinations a pure op has.
pub const MAX_OPERANDS: usize = 8;

/// What `set` writes for one comparison into a `bits`-wide destination
/// (PTX ISA §9.7.4.1, §9.7.7.1): 1.0 or 0.0 in a floating-point
/// destination's own format, all ones or zero in an integer one.
fn set_value(dty: Ty, r: bool, bits: u32) -> u64 {
    if !r {
        return 0;
    }
    match dty {
        Ty::F32 => 1.0f32.to_bits() as u64,
        Ty::F16 | Ty::F16x2 => 0x3c00,
        Ty::Bf16 | Ty::Bf16x2 => 0x3f80,
        _ if bits >= 64 => u64::MAX,
        _ => (1u64 << bits) - 1,
    }
}

fn combine(op: Option<BoolOp>, a: bool, c: bool) -> bool {
    match op {
        None => a,
        Some(BoolOp::And) => a && c,
        Some(BoolOp::Or) => a || c,
        Some(BoolOp::Xor) => a != c,
    }
}

/// Whether `kind` is a pure op that [`eval`] computes.
pub fn is_pure(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::Mov
            | OpKind::IntBin { .. }
            | OpKind::IntUn { .. }
            | OpKind::IntTern { .. }
            | OpKind::AddCarry { .. }
            | OpKind::MadCarry { .. }
            | OpKind::Float { .. }
            | OpKind::Setp { .. }
            | OpKind::Set { .. }
            | OpKind::Selp
            | OpKind::Video(_)
            | OpKind::Slct { .. }
            | OpKind::Testp { .. }
            | OpKind::Cvt { .. }
            | OpKind::CvtFp8 { .. }
            | OpKind::CvtTf32 { .. }
            | OpKind::CvtPack { .. }
            | OpKind::Pack { .. }
            | OpKind::Unpack { .. }
            | OpKind::Cvta { .. }
            | OpKind::Isspacep { .. }
            | OpKind::Mapa { .. }
    )
}

/// Computes a pure op for one lane from its source values `s`, writing one
/// value per destination to `out` (before masking to the destination
/// register's width, which the caller does).
pub fn eval(op: &Op, s: &[u64], out: &mut [u64; MAX_OPERANDS]) {
    let src = |i: usize| s.get(i).copied().unwrap_or(0);
    match &op.kind {
        OpKind::Mov => out[0] = src(0),
        OpKind::IntBin { op: o, ty } => {
            let rty = if matches!(o, IntBinOp::MulWide) {
                ty.widened()
            } else {
                *ty
            };
            out[0] = extend(rty, sem::int::int_binary(*o, *ty, src(0), src(1)));
        }
        OpKind::IntUn { op: o, ty } => out[0] = extend(*ty, sem::int::int_unary(*o, *ty, src(0))),
        OpKind::IntTern { op: o, ty } => {
            let v = sem::int::int_ternary(*o, *ty, &s[..s.len().min(4)]);
            let rty = if matches!(o, IntTernOp::MadWide) {
                ty.widened()
            } else {
                *ty
            };
            out[0] = extend(rty, v);
        }
        OpKind::AddCarry {
            ty,
            subtract,
            carry_in,
            ..
        } => {
            let cin = *carry_in && src(2) & 1 != 0;
            let (v, cout) = sem::int::add_carry(*ty, src(0), src(1), cin, *subtract);
            out[0] = v;
            out[1] = cout as u64;
        }
        OpKind::MadCarry {
            hi, ty, carry_in, ..
        } => {
            let cin = *carry_in && src(3) & 1 != 0;
            let (v, cout) = sem::int::mad_carry(*hi, *ty, src(0), src(1), src(2), cin);
            out[0] = v;
            out[1] = cout as u64;
        }
        OpKind::Float { op: o, ty, mods } => {
            out[0] = sem::float::float_op(*o, *ty, *mods, &s[..s.len().min(3)]);
        }
        OpKind::Setp {
            cmp,
            ty,
            ftz,
            combine: comb,
        } => {
            let (a, b) = (src(0), src(1));
            let c = comb.is_some() && src(2) & 1 != 0;
            if matches!(ty, Ty::F16x2 | Ty::Bf16x2) {
                let r = sem::float::compare_float(*cmp, *ty, *ftz, a, b);
                out[0] = combine(*comb, r & 1 != 0, c) as u64;
                out[1] = combine(*comb, r & 2 != 0, c) as u64;
                return;
            }
            let r = if ty.is_float() {
                sem::float::compare_float(*cmp, *ty, *ftz, a, b) & 1 != 0
            } else {
                sem::int::compare_int(*cmp, *ty, a, b)
            };
            out[0] = combine(*comb, r, c) as u64;
            out[1] = combine(*comb, !r, c) as u64;
        }
        OpKind::Set {
            cmp,
            dty,
            sty,
            ftz,
            combine: comb,
        } => {
            let c = comb.is_some() && src(2) & 1 != 0;
            if matches!(sty, Ty::F16x2 | Ty::Bf16x2) {
                // Each half compared on its own, each result in its half of
                // `d` (PTX ISA §9.7.7.1): 1.0 in the destination's format
                // for `.f16x2`/`.bf16x2`, 0xffff for `.u32`/`.s32`.
                let r = sem::float::compare_float(*cmp, *sty, *ftz, src(0), src(1));
                let half = |t: bool| combine(*comb, t, c);
                out[0] = set_value(*dty, half(r & 1 != 0), 16)
                    | set_value(*dty, half(r & 2 != 0), 16) << 16;
                return;
            }
            let r = if sty.is_float() {
                sem::float::compare_float(*cmp, *sty, *ftz, src(0), src(1)) & 1 != 0
            } else {
                sem::int::compare_int(*cmp, *sty, src(0), src(1))
            };
            out[0] = set_value(*dty, combine(*comb, r, c), dty.bits());
        }
        OpKind::Selp => out[0] = if src(2) & 1 != 0 { src(0) } else { src(1) },
        OpKind::Video(v) => out[0] = sem::video::eval(v, src(0), src(1), src(2)),
        OpKind::Slct { cty, ftz } => {
            let c = src(2);
            let pick_a = match cty {
                Ty::F32 => {
                    let mut f = f32::from_bits(c as u32);
                    if *ftz && f.is_subnormal() {
                        f = 0.0;
                    }
                    f >= 0.0
                }
                _ => (c as u32 as i32) >= 0,
            };
            out[0] = if pick_a { src(0) } else { src(1) };
        }
        OpKind::Testp { prop, ty } => out[0] = sem::float::testp(*prop, *ty, src(0)) as u64,
        // A signed result narrower than its register is sign-extended (PTX ISA §6.4.2).
        OpKind::Cvt {
            dst,
            src: sty,
            mods,
        } => out[0] = extend(*dst, sem::cvt::cvt(*dst, *sty, *mods, src(0))),
        OpKind::Pack { bits } => {
            let m = if *bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            out[0] = s
                .iter()
                .enumerate()
                .fold(0, |v, (k, x)| v | (x & m) << (k as u32 * bits));
        }
        OpKind::Unpack { bits } => {
            let m = if *bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            for (k, o) in out.iter_mut().enumerate().take(op.dsts.len()) {
                *o = (src(0) >> (k as u32 * bits)) & m;
            }
        }
        OpKind::CvtFp8 { form, ty, relu } => {
            out[0] = sem::fp8::eval(*form, *ty, *relu, src(0), src(1));
        }
        OpKind::CvtTf32 {
            rounding,
            satfinite,
            relu,
        } => out[0] = sem::cvt_extra::tf32(src(0) as u32, *rounding, *satfinite, *relu) as u64,
        OpKind::CvtPack { bits, signed } => {
            let (a, b, c) = (src(0) as u32, src(1) as u32, src(2) as u32);
            out[0] = sem::cvt_extra::pack(*bits as u32, *signed, a, b, c) as u64;
        }
        OpKind::Cvta { space, to_generic } => {
            let window = match space {
                Space::Shared => SHARED_WINDOW,
                Space::Local => LOCAL_WINDOW,
                Space::KernelParam => PARAM_WINDOW,
                _ => 0,
            };
            out[0] = if *to_generic {
                src(0).wrapping_add(window)
            } else {
                src(0).wrapping_sub(window)
            };
        }
        OpKind::Isspacep { space, cluster } => {
            let a = src(0);
            let in_shared = (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&a);
            let in_local = (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&a);
            let in_param = (PARAM_WINDOW..PARAM_WINDOW + WINDOW_SIZE).contains(&a);
            out[0] = match space {
                // Another CTA's shared memory lies in the window too
                // (`interp::cluster`): only `.shared::cluster` includes it.
                Space::Shared => in_shared && (*cluster || a - SHARED_WINDOW < CLUSTER_SHARED),
                Space::Local => in_local,
                Space::KernelParam => in_param,
                // "isspacep.global returns 1 for kernel function
                // parameters, as the .param window is contained within
                // the .global window" (PTX ISA, isspacep); NVVM folds
                // `__isGlobal` of a grid constant's address to 1.
                Space::Global | Space::Const => !in_shared && !in_local,
                _ => false,
            } as u64;
        }
        OpKind::Mapa { generic } => out[0] = mapa(src(0), src(1), *generic),
        other => unreachable!("{other:?} is not a pure op"),
    }
}

/// Sign- or zero-extends a loaded value of type `ty` to 64 bits.
pub fn extend(ty: Ty, v: u64) -> u64 {
    match ty {
        Ty::S8 => v as u8 as i8 as i64 as u64,
        Ty::S16 => v as u16 as i16 as i64 as u64,
        Ty::S32 => v as u32 as i32 as i64 as u64,
        _ => v,
    }
}

/// Whether [`extend`] sign-extends loads of `ty`.
pub fn extend_is_signed(ty: Ty) -> bool {
    matches!(ty, Ty::S8 | Ty::S16 | Ty::S32)
}

/// The most CTAs a cluster may have (16 with the non-portable size).
pub const MAX_RANKS: u64 = 16;

/// `mapa`: the shared::cluster address (generic: the generic address) of
/// `a`'s location in the shared memory of the cluster's CTA `rank`. An
/// address that is not of shared memory maps to 0 (faults when used);
/// a location past 16 MiB or a rank past 15 maps to an address whose rank
/// is outside every cluster.
pub fn mapa(a: u64, rank: u64, generic: bool) -> u64 {
    let off = if generic {
        if !(SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&a) {
            return 0;
        }
        a - SHARED_WINDOW
    } else {
        a & 0xffff_ffff
    };
    let inner = if is_ranked(off) {
        off & ((1 << CLUSTER_RANK_SHIFT) - 1)
    } else {
        off
    };
    let out = if inner >> CLUSTER_RANK_SHIFT != 0 || rank >= MAX_RANKS {
        0xffff_ffff
    } else {
        CLUSTER_SHARED + (rank << CLUSTER_RANK_SHIFT) + inner
    };
    out + if generic { SHARED_WINDOW } else { 0 }
}

/// Whether a shared-window offset names a CTA by rank.
pub fn is_ranked(off: u64) -> bool {
    off >= CLUSTER_SHARED
}
