//! A warp: 32 lanes, their registers and local memory, a call stack of
//! frames, and per frame a SIMT stack of (block, pc, mask, reconvergence
//! block) entries.
//!
//! Divergence: at a conditional branch whose lanes disagree, the entry
//! becomes the reconvergence entry (the branch block's immediate
//! post-dominator) and the two paths are pushed above it, taken path on top;
//! a path pops when it reaches its reconvergence block. When the paths only
//! meet at function exit, they inherit the enclosing reconvergence point.
//! `exit` removes lanes from every entry of every frame; `ret` from every
//! entry of the current frame, which returns when no entry is left.

use cranelift_codegen::entity::EntityRef;

use super::abi::{self, PieceEnv};
use super::lanes::Refused;
use super::{Cta, Fault, FaultKind, LaunchCtx};
use crate::front::Span;
use crate::ir::Space;
use crate::ir::{Block, FuncId, Op, Reg, Terminator};
use crate::runtime::memory::AccessFault;
use std::sync::atomic::Ordering;

#[derive(Clone, Debug)]
pub(super) struct Entry {
    pub block: Block,
    pub pc: usize,
    pub mask: u32,
    pub reconv: Option<Block>,
}

#[derive(Clone, Debug)]
pub(super) struct Frame {
    pub func: FuncId,
    pub regs: Vec<[u64; 32]>,
    /// Per-lane local-memory offset of this frame.
    pub base: u32,
    pub stack: Vec<Entry>,
    /// Lanes that made the call (to copy results back to).
    pub call_mask: u32,
    /// (callee offset, caller offset, size) copies made on return.
    pub rets: Vec<(u32, u32, u32)>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    Ready,
    /// Waiting on a barrier; for reductions, the register to receive the result.
    Waiting {
        barrier: u32,
        dst: Option<(Reg, u32, crate::ir::BarKind)>,
    },
    Done,
}

pub struct Warp {
    pub index: u32,
    /// Lanes that are threads of the CTA.
    pub valid: u32,
    pub exited: u32,
    pub(super) frames: Vec<Frame>,
    pub(super) local: Vec<Vec<u8>>,
    state: State,
    /// Warp-instructions executed (the interpreter's `%clock`).
    pub clock: u64,
    /// The environment of compiled pieces (JIT engine only).
    env: Option<Box<PieceEnv>>,
    /// Where compiled regions park live-out registers.
    scratch: Vec<u64>,
}

/// How an op changes control flow.
pub(super) enum Flow {
    Next,
    /// Call: push a frame for `func` (the caller's pc is already advanced).
    Call {
        func: FuncId,
        args: Vec<(u32, u32, u32)>,
        rets: Vec<(u32, u32, u32)>,
        mask: u32,
    },
    /// Wait at a barrier.
    Barrier {
        id: u32,
        dst: Option<(Reg, u32, crate::ir::BarKind)>,
    },
}

impl Warp {
    pub(super) fn new(ctx: &LaunchCtx, ctaid: [u32; 3], index: u32, valid: u32) -> Warp {
        let kernel = &ctx.module.functions[ctx.kernel];
        let frame = Frame {
            func: ctx.kernel,
            regs: vec![[0; 32]; kernel.regs.len()],
            base: 0,
            stack: vec![Entry {
                block: kernel.entry,
                pc: 0,
                mask: valid,
                reconv: None,
            }],
            call_mask: valid,
            rets: Vec::new(),
        };
        let frame_size = kernel.frame_size as usize;
        Warp {
            index,
            valid,
            exited: 0,
            frames: vec![frame],
            local: (0..32).map(|_| vec![0u8; frame_size]).collect(),
            state: State::Ready,
            clock: 0,
            env: ctx
                .code
                .map(|_| Box::new(Self::piece_env(ctx, ctaid, index))),
            scratch: Vec::new(),
        }
    }

