//! The sanitizer's hooks in the interpreter: each decoded access of a
//! checked launch goes to the global written bits (initcheck), the CTA's
//! shared-memory shadow (initcheck, racecheck) or the thread's local
//! written bits (initcheck; new frames clear theirs) through
//! `sanitizer::hooks`, which compiled pieces call too; barriers and
//! warp-synchronous ops are checked against their rules (synccheck). In an
//! unchecked launch `Cta::san` is `None` and every hook returns at once.

use std::cell::RefCell;

use super::lanes::Place;
use super::warp::Warp;
use super::Cta;
use crate::ir::{AtomOp, Op, OpKind, ShflMode, Space};
use crate::runtime::memory::GLOBAL_BASE;
use crate::sanitizer::deferred::DeferredLog;
use crate::sanitizer::hooks::{self, Spot};
use crate::sanitizer::local::LocalShadow;
use crate::sanitizer::shared::{SharedShadow, Who};
use crate::sanitizer::{Access, Checks, CtaState, Finding, Rw, Site, SyncError};

thread_local! {
    /// Shadows of finished CTAs, reused by the next ones on this thread.
    static SHADOWS: RefCell<Vec<SharedShadow>> = const { RefCell::new(Vec::new()) };
    /// Local written bits of finished CTAs, reused likewise.
    static LOCALS: RefCell<Vec<LocalShadow>> = const { RefCell::new(Vec::new()) };
    static LOGS: RefCell<Vec<DeferredLog>> = const { RefCell::new(Vec::new()) };
}

/// A checked CTA's state, its shadow reused from an earlier CTA.
pub(super) fn start_cta(checks: Checks, shared_len: usize) -> Box<CtaState> {
    let mut shadow = SHADOWS.with(|s| s.borrow_mut().pop()).unwrap_or_default();
    shadow.reset(shared_len, checks.initcheck, checks.racecheck);
    let mut local = LOCALS.with(|s| s.borrow_mut().pop()).unwrap_or_default();
    local.reset(checks.initcheck);
    let deferred = LOGS.with(|s| s.borrow_mut().pop()).unwrap_or_default();
    Box::new(CtaState {
        shadow,
        local,
        deferred,
        ..Default::default()
    })
}

/// Hands a finished CTA's findings to the launch, its shadow to the pool.
pub(super) fn finish_cta(cta: &mut Cta) {
    let (Some(san), Some(launch)) = (cta.san.take(), cta.ctx.sanitizer) else {
        return;
    };
    let CtaState {
        shadow,
        local,
        findings,
        deferred,
        ..
    } = *san;
    launch.collector.add(cta.linear(), findings);
    SHADOWS.with(|s| s.borrow_mut().push(shadow));
    LOCALS.with(|s| s.borrow_mut().push(local));
    LOGS.with(|s| s.borrow_mut().push(deferred));
}

/// What an mbarrier operation did, for racecheck's happens-before
/// ([`crate::sanitizer::hb`]).
#[derive(Clone, Copy, Debug)]
pub(super) enum MbarEvent {
    /// `mbarrier.init`.
    Init,
    /// An arrival or a thread's `complete_tx` (release), completing the
    /// phase of the given parity or not.
    Release(Option<bool>),
    /// A copy's transactions completed (its writes released), completing
    /// the phase of the given parity or not.
    CopyDone(Option<bool>),
    /// A wait that found the phase of this parity complete (acquire).
    Acquire(bool),
}

impl MbarEvent {
    /// The parity of the phase `before` -> `after` completed, if it did.
    pub(super) fn flipped(before: bool, after: bool) -> Option<bool> {
        (before != after).then_some(before)
    }
}

/// The sanitizer's view of a decoded place, accessed by `op` (another
/// CTA's shared memory and the parameters, `.param` frame bytes in local
/// memory included, are not checked).
fn spot(place: Place, op: &Op) -> Option<Spot> {
    match place {
        Place::Global(off) => Some(Spot::Global {
            off,
            addr: GLOBAL_BASE + off,
        }),
        Place::Shared(at) => Some(Spot::Shared(at)),
        Place::Local(_) if frame_param(op) => None,
        Place::Local(at) => Some(Spot::Local(at)),
        Place::KernelParam(_) | Place::Remote(..) => None,
    }
}

/// Whether `op` accesses a `.param` of the frame (`ld.param`/`st.param`
/// of a call's parameters), which the local written bits do not follow.
fn frame_param(op: &Op) -> bool {
    matches!(
        op.kind,
        OpKind::Ld {
            space: Space::FrameParam,
            ..
        } | OpKind::St {
            space: Space::FrameParam,
            ..
        }
    )
}

