//! SASS-aware issue costs: what ptxas made of each PTX line, as plain
//! data ([`SassTable`]), and how it becomes the per-op facts of
//! [`Program`] (unit class and cost; cost 0 = folded: the op has no
//! hardware instruction of its own and takes no issue slot).
//!
//! The table is made elsewhere (`crate::sass` runs ptxas and nvdisasm or
//! reads a committed sidecar); this module only consumes it, so that the
//! timing model still depends on the IR alone. Per PTX line it holds the
//! SASS instructions of one execution of the line: non-memory
//! instructions by unit class, memory instructions with their kind, space
//! and width, and `copies` where ptxas duplicated the line (unrolling): the
//! counts are those of the most-duplicated copy, divided by its copies.
//!
//! [`apply`] distributes a line's SASS over the line's ops (and its
//! terminator):
//!
//! 1. Memory ops take the line's memory instructions of their kind (load,
//!    store, atomic, async copy; constant-space loads only constant
//!    loads), in order: each becomes one `ls` instruction. A memory op left
//!    without one (ptxas merged it into a wider access of another line, or
//!    made a kernel parameter a constant-bank operand) is folded; its
//!    access still reaches the memory model (caches, banks, the latency of
//!    its result), it only takes no issue slot.
//! 2. The other ops take the line's other instructions, same class first,
//!    then any (the op takes the instruction's class). Ops left over are
//!    folded (`cvta`, `mov`, address arithmetic ptxas folded into
//!    addressing modes or constant operands).
//! 3. Instructions left over go to folded non-memory ops of the same
//!    block (which executes exactly as often), one each; what remains adds
//!    to the cost of an op of the line (or the block) of the same class.
//!
//! Fractions (a line duplicated 4 times with 7 instructions) round per
//! block, so that a block's total per class is the rounded sum.

use std::collections::BTreeMap;

use super::arch::UnitClass;
use super::program::Program;
use crate::ir::{Module, OpKind, Space, Terminator};

/// What a memory instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemKind {
    Load,
    Store,
    /// Atomics and reductions.
    Atomic,
    /// `cp.async` (`LDGSTS`).
    AsyncCopy,
}

/// The state space a SASS memory instruction addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SassSpace {
    Global,
    Shared,
    Local,
    Generic,
    /// The constant banks (`LDC`).
    Const,
}

/// One kind of SASS memory instruction: `LDG.E.128` is a global load of 16
/// bytes per thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SassMem {
    pub kind: MemKind,
    pub space: SassSpace,
    /// Bytes per thread.
    pub bytes: u8,
}

/// The SASS of one PTX line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LineSass {
    /// How many copies of the line the counts below stand for (ptxas
    /// unrolled or duplicated it); 1 when it did not.
    pub copies: u32,
    /// Every SASS instruction attributed to the line, all copies.
    pub total: u32,
    /// Non-memory instructions of the counted copies, by unit class
    /// (`UnitClass as usize`).
    pub classes: [u32; 8],
    /// Memory instructions of the counted copies, with their counts.
    pub mem: Vec<(SassMem, u32)>,
}

/// What ptxas said about one kernel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelSass {
    /// `Used N registers` of `ptxas -v`.
    pub regs: Option<u32>,
    /// SASS instructions of its code (padding excluded).
    pub instructions: u32,
}

/// The SASS of a module, per PTX line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SassTable {
    /// The SASS architecture (`sm_80`).
    pub arch: String,
    /// ptxas's version (`12.9.86`).
    pub ptxas: String,
    /// Where the table came from (a sidecar file, a ptxas run, the cache).
    pub origin: String,
    /// The hash of the PTX text it was made from (`crate::sass::ptx_hash`).
    pub ptx_hash: String,
    /// SASS instructions in the module (padding excluded).
    pub instructions: u32,
    /// Instructions attributed to no PTX line (a kernel's prologue).
    pub unattributed: u32,
    pub kernels: BTreeMap<String, KernelSass>,
    /// By 1-based PTX line.
    pub lines: BTreeMap<u32, LineSass>,
}

