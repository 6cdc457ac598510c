//! The memory side of the timing model, driven by the addresses a warp
//! actually used.
//!
//! - Global and local accesses are coalesced into 32-byte sectors and
//!   128-byte lines (`coalesce.rs`). The access takes a cycle per line of
//!   the SM's L1 pipeline (shared with shared memory), then:
//! - **L1** (per SM, sectored, `cache.rs`): a load looks each sector up; a
//!   valid sector hits (waiting for its data if it is still being fetched,
//!   which is how two misses to one sector merge); only missing sectors go
//!   on, each holding one of the SM's miss slots (MSHRs) until its data
//!   returns. Global stores write through; on the H100 (`l1_store_allocate`)
//!   they also allocate their line, unfetched, a sector valid once all its
//!   bytes are written (`memory/store.rs`). Local memory is write-back; `.cg` and
//!   `.cv` loads skip the L1.
//! - **The SM's port** to the L2 moves a sector's worth of bytes per request
//!   at the preset's bytes per cycle.
//! - **L2** (shared, sectored, write-back): lines interleaved over slices,
//!   each slice serving requests at its bytes per cycle (`server.rs`). A
//!   load miss fetches the sector from DRAM; a store allocates without
//!   fetching (a fully written sector becomes valid and dirty, a partly
//!   written one dirty, fetched only if read, and taking its slice
//!   `l2_partial_write_cycles` more); an evicted line writes its
//!   dirty sectors back to DRAM. Atomics are performed at the slice, one
//!   lane per `l2_atomic_cycles`.
//! - **DRAM** (`dram.rs`): sectors served at the nominal bandwidth less
//!   refresh and in-band ECC, writes drained in batches that each cost a
//!   bus turnaround.
//! - **Shared memory**: the bank-conflict degree (`banks.rs`) is the number
//!   of passes the banks need; each pass takes the SM's shared pipeline
//!   `shared_cycles_per_pass` cycles, so conflicts consume shared-memory
//!   bandwidth that other warps of the SM then wait for.
//!
//! A load's latency is that of its slowest sector, from the cycle it
//! issued: queueing at every shared resource included.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use super::arch::{Arch, Coalescing, L1Fill};
use super::banks::Banks;
use super::cache::{Cache, Evicted};
use super::coalesce::{address_range, half_warp_transactions, lanes_per_sector, unique_sectors};
use super::dram::Dram;
use super::program::CachePolicy;
use super::server::Server;

/// What one access costs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Cycles until the loaded value can be used.
    pub latency: u32,
    /// Extra cycles the issuing scheduler's load/store unit stays busy
    /// (replays for more lines, or bank-conflict passes).
    pub replays: u32,
}

/// Counters for the report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemStats {
    pub global_loads: u64,
    pub global_stores: u64,
    pub global_atomics: u64,
    pub local_accesses: u64,
    pub sectors: u64,
    pub lines: u64,
    pub l1_hits: u64,
    pub l1_misses: u64,
    pub l2_hits: u64,
    pub l2_misses: u64,
    /// Sectors read from DRAM (L2 misses and fills of partly written
    /// sectors).
    pub dram_sectors: u64,
    /// Sectors written back to DRAM (dirty sectors of evicted L2 lines).
    pub dram_writes: u64,
    /// Cycles loads waited for a free miss slot (MSHR).
    pub mshr_wait_cycles: u64,
    pub shared_accesses: u64,
    /// Sum and maximum of the bank-conflict degree over shared accesses.
    pub bank_conflict_degree_sum: u64,
    pub bank_conflict_degree_max: u32,
}

/// Where an access goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Load,
    Store,
    Atomic,
}

/// One SM's side of the memory system: its L1, miss slots, port to the L2
/// and the pipeline its L1 and shared memory share.
pub struct SmMemory {
    l1: Option<Cache>,
    /// Cycles the outstanding misses complete (at most `l1_mshrs`).
    mshrs: BinaryHeap<Reverse<u64>>,
    /// When the port to the L2 can take the next request.
    port_free: f64,
    /// When the L1/shared pipeline can take the next pass.
    pipe_free: u64,
    /// Per shared-memory word (and CTA slot) a compare-and-swap loop
    /// works on: when its last lane's success is in.
    cas_busy: HashMap<u64, u64>,
}

