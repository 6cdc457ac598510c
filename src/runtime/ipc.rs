//! Device memory shared with other processes (CUDA IPC: `cuIpcGetMemHandle`
//! and `cuIpcOpenMemHandle`).
//!
//! A device's memory is its arena, private to its process. Exporting an
//! allocation moves the arena pages that hold it onto a memory file
//! (`memfd`, one per device, as large as the arena, at the same offsets):
//! their bytes are copied there, then the file is mapped over them, shared,
//! at the same addresses (`Arena::map_shared`), so nothing changes for
//! this process. The handle names the process, the file's descriptor and
//! the allocation's place; another process opens the file through
//! `/proc/<pid>/fd/<fd>` and maps those pages into a fresh allocation of
//! its own arena. Both then see one set of bytes, as two contexts on a
//! GPU do.
//!
//! Confinement is unchanged: mappings replace whole pages inside an arena
//! (never outside it), and an opened handle is an ordinary allocation of
//! the opener's arena, checked like any other. What a process shares is
//! whole pages: the other allocations on the first and last page of an
//! exported one are visible to the opener's host copies through the pages
//! it maps (a GPU shares at a coarser granularity still, 2 MiB), though
//! its kernels' checked accesses stay within the opened allocation's
//! pages.
//!
//! The exporter must be alive while another process opens its handle (as
//! with CUDA, where the handle is only valid while the allocation is).

use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use super::arena::page_bytes;
use super::memory::{GlobalMemory, GLOBAL_BASE};
use crate::Error;

/// Bytes of a handle (`CUipcMemHandle`).
pub const HANDLE_BYTES: usize = 64;

/// What a warpjit handle starts with.
const MAGIC: [u8; 8] = *b"warpjit\x01";

/// A device's shared pages and the handles it has opened.
#[derive(Default)]
pub struct Ipc {
    /// The memory file holding exported pages, at their arena offsets.
    file: Option<OwnedFd>,
    /// Exported pages: sorted, disjoint `[start, end)` arena offsets.
    shared: Vec<(u64, u64)>,
    /// Opened handles by the device address handed out.
    opened: BTreeMap<u64, Opened>,
}

struct Opened {
    /// What was opened: exporter's pid, descriptor, allocation offset.
    key: (u32, i32, u64),
    /// The allocation holding the mapping, and the mapped pages (arena
    /// offset and length).
    alloc: u64,
    pages: (u64, u64),
    count: u32,
}

/// The contents of a handle.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Handle {
    pid: u32,
    fd: i32,
    /// The allocation: its arena offset and size in the exporter.
    off: u64,
    size: u64,
}

impl Handle {
    fn to_bytes(self) -> [u8; HANDLE_BYTES] {
        let mut b = [0u8; HANDLE_BYTES];
        b[..8].copy_from_slice(&MAGIC);
        b[8..12].copy_from_slice(&self.pid.to_le_bytes());
        b[12..16].copy_from_slice(&self.fd.to_le_bytes());
        b[16..24].copy_from_slice(&self.off.to_le_bytes());
        b[24..32].copy_from_slice(&self.size.to_le_bytes());
        b
    }

    fn from_bytes(b: &[u8; HANDLE_BYTES]) -> Option<Handle> {
        let w4 = |i: usize| [b[i], b[i + 1], b[i + 2], b[i + 3]];
        let w8 = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[i..i + 8]);
            w
        };
        (b[..8] == MAGIC).then_some(())?;
        Some(Handle {
            pid: u32::from_le_bytes(w4(8)),
            fd: i32::from_le_bytes(w4(12)),
            off: u64::from_le_bytes(w8(16)),
            size: u64::from_le_bytes(w8(24)),
        })
    }
}

fn fail(what: &str, e: impl std::fmt::Display) -> Error {
    Error::InvalidArgument(format!("IPC: {what}: {e}"))
}

/// The whole pages `[start, end)` holding arena bytes `[off, off + size)`.
fn pages_of(off: u64, size: u64) -> (u64, u64) {
    let page = page_bytes() as u64;
    (
        off / page * page,
        (off + size.max(1)).next_multiple_of(page),
    )
}

