//! The memory model's unit tests: each mechanism of `memory.rs` on small,
//! hand-made accesses.

use super::cas::group_of;
use super::*;

fn arch() -> Arch {
    Arch::builtin("sm_80").unwrap()
}

fn lanes(base: u64, stride: u64) -> [u64; 32] {
    std::array::from_fn(|l| base + stride * l as u64)
}

#[test]
fn sectors_hit_only_once_fetched() {
    let a = arch();
    let mut mem = MemorySystem::new(&a);
    let mut sm = SmMemory::new(&a);
    // Lanes 0-7 read the line's first sector: one sector fetched.
    let addrs = lanes(0x1000, 4);
    let c = mem.global(
        &mut sm,
        Kind::Load,
        CachePolicy::Default,
        0xff,
        &addrs,
        4,
        0,
    );
    assert!(c.latency >= a.memory.dram_latency);
    assert_eq!((mem.stats.l1_misses, mem.stats.dram_sectors), (1, 1));
    // The whole line later: the first sector hits, three are fetched.
    let c = mem.global(
        &mut sm,
        Kind::Load,
        CachePolicy::Default,
        u32::MAX,
        &addrs,
        4,
        5000,
    );
    assert!(c.latency >= a.memory.dram_latency);
    assert_eq!((mem.stats.l1_hits, mem.stats.l1_misses), (1, 4));
    assert_eq!(mem.stats.dram_sectors, 4);
    // Now all four hit in L1.
    let c = mem.global(
        &mut sm,
        Kind::Load,
        CachePolicy::Default,
        u32::MAX,
        &addrs,
        4,
        10000,
    );
    assert_eq!(c.latency, a.memory.l1_latency);
    // A second miss to a sector still being fetched waits for it.
    let other = lanes(0x10_0000, 4);
    let first = mem.global(
        &mut sm,
        Kind::Load,
        CachePolicy::Default,
        u32::MAX,
        &other,
        4,
        20000,
    );
    let again = mem.global(
        &mut sm,
        Kind::Load,
        CachePolicy::Default,
        u32::MAX,
        &other,
        4,
        20010,
    );
    assert_eq!(
        again.latency + 10,
        first.latency,
        "merged with the first miss"
    );
    assert_eq!(mem.stats.dram_sectors, 8);
}

#[test]
fn stores_allocate_without_fetching_and_are_written_back() {
    let mut a = arch();
    a.memory.l2_kib = 1; // 8 lines of 128 bytes
    a.memory.l2_ways = 1;
    // The L2's side: reads that the L1 does not serve.
    a.memory.l1_store_allocate = false;
    let mut mem = MemorySystem::new(&a);
    let mut sm = SmMemory::new(&a);
    // A full line written: nothing read from DRAM.
    mem.global(
        &mut sm,
        Kind::Store,
        CachePolicy::Default,
        u32::MAX,
        &lanes(0, 4),
        4,
        0,
    );
    assert_eq!((mem.stats.dram_sectors, mem.stats.dram_writes), (0, 0));
    // Reading it back hits in L2.
    mem.global(
        &mut sm,
        Kind::Load,
        CachePolicy::Default,
        u32::MAX,
        &lanes(0, 4),
        4,
        100,
    );
    assert_eq!(mem.stats.l2_hits, 4);
    // A partial write (one float per sector) then a read: the read must
    // fetch the sectors it does not hold whole.
    mem.global(
        &mut sm,
        Kind::Store,
        CachePolicy::Default,
        0xf,
        &lanes((1 << 20) + 128, 32),
        4,
        200,
    );
    mem.global(
        &mut sm,
        Kind::Load,
        CachePolicy::Default,
        0xf,
        &lanes((1 << 20) + 128, 32),
        4,
        300,
    );
    assert_eq!(
        mem.stats.dram_sectors, 4,
        "partly written sectors are fetched"
    );
    // Lines that map to the first line's set evict it: its four dirty
    // sectors are written back.
    mem.global(
        &mut sm,
        Kind::Load,
        CachePolicy::Default,
        u32::MAX,
        &lanes(1024, 4),
        4,
        400,
    );
    assert_eq!(mem.stats.dram_writes, 4);
}

#[test]
fn miss_slots_bound_the_misses_in_flight() {
    let mut a = arch();
    a.memory.l1_mshrs = 4;
    let mut mem = MemorySystem::new(&a);
    let mut sm = SmMemory::new(&a);
    // 32 lanes on 32 lines: 32 sector misses, 4 at a time, so the last
    // one starts after seven rounds of DRAM latency.
    let c = mem.global(
        &mut sm,
        Kind::Load,
        CachePolicy::Default,
        u32::MAX,
        &lanes(0, 128),
        4,
        0,
    );
    assert!(c.latency >= 8 * a.memory.dram_latency, "{}", c.latency);
    assert!(mem.stats.mshr_wait_cycles > 0);
    let mut unbounded = MemorySystem::new(&arch());
    let mut sm = SmMemory::new(&arch());
    let c = unbounded.global(
        &mut sm,
        Kind::Load,
        CachePolicy::Default,
        u32::MAX,
        &lanes(0, 128),
        4,
        0,
    );
    assert!(c.latency < 2 * a.memory.dram_latency, "{}", c.latency);
}

