//! Memory instructions (PTX ISA §9.7.9): `ld`, `ldu`, `st`, `atom`, `red`,
//! `cvta`, `isspacep`, and the cache hints that only cost an issue slot.

use super::func::{FnLower, Sym};
use super::mods::{space_of, Mods};
use super::{error, unsupported, ModuleSym};
use crate::front::ast::{Instruction, Kw, Opcode, Operand, OperandKind, StateSpace};
use crate::front::{Diagnostic, DiagnosticKind};
use crate::ir::{OpKind, Space, Src, Ty, Unit};

pub(crate) fn lsu_unit(space: Space) -> Unit {
    match space {
        Space::Global | Space::Generic => Unit::LsuGlobal,
        Space::Shared => Unit::LsuShared,
        Space::Local => Unit::LsuLocal,
        Space::Const => Unit::LsuConst,
        Space::KernelParam | Space::FrameParam => Unit::LsuParam,
    }
}

impl FnLower<'_> {
    /// An address operand `[...]` in `space` (None: generic): base and offset.
    pub(crate) fn address_of(
        &mut self,
        ins: &Instruction,
        op: &Operand,
        space: Option<StateSpace>,
    ) -> Result<(Space, Src, i64), Diagnostic> {
        self.address(ins, op, space)
    }

    /// A `.shared::cluster` address becomes the generic address of the
    /// same location (`cvta.shared` of it: the shared window holds every
    /// CTA of the cluster, see `interp::cluster`).
    fn address(
        &mut self,
        ins: &Instruction,
        op: &Operand,
        space: Option<StateSpace>,
    ) -> Result<(Space, Src, i64), Diagnostic> {
        if space != Some(StateSpace::SharedCluster) {
            return self.address_in(ins, op, space);
        }
        let (_, base, offset) = self.address_in(ins, op, Some(StateSpace::Shared))?;
        let t = self.temp(Ty::U64);
        let kind = OpKind::Cvta {
            space: Space::Shared,
            to_generic: true,
        };
        self.emit(ins, kind, vec![t], vec![base], Unit::Int, 1)?;
        Ok((Space::Generic, Src::Reg(t), offset))
    }

    fn address_in(
        &mut self,
        ins: &Instruction,
        op: &Operand,
        space: Option<StateSpace>,
    ) -> Result<(Space, Src, i64), Diagnostic> {
        let (base, offset) = match &op.kind {
            OperandKind::Address { base, offset } => (base.as_deref(), *offset),
            _ => {
                return Err(error(
                    DiagnosticKind::Semantic,
                    op.span,
                    "expected an address `[...]`",
                ))
            }
        };
        let mut ir_space = match space {
            None => Space::Generic,
            Some(s) => space_of(s)
                .ok_or_else(|| unsupported(ins.span, format_args!("the `.{s}` state space")))?,
        };
        let Some(name) = base else {
            return Ok((ir_space, Src::Imm(offset as u64), 0));
        };
        let base = match self.lookup(name) {
            Some(Sym::Reg(r)) => {
                if ir_space == Space::FrameParam {
                    // In a kernel, a register holds an address of its
                    // parameters (`mov` of a parameter's name): a load
                    // from the launch's parameter bytes, bounds-checked.
                    // In a device function, the `.local` address `mov`
                    // gives of a parameter in the thread's frame.
                    ir_space = if self.f.is_kernel {
                        Space::KernelParam
                    } else {
                        Space::Local
                    };
                }
                Src::Reg(r)
            }
            Some(Sym::KernelParam(o)) => {
                ir_space = Space::KernelParam;
                return Ok((ir_space, Src::Imm(0), o as i64 + offset));
            }
            Some(Sym::FrameParam(o)) => {
                return Ok((Space::FrameParam, Src::Imm(0), o as i64 + offset))
            }
            Some(Sym::Local(o)) => Src::FrameAddr(o),
            Some(Sym::Shared(o)) => Src::Imm(o as u64),
            None => match self.ctx.syms.get(name) {
                Some(ModuleSym::Global(g)) => Src::Global(*g, 0),
                Some(&ModuleSym::Shared { offset, var }) => {
                    self.f.shared_used.push(var);
                    Src::Imm(offset as u64)
                }
                Some(ModuleSym::DynamicShared) => Src::Imm(self.ctx.shared_dynamic_offset as u64),
                _ => {
                    return Err(error(
                        DiagnosticKind::Semantic,
                        op.span,
                        format!("`{name}` is not declared"),
                    ))
                }
            },
        };
        // A shared or local symbol used in a generic access means its generic address.
        if ir_space == Space::Generic && matches!(base, Src::FrameAddr(_)) {
            ir_space = Space::Local;
        }
        Ok((ir_space, base, offset))
    }

    pub(crate) fn memory(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        use Opcode::*;
        match ins.opcode {
            Ld | Ldu => {
                let ty = self.ty(ins, m, 0)?;
                let ops = self.operands(ins, 2..=3)?;
                if ops.len() == 3 {
                    self.cache_policy(ins, m, &ops[2])?;
                }
                let dsts = match &ops[0].kind {
                    OperandKind::Vector(items) => items
                        .iter()
                        .map(|o| self.dst(o, ty))
                        .collect::<Result<Vec<_>, _>>()?,
                    _ => vec![self.dst(&ops[0], ty)?],
                };
                let (space, base, offset) = self.address(ins, &ops[1], m.space)?;
                let cost = 1;
                // The cache operators the timing model sees: `.cg` (and
                // `L1::no_allocate`, `.volatile`) cache in the L2 only,
                // `.cv` fetches again.
                let unit = match lsu_unit(space) {
                    Unit::LsuGlobal if m.kws.contains(&Kw::Cv) => Unit::LsuGlobalCv,
                    Unit::LsuGlobal
                        if m.kws
                            .iter()
                            .any(|k| matches!(k, Kw::Cg | Kw::L1NoAllocate | Kw::Volatile)) =>
                    {
                        Unit::LsuGlobalCg
                    }
                    u => u,
                };
                // Loads that synchronize with other threads (what spin loops
                // read); parameters and constants never change.
                let poll = m
                    .kws
                    .iter()
                    .any(|k| matches!(k, Kw::Volatile | Kw::Relaxed | Kw::Acquire))
                    && matches!(space, Space::Global | Space::Shared | Space::Generic);
                self.emit(
                    ins,
                    OpKind::Ld {
                        space,
                        ty,
                        offset,
                        poll,
                    },
                    dsts,
                    vec![base],
                    unit,
                    cost,
                )
            }
            St => {
                let ty = self.ty(ins, m, 0)?;
                let ops = self.operands(ins, 2..=3)?;
                if ops.len() == 3 {
                    self.cache_policy(ins, m, &ops[2])?;
                }
                let (space, base, offset) = self.address(ins, &ops[0], m.space)?;
                let mut srcs = vec![base];
                match &ops[1].kind {
                    OperandKind::Vector(items) => {
                        for o in items {
                            srcs.push(self.src(ins, o, ty)?);
                        }
                    }
                    _ => srcs.push(self.src(ins, &ops[1], ty)?),
                }
                self.emit(
                    ins,
                    OpKind::St { space, ty, offset },
                    vec![],
                    srcs,
                    lsu_unit(space),
                    1,
                )
            }
            Atom | Red => {
                if m.vector > 1 {
                    return self.atom_vector(ins, m);
                }
                let ty = self.ty(ins, m, 0)?;
                let op = m.atom_op().ok_or_else(|| {
                    error(
                        DiagnosticKind::Semantic,
                        ins.span,
                        "atomic needs an operation",
                    )
                })?;
                let has_dst = ins.opcode == Atom;
                if !has_dst && matches!(op, crate::ir::AtomOp::Exch | crate::ir::AtomOp::Cas) {
                    // PTX ISA §9.7.13.6: `red` takes .add .min .max .inc
                    // .dec .and .or .xor only (ptxas rejects the others).
                    return Err(error(
                        DiagnosticKind::Semantic,
                        ins.span,
                        "`red` has no `.exch` or `.cas`: use `atom`",
                    ));
                }
                let n_src = if op == crate::ir::AtomOp::Cas { 2 } else { 1 };
                let want = n_src + 1 + has_dst as usize;
                let ops = self.operands(ins, want..=want + 1)?;
                if ops.len() > want {
                    self.cache_policy(ins, m, &ops[want])?;
                }
                let ops = &ops[..want];
                let (dsts, rest) = if has_dst {
                    (vec![self.dst(&ops[0], ty)?], &ops[1..])
                } else {
                    (vec![], ops)
                };
                let (space, base, offset) = self.address(ins, &rest[0], m.space)?;
                let mut srcs = vec![base];
                for o in &rest[1..] {
                    srcs.push(self.src(ins, o, ty)?);
                }
                let cost = if ty.bits() == 64 { 2 } else { 1 };
                self.emit(
                    ins,
                    OpKind::Atom {
                        space,
                        op,
                        ty,
                        offset,
                        vec: 1,
                    },
                    dsts,
                    srcs,
                    lsu_unit(space),
                    cost,
                )
            }
            Cvta => {
                let ops = self.operands(ins, 2..=2)?;
                let s = m.space.ok_or_else(|| {
                    error(
                        DiagnosticKind::Semantic,
                        ins.span,
                        "cvta needs a state space",
                    )
                })?;
                // The shared window holds the whole cluster's shared memory.
                let space = match s {
                    StateSpace::SharedCluster => Some(Space::Shared),
                    s => self.param_space(space_of(s), true),
                }
                .ok_or_else(|| unsupported(ins.span, format_args!("cvta of `.{s}`")))?;
                let ty = self.ty(ins, m, 0).unwrap_or(Ty::U64);
                let d = self.dst(&ops[0], ty)?;
                let a = self.src(ins, &ops[1], ty)?;
                let kind = OpKind::Cvta {
                    space,
                    to_generic: !m.has(Kw::To),
                };
                self.emit(ins, kind, vec![d], vec![a], Unit::Int, 1)
            }
            Isspacep => {
                let ops = self.operands(ins, 2..=2)?;
                let s = m.space.ok_or_else(|| {
                    error(
                        DiagnosticKind::Semantic,
                        ins.span,
                        "isspacep needs a state space",
                    )
                })?;
                // The shared window holds the whole cluster's shared memory.
                let space = match s {
                    StateSpace::SharedCluster => Some(Space::Shared),
                    s => self.param_space(space_of(s), false),
                }
                .ok_or_else(|| unsupported(ins.span, format_args!("isspacep of `.{s}`")))?;
                let d = self.dst(&ops[0], Ty::Pred)?;
                let a = self.src(ins, &ops[1], Ty::U64)?;
                self.emit(
                    ins,
                    OpKind::Isspacep {
                        space,
                        cluster: s == StateSpace::SharedCluster,
                    },
                    vec![d],
                    vec![a],
                    Unit::Int,
                    1,
                )
            }
            Cp => self.cp_async(ins, m),
            // Cache hints: no architectural effect, one issue slot.
            _ => self.emit(ins, OpKind::Nop, vec![], vec![], Unit::LsuGlobal, 1),
        }
    }
}

