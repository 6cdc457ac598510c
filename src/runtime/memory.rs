//! Device memory: one reserved host arena for all global allocations, and the
//! device address map.
//!
//! Device addresses are 64-bit values in ranges of their own: global memory
//! is `GLOBAL_BASE + offset` into the arena (which lies at exactly those
//! host addresses when the device asks for unified addressing, so that a
//! device pointer is a host pointer too: `arena.rs`; guests are confined
//! the same way wherever it lies); generic
//! addresses of shared and local memory fall in their own windows. Every
//! guest access goes through [`GlobalMemory::check`], which requires the whole
//! access to lie inside one live allocation and to be naturally aligned, so
//! guest code can never reach host memory outside the arena. Accesses use
//! atomic operations of the access width (plain moves on x86-64), which
//! keeps concurrently running CTAs free of data races in Rust's memory model.
//! Host copies (`write_bytes`, `read_bytes`, `memset`) are `host_copy.rs`'s.

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering};

use crate::sanitizer::shadow::InitShadow;

mod host_copy;

/// First device address of global memory.
pub const GLOBAL_BASE: u64 = 0x0000_1000_0000_0000;
/// Generic addresses of shared memory: `SHARED_WINDOW + offset`.
pub const SHARED_WINDOW: u64 = 0x0000_7e00_0000_0000;
/// Shared::cluster addresses of the CTAs of a cluster (sm_90): the CTA of
/// rank `r` has its shared memory at `CLUSTER_SHARED + (r << 24) + offset`
/// (offsets below 16 MiB, ranks below 16); smaller addresses are the
/// executing CTA's own (`.shared::cta` ones). Their generic addresses are
/// `SHARED_WINDOW +` these, as for the CTA's own shared memory
/// (`interp::cluster`).
pub const CLUSTER_SHARED: u64 = 0x4000_0000;
/// Where the rank sits in a shared::cluster address.
pub const CLUSTER_RANK_SHIFT: u32 = 24;
/// Generic addresses of local memory: `LOCAL_WINDOW + offset`.
pub const LOCAL_WINDOW: u64 = 0x0000_7f00_0000_0000;
/// Generic addresses of the launch's kernel parameters, read-only:
/// `PARAM_WINDOW + offset` in the parameter buffer, what `cvta.param`
/// makes of a kernel parameter's address (a `__grid_constant__`
/// parameter whose address is taken).
pub const PARAM_WINDOW: u64 = 0x0000_7d00_0000_0000;
/// Size of the shared, local and parameter windows.
pub const WINDOW_SIZE: u64 = 1 << 32;
/// Function "addresses" (for indirect calls): `FUNC_BASE + 16 * index`.
pub const FUNC_BASE: u64 = 0x0000_0f00_0000_0000;
/// Allocation granularity (and alignment) of device memory.
pub const ALLOC_ALIGN: u64 = 256;

/// Why an access was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessFault {
    /// Outside every live allocation (or outside the space's bounds).
    OutOfBounds,
    /// Not aligned to the access size.
    Misaligned,
}

/// The arena and its live allocations.
pub struct GlobalMemory {
    bytes: super::arena::Arena,
    /// Live allocations as sorted, disjoint `[start, end)` arena offsets.
    allocations: Vec<(u64, u64)>,
    /// For each 256-byte granule of the arena, how many of its leading bytes
    /// belong to a live allocation (0 to 256): compiled code's fast check
    /// (see [`GlobalMemory::granules`]).
    granules: Vec<u16>,
    /// Never-used arena from here on (allocation takes it first).
    next: u64,
    /// Freed arena, sorted, disjoint and coalesced `[start, end)` ranges
    /// (each freed allocation with its trailing gap): reused only once the
    /// never-used part is exhausted, so that a dangling pointer keeps
    /// faulting as long as possible.
    free_ranges: Vec<(u64, u64)>,
    /// Freed allocations whose space was not reused yet, sorted `[start,
    /// end)` arena offsets: what a report of a dangling access names.
    freed: Vec<(u64, u64)>,
    /// Initcheck's written bits, when that check is on.
    init: Option<InitShadow>,
    /// Accesses may reach up to the end of an allocation's last granule
    /// ([`GlobalMemory::set_rounded`]).
    rounded: bool,
    /// Memcheck of the device heap's blocks: the heap's allocation, out of
    /// `allocations` and the granules ([`GlobalMemory::set_heap_check`]).
    heap: Option<(super::heap::HeapCheck, (u64, u64))>,
}

