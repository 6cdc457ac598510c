//! The memory side of the timing model, driven by the addresses a warp
//! actually used: global and local accesses coalesced into 32-byte sectors
//! and 128-byte lines, set-associative LRU caches (`cache.rs`: an L1 per
//! SM, one L2), DRAM latency plus a bandwidth queue (`dram.rs`), and
//! shared-memory bank conflicts.

use super::arch::Arch;
pub use super::cache::Cache;
use super::dram::DramQueue;

/// What one access costs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Cycles until the loaded value can be used.
    pub latency: u32,
    /// Extra cycles the load/store unit stays busy (replays for more lines,
    /// or bank-conflict passes).
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
    pub dram_sectors: u64,
    pub shared_accesses: u64,
    /// Sum and maximum of the bank-conflict degree over shared accesses.
    pub bank_conflict_degree_sum: u64,
    pub bank_conflict_degree_max: u32,
}

/// Whether every lane of `mask` (not empty) uses the same address.
#[inline]
fn one_address(mask: u32, addrs: &[u64; 32]) -> bool {
    let first = addrs[mask.trailing_zeros() as usize];
    // All 32 entries alike (inactive lanes keep an earlier access's
    // address, often the same one): a branch-free test settles it.
    if addrs.iter().fold(0, |d, &a| d | (a ^ first)) == 0 {
        return true;
    }
    if mask == u32::MAX {
        // Every lane active: the test above was the whole answer.
        return false;
    }
    let mut rest = mask & (mask - 1);
    while rest != 0 && addrs[rest.trailing_zeros() as usize] == first {
        rest &= rest - 1;
    }
    rest == 0
}

/// Calls `visit` with every sector (address `>> shift`) the lanes of
/// `mask` touch (`span + 1` bytes each), lanes in order and a lane's
/// sectors ascending; a lane whose sectors are the lane before's adds
/// nothing and is skipped. Stops, returning false, where `visit` does.
#[inline(always)]
fn each_sector(
    mask: u32,
    addrs: &[u64; 32],
    span: u64,
    shift: u32,
    mut visit: impl FnMut(u64) -> bool,
) -> bool {
    let mut m = mask;
    let mut prev = (u64::MAX, u64::MAX);
    while m != 0 {
        let a = addrs[m.trailing_zeros() as usize];
        m &= m - 1;
        let (first, last) = (a >> shift, a.wrapping_add(span) >> shift);
        if (first, last) == prev {
            continue;
        }
        prev = (first, last);
        let mut s = first;
        loop {
            if !visit(s) {
                return false;
            }
            if s >= last {
                break;
            }
            s += 1;
        }
    }
    true
}

/// Calls `visit` with the address of every lane of `mask`, in lane order.
#[inline(always)]
fn each_lane(mask: u32, addrs: &[u64; 32], mut visit: impl FnMut(u64)) {
    if mask == u32::MAX {
        // Every lane: no walk over the mask's bits.
        addrs.iter().for_each(|&a| visit(a));
    } else {
        let mut m = mask;
        while m != 0 {
            visit(addrs[m.trailing_zeros() as usize]);
            m &= m - 1;
        }
    }
}

/// The lowest and highest address of the lanes of `mask`.
#[inline(always)]
fn address_range(mask: u32, addrs: &[u64; 32]) -> (u64, u64) {
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    each_lane(mask, addrs, |a| {
        lo = lo.min(a);
        hi = hi.max(a);
    });
    (lo, hi)
}

