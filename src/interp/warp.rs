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

use super::lanes::Refused;
use super::{Cta, Fault, FaultKind, LaunchCtx};
use crate::engine::abi::{self, PieceEnv};
use crate::front::Span;
use crate::ir::Space;
use crate::ir::{Block, FuncId, Op};
use crate::runtime::memory::AccessFault;

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
    /// Each lane's stack pointer: the end of this frame and of what its
    /// `alloca`s took (`base + frame_size` until one runs); a call's
    /// frame starts above every lane's (`drive.rs`).
    pub top: [u32; 32],
    pub stack: Vec<Entry>,
    /// Lanes that made the call (to copy results back to).
    pub call_mask: u32,
    /// (callee offset, caller offset, size) copies made on return.
    pub rets: Vec<(u32, u32, u32)>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum State {
    Ready,
    /// Waiting on a barrier; for reductions, the register-file row (slot)
    /// to receive the result, the lanes and the reduction.
    Waiting {
        barrier: u32,
        dst: Option<(usize, u32, crate::ir::BarKind)>,
    },
    Done,
}

pub struct Warp {
    pub index: u32,
    /// Lanes that are threads of the CTA.
    pub valid: u32,
    pub exited: u32,
    pub(super) frames: Vec<Frame>,
    /// Frames of returned calls, kept for their allocations.
    pub(super) spare_frames: Vec<Frame>,
    pub(super) local: Vec<Vec<u8>>,
    pub(super) state: State,
    /// Warp-instructions executed (the interpreter's `%clock`).
    pub clock: u64,
    /// The environment of compiled pieces (JIT engine only).
    pub(super) env: Option<Box<PieceEnv>>,
    /// Where compiled regions park live-out registers.
    pub(super) scratch: Vec<u64>,
    /// Steps taken by [`Warp::step`] not yet counted against the watchdog.
    pub(super) pending_steps: u64,
    /// The last [`Warp::run`] stopped to give the other warps a turn (the
    /// warp is still ready): `Some(true)` at an `mbarrier` wait that found
    /// its phase incomplete, `Some(false)` at a sleep or a clock poll.
    pub(super) yielded: Option<bool>,
    /// Where the warp last ran a polling load this turn (function, block,
    /// op): running it again means the warp spins (`OpKind::Ld::poll`).
    pub(super) last_poll: Option<(FuncId, Block, usize)>,
    /// Lanes that arrived at the cluster barrier in its current phase
    /// (`barrier.cluster.arrive`, see `cluster.rs`).
    pub(super) cluster_arrived: u32,
    /// Where timing pieces record their accesses, and the last traced
    /// piece run: (function, block, first op, traced ops).
    pub(super) trace: Option<Box<abi::Trace>>,
    pub(super) traced: Option<(FuncId, Block, usize, u64)>,
    /// In a checked launch: the warp's memory instructions so far, and
    /// its `bar.warp.sync`s (racecheck's order within a warp).
    pub(super) san_instr: u32,
    pub(super) san_wsync: u32,
}

/// How an op changes control flow.
pub(super) enum Flow {
    Next,
    /// Call: push a frame for `func` (the caller's pc is already advanced).
    /// The copies in and out are the `OpKind::Call` op's.
    Call {
        func: FuncId,
        mask: u32,
    },
    /// Give the other warps of the CTA a turn; the warp stays ready.
    /// `mbarrier`: a wait found its phase incomplete; otherwise the warp
    /// slept or read the clock that spin loops poll (`nanosleep`,
    /// `%globaltimer`).
    Yield {
        mbarrier: bool,
    },
    /// Wait at a barrier.
    Barrier {
        id: u32,
        dst: Option<(usize, u32, crate::ir::BarKind)>,
    },
}

