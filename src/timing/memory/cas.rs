//! Compare-and-swap loops and fetch groups: the two mechanisms of the
//! memory model that follow from the machine code's and the L2's
//! granularity rather than from one access (`Instr::cas_loop`,
//! `memory.l2_fetch_sectors`).

use super::{MemorySystem, SmMemory};

impl MemorySystem {
    /// A compare-and-swap loop's atomic (`Instr::cas_loop`) by the lanes of
    /// `mask` at `addrs` whose single attempt completed at `done`: the
    /// lanes on one word succeed one at a time, each a round trip (the L2's
    /// for global memory, the shared pipeline's latency for shared) after
    /// the last success on that word, whoever's it was; returns when the
    /// warp's last lane has succeeded. `salt` tells apart words of
    /// different CTAs' shared memory.
    pub fn cas_loop(
        &mut self,
        sm: &mut SmMemory,
        shared: bool,
        salt: u64,
        mask: u32,
        addrs: &[u64; 32],
        done: u64,
    ) -> u64 {
        let (busy, trip) = if shared {
            (&mut sm.cas_busy, self.shared_latency as u64)
        } else {
            (&mut self.cas_busy, self.l2_latency as u64)
        };
        // Distinct words and their lanes (no allocation per access).
        let mut words = [(0u64, 0u64); 32];
        let mut count = 0;
        for (l, &a) in addrs.iter().enumerate() {
            if mask >> l & 1 != 0 {
                let w = (a & !3) ^ if shared { salt << 48 } else { 0 };
                match words[..count].iter_mut().find(|(a, _)| *a == w) {
                    Some((_, n)) => *n += 1,
                    None => {
                        words[count] = (w, 1);
                        count += 1;
                    }
                }
            }
        }
        let mut end = done;
        for &(w, n) in &words[..count] {
            let last = busy.entry(w).or_insert(0);
            // The first success is the attempt itself (at `done`); each
            // further one a round trip later.
            let first = done.max(*last + trip);
            *last = first + (n - 1) * trip;
            end = end.max(*last);
        }
        end
    }
}

/// The sectors of `bits` widened to whole aligned groups of `group`
/// sectors (a power of two) within the line.
pub(super) fn group_of(bits: u8, group: u32) -> u8 {
    let mut out = bits;
    let mut span = 1;
    while span < group {
        out |= (out >> span & mask_of(span)) | (out << span & !mask_of(span));
        span *= 2;
    }
    out
}

/// The bits whose index has bit `log2(span)` clear (the low half of
/// each aligned group of `2 * span`).
fn mask_of(span: u32) -> u8 {
    match span {
        1 => 0x55,
        2 => 0x33,
        _ => 0x0f,
    }
}