/// The bank-conflict degree of an access of one word per lane (no wider
/// than a bank and aligned, as execution checked), with `1 << bank_bits`
/// banks (at most 64), when its words lie within 64 rows of banks (a row:
/// one word in every bank): per bank, a bit set of the rows it must
/// deliver, and their count. `None` for a wider spread. `(lo, hi)`: the
/// lanes' `address_range`.
#[inline]
fn rows_degree(
    mask: u32,
    addrs: &[u64; 32],
    shift: u32,
    bank_bits: u32,
    (lo, hi): (u64, u64),
) -> Option<u32> {
    let row_shift = shift + bank_bits;
    let first_row = lo >> row_shift;
    if (hi >> row_shift) - first_row >= 64 {
        return None;
    }
    let bank_mask = (1u64 << bank_bits) - 1;
    let mut rows = [0u64; 64];
    let mut count = [0u8; 64];
    let mut degree = 1;
    each_lane(mask, addrs, |a| {
        let w = a >> shift;
        let bank = (w & bank_mask) as usize & 63;
        let bit = 1u64 << ((w >> bank_bits) - first_row);
        if rows[bank] & bit == 0 {
            rows[bank] |= bit;
            count[bank] += 1;
            degree = degree.max(count[bank]);
        }
    });
    Some(degree as u32)
}

/// The memory system shared by all SMs: L2 and DRAM.
pub struct MemorySystem {
    l2: Cache,
    dram: DramQueue,
    pub stats: MemStats,
    fixed: Option<u32>,
    l1_latency: u32,
    l2_latency: u32,
    dram_latency: u32,
    shared_latency: u32,
    l1_global: bool,
    sector_shift: u32,
    line_shift: u32,
    banks: u32,
    bank_bytes: u32,
    /// log2 of `bank_bytes` when it is a power of two (every preset's is).
    bank_shift: Option<u32>,
    /// Scratch for bank conflicts: one bit per word of shared memory
    /// (all clear between accesses).
    shared_words: Vec<u64>,
    /// Scratch for conflict-free accesses: the word each bank delivers.
    word_in_bank: [u64; 64],
    /// Scratch for a global access's distinct sectors (not cleared).
    sectors: [u64; 64],
}

/// Where an access goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Load,
    Store,
    Atomic,
}

impl MemorySystem {
    pub fn new(arch: &Arch) -> MemorySystem {
        let m = &arch.memory;
        let bytes_per_cycle = m.dram_bandwidth_gbs * 1e3 / arch.chip.clock_mhz;
        MemorySystem {
            l2: Cache::new(m.l2_kib as u64 * 1024, m.l2_ways, m.sector_bytes),
            dram: DramQueue::new(m.sector_bytes as f64 / bytes_per_cycle),
            stats: MemStats::default(),
            fixed: m.fixed_latency,
            l1_latency: m.l1_latency,
            l2_latency: m.l2_latency,
            dram_latency: m.dram_latency,
            shared_latency: arch.latency.shared,
            l1_global: m.l1_caches_global,
            sector_shift: m.sector_bytes.trailing_zeros(),
            line_shift: m.line_bytes.trailing_zeros(),
            banks: m.shared_banks,
            bank_bytes: m.shared_bank_bytes,
            bank_shift: m
                .shared_bank_bytes
                .is_power_of_two()
                .then_some(m.shared_bank_bytes.trailing_zeros()),
            // 256 KiB of words, more than any SM's shared memory.
            shared_words: vec![0; (256 << 10) / 4 / 64],
            word_in_bank: [0; 64],
            sectors: [0; 64],
        }
    }

    /// No access earlier than cycle `now` will come (every SM is past it).
    pub fn advance(&mut self, now: u64) {
        self.dram.advance(now);
    }

    /// An L1 for one SM.
    pub fn l1(arch: &Arch) -> Cache {
        let m = &arch.memory;
        Cache::new(m.l1_kib.max(1) as u64 * 1024, m.l1_ways, m.line_bytes)
    }