impl Cta<'_> {
    /// Lanes `mask` of warp `warp` start a frame (a call) or take stack
    /// (`alloca`) at local bytes `[start, end)`: initcheck counts them
    /// unwritten (`sanitizer::local`).
    pub(super) fn check_new_frame(&mut self, warp: u32, mask: u32, start: u32, end: u32) {
        let Some(san) = self.san.as_deref_mut() else {
            return;
        };
        for lane in (0..32).filter(|l| mask & (1 << l) != 0) {
            san.local
                .forget(warp * 32 + lane, start as usize, end as usize);
        }
    }
}

impl Warp {
    /// Racecheck's record of lane `lane`'s mbarrier operation on the object
    /// at `place` (another CTA's objects are not tracked).
    pub(super) fn check_mbarrier(&self, cta: &mut Cta, place: Place, lane: usize, ev: MbarEvent) {
        let Some(san) = cta.san.as_deref_mut() else {
            return;
        };
        let (Place::Shared(at), Some(c)) = (place, san.shadow.clocks()) else {
            return;
        };
        let thread = self.index * 32 + lane as u32;
        match ev {
            MbarEvent::Init => c.init(at),
            MbarEvent::Release(done) => {
                c.arrive(thread, at);
                if let Some(p) = done {
                    c.completed(at, p);
                }
            }
            MbarEvent::CopyDone(done) => {
                c.complete_tx(at);
                if let Some(p) = done {
                    c.completed(at, p);
                }
            }
            MbarEvent::Acquire(p) => c.acquire(thread, at, p),
        }
    }

    /// The writes to shared memory of a copy that completes on the mbarrier
    /// at `mbar` (`Some`) begin, or end (`None`): racecheck stamps them as
    /// the async agent's, not the issuing thread's.
    pub(super) fn check_copy_to(&self, cta: &mut Cta, mbar: Option<Place>) {
        let Some(san) = cta.san.as_deref_mut() else {
            return;
        };
        let at = match mbar {
            Some(Place::Shared(at)) => Some(at),
            _ => None,
        };
        san.shadow.copy_to(at);
    }

    fn site(&self, op: &Op) -> Site {
        Site {
            func: self.frames.last().unwrap().func,
            span: op.span,
            loc: op.loc,
        }
    }

    /// Counts an op of a checked launch: lanes of one op share its count.
    #[inline]
    pub(super) fn check_op(&mut self, cta: &Cta, op: &Op) {
        if cta.san.is_some() {
            self.san_instr = self.san_instr.wrapping_add(1);
            if is_warp_sync(&op.kind) {
                self.san_wsync = self.san_wsync.wrapping_add(1);
            }
        }
    }

    /// The lanes `mask` executed `bar.warp.sync`, or a warp-synchronous
    /// collective ([`is_warp_sync`]) (racecheck: they order their accesses
    /// through it, `sanitizer::hb`).
    pub(super) fn check_warp_sync(&self, cta: &mut Cta, mask: u32) {
        if let Some(clocks) = cta.san.as_deref_mut().and_then(|s| s.shadow.clocks()) {
            clocks.warp_sync(self.index, mask);
        }
    }

    /// One lane's access of `size` bytes at a decoded place.
    #[inline]
    pub(super) fn check_access(
        &self,
        cta: &mut Cta,
        op: &Op,
        place: Place,
        size: u64,
        rw: Rw,
        lane: usize,
    ) {
        let Some(san) = cta.san.as_deref_mut() else {
            return;
        };
        let Some(spot) = spot(place, op) else {
            return;
        };
        let who = self.who(op, lane);
        let order = hooks::order_of(op);
        hooks::access(
            san,
            cta.ctx.memory.init_shadow(),
            spot,
            size,
            rw,
            order,
            &who,
        );
    }

    /// One lane's atomic of `size` bytes. All but an exchange read the
    /// value they update, so bytes never written are an uninitialized read
    /// (initcheck: a histogram or counter the host never zeroed), and stay
    /// unwritten: what the atomic stores derives from what was there. (So
    /// every CTA whose atomics reach them finds them, and the report, the
    /// first in grid order, does not depend on which CTA ran first.) Other
    /// atomics set their bytes' bits.
    #[inline]
    pub(super) fn check_atomic(
        &self,
        cta: &mut Cta,
        op: &Op,
        place: Place,
        size: u64,
        lane: usize,
    ) {
        let Some(san) = cta.san.as_deref_mut() else {
            return;
        };
        let Some(spot) = spot(place, op) else {
            return;
        };
        let reads = !matches!(
            op.kind,
            OpKind::Atom {
                op: AtomOp::Exch,
                ..
            } | OpKind::Mbarrier {
                op: crate::sem::mbarrier::MbarrierOp::Init
                    | crate::sem::mbarrier::MbarrierOp::Inval,
                ..
            }
        );
        let who = self.who(op, lane);
        let order = hooks::order_of(op);
        hooks::atomic(
            san,
            cta.ctx.memory.init_shadow(),
            spot,
            size,
            reads,
            order,
            &who,
        );
    }

