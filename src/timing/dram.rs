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
//! A channel's controller queues `dram_queue` line-sized requests: a write arriving when
//! the channel is further behind than that is held until it has room, and
//! whoever sent it (an SM's memory pipeline on CC 1.x, an L2 slice writing
//! back) waits with it. Without this, writes that all fall on one channel
//! (the partition camping of a transpose's column writes on GT200) would
//! pile up behind it for free while the rest of the kernel went on.
//!
//! **Banks and rows** (where the preset gives `dram_banks`): a channel's
//! address space is cut into rows of `dram_row_bytes` spread over its
//! banks; a bank has one row open. An access to another row activates it,
//! and activations are rationed: one per `dram_row_cycle_ns` (tRC) per
//! bank and one per `dram_activate_ns` (tRRD, tFAW / 4) per channel, so a
//! stream of accesses that each open a row (strided writes, many streams
//! at once) is served at the rate rows can be opened rather than at the
//! bus's. The controller serves row hits first (FR-FCFS): an access to a
//! row that a queued access of the same bank has opened joins it, so a
//! deep queue finds the locality a shallow one misses. Reads book their
//! activation when they arrive; a batch of writes is drained grouped by
//! row, taking the longest of its bus time, its activations at the
//! channel's rate and its busiest bank's activations at tRC.

use super::arch::Arch;
use super::server::Server;

pub struct Dram {
    channels: Vec<Channel>,
    /// Banks per channel (0: no bank model).
    banks: u32,
    /// log2 of the address span one row index covers (all channels' rows
    /// of the same index).
    row_shift: u32,
    /// Cycles between two activations of one bank (tRC).
    row_cycle: f64,
    /// Cycles between two activations of one channel (tRRD).
    activate: f64,
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
    /// Activations of the channel (tRRD), where banks are modelled.
    act: Server,
    banks: Vec<Bank>,
    /// The rows (bank, row) the pending writes fall in.
    write_rows: Vec<(u32, u64)>,
}

/// Rows of a bank the controller still has accesses queued for: the first
/// is the open one.
const GROUPS: usize = 4;

#[derive(Clone, Default)]
struct Bank {
    /// Activations (tRC apart).
    server: Server,
    /// (row + 1, cycle its last queued access is served); 0: none.
    rows: [(u64, u64); GROUPS],
}

impl Bank {
    /// Whether an access to `row` at `now` finds it open or joins accesses
    /// queued for it; if so its group is extended to `until` by the caller.
    fn hit(&self, row: u64, now: u64) -> Option<usize> {
        self.rows
            .iter()
            .position(|&(r, _)| r == row + 1)
            .filter(|&i| i == 0 || self.rows[i].1 >= now)
    }

