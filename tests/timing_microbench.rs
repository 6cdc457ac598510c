//! Microbenchmarks written as GPU researchers write them
//! (`ptx-samples/timing/microbench.cu`, compiled by NVRTC), run on the
//! timing model of every built-in preset: they must report the preset's
//! own latencies back. `%clock64` reads the modeled cycle, so each
//! measurement is, as on a GPU, a difference of two clock reads; two trip
//! counts are differenced to cancel the loop's fixed costs.

mod common;

use warpjit::runtime::{Device, KernelArg, LaunchConfig, Options, TimingOptions};
use warpjit::timing::arch::{Arch, L1Fill, UnitClass, PRESETS};
use warpjit::timing::TimingReport;

const PTX: &str = "ptx-samples/timing/microbench.compute_80.ptx";

struct Bench {
    dev: Device,
    m: warpjit::runtime::ModuleId,
}

impl Bench {
    fn new() -> Bench {
        let text = common::read(&common::repo_root().join(PTX));
        let mut dev = Device::new(Options::default());
        let m = dev.load_ptx(PTX, &text).unwrap();
        Bench { dev, m }
    }

    /// Runs `kernel` timed on `arch` (one block of `threads`).
    fn run(&self, arch: &Arch, kernel: &str, threads: u32, args: &[KernelArg]) -> TimingReport {
        self.run_grid(arch, kernel, 1, threads, args)
    }

    fn run_grid(
        &self,
        arch: &Arch,
        kernel: &str,
        blocks: u32,
        threads: u32,
        args: &[KernelArg],
    ) -> TimingReport {
        let k = self.dev.kernel(self.m, Some(kernel)).unwrap();
        let params = self.dev.params(self.m, k, args).unwrap();
        let mut opts = TimingOptions::new(arch.clone());
        opts.regs = Some((32, "test".into()));
        let cfg = LaunchConfig {
            grid: [blocks, 1, 1],
            block: [threads, 1, 1],
            shared_bytes: 0,
        };
        self.dev
            .launch_timed(self.m, k, cfg, &params, &opts)
            .unwrap()
            .1
    }

    fn read_i64(&self, addr: u64) -> i64 {
        let mut b = [0u8; 8];
        self.dev.read(addr, &mut b).unwrap();
        i64::from_le_bytes(b)
    }

    /// Cycles per chained instruction: (t(8 iterations) - t(4)) / (4 * 64).
    fn chain(&mut self, arch: &Arch, kernel: &str) -> f64 {
        self.chains(arch, kernel, 32)
    }

    /// Cycles between two chained instructions of warp 0 with `threads`
    /// threads each running the chain.
    fn chains(&mut self, arch: &Arch, kernel: &str, threads: u32) -> f64 {
        let bytes = (threads as u64 + 32) * 8;
        let data = self.dev.alloc(bytes).unwrap();
        self.dev.memset(data, 0, bytes).unwrap();
        let out = self.dev.alloc(16).unwrap();
        let mut t = [0i64; 2];
        for (i, iters) in [4, 8].into_iter().enumerate() {
            self.run(
                arch,
                kernel,
                threads,
                &[
                    KernelArg::Ptr(data),
                    KernelArg::Ptr(out),
                    KernelArg::I32(iters),
                ],
            );
            t[i] = self.read_i64(out);
        }
        (t[1] - t[0]) as f64 / (4.0 * 64.0)
    }

    /// A ring of `n` pointers `stride` bytes apart; returns its address.
    fn ring(&mut self, n: u64, stride: u64) -> u64 {
        let base = self.dev.alloc(n * stride).unwrap();
        for i in 0..n {
            let next = base + ((i + 1) % n) * stride;
            self.dev
                .write(base + i * stride, &next.to_le_bytes())
                .unwrap();
        }
        base
    }

    /// Cycles per step of a chase over `ring` after `warm` steps:
    /// (t(2k) - t(k)) / k.
    fn chase(&mut self, arch: &Arch, ring: u64, warm: i32, k: i32) -> f64 {
        let out = self.dev.alloc(16).unwrap();
        let mut t = [0i64; 2];
        for (i, iters) in [k, 2 * k].into_iter().enumerate() {
            let args = [
                KernelArg::Ptr(ring),
                KernelArg::Ptr(out),
                KernelArg::I32(warm),
                KernelArg::I32(iters),
            ];
            self.run(arch, "chase", 1, &args);
            t[i] = self.read_i64(out);
        }
        (t[1] - t[0]) as f64 / k as f64
    }
}

/// What a dependent chain of one class measures: the latency, or the issue
/// interval where fewer than a warp's worth of units make dispatch longer
/// (FP64 on consumer parts), times the op's hardware instructions.
fn expected(arch: &Arch, class: UnitClass, cost: u32) -> f64 {
    (arch.latency.of(class).max(arch.dispatch_cycles(class)) * cost) as f64
}

