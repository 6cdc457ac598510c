//! Initcheck of local memory: per thread of a CTA, one "written" bit per
//! byte of the thread's local memory (its frames, their local arrays and
//! spilled values, and what `alloca` took), set by the thread's stores of
//! local memory (`st.local`, generic stores that land there) and clear
//! otherwise. compute-sanitizer's initcheck does not check local memory;
//! this one does, as it does shared memory.
//!
//! A new frame is new memory: a call clears the bits of the callee's whole
//! frame, and `alloca` those of the bytes it returns, so what an earlier
//! call left in the same bytes counts as never written (a GPU's stack
//! holds it, but no write of the new frame does). Parameter passing
//! (`st.param`/`ld.param`, the bytes a call copies) neither sets nor
//! checks bits: initcheck of `.param` bytes is not done.

/// The CTA's local-memory written bits, per linear thread index.
#[derive(Debug, Default)]
pub struct LocalShadow {
    on: bool,
    /// Per thread, 64 bytes per word; bytes past the end are unwritten.
    threads: Vec<Vec<u64>>,
}

impl LocalShadow {
    /// A new CTA: every byte unwritten; `on` with initcheck.
    pub fn reset(&mut self, on: bool) {
        self.on = on;
        for t in &mut self.threads {
            t.clear();
        }
    }

    fn bits(&mut self, thread: u32, end: usize) -> &mut Vec<u64> {
        let t = thread as usize;
        if self.threads.len() <= t {
            self.threads.resize_with(t + 1, Vec::new);
        }
        let bits = &mut self.threads[t];
        if bits.len() * 64 < end {
            bits.resize(end.div_ceil(64), 0);
        }
        bits
    }

    fn set(&mut self, thread: u32, at: usize, size: usize, written: bool) {
        if !self.on || size == 0 {
            return;
        }
        let bits = self.bits(thread, at + size);
        for b in at..at + size {
            let (w, m) = (b / 64, 1u64 << (b % 64));
            if written {
                bits[w] |= m;
            } else {
                bits[w] &= !m;
            }
        }
    }

    /// Thread `thread` wrote `size` bytes at local offset `at`.
    pub fn write(&mut self, thread: u32, at: usize, size: usize) {
        self.set(thread, at, size, true);
    }

    /// The bytes `[start, end)` of thread `thread` are a new frame (or
    /// `alloca`'d): unwritten.
    pub fn forget(&mut self, thread: u32, start: usize, end: usize) {
        let known = self
            .threads
            .get(thread as usize)
            .map_or(0, |b| b.len() * 64);
        self.set(thread, start, end.min(known).saturating_sub(start), false);
    }

    /// Whether a read of `size` bytes at `at` by `thread` finds a byte it
    /// never wrote (always `false` with initcheck off).
    pub fn unwritten(&self, thread: u32, at: usize, size: usize) -> bool {
        if !self.on {
            return false;
        }
        let bits = self.threads.get(thread as usize).map_or(&[][..], |b| b);
        (at..at + size).any(|b| bits.get(b / 64).is_none_or(|w| w & (1 << (b % 64)) == 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_written_per_thread_and_new_frames_forget_them() {
        let mut s = LocalShadow::default();
        s.reset(true);
        s.write(3, 8, 4);
        assert!(!s.unwritten(3, 8, 4));
        assert!(s.unwritten(3, 8, 8), "bytes 12..16 never written");
        assert!(s.unwritten(2, 8, 4), "another thread's bytes");
        s.forget(3, 10, 100);
        assert!(!s.unwritten(3, 8, 2));
        assert!(s.unwritten(3, 10, 1));
        s.reset(false);
        assert!(!s.unwritten(0, 0, 4), "off: nothing is reported");
    }
}