#[test]
fn conflicting_shared_accesses_queue_in_the_sms_pipeline() {
    let a = arch();
    let mut mem = MemorySystem::new(&a);
    let mut sm = SmMemory::new(&a);
    let column = lanes(0, 128);
    // Two 32-way conflicts issued in the same cycle by two schedulers:
    // the second waits for the first's 32 passes.
    let first = mem.shared(&mut sm, u32::MAX, &column, 4, 0);
    let second = mem.shared(&mut sm, u32::MAX, &column, 4, 0);
    assert_eq!(first.latency, a.latency.shared + 31);
    assert_eq!(second.latency, a.latency.shared + 63);
    assert_eq!(first.replays, 31);
    // A conflict-free access after them waits as well.
    let linear = lanes(0, 4);
    assert_eq!(
        mem.shared(&mut sm, u32::MAX, &linear, 4, 0).latency,
        a.latency.shared + 64
    );
}

#[test]
fn shared_passes_follow_each_generation() {
    let degree = |preset: &str, addrs: &[u64; 32], size: u32| {
        let a = Arch::builtin(preset).unwrap();
        let mut mem = MemorySystem::new(&a);
        let mut sm = SmMemory::new(&a);
        mem.shared(&mut sm, u32::MAX, addrs, size, 0).replays / a.memory.shared_cycles_per_pass + 1
    };
    let floats = lanes(0, 4);
    let doubles = lanes(0, 8);
    let column = lanes(0, 128);
    // CC 1.x: two half-warps of 16 banks, each conflict-free.
    assert_eq!(degree("sm_10", &floats, 4), 2);
    // A column of floats: 16 lanes of each half-warp on one bank.
    assert_eq!(degree("sm_10", &column, 4), 32);
    // Fermi: one request; 32 doubles take two passes of 32-bit banks.
    assert_eq!(degree("sm_20", &floats, 4), 1);
    assert_eq!(degree("sm_20", &doubles, 8), 2);
    // Kepler's 64-bit banks deliver them in one.
    assert_eq!(degree("sm_30", &doubles, 8), 1);
    // A column of floats (a word every 32): 32-way on Fermi; on Kepler
    // words 64j and 64j + 32 share a pass, so 16-way.
    assert_eq!(degree("sm_20", &column, 4), 32);
    assert_eq!(degree("sm_30", &column, 4), 16);
    // Words i and i + 32 of a 64-word row share a Kepler pass.
    let pairs: [u64; 32] = std::array::from_fn(|l| 4 * ((l as u64 % 16) + 32 * (l as u64 / 16)));
    assert_eq!(degree("sm_30", &pairs, 4), 1);
    assert_eq!(degree("sm_20", &pairs, 4), 2);
    // 128-bit accesses: Fermi serves them a quarter-warp at a time, each
    // quarter a pass more than its conflicts (8 passes for a conflict-free
    // float4 a lane); Kepler's 64-bit banks take 512 bytes in 2.
    let float4s = lanes(0, 16);
    assert_eq!(degree("sm_20", &float4s, 16), 8);
    assert_eq!(degree("sm_30", &float4s, 16), 2);
    // Lanes l and l + 4 of each quarter a row of banks apart: 2-way, so
    // 3 passes a quarter.
    let clash: [u64; 32] = std::array::from_fn(|l| 16 * (l as u64 % 4) + 128 * (l as u64 / 4));
    assert_eq!(degree("sm_20", &clash, 16), 4 * 3);
    // One 16-byte word every lane reads (a row of a tile, broadcast): one
    // pass.
    assert_eq!(degree("sm_20", &[64; 32], 16), 1);
}

#[test]
fn half_warp_gpus_send_transactions_to_dram() {
    let a = Arch::builtin("sm_13").unwrap();
    let mut mem = MemorySystem::new(&a);
    let mut sm = SmMemory::new(&a);
    // In order: two 64-byte transactions (four sectors).
    let c = mem.global(
        &mut sm,
        Kind::Load,
        CachePolicy::Default,
        u32::MAX,
        &lanes(0, 4),
        4,
        0,
    );
    assert_eq!((mem.stats.lines, mem.stats.dram_sectors), (2, 4));
    assert_eq!(c.replays, 1);
    assert!(c.latency >= a.memory.dram_latency);
    // A stride of 128 bytes: a 32-byte transaction per thread.
    let c = mem.global(
        &mut sm,
        Kind::Load,
        CachePolicy::Default,
        u32::MAX,
        &lanes(1 << 20, 128),
        4,
        1000,
    );
    assert_eq!(c.replays, 31);
    assert_eq!(mem.stats.dram_sectors, 4 + 32);
}