/// The memory system shared by all SMs: L2 slices and DRAM.
pub struct MemorySystem {
    l2: Option<Cache>,
    slices: Vec<Server>,
    dram: Dram,
    banks: Banks,
    pub stats: MemStats,
    fixed: Option<u32>,
    l1_latency: u32,
    l2_latency: u32,
    dram_latency: u32,
    shared_latency: u32,
    l1_global: bool,
    sector_shift: u32,
    line_shift: u32,
    sector_bytes: u32,
    /// Sectors an L2 read miss fetches (the aligned group around each).
    fetch_group: u32,
    /// Whether a partly written sector is read from DRAM before its
    /// write-back.
    partial_fill: bool,
    /// Cycles of a slice per sector request, and per atomic lane; more
    /// per partly written sector.
    slice_cost: f64,
    partial_cost: f64,
    atomic_cost: f64,
    /// Cycles of an SM's port per sector.
    port_cost: f64,
    mshrs: usize,
    /// Global stores allocate in the L1 (`l1_store_allocate`).
    store_allocate: bool,
    shared_pass: u32,
    coalescing: Coalescing,
    l1_fill_line: bool,
    /// The L1 is one storage with shared memory (`l1_shared_unified_kib`).
    unified_l1: bool,
    shared_half_warp: bool,
    shared_wide_quarter_warps: bool,
    /// Words (of `bank_bytes`) a bank delivers per pass, and the banks.
    bank_words_per_pass: u64,
    banks_n: u64,
    bank_bytes: u64,
    /// Scratch: a half-warp GPU's transactions, and remapped shared
    /// addresses.
    txns: Vec<(u64, u32)>,
    remapped: [u64; 32],
    /// No access earlier than this cycle will come (`advance`).
    floor: u64,
    /// Per global word a compare-and-swap loop works on: when its last
    /// lane's success is in.
    cas_busy: HashMap<u64, u64>,
    /// Scratch for a global access's distinct sectors (not cleared).
    sectors: [u64; 64],
    /// Scratch: bytes written per sector (one bit per byte), for stores.
    written: [u64; 64],
}

impl SmMemory {
    pub fn new(arch: &Arch) -> SmMemory {
        let m = &arch.memory;
        SmMemory {
            l1: (m.l1_kib > 0).then(|| Cache::new(m.l1_kib as u64 * 1024, m.l1_ways, m.line_bytes)),
            mshrs: BinaryHeap::new(),
            port_free: 0.0,
            pipe_free: 0,
            cas_busy: HashMap::new(),
        }
    }
}

