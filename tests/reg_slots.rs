//! Register slots (`ir::slots`) on the corpus: every assignment passes the
//! checker against liveness, uses no fewer slots than registers are live at
//! once and far fewer than there are registers, and the checker rejects
//! assignments that break its rules. (That sharing slots changes no result
//! is what samples.rs, engine_diff.rs and the timing tests check: they run
//! on the shared register files.)

mod common;

use warpjit::front::{self, SourceFile};
use warpjit::ir::liveness::Liveness;
use warpjit::ir::slots::{self, RegSlots};
use warpjit::ir::{Function, Module, OpKind, Reg, Src};

fn lowered(path: &std::path::Path) -> Option<Module> {
    let source = SourceFile::new(path.display().to_string(), common::read(path));
    let ast = front::parse(&source).ok()?;
    warpjit::ir::lower::run(&ast, &source).ok()
}

/// The most registers live at one point of `f`.
fn max_live(f: &Function) -> u32 {
    let live = Liveness::compute(f);
    let mut most = 0;
    for (b, data) in f.blocks.iter() {
        for at in 0..=data.ops.len() {
            let set = live.live_at(f, b, at);
            most = most.max(set.words().iter().map(|w| w.count_ones()).sum());
        }
    }
    most
}

fn bodies(m: &Module) -> impl Iterator<Item = &Function> {
    m.functions.values().filter(|f| !f.external)
}

#[test]
fn corpus_assignments_are_valid_and_compact() {
    let (mut regs, mut slots_used, mut functions) = (0usize, 0usize, 0);
    for path in common::corpus_ptx_files() {
        let Some(m) = lowered(&path) else {
            continue;
        };
        for f in bodies(&m) {
            slots::check(f, &f.slots)
                .unwrap_or_else(|e| panic!("{}: {}: {e}", path.display(), f.name));
            let (n, count) = (f.regs.len() as u32, f.slots.count);
            assert!(count <= n.max(1), "{}: more slots than registers", f.name);
            assert!(
                count >= max_live(f),
                "{}: {count} slots for {} registers live at once",
                f.name,
                max_live(f)
            );
            regs += n as usize;
            slots_used += count as usize;
            functions += 1;
        }
    }
    println!("{functions} functions: {slots_used} slots for {regs} registers");
    assert!(
        functions > 50,
        "the corpus lowered only {functions} functions"
    );
    // Compiler output declares about five to ten times the registers it
    // keeps live at once.
    assert!(
        slots_used * 3 < regs,
        "{slots_used} slots for {regs} registers over the corpus"
    );
}

#[test]
fn triton_register_files_shrink() {
    let path = common::repo_root().join("ptx-samples/triton/cross_entropy/kernel.sm_80.ptx");
    let m = lowered(&path).unwrap();
    let f = bodies(&m).next().unwrap();
    println!("{} slots for {} registers", f.slots.count, f.regs.len());
    assert!(
        f.slots.count * 4 <= f.regs.len() as u32,
        "{} slots for {} registers",
        f.slots.count,
        f.regs.len()
    );
}

#[test]
fn checker_rejects_shared_live_registers() {
    let path = common::repo_root().join("ptx-samples/cuda/matmul_tiled/kernel.compute_80.ptx");
    let m = lowered(&path).unwrap();
    let f = bodies(&m).next().unwrap();
    assert!(max_live(f) >= 2);
    let mut one = RegSlots::default();
    for r in f.regs.keys() {
        one.of[r] = 0;
    }
    one.count = 1;
    assert!(slots::check(f, &one).is_err());
    // A slot past the end.
    let mut past = f.slots.clone();
    past.count -= 1;
    let top = f.regs.keys().find(|&r| past.of[r] == past.count);
    if top.is_some() {
        assert!(slots::check(f, &past).is_err());
    }
}

#[test]
fn shuffle_operands_keep_their_own_slots() {
    let path = common::repo_root().join("ptx-samples/cuda/warp_shuffle/kernel.compute_80.ptx");
    let m = lowered(&path).unwrap();
    let f = bodies(&m).next().unwrap();
    let shuffled: Vec<Reg> = f
        .blocks
        .values()
        .flat_map(|b| &b.ops)
        .filter(|op| matches!(op.kind, OpKind::Shfl { .. }))
        .filter_map(|op| match op.srcs.first() {
            Some(Src::Reg(r)) => Some(*r),
            _ => None,
        })
        .collect();
    assert!(!shuffled.is_empty());
    for &r in &shuffled {
        let sharing = f
            .regs
            .keys()
            .filter(|&q| q != r && f.slots.of[q] == f.slots.of[r])
            .count();
        assert_eq!(sharing, 0, "{r} (a shuffled value) shares its slot");
        // Moving another register into its slot is rejected.
        let other = f.regs.keys().find(|&q| q != r).unwrap();
        let mut moved = f.slots.clone();
        moved.of[other] = moved.of[r];
        assert!(
            slots::check(f, &moved).is_err(),
            "{other} moved into {r}'s slot"
        );
    }
}
