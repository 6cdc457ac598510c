//! The worked execution diagrams of
//! `shared/reference/nvidia-gpu-microarchitecture-notes.txt`, as PTX
//! (`tests/data/timing/notes_examples.ptx`) on presets holding each
//! example's stated parameters (`tests/data/timing/notes_*.toml`): the cycle
//! model must reproduce the stated issue times exactly. Times are relative
//! to the example's first instruction (the kernels load their parameters
//! first). Where a drawing is garbled, the reading chosen is written beside
//! the expectation (and in docs/timing-model.md).

mod common;

use warpjit::runtime::{Device, KernelArg, LaunchConfig, Options, TimingOptions};
use warpjit::timing::occupancy::{occupancy, OccupancyInput};
use warpjit::timing::report::IssueEvent;
use warpjit::timing::{Arch, TimingReport};

fn read(rel: &str) -> String {
    common::read(&common::repo_root().join(rel))
}

fn preset(name: &str) -> Arch {
    let path = format!("tests/data/timing/{name}.toml");
    Arch::from_toml(&path, &read(&path)).unwrap()
}

/// The PTX line holding `marker` (a `// I0`-style comment).
fn line_of(ptx: &str, kernel: &str, marker: &str) -> u32 {
    let entry = ptx.find(&format!(".entry {kernel}(")).unwrap();
    let start = ptx[..entry].rfind('\n').map_or(0, |i| i + 1);
    let rel = ptx[start..]
        .lines()
        .position(|l| l.trim_end().ends_with(&format!("// {marker}")))
        .unwrap_or_else(|| panic!("{kernel}: no `// {marker}`"));
    (ptx[..start].lines().count() + rel + 1) as u32
}

/// The issue cycle of the instruction at `line` for `warp` (the first one).
fn issue(events: &[IssueEvent], warp: u32, line: u32) -> u64 {
    events
        .iter()
        .filter(|e| e.warp == warp && e.line == line)
        .map(|e| e.cycle)
        .min()
        .unwrap_or_else(|| panic!("warp {warp} never issued line {line}"))
}

#[test]
fn cc61_simple_loop() {
    // Notes: "I0 LD t=0, I1 FADD t=400 (R2), I2 ST t=406 (R7), I3 BRA
    // t=408"; the load and the store dispatch over two cycles (16 LS units
    // per scheduler).
    let ptx = read("tests/data/timing/notes_examples.ptx");
    let r = run("simple_loop", preset("notes_cc61_loop"), 32, |a| {
        vec![KernelArg::Ptr(a), KernelArg::Ptr(a + 4), KernelArg::U32(0)]
    });
    let at = |m| issue(&r.events, 0, line_of(&ptx, "simple_loop", m));
    let t0 = at("I0");
    assert_eq!(
        [at("I1") - t0, at("I2") - t0, at("I3") - t0],
        [400, 406, 408],
        "{}",
        warpjit::timing::diagram::text(&r.events)
    );
    let dispatch = |m| {
        let line = line_of(&ptx, "simple_loop", m);
        r.events.iter().find(|e| e.line == line).unwrap().dispatch
    };
    assert_eq!(
        [
            dispatch("I0"),
            dispatch("I1"),
            dispatch("I2"),
            dispatch("I3")
        ],
        [2, 1, 2, 1]
    );
}

/// Runs `kernel` timed on `arch` over one block of `threads`, recording
/// every warp; `args` receives the address of a 4 KiB device buffer.
fn run(
    kernel: &str,
    arch: Arch,
    threads: u32,
    args: impl Fn(u64) -> Vec<KernelArg>,
) -> TimingReport {
    let ptx = read("tests/data/timing/notes_examples.ptx");
    let mut dev = Device::new(Options::default());
    let m = dev.load_ptx("notes_examples.ptx", &ptx).unwrap();
    let k = dev.kernel(m, Some(kernel)).unwrap();
    let buf = dev.alloc(4096).unwrap();
    let mut opts = TimingOptions::new(arch);
    opts.regs = Some((16, "test".into()));
    opts.diagram_warps = (0..threads.div_ceil(32)).map(|w| (0, w)).collect();
    let params = dev.params(m, k, &args(buf)).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        shared_bytes: 0,
    };
    dev.launch_timed(m, k, cfg, &params, &opts).unwrap().1
}