impl SassTable {
    /// "SASS sm_80 (ptxas 12.9.86, sidecar x.sass.json), 85 instructions on
    /// 60 PTX lines" for `kernel` (the module's figures when it is not in
    /// the table).
    pub fn describe(&self, kernel: &str) -> String {
        let n = self
            .kernels
            .get(kernel)
            .map_or(self.instructions, |k| k.instructions);
        format!(
            "SASS {} (ptxas {}, {}), {} instructions on {} PTX lines",
            self.arch,
            self.ptxas,
            self.origin,
            n,
            self.lines.len()
        )
    }
}

/// What [`apply`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// Ops (and terminators) with no SASS of their own.
    pub folded: u32,
    /// PTX lines with ops that the table covers.
    pub lines: u32,
}

/// A slot of a line's counts: a unit class (non-memory) or a memory kind
/// (with whether it is a constant load).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Class(u8),
    Mem(MemKind, bool),
}

/// The facts of one instruction of the program that matter here.
#[derive(Clone, Copy)]
struct Info {
    block: u32,
    /// A memory op: its kind and whether it reads constant or parameter
    /// space.
    mem: Option<(MemKind, bool)>,
    terminator: bool,
    /// Folded, it may issue right after the instruction before it.
    drains: bool,
}

fn mem_key(kind: &OpKind) -> Option<(MemKind, bool)> {
    let constant = |s: &Space| matches!(s, Space::Const | Space::KernelParam | Space::FrameParam);
    match kind {
        OpKind::Ld { space, .. } => Some((MemKind::Load, constant(space))),
        OpKind::Ldmatrix { .. } | OpKind::WmmaLoad { .. } => Some((MemKind::Load, false)),
        OpKind::St { .. } | OpKind::Stmatrix { .. } | OpKind::WmmaStore { .. } => {
            Some((MemKind::Store, false))
        }
        OpKind::Atom { .. } => Some((MemKind::Atomic, false)),
        OpKind::CpAsync { .. } => Some((MemKind::AsyncCopy, false)),
        _ => None,
    }
}

