//! One SM in one cycle: every warp scheduler picks a ready warp and issues
//! its instruction (executing the instruction's issue unit through the
//! executor when it has not run yet), books the unit and the warp's
//! dispatch, sets its results' ready times on the warp's scoreboard, moves
//! the warp on and files it again; the cycles in which a scheduler did not
//! issue are attributed to a stall reason.

use cranelift_codegen::entity::EntityRef;

use super::exec::{CtaExec, GridExec, MemSpace, Next, Pos};
use super::memory::Kind;
use super::program::MemClass;
use super::report::{IssueEvent, Stall};
use super::sched::Sched;
use super::sim::{Model, Sm, WState, WarpCtx, UNIT_PRIVATE};

impl Model<'_> {
    /// One cycle of one SM: every scheduler that may issue tries to.
    /// Returns the earliest cycle one may issue next, and how many CTAs
    /// retired.
    pub(super) fn cycle<G: GridExec>(
        &mut self,
        sm: &mut Sm<G::Cta>,
        sm_index: usize,
        grid: &mut G,
        now: u64,
    ) -> Result<(u64, u32), G::Fault> {
        let mut retired = 0;
        let n = sm.scheds.len();
        for s in 0..n {
            if sm.wake[s] > now {
                continue;
            }
            // A scheduler at half the processor clock issues every other
            // cycle at most.
            if let Some(next) = sm.scheds[s].issued_at.checked_add(self.issue_interval) {
                if now < next {
                    sm.wake[s] = next;
                    continue;
                }
            }
            sm.dirty |= 1 << s;
            sm.scheds[s].wake(now);
            let mut wake = u64::MAX;
            let Some(local) = self.pick(sm, s, now, &mut wake) else {
                sm.wake[s] = wake;
                continue;
            };
            let slot = local as usize * n + s;
            let sched = &mut sm.scheds[s];
            sched.last = Some(slot);
            sched.issued_at = now;
            sched.rr = local + 1;
            sched.take(local);
            let mut retired_here = 0;
            for i in 0..self.width {
                if i > 0 {
                    // The second of a pair: the warp's next instruction, if
                    // it does not depend on the first and its unit is free.
                    let Some(ctx) = sm.warps[slot].as_ref() else {
                        break;
                    };
                    if ctx.state != WState::Ready {
                        break;
                    }
                    let class = ctx.ic.class as usize;
                    let per_cycle = self.classes.at(now)[class & 7];
                    if !self.deps_ready(ctx, now) || !sm.scheds[s].unit_free(class, now, per_cycle)
                    {
                        break;
                    }
                }
                let r = if !self.program.folds {
                    if self.issue_within_unit(sm, sm_index, s, slot, now) {
                        0
                    } else {
                        self.issue(sm, sm_index, s, slot, grid, now)?
                    }
                } else {
                    self.issue_next(sm, sm_index, s, slot, grid, now)?
                };
                retired_here += r;
                if r > 0 {
                    break;
                }
            }
            retired += retired_here;
            let (last, slot) = if retired_here == 0 {
                self.solo_run(sm, sm_index, s, slot, grid, now)?
            } else {
                (now, slot)
            };
            if sm.warps[slot].is_some() {
                self.enqueue(sm, slot, last);
            }
            // It had its turn this cycle, whatever was filed with it since:
            // it may issue again when a ready warp's unit is free or a
            // waiting warp's operands arrive.
            let mut wake = u64::MAX;
            let next = last + self.issue_interval;
            let free = sm.scheds[s].candidates(next, self.classes.at(next), &mut wake);
            sm.wake[s] = if free != 0 { next } else { wake.max(next) };
            if last > now {
                // It ran ahead: its stall record is taken where it stands.
                self.take_stall(sm, s, last);
                sm.dirty &= !(1 << s);
            }
        }
        let wake = sm.wake.iter().copied().min().unwrap_or(u64::MAX);
        Ok((wake, retired))
    }

    fn deps_ready(&self, ctx: &WarpCtx, now: u64) -> bool {
        let (a, _, b) = ctx.ic.ops;
        self.program.regs[a as usize..b as usize]
            .iter()
            .all(|&r| ctx.ready[r as usize] >> 1 <= now)
    }

    /// The warp scheduler `s` issues from this cycle, by policy, among its
    /// ready warps whose units are free (a local index); `wake` learns when
    /// one could.
    #[inline]
    fn pick<C>(&self, sm: &Sm<C>, s: usize, now: u64, wake: &mut u64) -> Option<u32> {
        let sched = &sm.scheds[s];
        let bits = sched.candidates(now, self.classes.at(now), wake);
        if bits == 0 {
            return None;
        }
        let n = sm.scheds.len();
        Some(sched.choose(
            self.arch.scheduler.policy,
            bits,
            |slot| (slot / n) as u32,
            |local| {
                let ctx = sm.warps[local as usize * n + s].as_ref().unwrap();
                (ctx.cta_linear, ctx.w)
            },
        ))
    }

    /// Issues the current instruction of the warp in `slot` where that is
    /// bookkeeping only (what `issue` would do, without its general path):
    /// a later op of an issue unit that already ran, not its last, or a
    /// deferrable op of one that has not (`CtaExec::deferrable`), and no
    /// memory access for the model. Returns false, changing nothing,
    /// otherwise.
    #[inline(always)]
    pub(super) fn issue_within_unit<C: CtaExec>(
        &mut self,
        sm: &mut Sm<C>,
        sm_index: usize,
        s: usize,
        slot: usize,
        now: u64,
    ) -> bool {
        let Sm {
            warps,
            scheds,
            ctas,
            ..
        } = sm;
        let Some(ctx) = warps[slot].as_mut() else {
            return false;
        };
        let next_pc = ctx.pos.pc + 1;
        if next_pc >= ctx.ran_until && ctx.pos.pc >= ctx.defer_until {
            if ctx.ran_until != 0 || ctx.defer_until != 0 {
                return false;
            }
            // The first op of a unit that has not run: its deferrable ops
            // issue now, and it runs when the op after them issues.
            let n = self.unit_ahead(ctas, ctx);
            if n == 0 || n == UNIT_PRIVATE {
                return false;
            }
            ctx.unit_start = ctx.pos.pc;
            ctx.defer_until = ctx.pos.pc + n as usize;
        }
        let ic = &ctx.ic;
        let latency = match ic.mem {
            m if m.from_addresses() => return false,
            MemClass::Constant => self.arch.latency.constant,
            _ => ic.latency,
        };
        let dispatch = ic.dispatch;
        self.book(
            &mut scheds[s],
            ctx,
            sm_index,
            s,
            now,
            dispatch,
            latency,
            false,
        );
        ctx.pos.pc = next_pc;
        ctx.cur += 1;
        self.compute_ready(ctx);
        true
    }

    /// Books the issue at `now` of the current instruction of `ctx` on
    /// scheduler `s` (`sched`): its unit for `dispatch` cycles, the warp's
    /// dispatch, its results ready `latency` later (`from_mem`: produced by
    /// a memory access), the report's counts and events.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn book(
        &mut self,
        sched: &mut Sched,
        ctx: &mut WarpCtx,
        sm_index: usize,
        s: usize,
        now: u64,
        dispatch: u32,
        latency: u32,
        from_mem: bool,
    ) {
        let ic = ctx.ic;
        if ic.cost == 0 {
            self.book_folded(ctx, now, latency, from_mem);
            return;
        }
        let unit = sched.unit_mut(ic.class as usize);
        if dispatch > 1 {
            unit.busy_until = now + dispatch as u64;
            unit.cycle = now;
            unit.used = u32::MAX;
        } else if unit.cycle == now {
            unit.used += 1;
        } else {
            unit.cycle = now;
            unit.used = 1;
        }
        ctx.next_free = now
            + if self.dispatch_blocks_warp {
                dispatch as u64
            } else {
                ic.cost as u64
            };
        let ready = ((now + latency as u64) << 1) | from_mem as u64;
        for &d in &self.program.regs[ic.ops.1 as usize..ic.ops.2 as usize] {
            ctx.ready[d as usize] = ready;
        }
        // Report (per instruction; summed at the end).
        let counts = &mut self.instr_cycles[ctx.cur];
        counts.cycles += dispatch as u64;
        counts.issues += 1;
        counts.threads += ctx.threads as u64;
        if ctx.record && now >= self.cfg.window.0 && now <= self.cfg.window.1 {
            let instr = &self.program.instrs[ctx.cur];
            self.report.events.push(IssueEvent {
                cycle: now,
                sm: sm_index as u32,
                scheduler: s as u32,
                cta: ctx.cta_linear,
                warp: ctx.w as u32,
                ordinal: instr.ordinal,
                line: instr.line,
                dispatch,
            });
        }
    }

    /// Issues the current instruction of the warp in `slot`: executes its
    /// unit if it has not run, books the unit, sets its results' ready
    /// times, and moves to the next instruction. Returns the CTAs retired
    /// (0 or 1); warps a barrier released are filed with their schedulers.
    pub(super) fn issue<G: GridExec>(
        &mut self,
        sm: &mut Sm<G::Cta>,
        sm_index: usize,
        s: usize,
        slot: usize,
        grid: &mut G,
        now: u64,
    ) -> Result<u32, G::Fault> {
        let ctx = sm.warps[slot].as_mut().unwrap();
        let ic = ctx.ic;
        let mut latency = ic.latency;
        let mut replays = 0;
        let mut from_mem = false;
        let mut barrier = false;
        let mut frame_changed = false;
        let mut accessed = false;
        // The access's addresses where the executor recorded them.
        let mut recorded = None;
        if ctx.ran_until == 0 {
            let cta = sm.ctas[ctx.cta_slot].as_mut().unwrap();
            if ctx.defer_until == 0 {
                let out = cta.exec.step(ctx.w, ctx.pos, now, &mut self.access)?;
                ctx.ran_until = out.end.max(1);
                barrier = out.barrier;
                frame_changed = out.frame_changed;
                accessed = out.access;
                recorded = out.addrs;
            } else {
                // A unit whose first ops issued without running it runs
                // from its start now; this op's access is a later one.
                let start = Pos {
                    pc: ctx.unit_start,
                    ..ctx.pos
                };
                ctx.defer_until = 0;
                let out = cta.exec.step(ctx.w, start, now, &mut self.access)?;
                ctx.ran_until = out.end.max(1);
                barrier = out.barrier;
                frame_changed = out.frame_changed;
                if ic.mem.from_addresses() {
                    recorded = cta.exec.access(ctx.w, ctx.pos, &mut self.access);
                    accessed = recorded.is_some();
                }
            }
        } else if ic.mem.from_addresses() {
            // A later access of a compiled piece: it ran with the first op.
            let cta = sm.ctas[ctx.cta_slot].as_mut().unwrap();
            recorded = cta.exec.access(ctx.w, ctx.pos, &mut self.access);
            accessed = recorded.is_some();
        }
        if accessed {
            let a = &self.access;
            let addrs = recorded.unwrap_or(&a.addrs);
            from_mem = true;
            let cost = match a.space {
                MemSpace::Shared => self.mem.shared(&mut sm.mem, a.mask, addrs, a.size, now),
                MemSpace::Global => {
                    let cache = ic.cache;
                    self.mem
                        .global(&mut sm.mem, a.kind, cache, a.mask, addrs, a.size, now)
                }
                MemSpace::Local => {
                    // Local memory is interleaved by word across the
                    // warp's lanes, per warp context.
                    let base = (1u64 << 62) | ((sm_index as u64 * 4096 + slot as u64) << 32);
                    // (Wrapping: lanes outside the mask carry any value.)
                    let addrs: [u64; 32] = std::array::from_fn(|l| {
                        base.wrapping_add((addrs[l] / 4).wrapping_mul(128))
                            .wrapping_add(l as u64 * 4 + addrs[l] % 4)
                    });
                    self.mem
                        .local(&mut sm.mem, a.kind, a.mask, &addrs, a.size, now)
                }
            };
            latency = cost.latency;
            replays = cost.replays;
            if ic.cas_loop && a.kind == Kind::Atomic && a.space != MemSpace::Local {
                let shared = a.space == MemSpace::Shared;
                let end = self.mem.cas_loop(
                    &mut sm.mem,
                    shared,
                    ctx.cta_slot as u64,
                    a.mask,
                    addrs,
                    now + latency as u64,
                );
                latency = (end - now).min(u32::MAX as u64) as u32;
            }
            if a.kind != Kind::Load && a.space != MemSpace::Shared {
                let cta = sm.ctas[ctx.cta_slot].as_mut().unwrap();
                cta.drained_at = cta.drained_at.max(now + latency as u64);
            }
            if a.kind == Kind::Store {
                from_mem = false;
            }
        }
        if ic.mem == MemClass::Constant {
            latency = self.arch.latency.constant;
        } else if ic.mem.from_addresses() && !from_mem && latency == 0 {
            latency = self.arch.memory.l2_latency;
        }
        let dispatch = ic.dispatch + replays;
        self.book(
            &mut sm.scheds[s],
            ctx,
            sm_index,
            s,
            now,
            dispatch,
            latency,
            from_mem,
        );
        // Move on.
        let next_pc = ctx.pos.pc + 1;
        if next_pc < ctx.ran_until && !barrier {
            ctx.pos.pc = next_pc;
            ctx.cur += 1;
            self.compute_ready(ctx);
            return Ok(0);
        }
        let end = ic.block_end as usize;
        if next_pc < end && ctx.ran_until < end && !barrier && !frame_changed {
            // The unit ended inside its block (before an access that
            // conflicts with it, or a warp-wide op): the next op is the
            // block's next, for the same lanes, where `fetch` would find it.
            ctx.pos.pc = next_pc;
            ctx.cur += 1;
            ctx.ran_until = 0;
            ctx.defer_until = 0;
            self.compute_ready(ctx);
            return Ok(0);
        }
        if frame_changed {
            ctx.ready.clear();
        }
        let cta_slot = ctx.cta_slot;
        let cta = sm.ctas[cta_slot].as_mut().unwrap();
        self.fetch(ctx, &mut cta.exec, now)?;
        if ctx.state == WState::Ready {
            return Ok(0);
        }
        if ctx.state == WState::Done {
            cta.live_warps -= 1;
        }
        // Barriers that can complete now (a warp arrived or exited).
        let n_sched = sm.scheds.len();
        let mut changed = true;
        let mut others = std::mem::take(&mut self.others);
        others.clear();
        while changed {
            changed = false;
            let mut released = std::mem::take(&mut self.released);
            released.clear();
            cta.exec.release(&mut released)?;
            for &w in &released {
                let ws = cta.warp_slots[w];
                let other = sm.warps[ws].as_mut().unwrap();
                other.next_free = other.next_free.max(now + 1);
                self.fetch(other, &mut cta.exec, now + 1)?;
                if other.state == WState::Done {
                    cta.live_warps -= 1;
                    changed = true;
                }
                if ws != slot {
                    sm.scheds[ws % n_sched].at_barrier -= 1;
                    sm.dirty |= 1 << (ws % n_sched);
                    others.push(ws);
                }
            }
            self.released = released;
        }
        let live = cta.live_warps;
        for &ws in &others {
            self.enqueue(sm, ws, now);
        }
        self.others = others;
        if live == 0 {
            let cta = sm.ctas[cta_slot].take().unwrap();
            sm.freed.push(cta.drained_at.max(now + 1));
            for &ws in &cta.warp_slots {
                sm.warps[ws] = None;
            }
            sm.resident_warps -= cta.warp_slots.len() as u32;
            for sched in &mut sm.scheds {
                if sched.last.is_some_and(|l| cta.warp_slots.contains(&l)) {
                    sched.last = None;
                }
            }
            sm.dirty = u32::MAX;
            grid.finish(cta.linear, cta.exec);
            return Ok(1);
        }
        Ok(0)
    }

    /// Finds the warp's next instruction after its current unit ran out;
    /// fall-through jumps execute on the way, taking no issue slot.
    pub(super) fn fetch<C: CtaExec>(
        &mut self,
        ctx: &mut WarpCtx,
        exec: &mut C,
        now: u64,
    ) -> Result<(), C::Fault> {
        loop {
            match exec.next(ctx.w) {
                Next::At(pos) => {
                    if ctx.ready.is_empty() || ctx.pos.func != pos.func {
                        let n = self.program.reg_counts[pos.func.index()];
                        let pending = ctx.ready.iter().map(|v| v >> 1).max().unwrap_or(now);
                        ctx.ready.clear();
                        ctx.ready.resize(n, pending << 1);
                    }
                    ctx.cur = if pos.block == ctx.pos.block && pos.func == ctx.pos.func {
                        ctx.cur - ctx.pos.pc + pos.pc
                    } else {
                        self.program.index(pos.func, pos.block, pos.pc)
                    };
                    if pos.mask != ctx.pos.mask {
                        // (A count the host does bit by bit: only where
                        // the lanes change.)
                        ctx.threads = pos.mask.count_ones();
                    }
                    ctx.pos = pos;
                    if self.costs[ctx.cur].free {
                        // A jump: no access (the scratch is free here).
                        exec.step(ctx.w, pos, now, &mut self.access)?;
                        continue;
                    }
                    ctx.ran_until = 0;
                    ctx.defer_until = 0;
                    ctx.state = WState::Ready;
                    self.compute_ready(ctx);
                }
                Next::Waiting => ctx.state = WState::Barrier,
                Next::Done => ctx.state = WState::Done,
            }
            return Ok(());
        }
    }

    /// When the current instruction's operands (and the warp's previous
    /// dispatch) allow it to issue, and what it waits for.
    #[inline]
    fn compute_ready(&self, ctx: &mut WarpCtx) {
        ctx.ic = self.costs[ctx.cur];
        let (a, _, b) = ctx.ic.ops;
        let mut at = ctx.next_free;
        let mut why = 0;
        for &r in &self.program.regs[a as usize..b as usize] {
            let v = ctx.ready[r as usize];
            if v >> 1 > at {
                at = v >> 1;
                why = (v & 1) | 2;
            }
        }
        ctx.ready_at = at;
        // (A table rather than a branch on `why`, which the host mispredicts.)
        const REASON: [Stall; 4] = [
            Stall::Dispatch,
            Stall::Memory,
            Stall::Dependency,
            Stall::Memory,
        ];
        ctx.reason = REASON[why as usize & 3];
    }

    /// Files the warp in `slot` with its scheduler by its state: ready,
    /// waiting for operands, or at a barrier.
    #[inline]
    pub(super) fn enqueue<C>(&self, sm: &mut Sm<C>, slot: usize, now: u64) {
        let ctx = sm.warps[slot].as_ref().unwrap();
        let s = ctx.sched as usize;
        let sched = &mut sm.scheds[s];
        match ctx.state {
            WState::Ready => {
                let class = ctx.ic.class;
                if ctx.ready_at <= now {
                    sched.set_ready(ctx.local, class);
                    sm.wake[s] = sm.wake[s].min(now);
                } else {
                    sched.set_waiting(ctx.local, class, ctx.ready_at);
                    sm.wake[s] = sm.wake[s].min(ctx.ready_at);
                }
            }
            WState::Barrier => sched.at_barrier += 1,
            WState::Done => return,
        }
        sm.dirty |= 1 << s;
    }

    /// Takes the stall reasons of the SM's schedulers whose state changed
    /// in the cycle `now` just simulated, charging each the cycles since its
    /// reason was last taken; with `until`, also charges every scheduler up
    /// to that cycle (the SM is done). A scheduler that did not issue is
    /// stalled: a ready warp means its unit was busy; else the warp whose
    /// operands arrive first decides; else barriers, else no warp at all.
    pub(super) fn account_stalls<C>(&mut self, sm: &mut Sm<C>, now: u64, until: Option<u64>) {
        let n = sm.scheds.len();
        let mut dirty = std::mem::take(&mut sm.dirty) & (u32::MAX >> (32 - n.clamp(1, 32)));
        while dirty != 0 {
            let s = dirty.trailing_zeros() as usize;
            dirty &= dirty - 1;
            // A scheduler that ran ahead (`solo.rs`) was accounted up to
            // where it stands, and nothing before that can change it.
            let sched = &sm.scheds[s];
            if sched.stall_since > now {
                continue;
            }
            if until.is_none() && sched.issued_at == now && sm.wake[s] <= now + 1 {
                // It issued and is visited again next cycle, whose record
                // charges nothing to this one's reason: not worth taking.
                self.charge_stall(s, sm, now);
                sm.scheds[s].stall_since = now + 1;
            } else {
                self.take_stall(sm, s, now);
            }
        }
        if let Some(end) = until {
            for s in 0..n {
                self.charge_stall(s, sm, end);
                sm.scheds[s].stall_since = end;
            }
        }
    }

    /// Charges scheduler `s` up to `now` and takes its stall reason from
    /// its state at the end of cycle `now` (see `account_stalls`).
    pub(super) fn take_stall<C>(&mut self, sm: &mut Sm<C>, s: usize, now: u64) {
        let n = sm.scheds.len();
        self.charge_stall(s, sm, now);
        let sched = &sm.scheds[s];
        let ctx_of = |local: u32| sm.warps[local as usize * n + s].as_ref();
        let ready = sched.any_ready();
        let (why, cur) = if ready != 0 {
            let ctx = ctx_of(ready.trailing_zeros());
            (Stall::UnitBusy, ctx.map(|c| c.cur))
        } else if sched.next.0 != u64::MAX {
            match ctx_of(sched.next.1) {
                Some(c) => (c.reason, Some(c.cur)),
                None => (Stall::NoEligibleWarp, None),
            }
        } else if sched.at_barrier > 0 {
            (Stall::Barrier, None)
        } else {
            (Stall::NoEligibleWarp, None)
        };
        let sched = &mut sm.scheds[s];
        // A scheduler that issued is not stalled in this cycle.
        sched.stall_since = if sched.issued_at == now { now + 1 } else { now };
        sched.stall = why;
        sched.stall_cur = cur.unwrap_or(usize::MAX);
    }

    /// Charges scheduler `s` its stall from `stall_since` to `to`.
    #[inline]
    pub(super) fn charge_stall<C>(&mut self, s: usize, sm: &Sm<C>, to: u64) {
        let sched = &sm.scheds[s];
        self.charge(sched.stall_since, to, sched.stall, sched.stall_cur);
    }

    /// Charges the cycles `from..to` to stall reason `why` and to
    /// instruction `cur` (`usize::MAX`: none).
    #[inline]
    pub(super) fn charge(&mut self, from: u64, to: u64, why: Stall, cur: usize) {
        if from < to {
            let span = to - from;
            self.report.stalls[why as usize] += span;
            // (`usize::MAX`, no instruction, is past the table's end.)
            if let Some(counts) = self.instr_cycles.get_mut(cur) {
                counts.cycles += span;
            }
        }
    }
}
