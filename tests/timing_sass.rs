//! SASS-aware issue costs (`timing::costs`, `warpjit::sass`): the timing
//! model issuing what ptxas emits for each PTX line instead of the PTX's
//! instructions. Everything here reads the committed sidecars
//! (`FILE.ptx.sass.json`, `ptx-samples/gen/gen_sass.py`), so it needs
//! neither Python nor CUDA; the CLI tests hide any installed ptxas
//! (`WARPJIT_PTXAS` pointing nowhere) so that they read the sidecars too.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use common::samples::{Outcome, Sample};
use warpjit::runtime::{Costs, Engine, TimingOptions};
use warpjit::sass;
use warpjit::timing::{Arch, TimingReport};

/// The corpus files with no sidecar: those ptxas 12.9 rejects (PTX ISA
/// 9.4), and those never timed.
const NO_SIDECAR: [&str; 16] = [
    "triton/matmul_bf16/kernel.sm_90a.ptx",
    "triton/matmul_fp16/kernel.sm_90a.ptx",
    // The sanitizer's test kernels are never timed (tests/sanitizer*.rs).
    "sanitizer/bugs.ptx",
    "sanitizer/bugs_heap.ptx",
    "sanitizer/bugs_init.ptx",
    "sanitizer/bugs_local.ptx",
    "sanitizer/bugs_mbarrier.ptx",
    "sanitizer/bugs_memcheck.ptx",
    "sanitizer/bugs_race.ptx",
    "sanitizer/bugs_sync.ptx",
    "sanitizer/correct.ptx",
    "sanitizer/correct2.ptx",
    "sanitizer/race_cluster.ptx",
    "sanitizer/race_global.ptx",
    "sanitizer/race_multicast.ptx",
    "sanitizer/race_order.ptx",
];

fn sample(name: &str) -> Sample {
    Sample::matching(Some(name))
        .into_iter()
        .find(|s| s.name() == name)
        .expect("the sample")
}

/// Timing options on `arch` with the sample's committed SASS.
fn sass_options(ptx: &Path, arch: &str) -> TimingOptions {
    let text = common::read(ptx);
    let table = sass::read_sidecar(ptx, &text).expect("a current sidecar");
    let mut t = TimingOptions::new(Arch::builtin(arch).unwrap());
    t.costs = Costs::Sass(Arc::new(table));
    t
}

fn timed(s: &Sample, t: &TimingOptions) -> TimingReport {
    let ptx = s.ptx_files()[0].clone();
    let (outcome, observed) = s.run_with(&ptx, Engine::Jit, Some(t));
    assert!(
        matches!(outcome, Outcome::Pass),
        "{}: {outcome:?}",
        s.name()
    );
    observed.timing.expect("a timing report")
}

/// Per line of the JSON report: issues.
fn issues_by_line(r: &TimingReport) -> std::collections::BTreeMap<u32, u64> {
    r.line_cycles
        .top(usize::MAX)
        .into_iter()
        .map(|(l, _, i)| (l, i))
        .collect()
}

#[test]
fn every_corpus_ptx_has_a_current_sidecar() {
    let root = common::repo_root().join("ptx-samples");
    let mut missing = Vec::new();
    for ptx in common::corpus_ptx_files() {
        let rel = ptx.strip_prefix(&root).unwrap().display().to_string();
        let text = common::read(&ptx);
        match sass::read_sidecar(&ptx, &text) {
            Ok(t) => {
                assert!(
                    !NO_SIDECAR.contains(&rel.as_str()),
                    "{rel} has a sidecar now"
                );
                assert!(
                    t.instructions > 0 && !t.lines.is_empty(),
                    "{rel}: empty table"
                );
                assert!(
                    t.kernels.values().all(|k| k.regs.is_some()),
                    "{rel}: registers"
                );
            }
            Err(why) if NO_SIDECAR.contains(&rel.as_str()) => {
                assert!(why.starts_with("no sidecar"), "{rel}: {why}")
            }
            Err(why) => missing.push(format!("{rel}: {why}")),
        }
    }
    assert!(
        missing.is_empty(),
        "run ptx-samples/gen/gen_sass.py:\n{}",
        missing.join("\n")
    );
}