impl MemorySystem {
    pub fn new(arch: &Arch) -> MemorySystem {
        let m = &arch.memory;
        let per = |bytes_per_cycle: f64, bytes: f64| {
            if bytes_per_cycle > 0.0 {
                bytes / bytes_per_cycle
            } else {
                0.0
            }
        };
        let sector = m.sector_bytes as f64;
        MemorySystem {
            // GPUs hash their L2 set indices (Accel-Sim's configurations
            // use a polynomial index from Kepler on), so that a matrix's
            // column does not fall into a few sets.
            l2: empty_l2(arch),
            slices: vec![Server::new(); m.l2_slices.max(1) as usize],
            dram: Dram::new(arch),
            banks: Banks::new(m.shared_banks, m.shared_bank_bytes),
            stats: MemStats::default(),
            fixed: m.fixed_latency,
            l1_latency: m.l1_latency,
            l2_latency: m.l2_latency,
            dram_latency: m.dram_latency,
            shared_latency: arch.latency.shared,
            l1_global: m.l1_caches_global,
            sector_shift: m.sector_bytes.trailing_zeros(),
            line_shift: m.line_bytes.trailing_zeros(),
            sector_bytes: m.sector_bytes,
            slice_cost: per(m.l2_slice_bytes_per_cycle, sector),
            partial_cost: m.l2_partial_write_cycles,
            atomic_cost: m.l2_atomic_cycles,
            fetch_group: m.l2_fetch_sectors.max(1),
            partial_fill: m.dram_partial_write_fill,
            port_cost: per(m.sm_l2_bytes_per_cycle, sector),
            mshrs: m.l1_mshrs as usize,
            store_allocate: m.l1_store_allocate,
            shared_pass: m.shared_cycles_per_pass.max(1),
            coalescing: m.coalescing,
            l1_fill_line: m.l1_fill == L1Fill::Line,
            unified_l1: m.l1_shared_unified_kib > 0,
            shared_half_warp: m.shared_half_warp,
            shared_wide_quarter_warps: m.shared_wide_quarter_warps,
            bank_words_per_pass: (m.shared_bank_width_bytes / m.shared_bank_bytes.max(1)).max(1)
                as u64,
            banks_n: m.shared_banks.max(1) as u64,
            bank_bytes: m.shared_bank_bytes.max(1) as u64,
            txns: Vec::new(),
            remapped: [0; 32],
            floor: 0,
            cas_busy: HashMap::new(),
            sectors: [0; 64],
            written: [0; 64],
        }
    }

    /// Starts from an L2 left by an earlier launch (`None`: cold), as a GPU's
    /// L2 keeps its lines, dirty ones too, from one kernel to the next.
    pub fn with_l2(mut self, l2: Option<Cache>) -> MemorySystem {
        if let (Some(old), Some(_)) = (l2, self.l2.as_ref()) {
            self.l2 = Some(old);
        }
        self
    }

    /// The L2 as this launch leaves it, its fetches arrived.
    pub fn take_l2(&mut self) -> Option<Cache> {
        let mut l2 = self.l2.take()?;
        l2.settle();
        Some(l2)
    }

    /// No access earlier than cycle `now` will come (every SM is past it):
    /// the servers forget what is behind it when next booked.
    pub fn advance(&mut self, now: u64) {
        self.floor = now;
        self.dram.advance(now);
    }

    /// Books `cost` cycles of L2 slice `slice` from `t`; returns the wait.
    #[inline]
    fn slice_book(&mut self, slice: usize, t: u64, cost: f64) -> u64 {
        let s = &mut self.slices[slice];
        s.advance(self.floor);
        s.book(t, cost)
    }

    /// A global access by the lanes of `mask` at `addrs`, `size` bytes
    /// each, issued at `now` by the SM whose memory side is `sm`; a load's
    /// `cache` operator says where it may be cached.
    #[allow(clippy::too_many_arguments)]
    pub fn global(
        &mut self,
        sm: &mut SmMemory,
        kind: Kind,
        cache: CachePolicy,
        mask: u32,
        addrs: &[u64; 32],
        size: u32,
        now: u64,
    ) -> Cost {
        self.access(sm, kind, false, cache, mask, addrs, size, now)
    }

    /// A local access (`addrs` interleaved as the hardware lays local
    /// memory out), cached in the L1.
    pub fn local(
        &mut self,
        sm: &mut SmMemory,
        kind: Kind,
        mask: u32,
        addrs: &[u64; 32],
        size: u32,
        now: u64,
    ) -> Cost {
        self.access(sm, kind, true, CachePolicy::Default, mask, addrs, size, now)
    }

