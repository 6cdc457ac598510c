//! Thread-block clusters (sm_90): the CTAs of a cluster run together on
//! one host thread, their rounds interleaved ([`run_cluster`]), so that
//! they may wait for each other (`barrier.cluster`) and read and write each
//! other's shared memory (distributed shared memory).
//!
//! Addresses: a `.shared::cluster` address is either one of the executing
//! CTA's shared memory (its `.shared::cta` address, below
//! [`CLUSTER_SHARED`]) or `CLUSTER_SHARED + (rank << 24) + offset`, the
//! location `offset` of the shared memory of the cluster's CTA `rank`
//! (what `mapa` returns, even for the CTA's own rank). Generic addresses
//! are the shared window's base plus either, so generic accesses decode
//! them as shared ones ([`Warp::place`]); a rank outside the cluster or an
//! offset outside that CTA's shared memory is an illegal-address fault.
//! Before a CTA's round the runner lends it the other CTAs' shared memory
//! ([`Cta::peers`]) and, in a checked launch, their sanitizer states, and
//! takes them back after; compiled code never touches
//! another CTA's memory (`ir::uses_clusters`: such modules' shared and
//! generic accesses run in the driver on both engines).
//!
//! `barrier.cluster.arrive` marks the warp's active lanes arrived
//! ([`Warp::cluster_arrived`]); `barrier.cluster.wait` waits (at
//! [`CLUSTER_BARRIER`]) while any of its lanes' arrivals is still in the
//! current phase. The phase completes when every thread of the cluster has
//! arrived or exited: a cluster of one CTA completes in
//! `release_barriers`, a larger one in the runner between passes; a pass
//! in which no CTA can run and no phase completes is a deadlock.

use super::lanes::{Place, Refused};
use super::warp::{Flow, State, Warp};
use super::{Cta, CtaOutput, CtaRun, Fault, FaultKind, LaunchCtx};
use crate::engine::pure::is_ranked;
pub use crate::engine::pure::MAX_RANKS;
use crate::front::Span;
use crate::ir::{ClusterReg, Op, Space};
use crate::runtime::memory::{
    AccessFault, CLUSTER_RANK_SHIFT, CLUSTER_SHARED, SHARED_WINDOW, WINDOW_SIZE,
};

/// The barrier id a warp waits at in `barrier.cluster.wait` (the named
/// barriers are 0..16).
pub const CLUSTER_BARRIER: u32 = 16;

/// How deadlock reports name the barrier `id` a warp waits at.
pub(super) fn barrier_name(id: u32) -> String {
    match id {
        CLUSTER_BARRIER => "the cluster barrier".to_string(),
        b => format!("barrier {b}"),
    }
}

/// The rank of CTA `ctaid` in its cluster.
pub fn rank_of(ctx: &LaunchCtx, ctaid: [u32; 3]) -> u32 {
    rank_in(ctx.cluster, ctaid)
}

/// The rank of CTA `ctaid` in clusters of `cluster` CTAs: x first.
fn rank_in(cluster: [u32; 3], ctaid: [u32; 3]) -> u32 {
    let [cx, cy, cz] = cluster;
    let (x, y, z) = (ctaid[0] % cx, ctaid[1] % cy, ctaid[2] % cz);
    x + cx * (y + cy * z)
}

/// CTAs per cluster.
pub fn cluster_size(ctx: &LaunchCtx) -> u32 {
    ctx.cluster.iter().product()
}

/// What a refused address of another CTA's shared memory names, for the
/// fault's message: ` (shared memory of cluster rank R, ...)`.
pub(super) fn describe(cta: &Cta, space: Space, addr: u64) -> Option<String> {
    let off = match space {
        Space::Shared => addr,
        Space::Generic if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&addr) => {
            addr - SHARED_WINDOW
        }
        _ => return None,
    };
    if !is_ranked(off) {
        return None;
    }
    let rank = (off - CLUSTER_SHARED) >> CLUSTER_RANK_SHIFT;
    let inner = off & ((1 << CLUSTER_RANK_SHIFT) - 1);
    let size = cluster_size(cta.ctx);
    Some(if rank >= size as u64 {
        format!(" (shared memory of cluster rank {rank}: the cluster has {size} CTA(s))")
    } else {
        let len = if rank == cta.rank() as u64 {
            cta.shared.len()
        } else {
            cta.peers.get(rank as usize).map_or(0, Vec::len)
        };
        format!(
            " (offset {inner:#x} of the shared memory of cluster rank {rank}, which has {len} bytes)"
        )
    })
}

