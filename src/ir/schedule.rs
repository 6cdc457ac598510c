//! The compiler's instruction order: each basic block's ops list-scheduled
//! as ptxas schedules them, so that the timing model issues what a GPU
//! runs rather than NVVM's order (which puts every load next to its first
//! use and chains dependent arithmetic back to back).
//!
//! ptxas 12.9 for sm_80 (`nvdisasm` of the corpus) hoists global loads
//! ahead of the arithmetic that consumes them and interleaves independent
//! chains: in the fidelity kernels' unrolled sum (`cache_sum`, whose PTX
//! alternates `ld`, `add`) it keeps six to seven loads ahead of their
//! adds (`LDG ×7, DADD, LDG, DADD, ...`); in `timing/memory.cu`'s
//! `stream_ilp` it issues a group's eight loads before its first add. This
//! pass does the same with a critical-path list scheduler:
//!
//! - **Dependences** are kept exactly: a register read after a write, a
//!   write after a read or a write (a guard is a read; a guarded op's
//!   destinations are also read, since inactive lanes keep them); loads
//!   stay on their side of every store, atomic or asynchronous copy that
//!   may write what they read (the same state space, or either one
//!   generic: a global load moves above a shared store, as ptxas moves
//!   `LDG` above `STS`, since the two spaces cannot alias), and stores
//!   keep their order. Barriers, fences, calls, clock reads,
//!   warp-collective ops and `nop`s are not moved and nothing crosses
//!   them: a block is scheduled in segments between them.
//! - **Priority** is the latency-weighted height of an op in the
//!   dependence graph (a global load counts [`LOAD_LATENCY`] cycles, a
//!   shared one [`SHARED_LATENCY`], other ops [`ALU_LATENCY`]), ties in
//!   PTX order.
//! - **At most [`LOAD_WINDOW`] loads** are placed ahead of their first
//!   consumer (ptxas's register budget); past that, other ready ops come
//!   first.
//!
//! The result is a module with the same semantics (only independent ops
//! change places), its register slots re-assigned for the new live ranges
//! (when the original's were shared). Functional runs keep the PTX order;
//! timed launches on presets with `instruction_order = "compiler"` run this.

use cranelift_codegen::entity::EntityRef;
use std::collections::BinaryHeap;

use super::{Function, Module, Op, OpKind, Space, SpecialReg};

/// Loads placed ahead of their first consumer at most.
pub const LOAD_WINDOW: usize = 8;
/// Latencies the priority assumes (cycles): ptxas's own model is not
/// published; these are the order of an sm_80 L2-or-DRAM load, a shared
/// load and a dependent arithmetic op.
pub const LOAD_LATENCY: u32 = 400;
pub const SHARED_LATENCY: u32 = 30;
pub const ALU_LATENCY: u32 = 6;

/// How an op may move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Class {
    /// Reads and writes registers only (or immutable memory).
    Pure,
    /// Reads mutable memory.
    Load,
    /// Writes memory: ordered with loads and other stores.
    Store,
    /// Nothing moves across it.
    Fixed,
}

/// Memory that ops of different classes cannot share: global, shared,
/// local, and the rest (generic addresses, parameter areas, asynchronous
/// copies that read one space and write another), which may be any.
const ALIAS_CLASSES: usize = 4;
const ANY_SPACE: usize = 3;

fn space_class(space: Space) -> usize {
    match space {
        Space::Global => 0,
        Space::Shared => 1,
        Space::Local => 2,
        _ => ANY_SPACE,
    }
}

/// The alias class of a load or store (`Class::Load`/`Class::Store`).
fn alias_class(op: &Op) -> usize {
    match &op.kind {
        OpKind::Ld { space, .. }
        | OpKind::St { space, .. }
        | OpKind::Atom { space, .. }
        | OpKind::Ldmatrix { space, .. }
        | OpKind::Stmatrix { space, .. }
        | OpKind::WmmaLoad { space, .. }
        | OpKind::WmmaStore { space, .. } => space_class(*space),
        _ => ANY_SPACE,
    }
}

fn may_alias(a: usize, b: usize) -> bool {
    a == b || a == ANY_SPACE || b == ANY_SPACE
}

