//! The memory model against the mechanisms of real GPUs, on real compiler
//! output (`ptx-samples/timing/memory.cu`, `shared_per_kernel.cu` and the
//! fidelity kernels, NVRTC 12.9). Each test failed on the model before its
//! mechanism existed:
//! - a sectored L1: a coalesced stream fetches every sector once (it used
//!   to count three of every four sectors as hits nothing had fetched);
//! - static shared memory per kernel, not per module;
//! - DRAM below its nominal bandwidth, writes written back;
//! - scattered stores pay for their sectors, slices and write-backs; and a
//!   few warps cannot fill the memory system (Little's law);
//! - bank conflicts consume the SM's shared-memory bandwidth.

mod common;

use warpjit::runtime::{Device, KernelArg, LaunchConfig, ModuleId, Options, TimingOptions};
use warpjit::timing::arch::InstructionOrder;
use warpjit::timing::{Arch, TimingReport};

fn load(dev: &mut Device, path: &str) -> ModuleId {
    let text = common::read(&common::repo_root().join(path));
    dev.load_ptx(path, &text).unwrap()
}

fn timed(
    dev: &Device,
    m: ModuleId,
    kernel: &str,
    grid: u32,
    block: u32,
    args: &[KernelArg],
    arch: &Arch,
) -> TimingReport {
    // The dot product's partial sums live in dynamic shared memory.
    let shared_bytes = if kernel == "stream_dot_f64" {
        8 * block
    } else {
        0
    };
    let k = dev.kernel(m, Some(kernel)).unwrap();
    let params = dev.params(m, k, args).unwrap();
    let mut t = TimingOptions::new(arch.clone());
    t.regs = Some((32, "test".into()));
    let cfg = LaunchConfig {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        shared_bytes,
    };
    dev.launch_timed(m, k, cfg, &params, &t).unwrap().1
}

fn device() -> Device {
    Device::new(Options {
        arena_bytes: 1 << 30,
        ..Options::default()
    })
}

/// Bytes per second the launch moved, in GB/s.
fn gbs(bytes: f64, r: &TimingReport) -> f64 {
    bytes / (r.time_us() * 1e-6) / 1e9
}

#[test]
fn a_coalesced_stream_fetches_every_sector_once() {
    let mut dev = device();
    let m = load(&mut dev, "ptx-samples/fidelity/kernels.compute_80.ptx");
    let n: u64 = 1 << 20;
    let a = dev.alloc(n * 8).unwrap();
    let c = dev.alloc(n * 8).unwrap();
    for preset in ["sm_80", "sm_70", "sm_61"] {
        let arch = Arch::builtin(preset).unwrap();
        let r = timed(
            &dev,
            m,
            "stream_copy_f64",
            (n / 1024) as u32,
            1024,
            &[KernelArg::Ptr(a), KernelArg::Ptr(c)],
            &arch,
        );
        let mem = &r.memory;
        let sectors = n * 8 / 32;
        assert_eq!(mem.l1_hits, 0, "{preset}: nothing is read twice");
        assert_eq!(mem.dram_sectors, sectors, "{preset}: every sector once");
        // The stores' sectors come back out as write-backs (less what the
        // L2 still holds at the end).
        let l2_sectors = arch.memory.l2_kib as u64 * 1024 / 32;
        assert!(
            mem.dram_writes + l2_sectors >= sectors && mem.dram_writes <= sectors,
            "{preset}: {} sectors written back of {sectors}",
            mem.dram_writes
        );
    }
}

#[test]
fn static_shared_memory_is_the_kernels_own() {
    let mut dev = device();
    let m = load(
        &mut dev,
        "ptx-samples/timing/shared_per_kernel.compute_80.ptx",
    );
    let out = dev.alloc(1 << 20).unwrap();
    let arch = Arch::builtin("sm_80").unwrap();
    let run = |kernel: &str| timed(&dev, m, kernel, 216, 256, &[KernelArg::Ptr(out)], &arch);
    // No shared memory: 8 blocks of 8 warps fill the SM's 64 warps.
    let r = run("no_shared");
    assert_eq!(r.theoretical_occupancy, 1.0, "limited by {}", r.limiter);
    // 1 KiB through the function it calls: still 8 blocks.
    let r = run("calls_helper");
    assert_eq!(r.theoretical_occupancy, 1.0, "limited by {}", r.limiter);
    // 48 KiB (+1 KiB reserved) per block: 3 blocks of the 164 KiB.
    let r = run("uses_shared");
    assert_eq!(r.blocks_per_sm, 3);
    assert_eq!(r.limiter, "shared_memory");
    let ir = dev.ir(m);
    let k = |name| ir.function_by_name(name).unwrap();
    assert_eq!(ir.static_shared_of(k("no_shared")), 0);
    assert_eq!(ir.static_shared_of(k("calls_helper")), 1024);
    assert_eq!(ir.static_shared_of(k("uses_shared")), 49152);
}

