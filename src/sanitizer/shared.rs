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
//! chain (or release/acquire, a warp or partial barrier: `hb`) orders it
//! before a later access. `.relaxed`/`.acquire`/`.release` loads and
//! stores are recorded as strong: two strong accesses do not race, a
//! strong and a plain one do. Atomics are not recorded.
//!
//! Global memory is checked the same way within the CTA (`global_cells`:
//! the same records, kept for the chunks the CTA touched in its interval);
//! accesses by different CTAs are not compared.

use std::collections::HashMap;

use super::global_cells::GlobalCells;
use super::hb::{sync_key, Clocks};
use super::{Access, CtaFindings, Finding, Hazard, Rw, Site};
use crate::ir::{MemOrder, Space};

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
    /// The bytes of the cell's word the access touched.
    mask: u8,
    /// A strong access (a `.relaxed`, `.acquire` or `.release` load or
    /// store): two strong accesses do not race.
    strong: bool,
}

const EMPTY: Stamp = Stamp {
    thread: NONE,
    agent: NONE,
    clock: 0,
    epoch: 0,
    wsync: 0,
    instr: 0,
    site: 0,
    mask: 0,
    strong: false,
};

/// Bytes per race record ([`Cell`]).
pub const WORD: u64 = 4;

/// One aligned 4-byte word's records: the last write and up to two reads
/// of the interval, each with the bytes of the word it touched. A record
/// replaces an older one of the word whatever bytes each touched, so two
/// threads' accesses to different bytes of one word can hide each other
/// (a race may be missed, as with any bounded shadow; none is invented).
#[derive(Clone, Copy, Debug)]
pub struct Cell {
    write: Stamp,
    reads: [Stamp; 2],
}