#[test]
fn dependent_chains_report_each_presets_latencies() {
    let mut b = Bench::new();
    for (name, _) in PRESETS {
        let arch = Arch::builtin(name).unwrap();
        for (kernel, class, cost) in [
            ("chain_add_s32", UnitClass::Int, 1),
            // A 32-bit multiply takes the preset's issue slots (4 on CC 1.x).
            ("chain_mul_s32", UnitClass::Int, arch.units.int_mul32_issues),
            ("chain_fma_f32", UnitClass::Fp32, 1),
            ("chain_fma_f64", UnitClass::Fp64, 1),
            // ex2.approx is two hardware instructions in warpjit's IR.
            ("chain_ex2_f32", UnitClass::Sfu, 2),
        ] {
            let got = b.chain(&arch, kernel);
            let want = expected(&arch, class, cost);
            assert!(
                (got - want).abs() <= 1.0,
                "{name} {kernel}: measured {got:.2} cycles per op, preset says {want}"
            );
        }
    }
}

/// CC 1.x has no 32-bit integer multiplier: a multiply takes four issue
/// slots of the SPs (16 cycles a warp, an add 4), so eight warps of
/// multiply chains run at a quarter of the rate of add chains; from Volta
/// on both run at one rate.
#[test]
fn thirty_two_bit_multiplies_take_four_issue_slots_on_cc_1x() {
    let mut b = Bench::new();
    for (name, ratio) in [("sm_10", 4.0), ("sm_13", 4.0), ("sm_70", 1.0)] {
        let arch = Arch::builtin(name).unwrap();
        let add = b.chains(&arch, "chain_add_s32", 256);
        let mul = b.chains(&arch, "chain_mul_s32", 256);
        assert!(
            (mul / add - ratio).abs() < 0.15 * ratio,
            "{name}: 8 warps: {mul:.1} cycles per multiply, {add:.1} per add"
        );
    }
}

#[test]
fn pointer_chasing_reports_l1_l2_and_dram_latencies() {
    let mut b = Bench::new();
    for (name, _) in PRESETS {
        let arch = Arch::builtin(name).unwrap();
        let m = &arch.memory;
        // A scheduler issuing every other cycle (Tesla, Fermi) issues the
        // next load up to a cycle after its address arrives.
        let tol = arch.scheduler.issue_interval as f64;
        // L1: a 2 KiB ring, warmed; global loads that skip L1 (Kepler) hit L2.
        let small = b.ring(16, 128);
        let l1 = b.chase(&arch, small, 64, 256);
        // (GPUs without data caches, CC 1.x, go to DRAM every time.)
        let l2_or_dram = if m.l2_kib > 0 {
            m.l2_latency
        } else {
            m.dram_latency
        };
        let want = if m.l1_caches_global && m.l1_kib > 0 {
            m.l1_latency
        } else {
            l2_or_dram
        };
        assert!(
            (l1 - want as f64).abs() <= tol,
            "{name} L1: {l1:.2} vs {want}"
        );
        // L2: a 512 KiB ring (more than any L1), or half the L2 where that
        // is smaller (a GTX 660 has 384 KiB), warmed by one lap.
        let lines = (m.l2_kib as i32 * 1024 / 2 / 128).clamp(1, 4096);
        assert!(lines * 128 > m.l1_shared_unified_kib.max(m.l1_kib) as i32 * 1024);
        let large = b.ring(lines as u64, 128);
        let l2 = b.chase(&arch, large, lines, 256);
        let want = l2_or_dram as f64;
        assert!((l2 - want).abs() <= tol, "{name} L2: {l2:.2} vs {want}");
        // Stride 32 over the same footprint: three of four steps share a
        // line. A sectored L1 fetches only the sector that missed, so every
        // step misses it and hits the L2; Fermi's L1 fetches the whole line,
        // so three steps of four hit it.
        let sectors = b.ring(4 * lines as u64, 32);
        let mixed = b.chase(&arch, sectors, 4 * lines, 256);
        let want = if m.l1_fill == L1Fill::Line && m.l1_caches_global {
            (3 * m.l1_latency + m.l2_latency) as f64 / 4.0
        } else {
            l2_or_dram as f64
        };
        assert!(
            (mixed - want).abs() <= tol,
            "{name} stride 32: {mixed:.2} vs {want}"
        );
        // DRAM: lines never read before (each launch starts with cold caches).
        let cold = b.ring(1024, 128);
        let dram = b.chase(&arch, cold, 0, 256);
        let want = m.dram_latency as f64;
        assert!(
            (dram - want).abs() <= tol,
            "{name} DRAM: {dram:.2} vs {want}"
        );
    }
}