impl Cta<'_> {
    /// This CTA's rank in its cluster.
    pub fn rank(&self) -> u32 {
        rank_of(self.ctx, self.ctaid)
    }
}

impl Warp {
    /// A cluster special register.
    pub(super) fn cluster_special(&self, cta: &Cta, r: ClusterReg) -> u32 {
        let ctx = cta.ctx;
        let c = ctx.cluster;
        match r {
            ClusterReg::Id(d) => cta.ctaid[d as usize] / c[d as usize],
            ClusterReg::Nid(d) => ctx.grid[d as usize] / c[d as usize],
            ClusterReg::Ctaid(d) => cta.ctaid[d as usize] % c[d as usize],
            ClusterReg::Nctaid(d) => c[d as usize],
            ClusterReg::Ctarank => cta.rank(),
            ClusterReg::Nctarank => cluster_size(ctx),
            ClusterReg::IsExplicit => ctx.explicit_cluster as u32,
        }
    }

    /// Decodes a shared-window offset `off` (of `addr`, refused as `space`)
    /// that names a CTA by rank: the executing CTA's own memory or another's.
    pub(super) fn cluster_place(
        &self,
        cta: &Cta,
        off: u64,
        size: u64,
        refuse: impl Fn(AccessFault) -> Refused,
    ) -> Result<Place, Refused> {
        let rank = (off - CLUSTER_SHARED) >> CLUSTER_RANK_SHIFT;
        let inner = off & ((1 << CLUSTER_RANK_SHIFT) - 1);
        if rank >= cluster_size(cta.ctx) as u64 {
            return Err(refuse(AccessFault::OutOfBounds));
        }
        let len = if rank == cta.rank() as u64 {
            cta.shared.len()
        } else {
            cta.peers.get(rank as usize).map_or(0, Vec::len)
        };
        match inner.checked_add(size) {
            Some(end) if end <= len as u64 => {}
            _ => return Err(refuse(AccessFault::OutOfBounds)),
        }
        Ok(if rank == cta.rank() as u64 {
            Place::Shared(inner as usize)
        } else {
            Place::Remote(rank as u32, inner as usize)
        })
    }

    /// `getctarank` for the lanes of `mask`.
    pub(super) fn getctarank(&mut self, cta: &Cta, op: &Op, mask: u32, generic: bool) {
        for l in (0..32).filter(|l| mask & (1 << l) != 0) {
            let a = self.read(cta, &op.srcs[0], l);
            self.write(cta, op.dsts[0], l, Self::rank_named(cta, a, generic));
        }
    }

    /// The rank of the CTA whose shared memory `a` names.
    fn rank_named(cta: &Cta, a: u64, generic: bool) -> u64 {
        let off = if generic {
            if !(SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&a) {
                return cta.rank() as u64;
            }
            a - SHARED_WINDOW
        } else {
            a & 0xffff_ffff
        };
        if is_ranked(off) {
            (off - CLUSTER_SHARED) >> CLUSTER_RANK_SHIFT
        } else {
            cta.rank() as u64
        }
    }

    /// `barrier.cluster.arrive` / `.wait` for the lanes of `mask`.
    pub(super) fn cluster_barrier(&mut self, wait: bool, mask: u32) -> Flow {
        if !wait {
            self.cluster_arrived |= mask;
            return Flow::Next;
        }
        if self.cluster_arrived & mask == 0 {
            Flow::Next
        } else {
            Flow::Barrier {
                id: CLUSTER_BARRIER,
                dst: None,
            }
        }
    }

    /// `elect.sync d|p, membermask` for the lanes of `mask`: the lowest
    /// lane of both is the leader.
    pub(super) fn elect(&mut self, cta: &Cta, op: &Op, mask: u32) {
        let first = mask.trailing_zeros() as usize;
        let member = self.read(cta, &op.srcs[0], first.min(31)) as u32;
        let leader = (mask & member).trailing_zeros();
        let leader = if leader == 32 { 0 } else { leader };
        for l in (0..32).filter(|l| mask & (1 << l) != 0) {
            self.write(cta, op.dsts[0], l, leader as u64);
            self.write(cta, op.dsts[1], l, (l as u32 == leader) as u64);
        }
    }

