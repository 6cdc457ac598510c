//! Lowering of the tensor memory accelerator's instructions (PTX ISA
//! §9.7.9.25.5, §9.7.9.27) to `OpKind::CpAsyncBulkTensor` and
//! `OpKind::TensormapReplace`: `cp.async.bulk.tensor.Nd` in tile
//! mode (global to shared with `mbarrier::complete_tx::bytes`, shared to
//! global in a `bulk_group`), `cp.reduce.async.bulk.tensor.Nd` (tile),
//! `cp.async.bulk.prefetch.tensor` (no effect), `tensormap.replace.tile`
//! of every field, and `tensormap.cp_fenceproxy` (a 128-byte copy; the
//! engines are sequentially consistent, so the fence needs nothing).
//! Loads may be `.multicast::cluster` (a 16-bit CTA mask). Im2col and
//! gather modes and `.cta_group` are refused at their line.

use super::func::FnLower;
use super::mods::Mods;
use super::{error, unsupported};
use crate::front::ast::{Instruction, Kw, Operand, OperandKind, ScalarType, StateSpace};
use crate::front::instr::Modifier;
use crate::front::{Diagnostic, DiagnosticKind};
use crate::ir::{AtomOp, OpKind, Src, Ty, Unit};
use crate::sem::tensor_map::Field;