impl Warp {
    pub(super) fn new(ctx: &LaunchCtx, ctaid: [u32; 3], index: u32, valid: u32) -> Warp {
        let kernel = &ctx.module.functions[ctx.kernel];
        let frame = Frame {
            func: ctx.kernel,
            regs: vec![[0; 32]; kernel.slots.count as usize],
            base: 0,
            top: [kernel.frame_size; 32],
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
            spare_frames: Vec::new(),
            local: (0..32).map(|_| vec![0u8; frame_size]).collect(),
            state: State::Ready,
            clock: 0,
            env: ctx
                .code
                .map(|_| Box::new(Self::piece_env(ctx, ctaid, index))),
            scratch: Vec::new(),
            pending_steps: 0,
            yielded: None,
            last_poll: None,
            cluster_arrived: 0,
            trace: None,
            traced: None,
            san_instr: 0,
            san_wsync: 0,
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
        let n = kernel.slots.count as usize;
        if frame.regs.capacity() < n {
            // A warp of a smaller kernel: a fresh file, not a reallocation
            // that would copy the old one's values.
            frame.regs = vec![[0; 32]; n];
        } else if frame.regs.len() > n {
            frame.regs.truncate(n);
        } else {
            frame.regs.resize(n, [0; 32]);
        }
        for r in ctx.zeroed_regs {
            frame.regs[kernel.slots.slot(*r)] = [0; 32];
        }
        frame.base = 0;
        frame.top = [kernel.frame_size; 32];
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
            if mem.capacity() < frame_size {
                *mem = vec![0; frame_size];
            } else {
                mem.resize(frame_size, 0);
            }
        }
        self.index = index;
        self.valid = valid;
        self.exited = 0;
        self.state = State::Ready;
        self.clock = 0;
        self.pending_steps = 0;
        self.yielded = None;
        self.last_poll = None;
        self.cluster_arrived = 0;
        self.traced = None;
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
            total_shared: super::user_shared_size(ctx) as u32,
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
            trace: std::ptr::null_mut(),
            budget: ctx.budget,
            deadline: ctx.deadline,
            san: std::ptr::null_mut(),
            san_init: std::ptr::null(),
            san_func: ctx.kernel,
            san_instr: 0,
            san_wsync: 0,
            san_log: std::ptr::null_mut(),
            san_masks: std::ptr::null_mut(),
            san_log_len: 0,
            san_log_cap: 0,
            san_log_full: 0,
        }
    }

    /// The fault a piece recorded in its environment.
    pub(super) fn piece_fault(&self, cta: &Cta, block: &crate::ir::BlockData) -> Fault {
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
            dst: Some((row, mask, kind)),
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
                    frame.regs[row][lane] = value;
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
        let (span, loc) = match op {
            Some(o) => (o.span, o.loc),
            None => self.next_instruction(cta),
        };
        Fault {
            kind,
            message,
            thread: self.tid(cta, lane),
            func,
            span,
            loc,
            access: None,
        }
    }

    /// The span and `.loc` line of the instruction the warp executes next
    /// (its op, or its block's terminator): where a fault that no single
    /// op raised, the watchdog's, stopped it.
    fn next_instruction(&self, cta: &Cta) -> (Span, Option<(u32, u32)>) {
        let Some(e) = self
            .frames
            .last()
            .and_then(|f| f.stack.last().map(|e| (f, e)))
        else {
            return (Span::DUMMY, None);
        };
        let (frame, e) = e;
        let b = &cta.ctx.module.functions[frame.func].blocks[e.block];
        match b.ops.get(e.pc) {
            Some(o) => (o.span, o.loc),
            None => (b.term_span, None),
        }
    }

    /// Removes `mask` lanes from every entry of every frame (`exit`).
    pub(super) fn exit_lanes(&mut self, mask: u32) {
        self.exited |= mask;
        for f in &mut self.frames {
            for e in &mut f.stack {
                e.mask &= !mask;
            }
            f.call_mask &= !mask;
        }
    }
}

/// Bit 0 of every lane's value, as a lane mask (a predicate register's
/// lanes).
#[inline]
pub(super) fn low_bits(values: &[u64; 32]) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        use std::arch::x86_64::{
            __m128i, _mm_castsi128_pd, _mm_loadu_si128, _mm_movemask_pd, _mm_slli_epi64,
        };
        // Two lanes at a time: bit 0 to the sign bit, the sign bits out.
        let mut bits = 0u32;
        for (i, pair) in values.chunks_exact(2).enumerate() {
            // SAFETY: `pair` is 16 readable bytes (an unaligned load), and
            // the build has SSE2 (the `cfg` above; every x86-64 CPU has it).
            let signs = unsafe {
                let v = _mm_loadu_si128(pair.as_ptr() as *const __m128i);
                _mm_movemask_pd(_mm_castsi128_pd(_mm_slli_epi64::<63>(v)))
            };
            bits |= (signs as u32) << (2 * i);
        }
        bits
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        values
            .iter()
            .enumerate()
            .fold(0u32, |m, (lane, v)| m | (((v & 1) as u32) << lane))
    }
}

#[cfg(test)]
mod tests {
    use super::low_bits;
    use crate::testing::xorshift;

    #[test]
    fn low_bits_gathers_bit_zero_of_each_lane() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..1000 {
            let values: [u64; 32] = std::array::from_fn(|_| next());
            let expected = (0..32).fold(0u32, |m, l| m | (((values[l] & 1) as u32) << l));
            assert_eq!(low_bits(&values), expected);
        }
        assert_eq!(low_bits(&[1; 32]), u32::MAX);
        assert_eq!(low_bits(&[u64::MAX - 1; 32]), 0);
    }
}