    fn who(&self, op: &Op, lane: usize) -> Who {
        Who {
            thread: self.index * 32 + lane as u32,
            wsync: self.san_wsync,
            instr: self.san_instr,
            site: self.site(op),
        }
    }

    fn sync_finding(&self, cta: &mut Cta, op: &Op, lane: u32, error: SyncError, message: String) {
        let site = self.site(op);
        if let Some(san) = cta.san.as_deref_mut() {
            san.findings.add(Finding::Sync {
                error,
                message,
                access: Access {
                    rw: Rw::Read,
                    thread: self.index * 32 + lane,
                    site,
                },
                other: None,
            });
        }
    }

    /// Synccheck of a warp's arrival at whole-CTA barrier `id` (one without
    /// a thread count, `__syncthreads()`): every thread of one round must
    /// arrive at the same barrier instruction. The first arrival of the
    /// round is kept until the barrier releases (`CtaState::barrier_released`);
    /// an arrival elsewhere is [`SyncError::DivergentBlock`]. (Whether the
    /// instructions are `.aligned`, which makes this an error, is decided
    /// when the report is made: `runtime::checked`.)
    pub(super) fn check_barrier_site(&self, cta: &mut Cta, op: &Op, lane: u32, id: u32) {
        if !cta.ctx.sanitizer.is_some_and(|s| s.checks.synccheck) {
            return;
        }
        let Some((san, here)) = self.arrival(cta, op, lane) else {
            return;
        };
        let Some(slot) = san.barrier_sites.get_mut(id as usize) else {
            return;
        };
        match *slot {
            None => *slot = Some(here),
            Some(first)
                if first.site.span.start != here.site.span.start
                    || first.site.func != here.site.func =>
            {
                let message = format!(
                    "threads of the block wait at barrier {id} at two different instructions"
                );
                round_finding(san, SyncError::DivergentBlock, message, here, first);
            }
            Some(_) => {}
        }
    }