    /// Readies a warp that ran an earlier CTA for `index` of CTA `ctaid`,
    /// keeping its allocations. Registers are not all cleared: only those
    /// the kernel may read before writing them (`LaunchCtx::zeroed_regs`)
    /// start at zero, which is all the program can observe.
    pub(super) fn reset(&mut self, ctx: &LaunchCtx, ctaid: [u32; 3], index: u32, valid: u32) {
        let kernel = &ctx.module.functions[ctx.kernel];
        self.frames.truncate(1);
        if self.frames.is_empty() {
            *self = Warp::new(ctx, ctaid, index, valid);
            return;
        }
        let frame = &mut self.frames[0];
        frame.func = ctx.kernel;
        let n = kernel.regs.len();
        if frame.regs.len() > n {
            frame.regs.truncate(n);
        } else {
            frame.regs.resize(n, [0; 32]);
        }
        for r in ctx.zeroed_regs {
            frame.regs[r.index()] = [0; 32];
        }
        frame.base = 0;
        frame.stack.clear();
        frame.stack.push(Entry {
            block: kernel.entry,
            pc: 0,
            mask: valid,
            reconv: None,
        });
        frame.call_mask = valid;
        frame.rets.clear();
        let frame_size = kernel.frame_size as usize;
        for mem in &mut self.local {
            mem.clear();
            mem.resize(frame_size, 0);
        }
        self.index = index;
        self.valid = valid;
        self.exited = 0;
        self.state = State::Ready;
        self.clock = 0;
        match (&mut self.env, ctx.code) {
            (Some(env), Some(_)) => **env = Self::piece_env(ctx, ctaid, index),
            (env, code) => *env = code.map(|_| Box::new(Self::piece_env(ctx, ctaid, index))),
        }
    }

    /// The parts of a piece environment fixed for the warp's lifetime.
    fn piece_env(ctx: &LaunchCtx, ctaid: [u32; 3], index: u32) -> PieceEnv {
        let [bx, by, _] = ctx.block;
        let mut lanes = [[0u32; 3]; 32];
        // Lane 0's coordinates, then step through the block without dividing.
        let t = index * 32;
        let (mut x, mut y, mut z) = (t % bx, (t / bx) % by, t / (bx * by));
        for coords in lanes.iter_mut() {
            *coords = [x, y, z];
            x += 1;
            if x == bx {
                x = 0;
                y += 1;
                if y == by {
                    y = 0;
                    z += 1;
                }
            }
        }
        let tid: [[u32; 32]; 3] = std::array::from_fn(|d| std::array::from_fn(|l| lanes[l][d]));
        let shared = ctx.module.shared_dynamic_offset as u64 + ctx.dynamic_shared as u64;
        PieceEnv {
            regs: std::ptr::null_mut(),
            arena: ctx.memory.arena_ptr(),
            memory: ctx.memory,
            granules: ctx.memory.granules().as_ptr(),
            granule_count: ctx.memory.granules().len() as u64 - 1,
            shared: std::ptr::null_mut(),
            shared_len: 0,
            params: ctx.params.as_ptr(),
            params_len: ctx.params.len() as u64,
            local_ptrs: [std::ptr::null_mut(); 32],
            local_lens: [0; 32],
            frame_base: 0,
            clock: 0,
            tid,
            ntid: ctx.block,
            ctaid,
            nctaid: ctx.grid,
            warp_index: index,
            dynamic_shared: ctx.dynamic_shared,
            total_shared: shared.max(ctx.module.shared_static_size as u64) as u32,
            fault_op: u32::MAX,
            fault_lane: 0,
            fault_kind: 0,
            fault_space: 0,
            fault_addr: 0,
            fault_size: 0,
            scratch: std::ptr::null_mut(),
            step_cap: 0,
            region_ops: 0,
            region_steps: 0,
            region_cost: 0,
        }
    }

    /// The fault a piece recorded in its environment.
    fn piece_fault(&self, cta: &Cta, block: &crate::ir::BlockData) -> Fault {
        let env = self.env.as_deref().expect("pieces run with an environment");
        let op = &block.ops[env.fault_op as usize];
        let fault = match env.fault_kind {
            abi::FAULT_MISALIGNED => AccessFault::Misaligned,
            _ => AccessFault::OutOfBounds,
        };
        let space = match env.fault_space {
            abi::SPACE_SHARED => Space::Shared,
            abi::SPACE_LOCAL => Space::Local,
            abi::SPACE_PARAM => Space::KernelParam,
            abi::SPACE_GENERIC => Space::Generic,
            abi::SPACE_CONST => Space::Const,
            _ => Space::Global,
        };
        let refused = Refused {
            fault,
            space,
            addr: env.fault_addr,
        };
        self.access_fault(cta, op, env.fault_lane as usize, refused, env.fault_size)
    }