impl FnLower<'_> {
    /// A vector atomic or reduction (PTX ISA 8.1, sm_90):
    /// `atom{.sem}{.scope}{.global}.add{.L2::cache_hint}.{v2,v4}.f32`,
    /// `atom...{.add,.min,.max}.noftz.{v2,v4}.{f16x2,bf16x2}` and
    /// `...{v2,v4,v8}.{f16,bf16}` with brace-enclosed `d` and `b`; `red`
    /// likewise without `d`. Global memory only (`.global`, or a generic
    /// address, which must then point into global memory as the ISA says).
    fn atom_vector(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        use crate::ir::AtomOp;
        let name = super::instr::instruction_name(ins, ins.opcode);
        let ty = self.ty(ins, m, 0)?;
        let op = m.atom_op();
        let vec = m.vector;
        let form_ok = match ty {
            Ty::F32 => op == Some(AtomOp::Add) && matches!(vec, 2 | 4),
            Ty::F16x2 | Ty::Bf16x2 => {
                matches!(op, Some(AtomOp::Add | AtomOp::Min | AtomOp::Max)) && matches!(vec, 2 | 4)
            }
            Ty::F16 | Ty::Bf16 => {
                matches!(op, Some(AtomOp::Add | AtomOp::Min | AtomOp::Max))
                    && matches!(vec, 2 | 4 | 8)
            }
            _ => false,
        };
        let space_ok = matches!(m.space, None | Some(StateSpace::Global));
        let (Some(op), true, true) = (op, form_ok, space_ok) else {
            return Err(unsupported(
                ins.span,
                format_args!(
                    "`{name}`: vector atomics are `.add` `.v2`/`.v4` of `.f32`, `.add` `.min` `.max` `.v2`/`.v4` of `.f16x2`/`.bf16x2` and `.v2`/`.v4`/`.v8` of `.f16`/`.bf16`, on global memory"
                ),
            ));
        };
        let has_dst = ins.opcode == Opcode::Atom;
        let want = 2 + has_dst as usize;
        let ops = self.operands(ins, want..=want + 1)?;
        if ops.len() > want {
            self.cache_policy(ins, m, &ops[want])?;
        }
        let vector = |o: &Operand| match &o.kind {
            OperandKind::Vector(items) if items.len() == vec as usize => Ok(items.clone()),
            _ => Err(error(
                DiagnosticKind::Semantic,
                o.span,
                format!("`{name}` takes a vector of {vec} elements here"),
            )),
        };
        let mut dsts = Vec::with_capacity(vec as usize);
        if has_dst {
            for o in &vector(&ops[0])? {
                dsts.push(self.dst(o, ty)?);
            }
        }
        let rest = &ops[has_dst as usize..want];
        let (space, base, offset) = self.address(ins, &rest[0], m.space)?;
        let mut srcs = vec![base];
        for o in &vector(&rest[1])? {
            srcs.push(self.src(ins, o, ty)?);
        }
        let kind = OpKind::Atom {
            space,
            op,
            ty,
            offset,
            vec,
        };
        // Issue slots as a scalar atomic per 32 bits.
        let cost = (u16::from(vec) * ty.bytes() as u16 / 4).max(1);
        self.emit(ins, kind, dsts, srcs, lsu_unit(space), cost)
    }

    /// The cache-policy operand of an `.L2::cache_hint` access (a 64-bit
    /// value from `createpolicy`): checked, then ignored, as caching has
    /// no architectural effect. Without the qualifier there is no such
    /// operand.
    pub(super) fn cache_policy(
        &mut self,
        ins: &Instruction,
        m: &Mods,
        op: &Operand,
    ) -> Result<(), Diagnostic> {
        if !m.has(Kw::L2CacheHint) {
            return Err(error(
                DiagnosticKind::Semantic,
                op.span,
                "a cache-policy operand needs `.L2::cache_hint`",
            ));
        }
        self.src(ins, op, Ty::U64).map(|_| ())
    }

    /// `cvta` (`cvta`: true) or `isspacep` of `.param`: in a kernel, its
    /// parameters (the generic parameter window); in a device function,
    /// `cvta` of the `.local` address `mov` gives of a parameter (its
    /// home in the thread's frame), and `isspacep.param` (the ISA's
    /// `.param{::entry}`: the kernel's parameter space) asks whether an
    /// address lies in the kernel's parameter window, as in a kernel.
    fn param_space(&self, space: Option<Space>, cvta: bool) -> Option<Space> {
        match space {
            Some(Space::FrameParam) if cvta && !self.f.is_kernel => Some(Space::Local),
            Some(Space::FrameParam) => Some(Space::KernelParam),
            other => other,
        }
    }

    /// `cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size}`,
    /// `cp.async.commit_group`, `cp.async.wait_group N`, `cp.async.wait_all`.
    fn cp_async(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        let name = super::instr::instruction_name(ins, ins.opcode);
        if m.has(Kw::Async) && m.has(Kw::Mbarrier) && m.has(Kw::Arrive) && !m.has(Kw::Bulk) {
            return self.cp_async_mbarrier_arrive(ins, m);
        }
        if m.has(Kw::Async) && m.has(Kw::Bulk) && m.has(Kw::Tensor) {
            return self.cp_async_bulk_tensor(ins, m);
        }
        if m.has(Kw::Async) && m.has(Kw::Bulk) && !m.has(Kw::Tensor) {
            return self.cp_async_bulk(ins, m);
        }
        if !m.has(Kw::Async) || m.has(Kw::Bulk) || m.has(Kw::Tensor) || m.has(Kw::Mbarrier) {
            return Err(unsupported(ins.span, format_args!("`{name}`")));
        }
        if m.has(Kw::CommitGroup) || m.has(Kw::WaitGroup) || m.has(Kw::WaitAll) {
            // Copies complete at issue, so groups are always complete.
            return self.emit(ins, OpKind::Nop, vec![], vec![], Unit::LsuGlobal, 1);
        }
        let hint = m.has(Kw::L2CacheHint) as usize;
        let ops = self.operands(ins, 3 + hint..=4 + hint)?;
        let ops = if hint == 1 {
            let (policy, rest) = ops.split_last().unwrap();
            self.cache_policy(ins, m, policy)?;
            rest
        } else {
            ops
        };
        let size = match &ops[2].kind {
            OperandKind::Imm(crate::front::ast::Imm::Int(v)) if [4, 8, 16].contains(v) => *v as u32,
            _ => {
                return Err(error(
                    DiagnosticKind::Semantic,
                    ops[2].span,
                    "cp.async copies 4, 8 or 16 bytes",
                ))
            }
        };
        let dst_space = m
            .space
            .filter(|s| matches!(s, StateSpace::Shared | StateSpace::SharedCta));
        let (_, dst, dst_offset) =
            self.address(ins, &ops[0], dst_space.or(Some(StateSpace::Shared)))?;
        let (_, src, src_offset) = self.address(ins, &ops[1], Some(StateSpace::Global))?;
        let src_size = match ops.get(3) {
            None => Src::Imm(size as u64),
            // The ignore-src predicate (`p` or `!p`, a `.pred` register):
            // when true the source is not read and `size` zero bytes are
            // written, which is a source size of 0.
            Some(o) if self.is_predicate(o) => {
                let p = self.pred_src(ins, o)?;
                let n = self.temp(Ty::U32);
                let srcs = vec![Src::Imm(0), Src::Imm(size as u64), p];
                self.emit(ins, OpKind::Selp, vec![n], srcs, Unit::Int, 1)?;
                Src::Reg(n)
            }
            // An immediate source size beyond the copy size is refused, as
            // ptxas does ("value out of range"); one in a register is
            // synccheck's (`interp::check`).
            Some(o) => match &o.kind {
                OperandKind::Imm(crate::front::ast::Imm::Int(v)) if *v < 0 || *v > size as i64 => {
                    return Err(error(
                        DiagnosticKind::Semantic,
                        o.span,
                        format!(
                            "cp.async source size {v} is out of range: 0 to the copy size {size}"
                        ),
                    ))
                }
                _ => self.src(ins, o, Ty::U32)?,
            },
        };
        let kind = OpKind::CpAsync {
            size,
            dst_offset,
            src_offset,
        };
        self.emit(
            ins,
            kind,
            vec![],
            vec![dst, src, src_size],
            Unit::LsuGlobal,
            1,
        )
    }

    /// `cp.async.bulk` without a tensor map: the copy (global to shared
    /// with `mbarrier::complete_tx::bytes`, optionally
    /// `.multicast::cluster` with a 16-bit CTA mask, shared to shared the
    /// same way, shared to global in a `bulk_group`), `commit_group` and `wait_group`
    /// (copies complete at issue, so these have nothing to wait for), and
    /// `prefetch` (no architectural effect).
    fn cp_async_bulk(&mut self, ins: &Instruction, m: &Mods) -> Result<(), Diagnostic> {
        let name = super::instr::instruction_name(ins, ins.opcode);
        if m.has(Kw::CommitGroup) || m.has(Kw::WaitGroup) || m.has(Kw::Prefetch) {
            return self.emit(ins, OpKind::Nop, vec![], vec![], Unit::LsuGlobal, 1);
        }
        let multicast = m.has(Kw::MulticastCluster);
        let spaces: Vec<StateSpace> = ins
            .modifiers
            .iter()
            .filter_map(|md| match md {
                crate::front::instr::Modifier::Space(s) => Some(*s),
                _ => None,
            })
            .collect();
        let shared = |s: &StateSpace| {
            matches!(
                s,
                StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster
            )
        };
        let reduce = if m.has(Kw::Reduce) {
            Some(self.bulk_reduction(ins, m, &spaces, &name)?)
        } else {
            None
        };
        let (dst, src, with_mbarrier) = match spaces.as_slice() {
            [d, StateSpace::Global] if shared(d) && m.has(Kw::MbarrierTx) => {
                (Space::Shared, Space::Global, true)
            }
            _ if multicast
                && !(spaces.as_slice() == [StateSpace::SharedCluster, StateSpace::Global]
                    && m.has(Kw::MbarrierTx)) =>
            {
                return Err(error(
                    DiagnosticKind::Semantic,
                    ins.span,
                    format!("`{name}`: `.multicast::cluster` copies from .global to .shared::cluster with mbarrier::complete_tx::bytes"),
                ))
            }
            [d, s] if shared(d) && shared(s) && m.has(Kw::MbarrierTx) => {
                (Space::Shared, Space::Shared, true)
            }
            [StateSpace::Global, s] if shared(s) && m.has(Kw::BulkGroup) => {
                (Space::Global, Space::Shared, false)
            }
            _ => return Err(unsupported(ins.span, format_args!("`{name}`"))),
        };
        if reduce.is_some() && (multicast || src != Space::Shared) {
            return Err(unsupported(ins.span, format_args!("`{name}`")));
        }
        // The CTA mask of a multicast, then with `.L2::cache_hint` the
        // cache policy (no effect).
        let n = 3 + with_mbarrier as usize + multicast as usize;
        let hint = m.has(Kw::L2CacheHint) as usize;
        let ops = self.operands(ins, n + hint..=n + hint)?;
        if hint == 1 {
            self.cache_policy(ins, m, &ops[n])?;
        }
        let as_state = |s: Space| match s {
            Space::Global => StateSpace::Global,
            _ => StateSpace::Shared,
        };
        let (_, d, dst_offset) = self.address(ins, &ops[0], Some(as_state(dst)))?;
        let (_, s, src_offset) = self.address(ins, &ops[1], Some(as_state(src)))?;
        let size = self.src(ins, &ops[2], Ty::U32)?;
        let mut srcs = vec![d, s, size];
        let mut mbarrier = None;
        if with_mbarrier {
            let (_, b, off) = self.address(ins, &ops[3], Some(StateSpace::Shared))?;
            srcs.push(b);
            mbarrier = Some(off);
        }
        if multicast {
            srcs.push(self.src(ins, &ops[4], Ty::U16)?);
        }
        let kind = OpKind::CpAsyncBulk {
            dst,
            src,
            dst_offset,
            src_offset,
            mbarrier,
            multicast,
            reduce,
        };
        self.emit(ins, kind, vec![], srcs, Unit::LsuGlobal, 1)
    }

    /// The operation and element type of `cp.reduce.async.bulk` (PTX ISA
    /// §9.7.9.25.4.2: the table of `.redOp` and element types per
    /// destination; `.f16`/`.bf16` sums need `.noftz`), the type as a
    /// `CUtensorMapDataType` value (`OpKind::CpAsyncBulk::reduce`).
    fn bulk_reduction(
        &mut self,
        ins: &Instruction,
        m: &Mods,
        spaces: &[StateSpace],
        name: &str,
    ) -> Result<(crate::ir::AtomOp, u8), Diagnostic> {
        use crate::front::ast::ScalarType as T;
        use crate::ir::AtomOp;
        let bad = |what: String| {
            Err(error(
                DiagnosticKind::Semantic,
                ins.span,
                format!("`{name}`: {what}"),
            ))
        };
        let global = match spaces {
            [StateSpace::Global, StateSpace::SharedCta | StateSpace::Shared] => true,
            [StateSpace::SharedCluster, StateSpace::SharedCta | StateSpace::Shared] => false,
            _ => return bad("reduces from .shared::cta into .global or .shared::cluster".into()),
        };
        let Some(op) = super::bulk_tensor::reduction_op(m) else {
            return bad("needs a reduction operation".into());
        };
        let [ty] = m.types.as_slice() else {
            return bad("needs one element type".into());
        };
        let bitwise = matches!(op, AtomOp::And | AtomOp::Or | AtomOp::Xor);
        let code = match (ty, bitwise) {
            (T::B32 | T::U32, _) | (T::S32, true) => 2,
            (T::S32, false) => 3,
            (T::B64 | T::U64, _) | (T::S64, true) => 4,
            (T::S64, false) => 5,
            (T::F16, _) => 6,
            (T::Bf16, _) => 9,
            (T::F32, _) => 10,
            (T::F64, _) => 8,
            _ => 0,
        };
        let ok = match (op, global) {
            (AtomOp::Add, true) => matches!(code, 2 | 3 | 4 | 10 | 8 | 6 | 9),
            (AtomOp::Add, false) => matches!(code, 2..=4),
            (AtomOp::Min | AtomOp::Max, true) => matches!(code, 2 | 3 | 4 | 5 | 6 | 9),
            (AtomOp::Min | AtomOp::Max, false) => matches!(code, 2 | 3),
            (AtomOp::Inc | AtomOp::Dec, _) => code == 2 && matches!(ty, T::U32),
            (_, true) => matches!(code, 2 | 4),
            (_, false) => code == 2,
        };
        let half_add = op == AtomOp::Add && matches!(code, 6 | 9);
        if !ok || half_add != m.has(Kw::Noftz) {
            let op = format!("{op:?}").to_lowercase();
            return bad(format!(
                "`.{op}` on this element type is not in the ISA's table for this destination (f16/bf16 sums need `.noftz`, and only they take it)"
            ));
        }
        Ok((op, code))
    }
}
