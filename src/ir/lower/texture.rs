//! Lowering of the texture and surface instructions (PTX ISA §9.7.10,
//! §9.7.11) in the unified mode, where the texture or surface is an
//! object handle (a `.b64` register or parameter), to `OpKind::Texture`.
//!
//! Forms: `tex{.level,.grad}.{1d,2d,3d,a1d,a2d,cube,acube}.v4.{f32,s32,u32}.{f32,s32}`
//! (objects have no mipmaps: the level of detail and gradients have no
//! effect; cubemaps take `.f32` directions),
//! `tld4.{r,g,b,a}.{2d,a2d,cube,acube}.v4.{f32,s32,u32}.f32`, both with
//! the residency predicate `{..}|p` (a fifth destination), `txq`/`suq` of
//! one attribute, `txq.level` of a size, `suld.b`/`sust.b` (`.b8`..`.b64`,
//! `.v2`/`.v4`, `.trap`, `.clamp`, `.zero`), `sured.b.{add,min,max,and,or}`,
//! `istypep`. The independent mode (a separate sampler operand),
//! multisample geometries, `sust.p`/`sured.p`, coordinate offsets and depth
//! compares are refused at their line.

use super::func::FnLower;
use super::mods::Mods;
use super::{error, unsupported};
use crate::front::ast::{Instruction, Kw, Operand, OperandKind, ScalarType};
use crate::front::{Diagnostic, DiagnosticKind};
use crate::ir::{OpKind, Reg, Src, Ty, Unit};
use crate::sem::texture::{HandleKind, Oob, Query, SuredOp, TexOp, TexResults};

