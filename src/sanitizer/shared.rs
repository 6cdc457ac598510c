//! A CTA's shared-memory shadow: which bytes were written in this CTA
//! (initcheck) and, per byte, the last write and up to two reads of the
//! current barrier interval (racecheck).
//!
//! Happens-before is approximated by barrier intervals: `epoch` counts the
//! barriers the CTA has released; two accesses by different threads
//! conflict when they are in the same interval and at least one writes.
//! Within one warp, lanes are not ordered either (Volta's independent
//! thread scheduling): two accesses by different lanes of one warp
//! conflict unless they are the same warp-instruction (lockstep: one
//! `st.shared` by every lane is not a race with itself) or a `bar.warp.sync`
//! (`__syncwarp`) of that warp came between them. Within an interval,
//! mbarriers order accesses too: each access is stamped with its agent (the
//! thread, or the async agent of the mbarrier a bulk copy completes on) and
//! the agent's clock, and [`Clocks`] says whether an mbarrier arrive/wait
//! chain orders it before a later access. Atomics are neither recorded nor
//! checked (they do not race with each other).

use std::collections::HashMap;

use super::hb::Clocks;
use super::{Access, CtaFindings, Finding, Hazard, Rw, Site};
use crate::ir::Space;

/// No thread: an empty record.
const NONE: u32 = u32::MAX;

/// One recorded access.
#[derive(Clone, Copy, Debug)]
struct Stamp {
    /// The thread reported (for a copy's write, the thread that issued it).
    thread: u32,
    /// The agent ordered: the thread, or a bulk copy's async agent.
    agent: u32,
    /// The agent's clock ([`Clocks`]).
    clock: u32,
    epoch: u32,
    /// The `bar.warp.sync`s the thread's warp had executed.
    wsync: u32,
    /// The thread's warp-instruction count (lanes of one instruction share it).
    instr: u32,
    /// Index into `sites`.
    site: u32,
}

const EMPTY: Stamp = Stamp {
    thread: NONE,
    agent: NONE,
    clock: 0,
    epoch: 0,
    wsync: 0,
    instr: 0,
    site: 0,
};

#[derive(Clone, Copy, Debug)]
struct Cell {
    write: Stamp,
    reads: [Stamp; 2],
}

/// The thread making an access, and where its warp stands.
#[derive(Clone, Copy, Debug)]
pub struct Who {
    /// Linear thread index in the CTA.
    pub thread: u32,
    pub wsync: u32,
    pub instr: u32,
    pub site: Site,
}

/// The shadow of one CTA's shared memory (reused from CTA to CTA).
#[derive(Debug, Default)]
pub struct SharedShadow {
    /// Written bits (initcheck), when on.
    written: Option<Vec<u64>>,
    /// Race records (racecheck), when on; those of an older epoch are stale.
    cells: Option<Vec<Cell>>,
    /// Barrier intervals, counted on from CTA to CTA so that a reused
    /// shadow's records are all stale.
    epoch: u32,
    sites: Vec<Site>,
    site_ids: HashMap<u32, u32>,
    /// The last site asked for (span start, id).
    last_site: Option<(u32, u32)>,
    /// Happens-before through mbarriers (racecheck).
    clocks: Clocks,
    /// The async agent making the writes of the copy being run, if it
    /// completes on an mbarrier.
    agent: Option<u32>,
}

impl SharedShadow {
    /// Readies the shadow for a new CTA with `len` bytes of shared memory.
    pub fn reset(&mut self, len: usize, initcheck: bool, racecheck: bool) {
        self.written = initcheck.then(|| {
            let mut w = self.written.take().unwrap_or_default();
            w.clear();
            w.resize(len.div_ceil(64), 0);
            w
        });
        self.cells = racecheck.then(|| {
            let mut c = self.cells.take().unwrap_or_default();
            if c.len() < len {
                c.resize(
                    len,
                    Cell {
                        write: EMPTY,
                        reads: [EMPTY; 2],
                    },
                );
            }
            c
        });
        self.epoch = self.epoch.wrapping_add(1);
        self.sites.clear();
        self.site_ids.clear();
        self.last_site = None;
        self.clocks.reset();
        self.agent = None;
    }

