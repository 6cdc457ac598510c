//! Executing one micro-op for the active lanes of a warp. The value
//! semantics are [`crate::sem`]'s; this file reads and writes registers and
//! memory, and implements the warp-wide operations (shuffles, votes,
//! matches, reductions) and the device runtime calls; barriers are
//! `barrier.rs`'s.

use cranelift_codegen::entity::EntityRef;

use super::lanes::{advance, Place, Refused};
use super::warp::{Flow, Warp};
use super::{Cta, Fault, FaultKind, PrintfRecord};
use crate::engine::pure;
use crate::engine::pure::extend;
use crate::ir::{
    AtomOp, Callee, FuncId, Op, OpKind, Reg, ReservedSmem, ShflMode, Space, SpecialReg, Src,
    VoteMode,
};
use crate::runtime::memory::{AccessFault, FUNC_BASE};
use crate::sanitizer::Rw;
use crate::sem;

impl Warp {
    /// The register-file row (slot) of `r` in the current frame.
    #[inline]
    pub(super) fn row(&self, cta: &Cta, r: Reg) -> usize {
        let func = self.frames.last().unwrap().func;
        cta.ctx.module.functions[func].slots.slot(r)
    }

    pub(super) fn read(&self, cta: &Cta, src: &Src, lane: usize) -> u64 {
        let frame = self.frames.last().unwrap();
        match *src {
            Src::Reg(r) => frame.regs[self.row(cta, r)][lane],
            Src::Imm(v) => v,
            Src::Global(g, off) => cta.ctx.global_addrs[g.index()].wrapping_add(off as u64),
            Src::Func(f) => FUNC_BASE + 16 * f.index() as u64,
            Src::FrameAddr(off) => (frame.base + off) as u64,
        }
    }

    pub(super) fn write(&mut self, cta: &Cta, reg: Reg, lane: usize, value: u64) {
        let row = self.row(cta, reg);
        let frame = self.frames.last_mut().unwrap();
        let ty = cta.ctx.module.functions[frame.func].regs[reg].ty;
        frame.regs[row][lane] = value & ty.mask();
    }

    pub(super) fn access_fault(
        &self,
        cta: &Cta,
        op: &Op,
        lane: usize,
        r: Refused,
        size: u64,
    ) -> Fault {
        let (kind, what) = match r.fault {
            AccessFault::OutOfBounds => (FaultKind::IllegalAddress, "illegal address"),
            AccessFault::Misaligned => (FaultKind::MisalignedAddress, "misaligned address"),
        };
        let space = match r.space {
            Space::Generic => "generic",
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Local => "local",
            Space::Const => "const",
            Space::KernelParam | Space::FrameParam => "param",
        };
        let mut msg = format!("{what}: {size}-byte {space} access at {:#x}", r.addr);
        msg.push_str(&super::cluster::describe(cta, r.space, r.addr).unwrap_or_default());
        let mut f = self.fault(cta, kind, lane as u32, Some(op), msg);
        let atomic = matches!(op.kind, OpKind::Atom { .. });
        let write = match op.kind {
            OpKind::St { .. }
            | OpKind::Stmatrix { .. }
            | OpKind::WmmaStore { .. }
            | OpKind::Atom { .. } => true,
            OpKind::CpAsync { .. } => r.space == Space::Shared,
            OpKind::CpAsyncBulk { dst, .. } => r.space == dst,
            OpKind::CpAsyncBulkTensor { load, .. } => (r.space == Space::Shared) == load,
            OpKind::TensormapReplace { .. } => true,
            _ => false,
        };
        f.access = Some(super::FaultAccess {
            rw: if write { Rw::Write } else { Rw::Read },
            atomic,
            space: r.space,
            addr: r.addr,
            size,
            free: None,
        });
        f
    }

