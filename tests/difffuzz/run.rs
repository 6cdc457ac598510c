//! Running one generated kernel on both engines, and on the interpreter
//! with one register-file row per register (no shared slots), and comparing
//! everything they produce; or on both engines with every sanitizer check
//! on, comparing their reports too ([`compare_checked`]).

use super::gen::{generate, Program};
use warpjit::runtime::{Device, Engine, KernelArg, LaunchConfig, Options};
use warpjit::sanitizer::Checks;

/// What one engine produced.
#[derive(Debug, PartialEq)]
pub struct Outcome {
    pub result: Result<String, String>,
    pub out: Vec<u8>,
    pub atomics: Vec<u8>,
    /// The sanitizer's reports, as printed (none unchecked).
    pub reports: Vec<String>,
}

pub fn execute(p: &Program, engine: Engine) -> Result<Outcome, String> {
    execute_with(p, engine, true, Checks::default())
}

/// As `execute`; `share_slots: false` gives every register its own row;
/// `checks`: the sanitizer's checks.
pub fn execute_with(
    p: &Program,
    engine: Engine,
    share_slots: bool,
    checks: Checks,
) -> Result<Outcome, String> {
    let mut dev = Device::new(Options {
        arena_bytes: 64 << 20,
        engine,
        sequential: true,
        watchdog_instructions: 1 << 26,
        share_register_slots: share_slots,
        checks,
        ..Options::default()
    });
    let m = dev
        .load_ptx("fuzz.ptx", &p.ptx)
        .map_err(|e| format!("generator bug: the program does not load:\n{e}"))?;
    let k = dev.kernel(m, Some("fuzz")).map_err(|e| e.to_string())?;
    if let Some(d) = dev.unsupported(m, k) {
        return Err(format!(
            "generator bug: the program uses what warpjit refuses:\n{d}"
        ));
    }
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
    let reports = dev.take_reports().iter().map(|r| r.to_string()).collect();
    Ok(Outcome {
        result,
        out: o,
        atomics: a,
        reports,
    })
}

/// Runs seed `seed` on both engines (and the interpreter without shared
/// register slots); describes the first difference.
pub fn compare(seed: u64) -> Result<(), String> {
    let p = generate(seed);
    let interp = execute(&p, Engine::Interp)?;
    let jit = execute(&p, Engine::Jit)?;
    let unshared = execute_with(&p, Engine::Interp, false, Checks::default())?;
    difference("interp", &interp, "jit", &jit)?;
    difference("interp", &interp, "unshared", &unshared)
}

/// Runs seed `seed` on both engines with every sanitizer check on: the
/// results and the reports must be the same (the JIT's checked build
/// replays its accesses' hooks in the interpreter's order,
/// `sanitizer::deferred`).
pub fn compare_checked(seed: u64) -> Result<(), String> {
    let p = generate(seed);
    let all = || Checks::parse("all").unwrap();
    let interp = execute_with(&p, Engine::Interp, true, all())?;
    let jit = execute_with(&p, Engine::Jit, true, all())?;
    difference("checked interp", &interp, "checked jit", &jit)
}

/// Describes the first difference between two outcomes.
fn difference(an: &str, a: &Outcome, bn: &str, b: &Outcome) -> Result<(), String> {
    if a == b {
        return Ok(());
    }
    let mut why = String::new();
    if a.reports != b.reports {
        why = format!(
            "reports differ:\n  {an}: {:#?}\n  {bn}: {:#?}",
            a.reports, b.reports
        );
    } else if a.result != b.result {
        why = format!(
            "results differ:\n  {an}: {:?}\n  {bn}: {:?}",
            a.result, b.result
        );
    } else if a.atomics != b.atomics {
        why = format!("atomic targets differ ({an}, {bn})");
    } else if let Some(i) = (0..a.out.len())
        .step_by(8)
        .find(|&i| a.out[i..i + 8] != b.out[i..i + 8])
    {
        let word = |o: &[u8]| u64::from_le_bytes(o[i..i + 8].try_into().unwrap());
        let slots = super::gen::SLOTS * 8;
        why = format!(
            "out differs first at thread {} slot {}: {an} {:#x}, {bn} {:#x}",
            i / slots,
            (i % slots) / 8,
            word(&a.out),
            word(&b.out)
        );
    }
    Err(why)
}
