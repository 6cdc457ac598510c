//! DRAM bandwidth: the device's channels, each serving sectors one after
//! another (`server.rs`) at its share of the bandwidth the device sustains,
//! which is less than its nominal bandwidth (pins × data rate) by what the
//! preset's mechanisms take:
//!
//! - **channels and interleaving**: addresses are spread over the channels
//!   in `dram_interleave_bytes` units, in turn (CC 1.x: 256-byte partitions,
//!   so accesses that stride by a multiple of channels × 256 bytes all queue
//!   at one channel, the "partition camping" of NVIDIA's transpose study) or
//!   hashed with higher address bits (Fermi on), which spreads strides;
//! - **refresh**: each bank is unavailable `tRFC` out of every `tREFI`;
//!   the preset gives the fraction of time lost;
//! - **in-band ECC**: where ECC is enabled on memory without side-band check
//!   bits (GDDR5 Teslas), the check bits travel with the data and take the
//!   preset's fraction of the bandwidth;
//! - **read/write turnaround**: a channel's bus turns around between reads
//!   and writes; controllers queue writes and drain them in batches
//!   (`dram_write_batch` per channel), each batch costing a turnaround
//!   (`dram_turnaround_ns`). Reads pay nothing extra, so a read-only stream
//!   gets more bandwidth than a copy.
//!
//! Writes are booked when a channel's batch is complete (they delay the
//! reads that arrive after them, as a drain does), so a kernel's last
//! partial batches are not booked: they drain after the kernel on a GPU too.
//! A channel's controller queues [`QUEUE`] requests: a write arriving when
//! the channel is further behind than that is held until it has room, and
//! whoever sent it (an SM's memory pipeline on CC 1.x, an L2 slice writing
//! back) waits with it. Without this, writes that all fall on one channel
//! (the partition camping of a transpose's column writes on GT200) would
//! pile up behind it for free while the rest of the kernel went on.

use super::arch::Arch;
use super::server::Server;

/// Requests a channel's controller queues: GPGPU-Sim's and Accel-Sim's
/// FR-FCFS scheduler queue (`-gpgpu_frfcfs_dram_sched_queue_size 64`), of
/// line-sized requests.
pub const QUEUE: u32 = 64;

pub struct Dram {
    channels: Vec<Channel>,
    /// Cycles of a channel per sector read.
    read_cost: f64,
    /// Cycles of a channel per batch of writes: the turnaround.
    turnaround: f64,
    /// Writes per batch of a channel.
    batch: u64,
    /// The backlog in cycles a channel's queue holds.
    queue: f64,
    interleave_shift: u32,
    hashed: bool,
    /// No request earlier than this cycle will come.
    floor: u64,
}

#[derive(Clone, Default)]
struct Channel {
    server: Server,
    /// Sectors written since the channel's last booked batch.
    pending: u64,
}

impl Dram {
    pub fn new(arch: &Arch) -> Dram {
        let m = &arch.memory;
        let channels = m.dram_channels.max(1) as usize;
        // Bytes per SM cycle of one channel at the nominal bandwidth.
        let bytes_per_cycle = m.dram_bandwidth_gbs * 1e3 / arch.chip.clock_mhz / channels as f64;
        let available = (1.0 - m.dram_refresh_fraction) * (1.0 - m.dram_ecc_fraction);
        // Cycles of a channel per sector.
        let read_cost = m.sector_bytes as f64 / (bytes_per_cycle * available);
        Dram {
            channels: vec![Channel::default(); channels],
            read_cost,
            turnaround: m.dram_turnaround_ns * arch.chip.clock_mhz / 1e3,
            batch: m.dram_write_batch.max(1) as u64,
            queue: QUEUE as f64 * (m.line_bytes / m.sector_bytes.max(1)).max(1) as f64 * read_cost,
            interleave_shift: m.dram_interleave_bytes.max(1).trailing_zeros(),
            hashed: m.dram_hashed,
            floor: 0,
        }
    }

    /// The channel holding `addr`.
    #[inline]
    fn channel(&mut self, addr: u64) -> &mut Channel {
        let unit = addr >> self.interleave_shift;
        let n = self.channels.len() as u64;
        let c = if self.hashed {
            (unit ^ (unit >> 7) ^ (unit >> 14) ^ (unit >> 21)) % n
        } else {
            unit % n
        };
        let floor = self.floor;
        let ch = &mut self.channels[c as usize];
        ch.server.advance(floor);
        ch
    }