    /// Executes `op` for the lanes of `active` its guard lets through.
    pub(super) fn exec(&mut self, cta: &mut Cta, op: &Op, active: u32) -> Result<Flow, Fault> {
        let mut mask = active;
        if let Some(g) = op.guard {
            let regs = &self.frames.last().unwrap().regs[self.row(cta, g.reg)];
            for (lane, v) in regs.iter().enumerate() {
                if (v & 1 != 0) == g.negated {
                    mask &= !(1 << lane);
                }
            }
        }
        if mask == 0 {
            return Ok(Flow::Next);
        }
        self.check_op(cta, op);
        let lanes = (0..32usize).filter(move |l| mask & (1 << l) != 0);
        if pure::is_pure(&op.kind) {
            self.exec_pure(cta, op, mask);
            return Ok(Flow::Next);
        }
        match &op.kind {
            OpKind::ReadSpecial(s) => {
                for l in lanes {
                    let v = self.special(cta, *s, l as u32);
                    self.write(cta, op.dsts[0], l, v);
                }
                // Spin loops poll the clock between attempts (libcu++'s
                // waits back off by `%globaltimer`): the other warps get a
                // turn, so that what the loop waits for can happen.
                if matches!(
                    s,
                    SpecialReg::Globaltimer | SpecialReg::GlobaltimerLo | SpecialReg::GlobaltimerHi
                ) {
                    return Ok(Flow::Yield { mbarrier: false });
                }
            }
            OpKind::Nanosleep => return Ok(Flow::Yield { mbarrier: false }),
            OpKind::Ld {
                space,
                ty,
                offset,
                poll,
            } => {
                let size = ty.bytes() as u64;
                let n = op.dsts.len() as u64;
                for l in lanes {
                    let addr = self.read(cta, &op.srcs[0], l).wrapping_add(*offset as u64);
                    let place = self
                        .place(cta, *space, addr, size * n, l)
                        .map_err(|r| self.access_fault(cta, op, l, r, size * n))?;
                    self.check_access(cta, op, place, size * n, Rw::Read, l);
                    for k in 0..n {
                        let p = advance(place, k * size);
                        let v = extend(*ty, self.load_place(cta, p, size, l));
                        self.write(cta, op.dsts[k as usize], l, v);
                    }
                }
                if *poll && self.polls_again() {
                    return Ok(Flow::Yield { mbarrier: false });
                }
            }
            OpKind::St { space, ty, offset } => {
                let size = ty.bytes() as u64;
                let n = op.srcs.len() as u64 - 1;
                for l in lanes {
                    let addr = self.read(cta, &op.srcs[0], l).wrapping_add(*offset as u64);
                    let place = self
                        .place_for_write(cta, *space, addr, size * n, l)
                        .map_err(|r| self.access_fault(cta, op, l, r, size * n))?;
                    self.check_access(cta, op, place, size * n, Rw::Write, l);
                    for k in 0..n {
                        let v = self.read(cta, &op.srcs[1 + k as usize], l);
                        self.store_place(cta, advance(place, k * size), size, v, l);
                    }
                }
            }
            OpKind::Atom {
                space,
                op: aop,
                ty,
                offset,
                vec,
            } => {
                // A vector atomic (`vec` > 1) is checked as one access of
                // the whole vector (alignment included), then updates each
                // element atomically on its own.
                let size = ty.bytes() as u64;
                let n = u64::from((*vec).clamp(1, 8));
                for l in lanes {
                    let addr = self.read(cta, &op.srcs[0], l).wrapping_add(*offset as u64);
                    let c = match n {
                        1 => op.srcs.get(2).map(|s| self.read(cta, s, l)).unwrap_or(0),
                        _ => 0,
                    };
                    let place = self
                        .place_for_write(cta, *space, addr, size * n, l)
                        .map_err(|r| self.access_fault(cta, op, l, r, size * n))?;
                    self.check_atomic(cta, op, place, size * n, l);
                    let (ty, aop) = (*ty, *aop);
                    // Every operand is read before any old value is written
                    // (a destination may also be a source).
                    let mut bs = [0u64; 8];
                    for (k, b) in bs.iter_mut().enumerate().take(n as usize) {
                        *b = self.read(cta, &op.srcs[1 + k], l);
                    }
                    for k in 0..n {
                        let b = bs[k as usize];
                        let mut update = |old: u64| -> u64 {
                            if ty.is_float() && !matches!(aop, AtomOp::Exch | AtomOp::Cas) {
                                sem::float::atom_float(aop, ty, old, b)
                            } else {
                                sem::int::atom_int(aop, ty, old, b, c)
                            }
                        };
                        let old = match advance(place, k * size) {
                            Place::Global(off) => {
                                cta.ctx.memory.atomic_update(off, size, &mut update)
                            }
                            other => {
                                let old = self.load_place(cta, other, size, l);
                                let new = update(old);
                                self.store_place(cta, other, size, new, l);
                                old
                            }
                        };
                        if let Some(&d) = op.dsts.get(k as usize) {
                            self.write(cta, d, l, old);
                        }
                    }
                }
            }
            OpKind::Ldmatrix { .. }
            | OpKind::Stmatrix { .. }
            | OpKind::Mma { .. }
            | OpKind::Movmatrix
            | OpKind::Wgmma { .. } => self.matrix(cta, op, mask)?,
            OpKind::Mbarrier { .. } => return self.mbarrier(cta, op, mask),
            OpKind::Texture { .. } => self.texture(cta, op, mask)?,
            OpKind::WmmaLoad { .. } | OpKind::WmmaStore { .. } | OpKind::WmmaMma { .. } => {
                self.wmma(cta, op, mask)?
            }
            OpKind::CpAsyncBulk { .. } => self.cp_async_bulk(cta, op, mask)?,
            OpKind::CpAsyncBulkTensor { .. } => self.cp_async_bulk_tensor(cta, op, mask)?,
            OpKind::TensormapReplace { .. } => self.tensormap_replace(cta, op, mask)?,
            OpKind::CpAsync { .. } => self.cp_async(cta, op, lanes)?,
            OpKind::Shfl { mode } => {
                self.check_member_mask(cta, op, mask);
                self.check_warp_sync(cta, mask);
                self.shfl(cta, op, mask, *mode)
            }
            // Warp-wide operations act, for each lane, among the active lanes
            // of its `membermask` (lanes may pass different, disjoint masks).
            OpKind::Vote { mode, negate_src } => {
                self.check_member_mask(cta, op, mask);
                self.check_warp_sync(cta, mask);
                let mut ballot = 0u32;
                for l in lanes.clone() {
                    if (self.read(cta, &op.srcs[0], l) & 1 != 0) != *negate_src {
                        ballot |= 1 << l;
                    }
                }
                for l in lanes {
                    let group = mask & self.read(cta, &op.srcs[1], l) as u32;
                    let b = ballot & group;
                    let v = match mode {
                        VoteMode::Ballot => b as u64,
                        VoteMode::All => (b == group) as u64,
                        VoteMode::Any => (b != 0) as u64,
                        VoteMode::Uni => (b == 0 || b == group) as u64,
                    };
                    self.write(cta, op.dsts[0], l, v);
                }
            }
            OpKind::Match { all, ty } => {
                self.check_member_mask(cta, op, mask);
                self.check_warp_sync(cta, mask);
                let mut vals = [0u64; 32];
                for l in lanes.clone() {
                    vals[l] = self.read(cta, &op.srcs[0], l) & ty.mask();
                }
                for l in lanes {
                    let group = mask & self.read(cta, &op.srcs[1], l) as u32;
                    let same = (0..32)
                        .filter(|&k| group & (1 << k) != 0 && vals[k] == vals[l])
                        .fold(0u32, |m, k| m | 1 << k);
                    if *all {
                        let ok = same == group;
                        self.write(cta, op.dsts[0], l, if ok { group as u64 } else { 0 });
                        if let Some(&p) = op.dsts.get(1) {
                            self.write(cta, p, l, ok as u64);
                        }
                    } else {
                        self.write(cta, op.dsts[0], l, same as u64);
                    }
                }
            }
            OpKind::Redux {
                op: rop,
                ty,
                abs,
                nan,
            } => {
                self.check_member_mask(cta, op, mask);
                self.check_warp_sync(cta, mask);
                let mut vals = [0u64; 32];
                for l in lanes.clone() {
                    vals[l] = self.read(cta, &op.srcs[0], l) & ty.mask();
                }
                // Lanes usually share one member mask: each distinct mask
                // is reduced once.
                let mut last: Option<(u32, u64)> = None;
                for l in lanes {
                    let group = mask & self.read(cta, &op.srcs[1], l) as u32;
                    let acc = match last {
                        Some((g, acc)) if g == group && group != 0 => acc,
                        _ => {
                            let mut members = (0..32usize).filter(|&k| group & (1 << k) != 0);
                            let acc = if ty.is_float() {
                                let max = *rop == AtomOp::Max;
                                let vals = members.map(|k| vals[k] as u32);
                                sem::float::redux_f32(max, *abs, *nan, vals) as u64
                            } else {
                                let first = members.next().unwrap_or(l);
                                members.fold(vals[first], |acc, k| {
                                    sem::int::atom_int(*rop, *ty, acc, vals[k], 0)
                                })
                            };
                            last = Some((group, acc));
                            acc
                        }
                    };
                    self.write(cta, op.dsts[0], l, acc);
                }
            }
            OpKind::Activemask => {
                for l in lanes {
                    self.write(cta, op.dsts[0], l, active as u64);
                }
            }
            OpKind::WarpSync => {
                self.check_member_mask(cta, op, mask);
                self.check_warp_sync(cta, mask);
            }
            OpKind::Elect => self.elect(cta, op, mask),
            OpKind::Stack { op: sop, ty } => self.stack(cta, op, mask, *sop, *ty)?,
            OpKind::Getctarank { generic } => self.getctarank(cta, op, mask, *generic),
            OpKind::ClusterBar { wait } => return Ok(self.cluster_barrier(*wait, mask)),
            OpKind::Fence | OpKind::Nop => {}
            OpKind::Bar {
                kind,
                has_count,
                negate_pred,
            } => return self.barrier(cta, op, mask, *kind, *has_count, *negate_pred),
            OpKind::Call { callee, args, rets } => {
                let func: FuncId = match callee {
                    Callee::Direct(f) => *f,
                    Callee::Indirect(r) => {
                        let first = mask.trailing_zeros() as usize;
                        let row = self.row(cta, *r);
                        let target = self.frames.last().unwrap().regs[row][first];
                        let idx = target.wrapping_sub(FUNC_BASE) / 16;
                        let ok =
                            target >= FUNC_BASE && (idx as usize) < cta.ctx.module.functions.len();
                        let uniform = (0..32)
                            .filter(|l| mask & (1 << l) != 0)
                            .all(|l| self.frames.last().unwrap().regs[row][l] == target);
                        if !ok || !uniform {
                            let msg = format!("indirect call through {target:#x}, which is not a function address (or differs across the warp)");
                            return Err(self.fault(
                                cta,
                                FaultKind::IllegalAddress,
                                first as u32,
                                Some(op),
                                msg,
                            ));
                        }
                        FuncId::new(idx as usize)
                    }
                    Callee::Printf => {
                        self.printf(cta, op, mask, args, rets)?;
                        return Ok(Flow::Next);
                    }
                    Callee::AssertFail => return Err(self.assert_fail(cta, op, mask, args)),
                    Callee::Malloc | Callee::Free => {
                        self.heap_call(cta, op, mask, *callee, args, rets)?;
                        return Ok(Flow::Next);
                    }
                };
                return Ok(Flow::Call { func, mask });
            }
            _ => unreachable!("pure ops are executed above"),
        }
        Ok(Flow::Next)
    }