#[test]
fn cache_operators_choose_the_levels() {
    let a = arch();
    let mut mem = MemorySystem::new(&a);
    let mut sm = SmMemory::new(&a);
    let line = lanes(0x4000, 4);
    let load = |mem: &mut MemorySystem, sm: &mut SmMemory, cache, now| {
        mem.global(sm, Kind::Load, cache, u32::MAX, &line, 4, now)
            .latency
    };
    // `.cg`: the L2 only, never the L1.
    load(&mut mem, &mut sm, CachePolicy::L2Only, 0);
    assert_eq!(
        load(&mut mem, &mut sm, CachePolicy::L2Only, 5000),
        a.memory.l2_latency
    );
    assert_eq!(mem.stats.l1_hits + mem.stats.l1_misses, 0);
    // `.ca` then allocates in L1 and hits there.
    load(&mut mem, &mut sm, CachePolicy::Default, 10_000);
    assert_eq!(
        load(&mut mem, &mut sm, CachePolicy::Default, 15_000),
        a.memory.l1_latency
    );
    // `.cg` (and `.cv`, `CachePolicy::L2Only` too) skips the L1, which
    // holds the line now, and hits in the L2.
    assert_eq!(
        load(&mut mem, &mut sm, CachePolicy::L2Only, 20_000),
        a.memory.l2_latency
    );
}

#[test]
fn a_unified_l1_serves_loads_in_bank_passes() {
    // 32 floats from 16 bytes into a line: two lines, five sectors.
    let misaligned = lanes(0x1010, 4);
    let strided3 = lanes(0x8000, 12);
    let replays = |preset: &str, addrs: &[u64; 32]| {
        let a = Arch::builtin(preset).unwrap();
        let mut mem = MemorySystem::new(&a);
        let mut sm = SmMemory::new(&a);
        mem.global(
            &mut sm,
            Kind::Load,
            CachePolicy::Default,
            u32::MAX,
            addrs,
            4,
            0,
        )
        .replays
    };
    // CC 7.0 on: one pass of the banks (the words are in distinct
    // banks), whatever the lines.
    assert_eq!(replays("sm_80", &misaligned), 0);
    assert_eq!(replays("sm_80", &strided3), 0);
    // A separate L1 (Pascal): a cycle per line.
    assert_eq!(replays("sm_61", &misaligned), 1);
    assert_eq!(replays("sm_61", &strided3), 2);
}

#[test]
fn read_misses_fetch_aligned_sector_groups() {
    assert_eq!(group_of(0b0001, 1), 0b0001);
    assert_eq!(group_of(0b0001, 2), 0b0011);
    assert_eq!(group_of(0b0100, 2), 0b1100);
    assert_eq!(group_of(0b0010, 4), 0b1111);
    // sm_90 fetches 64 bytes: one float read brings its sector's partner,
    // which then hits in the L2; a partly written sector is read from DRAM
    // before its write-back.
    let mut a = Arch::builtin("sm_90").unwrap();
    a.memory.l2_kib = 1;
    a.memory.l2_ways = 1;
    let mut mem = MemorySystem::new(&a);
    let mut sm = SmMemory::new(&a);
    let one = |mem: &mut MemorySystem, sm: &mut SmMemory, kind, addr, t| {
        mem.global(sm, kind, CachePolicy::Default, 1, &lanes(addr, 4), 4, t)
    };
    one(&mut mem, &mut sm, Kind::Load, 0x2000, 0);
    assert_eq!(mem.stats.dram_sectors, 2);
    one(&mut mem, &mut sm, Kind::Load, 0x2020, 1000);
    assert_eq!((mem.stats.dram_sectors, mem.stats.l2_hits), (2, 1));
    one(&mut mem, &mut sm, Kind::Store, 0x3000, 2000);
    // Evict 0x3000's line (same set: 8 lines of 128 bytes, one way).
    one(&mut mem, &mut sm, Kind::Load, 0x3000 + 1024, 3000);
    assert_eq!(mem.stats.dram_writes, 1);
    assert_eq!(
        mem.stats.dram_sectors,
        2 + 1 + 2,
        "the partial sector read, then the new line's pair"
    );
}

