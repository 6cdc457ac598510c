//! The sectored, set-associative LRU cache the memory model uses for each
//! SM's L1 and for the L2: a tag per line and, per sector of the line, a
//! valid bit and a dirty bit; sectors being fetched are valid with a later
//! arrival (a second miss to one waits for the first, as an MSHR merge
//! does). Only the sectors a miss needs are fetched; what the owner does on
//! a miss, a store or an eviction is the memory model's (`memory.rs`).
//!
//! A line held without some sector's data (a store allocated it) keeps the
//! bytes written so far of each such sector (`Cache::write_bytes`), so that
//! a sector written a few bytes at a time becomes whole once every byte has
//! been written, as GPGPU-Sim's and Accel-Sim's write-allocate caches keep
//! a byte mask per sector ("lazy fetch on read").
//!
//! A way is 16 bytes (the tag and the line's state), so that a 50 MB L2's
//! sets cost little to create as the kernel touches them; ways are kept
//! most recently used first.

use std::collections::HashMap;

/// Sectors per line at most (128-byte lines of 32-byte sectors).
pub const MAX_SECTORS: usize = 4;

/// The state of one cached line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Line {
    /// Sectors holding data (or being fetched: `pending`).
    pub valid: u8,
    /// Sectors written and not yet written back (a dirty sector may be
    /// partly written: `valid` tells whether the rest is there).
    pub dirty: u8,
    /// Sectors whose data arrives at `ready` (the latest of the fetches
    /// that overlapped).
    pending: u8,
    /// The cycle the pending sectors' data arrives, up to 2^32 - 1 (past
    /// that cycle, fetches in flight count as arrived).
    ready: u32,
}

impl Line {
    /// When the data of the sectors in `bits` is there (0: long since).
    #[inline]
    pub fn ready(&self, bits: u8) -> u64 {
        if self.pending & bits != 0 {
            self.ready as u64
        } else {
            0
        }
    }

    /// The sectors in `bits` become valid, their data arriving at `ready`;
    /// `now`: the current cycle (fetches that arrived by then are done).
    #[inline]
    pub fn fill(&mut self, bits: u8, ready: u64, now: u64) {
        let ready = ready.min(u32::MAX as u64) as u32;
        self.valid |= bits;
        if (self.ready as u64) <= now {
            self.pending = bits;
            self.ready = ready;
        } else {
            self.pending |= bits;
            self.ready = self.ready.max(ready);
        }
    }
}

/// A line a cache evicted: its address and state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Evicted {
    pub addr: u64,
    pub line: Line,
}

/// A way: the line's tag (line address + 1; 0 = empty) and state.
#[derive(Clone, Copy, Debug, Default)]
struct Way {
    tag: u64,
    line: Line,
}

/// A set-associative cache with LRU replacement over `line`-byte lines.
/// Sets live in chunks allocated on first touch, so a 50 MB L2 costs
/// nothing until used.
#[derive(Clone, Debug)]
pub struct Cache {
    sets: usize,
    /// `sets - 1` when the set count is a power of two (a mask instead of
    /// a division per access).
    set_mask: Option<u64>,
    /// Else `floor(2^64 / sets) + 1`: the set by a multiplication
    /// (`set_of`).
    reciprocal: u64,
    ways: usize,
    shift: u32,
    /// Set-index hashing: the line number's higher bits folded into the
    /// set index (by XOR, `hash` bits at a time; 0: the plain remainder).
    hash: u32,
    /// Chunks of `CHUNK` sets x `ways` ways, each set most recent first.
    chunks: Vec<Option<Box<[Way]>>>,
    /// Bytes written so far (bit b: byte b) of each sector of the lines
    /// that were written without their data, by line number; dropped with
    /// the line.
    partial: HashMap<u64, [u64; MAX_SECTORS]>,
}

const CHUNK: usize = 64;

impl Cache {
    pub fn new(bytes: u64, ways: u32, line: u32) -> Cache {
        let lines = (bytes / line as u64).max(1) as usize;
        let ways = (ways as usize).clamp(1, lines);
        let sets = (lines / ways).max(1);
        Cache {
            sets,
            set_mask: sets.is_power_of_two().then_some(sets as u64 - 1),
            reciprocal: (u64::MAX / sets as u64).wrapping_add(1),
            ways,
            shift: line.trailing_zeros(),
            hash: 0,
            chunks: vec![None; sets.div_ceil(CHUNK)],
            partial: HashMap::new(),
        }
    }

    /// Lines `[addr, addr + len)` present and clean, with `sectors`
    /// valid, each the most recently used in its set (data the host just
    /// wrote through it: GPUs' copy engines write through the L2). Only
    /// the last capacity's worth of a larger range can stay; lines it
    /// evicts are dropped, written back outside any timed launch.
    pub fn preload(&mut self, addr: u64, len: u64, sectors: u8) {
        let capacity = ((self.sets * self.ways) as u64) << self.shift;
        let end = addr.saturating_add(len);
        let start = addr.max(end.saturating_sub(capacity));
        let mut line = start >> self.shift;
        while line < end.div_ceil(1 << self.shift) {
            let (l, _) = self.get(line << self.shift);
            l.fill(sectors, 0, 0);
            line += 1;
        }
    }

