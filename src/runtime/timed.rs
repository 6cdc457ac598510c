//! Timed launches: the timing model (`crate::timing`) decides when each
//! warp issues, and executes it then through the warp driver's single-step
//! interface ([`interp::Warp::step`]), on the JIT's timing build (pieces
//! that start at every memory access and clock read, no regions) or on the
//! interpreter. The module runs in the preset's instruction order: the
//! PTX's, or the compiler's (`ir::schedule`, a copy of the module built on
//! the first such launch). Results are those of a normal launch; `%clock`
//! reads the modeled cycle. With sampling, CTAs past the simulated waves run as in a
//! normal launch, untimed, and the cycles are extrapolated.

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use super::{cta_id, Device, LaunchConfig, LaunchReport, LoadedModule, Merged, ModuleId};
use crate::error::Error;
use crate::interp::{self, Access, AccessKind, Cta, Fault, Position, Warp};
use crate::ir::{self, FuncId, OpKind, Space, Terminator};
use crate::jit;
use crate::timing::arch::InstructionOrder;
use crate::timing::costs::{self, SassTable};
use crate::timing::exec::{CtaExec, GridExec, MemAccess, MemSpace, Next, Pos, StepOut};
use crate::timing::memory::Kind;
use crate::timing::occupancy::{occupancy, OccupancyInput};
use crate::timing::program::Program;
use crate::timing::sim::{simulate_with, SimConfig};
use crate::timing::{regs, Arch, TimingReport};

/// Where a timed launch's issue costs come from.
#[derive(Clone, Debug)]
pub enum Costs {
    /// The PTX model: each op's class and cost from the IR. The text, shown
    /// in the report, says why when SASS was asked for and not found.
    Ptx(String),
    /// ptxas's SASS per PTX line (`timing::costs`, `crate::sass`); its
    /// register counts serve occupancy unless `regs` is given.
    Sass(Arc<SassTable>),
}

/// How to time a launch.
#[derive(Clone, Debug)]
pub struct TimingOptions {
    pub arch: Arch,
    /// Issue costs: the PTX model unless a SASS table is given.
    pub costs: Costs,
    /// Registers per thread and where the number came from; estimated
    /// from the IR when absent.
    pub regs: Option<(u32, String)>,
    /// Simulate only this many waves of CTAs and extrapolate.
    pub sample_waves: Option<u32>,
    /// (CTA linear index, warp) pairs to record issue events for.
    pub diagram_warps: Vec<(u64, u32)>,
    /// The cycle window recorded for the diagram.
    pub window: (u64, u64),
    /// Let a lone warp issue ahead of its SM where nothing could observe
    /// it (`timing/solo.rs`): on by default; the report is the same
    /// without it, only slower to get (the tests check that).
    pub run_ahead: bool,
    /// Start from the L2 the last timed launch on this device left (same
    /// preset), and leave this one's for the next, as a GPU's L2 keeps
    /// its lines from kernel to kernel: for launches repeated to a steady
    /// state. Off by default (every timed launch starts cold).
    pub keep_l2: bool,
    /// Start with what the host wrote to device memory since the last
    /// timed launch (`Device::write`, `Device::memset`) in the L2, clean,
    /// the most recent last, as a GPU's copy engines leave it (all memory
    /// writes go through the L2). Off by default.
    pub uploads_in_l2: bool,
}

impl TimingOptions {
    pub fn new(arch: Arch) -> TimingOptions {
        TimingOptions {
            arch,
            costs: Costs::Ptx(String::new()),
            regs: None,
            sample_waves: None,
            diagram_warps: Vec::new(),
            window: (0, u64::MAX),
            run_ahead: true,
            keep_l2: false,
            uploads_in_l2: false,
        }
    }
}

/// What timed launches in one instruction order use: the module in that
/// order, its timing build, and its instruction tables.
pub(super) struct TimedBuild {
    /// The module with each block in the compiler's order
    /// (`ir::schedule`); `None`: the PTX order (the loaded module).
    scheduled: Option<ir::Module>,
    compiled: OnceLock<Result<jit::CompiledModule, String>>,
    program: OnceLock<Program>,
    /// The table with SASS costs, for the SASS table (its PTX hash and
    /// architecture) it was built from.
    sass_program: Mutex<Option<(String, Arc<Program>)>>,
}