    /// `row` opened: it becomes the open row, the others stay queued.
    fn open(&mut self, row: u64, until: u64) {
        let i = self
            .rows
            .iter()
            .position(|&(r, _)| r == row + 1)
            .unwrap_or(GROUPS - 1);
        self.rows.copy_within(0..i, 1);
        self.rows[0] = (row + 1, until);
    }
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
        let banks = m.dram_banks;
        let channel = Channel {
            banks: vec![Bank::default(); banks as usize],
            ..Channel::default()
        };
        let ns = arch.chip.clock_mhz / 1e3;
        Dram {
            channels: vec![channel; channels],
            banks,
            row_shift: (m.dram_row_bytes.max(1) as u64 * channels as u64)
                .next_power_of_two()
                .trailing_zeros(),
            row_cycle: m.dram_row_cycle_ns * ns,
            activate: m.dram_activate_ns * ns,
            read_cost,
            turnaround: m.dram_turnaround_ns * arch.chip.clock_mhz / 1e3,
            batch: m.dram_write_batch.max(1) as u64,
            queue: m.dram_queue.max(1) as f64
                * (m.line_bytes / m.sector_bytes.max(1)).max(1) as f64
                * read_cost,
            interleave_shift: m.dram_interleave_bytes.max(1).trailing_zeros(),
            hashed: m.dram_hashed,
            floor: 0,
        }
    }

    /// The channel holding `addr`.
    #[inline]
    fn channel_of(&self, addr: u64) -> usize {
        let unit = addr >> self.interleave_shift;
        let n = self.channels.len() as u64;
        let c = if self.hashed {
            (unit ^ (unit >> 7) ^ (unit >> 14) ^ (unit >> 21)) % n
        } else {
            unit % n
        };
        c as usize
    }

    #[inline]
    fn channel(&mut self, addr: u64) -> &mut Channel {
        let c = self.channel_of(addr);
        let floor = self.floor;
        let ch = &mut self.channels[c];
        ch.server.advance(floor);
        ch
    }

    /// The bank and row of `addr` within its channel.
    #[inline]
    fn bank_row(&self, addr: u64) -> (u32, u64) {
        let row = addr >> self.row_shift;
        let bits = self.banks.trailing_zeros();
        let bank = if self.hashed && self.banks.is_power_of_two() {
            (row ^ (row >> bits) ^ (row >> (2 * bits))) % self.banks as u64
        } else {
            row % self.banks as u64
        };
        (bank as u32, row)
    }

    /// A sector read at `addr` arriving at cycle `now`; returns the cycles
    /// it waits.
    pub fn read(&mut self, addr: u64, now: u64) -> u64 {
        self.read_sectors(addr, now, 1.0)
    }

    /// A read of `sectors` sectors at `addr` (one transaction) arriving at
    /// `now`; returns the cycles it waits.
    pub fn read_sectors(&mut self, addr: u64, now: u64, sectors: f64) -> u64 {
        let cost = self.read_cost * sectors;
        if self.banks == 0 {
            return self.channel(addr).server.book(now, cost);
        }
        let (bank, row) = self.bank_row(addr);
        let (row_cycle, activate) = (self.row_cycle, self.activate);
        let floor = self.floor;
        let ch = self.channel(addr);
        let b = &mut ch.banks[bank as usize];
        // An access to the open row, or to one a queued access of this
        // bank has opened, joins it: no activation.
        match b.hit(row, now) {
            Some(i) => {
                let wait = ch.server.book(now, cost);
                let b = &mut ch.banks[bank as usize];
                b.rows[i].1 = b.rows[i].1.max(now + wait + cost as u64);
                wait
            }
            None => {
                // The row is opened once the bank has closed its last
                // (tRC) and the channel may activate again (tRRD).
                b.server.advance(floor);
                ch.act.advance(floor);
                let at = now + b.server.book(now, row_cycle);
                let at = at + ch.act.book(at, activate);
                let wait = ch.server.book(at, cost) + (at - now);
                ch.banks[bank as usize].open(row, now + wait + cost as u64);
                wait
            }
        }
    }

    /// `n` sectors written at `addr` at cycle `now` (write-backs: nothing
    /// waits for their data, but they take the channel's time from later
    /// reads); returns the cycles the write is held before the channel's
    /// queue has room for it.
    pub fn write(&mut self, addr: u64, now: u64, n: u64) -> u64 {
        let (batch, cost, turnaround, queue) =
            (self.batch, self.read_cost, self.turnaround, self.queue);
        let (row_cycle, activate) = (self.row_cycle, self.activate);
        let bank_row = (self.banks > 0).then(|| self.bank_row(addr));
        let ch = self.channel(addr);
        let held = (ch.server.backlog(now) - queue).max(0.0) as u64;
        ch.pending += n;
        if let Some(br) = bank_row {
            if !ch.write_rows.contains(&br) {
                ch.write_rows.push(br);
            }
        }
        if ch.pending >= batch {
            let sectors = std::mem::take(&mut ch.pending);
            let bus = sectors as f64 * cost;
            // The batch is drained when the channel gets to it, grouped by
            // row: a row its bank has open then (or has accesses queued
            // for then) costs no activation.
            let start = now + ch.server.backlog(now) as u64;
            let mut acts = 0u32;
            let mut per_bank = [0u32; 64];
            let mut busiest = 0u32;
            let until = start + bus as u64;
            for (bank, row) in ch.write_rows.drain(..) {
                let b = &mut ch.banks[bank as usize];
                if b.hit(row, start).is_none() {
                    acts += 1;
                    let k = &mut per_bank[bank as usize % 64];
                    *k += 1;
                    busiest = busiest.max(*k);
                }
                b.open(row, until);
            }
            let drain = bus
                .max(acts as f64 * activate)
                .max(busiest as f64 * row_cycle);
            ch.server.book(now, drain + turnaround);
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
        let n = 3 * arch.memory.dram_queue as u64;
        for _ in 0..n {
            d.read_sectors(0, 0, 4.0);
        }
        assert_eq!(d.write(0, 0, 4), (n as f64 * line - queue) as u64);
        assert!((queue - arch.memory.dram_queue as f64 * line).abs() < 1e-9);
        assert_eq!(d.write(256, 0, 4), 0, "channel 1 has room");
        // Once the channel has caught up, it takes writes at once.
        d.advance(100 * n * line as u64);
        assert_eq!(d.write(0, 100 * n * line as u64, 4), 0);
    }

    /// One channel of one sector per cycle (sm_80's clock), no refresh or
    /// ECC, `banks` banks of 2 KB rows, tRC 40 cycles, tRRD 10.
    fn one_banked_channel(banks: u32) -> Arch {
        let mut arch = Arch::builtin("sm_80").unwrap();
        let m = &mut arch.memory;
        m.dram_bandwidth_gbs = 1410.0 * 32.0 / 1e3;
        m.dram_refresh_fraction = 0.0;
        m.dram_ecc_fraction = 0.0;
        m.dram_channels = 1;
        m.dram_banks = banks;
        m.dram_row_bytes = 2048;
        m.dram_row_cycle_ns = 40.0 / 1.41;
        m.dram_activate_ns = 10.0 / 1.41;
        m.dram_hashed = false;
        arch
    }

    /// Banks: accesses that each open a row are served at the rate rows
    /// can be opened (tRRD per channel, tRC per bank), accesses to open
    /// rows at the bus's; an access joins a row a queued access opened.
    #[test]
    fn rows_opened_ration_a_channel() {
        let mut arch = one_banked_channel(4);
        let mut d = Dram::new(&arch);
        // 64 sectors of one row: one activation, then the bus.
        let w: Vec<u64> = (0..64).map(|k| d.read(k * 32, 0)).collect();
        assert_eq!(w[63], 63);
        // 64 sectors each in a row of its own over 4 banks: tRRD would
        // allow one per 10 cycles, tRC one per bank per 40.
        let mut d = Dram::new(&arch);
        let w: Vec<u64> = (0..64).map(|k| d.read(k * 2048, 0)).collect();
        assert!(w[63] >= 63 * 10 - 40 && w[63] <= 63 * 10 + 40, "{}", w[63]);
        // Without banks the same reads take the bus alone.
        arch.memory.dram_banks = 0;
        let mut d = Dram::new(&arch);
        let w: Vec<u64> = (0..64).map(|k| d.read(k * 2048, 0)).collect();
        assert_eq!(w[63], 63);
        // Two rows of one bank taken in turn: the second access of each
        // row joins the first (queued), so two activations, not 64.
        arch.memory.dram_banks = 4;
        let mut d = Dram::new(&arch);
        let w: Vec<u64> = (0..64)
            .map(|k| d.read((k % 2) * 4 * 2048 + (k / 2) * 32, 0))
            .collect();
        assert!(w[63] <= 63 + 40, "{}", w[63]);
    }

    /// A write batch is drained when its channel gets to it: a row an
    /// earlier batch opened and left (its accesses served by then) costs
    /// an activation again, however early the batch arrived.
    #[test]
    fn write_batches_find_rows_as_drained() {
        let mut arch = one_banked_channel(1);
        arch.memory.dram_turnaround_ns = 0.0;
        arch.memory.dram_write_batch = 2;
        let mut d = Dram::new(&arch);
        // Batch 1 opens row 0, then row 1 (left open).
        d.write(0, 0, 1);
        d.write(2048, 0, 1);
        // A thousand reads of the open row keep the channel busy.
        for _ in 0..1000 {
            d.read(2048, 0);
        }
        let before = d.channels[0].server.backlog(0);
        // Batch 2, to row 0, arrives at once but is drained after the
        // reads, when row 0 is long closed: one activation (tRC), not a
        // hit on the row batch 1 opened.
        d.write(0, 0, 1);
        d.write(32, 0, 1);
        let drain = d.channels[0].server.backlog(0) - before;
        assert!(drain >= 40.0, "{drain}");
    }
}
