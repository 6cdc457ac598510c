//! Register slots: where each virtual register lives in a warp's register
//! file. Registers whose values are never needed at the same time share a
//! slot, so a register file has about as many rows (32 lanes each) as the
//! most registers live at once, not one per PTX register: compilers emit
//! PTX in SSA-like form with hundreds of registers of which a tenth are
//! live at any point, and every warp's register file is allocated, zeroed
//! and walked through the host's caches.
//!
//! Sharing is decided per lane from liveness ([`super::liveness`]): a lane
//! reads and writes only its own row of a slot, and every write is masked to
//! the lanes that execute it, so two registers that are never live at the
//! same point of any lane's path cannot see each other's values. Two
//! registers interfere when one is written where the other is live after
//! the write; also (conservatively) the destinations of an op with its other
//! operands, so that no executor has to care in which order an op reads its
//! sources and writes its results; and all registers live at the
//! function's entry (read before any write: they start at zero) with each
//! other. The value operand of a shuffle, which reads the source lane
//! even when that lane is inactive, keeps a slot of its own, so what a
//! shuffle observes is exactly what a register file with one row per
//! register would hold. (Matrix ops also read and write every lane, but run
//! only when the whole warp executes them.) Slots are chosen greedily in
//! program order.
//!
//! Only the executors (the interpreter and the JIT) index register files by
//! slot; the IR, its analyses and the timing model's scoreboard keep naming
//! virtual registers. [`check`] verifies an assignment against liveness.

use cranelift_codegen::entity::{EntityRef, SecondaryMap};

use super::liveness::{step_back, Liveness, RegSet};
use super::{Function, Op, OpKind, Reg, Src};

/// Each register's slot in the register file, and how many slots there are.
#[derive(Clone, Debug, Default)]
pub struct RegSlots {
    pub of: SecondaryMap<Reg, u32>,
    pub count: u32,
}

impl RegSlots {
    /// Every register in a slot of its own (slot = register index).
    pub fn one_per_register(f: &Function) -> RegSlots {
        let mut slots = RegSlots::default();
        for r in f.regs.keys() {
            slots.of[r] = r.index() as u32;
        }
        slots.count = f.regs.len() as u32;
        slots
    }

    /// The slot of `r`.
    #[inline]
    pub fn slot(&self, r: Reg) -> usize {
        self.of[r] as usize
    }
}

/// The register `op` reads in lanes that need not be executing it: a
/// shuffle's value operand.
fn read_across_lanes(op: &Op) -> Option<Reg> {
    match (&op.kind, op.srcs.first()) {
        (OpKind::Shfl { .. }, Some(Src::Reg(r))) => Some(*r),
        _ => None,
    }
}

/// The registers `op` reads (sources, guard, indirect callee).
pub(super) fn reads(op: &Op) -> impl Iterator<Item = Reg> + '_ {
    let srcs = op.srcs.iter().filter_map(|s| match s {
        Src::Reg(r) => Some(*r),
        _ => None,
    });
    let callee = match op.kind {
        OpKind::Call {
            callee: super::Callee::Indirect(r),
            ..
        } => Some(r),
        _ => None,
    };
    srcs.chain(op.guard.map(|g| g.reg)).chain(callee)
}

fn each_reg(set: &RegSet, mut f: impl FnMut(Reg)) {
    for (w, &word) in set.words().iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            f(Reg::new(w * 64 + bits.trailing_zeros() as usize));
            bits &= bits - 1;
        }
    }
}

/// The interference graph of `f` (adjacency lists, possibly with repeats)
/// and the registers that keep a slot of their own.
fn interference(f: &Function, live: &Liveness) -> (Vec<Vec<u32>>, Vec<bool>) {
    let n = f.regs.len();
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut own = vec![false; n];
    let mut edge = |a: Reg, b: Reg| {
        if a != b {
            adj[a.index()].push(b.index() as u32);
            adj[b.index()].push(a.index() as u32);
        }
    };
    for (b, data) in f.blocks.iter() {
        let mut after = live.live_at(f, b, data.ops.len());
        for op in data.ops.iter().rev() {
            if let Some(r) = read_across_lanes(op) {
                own[r.index()] = true;
            }
            for &d in &op.dsts {
                each_reg(&after, |r| edge(d, r));
                for &e in &op.dsts {
                    edge(d, e);
                }
                for r in reads(op) {
                    edge(d, r);
                }
            }
            step_back(&mut after, op);
        }
    }
    let entry = live.live_at(f, f.entry, 0);
    let mut at_entry = Vec::new();
    each_reg(&entry, |r| at_entry.push(r));
    for (i, &a) in at_entry.iter().enumerate() {
        for &b in &at_entry[i + 1..] {
            edge(a, b);
        }
    }
    (adj, own)
}

/// Assigns slots to the registers of `f`.
pub fn assign(f: &Function) -> RegSlots {
    let live = Liveness::compute(f);
    let (adj, own) = interference(f, &live);
    let n = f.regs.len();
    // Program order of first appearance, then the rest.
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    for data in f.blocks.values() {
        for op in &data.ops {
            for r in op.dsts.iter().copied().chain(reads(op)) {
                if !std::mem::replace(&mut seen[r.index()], true) {
                    order.push(r);
                }
            }
        }
    }
    order.extend(f.regs.keys().filter(|r| !seen[r.index()]));
    let mut slots = RegSlots::default();
    let mut taken: Vec<u32> = Vec::new(); // slot -> register index + 1 that last blocked it
    let mut exclusive: Vec<bool> = Vec::new();
    const NONE: u32 = u32::MAX;
    let mut assigned = vec![NONE; n];
    for r in order {
        let i = r.index();
        let slot = if own[i] {
            None
        } else {
            for &j in &adj[i] {
                let s = assigned[j as usize];
                if s != NONE {
                    taken[s as usize] = i as u32 + 1;
                }
            }
            (0..taken.len()).find(|&s| taken[s] != i as u32 + 1 && !exclusive[s])
        };
        let slot = slot.unwrap_or_else(|| {
            taken.push(0);
            exclusive.push(own[i]);
            taken.len() - 1
        });
        assigned[i] = slot as u32;
        slots.of[r] = slot as u32;
    }
    slots.count = taken.len() as u32;
    slots
}

/// Checks `slots` against the liveness of `f`: no two registers live at the
/// same point (or written by one op with its other operands) share a slot,
/// and shuffled registers have slots of their own.
pub fn check(f: &Function, slots: &RegSlots) -> Result<(), String> {
    if f.regs.keys().any(|r| slots.of[r] >= slots.count) {
        return Err("a register's slot is past the register file".into());
    }
    let live = Liveness::compute(f);
    let (adj, own) = interference(f, &live);
    for (i, neighbours) in adj.iter().enumerate() {
        let a = Reg::new(i);
        for &j in neighbours {
            let b = Reg::new(j as usize);
            if slots.of[a] == slots.of[b] {
                return Err(format!(
                    "{a} and {b} interfere but share slot {}",
                    slots.of[a]
                ));
            }
        }
    }
    let mut users = vec![0u32; slots.count as usize];
    for r in f.regs.keys() {
        users[slots.slot(r)] += 1;
    }
    for r in f.regs.keys() {
        if own[r.index()] && users[slots.slot(r)] > 1 {
            return Err(format!("{r} is read across lanes but shares its slot"));
        }
    }
    Ok(())
}