impl TimedBuild {
    fn new(lm: &LoadedModule, order: InstructionOrder) -> TimedBuild {
        TimedBuild {
            scheduled: match order {
                InstructionOrder::Ptx => None,
                InstructionOrder::Compiler => Some(ir::schedule::schedule(&lm.ir)),
            },
            compiled: OnceLock::new(),
            program: OnceLock::new(),
            sass_program: Mutex::new(None),
        }
    }

    fn ir<'a>(&'a self, lm: &'a LoadedModule) -> &'a ir::Module {
        self.scheduled.as_ref().unwrap_or(&lm.ir)
    }
}

struct Grid<'a> {
    ctx: &'a interp::LaunchCtx<'a>,
    outputs: Merged,
}

struct TimedCta<'a> {
    linear: u64,
    cta: Cta<'a>,
    warps: Vec<Warp>,
    scratch: Access,
    /// Recorded addresses decoded out of a window (generic to shared or
    /// local).
    decoded: [u64; 32],
}

impl<'a> GridExec for Grid<'a> {
    type Fault = (u64, Fault);
    type Cta = TimedCta<'a>;

    fn start(&mut self, linear: u64) -> TimedCta<'a> {
        let [gx, gy, _] = self.ctx.grid;
        let (cta, warps) = interp::new_cta(self.ctx, cta_id(linear, gx, gy));
        TimedCta {
            linear,
            cta,
            warps,
            scratch: Access::default(),
            decoded: [0; 32],
        }
    }

    fn finish(&mut self, linear: u64, mut cta: TimedCta<'a>) {
        // The steps the warps ran since they last met the watchdog are
        // charged now (a grid of short CTAs meets it too); a fault here
        // stops the CTAs after this one at their next step.
        let mut charged = Ok(());
        for w in &mut cta.warps {
            if charged.is_ok() {
                charged = w.charge_pending(&mut cta.cta);
            }
        }
        interp::retire_warps(cta.warps);
        match charged {
            Ok(()) => self.outputs.add(linear, Ok(cta.cta.output)),
            Err(fault) => {
                if fault.kind != interp::FaultKind::Cancelled {
                    self.ctx
                        .cancel
                        .fetch_min(linear, std::sync::atomic::Ordering::Relaxed);
                }
                self.outputs.add(linear, Err(fault));
            }
        }
    }
}

impl TimedCta<'_> {
    /// The compiled piece starting at `at`, if any (none at a terminator).
    fn piece_at(&self, at: Pos) -> Option<&crate::engine::abi::Piece> {
        self.cta.ctx.code?.piece(at.func, at.block, at.pc)
    }
}