    #[allow(clippy::too_many_arguments)]
    fn access(
        &mut self,
        sm: &mut SmMemory,
        kind: Kind,
        local: bool,
        cache: CachePolicy,
        mask: u32,
        addrs: &[u64; 32],
        size: u32,
        now: u64,
    ) -> Cost {
        match (kind, local) {
            (_, true) => self.stats.local_accesses += 1,
            (Kind::Load, _) => self.stats.global_loads += 1,
            (Kind::Store, _) => self.stats.global_stores += 1,
            (Kind::Atomic, _) => self.stats.global_atomics += 1,
        }
        if self.coalescing != Coalescing::Sectors {
            return self.global_half_warp(sm, kind, mask, addrs, size, now);
        }
        let (n, lines) = unique_sectors(
            self.sector_shift,
            self.line_shift,
            mask,
            addrs,
            size,
            &mut self.sectors,
        );
        self.stats.sectors += n as u64;
        self.stats.lines += lines as u64;
        // The L1 pipeline takes a cycle per line; where the L1 shares
        // shared memory's banks (CC 7.0 on), a load's data comes out of
        // them in a pass per bank-conflict degree (Nsight Compute counts
        // these as the L1 data-bank conflicts of global loads), so a
        // misaligned or odd-strided warp costs what its banks do.
        let passes = if kind == Kind::Load && self.unified_l1 {
            self.passes(mask, addrs, size)
        } else {
            lines
        };
        let replays = passes.saturating_sub(1);
        if let Some(fixed) = self.fixed {
            return Cost {
                latency: fixed,
                replays,
            };
        }
        let start = now.max(sm.pipe_free);
        sm.pipe_free = start + passes as u64;
        let mut done = start;
        match kind {
            Kind::Load => {
                let use_l1 = (local || self.l1_global) && cache == CachePolicy::Default;
                let mut i = 0;
                while i < n {
                    let (line, bits, _, next) = self.line_run(i, n, None);
                    done = done.max(self.load_line(sm, use_l1, line, bits, start));
                    i = next;
                }
            }
            Kind::Store => {
                self.bytes_written(mask, addrs, size, n);
                let mut i = 0;
                while i < n {
                    let (line, bits, full, next) = self.line_run(i, n, Some(()));
                    let at = (line, bits, full);
                    done = done.max(self.store_line(sm, local, at, i..next, start));
                    i = next;
                }
            }
            Kind::Atomic => {
                let lanes = lanes_per_sector(self.sector_shift, mask, addrs, &self.sectors[..n]);
                for (i, &lanes) in lanes.iter().enumerate().take(n) {
                    let sector = self.sectors[i];
                    done = done.max(self.atomic_sector(sm, sector, lanes, start));
                }
            }
        }
        Cost {
            latency: (done - now) as u32,
            replays,
        }
    }

    /// A global access on a GPU without data caches that coalesces per
    /// half-warp (CC 1.x): each transaction goes to DRAM, taking the
    /// L1/shared pipeline a cycle and the DRAM its bytes' time.
    fn global_half_warp(
        &mut self,
        sm: &mut SmMemory,
        kind: Kind,
        mask: u32,
        addrs: &[u64; 32],
        size: u32,
        now: u64,
    ) -> Cost {
        let mut txns = std::mem::take(&mut self.txns);
        txns.clear();
        let strict = self.coalescing == Coalescing::HalfWarpStrict;
        half_warp_transactions(mask, addrs, size, strict, &mut txns);
        let n = txns.len() as u32;
        self.stats.lines += n as u64;
        let replays = n.saturating_sub(1);
        if let Some(fixed) = self.fixed {
            self.txns = txns;
            return Cost {
                latency: fixed,
                replays,
            };
        }
        let start = now.max(sm.pipe_free);
        sm.pipe_free = start + n as u64;
        let mut done = start;
        for (k, &(addr, bytes)) in txns.iter().enumerate() {
            let sectors = (bytes as u64).div_ceil(self.sector_bytes as u64);
            self.stats.sectors += sectors;
            let t = start + k as u64;
            if kind != Kind::Store {
                self.stats.dram_sectors += sectors;
                let wait = self.dram.read_sectors(addr, t, sectors as f64);
                done = done.max(t + self.dram_latency as u64 + wait);
            }
            if kind != Kind::Load {
                self.stats.dram_writes += sectors;
                // A partition whose queue is full holds the SM's pipeline.
                let held = self.dram.write(addr, t, sectors);
                sm.pipe_free = sm.pipe_free.max(t + held + 1);
                done = done.max(t + held);
            }
        }
        self.txns = txns;
        Cost {
            latency: (done - now) as u32,
            replays,
        }
    }