fn class(op: &Op) -> Class {
    match &op.kind {
        OpKind::Ld { space, .. } => match space {
            Space::KernelParam | Space::Const => Class::Pure,
            _ => Class::Load,
        },
        OpKind::Ldmatrix { .. } | OpKind::WmmaLoad { .. } => Class::Load,
        OpKind::St { .. } | OpKind::Atom { .. } | OpKind::CpAsync { .. } => Class::Store,
        OpKind::Stmatrix { .. } | OpKind::WmmaStore { .. } => Class::Store,
        OpKind::ReadSpecial(
            SpecialReg::Clock
            | SpecialReg::ClockHi
            | SpecialReg::Clock64
            | SpecialReg::Globaltimer
            | SpecialReg::GlobaltimerLo
            | SpecialReg::GlobaltimerHi,
        ) => Class::Fixed,
        OpKind::Bar { .. }
        | OpKind::ClusterBar { .. }
        | OpKind::Elect
        | OpKind::Stack { .. }
        | OpKind::Getctarank { .. }
        | OpKind::Fence
        | OpKind::Call { .. }
        | OpKind::WarpSync
        | OpKind::Shfl { .. }
        | OpKind::Vote { .. }
        | OpKind::Match { .. }
        | OpKind::Redux { .. }
        | OpKind::Activemask
        | OpKind::Wgmma { .. }
        | OpKind::Movmatrix
        | OpKind::Mbarrier { .. }
        | OpKind::CpAsyncBulk { .. }
        | OpKind::CpAsyncBulkTensor { .. }
        | OpKind::TensormapReplace { .. }
        | OpKind::Texture { .. }
        | OpKind::Nanosleep
        | OpKind::Nop => Class::Fixed,
        _ => Class::Pure,
    }
}

fn latency(op: &Op) -> u32 {
    match &op.kind {
        OpKind::Ld { space, .. }
        | OpKind::Ldmatrix { space, .. }
        | OpKind::WmmaLoad { space, .. } => match space {
            Space::Shared => SHARED_LATENCY,
            Space::KernelParam | Space::Const | Space::FrameParam => ALU_LATENCY,
            _ => LOAD_LATENCY,
        },
        _ => ALU_LATENCY,
    }
}

/// The registers `op` reads ([`super::slots::reads`]), and a guarded op's
/// destinations, which it merges into.
fn reads(op: &Op) -> impl Iterator<Item = usize> + '_ {
    let merged = op.guard.iter().flat_map(move |_| op.dsts.iter());
    super::slots::reads(op)
        .chain(merged.copied())
        .map(|r| r.index())
}

