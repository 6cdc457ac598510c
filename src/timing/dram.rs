//! DRAM bandwidth: sectors served one after another (`server.rs`) at the
//! bandwidth the device sustains, which is less than its nominal bandwidth
//! (pins × data rate) by what the preset's mechanisms take:
//!
//! - **refresh**: each bank is unavailable `tRFC` out of every `tREFI`;
//!   the preset gives the fraction of time lost;
//! - **in-band ECC**: where ECC is enabled on memory without side-band check
//!   bits (GDDR5 Teslas), the check bits travel with the data and take the
//!   preset's fraction of the bandwidth;
//! - **read/write turnaround**: a channel's bus turns around between reads
//!   and writes; controllers queue writes and drain them in batches
//!   (`dram_write_batch` per channel), each batch costing a turnaround
//!   (`dram_turnaround_ns`). Over `dram_channels` channels working in
//!   parallel, each written sector thus costs its transfer plus
//!   `turnaround / (batch × channels)` of the device's time. Reads pay
//!   nothing extra, so a read-only stream gets more bandwidth than a copy.
//!
//! Writes are booked when a batch is complete (they delay the reads that
//! arrive after them, as a drain does), so a kernel's last partial batch is
//! not booked: it drains after the kernel on a GPU too.

use super::arch::Arch;
use super::server::Server;

pub struct Dram {
    server: Server,
    /// Device cycles per sector read.
    read_cost: f64,
    /// Device cycles per sector written, turnaround share included.
    write_cost: f64,
    /// Sectors written since the last booked batch.
    pending: u64,
    /// Sectors per booked batch (batch per channel × channels).
    batch: u64,
}

impl Dram {
    pub fn new(arch: &Arch) -> Dram {
        let m = &arch.memory;
        // Bytes per SM cycle at the nominal bandwidth.
        let bytes_per_cycle = m.dram_bandwidth_gbs * 1e3 / arch.chip.clock_mhz;
        let available = (1.0 - m.dram_refresh_fraction) * (1.0 - m.dram_ecc_fraction);
        let read_cost = m.sector_bytes as f64 / (bytes_per_cycle * available);
        let turnaround = m.dram_turnaround_ns * arch.chip.clock_mhz / 1e3;
        let batch = m.dram_write_batch.max(1) as u64 * m.dram_channels.max(1) as u64;
        Dram {
            server: Server::new(),
            read_cost,
            write_cost: read_cost + turnaround / batch as f64,
            pending: 0,
            batch,
        }
    }

    /// A sector read arriving at cycle `now`; returns the cycles it waits.
    pub fn read(&mut self, now: u64) -> u64 {
        self.server.book(now, self.read_cost)
    }

    /// A read of `sectors` sectors (one transaction) arriving at `now`;
    /// returns the cycles it waits.
    pub fn read_sectors(&mut self, now: u64, sectors: f64) -> u64 {
        self.server.book(now, self.read_cost * sectors)
    }

    /// `n` sectors written at cycle `now` (write-backs: nothing waits for
    /// them, but they take the device's time from later reads).
    pub fn write(&mut self, now: u64, n: u64) {
        self.pending += n;
        if self.pending >= self.batch {
            let sectors = self.pending;
            self.pending = 0;
            self.server.book(now, sectors as f64 * self.write_cost);
        }
    }

    /// No request earlier than `now` will come.
    pub fn advance(&mut self, now: u64) {
        self.server.advance(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sustained rates: reads at the nominal bandwidth less refresh and
    /// ECC; writes also pay their batch's turnaround.
    #[test]
    fn reads_and_writes_take_their_share_of_the_device() {
        let mut arch = Arch::builtin("sm_80").unwrap();
        let m = &mut arch.memory;
        m.dram_bandwidth_gbs = 1410.0 * 32.0 / 1e3; // one sector per cycle
        m.dram_refresh_fraction = 0.2;
        m.dram_ecc_fraction = 0.0;
        m.dram_turnaround_ns = 64.0 / 1.41; // 64 cycles
        m.dram_write_batch = 8;
        m.dram_channels = 2;
        let mut d = Dram::new(&arch);
        // 1000 reads at once: the last waits 999 x 1.25 cycles.
        let waits: Vec<u64> = (0..1000).map(|_| d.read(0)).collect();
        assert_eq!(*waits.last().unwrap(), (999.0 * 1.25f64) as u64);
        // 1600 writes (100 batches of 16) then a read: each write costs
        // 1.25 + 64 / 16 = 5.25 cycles.
        for _ in 0..1600 {
            d.write(0, 1);
        }
        let wait = d.read(0);
        assert_eq!(wait, (1000.0 * 1.25 + 1600.0 * 5.25) as u64);
    }
}
