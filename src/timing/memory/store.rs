//! The store side of the memory model: the bytes a warp's store writes per
//! sector, the L1 (write-through, and on presets with
//! `l1_store_allocate`, the H100's, write-allocating with the written
//! bytes kept until a sector is whole: Accel-Sim's "write_allocate
//! lazy_fetch"), the L2 (write-back, a partly written sector costing its
//! slice `l2_partial_write_cycles` more) and the write-backs to DRAM.

use std::ops::Range;

use super::{Evicted, MemorySystem, SmMemory};

impl MemorySystem {
    /// Bytes of each of the access's `n` sectors the lanes write, into
    /// `written` (bit b: byte b of the sector).
    pub(super) fn bytes_written(&mut self, mask: u32, addrs: &[u64; 32], size: u32, n: usize) {
        let sector_bytes = self.sector_bytes as u64;
        self.written[..n].fill(0);
        let sectors = &self.sectors[..n];
        // Sectors come in first-touch order: a lane's is mostly the one
        // found last or the one after it.
        let mut i = 0;
        let mut m = mask;
        while m != 0 {
            let a = addrs[m.trailing_zeros() as usize];
            m &= m - 1;
            let mut at = a;
            let end = a.wrapping_add(size.max(1) as u64);
            while at < end {
                let s = at >> self.sector_shift;
                let off = at & (sector_bytes - 1);
                let len = (end - at).min(sector_bytes - off);
                let bits = (u64::MAX >> (64 - len)) << off;
                let found = if sectors.get(i) == Some(&s) {
                    Some(i)
                } else if sectors.get(i + 1) == Some(&s) {
                    Some(i + 1)
                } else {
                    sectors.iter().position(|&t| t == s)
                };
                if let Some(j) = found {
                    self.written[j] |= bits;
                    i = j;
                }
                at += len;
            }
        }
    }

    /// Writes the dirty sectors of a line evicted from the L2 back to DRAM;
    /// returns the cycles the write is held before its channel has room.
    #[inline]
    pub(super) fn write_back(&mut self, evicted: Evicted, t: u64) -> u64 {
        if evicted.line.dirty != 0 {
            // Partly written sectors are read first where the L2 merges
            // them with DRAM's copy (`dram_partial_write_fill`).
            let partial = evicted.line.dirty & !evicted.line.valid;
            if self.partial_fill && partial != 0 {
                let k = partial.count_ones();
                self.stats.dram_sectors += k as u64;
                self.dram.read_sectors(evicted.addr, t, k as f64);
            }
            let n = evicted.line.dirty.count_ones() as u64;
            self.stats.dram_writes += n;
            self.dram.write(evicted.addr, t, n)
        } else {
            0
        }
    }

    /// A store of the sectors `bits` of the line at `addr` (`full`: those
    /// of them wholly written) reaching the L1 pipeline at `t`; returns when
    /// the L2 (or, for local memory, the L1) has them.
    pub(super) fn store_line(
        &mut self,
        sm: &mut SmMemory,
        local: bool,
        (addr, bits, full): (u64, u8, u8),
        run: Range<usize>,
        t: u64,
    ) -> u64 {
        let mut through = bits;
        if let Some(l1) = sm.l1.as_mut() {
            if local {
                // Local memory is write-back in the L1: sectors wholly
                // written, or held, stay there; a partial write of a sector
                // not held goes through to the L2.
                let (line, evicted) = l1.get(addr);
                let kept = (full | line.valid) & bits;
                line.valid |= kept;
                line.dirty |= kept;
                through = bits & !kept;
                self.l1_evicted(&mut sm.port_free, evicted, t);
                if through == 0 {
                    return t + self.l1_latency as u64;
                }
            } else if self.store_allocate {
                // Write-allocate without fetching: wholly written sectors
                // become valid, partly written ones collect their bytes
                // (`SmMemory::partial`) until whole.
                let (line, evicted) = l1.get(addr);
                line.valid |= full & bits;
                let partly = bits & !line.valid;
                if partly != 0 {
                    let access = (&self.sectors[run.clone()], &self.written[run.clone()]);
                    l1.write_bytes(addr, partly, access, self.sector_shift);
                }
                self.l1_evicted(&mut sm.port_free, evicted, t);
            } else if let Some(line) = l1.find(addr) {
                // Write-through; the copy in L1 is updated in place.
                line.valid |= full & bits;
            }
        }
        let t = self.port(&mut sm.port_free, t, through.count_ones());
        self.l2_write(addr, through, full & through, run, t)
    }

    /// The sectors `bits` of the line at `addr` written into the L2
    /// (`full`: those wholly written; the bytes of the others are those of
    /// the access's sectors `run`), arriving from an SM's port at `t`;
    /// returns when the slice has taken them.
    fn l2_write(&mut self, addr: u64, bits: u8, full: u8, run: Range<usize>, t: u64) -> u64 {
        let k = bits.count_ones();
        let partial = (bits & !full).count_ones();
        let slice = self.slice_of(addr >> self.sector_shift);
        let work = self.slice_cost * k as f64 + self.partial_cost * partial as f64;
        let t = t + self.slice_book(slice, t, work);
        let Some(l2) = self.l2.as_mut() else {
            self.stats.dram_writes += k as u64;
            return t + self.dram.write(addr, t, k as u64);
        };
        let (line, evicted) = l2.get(addr);
        line.dirty |= bits;
        line.valid |= full;
        // Partly written sectors become whole once all their bytes are in.
        let partly = bits & !line.valid;
        if partly != 0 {
            let access = (&self.sectors[run.clone()], &self.written[run]);
            l2.write_bytes(addr, partly, access, self.sector_shift);
        }
        // A store whose write-back finds its channel's queue full is
        // acknowledged once it has room.
        let held = self.write_back(evicted, t);
        t + held + self.l2_latency as u64
    }

    /// Dirty sectors of a line evicted from an L1 (local memory) go to the
    /// L2 through the SM's port.
    pub(super) fn l1_evicted(&mut self, port_free: &mut f64, evicted: Evicted, t: u64) {
        let dirty = evicted.line.dirty;
        if dirty == 0 {
            return;
        }
        let t = self.port(port_free, t, dirty.count_ones());
        // (Local memory's dirty sectors are whole: see `store_line`.)
        self.l2_write(evicted.addr, dirty, dirty & evicted.line.valid, 0..0, t);
    }
}
