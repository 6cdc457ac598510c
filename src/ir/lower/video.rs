//! The video instructions (PTX ISA 8.8 §9.7.16): the scalar `vadd vsub
//! vabsdiff vmin vmax vshl vshr vset` with selectors, `.sat`, a secondary
//! operation or a data merge, `vmad`, and the SIMD `vop2`/`vop4` forms with
//! selectors, masks, `.sat` and `.add`, each to one `OpKind::Video` whose
//! [`VideoOp`] says everything the semantics need.
//!
//! Lowering checks what ptxas checks (and rejects the same forms): the
//! number and kind of types (`.u32`/`.s32` only, `vshl`/`vshr`'s `b` is
//! `.u32`), each opcode's own modifiers, the selectors each operand may
//! take, a destination selector with a secondary operation, `.sat` with
//! `.add` on SIMD forms, `vmad`'s negations (of `a*b` or `c`, never both,
//! and none with `.po`).
//!
//! Sm_80 keeps one video unit instruction, `VABSDIFF4.U8{.ACC}` (the
//! unsigned `vabsdiff4` without `.sat` or selectors, e.g. `__vabsdiffu4`,
//! `__vsadu4`); ptxas expands every other form into integer ALU sequences
//! (byte/half extraction with PRMT, IADD3/IMNMX/ISETP, saturation with
//! I2I or SEL, merges with PRMT/LOP3). The costs below are the SASS
//! instruction counts ptxas 12.9 gives typical forms for sm_80 (`warpjit
//! sass --disasm` over one kernel of each form: scalar 4 to 23 with a
//! median near 10, `vmad` 4 to 10, two-way SIMD 7 to 21, four-way SIMD 17
//! to 40); all issue to the integer unit.

use super::func::FnLower;
use super::mods::Mods;
use super::{error, unsupported};
use crate::front::ast::{Instruction, Kw, Opcode, Operand, OperandKind, ScalarType, VideoSel};
use crate::front::{Diagnostic, DiagnosticKind, Span};
use crate::ir::{OpKind, Src, Ty, Unit};
use crate::sem::video::{Part, Scalar, ScalarOp, Secondary, Simd, SimdOp, VideoCmp, VideoOp, Vmad};

/// SASS instructions per scalar video instruction (`vadd`...`vset`).
const SCALAR_COST: u16 = 10;
/// Per `vmad` (a 32x32 multiply-add with extraction and scaling).
const VMAD_COST: u16 = 7;
/// Per two-way SIMD instruction (`vadd2`...).
const SIMD2_COST: u16 = 12;
/// Per four-way SIMD instruction (`vadd4`...).
const SIMD4_COST: u16 = 20;
/// `vabsdiff4.u32.u32.u32{.add}` with the default selectors: one `VABSDIFF4`.
const VABSDIFF4_COST: u16 = 1;

/// What an opcode of the family is.
#[derive(Clone, Copy)]
enum Family {
    Scalar(ScalarOp),
    Mad,
    Simd(SimdOp, u8),
}

fn family(op: Opcode) -> Option<Family> {
    use Opcode::*;
    let cmp = VideoCmp::Eq; // replaced by the instruction's comparison
    Some(match op {
        Vadd => Family::Scalar(ScalarOp::Add),
        Vsub => Family::Scalar(ScalarOp::Sub),
        Vabsdiff => Family::Scalar(ScalarOp::AbsDiff),
        Vmin => Family::Scalar(ScalarOp::Min),
        Vmax => Family::Scalar(ScalarOp::Max),
        Vshl => Family::Scalar(ScalarOp::Shl { wrap: false }),
        Vshr => Family::Scalar(ScalarOp::Shr { wrap: false }),
        Vset => Family::Scalar(ScalarOp::Set(cmp)),
        Vmad => Family::Mad,
        Vadd2 => Family::Simd(SimdOp::Add, 2),
        Vsub2 => Family::Simd(SimdOp::Sub, 2),
        Vavrg2 => Family::Simd(SimdOp::Avrg, 2),
        Vabsdiff2 => Family::Simd(SimdOp::AbsDiff, 2),
        Vmin2 => Family::Simd(SimdOp::Min, 2),
        Vmax2 => Family::Simd(SimdOp::Max, 2),
        Vset2 => Family::Simd(SimdOp::Set(cmp), 2),
        Vadd4 => Family::Simd(SimdOp::Add, 4),
        Vsub4 => Family::Simd(SimdOp::Sub, 4),
        Vavrg4 => Family::Simd(SimdOp::Avrg, 4),
        Vabsdiff4 => Family::Simd(SimdOp::AbsDiff, 4),
        Vmin4 => Family::Simd(SimdOp::Min, 4),
        Vmax4 => Family::Simd(SimdOp::Max, 4),
        Vset4 => Family::Simd(SimdOp::Set(cmp), 4),
        _ => return None,
    })
}