#[test]
fn dram_delivers_less_than_nominal_and_writes_cost_more_than_reads() {
    let mut dev = device();
    let m = load(&mut dev, "ptx-samples/fidelity/kernels.compute_80.ptx");
    // Arrays well past the L2s of these presets (1.5 and 2 MB), so that
    // writes are written back during the run.
    let n: u64 = 1 << 21;
    let a = dev.alloc(n * 8).unwrap();
    let b = dev.alloc(n * 8).unwrap();
    let partial = dev.alloc(1 << 16).unwrap();
    for preset in ["sm_35", "sm_52", "sm_61"] {
        let arch = Arch::builtin(preset).unwrap();
        let nominal = arch.memory.dram_bandwidth_gbs;
        let copy = timed(
            &dev,
            m,
            "stream_copy_f64",
            (n / 1024) as u32,
            1024,
            &[KernelArg::Ptr(a), KernelArg::Ptr(b)],
            &arch,
        );
        let copy = gbs((2 * n * 8) as f64, &copy);
        let dot = timed(
            &dev,
            m,
            "stream_dot_f64",
            4 * arch.chip.sm_count,
            1024,
            &[
                KernelArg::Ptr(a),
                KernelArg::Ptr(b),
                KernelArg::Ptr(partial),
                KernelArg::U64(n),
            ],
            &arch,
        );
        let dot = gbs((2 * n * 8) as f64, &dot);
        assert!(
            copy < 0.92 * nominal && dot < 0.97 * nominal,
            "{preset}: copy {copy:.0}, dot {dot:.0} of {nominal} GB/s"
        );
        assert!(copy < dot, "{preset}: copy {copy:.0} vs read-only {dot:.0}");
        assert!(
            copy > 0.6 * nominal,
            "{preset}: copy {copy:.0} of {nominal}"
        );
    }
}

#[test]
fn scattered_stores_pay_for_their_sectors() {
    let mut dev = device();
    let m = load(&mut dev, "ptx-samples/timing/memory.compute_80.ptx");
    let n: u64 = 1 << 18;
    let input = dev.alloc(n * 4).unwrap();
    let out = dev.alloc(n * 4 * 32).unwrap();
    let arch = Arch::builtin("sm_70").unwrap();
    let run = |stride: u32| {
        timed(
            &dev,
            m,
            "scatter_store",
            (n / 256) as u32,
            256,
            &[
                KernelArg::Ptr(input),
                KernelArg::Ptr(out),
                KernelArg::U32(stride),
            ],
            &arch,
        )
    };
    let unit = run(1);
    let scattered = run(32);
    // Each warp's store touches 32 lines instead of one: 8 times the
    // sectors through the L1 pipeline, the port and the L2 slices, and
    // partly written sectors written back whole.
    let ratio = scattered.estimated_cycles as f64 / unit.estimated_cycles as f64;
    assert!(ratio > 3.0, "stride 32 takes {ratio:.2}x stride 1");
    assert!(scattered.memory.dram_writes > 6 * unit.memory.dram_writes.max(1));
}

#[test]
fn a_few_warps_cannot_fill_the_memory_system() {
    let mut dev = device();
    let m = load(&mut dev, "ptx-samples/timing/memory.compute_80.ptx");
    let arch = Arch::builtin("sm_80").unwrap();
    let sms = arch.chip.sm_count;
    let per_thread = 64u32;
    let input = dev.alloc(64 << 20).unwrap();
    let out = dev.alloc(1 << 20).unwrap();
    // One warp per SM, 8 loads in flight each: at most 8 x 256 B per SM in
    // flight, so about that much per DRAM latency (Little's law), a third
    // of the DRAM's bandwidth; 32 warps per SM come close to it.
    let run = |warps: u32| {
        let r = timed(
            &dev,
            m,
            "stream_ilp",
            sms,
            32 * warps,
            &[
                KernelArg::Ptr(input),
                KernelArg::Ptr(out),
                KernelArg::U32(per_thread),
            ],
            &arch,
        );
        gbs((sms * 32 * warps * per_thread * 8) as f64, &r)
    };
    let one = run(1);
    let many = run(32);
    let per_sm_cycle = 8.0 * 256.0 / arch.memory.dram_latency as f64;
    let little = per_sm_cycle * sms as f64 * arch.chip.clock_mhz / 1e3;
    assert!(
        one < 1.2 * little && one > 0.5 * little,
        "one warp per SM: {one:.0} GB/s, Little's law {little:.0}"
    );
    let nominal = arch.memory.dram_bandwidth_gbs;
    assert!(
        many > 2.5 * one && many > 0.8 * nominal,
        "32 warps per SM: {many:.0} GB/s vs {one:.0} (nominal {nominal})"
    );
}