    /// A global (or local, `cached_in_l1`) access by the lanes of `mask` at
    /// `addrs`, `size` bytes each, issued at `now`.
    #[allow(clippy::too_many_arguments)]
    pub fn global(
        &mut self,
        l1: &mut Cache,
        kind: Kind,
        local: bool,
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
        let (n, lines) = Self::unique_sectors(
            self.sector_shift,
            self.line_shift,
            mask,
            addrs,
            size,
            &mut self.sectors,
        );
        self.stats.sectors += n as u64;
        self.stats.lines += lines as u64;
        let replays = lines.saturating_sub(1);
        if let Some(fixed) = self.fixed {
            return Cost {
                latency: fixed,
                replays,
            };
        }
        let use_l1 = kind == Kind::Load && (local || self.l1_global);
        let mut latency = 0u32;
        for i in 0..n {
            let addr = self.sectors[i] << self.sector_shift;
            if use_l1 {
                if l1.access(addr) {
                    self.stats.l1_hits += 1;
                    latency = latency.max(self.l1_latency);
                    continue;
                }
                self.stats.l1_misses += 1;
            }
            let lat = if self.l2.access(addr) {
                self.stats.l2_hits += 1;
                self.l2_latency
            } else {
                self.stats.l2_misses += 1;
                self.stats.dram_sectors += 1;
                self.dram_latency + self.dram.book(now) as u32
            };
            latency = latency.max(lat);
        }
        Cost { latency, replays }
    }

    /// The distinct sectors the lanes of `mask` touch, in order of first
    /// touch (lane order), into `out`; returns their number and the number
    /// of distinct lines they fall in (`sector_shift`, `line_shift`: log2
    /// of the sector and line sizes).
    fn unique_sectors(
        sector_shift: u32,
        line_shift: u32,
        mask: u32,
        addrs: &[u64; 32],
        size: u32,
        out: &mut [u64; 64],
    ) -> (usize, u32) {
        let shift = sector_shift;
        let span = size.max(1) as u64 - 1;
        if mask == 0 {
            return (0, 0);
        }
        // A contiguous run of lanes at consecutive addresses (a coalesced
        // access): every byte from the first to the last is touched, so the
        // sectors are one ascending run, first touched in lane order.
        let first_lane = mask.trailing_zeros() as u64;
        let last_lane = 31 - mask.leading_zeros() as u64;
        let step = span + 1;
        let lo = addrs[first_lane as usize];
        let hi = addrs[last_lane as usize].wrapping_add(span);
        let run = (mask >> first_lane) as u64;
        // Cheap tests first: the lanes form a run, and the ends are as far
        // apart as consecutive addresses would be.
        if run & (run + 1) == 0
            && hi.wrapping_sub(lo) == (last_lane - first_lane) * step + span
            && (hi >> shift).wrapping_sub(lo >> shift) < 64
        {
            let base = lo.wrapping_sub(first_lane * step);
            let off_stride = (first_lane..=last_lane).fold(0u64, |d, l| {
                d | (addrs[l as usize] ^ base.wrapping_add(l * step))
            });
            if off_stride == 0 {
                let (first, last) = (lo >> shift, hi >> shift);
                let mut n = 0;
                for s in first..=last {
                    out[n] = s;
                    n += 1;
                }
                let per_line = line_shift - shift;
                let lines = ((last >> per_line) - (first >> per_line) + 1) as u32;
                return (n, lines);
            }
        }
        // Every lane at one address (a broadcast load, an atomic on one
        // counter): its one or two sectors.
        if one_address(mask, addrs) {
            let (first, last) = (lo >> shift, lo.wrapping_add(span) >> shift);
            if last.wrapping_sub(first) < 2 {
                out[0] = first;
                out[1] = last;
                let n = if first == last { 1 } else { 2 };
                let per_line = line_shift - shift;
                let lines = if n == 2 && first >> per_line != last >> per_line {
                    2
                } else {
                    1
                };
                return (n, lines);
            }
        }
        // Most warps touch a few neighbouring sectors: mark them in a bit
        // set over the 64 sectors around the first lane's.
        let base = (addrs[mask.trailing_zeros() as usize] >> shift).wrapping_sub(32);
        let mut seen = 0u64;
        let mut n = 0;
        let in_window = each_sector(mask, addrs, span, shift, |s| {
            let d = s.wrapping_sub(base);
            if d >= 64 {
                return false;
            }
            if seen & (1 << d) == 0 {
                seen |= 1 << d;
                out[n] = s;
                n += 1;
            }
            true
        });
        if in_window {
            // Sectors in address order: a new line wherever the line changes.
            let per_line = line_shift - shift;
            let (mut lines, mut prev) = (0, u64::MAX);
            while seen != 0 {
                let line = base.wrapping_add(seen.trailing_zeros() as u64) >> per_line;
                seen &= seen - 1;
                if line != prev {
                    lines += 1;
                    prev = line;
                }
            }
            return (n, lines);
        }
        // Lanes at ascending addresses (a row per lane, a strided access):
        // in first-touch order the sectors ascend, so a sector is new
        // unless it is the last one taken, and the lines are counted where
        // they change.
        let per_line = line_shift - shift;
        let (mut n, mut lines) = (0, 0u32);
        let ascending = each_sector(mask, addrs, span, shift, |s| {
            if n > 0 && s <= out[n - 1] {
                return s == out[n - 1];
            }
            if n < out.len() {
                if n == 0 || s >> per_line != out[n - 1] >> per_line {
                    lines += 1;
                }
                out[n] = s;
                n += 1;
            }
            true
        });
        if ascending {
            return (n, lines);
        }
        // Scattered lanes: search what was seen.
        let mut n = 0;
        each_sector(mask, addrs, span, shift, |s| {
            if n < out.len() && !out[..n].contains(&s) {
                out[n] = s;
                n += 1;
            }
            true
        });
        let sectors = &out[..n];
        let mut lines = 0u32;
        for (i, s) in sectors.iter().enumerate() {
            if !sectors[..i].iter().any(|t| t >> per_line == s >> per_line) {
                lines += 1;
            }
        }
        (n, lines)
    }