    /// Executes a pure op for the lanes of `mask` ([`pure::eval`] per lane).
    fn exec_pure(&mut self, cta: &Cta, op: &Op, mask: u32) {
        let func = &cta.ctx.module.functions[self.frames.last().unwrap().func];
        let n = op.srcs.len().min(pure::MAX_OPERANDS);
        let mut srcs = [0u64; pure::MAX_OPERANDS];
        let mut out = [0u64; pure::MAX_OPERANDS];
        for l in (0..32usize).filter(|l| mask & (1 << l) != 0) {
            for (k, s) in op.srcs.iter().take(n).enumerate() {
                srcs[k] = self.read(cta, s, l);
            }
            pure::eval(op, &srcs[..n], &mut out);
            let frame = self.frames.last_mut().unwrap();
            for (k, d) in op.dsts.iter().enumerate() {
                frame.regs[func.slots.slot(*d)][l] = out[k] & func.regs[*d].ty.mask();
            }
        }
    }

    fn special(&self, cta: &Cta, s: SpecialReg, lane: u32) -> u64 {
        let ctx = cta.ctx;
        let tid = self.tid(cta, lane);
        let below = if lane == 0 {
            0
        } else {
            u32::MAX >> (32 - lane)
        };
        (match s {
            SpecialReg::Tid(d) => tid[d as usize],
            SpecialReg::Ntid(d) => ctx.block[d as usize],
            SpecialReg::Ctaid(d) => cta.ctaid[d as usize],
            SpecialReg::Nctaid(d) => ctx.grid[d as usize],
            SpecialReg::Laneid => lane,
            SpecialReg::Warpid => self.index,
            SpecialReg::Nwarpid => 64,
            SpecialReg::Smid | SpecialReg::Gridid => 0,
            SpecialReg::Nsmid => 1,
            SpecialReg::LanemaskEq => 1 << lane,
            SpecialReg::LanemaskLt => below,
            SpecialReg::LanemaskLe => below | (1 << lane),
            SpecialReg::LanemaskGt => !(below | (1 << lane)),
            SpecialReg::LanemaskGe => !below,
            SpecialReg::Clock => self.clock as u32,
            SpecialReg::ClockHi => (self.clock >> 32) as u32,
            SpecialReg::Clock64 => return self.clock,
            SpecialReg::Globaltimer => return ctx.start.elapsed().as_nanos() as u64,
            SpecialReg::GlobaltimerLo => ctx.start.elapsed().as_nanos() as u32,
            SpecialReg::GlobaltimerHi => (ctx.start.elapsed().as_nanos() >> 32) as u32,
            SpecialReg::DynamicSmemSize => ctx.dynamic_shared,
            SpecialReg::TotalSmemSize => super::user_shared_size(ctx) as u32,
            SpecialReg::AggrSmemSize => {
                (super::user_shared_size(ctx) + super::RESERVED_SHARED) as u32
            }
            SpecialReg::Pm(_) | SpecialReg::Pm64(_) | SpecialReg::CurrentGraphExec => 0,
            SpecialReg::Envreg(1) => (ctx.grid_workspace >> 32) as u32,
            SpecialReg::Envreg(2) => ctx.grid_workspace as u32,
            SpecialReg::Envreg(_) => 0,
            SpecialReg::Cluster(c) => self.cluster_special(cta, c),
            SpecialReg::ReservedSmem(r) => {
                let begin = super::reserved_shared_offset(ctx) as u32;
                let cap = super::RESERVED_SHARED as u32;
                match r {
                    ReservedSmem::Begin | ReservedSmem::At(0) => begin,
                    ReservedSmem::End => begin + cap,
                    ReservedSmem::Cap => cap,
                    ReservedSmem::At(_) => begin + cap / 2,
                }
            }
        }) as u64
    }

