//! Racecheck's happens-before within a CTA barrier interval: vector clocks
//! that order accesses which an mbarrier's arrive/wait protocol, release
//! and acquire operations, `bar.warp.sync` or a partial barrier round (a
//! named barrier with a thread count below the CTA's, `bar.arrive`) order.
//!
//! Mbarriers: accesses of one CTA barrier interval which an mbarrier's
//! arrive/wait protocol orders (PTX memory model: `mbarrier.arrive` releases by
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
//! Release and acquire operations on a memory location (PTX ISA §8.4:
//! `st.release`, `ld.acquire`, `atom`/`red` with `.release`, `.acquire`,
//! `.acq_rel` or `.sc`) order accesses the same way, through the location's
//! sync object, keyed by its space and offset:
//!
//! - A release by a thread joins its vector clock and its own clock into
//!   the location's, and its clock moves on.
//! - An acquire by a thread joins the location's clock into its own.
//! - A relaxed read-modify-write leaves the location's clock as it is: it
//!   continues the release sequence (what `cuda::barrier` built from
//!   atomics relies on: the arrivals release, the last one flips the
//!   phase with a relaxed add, and the waiters' acquire loads see it).
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
    /// The released clocks of locations used for release and acquire, by
    /// [`sync_key`].
    syncs: HashMap<u64, Vec<u32>>,
    /// Per thread, its clock at its warp's last `bar.warp.sync` (0: none):
    /// a release by another lane of the warp after it releases these too.
    warp_synced: Vec<u32>,
    /// Per barrier id, what the arrivals of its current round released,
    /// when the round is partial (a thread count below the CTA's, or a
    /// `bar.arrive`): its waiters acquire it instead of a new interval.
    bars: [Option<Vec<u32>>; 16],
    /// Whether a partial barrier round released in this CTA.
    partial_released: bool,
}

/// The key of a location's sync object: a shared offset, or an arena
/// offset with the top bit set.
pub fn sync_key(global: bool, off: u64) -> u64 {
    off | (global as u64) << 63
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
        self.syncs.clear();
        self.warp_synced.clear();
        self.bars = Default::default();
        self.partial_released = false;
    }

    /// Whether any mbarrier was used in this CTA (else no access is ordered
    /// by a vector clock, and `ordered` need not be asked).
    #[inline]
    pub fn active(&self) -> bool {
        !self.mbars.is_empty() || !self.syncs.is_empty() || self.partial_released
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

    /// Thread `t` releases to the location `key` ([`sync_key`]), with what
    /// the lanes of its warp did before their last `bar.warp.sync`
    /// together (a warp's leader arriving for all its lanes).
    pub fn release(&mut self, t: u32, key: u64) {
        let c = self.tick(t);
        let into = self.syncs.entry(key).or_default();
        if let Some(mine) = self.vc.get(t as usize) {
            join(into, mine);
        }
        set(into, t, c);
        let warp = (t / 32 * 32) as usize;
        if let Some(synced) = self.warp_synced.get(warp..warp + 32) {
            for (lane, &at) in synced.iter().enumerate() {
                if at != 0 {
                    set(into, (warp + lane) as u32, at);
                }
            }
        }
    }

    /// Threads `threads` arrive at barrier `id` in a partial round (a
    /// thread count below the CTA's, or `bar.arrive`): they release into
    /// the round.
    pub fn bar_arrive(&mut self, id: usize, threads: impl Iterator<Item = u32>) {
        let mut gather = self.bars[id].take().unwrap_or_default();
        for t in threads {
            let c = self.tick(t);
            if let Some(v) = self.vc.get(t as usize) {
                join(&mut gather, v);
            }
            set(&mut gather, t, c);
        }
        self.bars[id] = Some(gather);
    }

    /// Whether barrier `id`'s current round is partial ([`Self::bar_arrive`]).
    pub fn bar_partial(&self, id: usize) -> bool {
        self.bars[id].is_some()
    }

    /// Barrier `id`'s partial round completes: the waiting threads
    /// `waiters` acquire what its arrivals released; the next round starts
    /// empty.
    pub fn bar_release(&mut self, id: usize, waiters: impl Iterator<Item = u32>) {
        let Some(gather) = self.bars[id].take() else {
            return;
        };
        self.partial_released = true;
        for t in waiters {
            let t = t as usize;
            if self.vc.len() <= t {
                self.vc.resize_with(t + 1, Vec::new);
            }
            join(&mut self.vc[t], &gather);
        }
    }

    /// The lanes `mask` of warp `warp` execute `bar.warp.sync` together:
    /// what each did before is ordered before what the others do after
    /// (through a later release by any of them, and at once through their
    /// vector clocks when one of them has acquired something).
    pub fn warp_sync(&mut self, warp: u32, mask: u32) {
        let base = warp * 32;
        let end = (base + 32) as usize;
        if self.warp_synced.len() < end {
            self.warp_synced.resize(end, 0);
        }
        let lanes = || {
            (0..32u32)
                .filter(move |l| mask & (1 << l) != 0)
                .map(move |l| base + l)
        };
        for t in lanes() {
            self.warp_synced[t as usize] = self.tick(t);
        }
        // Lanes that acquired pass it on to the others.
        let mut joined: Vec<u32> = Vec::new();
        for t in lanes() {
            if let Some(v) = self.vc.get(t as usize) {
                join(&mut joined, v);
            }
        }
        if !joined.is_empty() {
            if self.vc.len() < end {
                self.vc.resize_with(end, Vec::new);
            }
            for t in lanes() {
                join(&mut self.vc[t as usize], &joined);
            }
        }
    }

    /// Thread `t` acquires from the location `key` ([`sync_key`]).
    pub fn acquire_from(&mut self, t: u32, key: u64) {
        let Some(from) = self.syncs.get(&key) else {
            return;
        };
        let t = t as usize;
        if self.vc.len() <= t {
            self.vc.resize_with(t + 1, Vec::new);
        }
        join(&mut self.vc[t], from);
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
    fn a_release_orders_earlier_accesses_before_an_acquire_of_the_location() {
        let mut c = Clocks::default();
        let (flag, other) = (sync_key(true, 64), sync_key(false, 64));
        let before = c.now(3);
        c.release(3, flag);
        let after = c.now(3);
        c.acquire_from(7, other);
        assert!(!c.ordered(3, before, 7), "another location");
        c.acquire_from(7, flag);
        assert!(c.ordered(3, before, 7));
        assert!(!c.ordered(3, after, 7), "after the release: not ordered");
        // A warp's leader (lane 32) releases for the lanes that synced with it.
        let lane = c.now(40);
        c.warp_sync(1, 0xffff_ffff);
        let after_sync = c.now(40);
        c.release(32, flag);
        c.acquire_from(9, flag);
        assert!(c.ordered(40, lane, 9));
        assert!(
            !c.ordered(40, after_sync, 9),
            "after the warp sync: not ordered"
        );
        // A partial barrier round: its waiters acquire its arrivals.
        let before_bar = c.now(64);
        c.bar_arrive(1, [64, 65].into_iter());
        assert!(c.bar_partial(1));
        c.bar_release(1, [96].into_iter());
        assert!(!c.bar_partial(1));
        assert!(c.ordered(64, before_bar, 96));
        assert!(!c.ordered(64, before_bar, 97), "not a waiter");
        // Transitively: 7 releases what it acquired to another location.
        c.release(7, other);
        c.acquire_from(9, other);
        assert!(c.ordered(3, before, 9));
    }

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