/// The shared-memory tiled matmul on the sm_60 preset: with SASS costs a
/// warp issues the SASS's load/store instructions (ptxas merges four
/// `ld.shared.f32` of A's row into one `LDS.128`, and the kernel
/// parameters' `ld.param` are constant-bank operands): 97 per warp instead
/// of the PTX's 145; the launch gets faster.
#[test]
fn tiled_matmul_issues_the_sass_load_stores() {
    let s = sample("cuda/matmul_tiled");
    let ptx = s.ptx_files()[0].clone();
    let ptx_report = timed(&s, &TimingOptions::new(Arch::builtin("sm_60").unwrap()));
    let t = sass_options(&ptx, "sm_60");
    let sass_report = timed(&s, &t);
    let Costs::Sass(table) = &t.costs else {
        unreachable!()
    };
    // The loop body's lines run K/16 = 4 times, the rest once.
    let text = common::read(&ptx);
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("$L__BB0_2:"))
        .unwrap() as u32
        + 1;
    let end = lines
        .iter()
        .position(|l| l.contains("bra \t$L__BB0_2;"))
        .unwrap() as u32
        + 1;
    let per_warp: u32 = table
        .lines
        .iter()
        .map(|(&line, l)| {
            let mem: u32 = l.mem.iter().map(|m| m.1).sum();
            if (start..=end).contains(&line) {
                4 * mem
            } else {
                mem
            }
        })
        .sum();
    assert_eq!(per_warp, 97);
    let warps = 5 * 6 * 8;
    let ls = |r: &TimingReport| r.mix[warpjit::timing::arch::UnitClass::Ls as usize];
    assert_eq!(ls(&ptx_report), 145 * warps);
    assert_eq!(ls(&sass_report), per_warp as u64 * warps);
    // Faster, though not by the issue slots saved alone: the shared loads
    // ptxas merged into LDS.128 still take the SM's shared pipeline as many
    // passes (a wide access moves the same bytes), which bounds this loop.
    assert!(
        (sass_report.cycles as f64) < 0.98 * ptx_report.cycles as f64,
        "{} vs {} cycles",
        sass_report.cycles,
        ptx_report.cycles
    );
    assert_eq!(sass_report.regs_source, "ptxas");
    assert_eq!(sass_report.regs_per_thread, 32);
    assert!(
        sass_report.costs.starts_with("SASS sm_80 (ptxas 12.9"),
        "{}",
        sass_report.costs
    );
    assert_eq!(ptx_report.costs, "PTX");
}

/// Four `ld.shared.f32` of consecutive words that ptxas merged into one
/// `LDS.128`: the first issues, the other three are folded, and their
/// accesses still reach the memory model (same shared accesses as the PTX
/// model counts).
#[test]
fn merged_loads_fold_but_keep_their_accesses() {
    let s = sample("cuda/matmul_tiled");
    let ptx = s.ptx_files()[0].clone();
    let table = sass::read_sidecar(&ptx, &common::read(&ptx)).unwrap();
    let wide = table
        .lines
        .iter()
        .filter(|(_, l)| l.mem.iter().any(|(m, _)| m.bytes == 16))
        .map(|(&line, _)| line)
        .collect::<Vec<_>>();
    assert_eq!(wide.len(), 4, "{wide:?}");
    let r = timed(&s, &sass_options(&ptx, "sm_80"));
    let p = timed(&s, &TimingOptions::new(Arch::builtin("sm_80").unwrap()));
    let issues = issues_by_line(&r);
    let text = common::read(&ptx);
    for &line in &wide {
        assert!(issues.get(&line).copied().unwrap_or(0) > 0, "line {line}");
        // The next three loads of A's row (every third line) are folded.
        for k in 1..=3 {
            let merged = line + 3 * k;
            assert!(
                text.lines()
                    .nth(merged as usize - 1)
                    .unwrap()
                    .contains("ld.shared.f32"),
                "line {merged}"
            );
            assert_eq!(
                issues.get(&merged).copied().unwrap_or(0),
                0,
                "line {merged}"
            );
        }
    }
    assert_eq!(r.memory.shared_accesses, p.memory.shared_accesses);
    assert!(r.folded_instructions > 0);
}

