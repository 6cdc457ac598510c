//! From a disassembly to the per-line table the timing model reads
//! ([`SassTable`]): each PTX line's SASS instructions for one execution of
//! the line.
//!
//! ptxas may duplicate a line: it unrolls loops (the corpus's naive matmul
//! loop, already unrolled 4 times in the PTX, becomes a 16-iteration body,
//! an 8-iteration one and a 4-iteration one), and a device function
//! inlined into several kernels appears in each. Summing every copy would
//! charge one execution of the line with all of them. So:
//!
//! - each SASS basic block gets a copy count: how many times the PTX lines
//!   whose memory instructions it holds appear in it (a PTX line with one
//!   load whose block holds four of its loads is four copies; the most
//!   common such ratio is the block's; 1 where no line gives one, e.g. a
//!   block of arithmetic only);
//! - a line's instructions are those of its most-copied blocks, divided by
//!   their copy count (the unrolled body is where the loop spends its
//!   time; copies elsewhere, a remainder loop, are left out), in the code
//!   section where they are most numerous (one kernel's inlined copy).
//!
//! Memory instructions count per kind (loads, stores, atomics, async
//! copies, constant loads), so that a CAS loop's extra load does not make
//! its block look unrolled.

use std::collections::BTreeMap;

/// The revision of this summary's rules: part of the cache key, so that a
/// change to them is not answered from results of the old ones.
pub const REVISION: u32 = 3;

use super::disasm::{Disassembly, SassOp};
use crate::timing::arch::UnitClass;
use crate::timing::costs::{KernelSass, LineSass, MemKind, SassSpace, SassTable};
use crate::timing::regs;

/// PTX memory instructions per line, by kind (`rewrite::memory_lines`).
pub type MemLines = BTreeMap<u32, BTreeMap<(MemKind, bool), u32>>;

/// What the table is made from besides the disassembly.
pub struct Inputs<'a> {
    pub mem_lines: &'a MemLines,
    /// `ptxas -v`'s log (registers per kernel).
    pub log: &'a str,
    /// The module's kernels (entries with a body).
    pub kernels: &'a [String],
    pub arch: &'a str,
    pub ptxas: &'a str,
    pub ptx_hash: &'a str,
}

/// The table of a disassembly (see the module doc).
pub fn summarize(d: &Disassembly, inputs: &Inputs) -> SassTable {
    let copies = block_copies(d, inputs.mem_lines);
    // line -> section -> instruction indices
    let mut by_line: BTreeMap<u32, BTreeMap<u32, Vec<usize>>> = BTreeMap::new();
    let mut unattributed = 0;
    for (i, ins) in d.instrs.iter().enumerate() {
        if ins.line == 0 {
            unattributed += 1;
        } else {
            by_line
                .entry(ins.line)
                .or_default()
                .entry(ins.section)
                .or_default()
                .push(i);
        }
    }
    let mut lines = BTreeMap::new();
    for (line, sections) in by_line {
        let total: usize = sections.values().map(Vec::len).sum();
        // (instructions per execution, copies, the counted instructions)
        let mut best: Option<(f64, u32, Vec<usize>)> = None;
        for instrs in sections.values() {
            let m = instrs
                .iter()
                .map(|&i| copies[&d.instrs[i].block])
                .max()
                .unwrap_or(1);
            let counted: Vec<usize> = instrs
                .iter()
                .copied()
                .filter(|&i| copies[&d.instrs[i].block] == m)
                .collect();
            let per = counted.len() as f64 / m as f64;
            if best.as_ref().is_none_or(|b| per > b.0) {
                best = Some((per, m, counted));
            }
        }
        let (per, mut m, counted) = best.expect("a line has instructions");
        // An arithmetic line ptxas unrolled inside a block whose memory
        // instructions are not (a loop of arithmetic fully unrolled next to
        // code that runs once, mixbench's multiply-add chains): k identical
        // instructions (same opcode and modifiers) where the line's op
        // makes one are k copies. A 64-bit add (IADD3, IADD3.X) or a
        // division's sequence differ and are left whole.
        if per >= 2.0 && !inputs.mem_lines.contains_key(&line) {
            let first = &d.instrs[counted[0]];
            let same = counted.iter().all(|&i| d.instrs[i].opcode == first.opcode);
            let arithmetic = matches!(
                first.op,
                SassOp::Class(UnitClass::Fp32 | UnitClass::Fp64 | UnitClass::Fp16 | UnitClass::Int)
            );
            if same && arithmetic && per.fract() == 0.0 {
                m *= per as u32;
            }
        }
        let mut entry = LineSass {
            copies: m,
            total: total as u32,
            ..LineSass::default()
        };
        let mut mem: BTreeMap<_, u32> = BTreeMap::new();
        for i in counted {
            match d.instrs[i].op {
                SassOp::Class(c) => entry.classes[c as usize] += 1,
                SassOp::Mem(m) => *mem.entry(m).or_default() += 1,
            }
        }
        entry.mem = mem.into_iter().collect();
        lines.insert(line, entry);
    }
    let kernels = inputs
        .kernels
        .iter()
        .map(|k| {
            let instructions = match d.sections.iter().position(|s| s == k) {
                Some(s) => d.instrs.iter().filter(|i| i.section == s as u32).count() as u32,
                None => 0,
            };
            let regs = regs::from_ptxas_log(inputs.log, k);
            (k.clone(), KernelSass { regs, instructions })
        })
        .collect();
    SassTable {
        arch: inputs.arch.to_string(),
        ptxas: inputs.ptxas.to_string(),
        origin: String::new(),
        ptx_hash: inputs.ptx_hash.to_string(),
        instructions: d.instrs.len() as u32,
        unattributed,
        kernels,
        lines,
    }
}