    pub fn runnable(&self) -> bool {
        self.state == State::Ready
    }

    pub fn done(&self) -> bool {
        self.state == State::Done
    }

    pub fn waiting_on(&self) -> Option<u32> {
        match self.state {
            State::Waiting { barrier, .. } => Some(barrier),
            _ => None,
        }
    }

    pub(super) fn release_barrier(&mut self, popc: u32, all: bool, any: bool) {
        if let State::Waiting {
            dst: Some((reg, mask, kind)),
            ..
        } = self.state
        {
            let value = match kind {
                crate::ir::BarKind::RedPopc => popc as u64,
                crate::ir::BarKind::RedAnd => all as u64,
                _ => any as u64,
            };
            let frame = self.frames.last_mut().unwrap();
            for lane in 0..32 {
                if mask & (1 << lane) != 0 {
                    frame.regs[reg.index()][lane] = value;
                }
            }
        }
        self.state = State::Ready;
    }

    /// The span, function and first active thread where the warp stands.
    pub(super) fn position(&self, cta: &Cta) -> (Span, Option<FuncId>, [u32; 3]) {
        let Some(frame) = self.frames.last() else {
            return (Span::DUMMY, None, [0; 3]);
        };
        let Some(e) = frame.stack.last() else {
            return (Span::DUMMY, Some(frame.func), [0; 3]);
        };
        let f = &cta.ctx.module.functions[frame.func];
        let b = &f.blocks[e.block];
        let span = b
            .ops
            .get(e.pc.saturating_sub(1))
            .map(|o| o.span)
            .unwrap_or(b.term_span);
        let lane = e.mask.trailing_zeros().min(31);
        (span, Some(frame.func), self.tid(cta, lane))
    }

    /// `%tid` of a lane.
    pub(super) fn tid(&self, cta: &Cta, lane: u32) -> [u32; 3] {
        let [bx, by, _] = cta.ctx.block;
        let t = self.index * 32 + lane;
        [t % bx, (t / bx) % by, t / (bx * by)]
    }

    pub(super) fn fault(
        &self,
        cta: &Cta,
        kind: FaultKind,
        lane: u32,
        op: Option<&Op>,
        message: String,
    ) -> Fault {
        let func = self.frames.last().map(|f| f.func);
        Fault {
            kind,
            message,
            thread: self.tid(cta, lane),
            func,
            span: op.map(|o| o.span).unwrap_or(Span::DUMMY),
            loc: op.and_then(|o| o.loc),
        }
    }

    /// Removes `mask` lanes from every entry of every frame (`exit`).
    fn exit_lanes(&mut self, mask: u32) {
        self.exited |= mask;
        for f in &mut self.frames {
            for e in &mut f.stack {
                e.mask &= !mask;
            }
            f.call_mask &= !mask;
        }
    }