    fn shfl(&mut self, cta: &Cta, op: &Op, mask: u32, mode: ShflMode) {
        let vals = self.read_lanes(cta, &op.srcs[0]);
        let (out, preds) = match (&op.srcs[1], &op.srcs[2]) {
            // Immediate lane and clamp operands (the usual form): the same
            // rules, with the operands constant across the lanes.
            (&Src::Imm(b), &Src::Imm(c)) => shfl_whole_warp(mode, &vals, b, c)
                .unwrap_or_else(|| shfl_mode(mode, &vals, |_| b, |_| c)),
            _ => {
                let bs = self.read_lanes(cta, &op.srcs[1]);
                let cs = self.read_lanes(cta, &op.srcs[2]);
                shfl_mode(mode, &vals, |l| bs[l], |l| cs[l])
            }
        };
        self.write_lanes(cta, op.dsts[0], mask, &out);
        if let Some(&p) = op.dsts.get(1) {
            let preds: [u64; 32] = std::array::from_fn(|l| (preds >> l) as u64 & 1);
            self.write_lanes(cta, p, mask, &preds);
        }
    }

    /// The value of `src` in every lane.
    pub(super) fn read_lanes(&self, cta: &Cta, src: &Src) -> [u64; 32] {
        match *src {
            Src::Reg(r) => self.frames.last().unwrap().regs[self.row(cta, r)],
            Src::Imm(v) => [v; 32],
            _ => std::array::from_fn(|lane| self.read(cta, src, lane)),
        }
    }