    /// Whether every thread of the warp has arrived at the cluster barrier
    /// or exited.
    fn cluster_complete(&self) -> bool {
        self.valid & !self.exited & !self.cluster_arrived == 0
    }

    /// Starts the next phase: releases a wait at the cluster barrier.
    fn next_cluster_phase(&mut self) -> bool {
        self.cluster_arrived = 0;
        if self.state
            == (State::Waiting {
                barrier: CLUSTER_BARRIER,
                dst: None,
            })
        {
            self.state = State::Ready;
            return true;
        }
        false
    }
}

/// Completes the cluster barrier's phase where every thread of the
/// cluster (`warps` of all its CTAs) has arrived or exited, releasing
/// the warps that wait; true when a phase completed.
pub(super) fn release_cluster(ctas: &mut [&mut [Warp]]) -> bool {
    let mut any = false;
    for w in ctas.iter().flat_map(|ws| ws.iter()) {
        if !w.cluster_complete() {
            return false;
        }
        any |= w.cluster_arrived != 0;
    }
    if !any {
        return false;
    }
    for w in ctas.iter_mut().flat_map(|ws| ws.iter_mut()) {
        w.next_cluster_phase();
    }
    true
}

/// A phase of the cluster barrier completed: for racecheck, a new interval
/// in the CTA (every thread's accesses before its arrival come before every
/// thread's after its wait; accesses between a thread's `arrive` and `wait`
/// made before the last arrival are taken as before it too, which can miss
/// a race but never reports one; `.relaxed` arrivals are taken as
/// releasing).
pub(super) fn cluster_released(cta: &mut Cta) {
    if let Some(san) = cta.san.as_deref_mut() {
        san.shadow.barrier();
    }
}

/// A cluster whose live warps all wait at the cluster barrier, which no
/// thread will complete: the fault, and the index of the CTA it is
/// reported in (that of the first waiting warp).
fn cluster_deadlock(runs: &[Option<CtaRun>]) -> (usize, Fault) {
    let mut waiting = Vec::new();
    let mut at = None;
    for (i, run) in runs.iter().enumerate() {
        let Some(run) = run else { continue };
        for w in run.warps() {
            if w.waiting_on().is_some() {
                if at.is_none() {
                    at = Some((i, w.position(&run.cta)));
                }
                waiting.push(format!(
                    "CTA rank {} warp {} at {}",
                    run.cta.rank(),
                    w.index,
                    barrier_name(w.waiting_on().unwrap())
                ));
            }
        }
    }
    let first = runs.iter().position(Option::is_some).unwrap_or(0);
    let (i, (span, func, thread)) = at.unwrap_or((first, (Span::DUMMY, None, [0; 3])));
    let fault = Fault {
        kind: FaultKind::BarrierDeadlock,
        message: format!(
            "cluster barrier deadlock: the threads that have not arrived at barrier.cluster will not ({})",
            waiting.join(", ")
        ),
        thread,
        func,
        span,
        loc: None,
        access: None,
    };
    (i, fault)
}

