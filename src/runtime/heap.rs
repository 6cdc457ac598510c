//! The device heap: what device-side `malloc` and `free` allocate from,
//! and (with memcheck) the block table device memory checks heap accesses
//! against.
//!
//! As on a GPU (`cudaLimitMallocHeapSize`, 8 MiB by default), the heap is
//! a fixed region of global memory, reserved as one allocation of the
//! arena when the first kernel that calls `malloc` or `free` is launched,
//! and kept for the device's life: blocks outlive the launch that
//! allocated them and may be freed by a later one. Without memcheck, guest
//! accesses to the heap are checked against that one allocation like any
//! other global access (an overrun of a heap block into its neighbour is
//! not a fault, as on a GPU; past the heap's end it is). `malloc` returns
//! 16-byte aligned blocks (CUDA's guarantee) from a first-fit free list,
//! or 0 when no free range is large enough; `free(0)` does nothing;
//! freeing anything else that `malloc` did not return, or freeing twice,
//! is an error the engines report as a fault. CTAs run in parallel, so
//! the lists are behind a lock; blocks handed to concurrent CTAs can
//! therefore differ from run to run, as on a GPU.
//!
//! With memcheck ([`DeviceHeap::set_checked`]), as compute-sanitizer
//! does, every block is checked on its own: the heap's allocation leaves
//! device memory's allocation list and granule table
//! (`GlobalMemory::set_heap_check`), so every access to it misses the
//! fast check and asks [`HeapCheck::check`], which reads the block table
//! under a read lock: an access must lie inside the bytes one live block
//! was asked for. Each block is then followed by a 16-byte red zone (an
//! overrun lands there, not in the next block), never-used heap is taken
//! before freed space, and freed blocks are remembered until their space
//! is reused, so that an access through a dangling pointer is reported as
//! a use after free and a second `free` as a double free.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use crate::sanitizer::FreeError;

/// CUDA's default heap size (`cudaLimitMallocHeapSize`).
pub const DEFAULT_HEAP_BYTES: u64 = 8 << 20;
/// Alignment of every block `malloc` returns.
pub const MALLOC_ALIGN: u64 = 16;
/// Bytes left free after each block under memcheck (a multiple of
/// [`MALLOC_ALIGN`]).
pub const RED_ZONE: u64 = MALLOC_ALIGN;

#[derive(Debug)]
pub struct DeviceHeap {
    /// Device address of the heap's first byte.
    base: u64,
    size: u64,
    lists: Arc<RwLock<Lists>>,
}

/// A live block: the bytes `malloc` was asked for, and what it took
/// (rounded up, with the red zone under memcheck).
#[derive(Clone, Copy, Debug)]
struct Block {
    size: u64,
    span: u64,
}

#[derive(Debug, Default)]
pub struct Lists {
    /// Live blocks by heap offset.
    live: BTreeMap<u64, Block>,
    /// Free ranges as sorted, disjoint `[start, end)` heap offsets.
    free: Vec<(u64, u64)>,
    /// Memcheck: red zones, never-used heap first, freed blocks remembered.
    checked: bool,
    /// Never-used heap from here on (memcheck takes it first).
    fresh: u64,
    /// Memcheck: freed blocks whose space was not reused yet, by heap
    /// offset, with the bytes they were asked for.
    freed: BTreeMap<u64, u64>,
}