impl Ipc {
    /// A handle to the allocation holding device address `addr`, which
    /// another process opens with [`Ipc::open`].
    pub fn export(&mut self, mem: &GlobalMemory, addr: u64) -> Result<[u8; HANDLE_BYTES], Error> {
        let (start, end) = mem
            .allocation_of(addr)
            .ok_or(Error::InvalidAddress { addr, len: 0 })?;
        let (off, size) = (start - GLOBAL_BASE, end - start);
        if self.file.is_none() {
            // SAFETY: a C string literal; the result is checked.
            let fd = unsafe { libc::memfd_create(c"warpjit-device-memory".as_ptr(), 0) };
            if fd < 0 {
                return Err(fail("memfd_create", std::io::Error::last_os_error()));
            }
            // SAFETY: a descriptor just opened, owned from here on.
            let file = unsafe { OwnedFd::from_raw_fd(fd) };
            // SAFETY: a valid descriptor; the result is checked.
            if unsafe { libc::ftruncate(fd, mem.capacity() as libc::off_t) } != 0 {
                return Err(fail(
                    "sizing the memory file",
                    std::io::Error::last_os_error(),
                ));
            }
            self.file = Some(file);
        }
        let fd = self.file.as_ref().map(|f| f.as_raw_fd()).unwrap_or(-1);
        let (lo, hi) = pages_of(off, size);
        for (a, b) in self.unshared(lo, hi) {
            // The pages' bytes into the file, then the file over the pages.
            // SAFETY: `[a, b)` lies inside the arena (whole pages of a live
            // allocation's span), which is mapped readable.
            let bytes = unsafe {
                std::slice::from_raw_parts(mem.arena_ptr().add(a as usize), (b - a) as usize)
            };
            let mut done = 0usize;
            while done < bytes.len() {
                // SAFETY: a valid descriptor and a readable buffer.
                let n = unsafe {
                    libc::pwrite(
                        fd,
                        bytes[done..].as_ptr() as *const libc::c_void,
                        bytes.len() - done,
                        (a as usize + done) as libc::off_t,
                    )
                };
                if n <= 0 {
                    return Err(fail("copying pages", std::io::Error::last_os_error()));
                }
                done += n as usize;
            }
            mem.arena()
                .map_shared(a as usize, (b - a) as usize, fd, a)
                .map_err(|e| fail("mapping pages", e))?;
            self.mark_shared(a, b);
        }
        Ok(Handle {
            pid: std::process::id(),
            fd,
            off,
            size,
        }
        .to_bytes())
    }