    /// Runs until the warp finishes or waits at a barrier.
    pub(super) fn run(&mut self, cta: &mut Cta) -> Result<(), Fault> {
        let ctx = cta.ctx;
        let module = ctx.module;
        let mut steps: u64 = 0;
        loop {
            let Some(frame) = self.frames.last_mut() else {
                self.state = State::Done;
                break;
            };
            let Some(top) = frame.stack.last().cloned() else {
                // The frame returned: copy results to the caller and pop it.
                let done = self.frames.pop().unwrap();
                match self.frames.last_mut() {
                    None => {
                        // Keep the kernel's frame: `reset` reuses its registers.
                        self.frames.push(done);
                        self.state = State::Done;
                        break;
                    }
                    Some(caller) => {
                        let live = done.call_mask & !self.exited;
                        for &(from, to, size) in &done.rets {
                            for lane in 0..32 {
                                if live & (1 << lane) != 0 {
                                    let mem = &mut self.local[lane];
                                    let (f, t) =
                                        ((done.base + from) as usize, (caller.base + to) as usize);
                                    mem.copy_within(f..f + size as usize, t);
                                }
                            }
                        }
                        continue;
                    }
                }
            };
            if top.mask == 0 || (top.pc == 0 && Some(top.block) == top.reconv) {
                frame.stack.pop();
                continue;
            }
            let func = &module.functions[frame.func];
            let block = &func.blocks[top.block];
            if top.pc == 0 {
                if let (Some(code), Some(env)) = (ctx.code, self.env.as_deref_mut()) {
                    if let Some(region) = code.region(frame.func, top.block) {
                        let reconv_inside = top
                            .reconv
                            .is_some_and(|r| region.blocks.binary_search(&r).is_ok());
                        if !reconv_inside {
                            let need = region.live_outs * 32;
                            if self.scratch.len() < need {
                                self.scratch.resize(need, 0);
                            }
                            env.regs = frame.regs.as_mut_ptr() as *mut u64;
                            env.frame_base = frame.base as u64;
                            env.shared = cta.shared.as_mut_ptr();
                            env.shared_len = cta.shared.len() as u64;
                            env.scratch = self.scratch.as_mut_ptr();
                            // A lane may run until the launch's budget is
                            // spent, and for at most 2^23 steps, so that a
                            // runaway loop soon (a fraction of a second per
                            // warp) falls back to the interpreter and meets
                            // its watchdog (instructions or time).
                            env.step_cap = ctx
                                .budget
                                .load(Ordering::Relaxed)
                                .saturating_sub(steps)
                                .min(1 << 23);
                            if region.uses_local {
                                for (l, mem) in self.local.iter_mut().enumerate() {
                                    env.local_ptrs[l] = mem.as_mut_ptr();
                                    env.local_lens[l] = mem.len() as u64;
                                }
                            }
                            // SAFETY: as for pieces below; the scratch holds
                            // 32 words per live-out.
                            let status = unsafe { (region.entry)(env, top.mask) };
                            if status == 0 {
                                cta.output.thread_instructions += env.region_ops;
                                steps += env.region_steps;
                                self.clock += env.region_cost;
                                let e = frame.stack.last_mut().unwrap();
                                e.block = region.exit;
                                e.pc = 0;
                                if steps >= 0x1000 {
                                    self.check_limits(cta, None, steps)?;
                                    steps = 0;
                                }
                                continue;
                            }
                            // A fault or a runaway lane: interpret the region
                            // (nothing was written) to report it exactly.
                        }
                    }
                }
            }
            if top.pc < block.ops.len() {
                if let (Some(code), Some(env)) = (ctx.code, self.env.as_deref_mut()) {
                    if let Some(piece) = code.piece(frame.func, top.block, top.pc) {
                        let n = piece.end as u64 - top.pc as u64;
                        steps += n;
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
                        self.clock += piece.cost as u64;
                        frame.stack.last_mut().unwrap().pc = piece.end as usize;
                        // SAFETY: the env points at this warp's live registers,
                        // local memory, the CTA's shared memory and the
                        // launch's arena, all outliving the call; the piece
                        // was compiled for this function and block.
                        let status = unsafe { (piece.entry)(env, top.mask) };
                        if status != 0 {
                            return Err(self.piece_fault(cta, block));
                        }
                        if steps >= 0x1000 {
                            self.check_limits(cta, None, steps)?;
                            steps = 0;
                        }
                        continue;
                    }
                }
                let op = &block.ops[top.pc];
                frame.stack.last_mut().unwrap().pc += 1;
                steps += 1;
                cta.output.thread_instructions += top.mask.count_ones() as u64;
                self.clock += op.cost as u64;
                if steps >= 0x1000 {
                    self.check_limits(cta, Some(op), steps)?;
                    steps = 0;
                }
                match self.exec(cta, op, top.mask)? {
                    Flow::Next => {}
                    Flow::Call {
                        func: callee,
                        args,
                        rets,
                        mask,
                    } => self.call(cta, op, callee, args, rets, mask)?,
                    Flow::Barrier { id, dst } => {
                        self.state = State::Waiting { barrier: id, dst };
                        break;
                    }
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
                    let regs = &frame.regs[cond.index()];
                    let mut t_mask = 0u32;
                    for (lane, v) in regs.iter().enumerate() {
                        if top.mask & (1 << lane) != 0 && ((v & 1 != 0) != *negated) {
                            t_mask |= 1 << lane;
                        }
                    }
                    let n_mask = top.mask & !t_mask;
                    if n_mask == 0 || t_mask == 0 {
                        entry.block = if n_mask == 0 { *taken } else { *not_taken };
                        entry.pc = 0;
                    } else {
                        let r = func.cfg.ipdom[top.block];
                        let outer = entry.reconv;
                        let inner = match r {
                            Some(r) => {
                                entry.block = r;
                                entry.pc = 0;
                                Some(r)
                            }
                            None => {
                                frame.stack.pop();
                                outer
                            }
                        };
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
                    let regs = frame.regs[index.index()];
                    let mut groups: Vec<(usize, u32)> = Vec::new();
                    for (lane, v) in regs.iter().enumerate() {
                        if top.mask & (1 << lane) != 0 {
                            let t = *v as usize;
                            if t >= targets.len() {
                                let msg = format!(
                                    "brx.idx index {t} is out of range ({} targets)",
                                    targets.len()
                                );
                                return Err(self.fault(
                                    cta,
                                    FaultKind::IllegalAddress,
                                    lane as u32,
                                    None,
                                    msg,
                                ));
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
                        let r = func.cfg.ipdom[top.block];
                        let outer = entry.reconv;
                        let inner = match r {
                            Some(r) => {
                                entry.block = r;
                                entry.pc = 0;
                                Some(r)
                            }
                            None => {
                                frame.stack.pop();
                                outer
                            }
                        };
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
                Terminator::Trap => {
                    let lane = top.mask.trailing_zeros();
                    let mut f = self.fault(
                        cta,
                        FaultKind::Trap,
                        lane,
                        None,
                        "trap instruction executed".into(),
                    );
                    f.span = block.term_span;
                    return Err(f);
                }
                Terminator::Unset => unreachable!("verified IR has no unset terminators"),
            }
        }
        cta.output.warp_instructions += steps;
        Ok(())
    }

    fn check_limits(&mut self, cta: &mut Cta, op: Option<&Op>, steps: u64) -> Result<(), Fault> {
        let ctx = cta.ctx;
        cta.output.warp_instructions += steps;
        let lane = self
            .frames
            .last()
            .and_then(|f| f.stack.last())
            .map(|e| e.mask.trailing_zeros())
            .unwrap_or(0);
        if ctx.cancel.load(Ordering::Relaxed) {
            return Err(self.fault(cta, FaultKind::Cancelled, lane, op, "cancelled".into()));
        }
        let left = ctx.budget.fetch_sub(
            steps.min(ctx.budget.load(Ordering::Relaxed)),
            Ordering::Relaxed,
        );
        let over_time = ctx.deadline.is_some_and(|d| std::time::Instant::now() > d);
        if left <= steps || over_time {
            let why = if over_time {
                "its time limit"
            } else {
                "its instruction limit"
            };
            let msg = format!("watchdog: the kernel exceeded {why} (a runaway loop?)");
            return Err(self.fault(cta, FaultKind::Watchdog, lane, op, msg));
        }
        Ok(())
    }

    fn call(
        &mut self,
        cta: &mut Cta,
        op: &Op,
        callee: FuncId,
        args: Vec<(u32, u32, u32)>,
        rets: Vec<(u32, u32, u32)>,
        mask: u32,
    ) -> Result<(), Fault> {
        let module = cta.ctx.module;
        let caller = self.frames.last().unwrap();
        let caller_size = module.functions[caller.func].frame_size;
        let f = &module.functions[callee];
        let base = caller.base + caller_size;
        let end = base as u64 + f.frame_size as u64;
        if end > cta.ctx.stack_limit as u64 || self.frames.len() > 10_000 {
            let lane = mask.trailing_zeros();
            let msg = format!("stack overflow: call depth {} needs {end} bytes of local memory per thread (limit {})", self.frames.len(), cta.ctx.stack_limit);
            return Err(self.fault(cta, FaultKind::StackOverflow, lane, Some(op), msg));
        }
        for lane in 0..32 {
            if mask & (1 << lane) != 0 {
                let mem = &mut self.local[lane];
                if mem.len() < end as usize {
                    mem.resize(end as usize, 0);
                }
                for &(from, to, size) in &args {
                    let (f, t) = ((caller.base + from) as usize, (base + to) as usize);
                    mem.copy_within(f..f + size as usize, t);
                }
            }
        }
        self.frames.push(Frame {
            func: callee,
            regs: vec![[0; 32]; f.regs.len()],
            base,
            stack: vec![Entry {
                block: f.entry,
                pc: 0,
                mask,
                reconv: None,
            }],
            call_mask: mask,
            rets,
        });
        Ok(())
    }
}
