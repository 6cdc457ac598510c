//! The cycle model: a block scheduler places CTAs on SMs up to the
//! occupancy limit (a new one as one retires); each SM's warp contexts are
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

use cranelift_codegen::entity::EntityRef;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::arch::{Arch, DualIssue, UnitClass};
use super::exec::{CtaExec, GridExec, MemAccess, MemSpace, Next, Pos};
use super::memory::{Cache, Kind, MemorySystem};
use super::program::{MemClass, Program};
use super::report::{IssueEvent, Stall, TimingReport};
use super::sched::Sched;

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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WState {
    Ready,
    Barrier,
    Done,
}

/// A warp context on an SM.
struct WarpCtx {
    cta_slot: usize,
    /// Its scheduler, and its index among that scheduler's contexts.
    sched: u32,
    local: u32,
    w: usize,
    cta_linear: u64,
    state: WState,
    pos: Pos,
    /// Index of the current instruction in the program.
    cur: usize,
    /// The current issue unit ran up to this op (exclusive); 0 = not yet run.
    ran_until: usize,
    ready_at: u64,
    reason: Stall,
    next_free: u64,
    /// Per register: the cycle its value is ready, and whether a memory
    /// access produces it.
    ready: Vec<u64>,
    from_mem: Vec<bool>,
    record: bool,
}

struct CtaSlot<C> {
    exec: C,
    linear: u64,
    live_warps: usize,
    warp_slots: Vec<usize>,
}

struct Sm<C> {
    ctas: Vec<Option<CtaSlot<C>>>,
    warps: Vec<Option<WarpCtx>>,
    scheds: Vec<Sched>,
    l1: Cache,
    resident_warps: u32,
}

/// Per-class facts of the preset, precomputed.
struct ClassInfo {
    dispatch: [u32; 8],
    per_cycle: [u32; 8],
    latency: [u32; 8],
}

struct Model<'a> {
    arch: &'a Arch,
    program: &'a Program,
    classes: ClassInfo,
    mem: MemorySystem,
    report: TimingReport,
    cfg: &'a SimConfig,
    released: Vec<usize>,
    /// Where executed instructions leave their addresses.
    access: Box<MemAccess>,
    /// Per instruction: cycles attributed (dispatch and stalls) and issues,
    /// summed into the report's PTX lines at the end.
    instr_cycles: Vec<(u64, u64)>,
}

