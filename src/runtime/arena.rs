//! The storage of device global memory: one zeroed host region of the
//! arena's size, as words (`AtomicU64`), either anywhere in the host's
//! address space (the default: many devices may live in one process) or at
//! the host address equal to its device address, [`GLOBAL_BASE`]
//! (`Options::unified_addresses`, which the driver library asks for):
//! there a device pointer is also a valid host pointer to the same bytes,
//! which is what CUDA's managed memory (`cuMemAllocManaged`) and mapped
//! page-locked host memory (`cuMemHostGetDevicePointer`) give their
//! clients. Either way, guest code reaches the region only through
//! [`GlobalMemory::check`](super::memory::GlobalMemory::check)'s rules:
//! where the region lies changes nothing about confinement.
//!
//! The fixed mapping is made with `mmap(MAP_FIXED_NOREPLACE)`, so it never
//! replaces an existing mapping: when the range is taken (another device of
//! the process holds it) or the kernel ignores the flag, the arena falls
//! back to a mapping anywhere and says so ([`Arena::unified`]).
//!
//! Either way the region is one anonymous mapping of whole pages, so pages
//! of it can be backed by a shared file instead ([`Arena::map_shared`],
//! [`Arena::map_private`]): how another process sees this device's memory
//! (CUDA IPC, `ipc.rs`). Those calls replace pages at the same addresses,
//! inside the region only, so the region's bounds, and with them
//! confinement, do not change.

use std::sync::atomic::AtomicU64;

use super::memory::GLOBAL_BASE;

pub struct Arena {
    ptr: *mut AtomicU64,
    words: usize,
    /// Mapped at `GLOBAL_BASE` (its host addresses are its device addresses).
    unified: bool,
}

/// The host's page size.
pub fn page_bytes() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

// SAFETY: the region is only accessed through `&[AtomicU64]`, which is
// Send and Sync; the pointer is owned by the arena alone.
unsafe impl Send for Arena {}
unsafe impl Sync for Arena {}

impl Arena {
    /// A zeroed region of `words` words anywhere in the host's memory
    /// (mapped lazily by the OS). Panics if the host cannot map it.
    pub fn anywhere(words: usize) -> Arena {
        Arena::map(words, None).expect("mapping the device arena")
    }

    /// A zeroed region of `words` words at host address [`GLOBAL_BASE`],
    /// or `None` where that range cannot be had.
    pub fn at_device_addresses(words: usize) -> Option<Arena> {
        Arena::map(words, Some(GLOBAL_BASE))
    }

    fn map(words: usize, at: Option<u64>) -> Option<Arena> {
        let bytes = Arena::bytes_of(words)?;
        let fixed = if at.is_some() {
            libc::MAP_FIXED_NOREPLACE
        } else {
            0
        };
        // SAFETY: a new anonymous private mapping that may not replace any
        // existing one (MAP_FIXED_NOREPLACE, or no address); the result is
        // checked.
        let p = unsafe {
            libc::mmap(
                at.unwrap_or(0) as *mut libc::c_void,
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | fixed,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        if at.is_some_and(|a| p as u64 != a) {
            // A kernel before Linux 4.17 takes the address as a hint.
            // SAFETY: the mapping just made, of that size.
            unsafe { libc::munmap(p, bytes) };
            return None;
        }
        Some(Arena {
            ptr: p as *mut AtomicU64,
            words,
            unified: at.is_some(),
        })
    }

    /// The mapping's length: whole pages.
    fn bytes_of(words: usize) -> Option<usize> {
        Some(words.checked_mul(8)?.max(8).next_multiple_of(page_bytes()))
    }

    /// Whether the region's host addresses are its device addresses.
    pub fn unified(&self) -> bool {
        self.unified
    }

    /// Checks that `[off, off + len)` is whole pages inside the region.
    fn pages(&self, off: usize, len: usize) -> std::io::Result<*mut libc::c_void> {
        let page = page_bytes();
        let end = off.checked_add(len);
        if off % page != 0 || len % page != 0 || len == 0 || end.is_none_or(|e| e > self.words * 8)
        {
            return Err(std::io::Error::from(std::io::ErrorKind::InvalidInput));
        }
        // SAFETY: inside the region (checked above).
        Ok(unsafe { (self.ptr as *mut u8).add(off) } as *mut libc::c_void)
    }

    /// Backs the region's pages `[off, off + len)` (whole pages) by the
    /// file `fd` from `file_off` on, shared: what is stored there is the
    /// file's contents, seen by every process that maps it.
    pub fn map_shared(
        &self,
        off: usize,
        len: usize,
        fd: std::os::fd::RawFd,
        file_off: u64,
    ) -> std::io::Result<()> {
        self.remap(off, len, libc::MAP_SHARED, fd, file_off)
    }

    /// Backs the region's pages `[off, off + len)` by fresh zero pages of
    /// its own again.
    pub fn map_private(&self, off: usize, len: usize) -> std::io::Result<()> {
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
        self.remap(off, len, flags, -1, 0)
    }

    fn remap(
        &self,
        off: usize,
        len: usize,
        flags: libc::c_int,
        fd: std::os::fd::RawFd,
        file_off: u64,
    ) -> std::io::Result<()> {
        let at = self.pages(off, len)?;
        // SAFETY: replaces whole pages of this arena's own mapping
        // (checked by `pages`) with a readable, writable mapping of the
        // same length at the same address.
        let p = unsafe {
            libc::mmap(
                at,
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                flags | libc::MAP_FIXED,
                fd,
                file_off as libc::off_t,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
}

impl std::ops::Deref for Arena {
    type Target = [AtomicU64];

    fn deref(&self) -> &[AtomicU64] {
        // SAFETY: `ptr` holds `words` initialised (zeroed) words for the
        // arena's life.
        unsafe { std::slice::from_raw_parts(self.ptr, self.words) }
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        if let Some(bytes) = Arena::bytes_of(self.words) {
            // SAFETY: the mapping made in `map`, of that length.
            unsafe { libc::munmap(self.ptr as *mut libc::c_void, bytes) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::memory::{GlobalMemory, GLOBAL_BASE};

    /// At most one arena of a process lies at its device addresses; there a
    /// device address is a host pointer to the arena's bytes. Another one
    /// falls back to an ordinary arena, which works the same for guests.
    #[test]
    fn one_arena_lies_at_its_device_addresses_and_others_fall_back() {
        let mut a = GlobalMemory::new_unified(1 << 20);
        let mut b = GlobalMemory::new_unified(1 << 20);
        assert!(!(a.unified() && b.unified()), "two arenas at one range");
        for m in [&mut a, &mut b] {
            let p = m.alloc(64).unwrap();
            m.write_bytes(p, &[7u8; 64]).unwrap();
            if m.unified() {
                assert_eq!(m.arena_ptr() as u64, GLOBAL_BASE);
                // SAFETY: `p` is a live allocation of 64 bytes, and the
                // arena lies at its device addresses.
                let host = unsafe { std::slice::from_raw_parts(p as *const u8, 64) };
                assert_eq!(host, &[7u8; 64]);
            }
            let off = m.check(p + 60, 4).unwrap();
            assert_eq!(m.load(off, 4), 0x0707_0707);
            assert!(m.check(p + 64, 4).is_err(), "confinement is unchanged");
        }
        // The first is unified unless another holder had the range.
        drop(a);
        let c = GlobalMemory::new_unified(1 << 20);
        assert!(c.unified() || !b.unified());
    }
}