    /// Writes `values` to `reg` in the lanes of `mask`.
    pub(super) fn write_lanes(&mut self, cta: &Cta, reg: Reg, mask: u32, values: &[u64; 32]) {
        let row = self.row(cta, reg);
        let frame = self.frames.last_mut().unwrap();
        let m = cta.ctx.module.functions[frame.func].regs[reg].ty.mask();
        let dst = &mut frame.regs[row];
        if mask == u32::MAX {
            for (d, v) in dst.iter_mut().zip(values) {
                *d = v & m;
            }
            return;
        }
        for (lane, (d, v)) in dst.iter_mut().zip(values).enumerate() {
            if mask & (1 << lane) != 0 {
                *d = v & m;
            }
        }
    }

    /// Reads the 8-byte argument in the caller's `.param` slot at `off`.
    fn param_u64(&self, off: u32, lane: usize) -> u64 {
        let base = self.frames.last().unwrap().base as usize + off as usize;
        let mem = &self.local[lane];
        let mut v = [0u8; 8];
        if base + 8 <= mem.len() {
            v.copy_from_slice(&mem[base..base + 8]);
        }
        u64::from_le_bytes(v)
    }

    fn printf(
        &mut self,
        cta: &mut Cta,
        op: &Op,
        mask: u32,
        args: &[(u32, u32, u32)],
        rets: &[(u32, u32, u32)],
    ) -> Result<(), Fault> {
        for lane in (0..32usize).filter(|l| mask & (1 << l) != 0) {
            let fmt_addr = self.param_u64(args[0].0, lane);
            let args_addr = self.param_u64(args[1].0, lane);
            let bad = |w: &Warp, msg: String| {
                w.fault(cta, FaultKind::BadPrintf, lane as u32, Some(op), msg)
            };
            let fmt = self
                .read_cstr(cta, fmt_addr, lane)
                .map_err(|m| bad(self, format!("cannot read the format string: {m}")))?;
            let mut buf = Vec::new();
            if args_addr != 0 {
                for i in 0..1024u64 {
                    match self.place(cta, Space::Generic, args_addr + i, 1, lane) {
                        Ok(p) => buf.push(self.load_place(cta, p, 1, lane) as u8),
                        Err(_) => break,
                    }
                }
            }
            let this: &Warp = self;
            let mut read = |addr: u64| this.read_cstr(cta, addr, lane);
            let text = crate::runtime::printf::format(&fmt, &buf, &mut read)
                .map_err(|e| bad(self, e.to_string()))?;
            let t = self.tid(cta, lane as u32);
            let [bx, by, _] = cta.ctx.block;
            if !text.is_empty() && cta.ctx.printf.admit(text.len() as u64) {
                cta.output.printf.push(PrintfRecord {
                    thread: t[0] + t[1] * bx + t[2] * bx * by,
                    text,
                });
            }
            if let Some(&(_, to, size)) = rets.first() {
                let at = self.frames.last().unwrap().base as usize + to as usize;
                let mem = &mut self.local[lane];
                if at + size as usize <= mem.len() {
                    mem[at..at + size as usize].fill(0);
                }
            }
        }
        Ok(())
    }