/// A geometry: dimensions, whether a layer index comes first, and whether
/// the coordinates are a cubemap direction (`.cube`: `{x, y, z, _}`,
/// `.acube`: `{layer, x, y, z}`).
#[derive(Clone, Copy)]
struct Geom {
    dims: usize,
    layered: bool,
    cube: bool,
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
        if ins.opcode != Tex
            && ins.opcode != Tld4
            && ins.operands.iter().any(|o| {
                matches!(
                    o.kind,
                    OperandKind::PredPair(..) | OperandKind::VectorPred { .. }
                )
            })
        {
            return Err(error(
                DiagnosticKind::Semantic,
                ins.span,
                format!("`{name}` has no residency predicate"),
            ));
        }
        match ins.opcode {
            Tex | Tld4 => self.tex(ins, m, &name),
            Txq | Suq => {
                let level = m.has(Kw::Level);
                if level && ins.opcode == Suq {
                    return Err(error(
                        DiagnosticKind::Semantic,
                        ins.span,
                        "`suq` has no `.level` form",
                    ));
                }
                let ops = self.operands(ins, 2 + level as usize..=2 + level as usize)?;
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
                if level {
                    if !matches!(q, Query::Width | Query::Height | Query::Depth) {
                        return Err(error(
                            DiagnosticKind::Semantic,
                            ins.span,
                            "`txq.level` queries .width, .height or .depth",
                        ));
                    }
                    let lod = self.src(ins, &ops[2], Ty::S32)?;
                    return self.emit_texture(ins, TexOp::TxqLevel(q), vec![d], vec![h, lod]);
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
        let geom = geometry(m)
            .ok_or_else(|| unsupported(ins.span, format_args!("`{name}`: multisample textures")))?;
        let [dty, cty] = m.types.as_slice() else {
            return Err(error(
                DiagnosticKind::Semantic,
                ins.span,
                format!("`{name}` needs a result and a coordinate type"),
            ));
        };
        let (dty, results) = match (dty, m.vector, tld4) {
            (ScalarType::F32, 4, _) => (Ty::F32, TexResults::Words),
            (ScalarType::S32, 4, _) => (Ty::S32, TexResults::Words),
            (ScalarType::U32, 4, _) => (Ty::U32, TexResults::Words),
            (ScalarType::F16, 4, false) => (Ty::F16, TexResults::F16),
            (ScalarType::F16x2, 2, false) => (Ty::F16x2, TexResults::F16x2),
            _ => {
                return Err(error(
                    DiagnosticKind::Semantic,
                    ins.span,
                    format!(
                        "`{name}` returns .v4 of .f32, .s32 or .u32{}",
                        if tld4 { "" } else { ", .v4.f16 or .v2.f16x2" }
                    ),
                ))
            }
        };
        let int_coords = match cty {
            ScalarType::F32 => false,
            ScalarType::S32 if !tld4 && !geom.cube => true,
            _ => {
                return Err(error(
                    DiagnosticKind::Semantic,
                    ins.span,
                    format!(
                        "`{name}`: coordinates are .f32 (or .s32 for `tex` other than cubemaps)"
                    ),
                ))
            }
        };
        let op = if tld4 {
            if geom.dims == 1 || (geom.dims == 3 && !geom.cube) {
                return Err(error(
                    DiagnosticKind::Semantic,
                    ins.span,
                    format!("`{name}`: `tld4` reads .2d, .a2d, .cube and .acube textures"),
                ));
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
            TexOp::Tld4 {
                comp: comp as u8,
                cube: geom.cube,
            }
        } else {
            TexOp::Tex {
                int_coords,
                cube: geom.cube,
                results,
            }
        };
        // Extra operands: `.level`'s lod, `.grad`'s two gradients (no
        // effect without mipmaps), then the offset vector `e` and the depth
        // compare `f`, each optional.
        let extra = usize::from(m.has(Kw::Level)) + 2 * usize::from(m.has(Kw::Grad));
        let ops = self.operands(ins, 2..=4 + extra)?;
        let (offset, depth) = match &ops[2 + extra..] {
            [] => (None, None),
            [e] if matches!(e.kind, OperandKind::Vector(_)) => (Some(e), None),
            [f] => (None, Some(f)),
            [e, f] => (Some(e), Some(f)),
            _ => unreachable!("at most two operands after the extras"),
        };
        if depth.is_some() {
            return refuse(
                " with a depth compare (depth textures come from graphics interop, and CUDA's texture descriptor has no comparison function)",
            );
        }
        // `{a, b, c, d}|p`: the residency predicate, a fifth destination.
        let dsts = match &ops[0].kind {
            OperandKind::VectorPred { items, pred } => {
                let v = Operand {
                    kind: OperandKind::Vector(items.clone()),
                    span: ops[0].span,
                };
                let mut d = self.vector_dsts(&v, m.vector as usize, dty)?;
                let p = Operand {
                    kind: OperandKind::Name {
                        name: pred.clone(),
                        component: None,
                    },
                    span: ops[0].span,
                };
                d.push(self.dst(&p, Ty::Pred)?);
                d
            }
            _ => self.vector_dsts(&ops[0], m.vector as usize, dty)?,
        };
        let (h, rest) = self.handle_list(ins, &ops[1])?;
        let [coords] = rest else {
            return refuse(" with a sampler operand (independent mode)");
        };
        let cty = if int_coords { Ty::S32 } else { Ty::F32 };
        let mut srcs = vec![h];
        srcs.extend(self.coords(ins, coords, geom, cty)?);
        srcs.extend(self.offsets(ins, offset, geom)?);
        for o in &ops[2..2 + extra] {
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

    /// The texel offsets of `tex`/`tld4` (PTX ISA §9.7.10.3: `.s32` in
    /// -8..=7, one per dimension, 3D's vector of four with the fourth
    /// ignored; none for cubemaps) as three sources, zeros where absent.
    fn offsets(
        &mut self,
        ins: &Instruction,
        e: Option<&Operand>,
        geom: Geom,
    ) -> Result<[Src; 3], Diagnostic> {
        let mut out = [Src::Imm(0), Src::Imm(0), Src::Imm(0)];
        let Some(e) = e else {
            return Ok(out);
        };
        let OperandKind::Vector(items) = &e.kind else {
            unreachable!("an offset is a vector")
        };
        let want = match geom.dims {
            3 => 4,
            d => d,
        };
        if geom.cube || items.len() != want {
            return Err(error(
                DiagnosticKind::Semantic,
                e.span,
                if geom.cube {
                    "cubemaps take no offset".to_string()
                } else {
                    format!("expected an offset vector of {want} .s32 value(s)")
                },
            ));
        }
        for (d, item) in items.iter().take(geom.dims).enumerate() {
            out[d] = self.src(ins, item, Ty::S32)?;
            if let Src::Imm(v) = out[d] {
                if !(-8..=7).contains(&(v as u32 as i32)) {
                    return Err(error(
                        DiagnosticKind::Semantic,
                        item.span,
                        "a texture offset is in -8..=7",
                    ));
                }
            }
        }
        Ok(out)
    }

    /// `suld.b`, `sust.b`, `sured.b`.
    fn surface(&mut self, ins: &Instruction, m: &Mods, name: &str) -> Result<(), Diagnostic> {
        use crate::front::ast::Opcode::*;
        let refuse = |what: &str| Err(unsupported(ins.span, format_args!("`{name}`{what}")));
        if m.has(Kw::P) || !m.has(Kw::B) {
            return refuse(" (formatted surface accesses, `.p`)");
        }
        let geom = geometry(m)
            .filter(|g| !g.cube)
            .ok_or_else(|| {
                error(
                    DiagnosticKind::Semantic,
                    ins.span,
                    format!("`{name}`: surfaces are .1d, .2d, .3d, .a1d or .a2d (a cubemap's faces are .a2d layers)"),
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
    let g = |dims, layered| {
        Some(Geom {
            dims,
            layered,
            cube: false,
        })
    };
    if m.has(Kw::Cube) || m.has(Kw::Acube) {
        Some(Geom {
            dims: 3,
            layered: m.has(Kw::Acube),
            cube: true,
        })
    } else if m.has(Kw::D1) {
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