impl DeviceHeap {
    /// A heap over the `size` bytes of global memory at device address
    /// `base` (an allocation its owner made for it).
    pub fn new(base: u64, size: u64) -> DeviceHeap {
        let size = size - size % MALLOC_ALIGN;
        DeviceHeap {
            base,
            size,
            lists: Arc::new(RwLock::new(Lists {
                free: if size > 0 {
                    vec![(0, size)]
                } else {
                    Vec::new()
                },
                ..Default::default()
            })),
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

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Lists> {
        self.lists.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Turns memcheck's per-block checking on or off; on, returns what
    /// device memory checks heap accesses with (blocks already live keep
    /// their layout and are checked like the others).
    pub fn set_checked(&self, on: bool) -> Option<HeapCheck> {
        let mut l = self.write();
        l.checked = on;
        if !on {
            l.freed.clear();
        }
        on.then(|| HeapCheck {
            base: self.base,
            size: self.size,
            lists: self.lists.clone(),
        })
    }

    /// Device-side `malloc(size)`: a block's device address, or 0 when
    /// `size` is 0 or no free range holds it.
    pub fn malloc(&self, size: u64) -> u64 {
        let Some(rounded) = size.checked_next_multiple_of(MALLOC_ALIGN) else {
            return 0;
        };
        if rounded == 0 {
            return 0;
        }
        let mut l = self.write();
        let Some(span) = rounded.checked_add(if l.checked { RED_ZONE } else { 0 }) else {
            return 0;
        };
        // Memcheck takes never-used heap first: the first range reaching
        // past `fresh` with room above it.
        let fresh = l.checked.then_some(l.fresh).filter(|&f| f > 0);
        let fit = |r: &(u64, u64), from: u64| r.1.saturating_sub(r.0.max(from)) >= span;
        let found = fresh
            .and_then(|f| l.free.iter().position(|r| fit(r, f)).map(|i| (i, f)))
            .or_else(|| l.free.iter().position(|r| fit(r, 0)).map(|i| (i, 0)));
        let Some((i, from)) = found else {
            return 0;
        };
        let (lo, hi) = l.free[i];
        let start = lo.max(from);
        match (start == lo, start + span == hi) {
            (true, true) => {
                l.free.remove(i);
            }
            (true, false) => l.free[i].0 += span,
            (false, true) => l.free[i].1 = start,
            (false, false) => {
                l.free[i].1 = start;
                l.free.insert(i + 1, (start + span, hi));
            }
        }
        if l.checked {
            l.fresh = l.fresh.max(start + span);
            let end = start + span;
            l.freed.retain(|&s, &mut n| s + n <= start || s >= end);
        }
        l.live.insert(start, Block { size, span });
        self.base + start
    }

    /// Device-side `free(addr)`: `Err` with why when `addr` is neither 0
    /// nor a live block's address (a double free only where memcheck
    /// remembers the block freed).
    pub fn free(&self, addr: u64) -> Result<(), FreeError> {
        if addr == 0 {
            return Ok(());
        }
        let off = addr.wrapping_sub(self.base);
        let mut l = self.write();
        let Some(block) = l.live.remove(&off) else {
            return Err(if l.freed.contains_key(&off) {
                FreeError::DoubleFree
            } else {
                FreeError::InvalidPointer
            });
        };
        if l.checked {
            l.freed.insert(off, block.size);
        }
        let (lo, hi) = (off, off + block.span);
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

    /// Bytes taken by live blocks.
    pub fn in_use(&self) -> u64 {
        let l = self.lists.read().unwrap_or_else(|e| e.into_inner());
        l.live.values().map(|b| b.span).sum()
    }
}

/// Memcheck's view of the heap, which device memory keeps while memcheck
/// is on: the heap's device range and its block table.
#[derive(Clone, Debug)]
pub struct HeapCheck {
    base: u64,
    size: u64,
    lists: Arc<RwLock<Lists>>,
}

impl HeapCheck {
    /// The heap's device range `[start, end)`.
    pub fn range(&self) -> (u64, u64) {
        (self.base, self.base + self.size)
    }

    fn offset(&self, addr: u64) -> Option<u64> {
        addr.checked_sub(self.base).filter(|&o| o < self.size)
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Lists> {
        self.lists.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether an access of `size` bytes at device address `addr` lies in
    /// the bytes a live block was asked for; `None` outside the heap.
    pub fn check(&self, addr: u64, size: u64) -> Option<bool> {
        let off = self.offset(addr)?;
        let l = self.read();
        let Some((&s, b)) = l.live.range(..=off).next_back() else {
            return Some(false);
        };
        Some(off.checked_add(size).is_some_and(|end| end <= s + b.size))
    }

    /// The block `[start, end)` (device addresses, the bytes asked for)
    /// holding `addr`: a live one, else a freed one not yet reused (a
    /// finding is located after the launch, whose kernel may have freed
    /// the block since), else the whole heap; `None` outside the heap.
    pub fn block_of(&self, addr: u64) -> Option<(u64, u64)> {
        let off = self.offset(addr)?;
        let l = self.read();
        let live = l.live.range(..=off).next_back().map(|(&s, b)| (s, b.size));
        let freed = l.freed.range(..=off).next_back().map(|(&s, &n)| (s, n));
        let (s, n) = [live, freed]
            .into_iter()
            .flatten()
            .find(|&(s, n)| off < s + n)
            .unwrap_or((0, self.size));
        Some((self.base + s, self.base + s + n))
    }

    /// What a refused access of `size` bytes at `addr` touched, in
    /// memcheck's words (`GlobalMemory::describe`): a freed block (use
    /// after free), the live block it starts in and runs past, or the
    /// nearest live block before or after it; `None` outside the heap.
    pub fn describe(&self, addr: u64, size: u64) -> Option<String> {
        let off = self.offset(addr)?;
        let l = self.read();
        let at = |o: u64| format!("{:#x}", self.base + o);
        if let Some((&s, &n)) = l.freed.range(..=off).next_back() {
            if off < s + n {
                return Some(format!(
                    "is {} bytes inside a {n}-byte allocation at {} that was freed (use after free)",
                    off - s,
                    at(s)
                ));
            }
        }
        let before = l.live.range(..=off).next_back().map(|(&s, b)| (s, b.size));
        let after = l.live.range(off + 1..).next().map(|(&s, b)| (s, b.size));
        Some(match (before, after) {
            (Some((s, n)), _) if off < s + n => format!(
                "is {} bytes inside a {n}-byte allocation at {}, and the access runs {} bytes past its end",
                off - s,
                at(s),
                (off + size).saturating_sub(s + n)
            ),
            (Some((s, n)), a) if a.is_none_or(|(t, _)| off - (s + n) <= t - off) => format!(
                "is out of bounds: {} bytes after the end of a {n}-byte allocation at {}",
                off - (s + n),
                at(s)
            ),
            (_, Some((t, n))) => format!(
                "is out of bounds: {} bytes before the start of a {n}-byte allocation at {}",
                t - off,
                at(t)
            ),
            _ => "is out of bounds: in the device heap, where no block is allocated".into(),
        })
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

    #[test]
    fn memcheck_blocks_have_red_zones_and_freed_ones_are_remembered() {
        let h = DeviceHeap::new(0x1000, 1024);
        let c = h.set_checked(true).unwrap();
        let a = h.malloc(40);
        let b = h.malloc(16);
        // 48 bytes and a 16-byte red zone.
        assert_eq!((a, b), (0x1000, 0x1040));
        assert_eq!(c.check(a + 36, 4), Some(true));
        assert_eq!(
            c.check(a + 40, 4),
            Some(false),
            "past the 40 bytes asked for"
        );
        assert_eq!(c.check(a + 36, 8), Some(false));
        assert_eq!(c.check(0x1000 + 1024, 4), None, "outside the heap");
        assert_eq!(
            c.describe(a + 40, 4).unwrap(),
            "is out of bounds: 0 bytes after the end of a 40-byte allocation at 0x1000"
        );
        assert_eq!(
            c.describe(b - 4, 4).unwrap(),
            "is out of bounds: 4 bytes before the start of a 16-byte allocation at 0x1040"
        );
        h.free(a).unwrap();
        assert_eq!(
            c.describe(a + 8, 4).unwrap(),
            "is 8 bytes inside a 40-byte allocation at 0x1000 that was freed (use after free)"
        );
        assert_eq!(h.free(a), Err(FreeError::DoubleFree));
        assert_eq!(h.free(b + 16), Err(FreeError::InvalidPointer));
        // Never-used heap first: the freed block's space is not reused yet.
        assert_eq!(h.malloc(8), 0x1060);
        assert_eq!(c.block_of(0x1064), Some((0x1060, 0x1068)));
        assert_eq!(c.block_of(0x1008), Some((0x1000, 0x1028)), "freed");
        assert_eq!(c.block_of(0x1070), Some((0x1000, 0x1400)), "free heap");
        assert!(h.set_checked(false).is_none());
        assert_eq!(h.free(a), Err(FreeError::InvalidPointer), "forgotten");
    }
}