/// Runs the grid through the cycle model; faults from execution end it.
pub fn simulate<G: GridExec>(
    arch: &Arch,
    program: &Program,
    cfg: &SimConfig,
    grid: &mut G,
) -> Result<TimingReport, G::Fault> {
    let mut classes = ClassInfo {
        dispatch: [1; 8],
        per_cycle: [1; 8],
        latency: [0; 8],
    };
    for c in UnitClass::ALL {
        classes.dispatch[c as usize] = arch.dispatch_cycles(c);
        classes.per_cycle[c as usize] =
            ((arch.units_per_scheduler(c) / 32.0).floor() as u32).max(1);
        classes.latency[c as usize] = arch.latency.of(c);
    }
    let mut model = Model {
        arch,
        program,
        classes,
        mem: MemorySystem::new(arch),
        report: TimingReport::default(),
        cfg,
        released: Vec::new(),
        access: Box::default(),
        instr_cycles: vec![(0, 0); program.instrs.len()],
    };
    let max_warps = arch.occupancy.max_warps_per_sm as usize;
    let total = cfg.grid_ctas.min(cfg.max_ctas);
    // SMs get their contexts when they first receive a CTA.
    let mut sms: Vec<Sm<G::Cta>> = (0..arch.chip.sm_count)
        .map(|_| Sm {
            ctas: Vec::new(),
            warps: Vec::new(),
            scheds: Vec::new(),
            l1: MemorySystem::l1(arch),
            resident_warps: 0,
        })
        .collect();
    model.report.sm_cycles = vec![0; sms.len()];
    let mut next_cta = 0u64;
    let mut now = 0u64;
    // Initial placement: CTA i to SM i mod n, wave by wave.
    'fill: for _ in 0..cfg.blocks_per_sm {
        for sm in sms.iter_mut() {
            if next_cta >= total {
                break 'fill;
            }
            model.place(sm, grid, next_cta, now)?;
            next_cta += 1;
        }
    }
    let mut live_ctas = next_cta;
    let mut resident_sum = 0u128;
    // SMs are independent but for the memory system's timing: each is
    // visited only at cycles where one of its schedulers may issue, in SM
    // order within a cycle. Most SMs come back the next cycle: those wait
    // in `soon` (in SM order, as they were visited), the rest in a heap.
    let mut due: Vec<usize> = (0..sms.len())
        .filter(|&i| sms[i].resident_warps > 0)
        .collect();
    let mut soon: Vec<usize> = Vec::with_capacity(sms.len());
    let mut later: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
    let mut end = 0;
    while live_ctas > 0 && !due.is_empty() {
        for &i in &due {
            let sm = &mut sms[i];
            let (issued, wake, retired) = model.cycle(sm, i, grid, now)?;
            let mut next = if issued { now + 1 } else { wake.max(now + 1) };
            for _ in 0..retired {
                live_ctas -= 1;
                if next_cta < total {
                    model.place(sm, grid, next_cta, now + 1)?;
                    next_cta += 1;
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
            model.account_stalls(sm, now, span);
            model.report.sm_cycles[i] += span;
            resident_sum += sm.resident_warps as u128 * span as u128;
            end = end.max(next);
            if sm.resident_warps > 0 {
                if next == now + 1 {
                    soon.push(i);
                } else {
                    later.push(Reverse((next, i)));
                }
            }
        }
        std::mem::swap(&mut due, &mut soon);
        soon.clear();
        now = match (due.is_empty(), later.peek()) {
            (false, _) => now + 1,
            (true, Some(&Reverse((t, _)))) => t,
            (true, None) => break,
        };
        let before = due.len();
        while let Some(&Reverse((t, i))) = later.peek() {
            if t != now {
                break;
            }
            later.pop();
            due.push(i);
        }
        if due.len() != before && before > 0 {
            due.sort_unstable();
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
    for (instr, &(cycles, issues)) in program.instrs.iter().zip(&model.instr_cycles) {
        if cycles > 0 || issues > 0 {
            r.line_cycles.add(instr.line, cycles, issues);
        }
    }
    Ok(model.report)
}

impl Model<'_> {
    /// Puts CTA `linear` on `sm`, its warps into free contexts.
    fn place<G: GridExec>(
        &mut self,
        sm: &mut Sm<G::Cta>,
        grid: &mut G,
        linear: u64,
        now: u64,
    ) -> Result<(), G::Fault> {
        if sm.warps.is_empty() {
            let n_sched = self.arch.scheduler.schedulers_per_sm as usize;
            sm.ctas = (0..self.cfg.blocks_per_sm).map(|_| None).collect();
            sm.warps = (0..self.arch.occupancy.max_warps_per_sm)
                .map(|_| None)
                .collect();
            sm.scheds = (0..n_sched).map(|_| Sched::new()).collect();
        }
        let mut exec = grid.start(linear);
        let n = exec.warps();
        let slot = sm
            .ctas
            .iter()
            .position(|c| c.is_none())
            .expect("a free CTA slot");
        let mut warp_slots = Vec::with_capacity(n);
        let mut live = 0;
        for w in 0..n {
            let ctx_slot = sm
                .warps
                .iter()
                .position(|c| c.is_none())
                .expect("the occupancy rules leave a warp context per warp");
            let record = self.cfg.diagram_warps.contains(&(linear, w as u32));
            let n_sched = sm.scheds.len();
            let mut ctx = WarpCtx {
                cta_slot: slot,
                sched: (ctx_slot % n_sched) as u32,
                local: (ctx_slot / n_sched) as u32,
                w,
                cta_linear: linear,
                state: WState::Done,
                pos: Pos {
                    func: crate::ir::FuncId::new(0),
                    block: crate::ir::Block::new(0),
                    pc: 0,
                    mask: 0,
                },
                cur: 0,
                ran_until: 0,
                ready_at: now,
                reason: Stall::Dependency,
                next_free: now,
                ready: Vec::new(),
                from_mem: Vec::new(),
                record,
            };
            self.fetch(&mut ctx, &mut exec, now)?;
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
        });
        Ok(())
    }

    /// Finds the warp's next instruction after its current unit ran out;
    /// fall-through jumps execute on the way, taking no issue slot.
    fn fetch<C: CtaExec>(&self, ctx: &mut WarpCtx, exec: &mut C, now: u64) -> Result<(), C::Fault> {
        loop {
            match exec.next(ctx.w) {
                Next::At(pos) => {
                    if ctx.ready.is_empty() || ctx.pos.func != pos.func {
                        let n = self.program.reg_counts[pos.func.index()];
                        let pending = ctx.ready.iter().copied().max().unwrap_or(now);
                        ctx.ready.clear();
                        ctx.ready.resize(n, pending);
                        ctx.from_mem.clear();
                        ctx.from_mem.resize(n, false);
                    }
                    ctx.pos = pos;
                    ctx.cur = self.program.index(pos.func, pos.block, pos.pc);
                    if self.program.instrs[ctx.cur].free {
                        exec.step(ctx.w, pos, now, &mut MemAccess::default())?;
                        continue;
                    }
                    ctx.ran_until = 0;
                    ctx.state = WState::Ready;
                    self.compute_ready(ctx);
                }
                Next::Waiting => ctx.state = WState::Barrier,
                Next::Done => ctx.state = WState::Done,
            }
            return Ok(());
        }
    }

    /// When the current instruction's operands (and the warp's previous
    /// dispatch) allow it to issue, and what it waits for.
    fn compute_ready(&self, ctx: &mut WarpCtx) {
        let instr = &self.program.instrs[ctx.cur];
        let mut at = ctx.next_free;
        let mut reason = Stall::Dispatch;
        for &r in self.program.operands(instr) {
            let t = ctx.ready[r as usize];
            if t > at {
                at = t;
                reason = if ctx.from_mem[r as usize] {
                    Stall::Memory
                } else {
                    Stall::Dependency
                };
            }
        }
        ctx.ready_at = at;
        ctx.reason = reason;
    }

    /// Files the warp in `slot` with its scheduler by its state: ready,
    /// waiting for operands, or at a barrier.
    #[inline]
    fn enqueue<C>(&self, sm: &mut Sm<C>, slot: usize, now: u64) {
        let ctx = sm.warps[slot].as_ref().unwrap();
        let sched = &mut sm.scheds[ctx.sched as usize];
        match ctx.state {
            WState::Ready => {
                let class = self.program.instrs[ctx.cur].class as u8;
                if ctx.ready_at <= now {
                    sched.set_ready(ctx.local, class);
                } else {
                    sched.set_waiting(ctx.local, class, ctx.ready_at);
                }
            }
            WState::Barrier => sched.at_barrier += 1,
            WState::Done => {}
        }
    }

    /// One cycle of one SM: every scheduler tries to issue. Returns whether
    /// anything issued, the earliest cycle something could, and how many
    /// CTAs retired.
    fn cycle<G: GridExec>(
        &mut self,
        sm: &mut Sm<G::Cta>,
        sm_index: usize,
        grid: &mut G,
        now: u64,
    ) -> Result<(bool, u64, u32), G::Fault> {
        let mut issued_any = false;
        let mut wake = u64::MAX;
        let mut retired = 0;
        let n = sm.scheds.len();
        for s in 0..n {
            sm.scheds[s].wake(now);
            let Some(local) = self.pick(sm, s, now, &mut wake) else {
                continue;
            };
            let slot = local as usize * n + s;
            issued_any = true;
            let sched = &mut sm.scheds[s];
            sched.last = Some(slot);
            sched.issued_at = now;
            sched.rr = local + 1;
            sched.take(local);
            let width = match self.arch.scheduler.dual_issue {
                DualIssue::None => 1,
                DualIssue::Independent => self.arch.scheduler.issue_width,
            };
            for i in 0..width {
                if i > 0 {
                    // The second of a pair: the warp's next instruction, if
                    // it does not depend on the first and its unit is free.
                    let Some(ctx) = sm.warps[slot].as_ref() else {
                        break;
                    };
                    if ctx.state != WState::Ready {
                        break;
                    }
                    let class = self.program.instrs[ctx.cur].class as usize;
                    let deps_ok = self.deps_ready(ctx, now);
                    let per_cycle = self.classes.per_cycle[class];
                    if !deps_ok || !sm.scheds[s].unit_free(class, now, per_cycle) {
                        break;
                    }
                }
                let (r, released) = self.issue(sm, sm_index, s, slot, grid, now)?;
                retired += r;
                for ws in released {
                    self.enqueue(sm, ws, now);
                }
                if r > 0 {
                    break;
                }
            }
            if sm.warps[slot].is_some() {
                self.enqueue(sm, slot, now);
            }
        }
        Ok((issued_any, if issued_any { now + 1 } else { wake }, retired))
    }

    fn deps_ready(&self, ctx: &WarpCtx, now: u64) -> bool {
        let instr = &self.program.instrs[ctx.cur];
        self.program
            .operands(instr)
            .iter()
            .all(|&r| ctx.ready[r as usize] <= now)
    }

    /// The warp scheduler `s` issues from this cycle, by policy, among its
    /// ready warps whose units are free (a local index); `wake` learns when
    /// one could.
    #[inline]
    fn pick<C>(&self, sm: &Sm<C>, s: usize, now: u64, wake: &mut u64) -> Option<u32> {
        let sched = &sm.scheds[s];
        let bits = sched.candidates(now, &self.classes.per_cycle, wake);
        if bits == 0 {
            return None;
        }
        let n = sm.scheds.len();
        Some(sched.choose(
            self.arch.scheduler.policy,
            bits,
            |slot| (slot / n) as u32,
            |local| {
                let ctx = sm.warps[local as usize * n + s].as_ref().unwrap();
                (ctx.cta_linear, ctx.w)
            },
        ))
    }

    /// Issues the current instruction of the warp in `slot`: executes its
    /// unit if it has not run, books the unit, sets its results' ready
    /// times, and moves to the next instruction. Returns the CTAs retired
    /// (0 or 1) and the other warps a barrier released (to enqueue).
    fn issue<G: GridExec>(
        &mut self,
        sm: &mut Sm<G::Cta>,
        sm_index: usize,
        s: usize,
        slot: usize,
        grid: &mut G,
        now: u64,
    ) -> Result<(u32, Vec<usize>), G::Fault> {
        let ctx = sm.warps[slot].as_mut().unwrap();
        let cta = sm.ctas[ctx.cta_slot].as_mut().unwrap();
        let instr = &self.program.instrs[ctx.cur];
        let class = instr.class;
        let cost = instr.cost as u32;
        let mut latency = self.classes.latency[class as usize] * cost;
        let mut replays = 0;
        let mut from_mem = false;
        let mut barrier = false;
        let mut frame_changed = false;
        if ctx.ran_until == 0 {
            let out = cta.exec.step(ctx.w, ctx.pos, now, &mut self.access)?;
            ctx.ran_until = if out.end == 0 { usize::MAX } else { out.end };
            barrier = out.barrier;
            frame_changed = out.frame_changed;
            if out.access {
                let a = &self.access;
                from_mem = true;
                let cost = match a.space {
                    MemSpace::Shared => self.mem.shared(a.mask, &a.addrs, a.size),
                    MemSpace::Global => self
                        .mem
                        .global(&mut sm.l1, a.kind, false, a.mask, &a.addrs, a.size, now),
                    MemSpace::Local => {
                        // Local memory is interleaved by word across the
                        // warp's lanes, per warp context.
                        let base = (1u64 << 62) | ((sm_index as u64 * 4096 + slot as u64) << 32);
                        let addrs: [u64; 32] = std::array::from_fn(|l| {
                            base + (a.addrs[l] / 4) * 128 + l as u64 * 4 + a.addrs[l] % 4
                        });
                        self.mem
                            .global(&mut sm.l1, a.kind, true, a.mask, &addrs, a.size, now)
                    }
                };
                latency = cost.latency;
                replays = cost.replays;
                if a.kind == Kind::Store {
                    from_mem = false;
                }
            }
        }
        if instr.mem == MemClass::Constant {
            latency = self.arch.latency.constant;
        } else if instr.mem == MemClass::Dynamic && !from_mem && latency == 0 {
            latency = self.arch.memory.l2_latency;
        }
        // Book the unit and the warp's dispatch.
        let dispatch = self.classes.dispatch[class as usize] * cost + replays;
        let unit = &mut sm.scheds[s].units[class as usize];
        if dispatch > 1 {
            unit.busy_until = now + dispatch as u64;
            unit.cycle = now;
            unit.used = u32::MAX;
        } else if unit.cycle == now {
            unit.used += 1;
        } else {
            unit.cycle = now;
            unit.used = 1;
        }
        ctx.next_free = now
            + if self.arch.scheduler.dispatch_blocks_warp {
                dispatch as u64
            } else {
                cost as u64
            };
        for &d in self.program.dsts(instr) {
            ctx.ready[d as usize] = now + latency as u64;
            ctx.from_mem[d as usize] = from_mem;
        }
        // Report.
        let r = &mut self.report;
        r.warp_instructions += 1;
        r.hw_instructions += cost as u64;
        r.thread_instructions += ctx.pos.mask.count_ones() as u64;
        r.mix[class as usize] += 1;
        let counts = &mut self.instr_cycles[ctx.cur];
        counts.0 += dispatch as u64;
        counts.1 += 1;
        if ctx.record && now >= self.cfg.window.0 && now <= self.cfg.window.1 {
            r.events.push(IssueEvent {
                cycle: now,
                sm: sm_index as u32,
                scheduler: s as u32,
                cta: ctx.cta_linear,
                warp: ctx.w as u32,
                ordinal: instr.ordinal,
                line: instr.line,
                dispatch,
            });
        }
        // Move on.
        let next_pc = ctx.pos.pc + 1;
        if ctx.ran_until != usize::MAX && next_pc < ctx.ran_until && !barrier {
            ctx.pos.pc = next_pc;
            ctx.cur += 1;
            self.compute_ready(ctx);
            return Ok((0, Vec::new()));
        }
        if frame_changed {
            ctx.ready.clear();
        }
        let cta_slot = ctx.cta_slot;
        let n_sched = sm.scheds.len();
        self.fetch(ctx, &mut cta.exec, now)?;
        let mut changed = ctx.state != WState::Ready;
        if ctx.state == WState::Done {
            cta.live_warps -= 1;
        }
        // Barriers that can complete now (a warp arrived or exited).
        let mut to_enqueue = Vec::new();
        while changed {
            changed = false;
            self.released.clear();
            cta.exec.release(&mut self.released)?;
            let released = std::mem::take(&mut self.released);
            for w in &released {
                let ws = cta.warp_slots[*w];
                if ws != slot {
                    sm.scheds[ws % n_sched].at_barrier -= 1;
                    to_enqueue.push(ws);
                }
                let other = sm.warps[ws].as_mut().unwrap();
                other.next_free = other.next_free.max(now + 1);
                self.fetch(other, &mut cta.exec, now + 1)?;
                if other.state == WState::Done {
                    cta.live_warps -= 1;
                    changed = true;
                }
            }
            self.released = released;
        }
        if cta.live_warps == 0 {
            let cta = sm.ctas[cta_slot].take().unwrap();
            for &ws in &cta.warp_slots {
                sm.warps[ws] = None;
            }
            sm.resident_warps -= cta.warp_slots.len() as u32;
            for sched in &mut sm.scheds {
                if sched.last.is_some_and(|l| cta.warp_slots.contains(&l)) {
                    sched.last = None;
                }
            }
            grid.finish(cta.linear, cta.exec);
            return Ok((1, Vec::new()));
        }
        Ok((0, to_enqueue))
    }

    /// Attributes `span` cycles from `now` of every scheduler that did not
    /// issue to a stall reason (and the waiting instruction's line): a
    /// ready warp means its unit was busy; else the warp whose operands
    /// arrive first decides; else barriers, else no warp at all.
    fn account_stalls<C>(&mut self, sm: &Sm<C>, now: u64, span: u64) {
        let n = sm.scheds.len();
        for (s, sched) in sm.scheds.iter().enumerate() {
            if sched.issued_at == now {
                continue;
            }
            let ctx_of = |local: u32| sm.warps[local as usize * n + s].as_ref();
            let ready = sched.any_ready();
            let (why, cur) = if ready != 0 {
                let ctx = ctx_of(ready.trailing_zeros());
                (Stall::UnitBusy, ctx.map(|c| c.cur))
            } else if sched.next.0 != u64::MAX {
                match ctx_of(sched.next.1) {
                    Some(c) => (c.reason, Some(c.cur)),
                    None => (Stall::NoEligibleWarp, None),
                }
            } else if sched.at_barrier > 0 {
                (Stall::Barrier, None)
            } else {
                (Stall::NoEligibleWarp, None)
            };
            self.report.stalls[why as usize] += span;
            if let Some(cur) = cur {
                self.instr_cycles[cur].0 += span;
            }
        }
    }
}
