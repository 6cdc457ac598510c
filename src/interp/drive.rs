//! The warp driver both engines share: it advances a warp through its code,
//! running compiled regions and pieces where the JIT provides them and
//! interpreting everything else op by op, and it owns the SIMT stack's
//! control flow (branches, calls, returns, exits).
//!
//! [`Warp::run`] runs until the warp finishes, waits at a barrier or yields
//! its turn (normal launches; see `mbarrier.rs`). [`Warp::step`] advances by one issue unit, a compiled piece,
//! one op or one terminator, and reports what it executed: the timing model
//! drives warps this way, one instruction at a time in modeled order.

use std::sync::atomic::Ordering;

use super::access::Access;
use super::warp::{Entry, Flow, Frame, State, Warp};
use super::{Cta, Fault, FaultKind};
use crate::engine::abi::{self, Piece};
use crate::ir::{Block, BlockData, FuncId, Function, Op, OpKind, Terminator};

/// Where a settled warp stands: the next instruction to issue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub func: FuncId,
    pub block: Block,
    /// An op index, or the block's op count for its terminator.
    pub pc: usize,
    pub mask: u32,
}

/// What one [`Warp::step`] executed.
#[derive(Clone, Debug, Default)]
pub struct Stepped {
    /// Ops `pc..end` of the position's block ran (a piece or one op; `end`
    /// one past the op count when the block's branch ran after the piece);
    /// 0 when the step was the terminator. A jump to the next block ending
    /// the block runs with them without counting in `end`.
    pub end: usize,
    /// The op at the position is a load, store or atomic of global, shared
    /// or local memory, and the step's `access` holds its addresses.
    pub access: bool,
    /// A timing piece ran: its accesses, the position's included, are
    /// recorded (ask [`Warp::traced_access`]); `access` is false.
    pub traced: bool,
    /// The warp now waits at a barrier.
    pub barrier: bool,
    /// The warp entered or left a function (its registers changed).
    pub frame_changed: bool,
}

impl Warp {
    /// Pops finished SIMT entries and returned frames (no instruction is
    /// executed); false when the warp has finished.
    pub(super) fn settle(&mut self) -> bool {
        loop {
            let Some(frame) = self.frames.last_mut() else {
                self.state = State::Done;
                return false;
            };
            let Some(top) = frame.stack.last() else {
                // The frame returned: copy results to the caller and pop it.
                let done = self.frames.pop().unwrap();
                match self.frames.last_mut() {
                    None => {
                        // Keep the kernel's frame: `reset` reuses its registers.
                        self.frames.push(done);
                        self.state = State::Done;
                        return false;
                    }
                    Some(caller) => {
                        let base = caller.base;
                        self.copy_results(&done, base);
                        self.spare_frames.push(done);
                        continue;
                    }
                }
            };
            if top.mask == 0 || (top.pc == 0 && Some(top.block) == top.reconv) {
                frame.stack.pop();
                continue;
            }
            return true;
        }
    }

    fn copy_results(&mut self, done: &Frame, caller_base: u32) {
        let live = done.call_mask & !self.exited;
        for &(from, to, size) in &done.rets {
            for lane in 0..32 {
                if live & (1 << lane) != 0 {
                    let mem = &mut self.local[lane];
                    let (f, t) = ((done.base + from) as usize, (caller_base + to) as usize);
                    mem.copy_within(f..f + size as usize, t);
                }
            }
        }
    }

    /// Where the warp stands, once settled and not waiting or done.
    pub fn next_position(&mut self) -> Option<Position> {
        if self.state != State::Ready || !self.settle() {
            return None;
        }
        let frame = self.frames.last().unwrap();
        let top = frame.stack.last().unwrap();
        Some(Position {
            func: frame.func,
            block: top.block,
            pc: top.pc,
            mask: top.mask,
        })
    }