/// Rewrites the class and cost of every instruction of `program` (built
/// from `module` by [`Program::build`]) from `table` (see the module doc).
/// A folded op drains (`Instr::drain`) where `register_only` says it reads
/// and writes only the warp's registers and cannot fault (the runtime
/// passes the executors' criterion); a folded branch drains too.
pub fn apply(
    module: &Module,
    program: &mut Program,
    table: &SassTable,
    register_only: &dyn Fn(&OpKind) -> bool,
) -> Applied {
    // The program's instructions in its build order, with their facts.
    let mut info = Vec::with_capacity(program.instrs.len());
    let mut block = 0u32;
    for (_, f) in module.functions.iter() {
        for (_, b) in f.blocks.iter() {
            for op in &b.ops {
                info.push(Info {
                    block,
                    mem: mem_key(&op.kind),
                    terminator: false,
                    drains: register_only(&op.kind),
                });
            }
            info.push(Info {
                block,
                mem: None,
                terminator: true,
                drains: matches!(
                    b.term,
                    Terminator::Jump(_) | Terminator::Branch { .. } | Terminator::Switch { .. }
                ),
            });
            block += 1;
        }
    }
    debug_assert_eq!(info.len(), program.instrs.len());
    // Instructions by line (fall-through jumps are no instructions).
    let mut by_line: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, instr) in program.instrs.iter().enumerate() {
        if !instr.free {
            by_line.entry(instr.line).or_default().push(i);
        }
    }
    let counts = rounded_counts(&by_line, &info, table);
    let mut applied = Applied::default();
    // Per block: instructions of its lines left without an op.
    let mut leftovers: BTreeMap<u32, Vec<(u32, UnitClass)>> = BTreeMap::new();
    for (&line, instrs) in &by_line {
        let mut have = counts.get(&line).cloned().unwrap_or_default();
        if table.lines.contains_key(&line) {
            applied.lines += 1;
        }
        for &i in instrs {
            program.instrs[i].cost = 0;
            program.instrs[i].int_mul32 = false;
        }
        // An atomic whose line's SASS also loads its space and branches is
        // ptxas's compare-and-swap loop (16-bit and shared-memory float
        // adds on sm_80: `LD`, `ATOM.CAS`/`ATOMS.CAS`, a branch back).
        let cas_loop = table.lines.get(&line).is_some_and(|ls| {
            let has = |kind, space| {
                ls.mem
                    .iter()
                    .any(|(m, _)| m.kind == kind && m.space == space)
            };
            ls.classes[UnitClass::Control as usize] > 0
                && ls
                    .mem
                    .iter()
                    .any(|(a, _)| a.kind == MemKind::Atomic && has(MemKind::Load, a.space))
        });
        for &i in instrs {
            if info[i].mem.is_some_and(|(k, _)| k == MemKind::Atomic) {
                program.instrs[i].cas_loop = cas_loop;
            }
        }
        // 1. Memory ops take memory instructions of their kind.
        for &i in instrs {
            if let Some((kind, constant)) = info[i].mem {
                if take(&mut have, Key::Mem(kind, constant)) {
                    set(program, i, UnitClass::Ls);
                }
            }
        }
        // 2. Other ops: same class first, then any.
        let others: Vec<usize> = instrs
            .iter()
            .copied()
            .filter(|&i| info[i].mem.is_none())
            .collect();
        for &i in &others {
            let class = program.instrs[i].class;
            if take(&mut have, Key::Class(class as u8)) {
                set(program, i, class);
            }
        }
        for &i in &others {
            if program.instrs[i].cost == 0 {
                if let Some(class) = take_any_class(&mut have) {
                    set(program, i, class);
                }
            }
        }
        // 3. What is left goes to the block.
        let home = info[instrs[0]].block;
        for (key, n) in have {
            let class = match key {
                Key::Class(c) => UnitClass::ALL[c as usize],
                Key::Mem(..) => UnitClass::Ls,
            };
            for _ in 0..n {
                leftovers.entry(home).or_default().push((line, class));
            }
        }
    }
    // Folded non-memory ops of each block, in order, take the leftovers.
    let mut candidates: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, instr) in program.instrs.iter().enumerate() {
        if !instr.free && instr.cost == 0 && info[i].mem.is_none() && !info[i].terminator {
            candidates.entry(info[i].block).or_default().push(i);
        }
    }
    for (block, extra) in leftovers {
        let free = candidates.entry(block).or_default();
        for (line, class) in extra {
            // The nearest line's, its class's first.
            let pick = free
                .iter()
                .enumerate()
                .min_by_key(|&(k, &i)| {
                    let instr = &program.instrs[i];
                    (instr.line.abs_diff(line), instr.class != class, k)
                })
                .map(|(k, _)| k);
            if let Some(k) = pick {
                let i = free.remove(k);
                set(program, i, class);
            } else {
                add_cost(program, &info, &by_line[&line], block, class);
            }
        }
    }
    for (instr, info) in program.instrs.iter_mut().zip(&info) {
        instr.drain = instr.cost == 0 && info.drains;
    }
    applied.folded = program
        .instrs
        .iter()
        .filter(|i| !i.free && i.cost == 0)
        .count() as u32;
    program.folds = applied.folded > 0;
    applied
}

fn set(program: &mut Program, i: usize, class: UnitClass) {
    let instr = &mut program.instrs[i];
    instr.class = class;
    instr.cost = 1;
}

