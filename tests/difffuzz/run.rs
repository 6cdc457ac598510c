//! Running one generated kernel on both engines and comparing everything
//! they produce.

use super::gen::{generate, Program};
use warpjit::runtime::{Device, Engine, KernelArg, LaunchConfig, Options};

/// What one engine produced.
#[derive(Debug, PartialEq)]
pub struct Outcome {
    pub result: Result<String, String>,
    pub out: Vec<u8>,
    pub atomics: Vec<u8>,
}

pub fn execute(p: &Program, engine: Engine) -> Result<Outcome, String> {
    let mut dev = Device::new(Options {
        arena_bytes: 64 << 20,
        engine,
        sequential: true,
        watchdog_instructions: 1 << 26,
        ..Options::default()
    });
    let m = dev
        .load_ptx("fuzz.ptx", &p.ptx)
        .map_err(|e| format!("generator bug: the program does not load:\n{e}"))?;
    let k = dev.kernel(m, Some("fuzz")).map_err(|e| e.to_string())?;
    let input = dev.alloc(p.input.len() as u64).unwrap();
    dev.write(input, &p.input).unwrap();
    let out = dev.alloc(p.out_bytes as u64).unwrap();
    let atomics = dev.alloc(p.atomic_bytes as u64).unwrap();
    let cfg = LaunchConfig {
        grid: [p.grid, 1, 1],
        block: [p.block, 1, 1],
        shared_bytes: 0,
    };
    let args = [
        KernelArg::Ptr(input),
        KernelArg::Ptr(out),
        KernelArg::Ptr(atomics),
        KernelArg::U32(p.n),
    ];
    let result = dev
        .launch_with(m, k, cfg, &args)
        .map(|r| r.printf)
        .map_err(|e| e.to_string());
    let mut o = vec![0u8; p.out_bytes];
    dev.read(out, &mut o).unwrap();
    let mut a = vec![0u8; p.atomic_bytes];
    dev.read(atomics, &mut a).unwrap();
    Ok(Outcome {
        result,
        out: o,
        atomics: a,
    })
}

/// Runs seed `seed` on both engines; describes the first difference.
pub fn compare(seed: u64) -> Result<(), String> {
    let p = generate(seed);
    let interp = execute(&p, Engine::Interp)?;
    let jit = execute(&p, Engine::Jit)?;
    if interp == jit {
        return Ok(());
    }
    let mut why = String::new();
    if interp.result != jit.result {
        why = format!(
            "results differ:\n  interp: {:?}\n  jit:    {:?}",
            interp.result, jit.result
        );
    } else if interp.atomics != jit.atomics {
        why = "atomic targets differ".to_string();
    } else if let Some(i) = (0..interp.out.len())
        .step_by(8)
        .find(|&i| interp.out[i..i + 8] != jit.out[i..i + 8])
    {
        let word = |b: &[u8]| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let slots = super::gen::SLOTS * 8;
        why = format!(
            "out differs first at thread {} slot {}: interp {:#x}, jit {:#x}",
            i / slots,
            (i % slots) / 8,
            word(&interp.out),
            word(&jit.out)
        );
    }
    Err(why)
}