    /// Whether the lanes of `mask`, each reading one word (`addr >> shift`,
    /// an access no wider than a bank and aligned, as execution checked),
    /// need at most one word from each bank: degree 1. Most accesses are
    /// conflict-free, and this decides them without counting words.
    /// `word_in_bank` is scratch: an entry counts only once its bank's bit
    /// is set in this call, so it needs no clearing.
    #[inline]
    fn one_word_per_bank(
        mask: u32,
        addrs: &[u64; 32],
        shift: u32,
        bank_mask: u64,
        word_in_bank: &mut [u64; 64],
    ) -> bool {
        let mut held = 0u64;
        let mut m = mask;
        while m != 0 {
            let w = addrs[m.trailing_zeros() as usize] >> shift;
            m &= m - 1;
            let bank = (w & bank_mask) as usize & 63;
            if held & (1 << bank) == 0 {
                held |= 1 << bank;
                word_in_bank[bank] = w;
            } else if word_in_bank[bank] != w {
                return false;
            }
        }
        true
    }

    /// The degree of an access (at most four words per lane) whose words
    /// are easy to see: all within a window of as many consecutive words
    /// as there are banks (distinct words then lie in distinct banks:
    /// degree 1), or lanes in a run at consecutive addresses (their words
    /// are one run of W words: degree ceil(W / banks), when aligned).
    /// `None` otherwise.
    #[inline]
    fn window_degree(
        &self,
        mask: u32,
        addrs: &[u64; 32],
        size: u32,
        shift: u32,
        (lo, hi): (u64, u64),
    ) -> Option<u32> {
        let span = size.max(1) as u64 - 1;
        let banks = self.banks as u64;
        let (first, last) = (lo >> shift, hi.checked_add(span)? >> shift);
        if last - first < banks {
            return Some(1);
        }
        // A run of lanes, each `size` bytes after the one before.
        let first_lane = mask.trailing_zeros() as u64;
        let last_lane = 31 - mask.leading_zeros() as u64;
        let run = (mask >> first_lane) as u64;
        let step = span + 1;
        let base = addrs[first_lane as usize];
        if run & (run + 1) != 0 || hi - lo != (last_lane - first_lane) * step || base % step != 0 {
            return None;
        }
        let strided =
            (first_lane..=last_lane).all(|l| addrs[l as usize] == base + (l - first_lane) * step);
        strided.then(|| (last - first + 1).div_ceil(banks) as u32)
    }