    /// The index of `sector` within its line.
    #[inline]
    fn slot(&self, sector: u64) -> usize {
        (sector & ((1 << (self.line_shift - self.sector_shift)) - 1)) as usize
    }

    /// The run of the access's sectors from `i` (of `n`) that fall in one
    /// line (they are adjacent: sectors come in first-touch order): the
    /// line's address, the run's sectors as bits of the line, with
    /// `written`, those fully written, and where the next run starts.
    #[inline]
    fn line_run(&self, i: usize, n: usize, written: Option<()>) -> (u64, u8, u8, usize) {
        let per_line = self.line_shift - self.sector_shift;
        let line = self.sectors[i] >> per_line;
        let full_mask = u64::MAX >> (64 - self.sector_bytes);
        let (mut bits, mut full, mut j) = (0u8, 0u8, i);
        while j < n && self.sectors[j] >> per_line == line {
            let bit = 1u8 << self.slot(self.sectors[j]);
            bits |= bit;
            if written.is_some() && self.written[j] == full_mask {
                full |= bit;
            }
            j += 1;
        }
        (line << self.line_shift, bits, full, j)
    }

    /// A load of the sectors `bits` of the line at `addr`, reaching the L1
    /// pipeline at `t`; returns the cycle their data is in the SM.
    fn load_line(&mut self, sm: &mut SmMemory, use_l1: bool, addr: u64, bits: u8, t: u64) -> u64 {
        let mut done = t;
        let mut miss = bits;
        // What the L1 holds of the line (to fetch the rest, Fermi).
        let mut held = 0u8;
        let l1 = if use_l1 { sm.l1.as_mut() } else { None };
        let cached = l1.is_some();
        if let Some(l1) = l1 {
            if let Some(line) = l1.find(addr) {
                held = line.valid;
                let hit = line.valid & bits;
                if hit != 0 {
                    self.stats.l1_hits += hit.count_ones() as u64;
                    done = (t + self.l1_latency as u64).max(line.ready(hit));
                }
                miss = bits & !hit;
            }
            self.stats.l1_misses += miss.count_ones() as u64;
        }
        if miss == 0 {
            return done;
        }
        // The whole line comes in on Fermi (its missing sectors).
        let all = ((1u32 << (1 << (self.line_shift - self.sector_shift))) - 1) as u8;
        let fetch = if cached && self.l1_fill_line {
            all & !held
        } else {
            miss
        };
        // A miss slot per sector fetched, or per line where the L1 fills
        // whole lines (its MSHRs track lines).
        let slots = if cached && self.l1_fill_line {
            1
        } else {
            fetch.count_ones()
        };
        let mut t = t;
        for _ in 0..slots {
            t = self.miss_slot(sm, t);
        }
        let ready = self.l2_read(sm, addr, fetch, t);
        if cached {
            if let Some(l1) = sm.l1.as_mut() {
                let (line, evicted) = l1.get(addr);
                line.fill(fetch, ready, t);
                self.l1_evicted(&mut sm.port_free, evicted, t);
            }
        }
        if self.mshrs > 0 {
            for _ in 0..slots {
                sm.mshrs.push(Reverse(ready));
            }
        }
        done.max(ready)
    }

    /// Waits (from `t`) for a free miss slot of the SM; returns when the
    /// miss can go.
    fn miss_slot(&mut self, sm: &mut SmMemory, t: u64) -> u64 {
        if self.mshrs == 0 {
            return t;
        }
        while sm.mshrs.peek().is_some_and(|&Reverse(r)| r <= t) {
            sm.mshrs.pop();
        }
        if sm.mshrs.len() < self.mshrs {
            return t;
        }
        let Reverse(free) = sm.mshrs.pop().unwrap();
        self.stats.mshr_wait_cycles += free - t;
        free
    }