impl Cell {
    pub const EMPTY: Cell = Cell {
        write: EMPTY,
        reads: [EMPTY; 2],
    };
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
    /// Race records of the global memory the CTA touched this interval
    /// (racecheck; kept only while `cells` is `Some`).
    global: GlobalCells,
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
            let words = len.div_ceil(WORD as usize);
            if c.len() < words {
                c.resize(words, Cell::EMPTY);
            }
            c
        });
        self.global.clear();
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
        self.global.clear();
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
            mask: 0,
            strong: false,
        }
    }

    /// A read of `[off, off + len)` (checked to lie in shared memory).
    #[inline]
    pub fn read(&mut self, off: usize, len: usize, who: &Who, out: &mut CtaFindings) {
        self.init_read(off, len, who, out);
        if self.cells.is_some() {
            let at = (off as u64, off as u64, len);
            self.races(Space::Shared, at, Rw::Read, false, who, out);
        }
    }

    /// A write of `[off, off + len)` (checked to lie in shared memory).
    #[inline]
    pub fn write(&mut self, off: usize, len: usize, who: &Who, out: &mut CtaFindings) {
        self.init_write(off, len);
        if self.cells.is_some() {
            let at = (off as u64, off as u64, len);
            self.races(Space::Shared, at, Rw::Write, false, who, out);
        }
    }

    /// A strong load or store (`.relaxed`, `.acquire`, `.release`; PTX ISA
    /// §8.4) of `[off, off + len)` of shared memory: checked by initcheck
    /// like any, recorded for racecheck as strong (strong accesses do not
    /// race with each other, but do with plain ones), then a
    /// synchronization of the location ([`SharedShadow::synchronize`]).
    pub fn strong(
        &mut self,
        off: usize,
        len: usize,
        rw: Rw,
        order: MemOrder,
        who: &Who,
        out: &mut CtaFindings,
    ) {
        match rw {
            Rw::Read => self.init_read(off, len, who, out),
            _ => self.init_write(off, len),
        }
        if self.cells.is_some() {
            let at = (off as u64, off as u64, len);
            self.races(Space::Shared, at, rw, true, who, out);
        }
        self.synchronize(sync_key(false, off as u64), order, who.thread);
    }

    /// Thread `thread`'s operation of memory order `order` on the location
    /// `key` ([`sync_key`]): an acquire joins what the location released
    /// into the thread's clock, a release the thread's clock into the
    /// location's (an `.acq_rel` read-modify-write does both, in that
    /// order); relaxed and plain ones do nothing.
    pub fn synchronize(&mut self, key: u64, order: MemOrder, thread: u32) {
        let Some(clocks) = self.clocks() else {
            return;
        };
        if matches!(order, MemOrder::Acquire | MemOrder::AcqRel) {
            clocks.acquire_from(thread, key);
        }
        if matches!(order, MemOrder::Release | MemOrder::AcqRel) {
            clocks.release(thread, key);
        }
    }

    /// Initcheck of a read of `[off, off + len)`.
    #[inline]
    fn init_read(&self, off: usize, len: usize, who: &Who, out: &mut CtaFindings) {
        if let Some(w) = &self.written {
            if !all_set(w, off, len) {
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
    }

    /// Marks `[off, off + len)` written for initcheck: shared memory the
    /// system initializes at the CTA's start (the reserved shared memory,
    /// zeroed for cooperative groups' barriers).
    pub fn initialized(&mut self, off: usize, len: usize) {
        self.init_write(off, len);
    }

    /// Initcheck of a write of `[off, off + len)`.
    #[inline]
    fn init_write(&mut self, off: usize, len: usize) {
        if let Some(w) = &mut self.written {
            set_bits(w, off, len);
        }
    }

    /// A load or store (`rw`) of `len` global bytes at arena offset `off`
    /// (device address `addr`) of memory order `order`, when racecheck is
    /// on: recorded (a strong one as such, as [`SharedShadow::strong`]),
    /// then a strong one synchronizes the location.
    pub fn global_access(
        &mut self,
        (off, addr, len): (u64, u64, usize),
        rw: Rw,
        order: MemOrder,
        who: &Who,
        out: &mut CtaFindings,
    ) {
        if self.cells.is_none() {
            return;
        }
        let strong = order != MemOrder::Plain;
        self.races(Space::Global, (off, addr, len), rw, strong, who, out);
        if strong {
            self.synchronize(sync_key(true, off), order, who.thread);
        }
    }

    /// Checks an access of `[off, off + len)` of `space` (shared offset or
    /// arena offset; reported at `addr` on) against the bytes' records and
    /// records it: a read finds RAW hazards, a write WAW and WAR hazards,
    /// with another agent's accesses of this interval (one report of each
    /// hazard per access).
    fn races(
        &mut self,
        space: Space,
        (off, addr, len): (u64, u64, usize),
        rw: Rw,
        strong: bool,
        who: &Who,
        out: &mut CtaFindings,
    ) {
        let mut now = self.stamp(who, rw);
        now.strong = strong;
        let mut found = [false; 3];
        let end = off + len as u64;
        let mut word = off / WORD;
        while word * WORD < end {
            // The words' records, a chunk at a time for global memory.
            let cells = match space {
                Space::Shared => {
                    let cells = self.cells.as_mut().unwrap();
                    &mut cells[word as usize..end.div_ceil(WORD) as usize]
                }
                _ => match self.global.chunk(word) {
                    Some((chunk, i)) => {
                        let n = (chunk.len() - i).min((end.div_ceil(WORD) - word) as usize);
                        &mut chunk[i..i + n]
                    }
                    None => return,
                },
            };
            let n = cells.len() as u64;
            let ctx = Ordering {
                epoch: self.epoch,
                clocks: &self.clocks,
            };
            for (i, cell) in cells.iter_mut().enumerate() {
                let base = (word + i as u64) * WORD;
                let lo = off.max(base) - base;
                let hi = end.min(base + WORD) - base;
                now.mask = ((1u32 << hi) - (1u32 << lo)) as u8;
                let mut hit = |hazard: Hazard, prev: Stamp, prev_rw: Rw| {
                    let k = hazard as usize;
                    if !found[k] {
                        found[k] = true;
                        let byte = base + (prev.mask & now.mask).trailing_zeros() as u64 - off;
                        out.add(Finding::Race {
                            hazard,
                            space,
                            offset: addr + byte,
                            size: len as u32,
                            first: access_of(&self.sites, &prev, prev_rw),
                            second: access_of(&self.sites, &now, rw),
                        });
                    }
                };
                let write = cell.write;
                if ctx.concurrent(&write, &now) {
                    let h = if rw == Rw::Read {
                        Hazard::ReadAfterWrite
                    } else {
                        Hazard::WriteAfterWrite
                    };
                    hit(h, write, Rw::Write);
                }
                if rw == Rw::Read {
                    let fresh = |s: &Stamp| s.agent == now.agent || s.epoch != now.epoch;
                    let reads = &mut cell.reads;
                    if fresh(&reads[0]) || reads[0].thread == NONE {
                        reads[0] = now;
                    } else {
                        reads[1] = now;
                    }
                } else {
                    if let Some(r) = cell.reads.iter().find(|r| ctx.concurrent(r, &now)) {
                        hit(Hazard::WriteAfterRead, *r, Rw::Read);
                    }
                    cell.write = now;
                }
            }
            word += n;
        }
    }

    /// An atomic on `[off, off + len)`: one that reads the old value (all
    /// but an exchange) is a read of bytes that must have been written
    /// (initcheck), and leaves bytes never written unwritten (what it
    /// stores derives from them); an exchange, or an atomic on written
    /// bytes, sets their bits. Racecheck does not record atomics (as
    /// compute-sanitizer: a CAS loop's plain first read of what atomics
    /// update is the idiom, not a bug).
    pub fn atomic(
        &mut self,
        off: usize,
        len: usize,
        reads: bool,
        who: &Who,
        out: &mut CtaFindings,
    ) {
        if let Some(w) = &mut self.written {
            if reads && !all_set(w, off, len) {
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
            } else {
                set_bits(w, off, len);
            }
        }
    }
}

/// The bits of `[off, off + len)` in `w` (bit `b % 64` of word `b / 64`),
/// a word at a time: the mask of `n` bits from bit `lo` of word `k`.
#[inline]
fn bit_runs(off: usize, len: usize) -> impl Iterator<Item = (usize, u64)> {
    let end = off + len;
    let mut b = off;
    std::iter::from_fn(move || {
        (b < end).then(|| {
            let (k, lo) = (b / 64, b % 64);
            let n = (end - b).min(64 - lo);
            b += n;
            (k, (u64::MAX >> (64 - n)) << lo)
        })
    })
}

/// Whether every bit of `[off, off + len)` is set in `w`.
#[inline]
fn all_set(w: &[u64], off: usize, len: usize) -> bool {
    bit_runs(off, len).all(|(k, m)| w[k] & m == m)
}

/// Sets the bits of `[off, off + len)` in `w`.
#[inline]
fn set_bits(w: &mut [u64], off: usize, len: usize) {
    for (k, m) in bit_runs(off, len) {
        w[k] |= m;
    }
}

/// What orders two accesses of one CTA: the barrier interval and the
/// mbarriers' happens-before clocks.
struct Ordering<'a> {
    epoch: u32,
    clocks: &'a Clocks,
}

