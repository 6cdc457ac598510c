//! Control-flow facts: successors, predecessors, immediate post-dominators.
//!
//! The reconvergence point of a divergent branch is the immediate
//! post-dominator of its block (`None`: the paths only meet at function
//! exit). Computed once per function with the Cooper–Harvey–Kennedy
//! iterative algorithm on the reversed CFG, with a virtual exit node that
//! every `ret`/`exit`/`trap` block reaches.

use cranelift_codegen::entity::{EntityRef, SecondaryMap};

use super::{Block, BlockData, Terminator};
use cranelift_codegen::entity::PrimaryMap;

#[derive(Clone, Debug, Default)]
pub struct CfgInfo {
    pub succs: SecondaryMap<Block, Vec<Block>>,
    pub preds: SecondaryMap<Block, Vec<Block>>,
    /// Immediate post-dominator (`None`: the virtual exit, or unreachable from it).
    pub ipdom: SecondaryMap<Block, Option<Block>>,
}

pub fn successors(term: &Terminator) -> Vec<Block> {
    match term {
        Terminator::Jump(b) => vec![*b],
        Terminator::Branch {
            taken, not_taken, ..
        } => vec![*taken, *not_taken],
        Terminator::Switch { targets, .. } => targets.clone(),
        Terminator::Ret
        | Terminator::Exit
        | Terminator::Trap
        | Terminator::Brkpt
        | Terminator::Unset => vec![],
    }
}

pub fn analyze(blocks: &PrimaryMap<Block, BlockData>) -> CfgInfo {
    let n = blocks.len();
    let mut info = CfgInfo::default();
    for (b, data) in blocks.iter() {
        let s = successors(&data.term);
        for &t in &s {
            info.preds[t].push(b);
        }
        info.succs[b] = s;
    }
    // Node n is the virtual exit. Reverse graph: exit -> blocks without successors.
    let exit = n;
    let rev_succs = |v: usize| -> Vec<usize> {
        if v == exit {
            (0..n)
                .filter(|&b| info.succs[Block::new(b)].is_empty())
                .collect()
        } else {
            info.preds[Block::new(v)]
                .iter()
                .map(|p| p.index())
                .collect()
        }
    };
    // Postorder of the reverse graph from the exit (iterative DFS).
    let mut order = Vec::with_capacity(n + 1);
    let mut visited = vec![false; n + 1];
    let mut stack: Vec<(usize, Vec<usize>, usize)> = vec![(exit, rev_succs(exit), 0)];
    visited[exit] = true;
    while let Some((v, succ, i)) = stack.last_mut() {
        if *i < succ.len() {
            let w = succ[*i];
            *i += 1;
            if !visited[w] {
                visited[w] = true;
                let ws = rev_succs(w);
                stack.push((w, ws, 0));
            }
        } else {
            order.push(*v);
            stack.pop();
        }
    }
    let mut po_index = vec![usize::MAX; n + 1];
    for (i, &v) in order.iter().enumerate() {
        po_index[v] = i;
    }
    // Iterate in reverse postorder; "predecessors" in the reverse graph are CFG successors.
    let mut idom: Vec<Option<usize>> = vec![None; n + 1];
    idom[exit] = Some(exit);
    let rev_preds = |v: usize| -> Vec<usize> {
        let s = &info.succs[Block::new(v)];
        if s.is_empty() {
            vec![exit]
        } else {
            s.iter().map(|b| b.index()).collect()
        }
    };
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| -> usize {
        while a != b {
            while po_index[a] < po_index[b] {
                a = idom[a].unwrap();
            }
            while po_index[b] < po_index[a] {
                b = idom[b].unwrap();
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &v in order.iter().rev() {
            if v == exit {
                continue;
            }
            let mut new_idom: Option<usize> = None;
            for p in rev_preds(v) {
                if po_index[p] == usize::MAX || idom[p].is_none() {
                    continue;
                }
                new_idom = Some(match new_idom {
                    None => p,
                    Some(cur) => intersect(&idom, p, cur),
                });
            }
            if new_idom.is_some() && idom[v] != new_idom {
                idom[v] = new_idom;
                changed = true;
            }
        }
    }
    for (b, d) in idom.iter().enumerate().take(n) {
        info.ipdom[Block::new(b)] = match *d {
            Some(d) if d != exit => Some(Block::new(d)),
            _ => None,
        };
    }
    info
}