impl FnLower<'_> {
    fn spaces(ins: &Instruction) -> Vec<StateSpace> {
        ins.modifiers
            .iter()
            .filter_map(|md| match md {
                Modifier::Space(s) => Some(*s),
                _ => None,
            })
            .collect()
    }

    /// The tensor map and coordinates of `[tmap, {c0, ...}]`: pushes the
    /// map's generic address and the `rank` coordinates onto `srcs` and
    /// returns the map's offset.
    fn tensor_operand(
        &mut self,
        ins: &Instruction,
        op: &Operand,
        rank: usize,
        srcs: &mut Vec<Src>,
    ) -> Result<i64, Diagnostic> {
        let bad = |span| {
            error(
                DiagnosticKind::Semantic,
                span,
                format!("expected `[tensorMap, {{{rank} coordinates}}]`"),
            )
        };
        let OperandKind::AddressList(items) = &op.kind else {
            return Err(bad(op.span));
        };
        let [map, coords] = items.as_slice() else {
            return Err(bad(op.span));
        };
        let OperandKind::Vector(coords) = &coords.kind else {
            return Err(bad(coords.span));
        };
        if coords.len() != rank {
            return Err(bad(op.span));
        }
        let addr = match &map.kind {
            OperandKind::Name {
                name,
                component: None,
            } => Operand {
                kind: OperandKind::Address {
                    base: Some(name.clone()),
                    offset: 0,
                },
                span: map.span,
            },
            _ => return Err(bad(map.span)),
        };
        // A register holds a generic address (or, from `mov` of the
        // parameter's name, its parameter-space one: see
        // `interp::bulk_tensor`); a parameter's name is its own.
        let (space, base, offset) = self.address_of(ins, &addr, None)?;
        let base = if space == crate::ir::Space::KernelParam {
            let t = self.temp(Ty::U64);
            let kind = OpKind::Cvta {
                space: crate::ir::Space::KernelParam,
                to_generic: true,
            };
            self.emit(ins, kind, vec![t], vec![base], Unit::Int, 1)?;
            Src::Reg(t)
        } else {
            base
        };
        srcs.push(base);
        for c in coords {
            let v = self.src(ins, c, Ty::B32)?;
            srcs.push(v);
        }
        Ok(offset)
    }

    /// `cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor` and
    /// `cp.async.bulk.prefetch.tensor`.
    pub(super) fn cp_async_bulk_tensor(
        &mut self,
        ins: &Instruction,
        m: &Mods,
    ) -> Result<(), Diagnostic> {
        let name = super::instr::instruction_name(ins, ins.opcode);
        let rank = [Kw::D1, Kw::D2, Kw::D3, Kw::D4, Kw::D5]
            .iter()
            .position(|k| m.has(*k))
            .map(|i| i + 1)
            .ok_or_else(|| {
                error(
                    DiagnosticKind::Semantic,
                    ins.span,
                    format!("`{name}` needs a dimension `.1d` to `.5d`"),
                )
            })?;
        if m.has(Kw::Im2col) || m.has(Kw::Tile0) {
            return Err(unsupported(
                ins.span,
                format_args!("`{name}` (im2col and gather modes; only `.tile` executes)"),
            ));
        }
        let multicast = m.has(Kw::MulticastCluster);
        let hint = m.has(Kw::L2CacheHint) as usize;
        if m.has(Kw::Prefetch) {
            let ops = self.operands(ins, 1 + hint..=1 + hint)?;
            let mut srcs = vec![];
            self.tensor_operand(ins, &ops[0], rank, &mut srcs)?;
            if hint == 1 {
                self.cache_policy(ins, m, &ops[1])?;
            }
            return self.emit(ins, OpKind::Nop, vec![], vec![], Unit::LsuGlobal, 1);
        }
        let spaces = Self::spaces(ins);
        let shared = |s: &StateSpace| {
            matches!(
                s,
                StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster
            )
        };
        let load = match spaces.as_slice() {
            [d, StateSpace::Global] if shared(d) && m.has(Kw::MbarrierTx) => true,
            [StateSpace::Global, s] if shared(s) && m.has(Kw::BulkGroup) => false,
            _ => return Err(unsupported(ins.span, format_args!("`{name}`"))),
        };
        let reduce = if m.has(Kw::Reduce) {
            if load {
                return Err(unsupported(ins.span, format_args!("`{name}`")));
            }
            Some(reduction_op(m).ok_or_else(|| {
                error(
                    DiagnosticKind::Semantic,
                    ins.span,
                    format!("`{name}` needs a reduction operation"),
                )
            })?)
        } else {
            None
        };
        if multicast
            && !(load && spaces.as_slice() == [StateSpace::SharedCluster, StateSpace::Global])
        {
            return Err(error(
                DiagnosticKind::Semantic,
                ins.span,
                format!("`{name}`: `.multicast::cluster` loads from .global into .shared::cluster"),
            ));
        }
        let n = 2 + load as usize + multicast as usize;
        let ops = self.operands(ins, n + hint..=n + hint)?;
        if hint == 1 {
            self.cache_policy(ins, m, &ops[n])?;
        }
        let (smem_op, map_op) = if load {
            (&ops[0], &ops[1])
        } else {
            (&ops[1], &ops[0])
        };
        let (_, smem, smem_offset) = self.address_of(ins, smem_op, Some(StateSpace::Shared))?;
        let mut srcs = vec![smem];
        let tmap_offset = self.tensor_operand(ins, map_op, rank, &mut srcs)?;
        let mut mbarrier = None;
        if load {
            let (_, b, off) = self.address_of(ins, &ops[2], Some(StateSpace::Shared))?;
            srcs.push(b);
            mbarrier = Some(off);
        }
        if multicast {
            srcs.push(self.src(ins, &ops[3], Ty::U16)?);
        }
        let kind = OpKind::CpAsyncBulkTensor {
            load,
            rank: rank as u8,
            reduce,
            smem_offset,
            tmap_offset,
            mbarrier,
            multicast,
        };
        self.emit(ins, kind, vec![], srcs, Unit::LsuGlobal, 1)
    }

    /// `tensormap.replace.tile.<field>{.global,.shared::cta}.b1024.{b32,b64}
    /// [addr], {ord,} value` and `tensormap.cp_fenceproxy.global.shared::cta.
    /// tensormap::generic.release.<scope>.sync.aligned [dst], [src], 128`.
    pub(super) fn tensormap(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        let name = super::instr::instruction_name(ins, ins.opcode);
        let space = Self::spaces(ins);
        if m.has(Kw::CpFenceproxy) {
            let ops = self.operands(ins, 3..=3)?;
            if !matches!(
                &ops[2].kind,
                OperandKind::Imm(crate::front::ast::Imm::Int(128))
            ) {
                return Err(error(
                    DiagnosticKind::Semantic,
                    ops[2].span,
                    "tensormap.cp_fenceproxy copies 128 bytes",
                ));
            }
            let (d, s) = match space.as_slice() {
                [StateSpace::Global, StateSpace::SharedCta | StateSpace::Shared] => {
                    (StateSpace::Global, StateSpace::Shared)
                }
                _ => return Err(unsupported(ins.span, format_args!("`{name}`"))),
            };
            let (_, dst, dst_offset) = self.address_of(ins, &ops[0], Some(d))?;
            let (_, src, src_offset) = self.address_of(ins, &ops[1], Some(s))?;
            let kind = OpKind::CpAsyncBulk {
                dst: crate::ir::Space::Global,
                src: crate::ir::Space::Shared,
                dst_offset,
                src_offset,
                mbarrier: None,
                multicast: false,
                reduce: None,
            };
            let size = Src::Imm(crate::sem::tensor_map::SIZE as u64);
            return self.emit(ins, kind, vec![], vec![dst, src, size], Unit::LsuGlobal, 1);
        }
        if !m.has(Kw::Replace) || !m.has(Kw::Tile) {
            return Err(unsupported(ins.span, format_args!("`{name}`")));
        }
        let fields = [
            (Kw::GlobalAddress, Field::GlobalAddress),
            (Kw::Rank, Field::Rank),
            (Kw::BoxDim, Field::BoxDim(0)),
            (Kw::GlobalDim, Field::GlobalDim(0)),
            (Kw::GlobalStride, Field::GlobalStride(0)),
            (Kw::ElementStride, Field::ElementStride(0)),
            (Kw::Elemtype, Field::Elemtype),
            (Kw::InterleaveLayout, Field::InterleaveLayout),
            (Kw::SwizzleMode, Field::SwizzleMode),
            (Kw::SwizzleAtomicity, Field::SwizzleAtomicity),
            (Kw::FillMode, Field::FillMode),
        ];
        let mut found = fields.iter().filter(|(k, _)| m.has(*k)).map(|(_, f)| *f);
        let (Some(mut field), None) = (found.next(), found.next()) else {
            return Err(unsupported(
                ins.span,
                format_args!("`{name}` (one field is replaced)"),
            ));
        };
        let b64 = m.types.contains(&ScalarType::B64);
        if field.is_b64() != b64 || !(b64 || m.types.contains(&ScalarType::B32)) {
            let want = if field.is_b64() { ".b64" } else { ".b32" };
            return Err(error(
                DiagnosticKind::Semantic,
                ins.span,
                format!("tensormap.replace.{} takes a `{want}` value", field.name()),
            ));
        }
        let ops = self.operands(ins, 2 + field.max_ord().is_some() as usize..=3)?;
        if let Some(max) = field.max_ord() {
            let ord = match &ops[1].kind {
                OperandKind::Imm(crate::front::ast::Imm::Int(v))
                    if (0..=max as i64).contains(v) =>
                {
                    *v as u8
                }
                _ => {
                    return Err(error(
                        DiagnosticKind::Semantic,
                        ops[1].span,
                        format!(
                            "tensormap.replace.{}'s ordinal is an immediate 0 to {max}",
                            field.name()
                        ),
                    ))
                }
            };
            field = match field {
                Field::BoxDim(_) => Field::BoxDim(ord),
                Field::GlobalDim(_) => Field::GlobalDim(ord),
                Field::GlobalStride(_) => Field::GlobalStride(ord),
                _ => Field::ElementStride(ord),
            };
        } else if ops.len() == 3 {
            return Err(error(
                DiagnosticKind::Semantic,
                ops[2].span,
                format!("tensormap.replace.{} takes no ordinal", field.name()),
            ));
        }
        // Without a state space the address is generic.
        let s = match space.as_slice() {
            [] => None,
            [StateSpace::Global] => Some(StateSpace::Global),
            [StateSpace::Shared | StateSpace::SharedCta] => Some(StateSpace::Shared),
            _ => return Err(unsupported(ins.span, format_args!("`{name}`"))),
        };
        let (space, addr, offset) = self.address_of(ins, &ops[0], s)?;
        let ty = if b64 { Ty::B64 } else { Ty::B32 };
        let value = self.src(ins, ops.last().unwrap(), ty)?;
        let kind = OpKind::TensormapReplace {
            field,
            space,
            offset,
        };
        self.emit(ins, kind, vec![], vec![addr, value], Unit::LsuGlobal, 1)
    }
}

/// The `.redOp` of `cp.reduce.async.bulk{.tensor}`: `.add .min .max .inc
/// .dec .and .or .xor`.
pub(super) fn reduction_op(m: &Mods) -> Option<AtomOp> {
    [
        (Kw::Add, AtomOp::Add),
        (Kw::Min, AtomOp::Min),
        (Kw::Max, AtomOp::Max),
        (Kw::Inc, AtomOp::Inc),
        (Kw::Dec, AtomOp::Dec),
        (Kw::And, AtomOp::And),
        (Kw::Or, AtomOp::Or),
        (Kw::Xor, AtomOp::Xor),
    ]
    .into_iter()
    .find(|(k, _)| m.has(*k))
    .map(|(_, op)| op)
}