    /// A shared-memory access: the bank-conflict degree is the largest
    /// number of distinct words any bank must deliver (lanes reading the
    /// same word share it).
    pub fn shared(&mut self, mask: u32, addrs: &[u64; 32], size: u32) -> Cost {
        self.stats.shared_accesses += 1;
        let bank_bytes = self.bank_bytes as u64;
        if mask != 0 {
            // The lanes' lowest and highest address, for all the tests.
            let range = address_range(mask, addrs);
            // Every lane at one address (a broadcast): its words lie in
            // distinct banks, one pass.
            if range.0 == range.1 && size as u64 <= self.banks as u64 * bank_bytes {
                return self.bank_passes(1);
            }
            if let Some(shift) = self.bank_shift.filter(|_| size as u64 <= 4 * bank_bytes) {
                if let Some(degree) = self.window_degree(mask, addrs, size, shift, range) {
                    return self.bank_passes(degree);
                }
                if size as u64 <= bank_bytes && self.banks.is_power_of_two() && self.banks <= 64 {
                    let bank_mask = self.banks as u64 - 1;
                    if Self::one_word_per_bank(
                        mask,
                        addrs,
                        shift,
                        bank_mask,
                        &mut self.word_in_bank,
                    ) {
                        return self.bank_passes(1);
                    }
                    let bank_bits = self.banks.trailing_zeros();
                    if let Some(degree) = rows_degree(mask, addrs, shift, bank_bits, range) {
                        return self.bank_passes(degree);
                    }
                }
            }
        }
        let span = size.max(1) as u64 - 1;
        let mut per_bank = [0u32; 64];
        let banks = self.banks.clamp(1, 64) as u64;
        // Distinct words (at most four per lane): each counts once for its
        // bank, marked in a bit set over the words of shared memory that
        // is cleared again afterwards.
        let seen = &mut self.shared_words;
        let cap = seen.len() as u64 * 64;
        let bank_of = |w: u64| {
            if banks.is_power_of_two() {
                (w & (banks - 1)) as usize
            } else {
                (w % banks) as usize
            }
        };
        let shift = self.bank_shift;
        let word_of = |a: u64| match shift {
            Some(s) => a >> s,
            None => a / bank_bytes,
        };
        let mut touched = [0u16; 128];
        let mut n_touched = 0;
        let mut m = mask;
        let mut beyond = false;
        while m != 0 {
            let a = addrs[m.trailing_zeros() as usize];
            m &= m - 1;
            let first = word_of(a);
            let words = (word_of(a + span) - first).min(3) + 1;
            for w in first..first + words {
                if w >= cap {
                    beyond = true;
                    continue;
                }
                let (i, bit) = ((w / 64) as usize, 1u64 << (w % 64));
                let bits = seen[i];
                if bits & bit == 0 {
                    if bits == 0 {
                        touched[n_touched] = i as u16;
                        n_touched += 1;
                    }
                    seen[i] = bits | bit;
                    per_bank[bank_of(w)] += 1;
                }
            }
        }
        for &i in &touched[..n_touched] {
            seen[i as usize] = 0;
        }
        if beyond {
            // Offsets past any real shared memory: count what was seen.
            per_bank = [0; 64];
            let mut words: [u64; 128] = [0; 128];
            let mut n = 0;
            let mut m = mask;
            while m != 0 {
                let lane = m.trailing_zeros() as usize;
                m &= m - 1;
                let first = addrs[lane] / bank_bytes;
                let last = (addrs[lane] + span) / bank_bytes;
                for w in first..=last.min(first + 3) {
                    if !words[..n].contains(&w) && n < words.len() {
                        words[n] = w;
                        n += 1;
                    }
                }
            }
            for w in &words[..n] {
                per_bank[(w % banks) as usize] += 1;
            }
        }
        let degree = per_bank.iter().copied().max().unwrap_or(0).max(1);
        self.bank_passes(degree)
    }

