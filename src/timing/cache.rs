//! The set-associative LRU cache the memory model uses for each SM's L1
//! and the L2.

/// A set-associative cache with LRU replacement over `line`-byte lines.
/// Tags live in chunks of sets allocated on first touch, so a 50 MB L2
/// costs nothing until used.
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
    /// Chunks of `CHUNK` sets x `ways` tags (line address + 1; 0 = empty),
    /// each set most recent first.
    chunks: Vec<Option<Box<[u64]>>>,
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
            chunks: vec![None; sets.div_ceil(CHUNK)],
        }
    }

    /// `line % sets`. Without a mask, `q = (line * reciprocal) >> 64` is
    /// the quotient or one more (the reciprocal exceeds `2^64 / sets` by at
    /// most 1, and `line < 2^64`), so `line - q * sets` is the remainder or
    /// the remainder minus `sets`, which wraps negative and is corrected.
    #[inline]
    fn set_of(&self, line: u64) -> usize {
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

    /// Looks `addr` up, allocating on a miss; true on a hit.
    pub fn access(&mut self, addr: u64) -> bool {
        let line = addr >> self.shift;
        let set = self.set_of(line);
        let w = self.ways;
        let chunk = self.chunks[set / CHUNK].get_or_insert_with(|| vec![0; CHUNK * w].into());
        let at = (set % CHUNK) * w;
        let ways = &mut chunk[at..at + w];
        let tag = line + 1;
        if ways[0] == tag {
            return true;
        }
        // The presets' associativities get code for their way count.
        match w {
            4 => touch::<4>(ways.try_into().unwrap(), tag),
            16 => touch::<16>(ways.try_into().unwrap(), tag),
            _ => match ways.iter().position(|&t| t == tag) {
                Some(i) => {
                    ways[..=i].rotate_right(1);
                    true
                }
                None => {
                    ways.rotate_right(1);
                    ways[0] = tag;
                    false
                }
            },
        }
    }
}

/// Makes `tag` the most recent of a set of `N` ways (most recent first),
/// evicting the least recent when it is missing; true when it was present.
/// (Tags in a set are distinct, so at most one way matches.)
#[inline]
fn touch<const N: usize>(ways: &mut [u64; N], tag: u64) -> bool {
    let mut found = 0u32;
    for (i, &t) in ways.iter().enumerate() {
        found |= ((t == tag) as u32) << i;
    }
    let end = if found == 0 {
        N - 1
    } else {
        found.trailing_zeros() as usize
    };
    ways.copy_within(0..end, 1);
    ways[0] = tag;
    found != 0
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
    /// evicts exactly the least recently used line of a set.
    #[test]
    fn lru_order_matches_a_reference_list() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
        for ways in [1u32, 2, 4, 5, 16] {
            let sets = 8u64;
            let mut cache = Cache::new(sets * ways as u64 * 32, ways, 32);
            let mut lists: Vec<Vec<u64>> = vec![Vec::new(); sets as usize];
            for _ in 0..50_000 {
                let line = next() % (sets * ways as u64 * 3);
                let list = &mut lists[(line % sets) as usize];
                let hit = match list.iter().position(|&l| l == line) {
                    Some(i) => {
                        list.remove(i);
                        true
                    }
                    None => {
                        if list.len() == ways as usize {
                            list.pop();
                        }
                        false
                    }
                };
                list.insert(0, line);
                assert_eq!(cache.access(line * 32), hit, "{ways}-way, line {line}");
            }
        }
    }

    #[test]
    fn lru_keeps_the_recent_line() {
        let mut c = Cache::new(2 * 128, 2, 128);
        assert!(!c.access(0));
        assert!(!c.access(128));
        assert!(c.access(0));
        assert!(!c.access(256)); // evicts 128
        assert!(c.access(0));
        assert!(!c.access(128));
    }
}