impl CtaExec for TimedCta<'_> {
    type Fault = (u64, Fault);

    fn warps(&self) -> usize {
        self.warps.len()
    }

    fn next(&mut self, w: usize) -> Next {
        let warp = &mut self.warps[w];
        match warp.next_position() {
            Some(p) => Next::At(Pos {
                func: p.func,
                block: p.block,
                pc: p.pc,
                mask: p.mask,
            }),
            None if warp.waiting_on().is_some() => Next::Waiting,
            None => Next::Done,
        }
    }

    fn step(
        &mut self,
        w: usize,
        at: Pos,
        clock: u64,
        access: &mut MemAccess,
    ) -> Result<StepOut<'_>, (u64, Fault)> {
        if self.cta.cancelled() {
            return Err((self.linear, Fault::cancelled()));
        }
        let pos = position(at);
        let out = self.warps[w]
            .step(
                &mut self.cta,
                pos,
                clock,
                &mut self.scratch,
                &mut access.addrs,
            )
            .map_err(|f| (self.linear, f))?;
        let mut step = StepOut {
            end: out.end,
            access: out.access,
            addrs: None,
            barrier: out.barrier,
            frame_changed: out.frame_changed,
        };
        if out.traced {
            step.addrs =
                self.warps[w].traced_access(&self.cta, pos, &mut self.scratch, &mut self.decoded);
            step.access = step.addrs.is_some();
        }
        if step.access {
            convert(&self.scratch, access);
        }
        Ok(step)
    }

    fn access(&mut self, w: usize, at: Pos, access: &mut MemAccess) -> Option<&[u64; 32]> {
        let addrs = self.warps[w].traced_access(
            &self.cta,
            position(at),
            &mut self.scratch,
            &mut self.decoded,
        );
        if addrs.is_some() {
            convert(&self.scratch, access);
        }
        addrs
    }

    fn private(&self, _w: usize, at: Pos) -> bool {
        let block = &self.cta.ctx.module.functions[at.func].blocks[at.block];
        if at.pc >= block.ops.len() {
            return matches!(
                block.term,
                Terminator::Jump(_) | Terminator::Branch { .. } | Terminator::Switch { .. }
            );
        }
        match self.piece_at(at) {
            Some(piece) => piece.private,
            // Warp-wide ops the driver interprets that read and write only
            // this warp's registers and cannot fault (`mma` can, when part
            // of the warp runs it).
            None => matches!(
                block.ops[at.pc].kind,
                OpKind::Shfl { .. }
                    | OpKind::Vote { .. }
                    | OpKind::Match { .. }
                    | OpKind::Redux { .. }
            ),
        }
    }

    fn deferrable(&self, _w: usize, at: Pos) -> u32 {
        self.piece_at(at).map_or(0, |piece| piece.deferrable)
    }

    fn release(&mut self, released: &mut Vec<usize>) -> Result<(), (u64, Fault)> {
        interp::release_barriers(&mut self.cta, &mut self.warps, released)
            .map_err(|f| (self.linear, f))?;
        let stuck = released.is_empty()
            && !self.warps.iter().any(|w| w.runnable())
            && !self.warps.iter().all(|w| w.done());
        if stuck {
            return Err((self.linear, interp::deadlock(&self.cta, &self.warps)));
        }
        Ok(())
    }
}

/// The driver's name for the model's position.
fn position(at: Pos) -> Position {
    Position {
        func: at.func,
        block: at.block,
        pc: at.pc,
        mask: at.mask,
    }
}

/// The model's view of the shape of an access the driver recorded (its
/// addresses travel separately).
fn convert(a: &Access, access: &mut MemAccess) {
    access.kind = match a.kind {
        AccessKind::Load => Kind::Load,
        AccessKind::Store => Kind::Store,
        AccessKind::Atomic => Kind::Atomic,
    };
    access.space = match a.space {
        Space::Shared => MemSpace::Shared,
        Space::Local => MemSpace::Local,
        _ => MemSpace::Global,
    };
    access.size = a.size;
    access.mask = a.mask;
}