    /// The happens-before clocks, when racecheck is on.
    pub fn clocks(&mut self) -> Option<&mut Clocks> {
        self.cells.as_ref()?;
        Some(&mut self.clocks)
    }

    /// The writes of a copy that completes on the mbarrier at shared offset
    /// `mbar` begin (`Some`: they are made by its async agent) or end.
    pub fn copy_to(&mut self, mbar: Option<usize>) {
        if self.cells.is_some() {
            self.agent = mbar.map(|m| self.clocks.async_agent(m));
        }
    }

    /// A barrier released: later accesses are ordered after earlier ones.
    pub fn barrier(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
    }

    fn site_id(&mut self, site: Site) -> u32 {
        // The lanes of one op come one after another: ask the map once.
        if let Some(&(start, id)) = self.last_site.as_ref() {
            if start == site.span.start {
                return id;
            }
        }
        let id = self.intern(site);
        self.last_site = Some((site.span.start, id));
        id
    }

    fn intern(&mut self, site: Site) -> u32 {
        let n = self.sites.len() as u32;
        *self.site_ids.entry(site.span.start).or_insert_with(|| {
            self.sites.push(site);
            n
        })
    }

    fn stamp(&mut self, who: &Who, rw: Rw) -> Stamp {
        let agent = match (rw, self.agent) {
            (Rw::Write, Some(a)) => a,
            _ => who.thread,
        };
        Stamp {
            thread: who.thread,
            agent,
            clock: self.clocks.now(agent),
            epoch: self.epoch,
            wsync: who.wsync,
            instr: who.instr,
            site: self.site_id(who.site),
        }
    }

    /// Whether a recorded access conflicts with `now` (another agent, this
    /// interval, not ordered by lockstep, a warp barrier or an mbarrier).
    fn concurrent(&self, prev: &Stamp, now: &Stamp) -> bool {
        prev.thread != NONE
            && prev.agent != now.agent
            && prev.epoch == self.epoch
            && (prev.agent != prev.thread
                || now.agent != now.thread
                || prev.thread / 32 != now.thread / 32
                || (prev.wsync == now.wsync && prev.instr != now.instr))
            // A copy's writes come after what its issuing thread did before.
            && !(now.agent != now.thread && prev.agent == now.thread)
            && !(self.clocks.active() && self.clocks.ordered(prev.agent, prev.clock, now.thread))
    }

    fn access(&self, s: &Stamp, rw: Rw) -> Access {
        Access {
            rw,
            thread: s.thread,
            site: self.sites[s.site as usize],
        }
    }

    /// A read of `[off, off + len)` (checked to lie in shared memory).
    pub fn read(&mut self, off: usize, len: usize, who: &Who, out: &mut CtaFindings) {
        if let Some(w) = &self.written {
            if (off..off + len).any(|b| w[b / 64] & (1 << (b % 64)) == 0) {
                out.add(Finding::Uninitialized {
                    space: Space::Shared,
                    addr: off as u64,
                    size: len as u32,
                    access: Access {
                        rw: Rw::Read,
                        thread: who.thread,
                        site: who.site,
                    },
                });
            }
        }
        if self.cells.is_none() {
            return;
        }
        let now = self.stamp(who, Rw::Read);
        let mut raced = false;
        for b in off..off + len {
            let cell = self.cells.as_ref().unwrap()[b];
            if !raced && self.concurrent(&cell.write, &now) {
                raced = true;
                out.add(Finding::Race {
                    hazard: Hazard::ReadAfterWrite,
                    offset: b as u64,
                    size: len as u32,
                    first: self.access(&cell.write, Rw::Write),
                    second: self.access(&now, Rw::Read),
                });
            }
            let fresh = |s: &Stamp| s.agent == now.agent || s.epoch != now.epoch;
            let reads = &mut self.cells.as_mut().unwrap()[b].reads;
            if fresh(&reads[0]) || reads[0].thread == NONE {
                reads[0] = now;
            } else {
                reads[1] = now;
            }
        }
    }