/// Bytes per entry of the granule table (the allocation alignment).
pub const GRANULE: u64 = ALLOC_ALIGN;

impl GlobalMemory {
    /// Reserves an arena of `capacity` bytes (zero pages are mapped lazily by the OS).
    pub fn new(capacity: u64) -> GlobalMemory {
        let words = capacity.div_ceil(8) as usize;
        GlobalMemory::with(super::arena::Arena::anywhere(words))
    }

    /// An arena of `capacity` bytes at the host addresses equal to its
    /// device addresses (`arena.rs`), or anywhere when that range cannot
    /// be had ([`GlobalMemory::unified`] says which).
    pub fn new_unified(capacity: u64) -> GlobalMemory {
        let words = capacity.div_ceil(8) as usize;
        let arena = super::arena::Arena::at_device_addresses(words)
            .unwrap_or_else(|| super::arena::Arena::anywhere(words));
        GlobalMemory::with(arena)
    }

    fn with(bytes: super::arena::Arena) -> GlobalMemory {
        GlobalMemory {
            // One entry per granule, plus a zero sentinel (see `granules`).
            granules: vec![0; bytes.len().div_ceil((GRANULE / 8) as usize) + 1],
            bytes,
            allocations: Vec::new(),
            next: ALLOC_ALIGN,
            free_ranges: Vec::new(),
            freed: Vec::new(),
            init: None,
            rounded: false,
            heap: None,
        }
    }

    /// Whether device addresses of global memory are also host pointers
    /// to the same bytes.
    pub fn unified(&self) -> bool {
        self.bytes.unified()
    }

    pub fn capacity(&self) -> u64 {
        self.bytes.len() as u64 * 8
    }

    /// Allocates `size` bytes (zeroed), returning the device address: from
    /// the never-used arena while it lasts, then from freed space (first
    /// fit); where allocations are rounded as a GPU's are
    /// ([`GlobalMemory::set_rounded`]), from freed space first, as a GPU's
    /// allocator reuses it (pages already touched cost no faults; without
    /// memcheck a dangling pointer has nothing to report). Each allocation
    /// is followed by a free granule, which catches small overruns as
    /// faults.
    pub fn alloc(&mut self, size: u64) -> Option<u64> {
        let size = size.max(1);
        let span = size
            .checked_next_multiple_of(ALLOC_ALIGN)?
            .checked_add(ALLOC_ALIGN)?;
        let fresh = self
            .next
            .checked_add(span)
            .is_some_and(|end| end <= self.capacity());
        // Freed space is looked at only where it is taken first, or once
        // the never-used arena is exhausted.
        let reuse = (self.rounded || !fresh)
            .then(|| self.free_ranges.iter().position(|r| r.1 - r.0 >= span))
            .flatten();
        let start = match reuse {
            Some(i) => {
                let start = self.free_ranges[i].0;
                self.free_ranges[i].0 += span;
                if self.free_ranges[i].0 == self.free_ranges[i].1 {
                    self.free_ranges.remove(i);
                }
                self.fill(start, size, 0);
                if let Some(init) = &self.init {
                    init.set(start, size, false);
                }
                start
            }
            _ if fresh => {
                // No fill: the arena starts zeroed and bytes past `next`
                // were never written.
                let start = self.next;
                self.next += span;
                start
            }
            _ => return None,
        };
        let end = start + size;
        self.freed.retain(|f| f.1 <= start || f.0 >= start + span);
        let at = self.allocations.partition_point(|a| a.0 < start);
        self.allocations.insert(at, (start, end));
        self.mark(start, self.bound(end), true);
        Some(GLOBAL_BASE + start)
    }