    /// The cost of a shared access whose banks deliver in `degree` passes
    /// (counted in the statistics).
    #[inline]
    fn bank_passes(&mut self, degree: u32) -> Cost {
        self.stats.bank_conflict_degree_sum += degree as u64;
        self.stats.bank_conflict_degree_max = self.stats.bank_conflict_degree_max.max(degree);
        Cost {
            latency: self.shared_latency + degree - 1,
            replays: degree - 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::xorshift;

    fn arch() -> Arch {
        Arch::builtin("sm_80").unwrap()
    }

    #[test]
    fn coalesced_and_strided_accesses() {
        let a = arch();
        let mut mem = MemorySystem::new(&a);
        let mut l1 = MemorySystem::l1(&a);
        let addrs: [u64; 32] = std::array::from_fn(|l| 0x1000 + 4 * l as u64);
        let c = mem.global(&mut l1, Kind::Load, false, u32::MAX, &addrs, 4, 0);
        assert_eq!((mem.stats.sectors, mem.stats.lines), (4, 1));
        assert_eq!(c.replays, 0);
        assert!(
            c.latency >= a.memory.dram_latency,
            "a cold miss goes to DRAM"
        );
        let c = mem.global(&mut l1, Kind::Load, false, u32::MAX, &addrs, 4, 1000);
        assert_eq!(c.latency, a.memory.l1_latency, "then it hits in L1");
        let strided: [u64; 32] = std::array::from_fn(|l| 0x10_0000 + 128 * l as u64);
        let c = mem.global(&mut l1, Kind::Load, false, u32::MAX, &strided, 4, 2000);
        assert_eq!(c.replays, 31, "32 lines");
    }

    #[test]
    fn bank_conflicts() {
        let mut mem = MemorySystem::new(&arch());
        let same: [u64; 32] = [64; 32];
        assert_eq!(mem.shared(u32::MAX, &same, 4).replays, 0, "broadcast");
        let linear: [u64; 32] = std::array::from_fn(|l| 4 * l as u64);
        assert_eq!(mem.shared(u32::MAX, &linear, 4).replays, 0);
        let stride2: [u64; 32] = std::array::from_fn(|l| 8 * l as u64);
        assert_eq!(mem.shared(u32::MAX, &stride2, 4).replays, 1, "2-way");
        let column: [u64; 32] = std::array::from_fn(|l| 128 * l as u64);
        assert_eq!(mem.shared(u32::MAX, &column, 4).replays, 31, "32-way");
        assert_eq!(mem.stats.bank_conflict_degree_max, 32);
    }

    /// Bank-conflict degrees against the definition (the most distinct
    /// words one of the 32 four-byte banks delivers), over random accesses
    /// one after another on one memory system (its scratch state carries
    /// over between them).
    #[test]
    fn bank_degree_matches_its_definition() {
        let mut mem = MemorySystem::new(&arch());
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
        for case in 0..6000u64 {
            let size = [4u64, 8, 16, 1][(case % 4) as usize];
            let mask = match case % 3 {
                0 => u32::MAX,
                1 => next() as u32,
                // A run of lanes.
                _ => {
                    let start = next() % 32;
                    let len = 1 + next() % (32 - start);
                    (((1u64 << len) - 1) << start) as u32
                }
            };
            // Few distinct words (conflicts and broadcasts), strides, or
            // anything.
            let spread = [8u64, 64, 4096][((case / 4) % 3) as usize];
            let base = (next() % 4096) * size;
            // Strides from lane to lane, both ways, in accesses (naturally
            // aligned, as the executor admits them), and a byte's place
            // in its word.
            let stride = [1i64, -1, 2, 3, -4, 8, 16, 32, -32, 33, 64, 0][(case / 60) as usize % 12];
            let byte = if size == 1 { next() % 4 } else { 0 };
            let addrs: [u64; 32] = std::array::from_fn(|l| match (case / 12) % 5 {
                4 => (4096 + size.max(4) as i64 * stride * l as i64) as u64 + byte,
                0 => (next() % spread) * size,
                1 => (l as u64 * size * (1 + case % 5)) % 8192,
                // Within 16 words, or 33 (a window one word too wide).
                2 => 1024 + (next() % [16, 33][(case / 48) as usize % 2]) * 4,
                // A run of lanes from anywhere.
                _ => base + l as u64 * size,
            });
            let mut words: Vec<u64> = Vec::new();
            for (l, &a) in addrs.iter().enumerate() {
                if mask & (1 << l) != 0 {
                    for w in a / 4..=(a + size - 1) / 4 {
                        if !words.contains(&w) {
                            words.push(w);
                        }
                    }
                }
            }
            let degree = (0..32)
                .map(|b| words.iter().filter(|&&w| w % 32 == b).count() as u32)
                .max()
                .unwrap()
                .max(1);
            let cost = mem.shared(mask, &addrs, size as u32);
            assert_eq!(cost.replays + 1, degree, "case {case}");
        }
    }

    /// The sectors of an access as the model defines them (first touch in
    /// lane order) and the lines they fall in, computed naively.
    fn naive_sectors(mask: u32, addrs: &[u64; 32], size: u64) -> (Vec<u64>, u32) {
        let mut sectors: Vec<u64> = Vec::new();
        for (l, &a) in addrs.iter().enumerate() {
            if mask & (1 << l) != 0 {
                for s in a / 32..=(a + size.max(1) - 1) / 32 {
                    if !sectors.contains(&s) {
                        sectors.push(s);
                    }
                }
            }
        }
        let mut lines: Vec<u64> = sectors.iter().map(|s| s / 4).collect();
        lines.sort();
        lines.dedup();
        (sectors, lines.len() as u32)
    }

    #[test]
    fn sectors_match_their_definition() {
        let mem = MemorySystem::new(&arch());
        let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
        for case in 0..4000u64 {
            let size = [1u64, 2, 4, 8, 16][(case % 5) as usize];
            let base = 0x10_0000 + (next() % 4096) * size;
            let mask = match case % 4 {
                0 => u32::MAX,
                1 => u32::MAX >> (next() % 32) << (next() % 8),
                _ => next() as u32,
            };
            // One address for every lane too, now and then across a sector
            // boundary.
            let one = base + (next() % 2) * (32 - size / 2);
            // Wide strides (a row per lane), both ways, and lanes scattered
            // far apart, past the 64-sector window.
            let stride = [168u64, 4096, 36, 100][(case / 28) as usize % 4] / size * size;
            let addrs: [u64; 32] = std::array::from_fn(|l| match (case / 4) % 7 {
                0 => base + l as u64 * size,
                1 => base + (l as u64 * size * (1 + next() % 3)),
                2 => one,
                3 => base + (next() % 64) * size,
                4 => base + l as u64 * stride,
                5 => base + (31 - l as u64) * stride,
                _ => base + (next() % 100_000) * size,
            });
            let mut out = [0u64; 64];
            let (n, lines) = MemorySystem::unique_sectors(
                mem.sector_shift,
                mem.line_shift,
                mask,
                &addrs,
                size as u32,
                &mut out,
            );
            let (want, want_lines) = naive_sectors(mask, &addrs, size);
            assert_eq!((&out[..n], lines), (&want[..], want_lines), "case {case}");
        }
    }
}
