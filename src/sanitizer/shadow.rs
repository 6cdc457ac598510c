//! Initcheck's shadow of global memory: one "written" bit per arena byte.
//! Host copies, memsets, module initializers and kernel stores set bits;
//! a fresh or reused allocation starts with its bits clear. Bits are
//! atomic words, so CTAs running in parallel mark and test them without
//! locks; the shadow is reserved like the arena (zero pages mapped by the
//! OS as they are first touched), an eighth of its size.

use std::sync::atomic::{AtomicU64, Ordering};

/// The written bits of an arena of a given capacity (by arena offset).
pub struct InitShadow {
    words: Box<[AtomicU64]>,
}

impl InitShadow {
    pub fn new(capacity: u64) -> InitShadow {
        let n = capacity.div_ceil(64) as usize;
        let mut v: Vec<u64> = vec![0; n];
        // SAFETY: AtomicU64 has the size and alignment of u64; the vector's
        // zeroed allocation (lazily mapped) is taken over as is.
        let words = unsafe {
            let (ptr, len, cap) = (v.as_mut_ptr() as *mut AtomicU64, v.len(), v.capacity());
            std::mem::forget(v);
            Vec::from_raw_parts(ptr, len, cap).into_boxed_slice()
        };
        InitShadow { words }
    }

    /// Calls `f(word index, bit mask)` for the words covering `[off, off + len)`.
    fn spans(&self, off: u64, len: u64, mut f: impl FnMut(usize, u64)) {
        let end = (off.saturating_add(len)).min(self.words.len() as u64 * 64);
        let mut at = off;
        while at < end {
            let bit = at % 64;
            let n = (64 - bit).min(end - at);
            let mask = if n == 64 {
                u64::MAX
            } else {
                ((1u64 << n) - 1) << bit
            };
            f((at / 64) as usize, mask);
            at += n;
        }
    }

    /// Marks `[off, off + len)` written (`true`) or not.
    pub fn set(&self, off: u64, len: u64, written: bool) {
        self.spans(off, len, |w, m| {
            if written {
                self.words[w].fetch_or(m, Ordering::Relaxed);
            } else {
                self.words[w].fetch_and(!m, Ordering::Relaxed);
            }
        });
    }

    /// The offset of the first byte of `[off, off + len)` never written, if any.
    pub fn first_unwritten(&self, off: u64, len: u64) -> Option<u64> {
        let mut first = None;
        self.spans(off, len, |w, m| {
            if first.is_none() {
                let missing = !self.words[w].load(Ordering::Relaxed) & m;
                if missing != 0 {
                    first = Some(w as u64 * 64 + missing.trailing_zeros() as u64);
                }
            }
        });
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_are_set_cleared_and_found_across_words() {
        let s = InitShadow::new(1024);
        assert_eq!(s.first_unwritten(0, 4), Some(0));
        s.set(60, 10, true);
        assert_eq!(s.first_unwritten(60, 10), None);
        assert_eq!(s.first_unwritten(58, 4), Some(58));
        assert_eq!(s.first_unwritten(66, 8), Some(70));
        s.set(0, 1024, true);
        assert_eq!(s.first_unwritten(0, 1024), None);
        s.set(128, 64, false);
        assert_eq!(s.first_unwritten(100, 200), Some(128));
        // Past the end: nothing is tested there.
        assert_eq!(s.first_unwritten(1020, 100), None);
    }
}
