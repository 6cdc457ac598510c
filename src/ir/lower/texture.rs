//! Lowering of the texture and surface instructions (PTX ISA §9.7.10,
//! §9.7.11) in the unified mode, where the texture or surface is an
//! object handle (a `.b64` register or parameter), to `OpKind::Texture`.
//!
//! Forms: `tex{.level,.grad}.{1d,2d,3d,a1d,a2d}.v4.{f32,s32,u32}.{f32,s32}`
//! (objects have no mipmaps: the level of detail and gradients have no
//! effect), `tld4.{r,g,b,a}.2d.v4.{f32,s32,u32}.f32`, `txq`/`suq` of one
//! attribute, `suld.b`/`sust.b` (`.b8`..`.b64`, `.v2`/`.v4`, `.trap`,
//! `.clamp`, `.zero`), `sured.b.{add,min,max,and,or}`, `istypep`. The
//! independent mode (a separate sampler operand), cube and multisample
//! geometries, mipmap queries, `sust.p`/`sured.p`, coordinate offsets,
//! depth compares and residency predicates are refused at their line.

use super::func::FnLower;
use super::mods::Mods;
use super::{error, unsupported};
use crate::front::ast::{Instruction, Kw, Operand, OperandKind, ScalarType};
use crate::front::{Diagnostic, DiagnosticKind};
use crate::ir::{OpKind, Reg, Src, Ty, Unit};
use crate::sem::texture::{HandleKind, Oob, Query, SuredOp, TexOp};

/// A geometry: dimensions, and whether a layer index comes first.
#[derive(Clone, Copy)]
struct Geom {
    dims: usize,
    layered: bool,
}

impl Geom {
    /// Coordinates in the instruction's vector: arrays' layer first, 3D's
    /// fourth element ignored.
    fn len(self) -> usize {
        match (self.dims, self.layered) {
            (1, false) => 1,
            (2, false) | (1, true) => 2,
            _ => 4,
        }
    }
}