    /// The CTA's sanitizer state and lane `lane`'s arrival at the barrier
    /// `op`, as the per-round barrier records keep it (`None` unchecked).
    fn arrival<'c>(
        &self,
        cta: &'c mut Cta,
        op: &Op,
        lane: u32,
    ) -> Option<(&'c mut CtaState, Access)> {
        let site = self.site(op);
        let san = cta.san.as_deref_mut()?;
        let here = Access {
            rw: Rw::Read,
            thread: self.index * 32 + lane,
            site,
        };
        Some((san, here))
    }

    /// Synccheck of a CTA barrier with a thread count: the count must be a
    /// multiple of the warp size, at least the threads arrived so far, and
    /// the count the round's first arrival gave ([`SyncError::CountsDiffer`],
    /// naming that arrival too; the round ends when the barrier releases,
    /// `CtaState::barrier_released`).
    pub(super) fn check_barrier(
        &self,
        cta: &mut Cta,
        op: &Op,
        lane: u32,
        id: u32,
        count: u32,
        arrived: u32,
    ) {
        if !cta.ctx.sanitizer.is_some_and(|s| s.checks.synccheck) {
            return;
        }
        if count % 32 != 0 {
            let msg =
                format!("barrier thread count {count} is not a multiple of the warp size (32)");
            self.sync_finding(cta, op, lane, SyncError::CountNotWarpMultiple, msg);
        } else if arrived > count {
            let msg = format!(
                "barrier thread count {count} is smaller than the {arrived} threads arriving at it"
            );
            self.sync_finding(cta, op, lane, SyncError::CountBelowArrivals, msg);
        }
        let Some((san, here)) = self.arrival(cta, op, lane) else {
            return;
        };
        let Some(slot) = san.barrier_counts.get_mut(id as usize) else {
            return;
        };
        match *slot {
            None => *slot = Some((count, here)),
            Some((first, at)) if first != count => {
                let message = format!(
                    "thread count {count} of barrier {id} differs from the count {first} of an earlier arrival in the same round"
                );
                round_finding(san, SyncError::CountsDiffer, message, here, at);
            }
            Some(_) => {}
        }
    }

    /// Synccheck of a warp-synchronous op (`shfl.sync`, `vote.sync`,
    /// `match.sync`, `redux.sync`, `bar.warp.sync`): each executing lane's
    /// member mask must name that lane, and every live lane it names must
    /// execute the op with it.
    pub(super) fn check_member_mask(&self, cta: &mut Cta, op: &Op, mask: u32) {
        if !cta.ctx.sanitizer.is_some_and(|s| s.checks.synccheck) {
            return;
        }
        let src = match op.kind {
            OpKind::Shfl { .. } => 3,
            OpKind::Vote { .. } | OpKind::Match { .. } | OpKind::Redux { .. } => 1,
            OpKind::WarpSync => 0,
            _ => return,
        };
        let Some(s) = op.srcs.get(src) else {
            return;
        };
        let live = self.valid & !self.exited;
        for lane in (0..32u32).filter(|l| mask & (1 << l) != 0) {
            let members = self.read(cta, s, lane as usize) as u32;
            if members & (1 << lane) == 0 {
                let msg = format!(
                    "member mask {members:#010x} of a warp-synchronous instruction does not include the executing lane {lane}"
                );
                self.sync_finding(cta, op, lane, SyncError::MaskMissesLanes, msg);
                return;
            }
            let absent = members & live & !mask;
            if absent != 0 {
                let msg = format!(
                    "member mask {members:#010x} names lanes {absent:#010x} that do not execute this warp-synchronous instruction (executing: {mask:#010x})"
                );
                self.sync_finding(cta, op, lane, SyncError::MaskNamesAbsentLanes, msg);
                return;
            }
        }
        if let OpKind::Shfl { mode } = op.kind {
            self.check_shfl_sources(cta, op, mask, mode);
        }
    }

    /// Synccheck of `shfl.sync`'s source lanes in `idx` and `bfly` modes: a
    /// lane whose source lane is in range (its predicate true; out of range
    /// it reads its own value) must find that lane in its member mask (PTX
    /// ISA: the value read from a lane outside it is undefined). `up` and
    /// `down` are not checked: there the lanes at the mask's edge reading
    /// past it is the reduction and scan idiom (`__shfl_down_sync(mask,
    /// ...)` with `mask` a ballot of the lanes in bounds), whose values
    /// those lanes discard.
    fn check_shfl_sources(&self, cta: &mut Cta, op: &Op, mask: u32, mode: ShflMode) {
        if matches!(mode, ShflMode::Up | ShflMode::Down) {
            return;
        }
        let (Some(b), Some(c), Some(m)) = (op.srcs.get(1), op.srcs.get(2), op.srcs.get(3)) else {
            return;
        };
        let (sources, in_range) =
            super::exec::shfl_sources(mode, &self.read_lanes(cta, b), &self.read_lanes(cta, c));
        for lane in (0..32u32).filter(|l| mask & in_range & (1 << l) != 0) {
            let from = sources[lane as usize] as u32 & 31;
            let members = self.read(cta, m, lane as usize) as u32;
            if members & (1 << from) == 0 {
                let msg = format!(
                    "lane {lane} of a shuffle reads lane {from}, which its member mask {members:#010x} does not include"
                );
                self.sync_finding(cta, op, lane, SyncError::SourceNotMember, msg);
                return;
            }
        }
    }

    /// Synccheck of one lane's `cp.async` whose source size (a register)
    /// exceeds the copy size (the copy reads `size` bytes).
    pub(super) fn check_copy_source(
        &self,
        cta: &mut Cta,
        op: &Op,
        lane: usize,
        src_size: u64,
        size: u64,
    ) {
        if src_size <= size || !cta.ctx.sanitizer.is_some_and(|s| s.checks.synccheck) {
            return;
        }
        let msg = format!("cp.async source size {src_size} is larger than the copy size {size}");
        self.sync_finding(cta, op, lane as u32, SyncError::CopySourceTooLarge, msg);
    }
}

/// A barrier round's disagreement: `here` against the round's first
/// arrival `first`, both named in the report.
fn round_finding(
    san: &mut CtaState,
    error: SyncError,
    message: String,
    here: Access,
    first: Access,
) {
    san.findings.add(Finding::Sync {
        error,
        message,
        access: here,
        other: Some(first),
    });
}

/// Whether an op synchronizes the lanes of its member mask for racecheck:
/// `bar.warp.sync`, and the collectives every member lane waits at until
/// all have arrived (`shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`:
/// Volta's independent thread scheduling converges them there). CUDA says
/// the collectives imply no memory barrier, but NVIDIA's own cooperative
/// groups pass an acquire from one lane to its warp through `shfl.sync`
/// and read a word before a `redux.sync` that the lanes overwrite after it
/// (`cuda/cg_large_tiles`), so a sanitizer that reports them reports
/// correct vendor code.
pub(super) fn is_warp_sync(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::WarpSync
            | OpKind::Shfl { .. }
            | OpKind::Vote { .. }
            | OpKind::Match { .. }
            | OpKind::Redux { .. }
    )
}
