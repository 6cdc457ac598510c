//! What the host has written to device memory since the last timed
//! launch (`Device::write`, `Device::memset`), for a timed launch that
//! starts with those lines in the L2 (`TimingOptions::uploads_in_l2`), as
//! a GPU's copy engines leave them: every memory write goes through its
//! L2. Bounded: the most recent ranges, up to [`KEEP`] bytes and
//! [`RANGES`] ranges.

use std::collections::VecDeque;
use std::sync::Mutex;

/// Bytes of the most recent uploads kept: more than any preset's L2.
const KEEP: u64 = 256 << 20;
/// Ranges kept (many small writes apart from each other).
const RANGES: usize = 4096;

#[derive(Default)]
pub(super) struct Uploads(Mutex<VecDeque<(u64, u64)>>);

impl Uploads {
    /// `[addr, addr + len)` written by the host, after what was before.
    pub(super) fn record(&self, addr: u64, len: u64) {
        let mut v = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match v.back_mut() {
            Some((a, l)) if *a + *l == addr => *l += len,
            _ => v.push_back((addr, len)),
        }
        let mut total: u64 = v.iter().map(|r| r.1).sum();
        while (total > KEEP || v.len() > RANGES) && v.len() > 1 {
            total -= v.pop_front().map_or(0, |r| r.1);
        }
    }

    /// The ranges written since the last call, oldest first.
    pub(super) fn take(&self) -> Vec<(u64, u64)> {
        let mut v = self.0.lock().unwrap_or_else(|e| e.into_inner());
        v.drain(..).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacent_writes_merge_and_old_ones_drop() {
        let u = Uploads::default();
        u.record(0x1000, 0x100);
        u.record(0x1100, 0x100);
        u.record(0x9000, 8);
        assert_eq!(u.take(), vec![(0x1000, 0x200), (0x9000, 8)]);
        assert!(u.take().is_empty());
        u.record(0, KEEP);
        u.record(KEEP * 2, 64);
        assert_eq!(u.take(), vec![(KEEP * 2, 64)]);
        for i in 0..RANGES as u64 + 10 {
            u.record(i * 128, 8);
        }
        let kept = u.take();
        assert_eq!((kept.len(), kept[0]), (RANGES, (10 * 128, 8)));
    }
}