impl FnLower<'_> {
    pub(super) fn texture(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        use crate::front::ast::Opcode::*;
        let name = super::instr::instruction_name(ins, ins.opcode);
        let refuse = |what: &str| Err(unsupported(ins.span, format_args!("`{name}`{what}")));
        if ins
            .operands
            .iter()
            .any(|o| matches!(o.kind, OperandKind::PredPair(..)))
        {
            return refuse(" with a residency predicate");
        }
        match ins.opcode {
            Tex | Tld4 => self.tex(ins, m, &name),
            Txq | Suq => {
                if m.has(Kw::Level) {
                    return refuse(" (mipmap levels)");
                }
                let ops = self.operands(ins, 2..=2)?;
                let q = query(m).ok_or_else(|| {
                    error(
                        DiagnosticKind::Semantic,
                        ins.span,
                        "`txq`/`suq` need one attribute",
                    )
                })?;
                let surf = ins.opcode == Suq;
                let valid = if surf {
                    !matches!(
                        q,
                        Query::NormalizedCoords
                            | Query::FilterMode
                            | Query::AddrMode(_)
                            | Query::NumMipmapLevels
                            | Query::NumSamples
                    )
                } else {
                    q != Query::MemoryLayout
                };
                if !valid || m.types.as_slice() != [ScalarType::B32] {
                    return Err(error(
                        DiagnosticKind::Semantic,
                        ins.span,
                        format!("`{name}`: not an attribute of this instruction, or not `.b32`"),
                    ));
                }
                let d = self.dst(&ops[0], Ty::B32)?;
                let (h, rest) = self.handle_list(ins, &ops[1])?;
                if !rest.is_empty() {
                    return refuse(" with a sampler operand");
                }
                let op = if surf { TexOp::Suq(q) } else { TexOp::Txq(q) };
                self.emit_texture(ins, op, vec![d], vec![h])
            }
            Istypep => {
                let ops = self.operands(ins, 2..=2)?;
                let kind = if m.has(Kw::Texref) {
                    HandleKind::Texref
                } else if m.has(Kw::Samplerref) {
                    HandleKind::Samplerref
                } else if m.has(Kw::Surfref) {
                    HandleKind::Surfref
                } else {
                    return Err(error(
                        DiagnosticKind::Semantic,
                        ins.span,
                        "`istypep` needs `.texref`, `.samplerref` or `.surfref`",
                    ));
                };
                let d = self.dst(&ops[0], Ty::Pred)?;
                let h = self.handle(ins, &ops[1])?;
                self.emit_texture(ins, TexOp::Istypep(kind), vec![d], vec![h])
            }
            Suld | Sust | Sured => self.surface(ins, m, &name),
            _ => unreachable!("not a texture instruction"),
        }
    }

    /// `tex` and `tld4`.
    fn tex(&mut self, ins: &Instruction, m: &Mods, name: &str) -> Result<(), Diagnostic> {
        let refuse = |what: &str| Err(unsupported(ins.span, format_args!("`{name}`{what}")));
        let tld4 = ins.opcode == crate::front::ast::Opcode::Tld4;
        let geom = geometry(m).ok_or_else(|| {
            unsupported(
                ins.span,
                format_args!("`{name}`: cube and multisample textures"),
            )
        })?;
        if m.vector != 4 {
            return refuse(" (only `.v4` results)");
        }
        let [dty, cty] = m.types.as_slice() else {
            return Err(error(
                DiagnosticKind::Semantic,
                ins.span,
                format!("`{name}` needs a result and a coordinate type"),
            ));
        };
        let dty = match dty {
            ScalarType::F32 => Ty::F32,
            ScalarType::S32 => Ty::S32,
            ScalarType::U32 => Ty::U32,
            _ => return refuse(" (results other than .f32/.s32/.u32)"),
        };
        let int_coords = match cty {
            ScalarType::F32 => false,
            ScalarType::S32 if !tld4 => true,
            _ => {
                return Err(error(
                    DiagnosticKind::Semantic,
                    ins.span,
                    format!("`{name}`: coordinates are .f32 or .s32"),
                ))
            }
        };
        let op = if tld4 {
            if geom.dims != 2 || geom.layered {
                return refuse(" (tld4 reads 2D textures only here)");
            }
            let comp = [Kw::R, Kw::G, Kw::B, Kw::A]
                .iter()
                .position(|&k| m.has(k))
                .ok_or_else(|| {
                    error(
                        DiagnosticKind::Semantic,
                        ins.span,
                        "`tld4` needs .r, .g, .b or .a",
                    )
                })?;
            TexOp::Tld4 { comp: comp as u8 }
        } else {
            TexOp::Tex { int_coords }
        };
        // Extra operands: `.level`'s lod, `.grad`'s two gradients (no
        // effect without mipmaps); anything else is an offset or a depth
        // compare.
        let extra = usize::from(m.has(Kw::Level)) + 2 * usize::from(m.has(Kw::Grad));
        let ops = self.operands(ins, 2..=4 + extra)?;
        if ops.len() != 2 + extra {
            return refuse(" with coordinate offsets or a depth compare");
        }
        let dsts = self.vector_dsts(&ops[0], 4, dty)?;
        let (h, rest) = self.handle_list(ins, &ops[1])?;
        let [coords] = rest else {
            return refuse(" with a sampler operand (independent mode)");
        };
        let cty = if int_coords { Ty::S32 } else { Ty::F32 };
        let mut srcs = vec![h];
        srcs.extend(self.coords(ins, coords, geom, cty)?);
        for o in &ops[2..] {
            match &o.kind {
                OperandKind::Vector(items) => {
                    for i in items {
                        self.src(ins, i, Ty::F32)?;
                    }
                }
                _ => {
                    self.src(ins, o, Ty::F32)?;
                }
            }
        }
        self.emit_texture(ins, op, dsts, srcs)
    }

    /// `suld.b`, `sust.b`, `sured.b`.
    fn surface(&mut self, ins: &Instruction, m: &Mods, name: &str) -> Result<(), Diagnostic> {
        use crate::front::ast::Opcode::*;
        let refuse = |what: &str| Err(unsupported(ins.span, format_args!("`{name}`{what}")));
        if m.has(Kw::P) || !m.has(Kw::B) {
            return refuse(" (formatted surface accesses, `.p`)");
        }
        let geom = geometry(m).ok_or_else(|| {
            unsupported(
                ins.span,
                format_args!("`{name}`: cube and multisample surfaces"),
            )
        })?;
        let oob = if m.has(Kw::Clamp) {
            Oob::Clamp
        } else if m.has(Kw::Zero) {
            Oob::Zero
        } else {
            Oob::Trap
        };
        let [ty] = m.types.as_slice() else {
            return Err(error(
                DiagnosticKind::Semantic,
                ins.span,
                format!("`{name}` needs one type"),
            ));
        };
        let ops = self.operands(ins, 2..=2)?;
        if ins.opcode == Sured {
            let op = if m.has(Kw::Add) {
                SuredOp::Add
            } else if m.has(Kw::Min) {
                SuredOp::Min
            } else if m.has(Kw::Max) {
                SuredOp::Max
            } else if m.has(Kw::And) {
                SuredOp::And
            } else if m.has(Kw::Or) {
                SuredOp::Or
            } else {
                return refuse(" (operation)");
            };
            use ScalarType as S;
            let ok = match op {
                SuredOp::Add => matches!(ty, S::U32 | S::U64 | S::S32),
                SuredOp::Min | SuredOp::Max => matches!(ty, S::U32 | S::S32 | S::U64 | S::S64),
                SuredOp::And | SuredOp::Or => matches!(ty, S::B32 | S::B64),
            };
            if !ok || m.vector != 1 {
                return Err(error(
                    DiagnosticKind::Semantic,
                    ins.span,
                    format!("`{name}`: not a type `sured.b` takes for this operation"),
                ));
            }
            let ity = super::mods::ty_of(*ty).expect("integer type");
            let (h, rest) = self.handle_list(ins, &ops[0])?;
            let [coords] = rest else {
                return refuse(" (operands)");
            };
            let mut srcs = vec![h];
            srcs.extend(self.coords(ins, coords, geom, Ty::S32)?);
            srcs.push(self.src(ins, &ops[1], ity)?);
            let op = TexOp::Sured {
                op,
                bytes: ity.bytes() as u8,
                signed: matches!(ty, S::S32 | S::S64),
                oob,
            };
            return self.emit_texture(ins, op, vec![], srcs);
        }
        let bty = match ty {
            ScalarType::B8 => Ty::B8,
            ScalarType::B16 => Ty::B16,
            ScalarType::B32 => Ty::B32,
            ScalarType::B64 => Ty::B64,
            _ => {
                return Err(error(
                    DiagnosticKind::Semantic,
                    ins.span,
                    format!("`{name}` takes .b8, .b16, .b32 or .b64"),
                ))
            }
        };
        let n = m.vector as usize;
        if n > 4 || (n == 4 && bty == Ty::B64) {
            return Err(error(
                DiagnosticKind::Semantic,
                ins.span,
                format!("`{name}`: .v2 or .v4 of at most 32 bits"),
            ));
        }
        if ins.opcode == Suld {
            let dsts = self.vector_dsts(&ops[0], n, bty)?;
            let (h, rest) = self.handle_list(ins, &ops[1])?;
            let [coords] = rest else {
                return refuse(" (operands)");
            };
            let mut srcs = vec![h];
            srcs.extend(self.coords(ins, coords, geom, Ty::S32)?);
            let op = TexOp::Suld {
                bytes: bty.bytes() as u8,
                oob,
            };
            self.emit_texture(ins, op, dsts, srcs)
        } else {
            let (h, rest) = self.handle_list(ins, &ops[0])?;
            let [coords] = rest else {
                return refuse(" (operands)");
            };
            let mut srcs = vec![h];
            srcs.extend(self.coords(ins, coords, geom, Ty::S32)?);
            let vals: Vec<&Operand> = match &ops[1].kind {
                OperandKind::Vector(items) => items.iter().collect(),
                _ => vec![&ops[1]],
            };
            if vals.len() != n {
                return Err(error(
                    DiagnosticKind::Semantic,
                    ops[1].span,
                    format!("`{name}` stores {n} value(s)"),
                ));
            }
            for v in vals {
                srcs.push(self.src(ins, v, bty)?);
            }
            let op = TexOp::Sust {
                bytes: bty.bytes() as u8,
                oob,
            };
            self.emit_texture(ins, op, vec![], srcs)
        }
    }

    /// `n` destination registers from `{a, b, ...}` (or one name).
    fn vector_dsts(&mut self, op: &Operand, n: usize, ty: Ty) -> Result<Vec<Reg>, Diagnostic> {
        let items: Vec<&Operand> = match &op.kind {
            OperandKind::Vector(items) => items.iter().collect(),
            _ => vec![op],
        };
        if items.len() != n {
            return Err(error(
                DiagnosticKind::Semantic,
                op.span,
                format!("expected {n} destination register(s)"),
            ));
        }
        items.into_iter().map(|o| self.dst(o, ty)).collect()
    }

    /// A handle operand: a 64-bit register or immediate (a `.texref` or
    /// `.surfref` variable's name is the refused bound mode).
    fn handle(&mut self, ins: &Instruction, op: &Operand) -> Result<Src, Diagnostic> {
        match self.src(ins, op, Ty::B64)? {
            Src::Global(..) => Err(unsupported(
                op.span,
                "a texture or surface reference variable (texture and surface objects are supported)",
            )),
            s => Ok(s),
        }
    }

    /// `[handle, rest...]` (or `[handle]`): the handle and the rest.
    fn handle_list<'o>(
        &mut self,
        ins: &Instruction,
        op: &'o Operand,
    ) -> Result<(Src, &'o [Operand]), Diagnostic> {
        match &op.kind {
            OperandKind::AddressList(items) if !items.is_empty() => {
                Ok((self.handle(ins, &items[0])?, &items[1..]))
            }
            OperandKind::Address {
                base: Some(name),
                offset: 0,
            } => {
                let h = Operand {
                    kind: OperandKind::Name {
                        name: name.clone(),
                        component: None,
                    },
                    span: op.span,
                };
                Ok((self.handle(ins, &h)?, &[]))
            }
            _ => Err(error(
                DiagnosticKind::Semantic,
                op.span,
                "expected `[handle, ...]`",
            )),
        }
    }

    /// The coordinate vector as `x, y, z, layer` (unused ones 0; the
    /// layer is always `.s32`).
    fn coords(
        &mut self,
        ins: &Instruction,
        op: &Operand,
        geom: Geom,
        ty: Ty,
    ) -> Result<[Src; 4], Diagnostic> {
        let items: Vec<&Operand> = match &op.kind {
            OperandKind::Vector(items) => items.iter().collect(),
            _ => vec![op],
        };
        if items.len() != geom.len() {
            return Err(error(
                DiagnosticKind::Semantic,
                op.span,
                format!("expected {} coordinate(s)", geom.len()),
            ));
        }
        let mut out = [Src::Imm(0), Src::Imm(0), Src::Imm(0), Src::Imm(0)];
        let first = geom.layered as usize;
        if geom.layered {
            out[3] = self.src(ins, items[0], Ty::S32)?;
        }
        for d in 0..geom.dims {
            out[d] = self.src(ins, items[first + d], ty)?;
        }
        Ok(out)
    }

    fn emit_texture(
        &mut self,
        ins: &Instruction,
        op: TexOp,
        dsts: Vec<Reg>,
        srcs: Vec<Src>,
    ) -> Result<(), Diagnostic> {
        self.emit(ins, OpKind::Texture { op }, dsts, srcs, Unit::LsuGlobal, 1)
    }
}

