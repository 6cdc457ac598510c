//! Racecheck's happens-before through mbarriers: vector clocks that order
//! accesses of one CTA barrier interval which an mbarrier's arrive/wait
//! protocol orders (PTX memory model: `mbarrier.arrive` releases by
//! default, a `test_wait`/`try_wait` that observes the phase's completion
//! acquires).
//!
//! Agents: each thread of the CTA (its linear index) and, per mbarrier, an
//! *async agent* (`ASYNC_BASE` + the mbarrier's slot) that makes the writes
//! to shared memory of the bulk and tensor copies completing on that
//! mbarrier (`complete_tx`). Each agent has a clock, and each access is
//! stamped with its agent and the agent's clock then.
//!
//! - An arrival (`mbarrier.arrive*`, `cp.async.mbarrier.arrive`) releases
//!   the thread: the mbarrier's current phase joins the thread's vector
//!   clock and its own clock; the thread's clock then moves on, so its
//!   later accesses are not covered.
//! - A `complete_tx` by a copy releases the mbarrier's async agent the same
//!   way.
//! - When a phase completes, what it gathered becomes the release of that
//!   phase's parity (`done[parity]`), and the next phase starts empty.
//! - A wait that succeeds acquires the release of the parity it waited
//!   for: the waiting thread's vector clock joins it.
//!
//! An access `prev` is then ordered before a later access by thread `t`
//! when `t`'s vector clock holds at least `prev`'s clock for `prev`'s agent.
//! A wait that succeeds for a phase nobody completed (the wrong parity on a
//! fresh mbarrier) acquires nothing. Clocks only grow within a CTA, so no
//! reset is needed at CTA barriers (those order everything anyway,
//! `SharedShadow::barrier`).

use std::collections::HashMap;

/// The first async agent's index (above every thread of a CTA).
pub const ASYNC_BASE: u32 = 1024;

/// One mbarrier's releases.
#[derive(Debug, Default)]
struct Phases {
    /// Its async agent.
    agent: u32,
    /// Gathered by the current phase's arrivals and transaction completions.
    pending: Vec<u32>,
    /// The release of the last completed phase of each parity.
    done: [Vec<u32>; 2],
}

/// The CTA's clocks (reused from CTA to CTA).
#[derive(Debug, Default)]
pub struct Clocks {
    /// Each agent's own clock (0: never stamped; starts at 1).
    clock: Vec<u32>,
    /// Each thread's vector clock: what it has acquired (empty: nothing).
    vc: Vec<Vec<u32>>,
    /// The mbarriers, by shared offset.
    mbars: HashMap<usize, Phases>,
}

fn join(into: &mut Vec<u32>, from: &[u32]) {
    if into.len() < from.len() {
        into.resize(from.len(), 0);
    }
    for (a, b) in into.iter_mut().zip(from) {
        *a = (*a).max(*b);
    }
}

fn set(v: &mut Vec<u32>, at: u32, c: u32) {
    let at = at as usize;
    if v.len() <= at {
        v.resize(at + 1, 0);
    }
    v[at] = v[at].max(c);
}

impl Clocks {
    /// Forgets everything (a new CTA).
    pub fn reset(&mut self) {
        self.clock.clear();
        self.vc.iter_mut().for_each(Vec::clear);
        self.mbars.clear();
    }

    /// Whether any mbarrier was used in this CTA (else no access is ordered
    /// by a vector clock, and `ordered` need not be asked).
    #[inline]
    pub fn active(&self) -> bool {
        !self.mbars.is_empty()
    }

    /// Agent `a`'s clock now.
    #[inline]
    pub fn now(&self, a: u32) -> u32 {
        self.clock.get(a as usize).copied().unwrap_or(0).max(1)
    }

    fn tick(&mut self, a: u32) -> u32 {
        let c = self.now(a);
        let i = a as usize;
        if self.clock.len() <= i {
            self.clock.resize(i + 1, 0);
        }
        self.clock[i] = c + 1;
        c
    }