    /// Device-side `malloc` or `free`, lane by lane in lane order.
    fn heap_call(
        &mut self,
        cta: &mut Cta,
        op: &Op,
        mask: u32,
        callee: Callee,
        args: &[(u32, u32, u32)],
        rets: &[(u32, u32, u32)],
    ) -> Result<(), Fault> {
        let Some(heap) = cta.ctx.heap else {
            let lane = mask.trailing_zeros();
            let msg = "device-side malloc/free without a device heap".to_string();
            return Err(self.fault(cta, FaultKind::IllegalAddress, lane, Some(op), msg));
        };
        for lane in (0..32usize).filter(|l| mask & (1 << l) != 0) {
            let arg = self.param_u64(args[0].0, lane);
            if callee == Callee::Free {
                if let Err(e) = heap.free(arg) {
                    let msg = crate::sanitizer::FreeError::message(arg);
                    let mut f =
                        self.fault(cta, FaultKind::IllegalAddress, lane as u32, Some(op), msg);
                    f.access = Some(super::FaultAccess {
                        rw: Rw::Write,
                        atomic: false,
                        space: Space::Global,
                        addr: arg,
                        size: 0,
                        free: Some(e),
                    });
                    return Err(f);
                }
                continue;
            }
            let ptr = heap.malloc(arg);
            let &(_, to, size) = &rets[0];
            let at = self.frames.last().unwrap().base as usize + to as usize;
            let mem = &mut self.local[lane];
            if at + size as usize <= mem.len() {
                mem[at..at + 8].copy_from_slice(&ptr.to_le_bytes());
            }
        }
        Ok(())
    }