fn geometry(m: &Mods) -> Option<Geom> {
    let g = |dims, layered| Some(Geom { dims, layered });
    if m.has(Kw::D1) {
        g(1, false)
    } else if m.has(Kw::D2) {
        g(2, false)
    } else if m.has(Kw::D3) {
        g(3, false)
    } else if m.has(Kw::A1d) {
        g(1, true)
    } else if m.has(Kw::A2d) {
        g(2, true)
    } else {
        None
    }
}

fn query(m: &Mods) -> Option<Query> {
    m.kws.iter().find_map(|k| {
        Some(match k {
            Kw::Width => Query::Width,
            Kw::Height => Query::Height,
            Kw::Depth => Query::Depth,
            Kw::ChannelDataType => Query::ChannelDataType,
            Kw::ChannelOrder => Query::ChannelOrder,
            Kw::NormalizedCoords => Query::NormalizedCoords,
            Kw::FilterMode => Query::FilterMode,
            Kw::AddrMode0 => Query::AddrMode(0),
            Kw::AddrMode1 => Query::AddrMode(1),
            Kw::AddrMode2 => Query::AddrMode(2),
            Kw::ArraySize => Query::ArraySize,
            Kw::NumMipmapLevels => Query::NumMipmapLevels,
            Kw::NumSamples => Query::NumSamples,
            Kw::MemoryLayout => Query::MemoryLayout,
            _ => return None,
        })
    })
}