    /// Frees the allocation starting at `addr`.
    pub fn free(&mut self, addr: u64) -> bool {
        let off = addr.wrapping_sub(GLOBAL_BASE);
        let Ok(i) = self.allocations.binary_search_by_key(&off, |a| a.0) else {
            return false;
        };
        let (start, end) = self.allocations.remove(i);
        self.mark(start, end, false);
        if let Some(init) = &self.init {
            init.set(start, end - start, false);
        }
        let at = self.freed.partition_point(|f| f.0 < start);
        self.freed.insert(at, (start, end));
        // The allocation and its gap become free space, merged with free
        // neighbours.
        let (lo, hi) = (start, end.next_multiple_of(ALLOC_ALIGN) + ALLOC_ALIGN);
        let r = &mut self.free_ranges;
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
        true
    }

    /// Records `[start, end)` (arena offsets, `start` granule-aligned) as
    /// live or free in the granule table.
    fn mark(&mut self, start: u64, end: u64, live: bool) {
        for g in start / GRANULE..end.div_ceil(GRANULE) {
            self.granules[g as usize] = if live {
                (end - g * GRANULE).min(GRANULE) as u16
            } else {
                0
            };
        }
    }

    /// The granule table: entry `g` is how many leading bytes of arena bytes
    /// `[g * 256, (g + 1) * 256)` are in a live allocation. Allocations start
    /// on granule boundaries and are separated by at least one free granule,
    /// so an access within one granule is inside a live allocation iff
    /// `offset % 256 + size <= table[offset / 256]`, which is what
    /// [`GlobalMemory::check`] decides for it; compiled code tests that and
    /// falls back to `check` for anything else (accesses crossing granules).
    /// The table ends with one zero entry beyond the arena, so a lookup may
    /// clamp its index instead of testing it.
    pub fn granules(&self) -> &[u16] {
        &self.granules
    }

    /// Rounds every allocation, for accesses, up to the end of its last
    /// 256-byte granule, as a GPU's allocations are rounded up (a small
    /// overrun reads or writes the padding instead of faulting); off, an
    /// access must lie inside the bytes allocated. Allocations stay
    /// separated by a free granule either way. On, freed space is also
    /// reused before never-used arena ([`GlobalMemory::alloc`]). The driver
    /// library turns this on unless memcheck is on
    /// (`Options::round_allocations`).
    pub fn set_rounded(&mut self, on: bool) {
        if on == self.rounded {
            return;
        }
        self.rounded = on;
        for i in 0..self.allocations.len() {
            let (start, end) = self.allocations[i];
            self.mark(start, end.next_multiple_of(GRANULE), false);
            self.mark(start, self.bound(end), true);
        }
    }

    /// Where accesses to an allocation ending at arena offset `end` stop.
    #[inline]
    fn bound(&self, end: u64) -> u64 {
        if self.rounded {
            end.next_multiple_of(GRANULE)
        } else {
            end
        }
    }

    /// The live allocation `[start, end)` (device addresses) containing `addr`.
    pub fn allocation_of(&self, addr: u64) -> Option<(u64, u64)> {
        if let Some(block) = self.heap.as_ref().and_then(|h| h.0.block_of(addr)) {
            return Some(block);
        }
        let off = addr.checked_sub(GLOBAL_BASE)?;
        let i = self.allocations.partition_point(|a| a.0 <= off);
        let (s, e) = *self.allocations.get(i.checked_sub(1)?)?;
        (off < e).then_some((GLOBAL_BASE + s, GLOBAL_BASE + e))
    }

    /// Turns initcheck's shadow on (every live allocation counts as
    /// written: what was copied before is not known) or off.
    pub fn set_initcheck(&mut self, on: bool) {
        if on == self.init.is_some() {
            return;
        }
        self.init = on.then(|| {
            let s = InitShadow::new(self.capacity());
            for &(a, e) in self
                .allocations
                .iter()
                .chain(self.heap.iter().map(|h| &h.1))
            {
                s.set(a, e - a, true);
            }
            s
        });
    }