    /// Runs until the warp finishes, waits at a barrier or yields.
    pub(super) fn run(&mut self, cta: &mut Cta) -> Result<(), Fault> {
        let ctx = cta.ctx;
        let module = ctx.module;
        let mut steps: u64 = 0;
        self.yielded = None;
        self.last_poll = None;
        loop {
            if !self.settle() {
                break;
            }
            let frame = self.frames.last_mut().unwrap();
            let top = frame.stack.last().cloned().unwrap();
            let func = &module.functions[frame.func];
            let block = &func.blocks[top.block];
            if top.pc == 0 && self.run_region(cta, &top, &mut steps)? {
                continue;
            }
            if top.pc < block.ops.len() {
                if self.run_piece(cta, &top, block, &mut steps)? {
                    continue;
                }
                let op = &block.ops[top.pc];
                if self.run_op(cta, op, top.mask, &mut steps)? || self.yielded.is_some() {
                    break;
                }
                continue;
            }
            // The terminator (a loop of empty blocks must meet the watchdog too).
            steps += 1;
            if steps >= 0x1000 {
                self.check_limits(cta, None, steps).map_err(|mut f| {
                    f.span = block.term_span;
                    f
                })?;
                steps = 0;
            }
            self.terminator(cta, func, &top)?;
        }
        cta.output.warp_instructions += steps;
        // What this call ran is charged to the launch from call to call: a
        // warp that keeps stopping at a barrier (a loop around `bar.sync`)
        // meets the watchdog too.
        self.pending_steps += steps;
        if self.pending_steps >= 0x1000 {
            self.charge_pending(cta)?;
        }
        Ok(())
    }

    /// Charges the steps not yet charged to the launch's budget, checking
    /// the watchdog (at a finished CTA's end, so that a limit below the
    /// charging granularity still holds).
    pub fn charge_pending(&mut self, cta: &mut Cta) -> Result<(), Fault> {
        let n = std::mem::take(&mut self.pending_steps);
        if n == 0 {
            return Ok(());
        }
        self.check_budget(cta, None, n)
    }

    /// Advances by one issue unit from the settled position `at` (see
    /// [`Warp::next_position`]): the compiled piece starting there, else its op,
    /// else the block's terminator. `clock` is the modeled cycle at which
    /// the unit issues (what `%clock` reads).
    pub fn step(
        &mut self,
        cta: &mut Cta,
        at: Position,
        clock: u64,
        access: &mut Access,
        addrs: &mut [u64; 32],
    ) -> Result<Stepped, Fault> {
        let module = cta.ctx.module;
        let func = &module.functions[at.func];
        let block = &func.blocks[at.block];
        let mut out = Stepped::default();
        let frames = self.frames.len();
        let mut steps = 0u64;
        if at.pc < block.ops.len() {
            let op = &block.ops[at.pc];
            let top = self.frames.last().unwrap().stack.last().cloned().unwrap();
            let piece = self.piece_at(cta, &top);
            // A timing piece records its accesses as it runs; anything else
            // is read from the registers before the op overwrites them.
            let traced = piece.is_some_and(|p| p.traced != 0);
            if !traced {
                out.access = self.lane_access(cta, op, at.mask, access, addrs);
            }
            // The interpreter adds an op's cost before executing it.
            self.clock = clock.wrapping_sub(op.cost as u64);
            if self.run_piece_at(cta, &top, block, &mut steps, piece)? {
                let top = self.frames.last().unwrap().stack.last().cloned().unwrap();
                out.end = top.pc;
                out.traced = traced;
                // A branch ending the block runs with the piece before it
                // (it reads only this warp's registers): one step less.
                let branch = match block.term {
                    Terminator::Branch { .. } => true,
                    Terminator::Jump(_) => !block.term.falls_through(at.block),
                    _ => false,
                };
                if top.pc == block.ops.len() && branch {
                    steps += 1;
                    self.terminator(cta, func, &top)?;
                    out.end = block.ops.len() + 1;
                }
            } else {
                out.end = at.pc + 1;
                out.barrier = self.run_op(cta, op, at.mask, &mut steps)?;
            }
            // The step ended the block and left the warp there (no call, no
            // barrier): a jump to the next block, which takes no issue slot,
            // goes with it (`end` stays the op count), sparing the model a
            // step of its own.
            if block.term.falls_through(at.block)
                && !out.barrier
                && out.end == block.ops.len()
                && self.frames.len() == frames
            {
                let top = self.frames.last().unwrap().stack.last().cloned().unwrap();
                if top.block == at.block && top.pc == block.ops.len() {
                    steps += 1;
                    self.terminator(cta, func, &top)?;
                }
            }
        } else {
            steps = 1;
            let top = self.frames.last().unwrap().stack.last().cloned().unwrap();
            self.terminator(cta, func, &top)?;
        }
        cta.output.warp_instructions += steps;
        self.pending_steps += steps;
        if self.pending_steps >= 0x1000 {
            self.charge_pending(cta)?;
        }
        out.frame_changed = self.frames.len() != frames;
        Ok(out)
    }

