//! Host copies into and out of the global arena (`write_bytes`,
//! `read_bytes`, `memset`; what every copy of the runtime and the driver
//! library ends in): whole aligned 8-byte words in a tight loop, the
//! unaligned head and tail as naturally aligned smaller accesses, all
//! relaxed atomics (a kernel of another stream may touch the memory
//! meanwhile).

use std::sync::atomic::{AtomicU64, Ordering};

use super::{AccessFault, GlobalMemory, GLOBAL_BASE};

impl GlobalMemory {
    /// The arena offset of a host copy of `len` bytes at `addr` (any
    /// alignment; the range must lie in one live allocation).
    fn host_range(&self, addr: u64, len: u64) -> Result<u64, AccessFault> {
        match self.check(addr, len) {
            Err(AccessFault::Misaligned) => Ok(addr - GLOBAL_BASE),
            other => other,
        }
    }

    /// Copies host bytes into device memory (the range must lie in one allocation).
    pub fn write_bytes(&self, addr: u64, data: &[u8]) -> Result<(), AccessFault> {
        if data.is_empty() {
            return Ok(());
        }
        let off = self.host_range(addr, data.len() as u64)?;
        if let Some(init) = &self.init {
            init.set(off, data.len() as u64, true);
        }
        self.for_each_part(off, data.len() as u64, |part| match part {
            Part::Access { at, i, n } => {
                let mut word = [0u8; 8];
                word[..n].copy_from_slice(&data[i..i + n]);
                self.store(at, n as u64, u64::from_le_bytes(word));
            }
            Part::Words { words, i } => {
                for (w, c) in words.iter().zip(data[i..].chunks_exact(8)) {
                    w.store(u64::from_le_bytes(c.try_into().unwrap()), Ordering::Relaxed);
                }
            }
        });
        Ok(())
    }

    /// Copies device memory to host bytes.
    pub fn read_bytes(&self, addr: u64, out: &mut [u8]) -> Result<(), AccessFault> {
        if out.is_empty() {
            return Ok(());
        }
        let off = self.host_range(addr, out.len() as u64)?;
        self.for_each_part(off, out.len() as u64, |part| match part {
            Part::Access { at, i, n } => {
                let word = self.load(at, n as u64).to_le_bytes();
                out[i..i + n].copy_from_slice(&word[..n]);
            }
            Part::Words { words, i } => {
                for (w, c) in words.iter().zip(out[i..].chunks_exact_mut(8)) {
                    c.copy_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
                }
            }
        });
        Ok(())
    }

    pub(super) fn fill(&self, off: u64, len: u64, byte: u8) {
        let word = u64::from_le_bytes([byte; 8]);
        self.for_each_part(off, len, |part| match part {
            Part::Access { at, n, .. } => self.store(at, n as u64, word),
            Part::Words { words, .. } => {
                words.iter().for_each(|w| w.store(word, Ordering::Relaxed))
            }
        });
    }

    /// Splits the arena range `off..off + len` into its whole aligned
    /// 8-byte words, as one slice, and the naturally aligned accesses of 1,
    /// 2 or 4 bytes before and after them, calling `f` for each part in
    /// address order. Host copies move bytes as relaxed atomic accesses of
    /// these sizes (a kernel of another stream may touch the same memory
    /// meanwhile), the words in a tight loop.
    fn for_each_part(&self, off: u64, len: u64, mut f: impl FnMut(Part<'_>)) {
        let end = off + len;
        let first = off.next_multiple_of(8).min(end);
        let last = first + (end - first) / 8 * 8;
        let small = |from: u64, to: u64, f: &mut dyn FnMut(Part<'_>)| {
            let mut at = from;
            while at < to {
                let n = [4u64, 2, 1]
                    .into_iter()
                    .find(|&n| at % n == 0 && at + n <= to)
                    .unwrap_or(1);
                f(Part::Access {
                    at,
                    i: (at - off) as usize,
                    n: n as usize,
                });
                at += n;
            }
        };
        small(off, first, &mut f);
        if last > first {
            f(Part::Words {
                words: &self.bytes[(first / 8) as usize..(last / 8) as usize],
                i: (first - off) as usize,
            });
        }
        small(last, end, &mut f);
    }

    /// Sets `len` bytes at `addr` to `byte`.
    pub fn memset(&self, addr: u64, byte: u8, len: u64) -> Result<(), AccessFault> {
        if len == 0 {
            return Ok(());
        }
        let off = self.host_range(addr, len)?;
        if let Some(init) = &self.init {
            init.set(off, len, true);
        }
        self.fill(off, len, byte);
        Ok(())
    }
}

/// A piece of a host copy's range ([`GlobalMemory::for_each_part`]): one
/// access of `n` bytes at arena offset `at`, or whole words; `i` is the
/// piece's offset within the range.
enum Part<'a> {
    Access { at: u64, i: usize, n: usize },
    Words { words: &'a [AtomicU64], i: usize },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Host copies of any alignment and length move the right bytes and
    /// touch nothing around them.
    #[test]
    fn host_copies_of_any_alignment() {
        let mut m = GlobalMemory::new(1 << 16);
        let a = m.alloc(256).unwrap();
        let data: Vec<u8> = (0..200).map(|i| i as u8 ^ 0x5a).collect();
        for start in 0..9u64 {
            for len in [0usize, 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 100] {
                m.memset(a, 0xee, 256).unwrap();
                m.write_bytes(a + start, &data[..len]).unwrap();
                let mut back = vec![0u8; 256];
                m.read_bytes(a, &mut back).unwrap();
                for (i, b) in back.iter().enumerate() {
                    let i = i as u64;
                    let want = if i >= start && i < start + len as u64 {
                        data[(i - start) as usize]
                    } else {
                        0xee
                    };
                    assert_eq!(*b, want, "start {start} len {len} byte {i}");
                }
            }
        }
    }
}