impl Device {
    /// Launches `kernel` as [`Device::launch`] does, timed by the cycle
    /// model on `t.arch`. CTAs run one at a time on this thread, in the
    /// model's order.
    pub fn launch_timed(
        &self,
        m: ModuleId,
        kernel: FuncId,
        cfg: LaunchConfig,
        params: &[u8],
        t: &TimingOptions,
    ) -> Result<(LaunchReport, TimingReport), Error> {
        if self.options.checks.any() {
            return Err(Error::InvalidArgument(
                "a timed launch runs no sanitizer checks: turn the checks off (Options::checks) or time without them".into(),
            ));
        }
        self.check_runnable(m, kernel)?;
        let lm = self.module(m);
        let f = &lm.ir.functions[kernel];
        self.check_config(f, &cfg, params, lm.ir.shared_dynamic_offset)?;
        if f.reqnctapercluster.is_some_and(|d| d != [1, 1, 1]) {
            return Err(Error::InvalidCluster(format!(
                "kernel `{}` runs in clusters (.reqnctapercluster): timed launches have none",
                f.name
            )));
        }
        let arch = &t.arch;
        let from_ptxas = match &t.costs {
            Costs::Sass(table) => table.kernels.get(&f.name).and_then(|k| k.regs),
            Costs::Ptx(_) => None,
        };
        let (regs_per_thread, regs_source) = match (&t.regs, from_ptxas) {
            (Some((n, src)), _) => (*n, src.clone()),
            (None, Some(n)) => (n, "ptxas".to_string()),
            (None, None) => (regs::estimate(&lm.ir, kernel), "estimate".to_string()),
        };
        let block_threads = cfg.block.iter().product::<u32>();
        let static_shared = lm.ir.static_shared_of(kernel);
        // A block with more shared memory than the default per-block limit
        // runs only on a kernel that opted in to more (the driver refuses
        // the launch otherwise): its occupancy is the opt-in limit's.
        let mut limits = arch.limits();
        if static_shared as u64 + cfg.shared_bytes as u64 > limits.shared_per_block as u64 {
            limits.shared_per_block = limits.shared_per_block.max(limits.shared_per_block_optin);
        }
        let occ = occupancy(
            &limits,
            &OccupancyInput {
                block_threads,
                regs_per_thread,
                static_shared,
                dynamic_shared: cfg.shared_bytes,
            },
        );
        let limiter = occ
            .limiters
            .first()
            .map(|l| l.to_string())
            .unwrap_or_default();
        if occ.active_blocks_per_sm == 0 {
            return Err(Error::InvalidArgument(format!(
                "{} cannot hold one block of {block_threads} threads with {regs_per_thread} registers per thread and {} bytes of shared memory (limited by {limiter})",
                arch.name,
                static_shared + cfg.shared_bytes
            )));
        }
        // The L1 is what the launch's shared memory carveout leaves of the
        // unified L1/shared memory (the driver picks the smallest carveout
        // that holds the resident blocks' shared memory).
        let unified = arch.memory.l1_shared_unified_kib;
        let launch_arch;
        let arch = if unified > 0 {
            let carveout = limits
                .carveout_for(occ.active_blocks_per_sm, static_shared + cfg.shared_bytes)
                .div_ceil(1024) as u32;
            let mut a = arch.clone();
            a.memory.l1_kib = unified.saturating_sub(carveout).max(arch.memory.l1_kib);
            launch_arch = a;
            &launch_arch
        } else {
            arch
        };
        // The module in the preset's instruction order, its timing build and
        // its instruction table, built on its first timed launch and
        // counted as compilation, not as the timed launch.
        let order = arch.scheduler.instruction_order;
        let mut compile_time = std::time::Duration::ZERO;
        let build = lm.timed[order as usize].get_or_init(|| {
            let built = Instant::now();
            let b = TimedBuild::new(lm, order);
            compile_time += built.elapsed();
            b
        });
        let timed_ir = build.ir(lm);
        let (code, jit_time) =
            self.compiled(timed_ir, &lm.global_addrs, &build.compiled, |m, a| {
                jit::compile_for(m, a, true)
            })?;
        compile_time += jit_time;
        let source = &lm.source;
        let line_of = |offset: u32| source.line_col(offset as usize).line as u32;
        let sass_program;
        let (program, costs_text) = match &t.costs {
            Costs::Ptx(why) if why.is_empty() => (None, "PTX".to_string()),
            Costs::Ptx(why) => (None, format!("PTX ({why})")),
            Costs::Sass(table) => {
                let key = format!("{} {}", table.ptx_hash, table.arch);
                let mut cached = build.sass_program.lock().unwrap_or_else(|e| e.into_inner());
                sass_program = match cached.as_ref() {
                    Some((k, p)) if *k == key => p.clone(),
                    _ => {
                        let built = Instant::now();
                        let mut p = Program::build(timed_ir, &line_of);
                        costs::apply(timed_ir, &mut p, table, &crate::jit::plan::is_deferrable);
                        compile_time += built.elapsed();
                        let p = Arc::new(p);
                        *cached = Some((key, p.clone()));
                        p
                    }
                };
                (Some(&*sass_program), table.describe(&f.name))
            }
        };
        let program = match program {
            Some(p) => p,
            None => build.program.get_or_init(|| {
                let built = Instant::now();
                let p = Program::build(timed_ir, &line_of);
                compile_time += built.elapsed();
                p
            }),
        };
        let start = Instant::now();
        let budget = AtomicU64::new(self.options.watchdog_instructions);
        let cancel = AtomicU64::new(u64::MAX);
        let printf = interp::PrintfBuffer::new(self.options.printf_buffer_bytes);
        let mut ctx = self.launch_ctx(
            lm, kernel, &cfg, params, code, &budget, &cancel, &printf, start,
        );
        ctx.module = timed_ir;
        let [gx, gy, gz] = cfg.grid;
        let n = gx as u64 * gy as u64 * gz as u64;
        let per_wave = occ.active_blocks_per_sm as u64 * arch.chip.sm_count as u64;
        let max_ctas = match t.sample_waves {
            Some(w) => (w.max(1) as u64 * per_wave).min(n),
            None => n,
        };
        let sim_cfg = SimConfig {
            blocks_per_sm: occ.active_blocks_per_sm,
            grid_ctas: n,
            max_ctas,
            diagram_warps: t.diagram_warps.clone(),
            window: t.window,
            run_ahead: t.run_ahead,
        };
        let mut grid = Grid {
            ctx: &ctx,
            outputs: Merged::default(),
        };
        let mut l2 = None;
        if t.keep_l2 {
            let mut kept = self.timing_l2.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((name, cache)) = kept.take() {
                if name == arch.name {
                    l2 = Some(cache);
                }
            }
        }
        let uploads = self.uploads.take();
        if t.uploads_in_l2 && !uploads.is_empty() {
            crate::timing::memory::preload_l2(arch, &mut l2, &uploads);
        }
        let simulated = simulate_with(arch, program, &sim_cfg, &mut grid, &mut l2);
        if t.keep_l2 {
            if let Some(cache) = l2 {
                *self.timing_l2.lock().unwrap_or_else(|e| e.into_inner()) =
                    Some((arch.name.clone(), cache));
            }
        }
        let mut timing = match simulated {
            Ok(r) => r,
            Err((linear, fault)) => {
                // A fault met as CTAs finished stopped the model: the first
                // in grid order of those and this one is reported.
                let mut first = grid.outputs.fault.take();
                if fault.kind != interp::FaultKind::Cancelled
                    && first.as_ref().is_none_or(|(j, _)| linear < *j)
                {
                    first = Some((linear, fault));
                }
                let (linear, fault) = first.unwrap_or((linear, Fault::cancelled()));
                return Err(self.launch_error(lm, f, cta_id(linear, gx, gy), fault));
            }
        };
        timing.wall = start.elapsed();
        let mut results = grid.outputs;
        if max_ctas < n {
            // The CTAs past the sample run untimed, as in a normal launch.
            let (code, _) = self.code(lm)?;
            let rest = self.launch_ctx(
                lm, kernel, &cfg, params, code, &budget, &cancel, &printf, start,
            );
            results = results.merge(self.run_ctas(&rest, max_ctas..n));
        }
        let mut report = self.collect(lm, f, cfg.grid, results)?;
        report.printf_dropped = printf.dropped();
        report.elapsed = start.elapsed();
        report.compile_time = compile_time;
        timing.arch = arch.name.clone();
        timing.clock_mhz = arch.chip.clock_mhz;
        // CTAs start as others retire (no wave barrier), so a sampled grid
        // scales with its CTA count.
        timing.estimated_cycles = if max_ctas < n {
            (timing.cycles as f64 * n as f64 / max_ctas as f64).round() as u64
        } else {
            timing.cycles
        };
        timing.theoretical_occupancy =
            occ.active_warps_per_sm as f64 / arch.occupancy.max_warps_per_sm as f64;
        timing.l1_kib = arch.memory.l1_kib;
        timing.limiter = limiter;
        timing.blocks_per_sm = occ.active_blocks_per_sm;
        timing.regs_per_thread = regs_per_thread;
        timing.regs_source = regs_source;
        timing.costs = costs_text;
        Ok((report, timing))
    }
}