    /// Books `sectors` sectors' worth of the SM's port from `t`; returns
    /// when the request leaves.
    #[inline]
    fn port(&self, port_free: &mut f64, t: u64, sectors: u32) -> u64 {
        let start = port_free.max(t as f64);
        *port_free = start + self.port_cost * sectors as f64;
        start as u64
    }

    /// The slice serving `sector`'s line: lines interleaved, with higher
    /// address bits folded in so that power-of-two strides spread.
    #[inline]
    fn slice_of(&self, sector: u64) -> usize {
        let line = sector >> (self.line_shift - self.sector_shift);
        let n = self.slices.len() as u64;
        ((line ^ (line >> 7) ^ (line >> 14)) % n) as usize
    }

    /// The sectors `bits` of the line at `addr` read by an SM, leaving it
    /// at `t`; returns when their data is back in the SM.
    fn l2_read(&mut self, sm: &mut SmMemory, addr: u64, bits: u8, t: u64) -> u64 {
        let k = bits.count_ones();
        let t = self.port(&mut sm.port_free, t, k);
        let slice = self.slice_of(addr >> self.sector_shift);
        let t = t + self.slice_book(slice, t, self.slice_cost * k as f64);
        let Some(l2) = self.l2.as_mut() else {
            self.stats.dram_sectors += k as u64;
            return t + self.dram_latency as u64 + self.dram.read_sectors(addr, t, k as f64);
        };
        let (line, evicted) = l2.get(addr);
        let hit = line.valid & bits;
        let miss = bits & !hit;
        let mut ready = 0;
        if hit != 0 {
            self.stats.l2_hits += hit.count_ones() as u64;
            ready = (t + self.l2_latency as u64).max(line.ready(hit));
        }
        if miss != 0 {
            self.stats.l2_misses += miss.count_ones() as u64;
            // The aligned group of `fetch_group` sectors around each miss
            // comes from DRAM (what the line does not hold already).
            let fetched = cas::group_of(miss, self.fetch_group) & !(line.valid & !miss);
            let m = fetched.count_ones();
            self.stats.dram_sectors += m as u64;
            let r = t + self.dram_latency as u64 + self.dram.read_sectors(addr, t, m as f64);
            line.fill(fetched, r, t);
            ready = ready.max(r);
        }
        // Its data does not wait for the write-back of the line it
        // replaces (the L2 buffers evictions); its DRAM read has queued
        // behind the channel's backlog already.
        self.write_back(evicted, t);
        ready
    }

    /// An atomic on `lanes` lanes of one sector, reaching the L1 pipeline
    /// at `t`: performed at the L2 slice (the line fetched on a miss);
    /// returns when the old values are back in the SM.
    fn atomic_sector(&mut self, sm: &mut SmMemory, sector: u64, lanes: u32, t: u64) -> u64 {
        let t = self.port(&mut sm.port_free, t, 1);
        let slice = self.slice_of(sector);
        let cost = self.atomic_cost * lanes as f64;
        let t = t + self.slice_book(slice, t, cost);
        let addr = sector << self.sector_shift;
        let bit = 1u8 << self.slot(sector);
        let Some(l2) = self.l2.as_mut() else {
            self.stats.dram_sectors += 1;
            self.stats.dram_writes += 1;
            let ready = t + self.dram_latency as u64 + self.dram.read(addr, t);
            let held = self.dram.write(addr, t, 1);
            return ready.max(t + held);
        };
        let (line, evicted) = l2.get(addr);
        let ready = if line.valid & bit != 0 {
            self.stats.l2_hits += 1;
            (t + self.l2_latency as u64).max(line.ready(bit))
        } else {
            self.stats.l2_misses += 1;
            self.stats.dram_sectors += 1;
            let r = t + self.dram_latency as u64 + self.dram.read(addr, t);
            line.fill(bit, r, t);
            r
        };
        line.dirty |= bit;
        let held = self.write_back(evicted, t);
        ready.max(t + held) + (cost as u64).saturating_sub(1)
    }