impl Ordering<'_> {
    /// Whether a recorded access conflicts with `now` (another agent, this
    /// interval, not ordered by lockstep, a warp barrier or an mbarrier).
    #[inline]
    fn concurrent(&self, prev: &Stamp, now: &Stamp) -> bool {
        prev.thread != NONE
            && prev.mask & now.mask != 0
            && !(prev.strong && now.strong)
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
}

fn access_of(sites: &[Site], s: &Stamp, rw: Rw) -> Access {
    Access {
        rw,
        thread: s.thread,
        site: sites[s.site as usize],
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
            .filter_map(|f| match f {
                Finding::Uninitialized { addr, access, .. } => Some((*addr, access.thread)),
                _ => None,
            })
            .collect();
        assert_eq!(found, [(16, 2), (16, 3), (16, 4)]);
        // Atomics are not recorded for racecheck.
        assert!(hazards(&out).is_empty());
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

    #[test]
    fn bytes_of_one_word_race_only_where_they_overlap() {
        let mut s = SharedShadow::default();
        s.reset(64, false, true);
        let mut out = CtaFindings::default();
        // Threads of different warps writing neighbouring bytes: no race.
        s.write(5, 1, &who(0, 1, 0, 10), &mut out);
        s.write(6, 2, &who(40, 1, 0, 11), &mut out);
        assert!(out.is_empty(), "{out:?}");
        // A read of the word meets the last write of it, at its first byte.
        s.read(4, 4, &who(70, 1, 0, 12), &mut out);
        match out.list[..] {
            [Finding::Race {
                hazard: Hazard::ReadAfterWrite,
                offset: 6,
                size: 4,
                first,
                second,
                ..
            }] => assert_eq!((first.thread, second.thread), (40, 70)),
            _ => panic!("{out:?}"),
        }
        // An 8-byte write over two words meets the read in the first.
        let mut out = CtaFindings::default();
        s.write(0, 8, &who(100, 1, 0, 13), &mut out);
        assert_eq!(
            hazards(&out),
            [
                (Hazard::WriteAfterWrite, 40, 100),
                (Hazard::WriteAfterRead, 70, 100)
            ]
        );
    }
}