/// The issue times of `markers` for `warp`, relative to `origin`'s.
fn times(r: &TimingReport, kernel: &str, warp: u32, origin: u64, markers: &[&str]) -> Vec<u64> {
    let ptx = read("tests/data/timing/notes_examples.ptx");
    markers
        .iter()
        .map(|m| issue(&r.events, warp, line_of(&ptx, kernel, m)) - origin)
        .collect()
}

#[test]
fn dual_issue() {
    // Notes: dual issue, two schedulers, 64 FP32 per scheduler; I0-I3 FP32,
    // I4-I5 loads, all independent. "In Cycle 0, I0 and I1 dual issued by
    // both scheduler 0 and 1. In Cycle 4 only I4 is issued since not enough
    // FUs for I4 and I5." Reading (the drawing's columns are garbled): the
    // warps of a scheduler alternate, pairs at 0 and 2 for wp0 and at 1 and
    // 3 for wp2; a load dispatches over two cycles (16 LS units per
    // scheduler), so wp0's I4 at 4, wp2's at 6, wp0's I5 at 8, wp2's at 10.
    let r = run("dual_issue", preset("notes_dual_issue"), 128, |a| {
        vec![KernelArg::Ptr(a), KernelArg::F32(1.5)]
    });
    let ptx = read("tests/data/timing/notes_examples.ptx");
    let t0 = issue(&r.events, 0, line_of(&ptx, "dual_issue", "I0"));
    let m = ["I0", "I1", "I2", "I3", "I4", "I5"];
    let diagram = warpjit::timing::diagram::text(&r.events);
    assert_eq!(
        times(&r, "dual_issue", 0, t0, &m),
        [0, 0, 2, 2, 4, 8],
        "{diagram}"
    );
    assert_eq!(
        times(&r, "dual_issue", 2, t0, &m),
        [1, 1, 3, 3, 6, 10],
        "{diagram}"
    );
    // Scheduler 1 (wp1, wp3) does the same in the same cycles.
    assert_eq!(
        times(&r, "dual_issue", 1, t0, &m),
        [0, 0, 2, 2, 4, 8],
        "{diagram}"
    );
    assert_eq!(
        times(&r, "dual_issue", 3, t0, &m),
        [1, 1, 3, 3, 6, 10],
        "{diagram}"
    );
}

#[test]
fn round_robin_policy() {
    // Notes: round-robin, L_F = 3; wp0, wp2, wp4 on scheduler 0; I0 a load
    // (two-cycle dispatch), I1 needs I0, I2 needs I1. Reading: the loads
    // go out at 0, 2, 4; each I1 400 cycles after its load; each I2 3
    // cycles after its I1, the scheduler taking the warps in turn.
    let r = run("policy", preset("notes_round_robin"), 192, |a| {
        vec![KernelArg::Ptr(a), KernelArg::Ptr(a + 256)]
    });
    let ptx = read("tests/data/timing/notes_examples.ptx");
    let t0 = issue(&r.events, 0, line_of(&ptx, "policy", "I0"));
    let m = ["I0", "I1", "I2"];
    let diagram = warpjit::timing::diagram::text(&r.events);
    assert_eq!(times(&r, "policy", 0, t0, &m), [0, 400, 403], "{diagram}");
    assert_eq!(times(&r, "policy", 2, t0, &m), [2, 402, 405], "{diagram}");
    assert_eq!(times(&r, "policy", 4, t0, &m), [4, 404, 407], "{diagram}");
}

#[test]
fn lowest_numbered_policy() {
    // Notes: lowest-numbered, L_F = 1; I3 a store. wp0 runs I1 I2 [I3] at
    // 400-403 before wp2 gets a turn, as drawn; then wp2 and wp4 follow,
    // each losing the cycles where a lower warp (its `ret` included) is
    // ready, the last store at 410 where the drawing ends.
    let r = run("policy", preset("notes_lowest_numbered"), 192, |a| {
        vec![KernelArg::Ptr(a), KernelArg::Ptr(a + 256)]
    });
    let ptx = read("tests/data/timing/notes_examples.ptx");
    let t0 = issue(&r.events, 0, line_of(&ptx, "policy", "I0"));
    let m = ["I0", "I1", "I2", "I3"];
    let diagram = warpjit::timing::diagram::text(&r.events);
    assert_eq!(
        times(&r, "policy", 0, t0, &m),
        [0, 400, 401, 402],
        "{diagram}"
    );
    assert_eq!(
        times(&r, "policy", 2, t0, &m),
        [2, 403, 405, 406],
        "{diagram}"
    );
    assert_eq!(
        times(&r, "policy", 4, t0, &m),
        [4, 407, 409, 410],
        "{diagram}"
    );
}