    /// A write of `[off, off + len)` (checked to lie in shared memory).
    pub fn write(&mut self, off: usize, len: usize, who: &Who, out: &mut CtaFindings) {
        if let Some(w) = &mut self.written {
            for b in off..off + len {
                w[b / 64] |= 1 << (b % 64);
            }
        }
        if self.cells.is_none() {
            return;
        }
        let now = self.stamp(who, Rw::Write);
        let (mut waw, mut war) = (false, false);
        for b in off..off + len {
            let cell = self.cells.as_ref().unwrap()[b];
            if !waw && self.concurrent(&cell.write, &now) {
                waw = true;
                out.add(Finding::Race {
                    hazard: Hazard::WriteAfterWrite,
                    offset: b as u64,
                    size: len as u32,
                    first: self.access(&cell.write, Rw::Write),
                    second: self.access(&now, Rw::Write),
                });
            }
            if !war {
                if let Some(r) = cell.reads.iter().find(|r| self.concurrent(r, &now)) {
                    war = true;
                    out.add(Finding::Race {
                        hazard: Hazard::WriteAfterRead,
                        offset: b as u64,
                        size: len as u32,
                        first: self.access(r, Rw::Read),
                        second: self.access(&now, Rw::Write),
                    });
                }
            }
            self.cells.as_mut().unwrap()[b].write = now;
        }
    }