    /// Initcheck's written bits, when that check is on.
    pub fn init_shadow(&self) -> Option<&InitShadow> {
        self.init.as_ref()
    }

    /// What a refused access of `size` bytes at `addr` touched, as
    /// memcheck reports it: the nearest allocation (live or freed) and the
    /// distance to it.
    pub fn describe(&self, addr: u64, size: u64) -> String {
        let Some(off) = addr
            .checked_sub(GLOBAL_BASE)
            .filter(|&o| o < self.capacity())
        else {
            return "is out of bounds: not in device global memory".into();
        };
        if let Some(d) = self.heap.as_ref().and_then(|h| h.0.describe(addr, size)) {
            return d;
        }
        let at = |o: u64| format!("{:#x}", GLOBAL_BASE + o);
        let find = |v: &[(u64, u64)]| {
            let i = v.partition_point(|a| a.0 <= off);
            i.checked_sub(1).map(|i| v[i]).filter(|&(_, e)| off < e)
        };
        if let Some((s, e)) = find(&self.freed) {
            return format!(
                "is {} bytes inside a {}-byte allocation at {} that was freed (use after free)",
                off - s,
                e - s,
                at(s)
            );
        }
        if let Some((s, e)) = find(&self.allocations) {
            return format!(
                "is {} bytes inside a {}-byte allocation at {}, and the access runs {} bytes past its end",
                off - s,
                e - s,
                at(s),
                (off + size).saturating_sub(e)
            );
        }
        let i = self.allocations.partition_point(|a| a.0 <= off);
        let before = i.checked_sub(1).map(|i| self.allocations[i]);
        let after = self.allocations.get(i).copied();
        let after_end = before.map(|(_, e)| off - e);
        let before_start = after.map(|(s, _)| s - off);
        match (before, after) {
            (Some((s, e)), _) if before_start.is_none_or(|b| after_end.unwrap() <= b) => format!(
                "is out of bounds: {} bytes after the end of a {}-byte allocation at {}",
                off - e,
                e - s,
                at(s)
            ),
            (_, Some((s, e))) => format!(
                "is out of bounds: {} bytes before the start of a {}-byte allocation at {}",
                s - off,
                e - s,
                at(s)
            ),
            _ => "is out of bounds: no device memory is allocated".into(),
        }
    }

    /// Checks a guest access of `size` bytes at `addr`; returns the arena offset.
    #[inline]
    pub fn check(&self, addr: u64, size: u64) -> Result<u64, AccessFault> {
        let off = addr
            .checked_sub(GLOBAL_BASE)
            .ok_or(AccessFault::OutOfBounds)?;
        // The granule table decides accesses within one granule (see
        // `granules`); the sorted allocations decide the rest.
        let in_granule = off % GRANULE + size;
        if in_granule <= GRANULE && addr % size.clamp(1, 32) == 0 {
            let g = (off / GRANULE).min(self.granules.len() as u64 - 1) as usize;
            if in_granule <= self.granules[g] as u64 {
                return Ok(off);
            }
        }
        let i = self.allocations.partition_point(|a| a.0 <= off);
        let Some(&(_, e)) = i.checked_sub(1).and_then(|i| self.allocations.get(i)) else {
            return self.heap_check(addr, size);
        };
        if off.checked_add(size).is_none_or(|end| end > self.bound(e)) {
            return self.heap_check(addr, size);
        }
        if addr % size.clamp(1, 32) != 0 {
            return Err(AccessFault::Misaligned);
        }
        Ok(off)
    }

    /// An access outside every allocation: refused, unless memcheck checks
    /// the heap's blocks and it lies in one (other accesses pay nothing
    /// but this call on the way to a fault).
    #[cold]
    #[inline(never)]
    fn heap_check(&self, addr: u64, size: u64) -> Result<u64, AccessFault> {
        match self.heap.as_ref().and_then(|h| h.0.check(addr, size)) {
            Some(true) if addr % size.clamp(1, 32) != 0 => Err(AccessFault::Misaligned),
            Some(true) => Ok(addr - GLOBAL_BASE),
            _ => Err(AccessFault::OutOfBounds),
        }
    }