    /// The same cache with hashed set indices, as GPUs' L2s have: the
    /// line number's higher bits are folded into the index, so that lines
    /// a power of two apart (a matrix's column) spread over the sets
    /// instead of falling into a few.
    pub fn hashed(mut self) -> Cache {
        self.hash = (usize::BITS - self.sets.leading_zeros()).max(1);
        self
    }

    /// `line % sets`. Without a mask, `q = (line * reciprocal) >> 64` is
    /// the quotient or one more (the reciprocal exceeds `2^64 / sets` by at
    /// most 1, and `line < 2^64`), so `line - q * sets` is the remainder or
    /// the remainder minus `sets`, which wraps negative and is corrected.
    #[inline]
    fn set_of(&self, line: u64) -> usize {
        let line = if self.hash != 0 {
            let h = self.hash;
            line ^ (line >> h) ^ (line >> (2 * h)) ^ (line >> (3 * h))
        } else {
            line
        };
        match self.set_mask {
            Some(m) => (line & m) as usize,
            None => {
                let sets = self.sets as u64;
                let q = ((line as u128 * self.reciprocal as u128) >> 64) as u64;
                let r = line.wrapping_sub(q.wrapping_mul(sets));
                (if (r as i64) < 0 {
                    r.wrapping_add(sets)
                } else {
                    r
                }) as usize
            }
        }
    }

    /// The ways of `line`'s set, most recent first.
    #[inline]
    fn set(&mut self, line: u64) -> &mut [Way] {
        let set = self.set_of(line);
        ways_of(&mut self.chunks, self.ways, set)
    }

    /// The line holding `addr`, made the most recently used; `None` when
    /// absent (nothing changes then).
    #[inline]
    pub fn find(&mut self, addr: u64) -> Option<&mut Line> {
        let tag = (addr >> self.shift) + 1;
        let ways = self.set(tag - 1);
        let i = position(ways, tag)?;
        ways[..=i].rotate_right(1);
        Some(&mut ways[0].line)
    }

    /// The line holding `addr`, allocated (in the least recently used way,
    /// empty) when absent, and made the most recently used; with the line it
    /// evicted (its address and state; a default, clean line when none was).
    #[inline]
    pub fn get(&mut self, addr: u64) -> (&mut Line, Evicted) {
        let shift = self.shift;
        let tag = (addr >> shift) + 1;
        let set = self.set_of(tag - 1);
        // (The set borrows `chunks` alone: an evicted line's bytes written
        // leave `partial` with it.)
        let ways = ways_of(&mut self.chunks, self.ways, set);
        let evicted = match position(ways, tag) {
            Some(i) => {
                ways[..=i].rotate_right(1);
                Evicted::default()
            }
            None => {
                ways.rotate_right(1);
                let old = ways[0];
                ways[0] = Way {
                    tag,
                    line: Line::default(),
                };
                if old.tag == 0 {
                    Evicted::default()
                } else {
                    if !self.partial.is_empty() {
                        self.partial.remove(&(old.tag - 1));
                    }
                    Evicted {
                        addr: (old.tag - 1) << shift,
                        line: old.line,
                    }
                }
            }
        };
        (&mut ways[0].line, evicted)
    }
}

impl Cache {
    /// The bytes `written[j]` (bit b: byte b) an access wrote to its
    /// sectors `sectors[j]` (of `1 << sector_shift` bytes): those in the
    /// sectors `partly` of the line at `addr`, which the cache holds
    /// without their data, are added to what was written before, and the
    /// sectors now wholly written become valid.
    pub fn write_bytes(
        &mut self,
        addr: u64,
        partly: u8,
        (sectors, written): (&[u64], &[u64]),
        sector_shift: u32,
    ) {
        let whole = u64::MAX >> (64 - (1u32 << sector_shift));
        let slots = (1u64 << (self.shift - sector_shift)) - 1;
        let masks = self.partial.entry(addr >> self.shift).or_default();
        let mut done = 0u8;
        for (&sector, &bytes) in sectors.iter().zip(written) {
            let slot = (sector & slots) as usize;
            if partly & (1 << slot) != 0 {
                masks[slot] |= bytes;
                if masks[slot] & whole == whole {
                    done |= 1 << slot;
                }
            }
        }
        if done != 0 {
            if let Some(line) = self.find(addr) {
                line.valid |= done;
            }
        }
    }

    /// Every fetch in flight arrives (between launches: the next one's
    /// clock starts at 0).
    pub fn settle(&mut self) {
        for chunk in self.chunks.iter_mut().flatten() {
            for w in chunk.iter_mut() {
                w.line.pending = 0;
                w.line.ready = 0;
            }
        }
    }
}