/// An instruction left over on `line` (of `block`) adds to the cost of an
/// op that issues: of the line and its class, of the block and its class,
/// of the line, of the block; else it becomes the line's first op.
fn add_cost(program: &mut Program, info: &[Info], line: &[usize], block: u32, class: UnitClass) {
    let instrs = &program.instrs;
    let in_block: Vec<usize> = (0..instrs.len())
        .filter(|&i| info[i].block == block && !instrs[i].free)
        .collect();
    let issues = |i: &&usize| instrs[**i].cost > 0;
    let plain = |i: &&usize| info[**i].mem.is_none() && !info[**i].terminator;
    let same = |i: &&usize| instrs[**i].class == class;
    let target = line
        .iter()
        .filter(issues)
        .filter(plain)
        .find(same)
        .or_else(|| in_block.iter().filter(issues).filter(plain).find(same))
        .or_else(|| line.iter().filter(issues).find(plain))
        .or_else(|| line.iter().find(issues))
        .or_else(|| in_block.iter().find(issues))
        .copied();
    match target {
        Some(i) => {
            let c = &mut program.instrs[i].cost;
            *c = c.saturating_add(1);
        }
        None => set(program, line[0], class),
    }
}

/// Takes one instruction of `key` from `have`.
fn take(have: &mut BTreeMap<Key, u32>, key: Key) -> bool {
    match have.get_mut(&key) {
        Some(n) if *n > 0 => {
            *n -= 1;
            if *n == 0 {
                have.remove(&key);
            }
            true
        }
        _ => false,
    }
}

/// Takes one non-memory instruction, of the class with the most left.
fn take_any_class(have: &mut BTreeMap<Key, u32>) -> Option<UnitClass> {
    let (&key, _) = have
        .iter()
        .filter(|(k, _)| matches!(k, Key::Class(_)))
        .max_by_key(|(k, n)| (**n, std::cmp::Reverse(**k)))?;
    let Key::Class(c) = key else { unreachable!() };
    take(have, key);
    Some(UnitClass::ALL[c as usize])
}