    /// Memcheck of the device heap's blocks on (`Some`: the heap's check,
    /// whose range is one live allocation) or off. On, the heap's
    /// allocation leaves the allocation list and the granule table, so
    /// every access to it fails the checks of live allocations (compiled
    /// code's inline one included) and asks the heap's block table
    /// (`runtime::heap`); off, it is one allocation again.
    pub fn set_heap_check(&mut self, check: Option<super::heap::HeapCheck>) {
        if let Some((_, (start, end))) = self.heap.take() {
            let at = self.allocations.partition_point(|a| a.0 < start);
            self.allocations.insert(at, (start, end));
            self.mark(start, self.bound(end), true);
        }
        let Some(check) = check else {
            return;
        };
        let start = check.range().0 - GLOBAL_BASE;
        let Ok(i) = self.allocations.binary_search_by_key(&start, |a| a.0) else {
            return;
        };
        let (start, end) = self.allocations.remove(i);
        self.mark(start, end.next_multiple_of(GRANULE), false);
        self.heap = Some((check, (start, end)));
    }

    /// Host address of arena offset 0, for compiled code (which checks every
    /// access against [`GlobalMemory::check`]'s rules before using it).
    /// The arena itself (to back its pages by shared memory: `ipc.rs`).
    pub(super) fn arena(&self) -> &super::arena::Arena {
        &self.bytes
    }

    pub fn arena_ptr(&self) -> *mut u8 {
        self.bytes.as_ptr() as *mut u8
    }

    fn word(&self, off: u64) -> &AtomicU64 {
        &self.bytes[(off / 8) as usize]
    }

    /// Loads `size` (1, 2, 4, 8) bytes at a checked arena offset.
    #[inline]
    pub fn load(&self, off: u64, size: u64) -> u64 {
        let w = self.word(off);
        let sub = (off % 8) as usize;
        // SAFETY: `off` was checked to lie in the arena and to be aligned to
        // `size`, so the sub-word of that width is inside the same AtomicU64.
        unsafe {
            let p = (w as *const AtomicU64 as *const u8).add(sub);
            match size {
                1 => (*(p as *const AtomicU8)).load(Ordering::Relaxed) as u64,
                2 => (*(p as *const AtomicU16)).load(Ordering::Relaxed) as u64,
                4 => (*(p as *const AtomicU32)).load(Ordering::Relaxed) as u64,
                _ => w.load(Ordering::Relaxed),
            }
        }
    }

    /// Stores the low `size` bytes of `value` at a checked arena offset.
    #[inline]
    pub fn store(&self, off: u64, size: u64, value: u64) {
        let w = self.word(off);
        let sub = (off % 8) as usize;
        // SAFETY: as in `load`.
        unsafe {
            let p = (w as *const AtomicU64 as *const u8).add(sub);
            match size {
                1 => (*(p as *const AtomicU8)).store(value as u8, Ordering::Relaxed),
                2 => (*(p as *const AtomicU16)).store(value as u16, Ordering::Relaxed),
                4 => (*(p as *const AtomicU32)).store(value as u32, Ordering::Relaxed),
                _ => w.store(value, Ordering::Relaxed),
            }
        }
    }