/// An operand with its written negation and selector taken off.
struct Parts<'o> {
    base: &'o Operand,
    neg: bool,
    sel: Option<VideoSel>,
    span: Span,
}

fn parts(op: &Operand) -> Parts<'_> {
    let (inner, neg) = match &op.kind {
        OperandKind::Neg(inner) => (&**inner, true),
        _ => (op, false),
    };
    let (base, sel) = match &inner.kind {
        OperandKind::Select { base, sel } => (&**base, Some(*sel)),
        _ => (inner, None),
    };
    Parts {
        base,
        neg,
        sel,
        span: op.span,
    }
}

fn bad(span: Span, message: impl Into<String>) -> Diagnostic {
    error(DiagnosticKind::Semantic, span, message)
}

/// A scalar selector (`.b0`..`.b3`, `.h0`, `.h1`, or none: the word).
fn scalar_part(ins: &Instruction, p: &Parts, what: &str) -> Result<Part, Diagnostic> {
    let Some(sel) = p.sel else {
        return Ok(Part::Word);
    };
    match (sel.half, sel.digits()) {
        (false, [k]) if *k <= 3 => Ok(Part::Byte(*k)),
        (true, [k]) if *k <= 1 => Ok(Part::Half(*k)),
        _ => Err(bad(
            p.span,
            format!(
                "`{sel}` is not a {what} selector of `{}` (`.b0`..`.b3`, `.h0`, `.h1`)",
                ins.opcode.name()
            ),
        )),
    }
}

/// A SIMD source selector: `.hxy` (digits 0..=3) or `.bxyzw` (0..=7);
/// element `i` is the `i`-th digit from the right.
fn simd_sel(
    ins: &Instruction,
    p: &Parts,
    lanes: u8,
    default: [u8; 4],
) -> Result<[u8; 4], Diagnostic> {
    let Some(sel) = p.sel else {
        return Ok(default);
    };
    let d = sel.digits();
    let max = 2 * lanes - 1;
    if sel.half != (lanes == 2) || d.len() != lanes as usize || d.iter().any(|k| *k > max) {
        let form = if lanes == 2 { ".hxy" } else { ".bxyzw" };
        return Err(bad(
            p.span,
            format!(
                "`{sel}` is not a source selector of `{}` (`{form}`, digits 0..={max})",
                ins.opcode.name()
            ),
        ));
    }
    let mut out = [0; 4];
    for (i, k) in d.iter().rev().enumerate() {
        out[i] = *k;
    }
    Ok(out)
}

/// A SIMD destination mask: `.h0 .h1 .h10` or `.b` and distinct digits
/// 0..=3 in descending order (`.b3210` by default).
fn simd_mask(ins: &Instruction, p: &Parts, lanes: u8) -> Result<u8, Diagnostic> {
    let Some(sel) = p.sel else {
        return Ok((1 << lanes) - 1);
    };
    let d = sel.digits();
    let descending = d.windows(2).all(|w| w[0] > w[1]);
    if sel.half != (lanes == 2) || !descending || d.iter().any(|k| *k >= lanes) {
        let form = if lanes == 2 {
            "`.h0`, `.h1`, `.h10`"
        } else {
            "`.b` and descending digits 0..=3, as `.b3210`"
        };
        return Err(bad(
            p.span,
            format!(
                "`{sel}` is not a destination mask of `{}` ({form})",
                ins.opcode.name()
            ),
        ));
    }
    Ok(d.iter().fold(0, |m, k| m | 1 << k))
}