/// Each block's copy count (see the module doc).
fn block_copies(d: &Disassembly, mem_lines: &MemLines) -> BTreeMap<u32, u32> {
    // block -> (line, kind, constant) -> memory instructions
    let mut counts: BTreeMap<u32, BTreeMap<(u32, MemKind, bool), u32>> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for ins in &d.instrs {
        out.insert(ins.block, 1);
        if let SassOp::Mem(m) = ins.op {
            *counts
                .entry(ins.block)
                .or_default()
                .entry((ins.line, m.kind, m.space == SassSpace::Const))
                .or_default() += 1;
        }
    }
    for (block, c) in counts {
        let mut ratios: BTreeMap<u32, u32> = BTreeMap::new();
        for ((line, kind, constant), n) in c {
            let p = mem_lines
                .get(&line)
                .and_then(|k| k.get(&(kind, constant)))
                .copied()
                .unwrap_or(0);
            if p > 0 && n >= p && n % p == 0 {
                *ratios.entry(n / p).or_default() += 1;
            }
        }
        // The most common ratio; the smaller on ties.
        if let Some((&r, _)) = ratios
            .iter()
            .max_by_key(|(r, n)| (**n, std::cmp::Reverse(**r)))
        {
            out.insert(block, r);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sass::disasm::parse;

    /// A loop body unrolled twice (lines 10-12) next to its remainder copy,
    /// and a line whose load ptxas merged into its neighbour's wider one.
    const OUT: &str = r#"	.section	.text.k,"ax",@progbits
	//## File "k.ptx", line 5
        /*0000*/                   S2R R0, SR_TID.X ;
.L_x_0:
	//## File "k.ptx", line 10
        /*0010*/                   LDG.E R2, [R4.64] ;
	//## File "k.ptx", line 11
        /*0020*/                   FFMA R6, R2, R2, R6 ;
	//## File "k.ptx", line 10
        /*0030*/                   LDG.E R3, [R4.64+0x4] ;
	//## File "k.ptx", line 11
        /*0040*/                   FFMA R6, R3, R3, R6 ;
	//## File "k.ptx", line 12
        /*0050*/                   IADD3 R7, R7, 0x2, RZ ;
        /*0060*/               @P0 BRA `(.L_x_0) ;
	//## File "k.ptx", line 10
        /*0070*/                   LDG.E R2, [R4.64] ;
	//## File "k.ptx", line 11
        /*0080*/                   FFMA R6, R2, R2, R6 ;
	//## File "k.ptx", line 20
        /*0090*/                   LDS.64 R8, [R0] ;
	//## File "k.ptx", line 22
        /*00a0*/                   EXIT ;
"#;

    #[test]
    fn unrolled_copies_count_once() {
        let d = parse(OUT);
        let mut mem_lines = MemLines::new();
        for line in [10, 20, 21] {
            mem_lines
                .entry(line)
                .or_default()
                .insert((MemKind::Load, false), 1);
        }
        let table = summarize(
            &d,
            &Inputs {
                mem_lines: &mem_lines,
                log: "",
                kernels: &["k".to_string()],
                arch: "sm_80",
                ptxas: "12.9",
                ptx_hash: "h",
            },
        );
        assert_eq!(table.instructions, 11);
        assert_eq!(table.kernels["k"].instructions, 11);
        let l10 = &table.lines[&10];
        assert_eq!((l10.copies, l10.total, l10.mem[0].1), (2, 3, 2));
        let l11 = &table.lines[&11];
        assert_eq!((l11.copies, l11.classes[1]), (2, 2));
        // Line 12's increment and branch serve both copies.
        assert_eq!(table.lines[&12].classes[0] + table.lines[&12].classes[6], 2);
        assert_eq!(table.lines[&12].copies, 2);
        let l20 = &table.lines[&20];
        assert_eq!((l20.copies, l20.mem[0].0.bytes), (1, 8));
        assert!(!table.lines.contains_key(&21));
    }

    /// A loop of arithmetic that ptxas unrolled fully, in a block whose
    /// load runs once: each multiply-add line appears four times (four
    /// copies), a 64-bit add's two different instructions stay one
    /// execution's.
    #[test]
    fn unrolled_arithmetic_beside_a_load_counts_once() {
        const UNROLLED: &str = r#"	.section	.text.k,"ax",@progbits
	//## File "k.ptx", line 10
        /*0000*/                   LDG.E R2, [R4.64] ;
	//## File "k.ptx", line 11
        /*0010*/                   FFMA R2, R2, R2, R3 ;
        /*0020*/                   FFMA R2, R2, R2, R3 ;
        /*0030*/                   FFMA R2, R2, R2, R3 ;
        /*0040*/                   FFMA R2, R2, R2, R3 ;
	//## File "k.ptx", line 12
        /*0050*/                   IADD3 R6, P0, R6, 0x4, RZ ;
        /*0060*/                   IADD3.X R7, RZ, R7, RZ, P0, !PT ;
        /*0070*/                   EXIT ;
"#;
        let d = parse(UNROLLED);
        let mut mem_lines = MemLines::new();
        mem_lines
            .entry(10)
            .or_default()
            .insert((MemKind::Load, false), 1);
        let table = summarize(
            &d,
            &Inputs {
                mem_lines: &mem_lines,
                log: "",
                kernels: &["k".to_string()],
                arch: "sm_80",
                ptxas: "12.9",
                ptx_hash: "h",
            },
        );
        let l11 = &table.lines[&11];
        assert_eq!((l11.copies, l11.classes[UnitClass::Fp32 as usize]), (4, 4));
        let l12 = &table.lines[&12];
        assert_eq!(l12.copies, 1, "IADD3 and IADD3.X are one 64-bit add");
        assert_eq!(table.lines[&10].copies, 1);
    }
}