/// A partly written sector takes its slice `l2_partial_write_cycles` more
/// (the H100's scattered stores); wholly written ones do not.
#[test]
fn partly_written_sectors_take_their_slice_longer() {
    let ack = |partial_cycles: f64, stride: u64| {
        let mut a = Arch::builtin("sm_90").unwrap();
        a.memory.l2_slices = 1;
        a.memory.l2_partial_write_cycles = partial_cycles;
        let mut mem = MemorySystem::new(&a);
        let mut sm = SmMemory::new(&a);
        // 32 lanes storing 4 bytes each: one per line (stride 128), or
        // four whole sectors (stride 4).
        let c = mem.global(
            &mut sm,
            Kind::Store,
            CachePolicy::Default,
            u32::MAX,
            &lanes(0x4000, stride),
            4,
            0,
        );
        c.latency
    };
    // The last of the 32 sectors waits behind 31 that each took 4 more.
    assert_eq!(ack(4.0, 128), ack(0.0, 128) + 31 * 4);
    assert_eq!(ack(4.0, 4), ack(0.0, 4));
}

/// On the H100 a global store allocates its line in the L1 without
/// fetching it (`l1_store_allocate`): a sector becomes valid once all its
/// bytes are written, by one store or several; elsewhere stores leave the
/// L1 alone.
#[test]
fn stores_allocate_in_the_h100s_l1() {
    let run = |preset: &str| {
        let a = Arch::builtin(preset).unwrap();
        let mut mem = MemorySystem::new(&a);
        let mut sm = SmMemory::new(&a);
        let one = |addr: u64| {
            let mut l = [0u64; 32];
            l[0] = addr;
            l
        };
        // One thread writes 8-byte words: the first sector whole after
        // four stores, the second half written.
        for (k, w) in [0x8000u64, 0x8008, 0x8010, 0x8018, 0x8020, 0x8028]
            .into_iter()
            .enumerate()
        {
            mem.global(
                &mut sm,
                Kind::Store,
                CachePolicy::Default,
                1,
                &one(w),
                8,
                10 * k as u64,
            );
        }
        let load = |mem: &mut MemorySystem, sm: &mut SmMemory, addr, now| {
            mem.global(sm, Kind::Load, CachePolicy::Default, 1, &one(addr), 8, now)
                .latency
        };
        let whole = load(&mut mem, &mut sm, 0x8008, 5_000);
        let half = load(&mut mem, &mut sm, 0x8028, 10_000);
        (a.memory.l1_latency, whole, half)
    };
    let (l1, whole, half) = run("sm_90");
    assert_eq!(whole, l1, "the wholly written sector hits");
    assert!(half > l1, "the half-written one is fetched");
    let (l1, whole, _) = run("sm_70");
    assert!(whole > l1, "Volta's L1 does not keep stores");
}

/// A sector written a few bytes at a time becomes whole in the L2 once
/// all its bytes are in: reading it back hits there (the TITAN V's L1
/// chase, whose first pass reads words its thread stored 8 bytes at a
/// time, at its L2's latency), while a sector still partly written is
/// fetched, and at its line's eviction read before its write-back.
#[test]
fn the_l2_merges_a_sectors_partial_writes() {
    let mut a = Arch::builtin("sm_70").unwrap();
    a.memory.l1_store_allocate = false;
    let mut mem = MemorySystem::new(&a);
    let mut sm = SmMemory::new(&a);
    // Four lines; lane l writes 8 bytes at l * 32 + k * 8 in store k: each
    // store writes a quarter of 16 sectors, the four together all of them.
    for k in 0..4u64 {
        mem.global(
            &mut sm,
            Kind::Store,
            CachePolicy::Default,
            0xffff,
            &lanes(0x4000 + k * 8, 32),
            8,
            k * 10,
        );
    }
    // Three quarters of one more sector.
    for k in 0..3u64 {
        mem.global(
            &mut sm,
            Kind::Store,
            CachePolicy::Default,
            1,
            &lanes(0x8000 + k * 8, 0),
            8,
            100 + k,
        );
    }
    let (hits, dram) = (mem.stats.l2_hits, mem.stats.dram_sectors);
    let c = mem.global(
        &mut sm,
        Kind::Load,
        CachePolicy::Default,
        0xffff,
        &lanes(0x4000, 32),
        8,
        1000,
    );
    assert_eq!(mem.stats.l2_hits - hits, 16, "the 16 whole sectors hit");
    assert_eq!(mem.stats.dram_sectors, dram);
    assert!(c.latency < a.memory.dram_latency, "{}", c.latency);
    let c = mem.global(
        &mut sm,
        Kind::Load,
        CachePolicy::Default,
        1,
        &lanes(0x8000, 0),
        8,
        2000,
    );
    assert_eq!(
        mem.stats.dram_sectors,
        dram + 1,
        "the partly written sector"
    );
    assert!(c.latency >= a.memory.dram_latency);
}