#[test]
fn diverged_warp_takes_both_paths() {
    // Notes: odd threads of warp 0 take the sine path, even ones the
    // cosine path; all of warp 1 the sine path. "Time for diverged warp is
    // sum of each path; divergence of one warp does not affect others."
    // Latency 24, four-cycle dispatch; one warp per scheduler.
    let r = run("diverge", preset("notes_divergence"), 64, |a| {
        vec![KernelArg::Ptr(a), KernelArg::F32(0.5)]
    });
    let ptx = read("tests/data/timing/notes_examples.ptx");
    let diagram = warpjit::timing::diagram::text(&r.events);
    let b0 = issue(&r.events, 0, line_of(&ptx, "diverge", "BR"));
    let b1 = issue(&r.events, 1, line_of(&ptx, "diverge", "BR"));
    let sine = ["S1", "S2", "S3", "S4"];
    let cosine = ["C1", "C2", "C3", "C4"];
    // Each path: its first op after the branch's dispatch, then 24 apart.
    assert_eq!(
        times(&r, "diverge", 0, b0, &sine),
        [4, 28, 52, 76],
        "{diagram}"
    );
    assert_eq!(
        times(&r, "diverge", 0, b0, &cosine),
        [80, 104, 128, 152],
        "{diagram}"
    );
    assert_eq!(
        times(&r, "diverge", 1, b1, &sine),
        [4, 28, 52, 76],
        "{diagram}"
    );
    // The store waits for the last path's result: the diverged warp pays
    // both paths (C4 + 24), the converged one only its own (S4 + 24).
    let st0 = times(&r, "diverge", 0, b0, &["ST"])[0];
    let st1 = times(&r, "diverge", 1, b1, &["ST"])[0];
    assert_eq!((st0, st1), (176, 100), "{diagram}");
    assert_eq!(st0 - st1, 152 - 76, "the difference is the cosine path");
}

#[test]
fn warp_contexts_limit_blocks() {
    // Notes: blocks of 25 warps (800 threads) with 64 warp contexts: 2
    // blocks per SM, 14 contexts unused.
    for name in ["sm_70", "sm_80", "sm_90"] {
        let arch = Arch::builtin(name).unwrap();
        assert_eq!(arch.occupancy.max_warps_per_sm, 64);
        let o = occupancy(
            &arch.limits(),
            &OccupancyInput {
                block_threads: 800,
                regs_per_thread: 16,
                static_shared: 0,
                dynamic_shared: 0,
            },
        );
        assert_eq!(
            (o.active_blocks_per_sm, o.active_warps_per_sm),
            (2, 50),
            "{name}"
        );
    }
    // And the block scheduler keeps no more than 2 resident on an SM.
    let mut arch = Arch::builtin("sm_80").unwrap();
    arch.chip.sm_count = 1;
    let ptx = read("tests/data/timing/notes_examples.ptx");
    let mut dev = Device::new(Options::default());
    let m = dev.load_ptx("notes_examples.ptx", &ptx).unwrap();
    let k = dev.kernel(m, Some("policy")).unwrap();
    let buf = dev.alloc(4096).unwrap();
    let params = dev
        .params(m, k, &[KernelArg::Ptr(buf), KernelArg::Ptr(buf + 256)])
        .unwrap();
    let mut opts = TimingOptions::new(arch);
    opts.regs = Some((16, "test".into()));
    let cfg = LaunchConfig {
        grid: [6, 1, 1],
        block: [800, 1, 1],
        shared_bytes: 0,
    };
    let r = dev.launch_timed(m, k, cfg, &params, &opts).unwrap().1;
    assert_eq!(r.blocks_per_sm, 2);
    assert!((r.theoretical_occupancy - 50.0 / 64.0).abs() < 1e-9);
    assert!(r.achieved_occupancy <= 50.0 / 64.0 + 1e-9 && r.achieved_occupancy > 0.5);
}
