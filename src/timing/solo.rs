//! Solo runs: a warp scheduler whose one warp could issue, with no rival
//! that could become ready for a while, issues that warp's instructions one
//! after another in a single visit, each at the cycle the cycle-by-cycle
//! model would issue it, with the same stall reasons charged.
//!
//! It applies only where running a scheduler ahead of its SM's other
//! schedulers (and of the other SMs) cannot be observed: single issue; no
//! CTA left to place (new warps could arrive); none of the scheduler's
//! warps at a barrier (a release could file one); and only instructions
//! that do not touch the memory model (no global, shared or local access)
//! and, where their issue executes a unit (a compiled piece, a branch),
//! whose unit is private to the warp (`CtaExec::private`: no global,
//! shared or generic access, no barrier, exit or call), so that issuing
//! them changes nothing but this warp's registers, scoreboard and position,
//! this scheduler's units and stall record, and the report's counters. The
//! run stops before the first cycle a rival warp's operands arrive.

use super::exec::{CtaExec, GridExec};
use super::program::MemClass;
use super::report::Stall;
use super::sim::{Model, PrivateUnit, Sm, WState};

impl Model<'_> {
    /// After the warp in `slot` issued at `now` on scheduler `s` (and
    /// before it is filed again), issues its next instructions while it
    /// runs solo. Returns the cycle of its last issue (`now` when none).
    pub(super) fn solo_run<G: GridExec>(
        &mut self,
        sm: &mut Sm<G::Cta>,
        sm_index: usize,
        s: usize,
        slot: usize,
        grid: &mut G,
        now: u64,
    ) -> Result<u64, G::Fault> {
        if self.width != 1 || self.placing {
            return Ok(now);
        }
        let sched = &sm.scheds[s];
        if sched.at_barrier != 0 || sched.has_ready() {
            return Ok(now);
        }
        // The first cycle another warp of this scheduler could issue.
        let rival = sched.next.0;
        let mut last = now;
        // The scheduler's stall record while it runs (written back at the
        // end): the reason since `since`, charged to instruction `cur`.
        let (mut since, mut stall, mut cur) = (0, Stall::Dependency, usize::MAX);
        while let Some(ctx) = sm.warps[slot].as_ref() {
            if ctx.state != WState::Ready {
                break;
            }
            let ic = self.costs[ctx.cur];
            if ic.mem == MemClass::Dynamic {
                break;
            }
            // Its operands arrive at `ready`; its unit is free at `busy`
            // (booked only by this scheduler, never twice in one cycle).
            let ready = ctx.ready_at;
            let busy = sm.scheds[s].units[ic.class as usize].busy_until;
            let at = ready.max(busy);
            if at >= rival {
                break;
            }
            if ctx.ran_until == 0 {
                // Its issue executes the unit starting here (the answer
                // depends on the position alone: asked once per instruction).
                let known = &mut self.private_units[ctx.cur];
                if *known == PrivateUnit::Unknown {
                    let cta = sm.ctas[ctx.cta_slot].as_ref().unwrap();
                    *known = if cta.exec.private(ctx.w, ctx.pos) {
                        PrivateUnit::Yes
                    } else {
                        PrivateUnit::No
                    };
                }
                if *known == PrivateUnit::No {
                    break;
                }
            }
            if last == now {
                // The end of cycle `now`, as `account_stalls` would take it:
                // this warp is the first to become ready.
                self.charge_stall(s, sm, now);
                (since, stall, cur) = (now + 1, ctx.reason, ctx.cur);
            }
            // Waiting for operands until `ready`, then for the unit.
            if ready < at {
                self.charge(since, ready, stall, cur);
                (since, stall) = (ready, Stall::UnitBusy);
            }
            self.charge(since, at, stall, cur);
            let retired = self.issue(sm, sm_index, s, slot, grid, at)?;
            debug_assert_eq!(retired, 0, "a private unit leaves the warp running");
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
        Ok(last)
    }
}
