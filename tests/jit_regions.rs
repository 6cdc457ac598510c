//! Compiled regions (`jit/region.rs`: a loop run lane by lane) on loops
//! longer than one step cap: a lane that passes 2^23 steps asks the
//! watchdog for more (`jit::helpers::jit_region_more`) and goes on, so the
//! loop runs compiled to its end, once. (Before, the region gave up and the
//! driver interpreted one iteration, then entered the region again at the
//! next header: every iteration cost 2^23 steps of work and of the
//! watchdog's budget, the launch stopped on the watchdog after minutes, and
//! the local-memory stores of each abandoned attempt were applied again.)
//! A loop that never ends still meets the watchdog. A checked build
//! (racecheck, initcheck) compiles the loops that load as regions too, and
//! not those that store.
//!
//! Kernel: `tests/data/long_loop/kernel.cu` (NVRTC 12.9, `gen.py`): each
//! thread runs a linear congruential generator 4 M times, adding to a
//! dynamically indexed local array (stores to local memory in the loop).

mod common;

use std::time::Duration;
use warpjit::runtime::{Device, Engine, KernelArg, LaunchConfig, Options};

const N: u32 = 4 << 20;

/// What thread `t` of `long_loop` writes (kernel.cu in Rust).
fn reference(t: u32, n: u32) -> u32 {
    let mut a: [u32; 8] = std::array::from_fn(|k| t + k as u32);
    let mut x = t;
    for i in 0..n {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        a[(x >> 29) as usize] = a[(x >> 29) as usize].wrapping_add(i);
    }
    let mut s = x;
    for (k, v) in a.iter().enumerate() {
        s ^= v.wrapping_mul(k as u32 + 1);
    }
    s
}

fn launch(n: u32, options: Options) -> Result<Vec<u32>, String> {
    let path = common::repo_root().join("tests/data/long_loop/kernel.compute_80.ptx");
    let mut dev = Device::new(options);
    let m = dev.load_ptx("long_loop", &common::read(&path)).unwrap();
    let k = dev.kernel(m, Some("long_loop")).unwrap();
    let out = dev.alloc(32 * 4).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        shared_bytes: 0,
    };
    dev.launch_with(m, k, cfg, &[KernelArg::Ptr(out), KernelArg::U32(n)])
        .map_err(|e| e.to_string())?;
    let mut bytes = vec![0u8; 32 * 4];
    dev.read(out, &mut bytes).unwrap();
    Ok(bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

#[test]
fn a_loop_longer_than_a_step_cap_runs_compiled_to_its_end() {
    // About 25 M steps per lane (the loop is unrolled by four), three caps.
    let start = std::time::Instant::now();
    let got = launch(
        N,
        Options {
            engine: Engine::Jit,
            watchdog_time: Some(Duration::from_secs(120)),
            ..Options::default()
        },
    )
    .unwrap();
    let want: Vec<u32> = (0..32).map(|t| reference(t, N)).collect();
    assert_eq!(got, want);
    // Compiled, it takes a fraction of a second (minutes before).
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_region_still_meets_the_watchdog() {
    // The instruction budget is smaller than one lane's loop: the region
    // stops, and the report is the interpreter's.
    let err = launch(
        N,
        Options {
            engine: Engine::Jit,
            watchdog_instructions: 20 << 20,
            ..Options::default()
        },
    )
    .unwrap_err();
    assert!(err.contains("exceeded its instruction limit"), "{err}");
    assert!(
        err.contains("kernel.cu:") || err.contains(".ptx:"),
        "names a line: {err}"
    );
}

/// The regions of `path`'s module in the plain and the checked build.
fn regions(path: &str) -> (usize, usize) {
    use warpjit::front::{self, SourceFile};
    let text = common::read(&common::repo_root().join(path));
    let source = SourceFile::new(path, &text);
    let ast = front::parse(&source).unwrap();
    let module = warpjit::ir::lower::run(&ast, &source).unwrap();
    // Global addresses matter only to code that runs.
    let addrs = vec![0u64; module.globals.len()];
    let plain = warpjit::jit::compile(&module, &addrs).unwrap();
    let checked = warpjit::jit::compile_checked(&module, &addrs).unwrap();
    (plain.stats.regions, checked.stats.regions)
}

#[test]
fn a_checked_build_compiles_loops_that_load_but_not_loops_that_store() {
    // The naive matmul's inner loop loads A and B: a region in both builds
    // (its accesses are replayed after it, `sanitizer::deferred`).
    let (plain, checked) = regions("ptx-samples/cuda/matmul_naive/kernel.compute_80.ptx");
    assert!(plain >= 1 && checked == plain, "{plain} {checked}");
    // long_loop's loop stores to local memory: plain only (a checked
    // region may be interpreted after it ran, so it must store nothing).
    let (plain, checked) = regions("tests/data/long_loop/kernel.compute_80.ptx");
    assert!(plain >= 1 && checked == 0, "{plain} {checked}");
}
