//! The cycle model: a block scheduler places CTAs on SMs up to the
//! occupancy limit (a new one as one retires: its warps exited and the L2
//! acknowledged their stores and atomics); each SM's warp contexts are
//! divided among its warp schedulers (context i to scheduler i mod n); each
//! scheduler, each cycle, picks a ready warp by policy and issues up to the
//! issue width when units are free. Dispatch takes ceil(32 / units of the
//! class per scheduler) cycles, during which neither the class's units nor
//! the warp's next instruction can go; a result is ready its latency after
//! issue and a dependent instruction waits for it (stall on use), so a load
//! does not stall issue until its value is needed. Loads take their latency
//! from the memory model over the addresses the warp used. Barriers hold
//! warps until the CTA's threads arrive; diverged paths run one after the
//! other, since the executor runs them so. Cycles in which no scheduler can
//! issue are skipped in one step (attributed to their stall reasons).
//!
//! This file holds the block scheduler and the walk over SMs and cycles;
//! `issue.rs` what one SM does in a cycle.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::arch::{Arch, DualIssue, UnitClass};
use super::cache::Cache;
use super::exec::{CtaExec, GridExec, MemAccess, Pos};
use super::memory::{MemorySystem, SmMemory};
use super::program::{CachePolicy, MemClass, Program};
use super::report::{Stall, TimingReport};
use super::sched::Sched;

/// Cycles an SM is simulated on its own before the SM furthest behind
/// takes over.
const QUANTUM: u64 = 64;

/// What to simulate and record.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// CTAs resident per SM at most (from the occupancy rules).
    pub blocks_per_sm: u32,
    pub grid_ctas: u64,
    /// Simulate only the first CTAs (sampling); the rest are not timed.
    pub max_ctas: u64,
    /// Record issue events for these (CTA, warp) pairs within `window`.
    pub diagram_warps: Vec<(u64, u32)>,
    pub window: (u64, u64),
    /// Solo runs (`solo.rs`) allowed.
    pub run_ahead: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum WState {
    Ready,
    Barrier,
    Done,
}

/// A warp context on an SM.
pub(super) struct WarpCtx {
    pub cta_slot: usize,
    /// Its scheduler, and its index among that scheduler's contexts.
    pub sched: u32,
    pub local: u32,
    pub w: usize,
    pub cta_linear: u64,
    pub state: WState,
    pub pos: Pos,
    /// Active threads of `pos.mask` (0 with it before the first fetch).
    pub threads: u32,
    /// Index of the current instruction in the program.
    pub cur: usize,
    /// What issuing it costs (`Model::costs[cur]`, copied where `cur`
    /// moves: read several times per issue).
    pub ic: IssueCost,
    /// The current issue unit ran up to this op (exclusive); 0 = not yet
    /// run. A unit with no later op to issue (a terminator) records 1, so
    /// that "the next op is inside the unit" is `pc + 1 < ran_until` alone.
    pub ran_until: usize,
    /// While the current unit has not run: its ops before this one (a pc)
    /// issue without running it (`CtaExec::deferrable`), and it runs from
    /// `unit_start` when this one issues; 0 = none.
    pub defer_until: usize,
    /// Where the current unit starts, while `defer_until` is set.
    pub unit_start: usize,
    pub ready_at: u64,
    pub reason: Stall,
    pub next_free: u64,
    /// Per register: twice the cycle its value is ready, plus 1 when a
    /// memory access produces it.
    pub ready: Vec<u64>,
    pub record: bool,
}

pub(super) struct CtaSlot<C> {
    pub exec: C,
    pub linear: u64,
    pub live_warps: usize,
    pub warp_slots: Vec<usize>,
    /// When the L2 has acknowledged every store and atomic its warps sent:
    /// a CTA's slot is free only then (a warp is done in hardware once its
    /// stores are, as GPGPU-Sim's `shd_warp_t::hardware_done` has it).
    pub drained_at: u64,
}