    /// Whether agent `prev`'s access at clock `at` is ordered before what
    /// thread `now` does next.
    #[inline]
    pub fn ordered(&self, prev: u32, at: u32, now: u32) -> bool {
        self.vc
            .get(now as usize)
            .and_then(|v| v.get(prev as usize))
            .is_some_and(|&c| c >= at)
    }

    fn phases(&mut self, mbar: usize) -> &mut Phases {
        let n = self.mbars.len() as u32;
        self.mbars.entry(mbar).or_insert_with(|| Phases {
            agent: ASYNC_BASE + n,
            ..Default::default()
        })
    }

    /// `mbarrier.init` of the object at `mbar`: no phase released yet.
    pub fn init(&mut self, mbar: usize) {
        let p = self.phases(mbar);
        p.pending.clear();
        p.done.iter_mut().for_each(Vec::clear);
    }

    /// The async agent whose writes complete on the mbarrier at `mbar`.
    pub fn async_agent(&mut self, mbar: usize) -> u32 {
        self.phases(mbar).agent
    }

    /// Thread `t` arrives on the mbarrier at `mbar` (release).
    pub fn arrive(&mut self, t: u32, mbar: usize) {
        let c = self.tick(t);
        let mine = self
            .vc
            .get_mut(t as usize)
            .map(std::mem::take)
            .unwrap_or_default();
        let p = self.phases(mbar);
        join(&mut p.pending, &mine);
        set(&mut p.pending, t, c);
        if let Some(v) = self.vc.get_mut(t as usize) {
            *v = mine;
        }
    }

    /// A copy's transactions complete on the mbarrier at `mbar`: its writes
    /// (by the mbarrier's async agent) are released.
    pub fn complete_tx(&mut self, mbar: usize) {
        let a = self.async_agent(mbar);
        let c = self.tick(a);
        set(&mut self.phases(mbar).pending, a, c);
    }

    /// The phase of parity `parity` of the mbarrier at `mbar` completed.
    pub fn completed(&mut self, mbar: usize, parity: bool) {
        let p = self.phases(mbar);
        p.done[parity as usize] = std::mem::take(&mut p.pending);
    }

    /// Thread `t`'s wait for the phase of parity `parity` succeeded
    /// (acquire).
    pub fn acquire(&mut self, t: u32, mbar: usize, parity: bool) {
        let Some(p) = self.mbars.get(&mbar) else {
            return;
        };
        let t = t as usize;
        if self.vc.len() <= t {
            self.vc.resize_with(t + 1, Vec::new);
        }
        join(&mut self.vc[t], &p.done[parity as usize]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_arrival_orders_earlier_accesses_before_a_successful_wait() {
        let mut c = Clocks::default();
        c.init(0);
        let before = c.now(3);
        c.arrive(3, 0);
        let after = c.now(3);
        assert!(!c.ordered(3, before, 7));
        c.completed(0, false);
        // The wrong parity acquires nothing.
        c.acquire(7, 0, true);
        assert!(!c.ordered(3, before, 7));
        c.acquire(7, 0, false);
        assert!(c.ordered(3, before, 7));
        assert!(!c.ordered(3, after, 7), "after the arrival: not ordered");
    }

    #[test]
    fn copies_are_released_by_their_transactions_and_transitively() {
        let mut c = Clocks::default();
        c.init(0);
        c.init(8);
        let a = c.async_agent(0);
        let w = c.now(a);
        c.complete_tx(0);
        c.completed(0, false);
        c.acquire(1, 0, false);
        assert!(c.ordered(a, w, 1));
        // Thread 1 passes what it acquired on through mbarrier 8.
        c.arrive(1, 8);
        c.completed(8, false);
        c.acquire(2, 8, false);
        assert!(c.ordered(a, w, 2));
        let b = c.async_agent(8);
        assert!(!c.ordered(b, 1, 2));
    }
}
