//! Register liveness: which registers hold a value some later op (or
//! terminator) may read. Computed on demand (the JIT uses it to store back
//! only the registers a piece writes that are still needed).
//!
//! A guarded op's destinations are uses as well as definitions (lanes the
//! guard turns off keep the old value), so a guarded write never kills.

use cranelift_codegen::entity::{EntityRef, SecondaryMap};

use super::{Block, Function, Op, Reg, Src, Terminator};

/// A set of registers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegSet(Vec<u64>);

impl RegSet {
    pub fn with_capacity(n: usize) -> RegSet {
        RegSet(vec![0; n.div_ceil(64)])
    }
    pub fn insert(&mut self, r: Reg) {
        let i = r.index();
        if i / 64 >= self.0.len() {
            self.0.resize(i / 64 + 1, 0);
        }
        self.0[i / 64] |= 1 << (i % 64);
    }
    pub fn remove(&mut self, r: Reg) {
        let i = r.index();
        if let Some(w) = self.0.get_mut(i / 64) {
            *w &= !(1 << (i % 64));
        }
    }
    pub fn contains(&self, r: Reg) -> bool {
        let i = r.index();
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
    /// Adds `other`; returns whether anything changed.
    pub fn union_with(&mut self, other: &RegSet) -> bool {
        if other.0.len() > self.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            let n = *a | b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }
    /// The set's bits, 64 registers per word (register `i` is bit `i % 64`
    /// of word `i / 64`); words past the end are empty.
    pub fn words(&self) -> &[u64] {
        &self.0
    }
}

/// Registers live on entry to each block.
pub struct Liveness {
    pub live_in: SecondaryMap<Block, RegSet>,
}

/// Applies `op` backwards to `live` (the set live after it).
pub fn step_back(live: &mut RegSet, op: &Op) {
    if op.guard.is_none() {
        for &d in &op.dsts {
            live.remove(d);
        }
    } else {
        for &d in &op.dsts {
            live.insert(d);
        }
    }
    if let Some(g) = op.guard {
        live.insert(g.reg);
    }
    for s in &op.srcs {
        if let Src::Reg(r) = s {
            live.insert(*r);
        }
    }
    if let super::OpKind::Call {
        callee: super::Callee::Indirect(r),
        ..
    } = op.kind
    {
        live.insert(r);
    }
}

fn term_uses(live: &mut RegSet, term: &Terminator) {
    match term {
        Terminator::Branch { cond, .. } => live.insert(*cond),
        Terminator::Switch { index, .. } => live.insert(*index),
        _ => {}
    }
}

fn successors(term: &Terminator) -> Vec<Block> {
    match term {
        Terminator::Jump(t) => vec![*t],
        Terminator::Branch {
            taken, not_taken, ..
        } => vec![*taken, *not_taken],
        Terminator::Switch { targets, .. } => targets.clone(),
        _ => Vec::new(),
    }
}

impl Liveness {
    pub fn compute(f: &Function) -> Liveness {
        let n = f.regs.len();
        let mut live_in: SecondaryMap<Block, RegSet> = SecondaryMap::new();
        for b in f.blocks.keys() {
            live_in[b] = RegSet::with_capacity(n);
        }
        let order: Vec<Block> = f.blocks.keys().rev().collect();
        loop {
            let mut changed = false;
            for &b in &order {
                let set = Self::live_at_with(f, &live_in, b, 0);
                changed |= live_in[b].union_with(&set);
            }
            if !changed {
                break;
            }
        }
        Liveness { live_in }
    }

    fn live_out(f: &Function, live_in: &SecondaryMap<Block, RegSet>, b: Block, n: usize) -> RegSet {
        let mut live = RegSet::with_capacity(n);
        for s in successors(&f.blocks[b].term) {
            live.union_with(&live_in[s]);
        }
        term_uses(&mut live, &f.blocks[b].term);
        live
    }

    /// Registers live just before op `at` of block `b` (`at` may be the op
    /// count: before the terminator).
    pub fn live_at(&self, f: &Function, b: Block, at: usize) -> RegSet {
        Self::live_at_with(f, &self.live_in, b, at)
    }

    fn live_at_with(
        f: &Function,
        live_in: &SecondaryMap<Block, RegSet>,
        b: Block,
        at: usize,
    ) -> RegSet {
        let mut live = Self::live_out(f, live_in, b, f.regs.len());
        for op in f.blocks[b].ops[at..].iter().rev() {
            step_back(&mut live, op);
        }
        live
    }
}