    /// Runs the compiled region at the warp's position, if there is one and
    /// it applies; true when it ran.
    fn run_region(&mut self, cta: &mut Cta, top: &Entry, steps: &mut u64) -> Result<bool, Fault> {
        let ctx = cta.ctx;
        let (Some(code), Some(env)) = (ctx.code, self.env.as_deref_mut()) else {
            return Ok(false);
        };
        let frame = self.frames.last_mut().unwrap();
        let Some(region) = code.region(frame.func, top.block) else {
            return Ok(false);
        };
        let reconv_inside = top
            .reconv
            .is_some_and(|r| region.blocks.binary_search(&r).is_ok());
        if reconv_inside {
            return Ok(false);
        }
        let need = region.live_outs * 32;
        if self.scratch.len() < need {
            self.scratch.resize(need, 0);
        }
        env.regs = frame.regs.as_mut_ptr() as *mut u64;
        env.frame_base = frame.base as u64;
        env.shared = cta.shared.as_mut_ptr();
        env.shared_len = cta.shared.len() as u64;
        env.scratch = self.scratch.as_mut_ptr();
        // A lane may run until the launch's budget is spent, and for at most
        // 2^23 steps, so that a runaway loop soon (a fraction of a second
        // per warp) falls back to the interpreter and meets its watchdog
        // (instructions or time).
        env.step_cap = ctx
            .budget
            .load(Ordering::Relaxed)
            .saturating_sub(*steps)
            .min(1 << 23);
        if region.uses_local {
            for (l, mem) in self.local.iter_mut().enumerate() {
                env.local_ptrs[l] = mem.as_mut_ptr();
                env.local_lens[l] = mem.len() as u64;
            }
        }
        if let Some(san) = cta.san.as_deref_mut() {
            // A checked build's region defers its accesses' hooks and
            // replays them in the interpreter's order at its end
            // (`sanitizer::deferred::DeferredLog`).
            san_env(env, san, ctx, frame.func, (self.san_instr, self.san_wsync));
        }
        // SAFETY: as for pieces (`run_piece`); the scratch holds 32 words
        // per live-out.
        let status = unsafe { (region.entry)(env, top.mask) };
        if status != 0 {
            // A fault, a runaway lane, or (checked) accesses not in the
            // interpreter's order: interpret the region (nothing was
            // written, no hook called) to report it exactly. A runaway lane ran its
            // `step_cap` steps: they count against the watchdog first (else
            // a loop the region enters again at every header would spend
            // the cap over and over between two of the interpreter's
            // checks, seconds past a time limit).
            if status == 2 {
                let cap = env.step_cap;
                self.check_limits(cta, None, cap)?;
            }
            return Ok(false);
        }
        cta.output.thread_instructions += env.region_ops;
        *steps += env.region_steps;
        // The replayed accesses were instructions `san_instr + step + 1`.
        self.san_instr = self
            .san_instr
            .wrapping_add(env.region_steps as u32)
            .wrapping_add(2);
        self.clock = self.clock.wrapping_add(env.region_cost);
        let e = frame.stack.last_mut().unwrap();
        e.block = region.exit;
        e.pc = 0;
        if *steps >= 0x1000 {
            self.check_limits(cta, None, *steps)?;
            *steps = 0;
        }
        Ok(true)
    }

