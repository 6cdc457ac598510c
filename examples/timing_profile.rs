//! Runs one timed launch of a corpus sample many times on one device (the
//! module compiled once), for profiling the timing model:
//! `cargo run --release --example timing_profile -- cuda/matmul_naive 100`.

use std::path::PathBuf;

use warpjit::runtime::{args, Device, LaunchConfig, Options, TimingOptions};
use warpjit::timing::Arch;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let name = a.get(1).map(String::as_str).unwrap_or("cuda/matmul_naive");
    let reps: usize = a.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("ptx-samples")
        .join(name);
    let spec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("sample.json")).unwrap()).unwrap();
    let ptx = dir.join(spec["ptx"][0].as_str().unwrap());
    let mut dev = Device::new(Options::default());
    let m = dev
        .load_ptx(name, &std::fs::read_to_string(&ptx).unwrap())
        .unwrap();
    let k = dev.kernel(m, spec["kernel"].as_str()).unwrap();
    let specs: Vec<_> = spec["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| args::parse_arg(s.as_str().unwrap()).unwrap())
        .collect();
    let out = std::env::temp_dir();
    let prepared = args::prepare(&mut dev, m, k, &specs, &dir, &out).unwrap();
    let dim = |key: &str| -> [u32; 3] {
        let v: Vec<u32> = spec[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as u32)
            .collect();
        [v[0], v[1], v[2]]
    };
    let cfg = LaunchConfig {
        grid: dim("grid"),
        block: dim("block"),
        shared_bytes: spec["shared_bytes"].as_u64().unwrap_or(0) as u32,
    };
    let t = TimingOptions::new(Arch::builtin("sm_80").unwrap());
    let (mut instr, mut wall) = (0u64, 0f64);
    for _ in 0..reps {
        let (_, r) = dev.launch_timed(m, k, cfg, &prepared.params, &t).unwrap();
        instr += r.warp_instructions;
        wall += r.wall.as_secs_f64();
    }
    println!(
        "{name}: {instr} warp-instructions in {:.1} ms, {:.2} M/s",
        wall * 1e3,
        instr as f64 / wall / 1e6
    );
}
