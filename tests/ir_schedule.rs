//! The compiler's instruction order (`ir::schedule`), checked on every
//! corpus module: each block's ops are a permutation of the PTX order that
//! keeps every dependence (checked here independently of the pass, pair by
//! pair), the module still verifies and its register slots still fit the
//! new live ranges; and on NVVM's unrolled sum (the fidelity kernels'
//! `cache_sum`) the loads run ahead of their adds, as ptxas puts them.

mod common;

use warpjit::front::{self, SourceFile};
use warpjit::ir::{self, Op, OpKind, Space, SpecialReg, Src};

fn lower(path: &std::path::Path) -> Option<ir::Module> {
    let text = common::read(path);
    let source = SourceFile::new(path.display().to_string(), &text);
    let ast = front::parse(&source).ok()?;
    ir::lower::run(&ast, &source).ok()
}

fn reads(op: &Op) -> Vec<u32> {
    let mut r: Vec<u32> = op
        .srcs
        .iter()
        .filter_map(|s| match s {
            Src::Reg(r) => Some(r.as_u32()),
            _ => None,
        })
        .collect();
    if let Some(g) = op.guard {
        r.push(g.reg.as_u32());
        r.extend(op.dsts.iter().map(|d| d.as_u32()));
    }
    if let OpKind::Call {
        callee: ir::Callee::Indirect(c),
        ..
    } = op.kind
    {
        r.push(c.as_u32());
    }
    r
}

/// What an op does to memory and to order: 0 registers only, 1 reads
/// memory, 2 writes memory, 3 nothing may cross it.
fn effect(op: &Op) -> u8 {
    match &op.kind {
        OpKind::Ld { space, .. } => match space {
            Space::KernelParam | Space::Const => 0,
            _ => 1,
        },
        OpKind::Ldmatrix { .. } | OpKind::WmmaLoad { .. } => 1,
        OpKind::St { .. } | OpKind::Atom { .. } | OpKind::CpAsync { .. } => 2,
        OpKind::Stmatrix { .. } | OpKind::WmmaStore { .. } => 2,
        OpKind::ReadSpecial(
            SpecialReg::Clock
            | SpecialReg::ClockHi
            | SpecialReg::Clock64
            | SpecialReg::Globaltimer
            | SpecialReg::GlobaltimerLo
            | SpecialReg::GlobaltimerHi,
        ) => 3,
        OpKind::ReadSpecial(_) | OpKind::Mma { .. } | OpKind::WmmaMma { .. } => 0,
        k if warpjit::engine::pure::is_pure(k) => 0,
        _ => 3,
    }
}

/// The state space an op's memory access is known to touch: `None` where
/// it may be any (generic addresses, parameter areas, copies between two
/// spaces). Accesses of two different known spaces cannot overlap.
fn known_space(op: &Op) -> Option<Space> {
    let s = match &op.kind {
        OpKind::Ld { space, .. }
        | OpKind::St { space, .. }
        | OpKind::Atom { space, .. }
        | OpKind::Ldmatrix { space, .. }
        | OpKind::Stmatrix { space, .. }
        | OpKind::WmmaLoad { space, .. }
        | OpKind::WmmaStore { space, .. } => *space,
        _ => return None,
    };
    matches!(s, Space::Global | Space::Shared | Space::Local).then_some(s)
}

fn depends(a: &Op, b: &Op) -> bool {
    let (ra, rb) = (reads(a), reads(b));
    let writes = |op: &Op, r: &u32| op.dsts.iter().any(|d| d.as_u32() == *r);
    let regs = rb.iter().any(|r| writes(a, r))
        || ra.iter().any(|r| writes(b, r))
        || a.dsts.iter().any(|d| writes(b, &d.as_u32()));
    let (ea, eb) = (effect(a), effect(b));
    let overlap = match (known_space(a), known_space(b)) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    };
    // Stores keep their order whatever their spaces.
    let memory = ea == 3
        || eb == 3
        || (ea == 2 && eb == 2)
        || (ea >= 1 && eb >= 1 && (ea == 2 || eb == 2) && overlap);
    regs || memory
}