    /// The parts of pages `[lo, hi)` not exported yet.
    fn unshared(&self, lo: u64, hi: u64) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let mut at = lo;
        for &(s, e) in &self.shared {
            if e <= at || s >= hi {
                continue;
            }
            if s > at {
                out.push((at, s));
            }
            at = at.max(e);
        }
        if at < hi {
            out.push((at, hi));
        }
        out
    }

    fn mark_shared(&mut self, a: u64, b: u64) {
        let r = &mut self.shared;
        let i = r.partition_point(|x| x.0 < a);
        r.insert(i, (a, b));
        // Merge touching neighbours.
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(r.len());
        for &(s, e) in r.iter() {
            match merged.last_mut() {
                Some(last) if last.1 >= s => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        *r = merged;
    }

    /// Maps another process's exported allocation into `mem`; returns its
    /// device address here and its size. Opening a handle again gives the
    /// same address.
    pub fn open(
        &mut self,
        mem: &mut GlobalMemory,
        bytes: &[u8; HANDLE_BYTES],
    ) -> Result<(u64, u64), Error> {
        let h = Handle::from_bytes(bytes)
            .ok_or_else(|| Error::InvalidArgument("IPC: not a warpjit memory handle".into()))?;
        if h.pid == std::process::id() {
            return Err(Error::InvalidArgument(
                "IPC: a handle cannot be opened in the process that exported it".into(),
            ));
        }
        let key = (h.pid, h.fd, h.off);
        if let Some((&addr, o)) = self.opened.iter_mut().find(|(_, o)| o.key == key) {
            o.count += 1;
            return Ok((addr, h.size));
        }
        let path = format!("/proc/{}/fd/{}", h.pid, h.fd);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| {
                fail(
                    &format!("opening {path} (is the exporting process alive?)"),
                    e,
                )
            })?;
        let (lo, hi) = pages_of(h.off, h.size);
        let page = page_bytes() as u64;
        let alloc = mem.alloc(hi - lo + page).ok_or(Error::OutOfMemory {
            requested: hi - lo + page,
            capacity: mem.capacity(),
        })?;
        let at = (alloc - GLOBAL_BASE).next_multiple_of(page);
        if let Err(e) =
            mem.arena()
                .map_shared(at as usize, (hi - lo) as usize, file.as_raw_fd(), lo)
        {
            mem.free(alloc);
            return Err(fail("mapping the exporter's pages", e));
        }
        let addr = GLOBAL_BASE + at + (h.off - lo);
        self.opened.insert(
            addr,
            Opened {
                key,
                alloc,
                pages: (at, hi - lo),
                count: 1,
            },
        );
        Ok((addr, h.size))
    }

    /// Unmaps a handle opened at `addr` (once it has been closed as often
    /// as it was opened).
    pub fn close(&mut self, mem: &mut GlobalMemory, addr: u64) -> Result<(), Error> {
        let o = self
            .opened
            .get_mut(&addr)
            .ok_or(Error::InvalidAddress { addr, len: 0 })?;
        o.count -= 1;
        if o.count > 0 {
            return Ok(());
        }
        let o = self.opened.remove(&addr).expect("looked up above");
        mem.arena()
            .map_private(o.pages.0 as usize, o.pages.1 as usize)
            .map_err(|e| fail("unmapping", e))?;
        mem.free(o.alloc);
        Ok(())
    }

    /// Whether `addr` is a handle opened here.
    pub fn is_opened(&self, addr: u64) -> bool {
        self.opened.contains_key(&addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip_and_reject_foreign_bytes() {
        let h = Handle {
            pid: 42,
            fd: 7,
            off: 0x1234_5600,
            size: 80,
        };
        assert_eq!(Handle::from_bytes(&h.to_bytes()), Some(h));
        assert_eq!(Handle::from_bytes(&[0u8; HANDLE_BYTES]), None);
    }

    /// Exporting moves the pages onto the memory file without changing a
    /// byte; an overlapping export reuses the pages already moved; opening
    /// one's own handle is refused.
    #[test]
    fn exporting_keeps_the_bytes_and_refuses_opening_in_the_same_process() {
        let mut mem = GlobalMemory::new(1 << 22);
        let a = mem.alloc(100).unwrap();
        let b = mem.alloc(10_000).unwrap();
        mem.write_bytes(a, &[1u8; 100]).unwrap();
        mem.write_bytes(b, &[2u8; 10_000]).unwrap();
        let mut ipc = Ipc::default();
        let ha = ipc.export(&mem, a).unwrap();
        let hb = ipc.export(&mem, b + 17).unwrap();
        assert_eq!(ipc.shared.len(), 1, "{:?}", ipc.shared);
        let mut out = vec![0u8; 10_000];
        mem.read_bytes(b, &mut out).unwrap();
        assert!(out.iter().all(|&x| x == 2));
        // Stores after the export land in the file, and read back.
        mem.write_bytes(a, &[3u8; 100]).unwrap();
        let mut out = [0u8; 100];
        mem.read_bytes(a, &mut out).unwrap();
        assert_eq!(out, [3u8; 100]);
        let hb = Handle::from_bytes(&hb).unwrap();
        assert_eq!((hb.off, hb.size), (b - GLOBAL_BASE, 10_000));
        assert!(ipc.open(&mut mem, &ha).is_err());
    }
}
