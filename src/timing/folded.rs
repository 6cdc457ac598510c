//! Folded instructions in the cycle model: ops with no SASS instruction
//! of their own (cost 0, from SASS costs: `timing::costs`). They take no
//! issue slot, no unit and no dispatch; their results are ready when their
//! operands are (plus a load's latency: their accesses still go through
//! the memory model). One that drains (`Instr::drain`: it only reads and
//! writes the warp's registers, or is a branch) issues in the cycle of the
//! instruction before it, in the walk and in solo runs alike; others wait
//! until the scheduler next picks the warp, which then issues the next
//! instruction in the same cycle if it can. The cycle model takes these
//! paths only for programs with folded instructions (`Program::folds`).

use super::exec::GridExec;
use super::sim::{Model, Sm, WState, WarpCtx};

impl Model<'_> {
    /// With folded instructions in the program: issues the current
    /// instruction of the warp in `slot` at `now`, then the folded ones
    /// after it that drain (cost 0: no SASS instruction of
    /// their own, `timing::costs`; `Instr::drain`: they may issue at once,
    /// as a solo run may), which take no issue slot. When the instruction
    /// issued first was folded (a warp picked while standing at one), every
    /// folded instruction that follows issues too, and the slot is still
    /// free: the next instruction issues if it is ready and its unit free.
    /// Returns the CTAs retired.
    #[inline(never)]
    pub(super) fn issue_next<G: GridExec>(
        &mut self,
        sm: &mut Sm<G::Cta>,
        sm_index: usize,
        s: usize,
        slot: usize,
        grid: &mut G,
        now: u64,
    ) -> Result<u32, G::Fault> {
        let mut slot_free = sm.warps[slot].as_ref().is_some_and(|c| c.ic.cost == 0);
        loop {
            let r = if self.issue_within_unit(sm, sm_index, s, slot, now) {
                0
            } else {
                self.issue(sm, sm_index, s, slot, grid, now)?
            };
            let Some(ctx) = sm.warps[slot].as_ref() else {
                return Ok(r);
            };
            if r > 0 || ctx.state != WState::Ready {
                return Ok(r);
            }
            if ctx.ic.cost == 0 {
                if slot_free || self.program.instrs[ctx.cur].drain {
                    continue;
                }
                return Ok(0);
            }
            if !slot_free {
                return Ok(0);
            }
            let class = ctx.ic.class as usize & 7;
            let per_cycle = self.classes.at(now)[class];
            if ctx.ready_at > now || !sm.scheds[s].unit_free(class, now, per_cycle) {
                return Ok(0);
            }
            slot_free = false;
        }
    }

    /// Whether the warp in `slot` stands at a folded instruction that
    /// drains (`Instr::drain`): issued right after the one before it, in
    /// the walk and in solo runs alike.
    #[inline]
    pub(super) fn drains_next<C>(&self, sm: &Sm<C>, slot: usize) -> bool {
        match sm.warps[slot].as_ref() {
            Some(ctx) => {
                ctx.state == WState::Ready && ctx.ic.cost == 0 && self.program.instrs[ctx.cur].drain
            }
            None => false,
        }
    }

    /// Books a folded instruction (cost 0, `timing::costs`): no unit, no
    /// issue slot, no dispatch; its results are ready when its operands
    /// are, plus the latency of its memory access if it loads.
    #[cold]
    pub(super) fn book_folded(
        &mut self,
        ctx: &mut WarpCtx,
        now: u64,
        latency: u32,
        from_mem: bool,
    ) {
        let (a, d0, d1) = ctx.ic.ops;
        let operands = self.program.regs[a as usize..d0 as usize]
            .iter()
            .map(|&r| ctx.ready[r as usize])
            .fold(now << 1, u64::max);
        let at = (operands >> 1) + if from_mem { latency as u64 } else { 0 };
        let ready = (at << 1) | (from_mem as u64 | operands & 1);
        for &d in &self.program.regs[d0 as usize..d1 as usize] {
            ctx.ready[d as usize] = ready;
        }
        self.report.folded_instructions += 1;
    }

    /// Issues the folded instructions after the one the warp in `slot` just
    /// issued at `at` in a solo run, as the walk issues them
    /// (`Model::drains_next`: they read and write only the warp's
    /// registers, or are branches, so nothing can observe them ahead).
    #[inline(never)]
    pub(super) fn solo_drain<G: GridExec>(
        &mut self,
        sm: &mut Sm<G::Cta>,
        sm_index: usize,
        s: usize,
        slot: usize,
        grid: &mut G,
        at: u64,
    ) -> Result<(), G::Fault> {
        while self.drains_next(sm, slot) {
            if !self.issue_within_unit(sm, sm_index, s, slot, at) {
                let retired = self.issue(sm, sm_index, s, slot, grid, at)?;
                debug_assert_eq!(retired, 0, "a private unit leaves the warp running");
            }
        }
        Ok(())
    }
}