    /// A sector read at `addr` arriving at cycle `now`; returns the cycles
    /// it waits.
    pub fn read(&mut self, addr: u64, now: u64) -> u64 {
        let cost = self.read_cost;
        self.channel(addr).server.book(now, cost)
    }

    /// A read of `sectors` sectors at `addr` (one transaction) arriving at
    /// `now`; returns the cycles it waits.
    pub fn read_sectors(&mut self, addr: u64, now: u64, sectors: f64) -> u64 {
        let cost = self.read_cost * sectors;
        self.channel(addr).server.book(now, cost)
    }

    /// `n` sectors written at `addr` at cycle `now` (write-backs: nothing
    /// waits for their data, but they take the channel's time from later
    /// reads); returns the cycles the write is held before the channel's
    /// queue has room for it.
    pub fn write(&mut self, addr: u64, now: u64, n: u64) -> u64 {
        let (batch, cost, turnaround, queue) =
            (self.batch, self.read_cost, self.turnaround, self.queue);
        let ch = self.channel(addr);
        let held = (ch.server.backlog(now) - queue).max(0.0) as u64;
        ch.pending += n;
        if ch.pending >= batch {
            let sectors = std::mem::take(&mut ch.pending);
            ch.server.book(now, sectors as f64 * cost + turnaround);
        }
        held
    }

    /// No request earlier than `now` will come.
    pub fn advance(&mut self, now: u64) {
        self.floor = now;
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
        m.dram_interleave_bytes = 256;
        m.dram_hashed = false;
        let mut d = Dram::new(&arch);
        // Two channels of half a sector per cycle: a sector takes 2 cycles
        // of its channel, 2.5 with refresh. 1000 reads of channel 0: the
        // last waits 999 x 2.5 cycles.
        let waits: Vec<u64> = (0..1000).map(|_| d.read(0, 0)).collect();
        assert_eq!(*waits.last().unwrap(), (999.0 * 2.5f64) as u64);
        // Channel 1 is free.
        assert_eq!(d.read(256, 0), 0);
        // 800 writes to channel 0 (100 batches of 8) then a read: each
        // write costs 2.5 + 64 / 8 = 10.5 cycles.
        for _ in 0..800 {
            d.write(512, 0, 1);
        }
        let wait = d.read(0, 0);
        assert_eq!(wait, (1000.0 * 2.5 + 800.0 * 10.5) as u64);
        // Strides of channels x 256 bytes camp on one channel; hashed
        // interleaving spreads them.
        let camped: Vec<u64> = (0..64)
            .map(|k| d.read((1 << 20) | (k * 512), 100_000))
            .collect();
        assert!(camped[63] >= 63 * 2);
        arch.memory.dram_hashed = true;
        arch.memory.dram_channels = 8;
        let mut d = Dram::new(&arch);
        let spread: Vec<u64> = (0..64).map(|k| d.read(k * 2048, 0)).collect();
        assert!(spread.iter().max().unwrap() < &(64 * 4), "{spread:?}");
    }

    /// A write is held while its channel is further behind than its queue
    /// holds; other channels take writes at once.
    #[test]
    fn a_full_queue_holds_writes() {
        let mut arch = Arch::builtin("sm_13").unwrap();
        arch.memory.dram_refresh_fraction = 0.0;
        let mut d = Dram::new(&arch);
        let queue = d.queue;
        // Reads of a 128-byte line each on channel 0: 4 sectors' time.
        let line = 4.0 * d.read_cost;
        let n = 3 * QUEUE as u64;
        for _ in 0..n {
            d.read_sectors(0, 0, 4.0);
        }
        assert_eq!(d.write(0, 0, 4), (n as f64 * line - queue) as u64);
        assert!((queue - QUEUE as f64 * line).abs() < 1e-9);
        assert_eq!(d.write(256, 0, 4), 0, "channel 1 has room");
        // Once the channel has caught up, it takes writes at once.
        d.advance(100 * n * line as u64);
        assert_eq!(d.write(0, 100 * n * line as u64, 4), 0);
    }
}