impl FnLower<'_> {
    pub(crate) fn video(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        let fam = family(ins.opcode)
            .ok_or_else(|| unsupported(ins.span, format_args!("`{}`", ins.opcode.name())))?;
        let name = ins.opcode.name();
        let is_set = matches!(
            fam,
            Family::Scalar(ScalarOp::Set(_)) | Family::Simd(SimdOp::Set(_), _)
        );
        let is_shift = matches!(
            fam,
            Family::Scalar(ScalarOp::Shl { .. } | ScalarOp::Shr { .. })
        );
        // Types: `.dtype.atype.btype`, or `.atype.btype` for the comparisons.
        let n_types = if is_set { 2 } else { 3 };
        if m.types.len() != n_types {
            return Err(bad(
                ins.span,
                format!(
                    "`{name}` takes {n_types} types (`.u32` or `.s32`), found {}",
                    m.types.len()
                ),
            ));
        }
        let mut signed = [false; 3];
        for (k, t) in m.types.iter().enumerate() {
            signed[k] = match t {
                ScalarType::S32 => true,
                ScalarType::U32 => false,
                other => {
                    return Err(bad(
                        ins.span,
                        format!("`{name}` takes `.u32` or `.s32` types, found `.{other}`"),
                    ))
                }
            };
        }
        let (d_signed, a_signed, b_signed) = if is_set {
            (false, signed[0], signed[1])
        } else {
            (signed[0], signed[1], signed[2])
        };
        if is_shift && b_signed {
            return Err(bad(
                ins.span,
                format!("`{name}`'s shift count type is `.u32`"),
            ));
        }
        // Modifiers: each opcode's own list, each at most once.
        let mut cmp = None;
        let (mut sat, mut op2, mut wrap, mut po, mut shift) = (false, None, None, false, 0u8);
        for k in &m.kws {
            let dup = match k {
                Kw::Sat if !is_set => std::mem::replace(&mut sat, true),
                Kw::Add | Kw::Min | Kw::Max
                    if matches!(fam, Family::Scalar(_)) || *k == Kw::Add =>
                {
                    op2.replace(*k).is_some()
                }
                Kw::Clamp | Kw::Wrap if is_shift => wrap.replace(*k == Kw::Wrap).is_some(),
                Kw::Eq | Kw::Ne | Kw::Lt | Kw::Le | Kw::Gt | Kw::Ge if is_set => {
                    let c = match k {
                        Kw::Eq => VideoCmp::Eq,
                        Kw::Ne => VideoCmp::Ne,
                        Kw::Lt => VideoCmp::Lt,
                        Kw::Le => VideoCmp::Le,
                        Kw::Gt => VideoCmp::Gt,
                        _ => VideoCmp::Ge,
                    };
                    cmp.replace(c).is_some()
                }
                Kw::Po if matches!(fam, Family::Mad) => std::mem::replace(&mut po, true),
                Kw::Shr7 | Kw::Shr15 if matches!(fam, Family::Mad) => {
                    let s = if *k == Kw::Shr7 { 7 } else { 15 };
                    std::mem::replace(&mut shift, s) != 0
                }
                other => {
                    return Err(bad(
                        ins.span,
                        format!("`.{}` is not a modifier of `{name}`", other.name()),
                    ))
                }
            };
            if dup {
                return Err(bad(
                    ins.span,
                    format!("`{name}` takes one `.{}` modifier", k.name()),
                ));
            }
        }
        if matches!(fam, Family::Mad) && op2.is_some() {
            return Err(bad(ins.span, "`vmad` takes no secondary operation"));
        }
        let cmp = match (is_set, cmp) {
            (true, None) => {
                return Err(bad(
                    ins.span,
                    format!("`{name}` needs a comparison (`.eq .ne .lt .le .gt .ge`)"),
                ))
            }
            (_, c) => c.unwrap_or(VideoCmp::Eq),
        };
        if is_shift && wrap.is_none() {
            return Err(bad(ins.span, format!("`{name}` needs `.clamp` or `.wrap`")));
        }
        let wrap = wrap.unwrap_or(false);

        let ops = match fam {
            Family::Scalar(_) => self.operands(ins, 3..=4)?,
            _ => self.operands(ins, 4..=4)?,
        };
        let pd = parts(&ops[0]);
        let pa = parts(&ops[1]);
        let pb = parts(&ops[2]);
        let pc = ops.get(3).map(parts);
        for (p, can_negate) in [
            (&pd, false),
            (&pa, matches!(fam, Family::Mad)),
            (&pb, matches!(fam, Family::Mad)),
        ] {
            if p.neg && !can_negate {
                return Err(bad(
                    p.span,
                    format!("`{name}` takes no negated operand here"),
                ));
            }
        }
        if let Some(pc) = &pc {
            if pc.sel.is_some() {
                return Err(bad(pc.span, format!("`{name}`'s `c` takes no selector")));
            }
            if pc.neg && !matches!(fam, Family::Mad) {
                return Err(bad(
                    pc.span,
                    format!("`{name}` takes no negated operand here"),
                ));
            }
        }

        let vop = match fam {
            Family::Scalar(op) => {
                let op = match op {
                    ScalarOp::Shl { .. } => ScalarOp::Shl { wrap },
                    ScalarOp::Shr { .. } => ScalarOp::Shr { wrap },
                    ScalarOp::Set(_) => ScalarOp::Set(cmp),
                    other => other,
                };
                let dsel = scalar_part(ins, &pd, "destination")?;
                let second = match (op2, dsel) {
                    (Some(_), Part::Byte(_) | Part::Half(_)) => {
                        return Err(bad(
                            pd.span,
                            format!(
                            "`{name}` cannot have a destination selector and a secondary operation"
                        ),
                        ))
                    }
                    (Some(Kw::Add), _) => Secondary::Add,
                    (Some(Kw::Min), _) => Secondary::Min,
                    (Some(_), _) => Secondary::Max,
                    (None, Part::Word) => Secondary::None,
                    (None, p) => Secondary::Merge(p),
                };
                if second != Secondary::None && pc.is_none() {
                    return Err(bad(
                        ins.span,
                        format!(
                            "`{name}` with a secondary operation or merge takes an operand `c`"
                        ),
                    ));
                }
                VideoOp::Scalar(Scalar {
                    op,
                    d_signed,
                    a_signed,
                    b_signed,
                    sat,
                    asel: scalar_part(ins, &pa, "source")?,
                    bsel: scalar_part(ins, &pb, "source")?,
                    second,
                })
            }
            Family::Mad => {
                if pd.sel.is_some() {
                    return Err(bad(pd.span, "`vmad` takes no destination selector"));
                }
                let neg_c = pc.as_ref().is_some_and(|p| p.neg);
                let neg_product = pa.neg != pb.neg;
                if neg_product && neg_c {
                    return Err(bad(
                        ins.span,
                        "`vmad` negates either the product (`a` xor `b`) or `c`, not both",
                    ));
                }
                if po && (pa.neg || pb.neg || neg_c) {
                    return Err(bad(ins.span, "`vmad.po` takes no negated operand"));
                }
                VideoOp::Mad(Vmad {
                    a_signed,
                    b_signed,
                    asel: scalar_part(ins, &pa, "source")?,
                    bsel: scalar_part(ins, &pb, "source")?,
                    neg_product,
                    neg_c,
                    plus_one: po,
                    sat,
                    shift,
                })
            }
            Family::Simd(op, lanes) => {
                let op = match op {
                    SimdOp::Set(_) => SimdOp::Set(cmp),
                    other => other,
                };
                let add = op2.is_some();
                if add && sat {
                    return Err(bad(
                        ins.span,
                        format!("`{name}` cannot take both `.sat` and `.add`"),
                    ));
                }
                let (da, db) = if lanes == 2 {
                    ([0, 1, 0, 0], [2, 3, 0, 0])
                } else {
                    ([0, 1, 2, 3], [4, 5, 6, 7])
                };
                VideoOp::Simd(Simd {
                    op,
                    lanes,
                    d_signed,
                    a_signed,
                    b_signed,
                    sat,
                    asel: simd_sel(ins, &pa, lanes, da)?,
                    bsel: simd_sel(ins, &pb, lanes, db)?,
                    mask: simd_mask(ins, &pd, lanes)?,
                    add,
                })
            }
        };
        let cost = match (fam, &vop) {
            (Family::Scalar(_), _) => SCALAR_COST,
            (Family::Mad, _) => VMAD_COST,
            (Family::Simd(_, 2), _) => SIMD2_COST,
            (_, VideoOp::Simd(v))
                if v.op == SimdOp::AbsDiff
                    && !(v.sat || v.d_signed || v.a_signed || v.b_signed)
                    && v.asel == [0, 1, 2, 3]
                    && v.bsel == [4, 5, 6, 7]
                    && v.mask == 0b1111 =>
            {
                VABSDIFF4_COST
            }
            _ => SIMD4_COST,
        };
        let d = self.dst(pd.base, Ty::U32)?;
        let a = self.src(ins, pa.base, Ty::U32)?;
        let b = self.src(ins, pb.base, Ty::U32)?;
        let c = match &pc {
            Some(p) => self.src(ins, p.base, Ty::U32)?,
            None => Src::Imm(0),
        };
        self.emit(
            ins,
            OpKind::Video(vop),
            vec![d],
            vec![a, b, c],
            Unit::Int,
            cost,
        )
    }
}
