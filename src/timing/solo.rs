//! Solo runs: a warp scheduler whose one warp could issue, with no rival
//! that could become ready for a while, issues that warp's instructions one
//! after another in a single visit, each at the cycle the cycle-by-cycle
//! model would issue it, with the same stall reasons charged.
//!
//! It applies only where running a scheduler ahead of its SM's other
//! schedulers (and of the other SMs) cannot be observed: single issue
//! every cycle; no
//! CTA left to place (new warps could arrive); none of the scheduler's
//! warps at a barrier (a release could file one); and only instructions
//! whose cost does not depend on state the SM's schedulers share (no
//! memory access that the model costs: global, local, generic or shared,
//! whose passes queue in the SM's L1/shared pipeline) and, where their issue executes a unit (a compiled piece, a branch),
//! whose unit is private to the warp (`CtaExec::private`: no global,
//! shared or generic access, no barrier, exit or call), so that issuing
//! them changes nothing but this warp's registers, scoreboard and position,
//! this scheduler's units and stall record, and the report's counters.
//!
//! When the running warp's next instruction could not issue before the
//! first rival's operands arrive, the walk would pick that rival next if it
//! is the only warp that can issue then (no other warp's operands by then,
//! the running warp's included, and its unit free): the run hands over to
//! it, filing the running warp as the walk would, and goes on with the
//! rival under the same rules. Otherwise it stops, and the walk resumes.

use super::exec::{CtaExec, GridExec};
use super::report::Stall;
use super::sim::{CtaSlot, Model, Sm, WState, WarpCtx, UNIT_PRIVATE, UNIT_UNKNOWN};