    fn assert_fail(&self, cta: &Cta, op: &Op, mask: u32, args: &[(u32, u32, u32)]) -> Fault {
        let lane = mask.trailing_zeros() as usize;
        let s = |k: usize| {
            let addr = self.param_u64(args[k].0, lane);
            self.read_cstr(cta, addr, lane)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_else(|e| e)
        };
        let (message, file, function) = (s(0), s(1), s(3));
        let line = self.param_u64(args[2].0, lane) as u32;
        let t = self.tid(cta, lane as u32);
        let c = cta.ctaid;
        let msg = format!(
            "{file}:{line}: {function}: block: [{},{},{}], thread: [{},{},{}] Assertion `{message}` failed.",
            c[0], c[1], c[2], t[0], t[1], t[2]
        );
        self.fault(cta, FaultKind::Assert, lane as u32, Some(op), msg)
    }
}

/// `shfl_mode` with constant operands over one 32-lane segment (clamp
/// 31 for `bfly`, `down` and `idx`, 0 for `up`: how reductions and scans
/// are written), where the source lane needs no per-lane rules; `None`
/// for other operands. Tested against `shfl_mode`.
#[inline]
fn shfl_whole_warp(mode: ShflMode, vals: &[u64; 32], b: u64, c: u64) -> Option<([u64; 32], u32)> {
    let b = (b & 31) as usize;
    Some(match (mode, c & 0x1f1f) {
        (ShflMode::Bfly, 0x1f) => (std::array::from_fn(|l| vals[l ^ b]), u32::MAX),
        (ShflMode::Idx, 0x1f) => ([vals[b]; 32], u32::MAX),
        (ShflMode::Down, 0x1f) => (
            std::array::from_fn(|l| if l + b < 32 { vals[l + b] } else { vals[l] }),
            u32::MAX >> b,
        ),
        (ShflMode::Up, 0) => (
            std::array::from_fn(|l| if l >= b { vals[l - b] } else { vals[l] }),
            u32::MAX << b,
        ),
        _ => return None,
    })
}

/// Every lane's source lane and whether it is in range (bit per lane):
/// the shuffle of the lane numbers.
pub(super) fn shfl_sources(mode: ShflMode, bs: &[u64; 32], cs: &[u64; 32]) -> ([u64; 32], u32) {
    let lanes: [u64; 32] = std::array::from_fn(|l| l as u64);
    shfl_mode(mode, &lanes, |l| bs[l], |l| cs[l])
}