/// The order in which `ops` (one segment: no fixed op inside) issue.
fn schedule_segment(ops: &[Op], nregs: usize) -> Vec<usize> {
    let n = ops.len();
    if n < 2 {
        return (0..n).collect();
    }
    const NONE: u32 = u32::MAX;
    let classes: Vec<Class> = ops.iter().map(class).collect();
    let mut succs: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut npreds = vec![0u32; n];
    // Per op, the loads (of this segment) whose results it reads.
    let mut reads_loads: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut has_consumer = vec![false; n];
    let mut last_write: Vec<u32> = vec![NONE; nregs];
    let mut readers: Vec<Vec<u32>> = vec![Vec::new(); nregs];
    let mut last_store = NONE;
    // Per alias class (`alias_class`): the last store, and the loads since
    // the last store that may write what they read.
    let mut last_store_in = [NONE; ALIAS_CLASSES];
    let mut loads_since_store: [Vec<u32>; ALIAS_CLASSES] = Default::default();
    let mut preds: Vec<u32> = Vec::new();
    for (j, op) in ops.iter().enumerate() {
        preds.clear();
        for r in reads(op) {
            let w = last_write[r];
            if w != NONE {
                preds.push(w);
                if classes[w as usize] == Class::Load {
                    reads_loads[j].push(w);
                    has_consumer[w as usize] = true;
                }
            }
        }
        for d in &op.dsts {
            let r = d.index();
            if last_write[r] != NONE {
                preds.push(last_write[r]);
            }
            preds.extend(&readers[r]);
        }
        match classes[j] {
            Class::Load => {
                let c = alias_class(op);
                for (k, &store) in last_store_in.iter().enumerate() {
                    if may_alias(c, k) && store != NONE {
                        preds.push(store);
                    }
                }
                loads_since_store[c].push(j as u32);
            }
            Class::Store => {
                if last_store != NONE {
                    preds.push(last_store);
                }
                let c = alias_class(op);
                for (k, loads) in loads_since_store.iter_mut().enumerate() {
                    if may_alias(c, k) {
                        preds.append(loads);
                    }
                }
                last_store = j as u32;
                last_store_in[c] = j as u32;
            }
            Class::Pure | Class::Fixed => {}
        }
        preds.sort_unstable();
        preds.dedup();
        for &i in &preds {
            if i as usize != j {
                succs[i as usize].push(j as u32);
                npreds[j] += 1;
            }
        }
        for r in reads(op) {
            readers[r].push(j as u32);
        }
        for d in &op.dsts {
            readers[d.index()].clear();
            last_write[d.index()] = j as u32;
        }
    }
    // Heights, in reverse program order (a topological order).
    let mut height = vec![0u32; n];
    for i in (0..n).rev() {
        let below = succs[i]
            .iter()
            .map(|&s| height[s as usize])
            .max()
            .unwrap_or(0);
        height[i] = latency(&ops[i]) + below;
    }
    let key = |i: usize| (height[i], std::cmp::Reverse(i as u32));
    let mut open = vec![false; n];
    let mut in_flight = 0usize;
    let mut ready: BinaryHeap<(u32, std::cmp::Reverse<u32>)> =
        (0..n).filter(|&i| npreds[i] == 0).map(key).collect();
    let mut held: Vec<(u32, std::cmp::Reverse<u32>)> = Vec::new();
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        // The best ready op; a load only while the window has room, or
        // when nothing else is ready.
        let pick = loop {
            match ready.pop() {
                Some(e) if classes[e.1 .0 as usize] == Class::Load && in_flight >= LOAD_WINDOW => {
                    held.push(e)
                }
                Some(e) => break e,
                None => {
                    let best = (0..held.len()).max_by_key(|&k| held[k]).expect("acyclic");
                    break held.swap_remove(best);
                }
            }
        };
        ready.extend(held.drain(..));
        let i = pick.1 .0 as usize;
        order.push(i);
        if classes[i] == Class::Load && has_consumer[i] {
            open[i] = true;
            in_flight += 1;
        }
        for &w in &reads_loads[i] {
            if std::mem::replace(&mut open[w as usize], false) {
                in_flight -= 1;
            }
        }
        for &s in &succs[i] {
            let s = s as usize;
            npreds[s] -= 1;
            if npreds[s] == 0 {
                ready.push(key(s));
            }
        }
    }
    order
}

/// `f` with every block's ops in the compiler's order.
fn schedule_function(f: &Function) -> Function {
    let mut g = f.clone();
    let nregs = f.regs.len();
    let mut changed = false;
    for data in g.blocks.values_mut() {
        let ops = std::mem::take(&mut data.ops);
        let mut out = Vec::with_capacity(ops.len());
        let mut start = 0;
        for end in 0..=ops.len() {
            let fixed = end < ops.len() && class(&ops[end]) == Class::Fixed;
            if end < ops.len() && !fixed {
                continue;
            }
            let seg = &ops[start..end];
            let order = schedule_segment(seg, nregs);
            changed |= order.iter().enumerate().any(|(k, &i)| k != i);
            out.extend(order.into_iter().map(|i| seg[i].clone()));
            if fixed {
                out.push(ops[end].clone());
            }
            start = end + 1;
        }
        data.ops = out;
    }
    // Registers sharing a slot must not be live together in the new order
    // (a register file of one slot per register needs nothing).
    if changed && f.slots.count != f.regs.len() as u32 {
        g.slots = super::slots::assign(&g);
    }
    g
}

/// `m` with every function's blocks in the compiler's order.
pub fn schedule(m: &Module) -> Module {
    let mut out = m.clone();
    for f in out.functions.values_mut() {
        if !f.external {
            *f = schedule_function(f);
        }
    }
    out
}
