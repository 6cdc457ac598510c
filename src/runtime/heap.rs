//! The device heap: what device-side `malloc` and `free` allocate from.
//!
//! As on a GPU (`cudaLimitMallocHeapSize`, 8 MiB by default), the heap is
//! a fixed region of global memory, reserved as one allocation of the
//! arena when the first kernel that calls `malloc` or `free` is launched,
//! and kept for the device's life: blocks outlive the launch that
//! allocated them and may be freed by a later one. Guest accesses to the
//! heap are checked against that one allocation like any other global
//! access (an overrun of a heap block into its neighbour is not a fault,
//! as on a GPU; past the heap's end it is). `malloc` returns 16-byte
//! aligned blocks (CUDA's guarantee) from a first-fit free list, or 0 when
//! no free range is large enough; `free(0)` does nothing; freeing anything
//! else that `malloc` did not return, or freeing twice, is an error the
//! engines report as a fault. CTAs run in parallel, so the lists are
//! behind a lock; blocks handed to concurrent CTAs can therefore differ
//! from run to run, as on a GPU.

use std::collections::BTreeMap;
use std::sync::Mutex;

/// CUDA's default heap size (`cudaLimitMallocHeapSize`).
pub const DEFAULT_HEAP_BYTES: u64 = 8 << 20;
/// Alignment of every block `malloc` returns.
pub const MALLOC_ALIGN: u64 = 16;

#[derive(Debug)]
pub struct DeviceHeap {
    /// Device address of the heap's first byte.
    base: u64,
    size: u64,
    lists: Mutex<Lists>,
}

#[derive(Debug, Default)]
struct Lists {
    /// Live blocks: heap offset to the bytes they span.
    live: BTreeMap<u64, u64>,
    /// Free ranges as sorted, disjoint `[start, end)` heap offsets.
    free: Vec<(u64, u64)>,
}

impl DeviceHeap {
    /// A heap over the `size` bytes of global memory at device address
    /// `base` (an allocation its owner made for it).
    pub fn new(base: u64, size: u64) -> DeviceHeap {
        let size = size - size % MALLOC_ALIGN;
        DeviceHeap {
            base,
            size,
            lists: Mutex::new(Lists {
                live: BTreeMap::new(),
                free: if size > 0 {
                    vec![(0, size)]
                } else {
                    Vec::new()
                },
            }),
        }
    }

    /// The device address of the heap's first byte.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The heap's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Device-side `malloc(size)`: a block's device address, or 0 when
    /// `size` is 0 or no free range holds it.
    pub fn malloc(&self, size: u64) -> u64 {
        let Some(span) = size.checked_next_multiple_of(MALLOC_ALIGN) else {
            return 0;
        };
        if span == 0 {
            return 0;
        }
        let mut l = self.lists.lock().unwrap_or_else(|e| e.into_inner());
        let Some(i) = l.free.iter().position(|r| r.1 - r.0 >= span) else {
            return 0;
        };
        let start = l.free[i].0;
        l.free[i].0 += span;
        if l.free[i].0 == l.free[i].1 {
            l.free.remove(i);
        }
        l.live.insert(start, span);
        self.base + start
    }

    /// Device-side `free(addr)`: `Err` with why when `addr` is neither 0
    /// nor a live block's address.
    pub fn free(&self, addr: u64) -> Result<(), String> {
        if addr == 0 {
            return Ok(());
        }
        let off = addr.wrapping_sub(self.base);
        let mut l = self.lists.lock().unwrap_or_else(|e| e.into_inner());
        let Some(span) = l.live.remove(&off) else {
            return Err(format!(
                "free({addr:#x}): not a block that device-side malloc returned, or freed already"
            ));
        };
        let (lo, hi) = (off, off + span);
        let r = &mut l.free;
        let at = r.partition_point(|f| f.0 < lo);
        let after_prev = at > 0 && r[at - 1].1 == lo;
        let before_next = at < r.len() && r[at].0 == hi;
        match (after_prev, before_next) {
            (true, true) => {
                r[at - 1].1 = r[at].1;
                r.remove(at);
            }
            (true, false) => r[at - 1].1 = hi,
            (false, true) => r[at].0 = lo,
            (false, false) => r.insert(at, (lo, hi)),
        }
        Ok(())
    }

    /// Bytes in live blocks.
    pub fn in_use(&self) -> u64 {
        let l = self.lists.lock().unwrap_or_else(|e| e.into_inner());
        l.live.values().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_aligned_disjoint_and_reused_after_free() {
        let h = DeviceHeap::new(0x1000, 1024);
        let a = h.malloc(1);
        let b = h.malloc(100);
        assert_eq!((a, b), (0x1000, 0x1010));
        assert_eq!(b % MALLOC_ALIGN, 0);
        assert_eq!(h.in_use(), 16 + 112);
        // Too large: 0, and nothing changes.
        assert_eq!(h.malloc(2048), 0);
        assert_eq!(h.malloc(0), 0);
        h.free(a).unwrap();
        // The freed range is found first (first fit), merged with its
        // neighbours once they are free.
        assert_eq!(h.malloc(16), 0x1000);
        h.free(0x1000).unwrap();
        h.free(b).unwrap();
        assert_eq!(h.in_use(), 0);
        assert_eq!(h.malloc(1024), 0x1000, "the whole heap is one range again");
        assert!(h.free(0x1000 + 16).is_err(), "not a block's start");
        h.free(0x1000).unwrap();
        assert!(h.free(0x1000).is_err(), "a double free");
        assert_eq!(h.free(0), Ok(()));
        assert_eq!(h.malloc(u64::MAX), 0);
    }
}