/// Runs the CTAs of one cluster (`ctaids`, in rank order) to their end,
/// their rounds interleaved: each CTA's result, in that order.
pub fn run_cluster<'a>(
    ctx: &'a LaunchCtx<'a>,
    ctaids: &[[u32; 3]],
) -> Vec<Result<CtaOutput, Fault>> {
    let n = ctaids.len();
    let mut runs: Vec<Option<CtaRun>> = ctaids
        .iter()
        .map(|&id| Some(CtaRun::new(ctx, id)))
        .collect();
    let mut results: Vec<Option<Result<CtaOutput, Fault>>> = (0..n).map(|_| None).collect();
    let mut live = n;
    let fail = |runs: &mut Vec<Option<CtaRun>>,
                results: &mut Vec<Option<Result<CtaOutput, Fault>>>,
                i: usize,
                f: Fault| {
        for (j, slot) in runs.iter_mut().enumerate() {
            if let Some(run) = slot.take() {
                let r = if j == i {
                    Err(f.clone())
                } else {
                    Err(Fault::cancelled())
                };
                results[j] = Some(run.finish(r));
            }
        }
    };
    while live > 0 {
        let mut stalled = true;
        for i in 0..n {
            if runs[i].is_none() {
                continue;
            }
            let mut peers: Vec<Vec<u8>> = runs
                .iter_mut()
                .enumerate()
                .map(|(j, r)| match r {
                    Some(r) if j != i => std::mem::take(&mut r.cta.shared),
                    _ => Vec::new(),
                })
                .collect();
            let mut peer_san: Vec<_> = runs
                .iter_mut()
                .enumerate()
                .map(|(j, r)| match r {
                    Some(r) if j != i => r.cta.san.take(),
                    _ => None,
                })
                .collect();
            let run = runs[i].as_mut().unwrap();
            std::mem::swap(&mut run.cta.peers, &mut peers);
            std::mem::swap(&mut run.cta.peer_san, &mut peer_san);
            let remote = run.cta.remote_mbarrier_changes;
            let result = run.round();
            std::mem::swap(&mut run.cta.peers, &mut peers);
            std::mem::swap(&mut run.cta.peer_san, &mut peer_san);
            stalled &= matches!(result, Ok(false)) && run.stalled;
            // Arrivals on other CTAs' mbarriers are progress for them.
            let remote = run.cta.remote_mbarrier_changes != remote;
            for (j, (p, san)) in peers.into_iter().zip(peer_san).enumerate() {
                if let Some(r) = runs[j].as_mut().filter(|_| j != i) {
                    r.cta.shared = p;
                    r.cta.san = san;
                    r.cta.mbarrier_changes += remote as u64;
                }
            }
            match result {
                Ok(false) => {}
                Ok(true) => {
                    results[i] = Some(runs[i].take().unwrap().finish(Ok(())));
                    live -= 1;
                }
                Err(f) => {
                    fail(&mut runs, &mut results, i, f);
                    return results.into_iter().map(Option::unwrap).collect();
                }
            }
        }
        if live == 0 {
            break;
        }
        let mut ctas: Vec<&mut [Warp]> = runs.iter_mut().flatten().map(|r| r.warps_mut()).collect();
        let released = release_cluster(&mut ctas);
        if released {
            for r in runs.iter_mut().flatten() {
                cluster_released(&mut r.cta);
            }
        }
        if stalled && !released {
            let (i, f) = cluster_deadlock(&runs);
            fail(&mut runs, &mut results, i, f);
            break;
        }
    }
    results.into_iter().map(Option::unwrap).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::pure::mapa;

    #[test]
    fn mapa_names_a_rank_and_keeps_the_offset() {
        // An own-CTA (shared::cta) address, a cluster address of another
        // rank, and their generic forms.
        assert_eq!(mapa(0x40, 3, false), 0x4300_0040);
        assert_eq!(mapa(0x4300_0040, 1, false), 0x4100_0040);
        assert_eq!(mapa(0x4300_0040, 0, false), 0x4000_0040);
        assert_eq!(
            mapa(SHARED_WINDOW + 0x40, 2, true),
            SHARED_WINDOW + 0x4200_0040
        );
        assert_eq!(
            mapa(SHARED_WINDOW + 0x4200_0040, 5, true),
            SHARED_WINDOW + 0x4500_0040
        );
        // The highest rank and offset of a 16-CTA cluster.
        assert_eq!(mapa(0xff_ffff, 15, false), 0x4fff_ffff);
        // Ranks past 15 and offsets past 16 MiB name no CTA; addresses
        // outside shared memory map to 0 (both fault when used).
        assert_eq!(mapa(0x40, 16, false), 0xffff_ffff);
        assert_eq!(mapa(0x100_0000, 0, false), 0xffff_ffff);
        assert_eq!(mapa(0x1000_0000_0000, 1, true), 0);
        // The upper half of a 64-bit shared::cluster address is ignored.
        assert_eq!(mapa(0x1_0000_0040, 1, false), 0x4100_0040);
    }

    #[test]
    fn ranks_run_x_first_within_the_cluster() {
        let ranks = rank_in;
        assert_eq!(ranks([2, 2, 1], [3, 1, 0]), 3);
        assert_eq!(ranks([2, 2, 2], [2, 0, 3]), 4);
        assert_eq!(ranks([4, 1, 1], [6, 5, 0]), 2);
    }
}