    /// Atomically replaces the value at a checked offset with `f(old)`; returns `old`.
    pub fn atomic_update(&self, off: u64, size: u64, f: &mut dyn FnMut(u64) -> u64) -> u64 {
        let w = self.word(off);
        let sub = (off % 8) as usize;
        // SAFETY: as in `load`.
        unsafe {
            let p = (w as *const AtomicU64 as *const u8).add(sub);
            match size {
                2 => {
                    let a = &*(p as *const AtomicU16);
                    let mut old = a.load(Ordering::Relaxed);
                    loop {
                        match a.compare_exchange_weak(
                            old,
                            f(old as u64) as u16,
                            Ordering::SeqCst,
                            Ordering::Relaxed,
                        ) {
                            Ok(v) => return v as u64,
                            Err(v) => old = v,
                        }
                    }
                }
                4 => {
                    let a = &*(p as *const AtomicU32);
                    let mut old = a.load(Ordering::Relaxed);
                    loop {
                        match a.compare_exchange_weak(
                            old,
                            f(old as u64) as u32,
                            Ordering::SeqCst,
                            Ordering::Relaxed,
                        ) {
                            Ok(v) => return v as u64,
                            Err(v) => old = v,
                        }
                    }
                }
                _ => {
                    let mut old = w.load(Ordering::Relaxed);
                    loop {
                        match w.compare_exchange_weak(
                            old,
                            f(old),
                            Ordering::SeqCst,
                            Ordering::Relaxed,
                        ) {
                            Ok(v) => return v,
                            Err(v) => old = v,
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Freed space is reused (zeroed) once the never-used arena runs out,
    /// so allocating and freeing in a loop never exhausts the arena; until
    /// then a dangling pointer faults.
    #[test]
    fn freed_space_is_reused_when_the_arena_runs_out() {
        let mut m = GlobalMemory::new(64 << 10);
        let first = m.alloc(1000).unwrap();
        m.store(first - GLOBAL_BASE, 4, 0xdead_beef);
        assert!(m.free(first));
        assert_eq!(m.check(first, 4), Err(AccessFault::OutOfBounds));
        let mut seen = std::collections::HashSet::new();
        for i in 0..1000 {
            let size = 1000 + i % 7;
            let a = m.alloc(size).unwrap_or_else(|| panic!("round {i}"));
            assert_eq!(m.load(a - GLOBAL_BASE, 4), 0, "reused bytes are zeroed");
            m.store(a - GLOBAL_BASE, 4, 0xdead_beef);
            let past = a + size.next_multiple_of(4);
            assert_eq!(
                m.check(past, 4),
                Err(AccessFault::OutOfBounds),
                "past its end"
            );
            seen.insert(a);
            assert!(m.free(a));
        }
        assert!(seen.contains(&first), "freed space came back");
        // Neighbours merge: three freed blocks take one larger allocation.
        let blocks: Vec<u64> = (0..3).map(|_| m.alloc(4000).unwrap()).collect();
        for &b in &blocks {
            assert!(m.free(b));
        }
        let big = m.alloc(12000).unwrap();
        assert_eq!(m.check(big + 11996, 4), Ok(big + 11996 - GLOBAL_BASE));
    }

    /// Rounded (the driver library without memcheck), freed space is taken
    /// before never-used arena, zeroed; otherwise never-used arena first,
    /// so a dangling pointer keeps faulting.
    #[test]
    fn rounded_allocations_reuse_freed_space_first() {
        let mut m = GlobalMemory::new(1 << 20);
        let a = m.alloc(5000).unwrap();
        m.store(a - GLOBAL_BASE, 8, 0x0707_0707_0707_0707);
        assert!(m.free(a));
        let b = m.alloc(5000).unwrap();
        assert_ne!(a, b, "not rounded: never-used arena first");
        assert!(m.free(b));
        m.set_rounded(true);
        let c = m.alloc(4000).unwrap();
        assert_eq!(c, a, "rounded: the first freed range that fits");
        assert_eq!(m.load(c - GLOBAL_BASE, 8), 0, "reused bytes are zeroed");
    }

    #[test]
    fn rounded_allocations_reach_the_end_of_their_last_granule() {
        let mut m = GlobalMemory::new(1 << 20);
        let a = m.alloc(100).unwrap();
        m.set_rounded(true);
        let b = m.alloc(300).unwrap();
        for (p, end) in [(a, 256), (b, 512)] {
            assert!(m.check(p + end - 4, 4).is_ok(), "{end}");
            assert_eq!(m.check(p + end, 4), Err(AccessFault::OutOfBounds));
            assert_eq!(
                m.granules()[((p - GLOBAL_BASE + end - 1) / GRANULE) as usize],
                256
            );
        }
        m.set_rounded(false);
        assert_eq!(m.check(a + 100, 4), Err(AccessFault::OutOfBounds));
        assert_eq!(m.check(b + 300, 4), Err(AccessFault::OutOfBounds));
        assert!(m.check(b + 296, 4).is_ok());
    }

    #[test]
    fn accesses_outside_live_allocations_fault() {
        let mut m = GlobalMemory::new(1 << 20);
        let a = m.alloc(100).unwrap();
        let b = m.alloc(64).unwrap();
        assert_eq!(m.check(a, 4), Ok(a - GLOBAL_BASE));
        assert_eq!(m.check(a + 96, 4).map(|_| ()), Ok(()));
        assert_eq!(m.check(a + 98, 4), Err(AccessFault::OutOfBounds));
        assert_eq!(m.check(a + 100, 1), Err(AccessFault::OutOfBounds));
        assert_eq!(m.check(a + 2, 4), Err(AccessFault::Misaligned));
        assert_eq!(m.check(0, 4), Err(AccessFault::OutOfBounds));
        assert_eq!(m.check(u64::MAX - 2, 4), Err(AccessFault::OutOfBounds));
        assert_eq!(
            m.check(GLOBAL_BASE + (1 << 40), 8),
            Err(AccessFault::OutOfBounds)
        );
        assert!(m.free(a));
        assert_eq!(m.check(a, 4), Err(AccessFault::OutOfBounds));
        assert!(m.check(b, 8).is_ok());
    }

    #[test]
    fn refused_addresses_are_described_against_the_allocations() {
        let mut m = GlobalMemory::new(1 << 20);
        let a = m.alloc(1024).unwrap();
        let b = m.alloc(64).unwrap();
        assert_eq!(
            m.describe(a + 1028, 4),
            format!("is out of bounds: 4 bytes after the end of a 1024-byte allocation at {a:#x}")
        );
        assert_eq!(
            m.describe(b - 4, 4),
            format!("is out of bounds: 4 bytes before the start of a 64-byte allocation at {b:#x}")
        );
        assert!(m
            .describe(a + 1022, 4)
            .contains("runs 2 bytes past its end"));
        assert!(m.free(a));
        assert_eq!(
            m.describe(a + 8, 4),
            format!("is 8 bytes inside a 1024-byte allocation at {a:#x} that was freed (use after free)")
        );
        assert!(m.describe(4, 4).contains("not in device global memory"));
    }

    #[test]
    fn initcheck_bits_follow_copies_and_reuse() {
        let mut m = GlobalMemory::new(8 << 10);
        let kept = m.alloc(64).unwrap();
        m.set_initcheck(true);
        let s = |m: &GlobalMemory, a: u64, n| {
            m.init_shadow().unwrap().first_unwritten(a - GLOBAL_BASE, n)
        };
        assert_eq!(s(&m, kept, 64), None, "live before the check: written");
        let a = m.alloc(100).unwrap();
        assert_eq!(s(&m, a, 4), Some(a - GLOBAL_BASE));
        m.write_bytes(a, &[1; 10]).unwrap();
        m.memset(a + 10, 0, 90).unwrap();
        assert_eq!(s(&m, a, 100), None);
        assert!(m.free(a));
        // Exhaust the never-used arena, then reuse the freed space.
        while m.alloc(512).is_some() {}
        assert!(m.free(kept));
        let r = m.alloc(64).unwrap();
        assert_eq!(
            s(&m, r, 64),
            Some(r - GLOBAL_BASE),
            "reused space starts unwritten"
        );
    }

    #[test]
    fn loads_and_stores_round_trip_at_every_width() {
        let mut m = GlobalMemory::new(1 << 16);
        let a = m.alloc(64).unwrap();
        m.write_bytes(a, &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        let off = m.check(a, 8).unwrap();
        assert_eq!(m.load(off, 8), 0x0807060504030201);
        assert_eq!(m.load(off + 4, 4), 0x08070605);
        assert_eq!(m.load(off + 2, 2), 0x0403);
        m.store(off + 1, 1, 0xff);
        assert_eq!(m.load(off, 4), 0x0403ff01);
        let old = m.atomic_update(off, 4, &mut |v| v + 1);
        assert_eq!(old, 0x0403ff01);
        assert_eq!(m.load(off, 4), 0x0403ff02);
    }
}