pub(super) struct Sm<C> {
    pub ctas: Vec<Option<CtaSlot<C>>>,
    pub warps: Vec<Option<WarpCtx>>,
    pub scheds: Vec<Sched>,
    /// Per scheduler, the earliest cycle it may issue (`u64::MAX`: not
    /// until a warp is filed with it); it is visited only from then on.
    pub wake: Vec<u64>,
    /// The schedulers whose state changed since their stall reasons were
    /// last taken (visited, a warp filed with them or left a barrier).
    pub dirty: u32,
    /// Its L1, miss slots, port to the L2 and L1/shared pipeline.
    pub mem: SmMemory,
    pub resident_warps: u32,
    /// The earliest cycle the work distributor can give it another CTA
    /// (`block_dispatch_cycles`).
    pub next_dispatch: u64,
    /// The cycles at which the slots of the CTAs retired in the cycle just
    /// simulated come free (their stores drained).
    pub freed: Vec<u64>,
}

/// What issuing an instruction costs on this preset, precomputed per
/// instruction of the program. Aligned to 32 bytes (its size), so that
/// indexing the table is a shift.
#[derive(Clone, Copy)]
#[repr(align(32))]
pub(super) struct IssueCost {
    pub class: u8,
    pub mem: MemClass,
    /// A global load's cache operator.
    pub cache: CachePolicy,
    /// A fall-through jump: no issue slot (`Instr::free`).
    pub free: bool,
    /// Hardware instructions (`Instr::cost`).
    pub cost: u16,
    /// The class's latency times the cost.
    pub latency: u32,
    /// The class's dispatch cycles times the cost.
    pub dispatch: u32,
    /// Its registers in `Program::regs`: read `ops.0..ops.1`, written
    /// `ops.1..ops.2` (the scoreboard checks both).
    pub ops: (u32, u32, u32),
    /// Its block's op count (`Instr::block_ops`).
    pub block_end: u32,
    /// A compare-and-swap loop (`Instr::cas_loop`).
    pub cas_loop: bool,
}

const _: () = assert!(std::mem::size_of::<IssueCost>() == 32);

impl IssueCost {
    /// A placeholder for a warp with no current instruction yet.
    const NONE: IssueCost = IssueCost {
        class: 0,
        mem: MemClass::None,
        cache: CachePolicy::Default,
        free: false,
        cost: 0,
        latency: 0,
        dispatch: 0,
        ops: (0, 0, 0),
        block_end: 0,
        cas_loop: false,
    };
}

/// What one instruction of the program was charged: cycles (dispatch and
/// stalls), issues, and active threads over its issues.
#[derive(Clone, Copy, Default)]
pub(super) struct InstrCounts {
    pub cycles: u64,
    pub issues: u64,
    pub threads: u64,
}

/// Per-class facts of the preset: how many warp-instructions of each
/// class one scheduler can start per cycle. A class with a multiple of 32
/// units per scheduler starts that many each cycle; one with, say, 48
/// (Kepler's 192 FP32 units on 4 schedulers) starts 1.5 on average, as
/// alternating cycles of 1 and 2: `table[now % table.len()]`.
pub(super) struct ClassInfo {
    table: Vec<[u32; 8]>,
    /// `table.len() - 1`: the period is a power of two (a least common
    /// multiple of divisors of 32), so `now % len` is a mask.
    mask: u64,
}

impl ClassInfo {
    fn new(arch: &Arch) -> ClassInfo {
        // Lanes per scheduler per cycle, as a rate of warps: lanes / 32.
        let lanes: Vec<u64> = UnitClass::ALL
            .iter()
            .map(|&c| (arch.units_per_scheduler(c).floor() as u64).max(1))
            .collect();
        // The period after which every class's pattern repeats.
        let gcd = |mut a: u64, mut b: u64| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        let period = lanes
            .iter()
            .map(|&l| 32 / gcd(l, 32))
            .fold(1, |p, d| p / gcd(p, d) * d);
        let table = (0..period)
            .map(|t| {
                let mut row = [1u32; 8];
                for (i, &l) in lanes.iter().enumerate() {
                    // Warps started by the end of cycle t, less by its start.
                    let n = ((t + 1) * l / 32) as u32 - (t * l / 32) as u32;
                    row[i] = n.max(1);
                }
                row
            })
            .collect::<Vec<_>>();
        debug_assert!(table.len().is_power_of_two());
        let mask = table.len() as u64 - 1;
        ClassInfo { table, mask }
    }

