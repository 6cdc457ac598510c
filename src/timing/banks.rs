//! Shared-memory bank conflicts: how many passes (wavefronts) the banks
//! need to deliver the words the active lanes of a warp (or of a half-warp,
//! on GPUs that serve shared memory per half-warp) ask for. The degree is
//! the largest number of distinct words any bank must deliver (lanes
//! reading the same word share it).

use super::coalesce::{address_range, each_lane};

/// The banks of one SM's shared memory, with scratch for counting.
pub struct Banks {
    banks: u32,
    bank_bytes: u32,
    /// log2 of `bank_bytes` when it is a power of two (every preset's is).
    bank_shift: Option<u32>,
    /// Scratch: one bit per word of shared memory (all clear between
    /// accesses).
    shared_words: Vec<u64>,
    /// Scratch for conflict-free accesses: the word each bank delivers.
    word_in_bank: [u64; 64],
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

impl Banks {
    pub fn new(banks: u32, bank_bytes: u32) -> Banks {
        Banks {
            banks,
            bank_bytes,
            bank_shift: bank_bytes
                .is_power_of_two()
                .then_some(bank_bytes.trailing_zeros()),
            // 256 KiB of words, more than any SM's shared memory.
            shared_words: vec![0; (256 << 10) / 4 / 64],
            word_in_bank: [0; 64],
        }
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
    pub fn degree(&mut self, mask: u32, addrs: &[u64; 32], size: u32) -> u32 {
        let bank_bytes = self.bank_bytes as u64;
        if mask != 0 {
            // The lanes' lowest and highest address, for all the tests.
            let range = address_range(mask, addrs);
            // Every lane at one address (a broadcast): its words lie in
            // distinct banks, one pass.
            if range.0 == range.1 && size as u64 <= self.banks as u64 * bank_bytes {
                return 1;
            }
            if let Some(shift) = self.bank_shift.filter(|_| size as u64 <= 4 * bank_bytes) {
                if let Some(degree) = self.window_degree(mask, addrs, size, shift, range) {
                    return degree;
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
                        return 1;
                    }
                    let bank_bits = self.banks.trailing_zeros();
                    if let Some(degree) = rows_degree(mask, addrs, shift, bank_bits, range) {
                        return degree;
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
        per_bank.iter().copied().max().unwrap_or(0).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::xorshift;

    #[test]
    fn bank_conflicts() {
        let mut mem = Banks::new(32, 4);
        let same: [u64; 32] = [64; 32];
        assert_eq!(mem.degree(u32::MAX, &same, 4), 1, "broadcast");
        let linear: [u64; 32] = std::array::from_fn(|l| 4 * l as u64);
        assert_eq!(mem.degree(u32::MAX, &linear, 4), 1);
        let stride2: [u64; 32] = std::array::from_fn(|l| 8 * l as u64);
        assert_eq!(mem.degree(u32::MAX, &stride2, 4), 2, "2-way");
        let column: [u64; 32] = std::array::from_fn(|l| 128 * l as u64);
        assert_eq!(mem.degree(u32::MAX, &column, 4), 32, "32-way");
    }

    /// Bank-conflict degrees against the definition (the most distinct
    /// words one of the 32 four-byte banks delivers), over random accesses
    /// one after another on one memory system (its scratch state carries
    /// over between them).
    #[test]
    fn bank_degree_matches_its_definition() {
        let mut mem = Banks::new(32, 4);
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
            assert_eq!(mem.degree(mask, &addrs, size as u32), degree, "case {case}");
        }
    }
}