/// Each line's instructions per execution, by key: its counts divided by
/// its copies, rounded per block (each block's total per key is its
/// rounded sum; the largest remainders get the extra ones).
fn rounded_counts(
    by_line: &BTreeMap<u32, Vec<usize>>,
    info: &[Info],
    table: &SassTable,
) -> BTreeMap<u32, BTreeMap<Key, u32>> {
    // A block most of whose lines ptxas unrolled k times had all of them
    // unrolled so: a line of it whose copies were not recognised (its
    // instructions differ from copy to copy, or the loop's preheader and
    // remainder added some) stands for k executions too. (Most, not one:
    // a line's identical instructions can look like copies where nothing
    // was unrolled, in unoptimised code.)
    let mut seen: BTreeMap<u32, (u32, BTreeMap<u32, u32>)> = BTreeMap::new();
    for (&line, instrs) in by_line {
        if let Some(sass) = table.lines.get(&line) {
            let (lines, ks) = seen.entry(info[instrs[0]].block).or_default();
            *lines += 1;
            *ks.entry(sass.copies.max(1)).or_default() += 1;
        }
    }
    let block_copies: BTreeMap<u32, u32> = seen
        .into_iter()
        .map(|(block, (lines, ks))| {
            let k = ks
                .into_iter()
                .find(|&(k, n)| k > 1 && 2 * n > lines)
                .map_or(1, |(k, _)| k);
            (block, k)
        })
        .collect();
    // (block, key) -> [(line, fraction)]
    let mut parts: BTreeMap<(u32, Key), Vec<(u32, f64)>> = BTreeMap::new();
    for (&line, instrs) in by_line {
        let Some(sass) = table.lines.get(&line) else {
            continue;
        };
        let home = info[instrs[0]].block;
        let copies = if sass.copies > 1 {
            sass.copies
        } else {
            block_copies[&home]
        } as f64;
        for (c, &n) in sass.classes.iter().enumerate() {
            if n > 0 {
                let key = Key::Class(c as u8);
                parts
                    .entry((home, key))
                    .or_default()
                    .push((line, n as f64 / copies));
            }
        }
        for &(m, n) in &sass.mem {
            let key = Key::Mem(m.kind, m.space == SassSpace::Const);
            parts
                .entry((home, key))
                .or_default()
                .push((line, n as f64 / copies));
        }
    }
    let mut out: BTreeMap<u32, BTreeMap<Key, u32>> = BTreeMap::new();
    for ((_, key), mut v) in parts {
        // Merge a line's parts (several memory widths of one kind).
        v.sort_by_key(|p| p.0);
        v.dedup_by(|b, a| {
            if a.0 == b.0 {
                a.1 += b.1;
                true
            } else {
                false
            }
        });
        let total: f64 = v.iter().map(|p| p.1).sum();
        let target = (total + 1e-9).round() as u32;
        let mut whole: Vec<u32> = v.iter().map(|p| (p.1 + 1e-9).floor() as u32).collect();
        let mut left = target.saturating_sub(whole.iter().sum());
        let mut order: Vec<usize> = (0..v.len()).collect();
        order.sort_by(|&a, &b| {
            let ra = v[a].1 - whole[a] as f64;
            let rb = v[b].1 - whole[b] as f64;
            rb.total_cmp(&ra).then(a.cmp(&b))
        });
        for k in order {
            if left == 0 {
                break;
            }
            whole[k] += 1;
            left -= 1;
        }
        for ((line, _), n) in v.iter().zip(whole) {
            if n > 0 {
                *out.entry(*line).or_default().entry(key).or_default() += n;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::{self, SourceFile};

    const PTX: &str = ".version 8.8
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p, .param .u32 n)
{
	.reg .b32 %r<8>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<8>;
	.shared .align 16 .b8 s[64];
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mov.f32 %f1, 0f00000000;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.shared.f32 %f2, [s];
	ld.shared.f32 %f3, [s+4];
	add.f32 %f4, %f2, %f3;
	st.global.f32 [%rd4], %f4;
	ret;
}
";

    fn program(table: &SassTable) -> (Program, Applied) {
        let source = SourceFile::new("k.ptx", PTX);
        let ast = front::parse(&source).unwrap();
        let module = crate::ir::lower::run(&ast, &source).unwrap();
        let mut p = Program::build(&module, &|o| source.line_col(o as usize).line as u32);
        let applied = apply(&module, &mut p, table, &|k| !matches!(k, OpKind::Ld { .. }));
        (p, applied)
    }

    fn line(
        classes: &[(UnitClass, u32)],
        mem: &[(MemKind, SassSpace, u8)],
        copies: u32,
    ) -> LineSass {
        let mut l = LineSass {
            copies,
            ..LineSass::default()
        };
        for &(c, n) in classes {
            l.classes[c as usize] = n;
        }
        for &(kind, space, bytes) in mem {
            l.mem.push((SassMem { kind, space, bytes }, 1));
        }
        l.total = l.classes.iter().sum::<u32>() + l.mem.len() as u32;
        l
    }

    /// (class, cost, drain) of the instructions of each PTX line.
    fn by_line(p: &Program) -> BTreeMap<u32, Vec<(UnitClass, u16, bool)>> {
        let mut out: BTreeMap<u32, Vec<_>> = BTreeMap::new();
        for i in &p.instrs {
            if !i.free {
                out.entry(i.line)
                    .or_default()
                    .push((i.class, i.cost, i.drain));
            }
        }
        out
    }

    #[test]
    fn lines_fold_merge_and_take_their_classes() {
        use MemKind::*;
        use SassSpace::*;
        use UnitClass::*;
        let mut t = SassTable::default();
        // 10 ld.param: none (a constant operand). 11 cvta: none.
        t.lines.insert(12, line(&[(Int, 1)], &[], 1)); // S2R
        t.lines.insert(13, line(&[(Fp16, 1)], &[], 1)); // HFMA2.MMA as a move
                                                        // mul.wide: IMAD.WIDE and a MOV of its constant; add.s64 folded.
        t.lines.insert(14, line(&[(Int, 2)], &[], 1));
        // Two loads merged into one LDS.64 on the first line.
        t.lines.insert(16, line(&[], &[(Load, Shared, 8)], 1));
        t.lines.insert(18, line(&[(Fp32, 1)], &[], 1));
        t.lines.insert(19, line(&[], &[(Store, Global, 4)], 1));
        t.lines.insert(20, line(&[(Control, 1)], &[], 1));
        let (p, applied) = program(&t);
        let l = by_line(&p);
        assert_eq!(
            l[&10],
            [(Int, 0, false)],
            "ld.param folded (no drain: a load)"
        );
        // (`mov` of `%tid.x` is two ops: the read and a move.)
        assert_eq!(l[&12], [(Int, 1, false), (Int, 0, true)]);
        assert_eq!(l[&13], [(Fp16, 1, false)], "mov takes HFMA2's class");
        assert_eq!(l[&14], [(Int, 1, false)]);
        // mul.wide's extra MOV goes to the nearest folded op (add.s64, line
        // 15); the cvta (line 11) stays folded and drains.
        assert_eq!(l[&15], [(Int, 1, false)]);
        assert_eq!(l[&11], [(Int, 0, true)]);
        assert_eq!(l[&16], [(Ls, 1, false)]);
        assert_eq!(l[&17], [(Ls, 0, false)], "merged into line 16's LDS.64");
        assert_eq!(l[&18], [(Fp32, 1, false)]);
        assert_eq!(l[&19], [(Ls, 1, false)]);
        // (`ret` and the terminator of the empty block lowering leaves after it.)
        assert_eq!(l[&20], [(Control, 1, false), (Control, 0, false)]);
        assert_eq!(applied.folded, 5);
        assert_eq!(applied.lines, 7);
    }

    #[test]
    fn unrolled_copies_round_per_block() {
        use UnitClass::*;
        let mut t = SassTable::default();
        // Four copies: 6 integer instructions over lines 12, 14 and 15 (3,
        // 2, 1 of them) are 1.5 per execution: rounded to 2 in the block,
        // the largest remainders first (lines 12 and 14: 0.75 and 0.5).
        t.lines.insert(12, line(&[(Int, 3)], &[], 4));
        t.lines.insert(14, line(&[(Int, 2)], &[], 4));
        t.lines.insert(15, line(&[(Int, 1)], &[], 4));
        let (p, _) = program(&t);
        let l = by_line(&p);
        assert_eq!(l[&12][0].1, 1);
        assert_eq!(l[&14][0].1, 1);
        assert_eq!(l[&15][0].1, 0);
    }

    /// A line of a block ptxas unrolled 4 times (most of its lines show
    /// 4 copies) whose own copies were not recognised (the loop's
    /// preheader and remainder add instructions to it, as to the loop
    /// counter's compare of the Accel-Sim shared bandwidth kernel) stands
    /// for 4 executions like the block's others; one line that looks
    /// duplicated does not make its block unrolled.
    #[test]
    fn a_blocks_unrolling_divides_its_unrecognised_lines() {
        use UnitClass::*;
        let fp32 = |t: &SassTable| -> u16 {
            let (p, _) = program(t);
            let l = by_line(&p);
            l.values()
                .flatten()
                .filter(|o| o.0 == Fp32)
                .map(|o| o.1)
                .sum()
        };
        let mut t = SassTable::default();
        t.lines.insert(12, line(&[(Int, 4)], &[], 4));
        t.lines.insert(14, line(&[(Int, 4)], &[], 4));
        t.lines.insert(18, line(&[(Fp32, 8)], &[], 1));
        assert_eq!(fp32(&t), 2, "8 instructions over 4 copies");
        t.lines.insert(12, line(&[(Int, 4)], &[], 1));
        assert_eq!(fp32(&t), 8, "one line of three is not the block");
    }
}