    /// The compiled piece starting at `top` (the warp's position), if any.
    fn piece_at<'c>(&self, cta: &Cta<'c>, top: &Entry) -> Option<&'c Piece> {
        let func = self.frames.last().unwrap().func;
        cta.ctx.code?.piece(func, top.block, top.pc)
    }

    /// Runs the compiled piece starting at the warp's position, if there is
    /// one; true when it ran.
    fn run_piece(
        &mut self,
        cta: &mut Cta,
        top: &Entry,
        block: &BlockData,
        steps: &mut u64,
    ) -> Result<bool, Fault> {
        let piece = self.piece_at(cta, top);
        self.run_piece_at(cta, top, block, steps, piece)
    }

    /// Runs `piece` (the one at `top`, see `piece_at`); true when it ran.
    #[inline(always)]
    fn run_piece_at(
        &mut self,
        cta: &mut Cta,
        top: &Entry,
        block: &BlockData,
        steps: &mut u64,
        piece: Option<&Piece>,
    ) -> Result<bool, Fault> {
        let (Some(piece), Some(env)) = (piece, self.env.as_deref_mut()) else {
            return Ok(false);
        };
        let frame = self.frames.last_mut().unwrap();
        let n = piece.end as u64 - top.pc as u64;
        *steps += n;
        cta.output.thread_instructions += n * top.mask.count_ones() as u64;
        env.regs = frame.regs.as_mut_ptr() as *mut u64;
        env.frame_base = frame.base as u64;
        env.clock = self.clock;
        env.shared = cta.shared.as_mut_ptr();
        env.shared_len = cta.shared.len() as u64;
        if piece.uses_local {
            for (l, mem) in self.local.iter_mut().enumerate() {
                env.local_ptrs[l] = mem.as_mut_ptr();
                env.local_lens[l] = mem.len() as u64;
            }
        }
        if piece.traced != 0 {
            let trace = self.trace.get_or_insert_with(Box::default);
            trace.masks = [0; abi::TRACE_SLOTS];
            env.trace = &mut **trace;
            self.traced = Some((frame.func, top.block, top.pc, piece.traced));
        }
        if let Some(san) = cta.san.as_deref_mut() {
            // A checked build's piece defers the hooks (`sanitizer::hooks`)
            // and calls them at its end as the interpreter would; its ops
            // count as `n` instructions.
            san_env(
                env,
                san,
                cta.ctx,
                frame.func,
                (self.san_instr, self.san_wsync),
            );
            self.san_instr = self.san_instr.wrapping_add(n as u32);
        }
        self.clock = self.clock.wrapping_add(piece.cost as u64);
        frame.stack.last_mut().unwrap().pc = piece.end as usize;
        // SAFETY: the env points at this warp's live registers, local
        // memory, the CTA's shared memory and the launch's arena, all
        // outliving the call; the piece was compiled for this function and
        // block.
        let status = unsafe { (piece.entry)(env, top.mask) };
        if status != 0 {
            return Err(self.piece_fault(cta, block));
        }
        if *steps >= 0x1000 {
            self.check_limits(cta, None, *steps)?;
            *steps = 0;
        }
        Ok(true)
    }

    /// Interprets one op for the lanes of `mask`; true when the warp now
    /// waits at a barrier.
    fn run_op(
        &mut self,
        cta: &mut Cta,
        op: &Op,
        mask: u32,
        steps: &mut u64,
    ) -> Result<bool, Fault> {
        self.frames.last_mut().unwrap().stack.last_mut().unwrap().pc += 1;
        *steps += 1;
        cta.output.thread_instructions += mask.count_ones() as u64;
        self.clock = self.clock.wrapping_add(op.cost as u64);
        if *steps >= 0x1000 {
            self.check_limits(cta, Some(op), *steps)?;
            *steps = 0;
        }
        match self.exec(cta, op, mask)? {
            Flow::Next => Ok(false),
            Flow::Call { func: callee, mask } => {
                self.call(cta, op, callee, mask)?;
                Ok(false)
            }
            Flow::Yield { mbarrier } => {
                self.yielded = Some(mbarrier);
                Ok(false)
            }
            Flow::Barrier { id, dst } => {
                self.state = State::Waiting { barrier: id, dst };
                Ok(true)
            }
        }
    }

    /// Executes the terminator of the block at `top`.
    fn terminator(&mut self, cta: &mut Cta, func: &Function, top: &Entry) -> Result<(), Fault> {
        let block = &func.blocks[top.block];
        let frame = self.frames.last_mut().unwrap();
        let entry = frame.stack.last_mut().unwrap();
        match &block.term {
            Terminator::Jump(t) => {
                entry.block = *t;
                entry.pc = 0;
            }
            Terminator::Branch {
                cond,
                negated,
                taken,
                not_taken,
                ..
            } => {
                let bits = super::warp::low_bits(&frame.regs[func.slots.slot(*cond)]);
                let t_mask = top.mask & if *negated { !bits } else { bits };
                let n_mask = top.mask & !t_mask;
                if n_mask == 0 || t_mask == 0 {
                    entry.block = if n_mask == 0 { *taken } else { *not_taken };
                    entry.pc = 0;
                } else {
                    let inner = Self::diverge(frame, func, top);
                    frame.stack.push(Entry {
                        block: *not_taken,
                        pc: 0,
                        mask: n_mask,
                        reconv: inner,
                    });
                    frame.stack.push(Entry {
                        block: *taken,
                        pc: 0,
                        mask: t_mask,
                        reconv: inner,
                    });
                }
            }
            Terminator::Switch { index, targets } => {
                let regs = frame.regs[func.slots.slot(*index)];
                let mut groups: Vec<(usize, u32)> = Vec::new();
                for (lane, v) in regs.iter().enumerate() {
                    if top.mask & (1 << lane) != 0 {
                        let t = *v as usize;
                        if t >= targets.len() {
                            let msg = format!(
                                "brx.idx index {t} is out of range ({} targets)",
                                targets.len()
                            );
                            let mut f =
                                self.fault(cta, FaultKind::IllegalAddress, lane as u32, None, msg);
                            f.span = block.term_span;
                            return Err(f);
                        }
                        match groups.iter_mut().find(|g| g.0 == t) {
                            Some(g) => g.1 |= 1 << lane,
                            None => groups.push((t, 1 << lane)),
                        }
                    }
                }
                if groups.len() == 1 {
                    entry.block = targets[groups[0].0];
                    entry.pc = 0;
                } else {
                    let inner = Self::diverge(frame, func, top);
                    for (t, m) in groups.into_iter().rev() {
                        frame.stack.push(Entry {
                            block: targets[t],
                            pc: 0,
                            mask: m,
                            reconv: inner,
                        });
                    }
                }
            }
            Terminator::Ret => {
                for e in &mut frame.stack {
                    e.mask &= !top.mask;
                }
            }
            Terminator::Exit => self.exit_lanes(top.mask),
            Terminator::Trap | Terminator::Brkpt => {
                let lane = top.mask.trailing_zeros();
                let (kind, msg) = if block.term == Terminator::Trap {
                    (FaultKind::Trap, "trap instruction executed")
                } else {
                    (
                        FaultKind::Breakpoint,
                        "brkpt instruction executed with no debugger attached",
                    )
                };
                let mut f = self.fault(cta, kind, lane, None, msg.into());
                f.span = block.term_span;
                return Err(f);
            }
            Terminator::Unset => unreachable!("verified IR has no unset terminators"),
        }
        Ok(())
    }

    /// Turns the top entry into the reconvergence entry of a divergent
    /// branch (or drops it when the paths only meet at function exit) and
    /// returns the paths' reconvergence block.
    fn diverge(frame: &mut Frame, func: &Function, top: &Entry) -> Option<Block> {
        let entry = frame.stack.last_mut().unwrap();
        match func.cfg.ipdom[top.block] {
            Some(r) => {
                entry.block = r;
                entry.pc = 0;
                Some(r)
            }
            None => {
                let outer = entry.reconv;
                frame.stack.pop();
                outer
            }
        }
    }

    pub(super) fn check_limits(
        &mut self,
        cta: &mut Cta,
        op: Option<&Op>,
        steps: u64,
    ) -> Result<(), Fault> {
        cta.output.warp_instructions += steps;
        self.check_budget(cta, op, steps)
    }

    /// Charges `steps` to the launch's budget and checks the watchdog.
    fn check_budget(&mut self, cta: &mut Cta, op: Option<&Op>, steps: u64) -> Result<(), Fault> {
        let ctx = cta.ctx;
        let lane = self
            .frames
            .last()
            .and_then(|f| f.stack.last())
            .map(|e| e.mask.trailing_zeros())
            .unwrap_or(0);
        if cta.cancelled() {
            return Err(self.fault(cta, FaultKind::Cancelled, lane, op, "cancelled".into()));
        }
        let left = ctx.budget.fetch_sub(
            steps.min(ctx.budget.load(Ordering::Relaxed)),
            Ordering::Relaxed,
        );
        let over_time = ctx.deadline.is_some_and(|d| std::time::Instant::now() > d);
        // The budget is what may still execute: `steps` fit in `left`.
        if left < steps || over_time {
            let why = if over_time {
                "its time limit"
            } else {
                "its instruction limit"
            };
            let msg = format!("the kernel exceeded {why} (a runaway loop?)");
            return Err(self.fault(cta, FaultKind::Watchdog, lane, op, msg));
        }
        Ok(())
    }

    fn call(&mut self, cta: &mut Cta, op: &Op, callee: FuncId, mask: u32) -> Result<(), Fault> {
        let OpKind::Call { args, rets, .. } = &op.kind else {
            unreachable!("a call flow comes from a call op");
        };
        let module = cta.ctx.module;
        let caller = self.frames.last().unwrap();
        let caller_size = module.functions[caller.func].frame_size;
        let f = &module.functions[callee];
        // Above the caller's frame and every lane's `alloca`s.
        let top = caller.top.iter().copied().max().unwrap_or(0) as u64;
        let base = ((caller.base + caller_size) as u64).max(top.next_multiple_of(16));
        let end = base + f.frame_size as u64;
        if end > cta.ctx.stack_limit as u64 || self.frames.len() > 10_000 {
            let lane = mask.trailing_zeros();
            let msg = format!("stack overflow: call depth {} needs {end} bytes of local memory per thread (limit {})", self.frames.len(), cta.ctx.stack_limit);
            return Err(self.fault(cta, FaultKind::StackOverflow, lane, Some(op), msg));
        }
        let base = base as u32;
        cta.check_new_frame(self.index, mask, base, end as u32);
        for lane in 0..32 {
            if mask & (1 << lane) != 0 {
                let mem = &mut self.local[lane];
                if mem.len() < end as usize {
                    mem.resize(end as usize, 0);
                }
                for &(from, to, size) in args {
                    let (f, t) = ((caller.base + from) as usize, (base + to) as usize);
                    mem.copy_within(f..f + size as usize, t);
                }
            }
        }
        let mut frame = self.spare_frames.pop().unwrap_or_else(|| Frame {
            func: callee,
            regs: Vec::new(),
            base,
            top: [0; 32],
            stack: Vec::new(),
            call_mask: mask,
            rets: Vec::new(),
        });
        frame.func = callee;
        frame.regs.clear();
        frame.regs.resize(f.slots.count as usize, [0; 32]);
        frame.base = base;
        frame.top = [end as u32; 32];
        frame.stack.clear();
        frame.stack.push(Entry {
            block: f.entry,
            pc: 0,
            mask,
            reconv: None,
        });
        frame.call_mask = mask;
        frame.rets.clear();
        frame.rets.extend_from_slice(rets);
        self.frames.push(frame);
        Ok(())
    }
}

/// Sets `env`'s sanitizer fields for a checked build's piece or region of
/// `func`: the CTA's state, global written bits, the warp's counters
/// (`san_instr`, `san_wsync`), an empty deferred log.
fn san_env(
    env: &mut abi::PieceEnv,
    san: &mut crate::sanitizer::CtaState,
    ctx: &super::LaunchCtx,
    func: FuncId,
    (instr, wsync): (u32, u32),
) {
    (env.san_log, env.san_masks) = san.deferred.buffers();
    env.san_log_len = 0;
    env.san_log_cap = crate::sanitizer::deferred::DeferredLog::CAP as u32;
    env.san_log_full = 0;
    env.san = san;
    env.san_init = ctx
        .memory
        .init_shadow()
        .map_or(std::ptr::null(), |i| i as *const _);
    env.san_func = func;
    env.san_instr = instr;
    env.san_wsync = wsync;
}