/// The ways of set `set`, most recent first (its chunk allocated on
/// first touch).
#[inline]
fn ways_of(chunks: &mut [Option<Box<[Way]>>], ways: usize, set: usize) -> &mut [Way] {
    let chunk =
        chunks[set / CHUNK].get_or_insert_with(|| vec![Way::default(); CHUNK * ways].into());
    let at = (set % CHUNK) * ways;
    &mut chunk[at..at + ways]
}

/// The way holding `tag` (tags in a set are distinct).
#[inline]
fn position(ways: &[Way], tag: u64) -> Option<usize> {
    if ways[0].tag == tag {
        return Some(0);
    }
    // The presets' associativities get a branch-free match mask.
    let mask = match ways.len() {
        4 => match_mask::<4>(ways.try_into().unwrap(), tag),
        16 => match_mask::<16>(ways.try_into().unwrap(), tag),
        _ => return ways.iter().position(|w| w.tag == tag),
    };
    (mask != 0).then(|| mask.trailing_zeros() as usize)
}

#[inline]
fn match_mask<const N: usize>(ways: &[Way; N], tag: u64) -> u32 {
    let mut found = 0u32;
    for (i, w) in ways.iter().enumerate() {
        found |= ((w.tag == tag) as u32) << i;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::xorshift;

    #[test]
    fn set_of_is_the_remainder() {
        let mut next = xorshift(0x5851_f42d_4c95_7f2du64);
        // The presets' set counts (L1 and L2), and others.
        for sets in [224usize, 81920, 3, 7, 1000, 98304, 12345, (1 << 31) - 1] {
            let cache = Cache::new(sets as u64 * 32, 1, 32);
            assert_eq!(cache.sets, sets);
            for k in 0..20_000u64 {
                let line = match k % 4 {
                    0 => next(),
                    1 => next() >> (next() % 64),
                    2 => u64::MAX - k,
                    _ => k,
                };
                assert_eq!(
                    cache.set_of(line),
                    (line % sets as u64) as usize,
                    "{line} % {sets}"
                );
            }
        }
    }

    /// Every associativity (those with code of their own and others)
    /// evicts exactly the least recently used line of a set, and keeps a
    /// line's state until it is evicted.
    #[test]
    fn lru_order_matches_a_reference_list() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
        for ways in [1u32, 2, 4, 5, 16] {
            let sets = 8u64;
            let mut cache = Cache::new(sets * ways as u64 * 32, ways, 32);
            let mut lists: Vec<Vec<u64>> = vec![Vec::new(); sets as usize];
            for k in 0..50_000u64 {
                let line = next() % (sets * ways as u64 * 3);
                let list = &mut lists[(line % sets) as usize];
                let (hit, evicted) = match list.iter().position(|&l| l == line) {
                    Some(i) => {
                        list.remove(i);
                        (true, None)
                    }
                    None if list.len() == ways as usize => (false, list.pop()),
                    None => (false, None),
                };
                list.insert(0, line);
                if k % 3 == 0 {
                    // A lookup that does not allocate.
                    let found = cache.find(line * 32).map(|l| l.ready(1));
                    assert_eq!(found.is_some(), hit, "{ways}-way, line {line}");
                    if !hit {
                        // Put it back as the reference list has it.
                        let (l, _) = cache.get(line * 32);
                        l.fill(1, line, 0);
                    }
                    if let Some(r) = found {
                        assert_eq!(r, line, "the line keeps its state");
                    }
                    continue;
                }
                let (l, old) = cache.get(line * 32);
                if hit {
                    assert_eq!(l.ready(1), line, "{ways}-way, line {line}: a hit");
                } else {
                    assert_eq!(l.ready(1), 0, "a new line starts empty");
                    assert_eq!(
                        old.line.ready(1),
                        evicted.unwrap_or(0),
                        "{ways}-way, line {line}: the evicted line's state"
                    );
                }
                l.fill(1, line, 0);
            }
        }
    }

    #[test]
    fn lru_keeps_the_recent_line() {
        let mut c = Cache::new(2 * 128, 2, 128);
        assert!(c.find(0).is_none());
        c.get(0).0.valid = 1;
        c.get(128).0.valid = 1;
        assert!(c.find(0).is_some());
        let (_, evicted) = c.get(256); // evicts 128
        assert_eq!((evicted.addr, evicted.line.valid), (128, 1));
        assert!(c.find(0).is_some());
        assert!(c.find(128).is_none());
    }

    /// Hashed set indices spread lines a power of two apart: 64 lines of a
    /// matrix's column (8 KB apart) fill 64 sets of a 384-set cache, not 6.
    #[test]
    fn hashed_sets_spread_power_of_two_strides() {
        let sets_used = |c: &Cache| {
            let mut sets: Vec<usize> = (0..64u64).map(|k| c.set_of(k * 64)).collect();
            sets.sort();
            sets.dedup();
            sets.len()
        };
        let plain = Cache::new(384 * 16 * 128, 16, 128);
        assert_eq!(sets_used(&plain), 6);
        assert!(sets_used(&plain.clone().hashed()) >= 48);
    }
}