    /// Warp-instructions per class that may start in cycle `now`.
    #[inline]
    pub fn at(&self, now: u64) -> &[u32; 8] {
        &self.table[(now & self.mask) as usize]
    }
}

pub(super) struct Model<'a> {
    pub arch: &'a Arch,
    pub program: &'a Program,
    pub costs: Vec<IssueCost>,
    pub classes: ClassInfo,
    /// Issue slots per scheduler per cycle (2 with dual issue).
    pub width: u32,
    /// Cycles between a scheduler's issues (`Scheduler::issue_interval`).
    pub issue_interval: u64,
    pub mem: MemorySystem,
    pub report: TimingReport,
    pub cfg: &'a SimConfig,
    pub released: Vec<usize>,
    /// The other warps a barrier released (context slots), to file.
    pub others: Vec<usize>,
    /// Where executed instructions leave their addresses.
    pub access: Box<MemAccess>,
    /// Per instruction: cycles attributed (dispatch and stalls) and issues,
    /// summed into the report's PTX lines at the end.
    pub instr_cycles: Vec<InstrCounts>,
    /// CTAs remain to be placed (an SM may receive warps at any cycle).
    pub placing: bool,
    /// Solo runs allowed by the preset and the configuration (single
    /// issue every cycle, `SimConfig::run_ahead`).
    pub solo_runs: bool,
    /// `arch.scheduler.dispatch_blocks_warp`.
    pub dispatch_blocks_warp: bool,
    /// Per instruction, once asked (`Model::unit_ahead`): what the unit
    /// starting there allows before it runs, `UNIT_PRIVATE` or its
    /// deferrable op count; `UNIT_UNKNOWN` before.
    pub unit_ahead: Vec<u8>,
}

/// `Model::unit_ahead`: not asked yet.
pub(super) const UNIT_UNKNOWN: u8 = u8::MAX;
/// `Model::unit_ahead`: the unit is private (`CtaExec::private`).
pub(super) const UNIT_PRIVATE: u8 = u8::MAX - 1;

/// Runs the grid through the cycle model; faults from execution end it.
pub fn simulate<G: GridExec>(
    arch: &Arch,
    program: &Program,
    cfg: &SimConfig,
    grid: &mut G,
) -> Result<TimingReport, G::Fault> {
    simulate_with(arch, program, cfg, grid, &mut None)
}