/// FMA warp-instructions per cycle of the dependent-FMA kernel with
/// `warps` resident warps on one SM (in blocks of one warp per scheduler).
fn fma_throughput(b: &mut Bench, arch: &Arch, warps: u32) -> f64 {
    let data = b.dev.alloc(warps as u64 * 32 * 4).unwrap();
    let per_block = arch.scheduler.schedulers_per_sm;
    let r = b.run_grid(
        arch,
        "fma_throughput",
        warps / per_block,
        per_block * 32,
        &[
            KernelArg::Ptr(data),
            KernelArg::F32(0.999),
            KernelArg::F32(0.001),
            KernelArg::I32(128),
        ],
    );
    r.mix[UnitClass::Fp32 as usize] as f64 / r.cycles as f64
}

#[test]
fn latency_hiding_knee_follows_littles_law() {
    // Each warp issues a dependent FMA every L cycles, and a scheduler
    // dispatches one every d = 32 / (FP32 units per scheduler) cycles, so n
    // schedulers saturate at n / d FMAs per cycle, reached with n * L / d
    // warps (Little's law: concurrency = latency x throughput). Throughput
    // rises linearly with the warps up to that knee and is flat after it.
    let mut b = Bench::new();
    for name in ["sm_80", "sm_61"] {
        let mut arch = Arch::builtin(name).unwrap();
        arch.chip.sm_count = 1;
        let n = arch.scheduler.schedulers_per_sm;
        let d = arch.dispatch_cycles(UnitClass::Fp32);
        let knee = n * arch.latency.fp32 / d;
        let warps: Vec<u32> = (1..=2 * knee / n).map(|k| k * n).collect();
        let t: Vec<f64> = warps
            .iter()
            .map(|&w| fma_throughput(&mut b, &arch, w))
            .collect();
        let peak = t.iter().cloned().fold(0.0, f64::max);
        eprintln!("{name}: FMA warp-instructions per cycle by resident warps: {t:?}");
        let table: Vec<String> = warps
            .iter()
            .zip(&t)
            .map(|(w, t)| format!("{w}:{t:.2}"))
            .collect();
        // Below the knee, linear: throughput per warp stays within 10% of the
        // one-scheduler-per-warp rate.
        for (&w, &x) in warps.iter().zip(&t) {
            if w < knee {
                let linear = w as f64 / arch.latency.fp32 as f64;
                assert!(
                    (x / linear - 1.0).abs() < 0.15,
                    "{name}: {w} warps give {x:.2}, linear would be {linear:.2} ({table:?})"
                );
            } else {
                assert!(
                    x > 0.9 * peak,
                    "{name}: past the knee ({w} warps) throughput {x:.2} should be flat at {peak:.2} ({table:?})"
                );
            }
        }
        // The knee: the fewest warps reaching 90% of the peak (at the knee
        // itself the loop's own instructions are not quite hidden).
        let found = warps
            .iter()
            .zip(&t)
            .find(|(_, &x)| x >= 0.9 * peak)
            .map(|(&w, _)| w)
            .unwrap();
        assert_eq!(found, knee, "{name}: knee at {found} warps ({table:?})");
        let limit = n as f64 / d as f64;
        assert!(
            peak > 0.9 * limit && peak <= limit,
            "{name}: peak {peak:.2} of {limit}"
        );
    }
}

/// Cycles per warp-instruction of `int_fp32_mix` (four warps of
/// independent integer and FP32 chains) in the steady state: the
/// difference between 8 and 4 outer iterations.
fn mix_cycles_per_instruction(b: &mut Bench, arch: &Arch) -> f64 {
    let fout = b.dev.alloc(128 * 4).unwrap();
    let iout = b.dev.alloc(128 * 4).unwrap();
    let r = |iters: i32| {
        b.run(
            arch,
            "int_fp32_mix",
            128,
            &[
                KernelArg::Ptr(fout),
                KernelArg::Ptr(iout),
                KernelArg::F32(1.0001),
                KernelArg::I32(iters),
            ],
        )
    };
    let (four, eight) = (r(4), r(8));
    (eight.cycles - four.cycles) as f64 / (eight.warp_instructions - four.warp_instructions) as f64
}

#[test]
fn integer_and_fp32_instructions_share_the_cores_before_volta() {
    let mut b = Bench::new();
    // G80: one scheduler issuing every other cycle to eight SPs that take
    // four cycles per warp-instruction, integer or FP32 alike: four cycles
    // each. With separate integer units, the integer ones (two of every
    // three instructions: `xor`, `add` per FMA) would take 8 cycles of 3
    // instructions.
    let g80 = Arch::builtin("sm_10").unwrap();
    assert!(!g80.units.same_pipe.is_empty());
    let shared = mix_cycles_per_instruction(&mut b, &g80);
    let mut separate = g80.clone();
    separate.units.same_pipe.clear();
    let apart = mix_cycles_per_instruction(&mut b, &separate);
    assert!(
        (3.8..4.2).contains(&shared) && (2.5..2.9).contains(&apart),
        "G80: {shared:.2} cycles per instruction on shared cores, {apart:.2} on separate ones"
    );
    // Volta on: separate INT32 and FP32 units.
    assert!(Arch::builtin("sm_70").unwrap().units.same_pipe.is_empty());
}
