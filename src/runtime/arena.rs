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
//! back to an ordinary allocation and says so ([`Arena::unified`]).

use std::sync::atomic::AtomicU64;

use super::memory::GLOBAL_BASE;

pub struct Arena {
    ptr: *mut AtomicU64,
    words: usize,
    /// Mapped at `GLOBAL_BASE` (unmapped on drop), or a `Vec`'s buffer.
    mapped: bool,
}

// SAFETY: the region is only accessed through `&[AtomicU64]`, which is
// Send and Sync; the pointer is owned by the arena alone.
unsafe impl Send for Arena {}
unsafe impl Sync for Arena {}

impl Arena {
    /// A zeroed region of `words` words anywhere in the host's memory.
    /// (`vec![0; n]` allocates zeroed memory, which the OS maps lazily.)
    pub fn anywhere(words: usize) -> Arena {
        let v = std::mem::ManuallyDrop::new(vec![0u64; words].into_boxed_slice());
        Arena {
            // AtomicU64 has the same size and alignment as u64.
            ptr: v.as_ptr() as *mut AtomicU64,
            words,
            mapped: false,
        }
    }

    /// A zeroed region of `words` words at host address [`GLOBAL_BASE`],
    /// or `None` where that range cannot be had.
    pub fn at_device_addresses(words: usize) -> Option<Arena> {
        let bytes = words.checked_mul(8)?.max(8);
        // SAFETY: a new anonymous private mapping that may not replace any
        // existing one (MAP_FIXED_NOREPLACE); the result is checked.
        let p = unsafe {
            libc::mmap(
                GLOBAL_BASE as *mut libc::c_void,
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE
                    | libc::MAP_ANONYMOUS
                    | libc::MAP_NORESERVE
                    | libc::MAP_FIXED_NOREPLACE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        if p as u64 != GLOBAL_BASE {
            // A kernel before Linux 4.17 takes the address as a hint.
            // SAFETY: the mapping just made, of that size.
            unsafe { libc::munmap(p, bytes) };
            return None;
        }
        Some(Arena {
            ptr: p as *mut AtomicU64,
            words,
            mapped: true,
        })
    }

    /// Whether the region's host addresses are its device addresses.
    pub fn unified(&self) -> bool {
        self.mapped
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
        if self.mapped {
            // SAFETY: the mapping made in `at_device_addresses`.
            unsafe { libc::munmap(self.ptr as *mut libc::c_void, (self.words * 8).max(8)) };
        } else {
            // SAFETY: the boxed `[u64]` leaked in `anywhere`.
            drop(unsafe {
                Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                    self.ptr as *mut u64,
                    self.words,
                ))
            });
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