impl Model<'_> {
    /// After the warp in `slot` issued at `now` on scheduler `s` (and
    /// before it is filed again), issues its next instructions while it
    /// runs solo, handing over to another warp of the scheduler where the
    /// walk would have no choice (`hand_off`). Returns the cycle of the last
    /// issue (`now` when none) and the warp that made it.
    pub(super) fn solo_run<G: GridExec>(
        &mut self,
        sm: &mut Sm<G::Cta>,
        sm_index: usize,
        s: usize,
        slot: usize,
        grid: &mut G,
        now: u64,
    ) -> Result<(u64, usize), G::Fault> {
        if !self.solo_runs || self.placing {
            return Ok((now, slot));
        }
        let sched = &sm.scheds[s];
        if sched.at_barrier != 0 || sched.has_ready() {
            return Ok((now, slot));
        }
        if self.program.folds {
            self.solo_walk::<G, true>(sm, sm_index, s, slot, grid, now)
        } else {
            self.solo_walk::<G, false>(sm, sm_index, s, slot, grid, now)
        }
    }

    /// `solo_run` past its preconditions; `FOLDS`: the program has folded
    /// instructions (`Program::folds`), which solo runs leave to the walk
    /// where they stand first and issue after the instruction before them
    /// where they drain (`Model::drains_next`).
    fn solo_walk<G: GridExec, const FOLDS: bool>(
        &mut self,
        sm: &mut Sm<G::Cta>,
        sm_index: usize,
        s: usize,
        mut slot: usize,
        grid: &mut G,
        now: u64,
    ) -> Result<(u64, usize), G::Fault> {
        let sched = &sm.scheds[s];
        // The first cycle another warp of this scheduler could issue.
        let mut rival = sched.next.0;
        let mut last = now;
        // The scheduler's stall record while it runs (written back at the
        // end): the reason since `since`, charged to instruction `cur`;
        // `taken` once the record of cycle `now` is.
        let (mut since, mut stall, mut cur) = (0, Stall::Dependency, usize::MAX);
        let mut taken = false;
        while let Some(ctx) = sm.warps[slot].as_ref() {
            if ctx.state != WState::Ready {
                break;
            }
            let ic = ctx.ic;
            // (A folded instruction left standing is the walk's to issue:
            // it may take the next one with it, `Model::issue_next`.)
            if ic.mem.from_addresses() || (FOLDS && ic.cost == 0) {
                break;
            }
            // Its operands arrive at `ready`; its unit is free at `busy`
            // (booked only by this scheduler, never twice in one cycle).
            // (Not before the cycle after the last issue: a warp picked at
            // a folded instruction issued in cycle `now` without moving its
            // next one's earliest cycle on.)
            let ready = if FOLDS {
                ctx.ready_at.max(last + 1)
            } else {
                ctx.ready_at
            };
            let busy = sm.scheds[s].unit(ic.class as usize).busy_until;
            let at = ready.max(busy);
            if at >= rival {
                // A rival issues first: the run goes on with it when it is
                // the only warp that can.
                let Some((next, next_at)) = self.hand_off(sm, s, ready, last) else {
                    break;
                };
                if !taken {
                    self.charge_stall(s, sm, now);
                    taken = true;
                }
                // The end of cycle `last`, the warp filed again: the rival
                // is the first to become ready.
                let rival_ctx = sm.warps[next].as_ref().unwrap();
                (since, stall, cur) = (last + 1, rival_ctx.reason, rival_ctx.cur);
                let local = rival_ctx.local;
                self.enqueue(sm, slot, last);
                // The walk's visit at `next_at` wakes it alone and picks it.
                let sched = &mut sm.scheds[s];
                sched.wake(next_at);
                sched.take(local);
                sched.last = Some(next);
                sched.rr = local + 1;
                rival = sched.next.0;
                slot = next;
                continue;
            }
            if ctx.ran_until == 0 && !self.may_issue_unrun(sm, slot) {
                break;
            }
            if !taken {
                // The end of cycle `now`, as `account_stalls` would take it:
                // this warp is the first to become ready.
                self.charge_stall(s, sm, now);
                (since, stall, cur) = (now + 1, ctx.reason, ctx.cur);
                taken = true;
            }
            // Waiting for operands until `ready`, then for the unit.
            if ready < at {
                self.charge(since, ready, stall, cur);
                (since, stall) = (ready, Stall::UnitBusy);
            }
            self.charge(since, at, stall, cur);
            if !self.issue_within_unit(sm, sm_index, s, slot, at) {
                let retired = self.issue(sm, sm_index, s, slot, grid, at)?;
                debug_assert_eq!(retired, 0, "a private unit leaves the warp running");
            }
            if FOLDS {
                self.solo_drain(sm, sm_index, s, slot, grid, at)?;
            }
            let ctx = sm.warps[slot].as_ref().unwrap();
            (since, stall, cur) = (at + 1, ctx.reason, ctx.cur);
            last = at;
        }
        if last > now {
            let sched = &mut sm.scheds[s];
            sched.issued_at = last;
            sched.stall_since = since;
            sched.stall = stall;
            sched.stall_cur = cur;
        }
        Ok((last, slot))
    }

    /// Whether the warp in `slot` may issue its current instruction ahead
    /// of the SM: no access through the caches, and where its issue
    /// executes a unit, a private one.
    #[inline]
    fn unit_may_run_ahead<C: CtaExec>(&mut self, sm: &Sm<C>, slot: usize) -> bool {
        let ctx = sm.warps[slot].as_ref().unwrap();
        !ctx.ic.mem.from_addresses() && (ctx.ran_until != 0 || self.may_issue_unrun(sm, slot))
    }

    /// Whether the warp in `slot`, whose current unit has not run, may
    /// issue its current instruction ahead of the SM: the unit is private,
    /// or the instruction is one of its deferrable ops (which issue without
    /// running it), not the op it runs at.
    #[inline]
    fn may_issue_unrun<C: CtaExec>(&mut self, sm: &Sm<C>, slot: usize) -> bool {
        let ctx = sm.warps[slot].as_ref().unwrap();
        if ctx.defer_until != 0 {
            return ctx.pos.pc < ctx.defer_until;
        }
        self.unit_ahead(&sm.ctas, ctx) != 0
    }

    /// What the issue unit starting at the current instruction of `ctx`
    /// (not run yet) allows before it runs: `UNIT_PRIVATE` (it may run
    /// ahead), else how many of its first ops issue without running it
    /// (`CtaExec::private`, `CtaExec::deferrable`, which depend on the
    /// position alone: asked once per instruction).
    #[inline]
    pub(super) fn unit_ahead<C: CtaExec>(
        &mut self,
        ctas: &[Option<CtaSlot<C>>],
        ctx: &WarpCtx,
    ) -> u8 {
        match self.unit_ahead[ctx.cur] {
            UNIT_UNKNOWN => self.ask_unit_ahead(ctas, ctx),
            known => known,
        }
    }

    #[cold]
    #[inline(never)]
    fn ask_unit_ahead<C: CtaExec>(&mut self, ctas: &[Option<CtaSlot<C>>], ctx: &WarpCtx) -> u8 {
        let exec = &ctas[ctx.cta_slot].as_ref().unwrap().exec;
        let ahead = if exec.private(ctx.w, ctx.pos) {
            UNIT_PRIVATE
        } else {
            // (A piece holds at most 64 ops; fewer deferred is still exact.)
            exec.deferrable(ctx.w, ctx.pos).min(UNIT_PRIVATE as u32 - 1) as u8
        };
        self.unit_ahead[ctx.cur] = ahead;
        ahead
    }

    /// When the solo warp's next instruction (operands ready at
    /// `solo_ready`; it last issued at `last`) would issue no earlier than
    /// the first rival's operands arrive: the rival's context slot and the
    /// cycle it issues at, if the walk has no choice to make there: no
    /// other warp's operands (the solo warp's included) arrive by that
    /// cycle, the rival's unit is free at it, and its instruction may run
    /// ahead. Leaves the scheduler as it is.
    fn hand_off<C: CtaExec>(
        &mut self,
        sm: &Sm<C>,
        s: usize,
        solo_ready: u64,
        last: u64,
    ) -> Option<(usize, u64)> {
        let sched = &sm.scheds[s];
        let (r, local) = sched.next;
        if r == u64::MAX {
            return None;
        }
        let next = local as usize * sm.scheds.len() + s;
        let ctx = sm.warps[next].as_ref()?;
        if ctx.state != WState::Ready || ctx.ic.cost == 0 {
            return None;
        }
        let at = r.max(sched.unit(ctx.ic.class as usize).busy_until);
        debug_assert!(at > last);
        if at >= solo_ready || sched.waiting_ready_by(at, local) {
            return None;
        }
        self.unit_may_run_ahead(sm, next).then_some((next, at))
    }
}