/// vector_add's SASS has 16 instructions for the PTX's 22 (the
/// `ld.param`s are constant-bank operands, the `cvta.to.global`s and most
/// address arithmetic fold into `IMAD.WIDE` and addressing): every warp
/// (all threads in range) issues exactly the 16 SASS instructions; the
/// `ld.param`s issue nothing, and of the three `cvta`s one issues, standing
/// for line 46's extra instruction (`MOV` of the constant 4 as `HFMA2.MMA`,
/// beside its `IMAD.WIDE.U32`: leftovers go to folded ops of the block).
#[test]
fn folded_address_arithmetic_takes_no_issue_slot() {
    let s = sample("cuda/vector_add");
    let ptx = s.ptx_files()[0].clone();
    let text = common::read(&ptx);
    let table = sass::read_sidecar(&ptx, &text).unwrap();
    assert_eq!(table.instructions, 16);
    let r = timed(&s, &sass_options(&ptx, "sm_80"));
    let p = timed(&s, &TimingOptions::new(Arch::builtin("sm_80").unwrap()));
    // (The last warp's lanes past the end take the branch to `ret`, which
    // the others reach too: every warp runs every instruction once.)
    let warps = 256 / 32 * r.grid_ctas;
    assert_eq!(r.hw_instructions, 16 * warps);
    // Each op of the IR (26 per warp) issues or is folded.
    assert_eq!(p.warp_instructions, 26 * warps);
    assert_eq!(r.warp_instructions + r.folded_instructions, 26 * warps);
    let issues = issues_by_line(&r);
    let ptx_issues = issues_by_line(&p);
    let (mut params, mut cvtas) = (0, 0);
    for (i, l) in text.lines().enumerate() {
        let line = i as u32 + 1;
        let l = l.trim();
        let n = issues.get(&line).copied().unwrap_or(0);
        if l.starts_with("ld.param") {
            assert!(ptx_issues[&line] > 0);
            assert_eq!(n, 0, "line {line}: {l}");
            params += 1;
        } else if l.starts_with("cvta.to.global") {
            assert_eq!(ptx_issues[&line], warps);
            cvtas += n;
        }
    }
    assert_eq!(params, 4);
    assert_eq!(cvtas, warps);
}

/// A `float4` copy: `ld.global.v4.f32` is one `LDG.E.128` (16 bytes per
/// thread in the table), one issue per element.
#[test]
fn vector_loads_are_one_wide_instruction() {
    let s = sample("cuda/grid_stride_copy_vec");
    let ptx = s.ptx_files()[0].clone();
    let text = common::read(&ptx);
    let table = sass::read_sidecar(&ptx, &text).unwrap();
    let v4 = text
        .lines()
        .position(|l| l.contains("ld.global.v4.f32"))
        .expect("a v4 load") as u32
        + 1;
    let l = &table.lines[&v4];
    assert_eq!(l.mem.len(), 1);
    assert_eq!((l.mem[0].0.bytes, l.mem[0].1), (16, 1));
    let r = timed(&s, &sass_options(&ptx, "sm_80"));
    assert!(issues_by_line(&r)[&v4] > 0);
}