    /// An atomic on `[off, off + len)`: one that reads the old value (all
    /// but an exchange) is a read of bytes that must have been written
    /// (initcheck), and leaves bytes never written unwritten (what it
    /// stores derives from them); an exchange, or an atomic on written
    /// bytes, sets their bits. Racecheck ignores atomics.
    pub fn atomic(
        &mut self,
        off: usize,
        len: usize,
        reads: bool,
        who: &Who,
        out: &mut CtaFindings,
    ) {
        if let Some(w) = &mut self.written {
            if reads && (off..off + len).any(|b| w[b / 64] & (1 << (b % 64)) == 0) {
                out.add(Finding::Uninitialized {
                    space: Space::Shared,
                    addr: off as u64,
                    size: len as u32,
                    access: Access {
                        rw: Rw::Read,
                        thread: who.thread,
                        site: who.site,
                    },
                });
                return;
            }
            for b in off..off + len {
                w[b / 64] |= 1 << (b % 64);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::Span;
    use crate::ir::FuncId;
    use cranelift_codegen::entity::EntityRef;

    fn who(thread: u32, instr: u32, wsync: u32, at: u32) -> Who {
        Who {
            thread,
            wsync,
            instr,
            site: Site {
                func: FuncId::new(0),
                span: Span {
                    start: at,
                    end: at + 1,
                },
                loc: None,
            },
        }
    }

    fn hazards(out: &CtaFindings) -> Vec<(Hazard, u32, u32)> {
        out.list
            .iter()
            .filter_map(|f| match f {
                Finding::Race {
                    hazard,
                    first,
                    second,
                    ..
                } => Some((*hazard, first.thread, second.thread)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn hazards_between_warps_need_a_barrier() {
        let mut s = SharedShadow::default();
        s.reset(64, true, true);
        let mut out = CtaFindings::default();
        s.write(0, 4, &who(0, 1, 0, 10), &mut out);
        s.read(0, 4, &who(40, 1, 0, 20), &mut out);
        s.write(0, 4, &who(64, 1, 0, 30), &mut out);
        assert_eq!(
            hazards(&out),
            [
                (Hazard::ReadAfterWrite, 0, 40),
                (Hazard::WriteAfterWrite, 0, 64),
                (Hazard::WriteAfterRead, 40, 64)
            ]
        );
        let mut out = CtaFindings::default();
        s.barrier();
        s.read(0, 4, &who(40, 2, 0, 20), &mut out);
        assert!(out.is_empty(), "ordered by the barrier");
        s.read(8, 4, &who(40, 3, 0, 21), &mut out);
        assert!(matches!(
            out.list[..],
            [Finding::Uninitialized { addr: 8, .. }]
        ));
    }

    #[test]
    fn atomics_read_what_they_update_unless_they_exchange() {
        let mut s = SharedShadow::default();
        s.reset(64, true, true);
        let mut out = CtaFindings::default();
        // An exchange writes without reading: no finding; then its bytes are set.
        s.atomic(0, 4, false, &who(0, 1, 0, 10), &mut out);
        s.atomic(0, 4, true, &who(1, 2, 0, 11), &mut out);
        assert!(out.is_empty());
        // An add to bytes never written reads them, and leaves them
        // unwritten: a later add (or load) reads them again.
        s.atomic(16, 4, true, &who(2, 3, 0, 12), &mut out);
        s.atomic(16, 4, true, &who(3, 4, 0, 13), &mut out);
        s.read(16, 4, &who(4, 5, 0, 14), &mut out);
        let found: Vec<_> = out
            .list
            .iter()
            .map(|f| match f {
                Finding::Uninitialized { addr, access, .. } => (*addr, access.thread),
                _ => panic!("atomics do not race: {f:?}"),
            })
            .collect();
        assert_eq!(found, [(16, 2), (16, 3), (16, 4)]);
    }

    #[test]
    fn mbarriers_order_arrivals_before_waits_and_copies_before_their_waiters() {
        let mut s = SharedShadow::default();
        s.reset(64, false, true);
        let mut out = CtaFindings::default();
        let mbar = 56;
        s.clocks().unwrap().init(mbar);
        // Thread 0 writes and arrives; thread 40 waits (acquire) and reads.
        s.write(0, 4, &who(0, 1, 0, 10), &mut out);
        let c = s.clocks().unwrap();
        c.arrive(0, mbar);
        c.completed(mbar, false);
        c.acquire(40, mbar, false);
        s.read(0, 4, &who(40, 1, 0, 20), &mut out);
        assert!(out.is_empty(), "ordered by the mbarrier");
        // A write by thread 0 after its arrival is not ordered, neither
        // with thread 40's read before nor after.
        s.write(0, 4, &who(0, 2, 0, 11), &mut out);
        s.read(0, 4, &who(40, 2, 0, 21), &mut out);
        assert_eq!(
            hazards(&out),
            [
                (Hazard::WriteAfterRead, 40, 0),
                (Hazard::ReadAfterWrite, 0, 40)
            ]
        );
        // A copy issued by thread 0 completing on the mbarrier: its writes
        // race even with thread 0's own read until thread 0 waits.
        let mut out = CtaFindings::default();
        s.copy_to(Some(mbar));
        s.write(16, 4, &who(0, 3, 0, 12), &mut out);
        s.copy_to(None);
        s.read(16, 4, &who(0, 4, 0, 13), &mut out);
        assert_eq!(hazards(&out), [(Hazard::ReadAfterWrite, 0, 0)]);
        let c = s.clocks().unwrap();
        c.complete_tx(mbar);
        c.completed(mbar, true);
        c.acquire(0, mbar, true);
        let mut out = CtaFindings::default();
        s.read(16, 4, &who(0, 5, 0, 14), &mut out);
        assert!(out.is_empty(), "the copy is ordered before the wait");
    }

    #[test]
    fn lanes_of_a_warp_race_across_instructions_unless_a_warp_barrier_orders_them() {
        let mut s = SharedShadow::default();
        s.reset(64, false, true);
        let mut out = CtaFindings::default();
        // One instruction, every lane writing the same word: lockstep.
        s.write(0, 4, &who(0, 1, 0, 10), &mut out);
        s.write(0, 4, &who(1, 1, 0, 10), &mut out);
        assert!(out.is_empty());
        // The next instruction reads what another lane wrote.
        s.read(0, 4, &who(2, 2, 0, 20), &mut out);
        assert_eq!(hazards(&out), [(Hazard::ReadAfterWrite, 1, 2)]);
        // After __syncwarp, no hazard.
        let mut out = CtaFindings::default();
        s.read(0, 4, &who(3, 3, 1, 21), &mut out);
        assert!(out.is_empty());
    }
}
