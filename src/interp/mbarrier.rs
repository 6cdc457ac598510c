//! Executing `OpKind::Mbarrier` for the active lanes of a warp: each lane's
//! operation on the object in the CTA's shared memory, in lane order (the
//! state transitions are [`crate::sem::mbarrier`]'s).
//!
//! Waiting: `mbarrier.test_wait` and `try_wait` answer at once (a phase that
//! is not complete yet gives false); a warp that got a false answer in some
//! lane then yields ([`Flow::Yield`]), so that the other warps of the CTA,
//! whose arrivals it waits for, run before its next attempt. Programs spin
//! on these instructions (`cuda::barrier::wait`, `cuda::pipeline`), so
//! without the yield a warp would spin alone forever. The scheduler
//! (`interp::schedule`) reports a deadlock when the CTA's warps keep
//! yielding while no mbarrier changes. Polling loads (`.volatile`,
//! `.relaxed`, `.acquire`) that a warp runs twice in a turn yield too
//! ([`Warp::polls_again`]).

use super::check::MbarEvent;
use super::lanes::Place;
use super::warp::{Flow, Warp};
use super::{Cta, Fault, FaultKind};
use crate::ir::{Op, OpKind};
use crate::sem::mbarrier::{self, Mbarrier, MbarrierOp};

impl Warp {
    pub(super) fn mbarrier(&mut self, cta: &mut Cta, op: &Op, mask: u32) -> Result<Flow, Fault> {
        let OpKind::Mbarrier {
            op: mop,
            space,
            offset,
        } = op.kind
        else {
            unreachable!("not an mbarrier op")
        };
        let lanes = (0..32usize).filter(move |l| mask & (1 << l) != 0);
        if mop == MbarrierOp::PendingCount {
            for l in lanes {
                let state = self.read(cta, &op.srcs[0], l);
                self.write(cta, op.dsts[0], l, mbarrier::pending_count(state) as u64);
            }
            return Ok(Flow::Next);
        }
        let mut waiting = false;
        for l in lanes {
            let addr = self.read(cta, &op.srcs[0], l).wrapping_add(offset as u64);
            let place = self
                .place(cta, space, addr, 8, l)
                .map_err(|r| self.access_fault(cta, op, l, r, 8))?;
            // Arrivals and transaction counts may reach another CTA of the
            // cluster (`.shared::cluster`); their progress is the cluster's.
            let remote = matches!(place, Place::Remote(..))
                && matches!(
                    mop,
                    MbarrierOp::Arrive { .. } | MbarrierOp::ExpectTx | MbarrierOp::CompleteTx
                );
            if remote {
                cta.remote_mbarrier_changes += 1;
            } else if !matches!(place, Place::Shared(_)) {
                let msg = format!(
                    "mbarrier object at {addr:#x} is not in shared memory (PTX ISA 9.7.13.15)"
                );
                return Err(self.fault(cta, FaultKind::Mbarrier, l as u32, Some(op), msg));
            }
            self.check_atomic(cta, op, place, 8, l);
            let word = self.load_place(cta, place, 8, l);
            let mut m = Mbarrier::decode(word);
            let before = m.phase;
            let arg = |w: &Self, i: usize| w.read(cta, &op.srcs[i], l);
            let done = match mop {
                MbarrierOp::Init => {
                    m = Mbarrier::init(arg(self, 1)).map_err(|e| self.misuse(cta, op, l, e))?;
                    Ok(())
                }
                // The ISA leaves the object's contents undefined after
                // `inval`; an H100 leaves its word as it was (measured:
                // ptx-samples/hw/h100-gpucheck.json, mbarrier_phases), and so
                // does this.
                MbarrierOp::Inval => continue,
                MbarrierOp::ExpectTx => m.add_tx(arg(self, 1) as i64),
                MbarrierOp::CompleteTx => m.add_tx(-(arg(self, 1) as i64)),
                MbarrierOp::Arrive {
                    drop,
                    no_complete,
                    expect_tx,
                } => {
                    let (count, tx) = (arg(self, 1), arg(self, 2));
                    self.write(cta, op.dsts[0], l, word);
                    let r = if expect_tx {
                        m.add_tx(tx as i64)
                    } else {
                        Ok(())
                    };
                    r.and_then(|_| m.arrive(count, drop, no_complete))
                }
                // The copies this arrival waits for completed at issue: the
                // default form's increment and its arrival cancel out; the
                // `.noinc` form is one of the expected arrivals.
                MbarrierOp::CpAsyncArrive { noinc: false } => {
                    self.check_mbarrier(cta, place, l, MbarEvent::Release(None));
                    continue;
                }
                MbarrierOp::CpAsyncArrive { noinc: true } => m.arrive(1, false, false),
                MbarrierOp::Wait { parity, .. } => {
                    let phase = arg(self, 1);
                    let parity = if parity {
                        phase & 1 != 0
                    } else {
                        mbarrier::state_parity(phase)
                    };
                    let complete = m.completed(parity);
                    if complete {
                        self.check_mbarrier(cta, place, l, MbarEvent::Acquire(parity));
                    }
                    waiting |= !complete;
                    self.write(cta, op.dsts[0], l, complete as u64);
                    continue;
                }
                MbarrierOp::PendingCount => unreachable!("handled above"),
            };
            done.map_err(|e| self.misuse(cta, op, l, e))?;
            let event = match mop {
                MbarrierOp::Init => Some(MbarEvent::Init),
                MbarrierOp::ExpectTx => None,
                _ => Some(MbarEvent::Release(MbarEvent::flipped(before, m.phase))),
            };
            if let Some(ev) = event {
                self.check_mbarrier(cta, place, l, ev);
            }
            self.store_place(cta, place, 8, m.encode(), l);
            cta.mbarrier_changes += 1;
        }
        Ok(if waiting {
            Flow::Yield { mbarrier: true }
        } else {
            Flow::Next
        })
    }

    pub(super) fn misuse(
        &self,
        cta: &Cta,
        op: &Op,
        lane: usize,
        e: mbarrier::MbarrierError,
    ) -> Fault {
        self.fault(
            cta,
            FaultKind::Mbarrier,
            lane as u32,
            Some(op),
            format!("mbarrier: {e}"),
        )
    }
}

impl Warp {
    /// After a polling load (`OpKind::Ld::poll`): whether the warp already
    /// ran this load in its turn, so it is spinning for what other warps
    /// will write, and yields (the next turn starts counting afresh).
    /// Both engines run polling loads in the driver, so they yield at the
    /// same loads and schedule warps alike.
    pub(super) fn polls_again(&mut self) -> bool {
        let frame = self.frames.last().unwrap();
        let e = frame.stack.last().unwrap();
        let at = (frame.func, e.block, e.pc);
        if self.last_poll == Some(at) {
            self.last_poll = None;
            return true;
        }
        self.last_poll = Some(at);
        false
    }
}