#[test]
fn bank_conflicts_consume_shared_memory_bandwidth() {
    let mut dev = device();
    let m = load(&mut dev, "ptx-samples/timing/memory.compute_80.ptx");
    let out = dev.alloc(1 << 22).unwrap();
    for preset in ["sm_80", "sm_61"] {
        let arch = Arch::builtin(preset).unwrap();
        let run = |stride: u32| {
            timed(
                &dev,
                m,
                "shared_stride",
                16,
                1024,
                &[
                    KernelArg::Ptr(out),
                    KernelArg::U32(stride),
                    KernelArg::U32(128),
                ],
                &arch,
            )
        };
        let free = run(1);
        let conflicted = run(32);
        assert_eq!(conflicted.memory.bank_conflict_degree_max, 32);
        // With the SM full of warps reading shared memory, a 32-way
        // conflict takes 32 passes of the SM's shared pipeline per access:
        // the loop is bound by shared bandwidth, many times slower.
        let ratio = conflicted.estimated_cycles as f64 / free.estimated_cycles as f64;
        assert!(ratio > 8.0, "{preset}: 32-way conflicts take {ratio:.1}x");
    }
}

#[test]
fn a_ctas_slot_is_free_once_its_stores_are_acknowledged() {
    let mut dev = device();
    let m = load(&mut dev, "ptx-samples/fidelity/kernels.compute_80.ptx");
    let arch = Arch::builtin("sm_80").unwrap();
    let sms = arch.chip.sm_count;
    // Two 64-thread CTAs per SM (60 KiB of shared memory each), each
    // thread loading one double and storing one: a CTA lives a load's
    // DRAM latency, then until the L2 has acknowledged its stores (a warp
    // is done in hardware only then), and only then does the next CTA
    // take its slot.
    let waves = 16u64;
    let n = waves * 2 * sms as u64 * 64;
    let a = dev.alloc(n * 8).unwrap();
    let b = dev.alloc(n * 8).unwrap();
    let k = dev.kernel(m, Some("gpubench_scale_f64")).unwrap();
    let params = dev
        .params(
            m,
            k,
            &[KernelArg::Ptr(a), KernelArg::Ptr(b), KernelArg::U64(n)],
        )
        .unwrap();
    let mut t = TimingOptions::new(arch.clone());
    t.regs = Some((16, "test".into()));
    let cfg = LaunchConfig {
        grid: [(n / 64) as u32, 1, 1],
        block: [64, 1, 1],
        shared_bytes: 60 << 10,
    };
    let r = dev.launch_timed(m, k, cfg, &params, &t).unwrap().1;
    assert_eq!(r.blocks_per_sm, 2);
    let lifetime = r.estimated_cycles as f64 / waves as f64;
    let (dram, l2) = (arch.memory.dram_latency, arch.memory.l2_latency);
    assert!(
        lifetime > (dram + l2) as f64,
        "a CTA lives {lifetime:.0} cycles; DRAM latency {dram}, L2 latency {l2}"
    );
}