/// Every lane's shuffle result, and its predicate (bit per lane), in
/// `mode`; `b(lane)` and `c(lane)` are the lane and clamp operands.
#[inline(always)]
fn shfl_mode(
    mode: ShflMode,
    vals: &[u64; 32],
    b: impl Fn(usize) -> u64,
    c: impl Fn(usize) -> u64,
) -> ([u64; 32], u32) {
    // One loop per mode (the mode hoisted out of the lane loop).
    match mode {
        ShflMode::Up => shfl_lanes(vals, b, c, |l, b, _, max| (l - b, l - b >= max)),
        ShflMode::Down => shfl_lanes(vals, b, c, |l, b, _, max| (l + b, l + b <= max)),
        ShflMode::Bfly => shfl_lanes(vals, b, c, |l, b, _, max| (l ^ b, (l ^ b) <= max)),
        ShflMode::Idx => shfl_lanes(vals, b, c, |l, b, seg, max| {
            let j = (l & seg) | (b & !seg);
            (j, j <= max)
        }),
    }
}

/// Every lane's shuffle result and predicate: `source(lane, b, segmask,
/// max_lane)` gives the source lane and whether it is in range (PTX
/// `shfl.sync`'s rules; an out-of-range lane reads its own value).
#[inline(always)]
fn shfl_lanes(
    vals: &[u64; 32],
    b_of: impl Fn(usize) -> u64,
    c_of: impl Fn(usize) -> u64,
    source: impl Fn(i32, i32, i32, i32) -> (i32, bool),
) -> ([u64; 32], u32) {
    let mut preds = 0u32;
    let out = std::array::from_fn(|lane| {
        let b = (b_of(lane) & 31) as i32;
        let c = c_of(lane) as u32;
        let cval = (c & 31) as i32;
        let segmask = ((c >> 8) & 31) as i32;
        let l = lane as i32;
        let max_lane = (l & segmask) | (cval & !segmask);
        let (j, pval) = source(l, b, segmask, max_lane);
        preds |= (pval as u32) << lane;
        let src = if pval && (0..32).contains(&j) {
            j as usize
        } else {
            lane
        };
        vals[src]
    });
    (out, preds)
}

#[cfg(test)]
mod tests {
    use super::{shfl_mode, shfl_sources, shfl_whole_warp};
    use crate::ir::ShflMode;

    /// Synccheck's source lanes: a broadcast from lane 0 over the whole
    /// warp, and over half-warps (width 16: lane 16 for the upper half); a
    /// `down` by 8 within half-warps, out of range (own lane, predicate
    /// false) for lanes 8 to 15 and 24 to 31.
    #[test]
    fn shuffle_sources_follow_the_clamp_and_segment() {
        let (src, ok) = shfl_sources(ShflMode::Idx, &[0; 32], &[0x1f; 32]);
        assert_eq!((src, ok), ([0; 32], u32::MAX));
        let (src, ok) = shfl_sources(ShflMode::Idx, &[0; 32], &[0x101f; 32]);
        assert_eq!((src[15], src[16], src[31], ok), (0, 16, 16, u32::MAX));
        let (src, ok) = shfl_sources(ShflMode::Down, &[8; 32], &[0x101f; 32]);
        assert_eq!((src[7], src[8], src[16], src[24]), (15, 8, 24, 24));
        assert_eq!(ok, 0x00ff_00ff);
    }

    /// The whole-warp shortcuts give what the general rules give, for
    /// every mode, lane operand (beyond 31 too) and the clamps they take.
    #[test]
    fn whole_warp_shuffles_follow_the_general_rules() {
        let vals: [u64; 32] = std::array::from_fn(|l| 0x1000 + l as u64 * 7);
        let mut taken = 0;
        for mode in [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx] {
            for b in 0..70u64 {
                for c in [0, 0x1f, 0x0f, 0x101f, 0x1c1f, 0x8000_001f, 0x20] {
                    if let Some(fast) = shfl_whole_warp(mode, &vals, b, c) {
                        taken += 1;
                        assert_eq!(
                            fast,
                            shfl_mode(mode, &vals, |_| b, |_| c),
                            "{mode:?} b={b} c={c:#x}"
                        );
                    }
                }
            }
        }
        assert!(taken >= 4 * 70, "the shortcuts were taken {taken} times");
    }
}