/// Every corpus sample with SASS costs on sm_80: results unchanged, a
/// consistent report (its issue cycles account for no more than its ops),
/// the same with solo runs off and on the interpreter (but `cas_loop`, as
/// in `timing_samples.rs`).
#[test]
fn sass_costs_keep_results_and_reports_agree() {
    let filter = std::env::var("WARPJIT_SAMPLE").ok();
    let mut failures = Vec::new();
    let mut timed = 0;
    for s in Sample::matching(filter.as_deref()) {
        // Timed launches are not cooperative (grid-wide sync traps there)
        // and have no clusters.
        if s.spec["cooperative"].as_bool() == Some(true) || s.clustered() {
            continue;
        }
        let ptx = s.ptx_files()[0].clone();
        let (_, plain) = s.run(&ptx, Engine::Jit);
        let t = sass_options(&ptx, "sm_80");
        let mut jit = None;
        for (engine, run_ahead) in [
            (Engine::Jit, true),
            (Engine::Jit, false),
            (Engine::Interp, true),
        ] {
            let label = format!("{} ({engine:?}, solo runs {run_ahead})", s.name());
            let t = TimingOptions {
                run_ahead,
                ..t.clone()
            };
            let (outcome, o) = s.run_with(&ptx, engine, Some(&t));
            if let Outcome::Fail(why) = &outcome {
                failures.push(format!("{label}: {why}"));
                continue;
            }
            if o.printf != plain.printf || o.error != plain.error {
                failures.push(format!("{label}: results differ from the untimed launch"));
                continue;
            }
            let Some(r) = o.timing else { continue };
            timed += 1;
            if !r.costs.starts_with("SASS") || r.warp_instructions == 0 {
                failures.push(format!("{label}: costs {:?}", r.costs));
            }
            // A scheduler-cycle with an issue issued an op (or, picking a
            // warp that stood at folded ones, those).
            let n_sched = 4;
            let sm_cycles: u64 = r.sm_cycles.iter().sum();
            let issue_cycles = sm_cycles * n_sched - r.stalls.iter().sum::<u64>();
            if issue_cycles > r.warp_instructions + r.folded_instructions {
                failures.push(format!("{label}: {issue_cycles} issue cycles"));
            }
            let json = r.to_json();
            match (&jit, engine) {
                (None, _) => jit = Some(json),
                (Some(_), Engine::Interp) if s.name() == "cuda/cas_loop" => {}
                (Some(j), _) if *j != json => failures.push(format!(
                    "{label}: report differs from the JIT's with solo runs"
                )),
                _ => {}
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(timed > 150, "only {timed} timed runs");
}

/// The library's default is the PTX model: the worked examples and the
/// other timing tests never switch to SASS by themselves.
#[test]
fn the_library_defaults_to_ptx_costs() {
    let t = TimingOptions::new(Arch::builtin("sm_80").unwrap());
    assert!(matches!(&t.costs, Costs::Ptx(why) if why.is_empty()));
}

fn warpjit() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_warpjit"));
    c.env("WARPJIT_PTXAS", "/nonexistent/ptxas")
        .env("WARPJIT_NVDISASM", "/nonexistent/nvdisasm");
    c
}

/// `warpjit run` arguments for vector_add with its PTX at `ptx`.
fn vector_add(ptx: &Path, out: &Path) -> Vec<String> {
    let d = common::repo_root().join("ptx-samples/cuda/vector_add");
    let spec: serde_json::Value =
        serde_json::from_str(&common::read(&d.join("sample.json"))).unwrap();
    let dim = |k: &str| {
        let v: Vec<String> = spec[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.to_string())
            .collect();
        v.join(",")
    };
    let mut v = vec![
        "run".to_string(),
        ptx.display().to_string(),
        "--grid".into(),
        dim("grid"),
        "--block".into(),
        dim("block"),
    ];
    for a in spec["args"].as_array().unwrap() {
        let a = a.as_str().unwrap();
        v.push("--arg".into());
        v.push(if let Some(p) = a.strip_prefix("in:") {
            format!("in:{}", d.join(p).display())
        } else if let Some(rest) = a.strip_prefix("out:") {
            let (bytes, _) = rest.split_once(':').unwrap();
            format!("out:{bytes}:{}", out.display())
        } else {
            a.to_string()
        });
    }
    v
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("warpjit-sass-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_report_names_the_cost_source() {
    let dir = scratch("source");
    let ptx = common::repo_root().join("ptx-samples/cuda/vector_add/kernel.compute_80.ptx");
    let out = dir.join("c.bin");
    for costs in ["auto", "sass"] {
        let o = warpjit()
            .args(vector_add(&ptx, &out))
            .args(["--timing", "sm_80", "--costs", costs])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        assert!(
            err.contains("  costs: SASS sm_80 (ptxas 12.9.86, sidecar kernel.compute_80.ptx.sass.json), 16 instructions on 14 PTX lines; "),
            "{err}"
        );
        assert!(err.contains("registers/thread from ptxas)"), "{err}");
    }
    let o = warpjit()
        .args(vector_add(&ptx, &out))
        .args(["--timing", "sm_80", "--costs", "ptx", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["costs"]["model"], "ptx");
    assert_eq!(v["costs"]["detail"], "PTX (--costs ptx)");
    assert_eq!(v["occupancy"]["regs_source"], "estimate");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Without the tools and without a sidecar the PTX model is used, and the
/// report says why; `--costs sass` is then an error. A sidecar made from
/// another PTX text is not used.
#[test]
fn without_tools_or_sidecar_the_ptx_model_is_used() {
    let dir = scratch("none");
    let orig = common::repo_root().join("ptx-samples/cuda/vector_add/kernel.compute_80.ptx");
    let ptx = dir.join("kernel.compute_80.ptx");
    std::fs::copy(&orig, &ptx).unwrap();
    let out = dir.join("c.bin");
    let run = |costs: &str| {
        warpjit()
            .args(vector_add(&ptx, &out))
            .args(["--timing", "sm_80", "--json", "--costs", costs])
            .output()
            .unwrap()
    };
    let o = run("auto");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["costs"]["model"], "ptx");
    assert_eq!(
        v["costs"]["detail"],
        "PTX (ptxas not found (WARPJIT_PTXAS=/nonexistent/ptxas is not a file); no sidecar kernel.compute_80.ptx.sass.json)"
    );
    let o = run("sass");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no SASS: ptxas not found"), "{err}");
    // A sidecar for other text.
    std::fs::copy(sass::sidecar_path(&orig), sass::sidecar_path(&ptx)).unwrap();
    let mut text = common::read(&orig);
    text.push_str("// edited\n");
    std::fs::write(&ptx, text).unwrap();
    let o = run("auto");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["costs"]["model"], "ptx");
    assert!(
        v["costs"]["detail"]
            .as_str()
            .unwrap()
            .ends_with("sidecar kernel.compute_80.ptx.sass.json is for another PTX text)"),
        "{}",
        v["costs"]["detail"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where ptxas and nvdisasm are installed, what they give for a sample is
/// its committed sidecar (the sidecars are current); elsewhere a no-op.
#[test]
fn installed_tools_reproduce_the_sidecar() {
    let Ok(tools) = sass::tools::discover() else {
        eprintln!("ptxas or nvdisasm not found: skipped");
        return;
    };
    for name in ["cuda/matmul_tiled", "cuda/matmul_naive"] {
        let ptx = sample(name).ptx_files()[0].clone();
        let text = common::read(&ptx);
        let mut made = sass::generate(&ptx.display().to_string(), &text, &tools).unwrap();
        let committed = sass::read_sidecar(&ptx, &text).unwrap();
        made.origin = committed.origin.clone();
        assert_eq!(made, committed, "{name}");
    }
}

/// `cuda/atomics_float` on sm_90: ptxas makes `atom.global.add.noftz.f16`
/// and the shared-memory f32/f64 adds compare-and-swap loops (the sidecar
/// shows a load, the atomic and a branch on their lines), and 1024 threads
/// add to one `f16`. Each success waits a round trip after the last one on
/// that word: the H100 takes 159 µs (ptx-samples/hw/h100.json; 0.159 ms
/// with a 3.1 µs launch). Priced as one atomic per lane, the model gave
/// 5 µs.
#[test]
fn contended_cas_loop_atomics_take_a_round_trip_per_success() {
    let s = sample("cuda/atomics_float");
    let ptx = s.ptx_files()[0].clone();
    let mut t = sass_options(&ptx, "sm_90");
    t.arch.chip.clock_mhz = 1980.0; // as the H100 ran
    let us = timed(&s, &t).time_us();
    assert!((125.0..190.0).contains(&us), "{us:.1} µs, the H100 156");
    // The PTX model cannot tell the loops from native atomics.
    let ptx_us = timed(&s, &TimingOptions::new(t.arch.clone())).time_us();
    assert!(ptx_us < 30.0, "{ptx_us:.1} µs");
}