#[test]
fn a_freed_ctas_slot_takes_the_next_cta_after_the_block_launch_time() {
    let mut dev = device();
    let m = load(&mut dev, "ptx-samples/fidelity/kernels.compute_80.ptx");
    // Blocks whose threads all return at their guard (n = 0): one SM,
    // 64 waves of one 64-thread CTA each. A CTA lives a few cycles, and
    // its slot takes the next CTA `block_launch_cycles` after it retires
    // (the round trip to the work distributor), so the kernel takes at
    // least 63 of them; without the launch time, a few cycles per CTA.
    let a = dev.alloc(8).unwrap();
    let k = dev.kernel(m, Some("gpubench_scale_f64")).unwrap();
    let params = dev
        .params(
            m,
            k,
            &[KernelArg::Ptr(a), KernelArg::Ptr(a), KernelArg::U64(0)],
        )
        .unwrap();
    let waves = 64u64;
    let cycles = |launch: u32| {
        let mut arch = Arch::builtin("sm_80").unwrap();
        arch.chip.sm_count = 1;
        arch.chip.block_launch_cycles = launch;
        let mut t = TimingOptions::new(arch);
        t.regs = Some((16, "test".into()));
        let cfg = LaunchConfig {
            grid: [waves as u32, 1, 1],
            block: [64, 1, 1],
            // One CTA per SM.
            shared_bytes: 100 << 10,
        };
        let r = dev.launch_timed(m, k, cfg, &params, &t).unwrap().1;
        assert_eq!(r.blocks_per_sm, 1);
        r.estimated_cycles
    };
    let launch = Arch::builtin("sm_80").unwrap().chip.block_launch_cycles;
    assert!(launch > 0, "sm_80 gives a block launch time");
    let (with, without) = (cycles(launch), cycles(0));
    assert!(
        with >= (waves - 1) * launch as u64 && with < without + waves * (launch as u64 + 1),
        "{waves} CTAs in turn: {with} cycles with a {launch}-cycle launch, {without} without"
    );
    assert!(
        without < waves * 100,
        "empty CTAs without a launch time: {without} cycles"
    );
}

#[test]
fn column_writes_camp_on_one_partition_where_partitions_are_taken_in_turn() {
    let mut dev = device();
    let m = load(&mut dev, "ptx-samples/fidelity/kernels.compute_80.ptx");
    // A 1024 x 1024 float transpose: the CTAs resident at once share a
    // few tile rows of the input, so they write a few tile columns of the
    // output, whose rows are 4 KiB apart: on GT200 (eight 256-byte
    // partitions in turn) all those writes fall on one or two partitions,
    // whose full queues then hold the SMs; from Fermi on, addresses are hashed over the
    // partitions and the writes spread (Ruetsch & Micikevicius, "Optimizing
    // Matrix Transpose in CUDA": 16.6 GB/s against a copy's 96.9 on a GTX
    // 280 at 2048 x 2048; 103.2 against 125.2 on a Tesla M2090).
    let bytes = 1u64 << 22;
    let input = dev.alloc(bytes).unwrap();
    let out = dev.alloc(bytes).unwrap();
    let time = |kernel: &str, shared_bytes: u32, arch: &Arch| {
        let k = dev.kernel(m, Some(kernel)).unwrap();
        let params = dev
            .params(m, k, &[KernelArg::Ptr(out), KernelArg::Ptr(input)])
            .unwrap();
        let mut t = TimingOptions::new(arch.clone());
        t.regs = Some((16, "test".into()));
        let cfg = LaunchConfig {
            grid: [32, 32, 1],
            block: [32, 8, 1],
            shared_bytes,
        };
        dev.launch_timed(m, k, cfg, &params, &t)
            .unwrap()
            .1
            .time_us()
    };
    for (preset, low, high) in [("sm_13", 0.0, 0.5), ("sm_20", 0.6, 1.1)] {
        let arch = Arch::builtin(preset).unwrap();
        let ratio = time("transpose_copy_f32", 0, &arch)
            / time("transpose_nobankconflicts_f32", 33 * 32 * 4, &arch);
        assert!(
            ratio > low && ratio < high,
            "{preset}: the transpose runs at {ratio:.2} of the copy's bandwidth"
        );
    }
}

#[test]
fn loads_in_the_compilers_order_keep_the_l1_busy() {
    let mut dev = device();
    let m = load(&mut dev, "ptx-samples/fidelity/kernels.compute_80.ptx");
    // gpu-benches' L1 bandwidth kernel: one 256-thread block sums a 24 kB
    // buffer 50 times, each thread every 256th double, 12 loads per pass
    // unrolled. NVVM puts each load next to its add (`ld, add, ld, add`):
    // issued in that order, a warp has one load in flight and the L1 idles.
    // ptxas hoists six to seven loads ahead of the adds; the measured A100 L1 then
    // delivers 18.9 TB/s over 108 SMs at 1410 MHz, 124 bytes per SM-cycle
    // (gpu-benches gpu-cache, a100_80.txt).
    let a = dev.alloc(2048).unwrap();
    let b = dev.alloc(24576).unwrap();
    let passes = 50u32;
    let args = [
        KernelArg::Ptr(a),
        KernelArg::Ptr(b),
        KernelArg::U32(passes),
        KernelArg::U32(0),
    ];
    let per_cycle = |order: InstructionOrder| {
        let mut arch = Arch::builtin("sm_80").unwrap();
        arch.chip.sm_count = 1;
        arch.scheduler.instruction_order = order;
        let r = timed(&dev, m, "gpubench_cache_sum_f64_24kb", 1, 256, &args, &arch);
        24576.0 * passes as f64 / r.cycles as f64
    };
    let (ptx, compiler) = (
        per_cycle(InstructionOrder::Ptx),
        per_cycle(InstructionOrder::Compiler),
    );
    assert!(
        (100.0..140.0).contains(&compiler) && ptx < 0.6 * compiler,
        "bytes per cycle: {compiler:.1} in the compiler's order, {ptx:.1} in PTX order (measured: 124)"
    );
}