#[test]
fn scheduled_blocks_keep_every_dependence_and_verify() {
    let mut modules = 0;
    let mut moved = 0;
    for path in common::corpus_ptx_files() {
        let Some(m) = lower(&path) else { continue };
        let s = ir::schedule::schedule(&m);
        ir::verify::run(&s).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        modules += 1;
        for ((_, f), (_, g)) in m.functions.iter().zip(s.functions.iter()) {
            ir::slots::check(g, &g.slots)
                .unwrap_or_else(|e| panic!("{} {}: {e}", path.display(), f.name));
            for ((_, a), (_, b)) in f.blocks.iter().zip(g.blocks.iter()) {
                assert_eq!(a.term, b.term);
                assert_eq!(a.ops.len(), b.ops.len());
                // Where each original op went (equal ops matched in order).
                let mut used = vec![false; b.ops.len()];
                let pos: Vec<usize> = a
                    .ops
                    .iter()
                    .map(|op| {
                        let k = (0..b.ops.len())
                            .find(|&k| !used[k] && b.ops[k] == *op)
                            .unwrap_or_else(|| panic!("{}: an op was lost", path.display()));
                        used[k] = true;
                        k
                    })
                    .collect();
                moved += pos.iter().enumerate().filter(|(i, &k)| *i != k).count();
                for i in 0..a.ops.len() {
                    for j in i + 1..a.ops.len() {
                        if depends(&a.ops[i], &a.ops[j]) {
                            assert!(
                                pos[i] < pos[j],
                                "{} `{}`: op {i} ({:?}) must stay before op {j} ({:?})",
                                path.display(),
                                f.name,
                                a.ops[i].kind,
                                a.ops[j].kind
                            );
                        }
                    }
                }
            }
        }
    }
    assert!(modules > 50, "only {modules} corpus modules lowered");
    assert!(moved > 1000, "the schedule moved only {moved} ops");
}

#[test]
fn the_unrolled_sum_keeps_a_window_of_loads_ahead_of_their_adds() {
    let path = common::repo_root().join("ptx-samples/fidelity/kernels.compute_80.ptx");
    let m = lower(&path).unwrap();
    let k = m.function_by_name("gpubench_cache_sum_f64_24kb").unwrap();
    let is_load = |op: &Op| {
        matches!(
            op.kind,
            OpKind::Ld {
                space: Space::Global,
                ..
            }
        )
    };
    let is_fadd = |op: &Op| matches!(op.kind, OpKind::Float { .. });
    // The loop body: the block with the most global loads.
    let body = |m: &ir::Module| {
        let f = &m.functions[k];
        f.blocks
            .values()
            .max_by_key(|b| b.ops.iter().filter(|o| is_load(o)).count())
            .unwrap()
            .ops
            .clone()
    };
    let before = body(&m);
    let after = body(&ir::schedule::schedule(&m));
    let loads_before_first_add = |ops: &[Op]| {
        let first = ops.iter().position(is_fadd).unwrap();
        ops[..first].iter().filter(|o| is_load(o)).count()
    };
    // NVVM: `ld, add, ld, add, ...`; ptxas: `LDG x7, DADD, LDG, DADD, ...`.
    assert_eq!(loads_before_first_add(&before), 1);
    assert_eq!(loads_before_first_add(&after), ir::schedule::LOAD_WINDOW);
    assert_eq!(
        before.iter().filter(|o| is_load(o)).count(),
        after.iter().filter(|o| is_load(o)).count()
    );
}

#[test]
fn global_loads_move_above_shared_stores_as_ptxas_moves_ldg_above_sts() {
    // The copy loop of `cuda/wmma_f16` (NVVM: `ld.global, st.shared` pairs,
    // unrolled four times): ptxas issues the loop's eight LDGs before its
    // first STS, since global loads and shared stores cannot alias. Each
    // pair waited a DRAM round trip in the model before (34.7k cycles on
    // sm_90 against an H100's ~4.5k).
    let path = common::repo_root().join("ptx-samples/cuda/wmma_f16/kernel.compute_80.ptx");
    let m = lower(&path).unwrap();
    let k = m.function_by_name("wmma_f16_kernel").unwrap();
    let is = |op: &Op, want: Space, store: bool| match op.kind {
        OpKind::Ld { space, .. } => !store && space == want,
        OpKind::St { space, .. } => store && space == want,
        _ => false,
    };
    let body = |m: &ir::Module| {
        m.functions[k]
            .blocks
            .values()
            .find(|b| b.ops.iter().filter(|o| is(o, Space::Global, false)).count() == 8)
            .expect("the unrolled copy loop")
            .ops
            .clone()
    };
    let loads_before_first_store = |ops: &[Op]| {
        let first = ops.iter().position(|o| is(o, Space::Shared, true)).unwrap();
        ops[..first]
            .iter()
            .filter(|o| is(o, Space::Global, false))
            .count()
    };
    assert_eq!(loads_before_first_store(&body(&m)), 1);
    assert_eq!(
        loads_before_first_store(&body(&ir::schedule::schedule(&m))),
        8
    );
}