/// [`simulate`], starting from the L2 in `l2` (an earlier launch's, on the
/// same preset; cold when `None`) and leaving this launch's there.
pub fn simulate_with<G: GridExec>(
    arch: &Arch,
    program: &Program,
    cfg: &SimConfig,
    grid: &mut G,
    l2: &mut Option<Cache>,
) -> Result<TimingReport, G::Fault> {
    let classes = ClassInfo::new(arch);
    let costs = program
        .instrs
        .iter()
        .map(|i| {
            let cost = if i.int_mul32 {
                i.cost as u32 * arch.units.int_mul32_issues.max(1)
            } else {
                i.cost as u32
            };
            IssueCost {
                class: i.class as u8,
                mem: i.mem,
                cache: i.cache,
                free: i.free,
                ops: (i.srcs.0, i.dsts.0, i.dsts.1),
                cost: cost.min(u16::MAX as u32) as u16,
                latency: arch.latency.of(i.class) * cost,
                dispatch: arch.dispatch_cycles(i.class) * cost,
                block_end: i.block_ops,
                cas_loop: i.cas_loop,
            }
        })
        .collect();
    let issue_interval = arch.scheduler.issue_interval.max(1) as u64;
    let width = match arch.scheduler.dual_issue {
        DualIssue::None => 1,
        DualIssue::Independent => arch.scheduler.issue_width,
    };
    let mut model = Model {
        arch,
        program,
        costs,
        classes,
        issue_interval,
        width,
        mem: MemorySystem::new(arch).with_l2(l2.take()),
        report: TimingReport::default(),
        cfg,
        released: Vec::new(),
        others: Vec::new(),
        access: Box::default(),
        instr_cycles: vec![InstrCounts::default(); program.instrs.len()],
        placing: true,
        solo_runs: width == 1 && issue_interval == 1 && cfg.run_ahead,
        dispatch_blocks_warp: arch.scheduler.dispatch_blocks_warp,
        unit_ahead: vec![UNIT_UNKNOWN; program.instrs.len()],
    };
    let max_warps = arch.occupancy.max_warps_per_sm as usize;
    let total = cfg.grid_ctas.min(cfg.max_ctas);
    // SMs get their contexts when they first receive a CTA.
    let mut sms: Vec<Sm<G::Cta>> = (0..arch.chip.sm_count)
        .map(|_| Sm {
            ctas: Vec::new(),
            warps: Vec::new(),
            scheds: Vec::new(),
            wake: Vec::new(),
            dirty: 0,
            mem: SmMemory::new(arch),
            resident_warps: 0,
            next_dispatch: 0,
            freed: Vec::new(),
        })
        .collect();
    model.report.sm_cycles = vec![0; sms.len()];
    let mut next_cta = 0u64;
    let now = 0u64;
    // Initial placement: CTA i to SM i mod n, wave by wave.
    'fill: for _ in 0..cfg.blocks_per_sm {
        for sm in sms.iter_mut() {
            if next_cta >= total {
                break 'fill;
            }
            model.place(sm, grid, next_cta, now, now)?;
            next_cta += 1;
        }
    }
    let mut live_ctas = next_cta;
    model.placing = next_cta < total;
    let mut resident_sum = 0u128;
    // SMs share only the memory system (and global memory's contents), so
    // each runs through a quantum of cycles (aligned: [kQ, (k+1)Q)) while
    // its state is hot in the host's caches, the SM furthest behind first;
    // within an SM, every cycle in which a scheduler may issue is simulated
    // in order.
    let mut behind: BinaryHeap<Reverse<(u64, usize, u64)>> = (0..sms.len())
        .filter(|&i| sms[i].resident_warps > 0)
        .map(|i| Reverse((0, i, 0)))
        .collect();
    let mut end = 0;
    // The earliest quantum any SM is in, SMs in index order within it.
    let mut first = behind.pop();
    while live_ctas > 0 {
        let Some(Reverse((quantum, i, start))) = first.take() else {
            break;
        };
        model.mem.advance(quantum * QUANTUM);
        let sm = &mut sms[i];
        let mut now = start;
        loop {
            let (wake, retired) = model.cycle(sm, i, grid, now)?;
            let mut next = wake.max(now + 1);
            for _ in 0..retired {
                live_ctas -= 1;
                let free = sm.freed.pop().expect("a retired CTA's free cycle");
                end = end.max(free);
                if next_cta < total {
                    let start = free + model.arch.chip.block_launch_cycles as u64;
                    model.place(sm, grid, next_cta, now + 1, start)?;
                    next_cta += 1;
                    model.placing = next_cta < total;
                    live_ctas += 1;
                    next = now + 1;
                }
            }
            if next == u64::MAX {
                // Every warp waits on something only this SM's progress
                // could change; the executor reports deadlocks, so this is
                // an SM that just emptied.
                next = now + 1;
            }
            let span = next - now;
            let done = (sm.resident_warps == 0).then_some(next);
            model.account_stalls(sm, now, done);
            model.report.sm_cycles[i] += span;
            resident_sum += sm.resident_warps as u128 * span as u128;
            end = end.max(next);
            now = next;
            if done.is_some() {
                break;
            }
            if now / QUANTUM != quantum {
                // An SM that would be taken next goes on without the heap.
                let key = Reverse((now / QUANTUM, i, now));
                if behind.peek().is_none_or(|earliest| key > *earliest) {
                    first = Some(key);
                } else {
                    behind.push(key);
                }
                break;
            }
        }
        if first.is_none() {
            first = behind.pop();
        }
    }
    let r = &mut model.report;
    r.cycles = end.max(1);
    r.simulated_ctas = total;
    r.grid_ctas = cfg.grid_ctas;
    let active: u64 = r.sm_cycles.iter().sum();
    r.achieved_occupancy = if active == 0 {
        0.0
    } else {
        resident_sum as f64 / (active as f64 * max_warps as f64)
    };
    r.memory = model.mem.stats.clone();
    *l2 = model.mem.take_l2();
    for ((instr, c), ic) in program
        .instrs
        .iter()
        .zip(&model.instr_cycles)
        .zip(&model.costs)
    {
        if c.cycles > 0 || c.issues > 0 {
            r.line_cycles.add(instr.line, c.cycles, c.issues);
        }
        r.warp_instructions += c.issues;
        r.hw_instructions += c.issues * ic.cost as u64;
        r.thread_instructions += c.threads;
        r.mix[ic.class as usize] += c.issues;
    }
    Ok(model.report)
}