#[test]
fn strided_copies_read_dram_as_the_h100_does() {
    // Nsight Compute on an H100 (ptx-samples/hw/h100-ncu-copy.csv,
    // `stride_copy_f32`: thread i copies element s*i): DRAM reads per
    // 32-byte sector the loads ask for are 2 at strides of 2-8 words (the
    // input once, plus a read of each partly written output sector before
    // its write-back) and 3 at 16 and 32 words (the input in 64-byte
    // fetches, plus the output's). The model fetched exactly the sectors
    // asked for and wrote partial sectors back without reading them: 1.
    let mut dev = device();
    let m = load(&mut dev, "ptx-samples/fidelity/kernels.compute_80.ptx");
    let threads: u64 = 1 << 18;
    let mut arch = Arch::builtin("sm_90").unwrap();
    arch.memory.l2_kib = 256; // so that nearly every line is evicted
    for (s, want) in [(4u64, 2.0), (8, 2.0), (16, 3.0), (32, 3.0)] {
        let bytes = threads * s * 4;
        let a = dev.alloc(bytes).unwrap();
        let c = dev.alloc(bytes).unwrap();
        let r = timed(
            &dev,
            m,
            "stride_copy_f32",
            (threads / 256) as u32,
            256,
            &[
                KernelArg::Ptr(c),
                KernelArg::Ptr(a),
                KernelArg::U32(s as u32),
            ],
            &arch,
        );
        let asked = threads * 4 / 32 * s.min(8); // input sectors the loads touch
        let ratio = r.memory.dram_sectors as f64 / asked as f64;
        assert!(
            (ratio - want).abs() < 0.15,
            "stride {s}: {ratio:.2} DRAM sectors read per sector asked, an H100 reads {want}"
        );
        dev.free(a).unwrap();
        dev.free(c).unwrap();
    }
}

/// What the host has just written is in the L2 when `uploads_in_l2` asks
/// for it, as a GPU's copy engines leave it (every memory write goes
/// through the L2): a copy of 1 MiB it uploaded reads no sector from DRAM
/// and takes less time than from a cold L2; without the option, every
/// sector comes from DRAM.
#[test]
fn uploads_can_start_in_the_l2() {
    let arch = Arch::builtin("sm_80").unwrap();
    let run = |uploads_in_l2: bool| {
        let mut dev = device();
        let m = load(&mut dev, "ptx-samples/fidelity/kernels.compute_80.ptx");
        let n = 1u64 << 17; // doubles: 1 MiB
        let (a, c) = (dev.alloc(n * 8).unwrap(), dev.alloc(n * 8).unwrap());
        dev.write(a, &vec![1u8; (n * 8) as usize]).unwrap();
        let k = dev.kernel(m, Some("stream_copy_f64")).unwrap();
        let params = dev
            .params(m, k, &[KernelArg::Ptr(a), KernelArg::Ptr(c)])
            .unwrap();
        let mut t = TimingOptions::new(arch.clone());
        t.regs = Some((32, "test".into()));
        t.uploads_in_l2 = uploads_in_l2;
        let cfg = LaunchConfig {
            grid: [(n / 256) as u32, 1, 1],
            block: [256, 1, 1],
            shared_bytes: 0,
        };
        dev.launch_timed(m, k, cfg, &params, &t).unwrap().1
    };
    let (warm, cold) = (run(true), run(false));
    assert_eq!(warm.memory.dram_sectors, 0, "the upload is in the L2");
    assert!(
        cold.memory.dram_sectors >= (1 << 20) / 32,
        "cold: all from DRAM"
    );
    assert!(
        warm.estimated_cycles < cold.estimated_cycles,
        "{} vs {}",
        warm.estimated_cycles,
        cold.estimated_cycles
    );
}
