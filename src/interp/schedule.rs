//! Scheduling a CTA's warps: turns in rounds ([`CtaRun::round`]), each
//! runnable warp running until it finishes, waits at a barrier or yields
//! (see `mbarrier.rs`), then barriers released; deadlocks reported. A
//! normal launch runs a CTA's rounds until it finishes ([`run_cta`]); a
//! cooperative launch interleaves the rounds of all its CTAs, which may
//! wait for each other (grid-wide sync), and a cluster of several CTAs
//! interleaves its CTAs' rounds (`cluster.rs`).

use super::cluster::{self, cluster_size, CLUSTER_BARRIER};
use super::warp::Warp;
use super::{check, deadlock, new_cta, release_barriers, retire_warps, Cta, CtaOutput, Fault};
use super::{FaultKind, LaunchCtx};
use crate::front::Span;

/// Rounds in which every warp that ran stopped at an `mbarrier` wait while
/// no mbarrier changed and no barrier completed, before the CTA counts as
/// deadlocked: each round repeats the one before (the warps' spin loops
/// read nothing another warp of the CTA changed), so a few suffice; the
/// margin is for loops that back off by the clock before they retry.
const SPIN_ROUNDS: u32 = 1000;

/// The fault of a CTA whose live warps keep waiting for `mbarrier` phases
/// that no warp will complete.
fn mbarrier_deadlock(cta: &Cta, warps: &[Warp]) -> Fault {
    let spinning: Vec<&Warp> = warps
        .iter()
        .filter(|w| w.yielded.is_some() && !w.done())
        .collect();
    let (span, func, thread) =
        spinning
            .first()
            .map(|w| w.position(cta))
            .unwrap_or((Span::DUMMY, None, [0; 3]));
    let others: Vec<String> = warps
        .iter()
        .filter_map(|w| {
            w.waiting_on()
                .map(|b| format!("warp {} at {}", w.index, cluster::barrier_name(b)))
        })
        .collect();
    let names: Vec<String> = spinning.iter().map(|w| w.index.to_string()).collect();
    Fault {
        kind: FaultKind::BarrierDeadlock,
        message: format!(
            "mbarrier deadlock: warp(s) {} wait for mbarrier phases that never complete (no arrival in {SPIN_ROUNDS} rounds{}{})",
            names.join(", "),
            if others.is_empty() { "" } else { "; " },
            others.join(", ")
        ),
        thread,
        func,
        span,
        loc: None,
        access: None,
    }
}

/// A CTA being run: its state, its warps and the scheduler's.
pub struct CtaRun<'a> {
    pub cta: Cta<'a>,
    warps: Vec<Warp>,
    released: Vec<usize>,
    spin_rounds: u32,
    /// The last round ran no warp and released none, and some warp waits
    /// at the cluster barrier, which only the cluster's runner completes.
    pub stalled: bool,
    /// `cta.mbarrier_changes` at the end of the last round (other CTAs of
    /// a cluster change it between rounds).
    seen_changes: u64,
}

impl<'a> CtaRun<'a> {
    pub fn new(ctx: &'a LaunchCtx<'a>, ctaid: [u32; 3]) -> CtaRun<'a> {
        let (cta, warps) = new_cta(ctx, ctaid);
        CtaRun {
            cta,
            warps,
            released: Vec::new(),
            spin_rounds: 0,
            stalled: false,
            seen_changes: 0,
        }
    }

    pub fn warps(&self) -> &[Warp] {
        &self.warps
    }

    pub(super) fn warps_mut(&mut self) -> &mut [Warp] {
        &mut self.warps
    }

    /// One round: every runnable warp takes a turn, then barriers that can
    /// complete release their warps. True when every warp has finished.
    pub fn round(&mut self) -> Result<bool, Fault> {
        let (cta, warps) = (&mut self.cta, &mut self.warps);
        let mut progressed = false;
        let mut all_yielded = true;
        let changes = self.seen_changes;
        for w in warps.iter_mut() {
            if w.runnable() {
                w.run(cta)?;
                progressed = true;
                all_yielded &= w.yielded == Some(true);
            }
        }
        if warps.iter().all(|w| w.done()) {
            for w in warps.iter_mut() {
                w.charge_pending(cta)?;
            }
            return Ok(true);
        }
        self.released.clear();
        release_barriers(cta, warps, &mut self.released)?;
        self.stalled = false;
        if !progressed && self.released.is_empty() {
            if cluster_size(cta.ctx) > 1
                && warps
                    .iter()
                    .any(|w| w.waiting_on() == Some(CLUSTER_BARRIER))
            {
                self.stalled = true;
                return Ok(false);
            }
            return Err(deadlock(cta, warps));
        }
        if progressed && all_yielded && self.released.is_empty() && cta.mbarrier_changes == changes
        {
            self.spin_rounds += 1;
            if self.spin_rounds >= SPIN_ROUNDS {
                return Err(mbarrier_deadlock(cta, warps));
            }
        } else {
            self.spin_rounds = 0;
        }
        self.seen_changes = cta.mbarrier_changes;
        if cta.cancelled() {
            return Err(Fault::cancelled());
        }
        Ok(false)
    }

    /// Ends the run (its warps go back to the pool): what the CTA produced.
    pub fn finish(mut self, result: Result<(), Fault>) -> Result<CtaOutput, Fault> {
        retire_warps(std::mem::take(&mut self.warps));
        check::finish_cta(&mut self.cta);
        result.map(|()| self.cta.output)
    }
}

/// Runs one CTA to its end.
pub fn run_cta(ctx: &LaunchCtx, ctaid: [u32; 3]) -> Result<CtaOutput, Fault> {
    let mut run = CtaRun::new(ctx, ctaid);
    let result = loop {
        match run.round() {
            Ok(true) => break Ok(()),
            Ok(false) => {}
            Err(f) => break Err(f),
        }
    };
    run.finish(result)
}