impl Model<'_> {
    /// Puts CTA `linear` on `sm` at `now`, its warps into free contexts,
    /// from which they may issue at `start` (when the slot it takes is free).
    fn place<G: GridExec>(
        &mut self,
        sm: &mut Sm<G::Cta>,
        grid: &mut G,
        linear: u64,
        now: u64,
        start: u64,
    ) -> Result<(), G::Fault> {
        if sm.warps.is_empty() {
            let n_sched = self.arch.scheduler.schedulers_per_sm as usize;
            sm.ctas = (0..self.cfg.blocks_per_sm).map(|_| None).collect();
            sm.warps = (0..self.arch.occupancy.max_warps_per_sm)
                .map(|_| None)
                .collect();
            let pipes = self.arch.units.pipes();
            sm.scheds = (0..n_sched).map(|_| Sched::new(pipes)).collect();
            sm.wake = vec![u64::MAX; n_sched];
        }
        let start = start.max(sm.next_dispatch);
        sm.next_dispatch = start + self.arch.chip.block_dispatch_cycles as u64;
        let mut exec = grid.start(linear);
        let n = exec.warps();
        let slot = sm
            .ctas
            .iter()
            .position(|c| c.is_none())
            .expect("a free CTA slot");
        let mut warp_slots = Vec::with_capacity(n);
        let mut live = 0;
        let n_sched = sm.scheds.len();
        for w in 0..n {
            let ctx_slot = sm
                .warps
                .iter()
                .position(|c| c.is_none())
                .expect("the occupancy rules leave a warp context per warp");
            let mut ctx = WarpCtx {
                cta_slot: slot,
                sched: (ctx_slot % n_sched) as u32,
                local: (ctx_slot / n_sched) as u32,
                w,
                cta_linear: linear,
                state: WState::Done,
                pos: Pos {
                    func: crate::ir::FuncId::from_u32(0),
                    block: crate::ir::Block::from_u32(0),
                    pc: 0,
                    mask: 0,
                },
                threads: 0,
                cur: 0,
                ic: IssueCost::NONE,
                ran_until: 0,
                defer_until: 0,
                unit_start: 0,
                ready_at: start,
                reason: Stall::Dependency,
                next_free: start,
                ready: Vec::new(),
                record: self.cfg.diagram_warps.contains(&(linear, w as u32)),
            };
            self.fetch(&mut ctx, &mut exec, now)?;
            if start > now {
                // Until its slot is free, no warp of it is resident.
                ctx.reason = Stall::NoEligibleWarp;
            }
            if ctx.state != WState::Done {
                live += 1;
            }
            sm.warps[ctx_slot] = Some(ctx);
            warp_slots.push(ctx_slot);
            self.enqueue(sm, ctx_slot, now);
        }
        sm.resident_warps += n as u32;
        sm.ctas[slot] = Some(CtaSlot {
            exec,
            linear,
            live_warps: live,
            warp_slots,
            drained_at: start,
        });
        Ok(())
    }
}