    /// The passes the banks need for the lanes of `mask` (0 for none). Where
    /// a bank delivers `k` words per pass (Kepler: words i and i + 32 of a
    /// row of 64), words are renumbered so that those a pass delivers
    /// together are one: word w becomes (w / (banks k)) banks + w % banks.
    fn passes(&mut self, mask: u32, addrs: &[u64; 32], size: u32) -> u32 {
        if mask == 0 {
            return 0;
        }
        let k = self.bank_words_per_pass;
        if k == 1 {
            return self.banks.degree(mask, addrs, size);
        }
        let (banks, bytes) = (self.banks_n, self.bank_bytes);
        let mut m = mask;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let a = addrs[l];
            let w = a / bytes;
            self.remapped[l] = ((w / (banks * k)) * banks + w % banks) * bytes + a % bytes;
        }
        let remapped = self.remapped;
        self.banks.degree(mask, &remapped, size)
    }

    /// A shared-memory access: its passes go through the SM's pipeline one
    /// after another; the issuing scheduler's unit replays for the extra
    /// passes.
    pub fn shared(
        &mut self,
        sm: &mut SmMemory,
        mask: u32,
        addrs: &[u64; 32],
        size: u32,
        now: u64,
    ) -> Cost {
        self.stats.shared_accesses += 1;
        let degree = if self.shared_half_warp {
            // Each half-warp is a request of its own (CC 1.x).
            self.passes(mask & 0xffff, addrs, size) + self.passes(mask & 0xffff_0000, addrs, size)
        } else if self.shared_wide_quarter_warps && size == 16 && !one_address(mask, addrs) {
            // CC 2.x's 128-bit accesses: a quarter-warp at a time, each a
            // pass more than its conflicts (the Programming Guide's rule;
            // taken here not to apply to one word all lanes read, which
            // involves four banks once).
            (0..4)
                .map(|q| {
                    let m = mask & (0xff << (8 * q));
                    if m == 0 {
                        0
                    } else {
                        self.passes(m, addrs, size) + 1
                    }
                })
                .sum()
        } else {
            self.passes(mask, addrs, size)
        }
        .max(1);
        self.stats.bank_conflict_degree_sum += degree as u64;
        self.stats.bank_conflict_degree_max = self.stats.bank_conflict_degree_max.max(degree);
        let pass = self.shared_pass as u64;
        let start = now.max(sm.pipe_free);
        sm.pipe_free = start + degree as u64 * pass;
        let last_pass = start + (degree as u64 - 1) * pass;
        Cost {
            latency: (last_pass - now) as u32 + self.shared_latency,
            replays: (degree - 1) * self.shared_pass,
        }
    }
}

/// A cold L2 of `arch` (none where it has no L2).
pub fn empty_l2(arch: &Arch) -> Option<Cache> {
    let m = &arch.memory;
    (m.l2_kib > 0).then(|| Cache::new(m.l2_kib as u64 * 1024, m.l2_ways, m.line_bytes).hashed())
}

/// `l2` (a cold one of `arch` when `None`) with the byte ranges in
/// `ranges` present, clean and whole, the last the most recently used:
/// data the host wrote, left in the L2 by the copy engines
/// (`Cache::preload`). Nothing where `arch` has no L2.
pub fn preload_l2(arch: &Arch, l2: &mut Option<Cache>, ranges: &[(u64, u64)]) {
    if l2.is_none() {
        *l2 = empty_l2(arch);
    }
    let m = &arch.memory;
    let sectors = (m.line_bytes / m.sector_bytes.max(1)).clamp(1, 8);
    let all = ((1u16 << sectors) - 1) as u8;
    if let Some(cache) = l2.as_mut() {
        for &(addr, len) in ranges {
            cache.preload(addr, len, all);
        }
    }
}

/// Whether every lane of `mask` accesses the same address.
fn one_address(mask: u32, addrs: &[u64; 32]) -> bool {
    let (lo, hi) = address_range(mask, addrs);
    lo == hi
}

mod cas;
mod store;

#[cfg(test)]
mod tests;
