//! Emitting one piece as a Cranelift function
//! `extern "C" fn(env: *mut PieceEnv, mask: u32) -> u32`.
//!
//! The function loops over the set bits of `mask`. For each lane it loads the
//! registers the piece reads from the frame's register file into Cranelift
//! variables (so they live in host registers across the piece), runs the ops
//! (a guarded op becomes a branch), and stores every register the piece
//! writes back. A lane that faults records the fault (see
//! `helpers::jit_fault`) and is skipped; the function returns 1 if any did.

use cranelift_codegen::entity::EntityRef;
use cranelift_codegen::ir::{
    condcodes::IntCC, types, AbiParam, Block, InstBuilder, MemFlagsData, Signature, StackSlot,
    StackSlotData, StackSlotKind, Type, Value,
};
use cranelift_frontend::{FunctionBuilder, Variable};
use std::collections::HashMap;

use super::{helpers, trampoline};
use crate::engine::abi::offsets;
use crate::engine::pure::MAX_OPERANDS;
use crate::ir::liveness::RegSet;
use crate::ir::{Function, Op, OpKind, Reg, Src};
use crate::runtime::memory::FUNC_BASE;

pub(super) const I64: Type = types::I64;
pub(super) const I32: Type = types::I32;
pub(super) const I16: Type = types::I16;

/// What an op emitter needs from the enclosing piece.
pub(super) struct PieceBuilder<'a, 'b> {
    pub b: FunctionBuilder<'b>,
    pub func: &'a Function,
    pub global_addrs: &'a [u64],
    pub env: Value,
    /// The current lane (i64) and its mask of the block.
    pub lane: Value,
    pub mask: Value,
    /// Start of the current lane's registers (`regs + lane * 8`).
    vars: HashMap<Reg, Variable>,
    /// Per register, the f32 value the float op that last wrote it computed
    /// before its NaN was made canonical (`f32_result`), where that op's
    /// block dominates the point of emission: the register's value, or a
    /// NaN where the register holds one. Operations whose result depends
    /// only on whether an operand is NaN (arithmetic that makes its own NaN
    /// canonical, comparisons, `ex2`) read it instead of the register's
    /// bits.
    f32_results: HashMap<Reg, Value>,
    /// The raw f32 result of the op being emitted, if it has one.
    pending_f32: Option<Value>,
    /// Where a faulting lane goes (skip to the next lane).
    pub next_lane: Block,
    /// In a region: a faulting lane aborts the whole call instead (the
    /// driver then interprets the region to report the exact fault).
    pub abort: Option<Block>,
    /// The clock before the piece plus the costs of the ops so far.
    pub clock_offset: u64,
    /// Environment fields loaded once per call.
    pub regs: Value,
    pub arena: Value,
    pub granules: Value,
    pub granule_count: Value,
    pub shared: Value,
    pub shared_len: Value,
    pub params: Value,
    pub params_len: Value,
    pub frame_base: Value,
    pub clock: Value,
    pub uses_local: bool,
    /// Per inline global atomic of a piece (by op index): the last address
    /// its checks passed in this call (0, never valid, before any). The
    /// lanes of one call often update one address (a counter, a lock, a
    /// compare-and-swap loop), and an address that passed passes again.
    pub checked_atomic: HashMap<u32, Variable>,
    /// Checked builds: accesses call the sanitizer's hook
    /// (deferred: `sanitizer::deferred::DeferredLog`); while one is emitted,
    /// what it is (a `deferred::KIND_*` kind) and its op.
    pub hooks: bool,
    pub hook: Option<(u32, *const Op)>,
    /// Checked builds, accesses' steps (`helpers::jit_defer`): in a
    /// region, the current block's first (i64: the lane's steps before its
    /// first op) and the lane's path hash; in a piece (`None`), the op's
    /// index less `piece_start`.
    pub defer: Option<(Value, Value)>,
    pub piece_start: u32,
    /// In a checked piece, each op's slot (`plan::takes_slot`), by index.
    pub slots: HashMap<u32, u32>,
    /// Timing pieces: the env's trace, and the slot of the next traced access.
    pub trace: Option<Value>,
    pub trace_slot: usize,
    /// Flags of accesses known aligned and in bounds, and of plain bitcasts.
    pub trusted: MemFlagsData,
    pub plain: MemFlagsData,
    ptr_sig: Option<cranelift_codegen::ir::SigRef>,
    pure3_sig: Option<cranelift_codegen::ir::SigRef>,
    f64_fn_sig: Option<cranelift_codegen::ir::SigRef>,
    u64_fn_sig: Option<cranelift_codegen::ir::SigRef>,
    pure_cold_sig: Option<cranelift_codegen::ir::SigRef>,
    miss_sig: Option<cranelift_codegen::ir::SigRef>,
    fault_sig: Option<cranelift_codegen::ir::SigRef>,
    /// The cold-path trampolines.
    trampolines: trampoline::Trampolines,
}

impl<'a, 'b> PieceBuilder<'a, 'b> {
    /// Starts a function over the `PieceFn` signature: creates its entry
    /// block, loads the environment fields every access needs, and leaves
    /// the builder in the entry block.
    pub fn new(
        fctx: &'b mut cranelift_frontend::FunctionBuilderContext,
        cfunc: &'b mut cranelift_codegen::ir::Function,
        func: &'a Function,
        global_addrs: &'a [u64],
        trampolines: trampoline::Trampolines,
    ) -> Self {
        let b = FunctionBuilder::new(cfunc, fctx);
        let mut p = PieceBuilder {
            b,
            func,
            global_addrs,
            env: Value::new(0),
            lane: Value::new(0),
            mask: Value::new(0),
            vars: HashMap::new(),
            f32_results: HashMap::new(),
            pending_f32: None,
            next_lane: Block::new(0),
            abort: None,
            clock_offset: 0,
            regs: Value::new(0),
            arena: Value::new(0),
            granules: Value::new(0),
            granule_count: Value::new(0),
            shared: Value::new(0),
            shared_len: Value::new(0),
            params: Value::new(0),
            params_len: Value::new(0),
            frame_base: Value::new(0),
            clock: Value::new(0),
            uses_local: false,
            checked_atomic: HashMap::new(),
            hooks: false,
            hook: None,
            defer: None,
            piece_start: 0,
            slots: HashMap::new(),
            trace: None,
            trace_slot: 0,
            trusted: MemFlagsData::trusted(),
            plain: MemFlagsData::new(),
            ptr_sig: None,
            pure3_sig: None,
            f64_fn_sig: None,
            u64_fn_sig: None,
            pure_cold_sig: None,
            miss_sig: None,
            fault_sig: None,
            trampolines,
        };
        let entry = p.b.create_block();
        p.b.append_block_params_for_function_params(entry);
        p.b.switch_to_block(entry);
        p.env = p.b.block_params(entry)[0];
        p.mask = p.b.block_params(entry)[1];
        p.regs = p.load_env(I64, offsets::REGS);
        p.arena = p.load_env(I64, offsets::ARENA);
        p.granules = p.load_env(I64, offsets::GRANULES);
        p.granule_count = p.load_env(I64, offsets::GRANULE_COUNT);
        p.shared = p.load_env(I64, offsets::SHARED);
        p.shared_len = p.load_env(I64, offsets::SHARED_LEN);
        p.params = p.load_env(I64, offsets::PARAMS);
        p.params_len = p.load_env(I64, offsets::PARAMS_LEN);
        p.frame_base = p.load_env(I64, offsets::FRAME_BASE);
        p.clock = p.load_env(I64, offsets::CLOCK);
        p
    }

    /// Enters a lane at the current (loop-body) block: sets `lane` to the
    /// lowest bit of `remaining` and returns its register base.
    pub fn begin_lane(&mut self, remaining: Variable) -> Value {
        let m = self.b.use_var(remaining);
        let lane32 = self.b.ins().ctz(m);
        self.lane = self.b.ins().uextend(I64, lane32);
        let lane_off = self.b.ins().ishl_imm_s(self.lane, 3);
        self.b.ins().iadd(self.regs, lane_off)
    }

    /// Emits the `next_lane` block: clears the lane's bit and loops to `head`.
    pub fn emit_next_lane(&mut self, remaining: Variable, head: Block) {
        self.b.switch_to_block(self.next_lane);
        let m = self.b.use_var(remaining);
        let m1 = self.b.ins().iadd_imm_s(m, -1);
        let m2 = self.b.ins().band(m, m1);
        self.b.def_var(remaining, m2);
        self.b.ins().jump(head, &[]);
    }
}

/// Emits the piece `ops[start..end]` of `block` into `cfunc`; returns
/// whether it touches local memory.
#[allow(clippy::too_many_arguments)]
pub(super) fn emit_piece(
    fctx: &mut cranelift_frontend::FunctionBuilderContext,
    cfunc: &mut cranelift_codegen::ir::Function,
    func: &Function,
    plan: &super::plan::PiecePlan,
    global_addrs: &[u64],
    trampolines: trampoline::Trampolines,
    live_after: &RegSet,
    trace: bool,
    hooks: bool,
    frontend: cranelift_codegen::isa::TargetFrontendConfig,
) -> bool {
    let (start, end) = (plan.start, plan.end);
    let ops = &func.blocks[plan.block].ops;
    let mut p = PieceBuilder::new(fctx, cfunc, func, global_addrs, trampolines);
    p.hooks = hooks;
    p.piece_start = start as u32;
    if hooks {
        let slotted = (start..end).filter(|&i| super::plan::takes_slot(&ops[i].kind));
        p.slots = slotted.zip(0..).map(|(i, j)| (i as u32, j)).collect();
    }
    if trace {
        p.trace = Some(p.load_env(I64, offsets::TRACE));
    }
    let head = p.b.create_block();
    let body = p.b.create_block();
    p.next_lane = p.b.create_block();
    let exit = p.b.create_block();
    let remaining = p.b.declare_var(I32);
    p.b.def_var(remaining, p.mask);
    if let Some(trace) = p.trace {
        // Every lane of the call executes an unguarded traced op (a fault
        // ends the launch): its trace mask is the call's, stored once here
        // rather than lane by lane (`PieceBuilder::record`).
        let traced = ops[start..end]
            .iter()
            .filter(|o| super::plan::is_traced(&o.kind));
        for (slot, op) in traced.enumerate() {
            if op.guard.is_none() {
                let at = offsets::TRACE_MASKS + (slot * 4) as i32;
                p.b.ins().store(p.trusted, p.mask, trace, at);
            }
        }
    }
    for (i, op) in ops.iter().enumerate().take(end).skip(start) {
        // (A checked build defers the hook of every lane's access.)
        if super::mem::inline_global_atomic(op) && !hooks {
            let var = p.b.declare_var(I64);
            let none = p.b.ins().iconst(I64, 0);
            p.b.def_var(var, none);
            p.checked_atomic.insert(i as u32, var);
        }
    }
    p.b.ins().jump(head, &[]);

    p.b.switch_to_block(head);
    let m = p.b.use_var(remaining);
    p.b.ins().brif(m, body, &[], exit, &[]);

    p.b.switch_to_block(body);
    let lane_regs = p.begin_lane(remaining);

    // Registers read before they are (unconditionally) written are loaded
    // just before the first op that needs them (ops are emitted in straight
    // line, so that point dominates every later use).
    let (loads, stores) = register_sets(ops, start, end);
    let flags = p.trusted;
    for &r in &stores {
        p.var(r);
    }
    // A register live after the piece is stored right after its last
    // write, so that its value need not stay in a host register (or a
    // spill slot) to the end of the lane.
    let mut last_write: Vec<(Reg, usize)> = Vec::new();
    for (i, op) in ops.iter().enumerate().take(end).skip(start) {
        for &d in op.dsts.iter().filter(|d| live_after.contains(**d)) {
            match last_write.iter_mut().find(|(r, _)| *r == d) {
                Some(w) => w.1 = i,
                None => last_write.push((d, i)),
            }
        }
    }
    for (i, op) in ops.iter().enumerate().take(end).skip(start) {
        for (r, _) in loads.iter().filter(|(_, first)| *first == i) {
            let v =
                p.b.ins()
                    .load(I64, flags, lane_regs, reg_offset(p.func, *r));
            let var = p.var(*r);
            p.b.def_var(var, v);
        }
        p.clock_offset += op.cost as u64;
        p.emit_guarded(op, i as u32);
        for &(r, _) in last_write.iter().filter(|(_, at)| *at == i) {
            let v = p.b.use_var(p.vars[&r]);
            p.b.ins().store(flags, v, lane_regs, reg_offset(p.func, r));
        }
    }
    p.b.ins().jump(p.next_lane, &[]);
    p.emit_next_lane(remaining, head);

    p.b.switch_to_block(exit);
    if hooks {
        // The deferred hooks, in the interpreter's order, up to a fault.
        p.call_replay(start as u32, p.slots.len() as u32);
    }
    let fault_op = p.load_env(I32, offsets::FAULT_OP);
    let none = p.b.ins().icmp_imm_s(IntCC::NotEqual, fault_op, -1);
    let status = p.b.ins().uextend(I32, none);
    p.b.ins().return_(&[status]);
    p.b.seal_all_blocks();
    let uses_local = p.uses_local;
    p.b.finalize(frontend);
    uses_local
}

/// The offset of register `r` (lane 0) in the register file of `f`.
pub(super) fn reg_offset(f: &Function, r: Reg) -> i32 {
    (f.slots.slot(r) * 32 * 8) as i32
}

/// Registers to load (with the op that first needs them) and registers written.
fn register_sets(ops: &[Op], start: usize, end: usize) -> (Vec<(Reg, usize)>, Vec<Reg>) {
    let mut defined: Vec<Reg> = Vec::new();
    let mut loads: Vec<(Reg, usize)> = Vec::new();
    let mut stores: Vec<Reg> = Vec::new();
    let need = |r: Reg, at: usize, defined: &Vec<Reg>, loads: &mut Vec<(Reg, usize)>| {
        if !defined.contains(&r) && !loads.iter().any(|l| l.0 == r) {
            loads.push((r, at));
        }
    };
    for (i, op) in ops.iter().enumerate().take(end).skip(start) {
        if let Some(g) = op.guard {
            need(g.reg, i, &defined, &mut loads);
        }
        for s in &op.srcs {
            if let Src::Reg(r) = s {
                need(*r, i, &defined, &mut loads);
            }
        }
        for &d in &op.dsts {
            if op.guard.is_some() {
                // The old value survives in lanes the guard turns off.
                need(d, i, &defined, &mut loads);
            }
            if !defined.contains(&d) {
                defined.push(d);
            }
            if !stores.contains(&d) {
                stores.push(d);
            }
        }
    }
    (loads, stores)
}

impl PieceBuilder<'_, '_> {
    pub fn var(&mut self, r: Reg) -> Variable {
        if let Some(&v) = self.vars.get(&r) {
            return v;
        }
        let v = self.b.declare_var(I64);
        self.vars.insert(r, v);
        v
    }

    pub fn load_env(&mut self, ty: Type, offset: i32) -> Value {
        self.b.ins().load(ty, self.trusted, self.env, offset)
    }

    /// The value of a source operand (as a u64).
    pub fn src(&mut self, s: &Src) -> Value {
        match *s {
            Src::Reg(r) => {
                let v = self.var(r);
                self.b.use_var(v)
            }
            Src::Imm(v) => self.b.ins().iconst(I64, v as i64),
            Src::Global(g, off) => {
                let a = self.global_addrs[g.index()].wrapping_add(off as u64);
                self.b.ins().iconst(I64, a as i64)
            }
            Src::Func(f) => self
                .b
                .ins()
                .iconst(I64, (FUNC_BASE + 16 * f.index() as u64) as i64),
            Src::FrameAddr(off) => self.b.ins().iadd_imm_s(self.frame_base, off as i64),
        }
    }

    /// Writes `v` to `r`, masked to the register's width.
    pub fn write(&mut self, r: Reg, v: Value) {
        let ty = self.func.regs[r].ty;
        let v = if ty.bits() < 64 {
            self.b.ins().band_imm_s(v, ty.mask() as i64)
        } else {
            v
        };
        let var = self.var(r);
        self.b.def_var(var, v);
        self.f32_results.remove(&r);
    }

    /// The raw f32 result recorded for `s` (see `f32_results`), if any.
    pub fn f32_result_of(&self, s: &Src) -> Option<Value> {
        match s {
            Src::Reg(r) => self.f32_results.get(r).copied(),
            _ => None,
        }
    }

    /// Records `r` as the raw f32 result of the op being emitted.
    pub fn set_f32_result(&mut self, r: Value) {
        self.pending_f32 = Some(r);
    }

    /// Forgets every recorded f32 result: emission moves to a block that
    /// the blocks they were computed in need not dominate.
    pub fn forget_f32_results(&mut self) {
        self.f32_results.clear();
    }

    pub fn emit_guarded(&mut self, op: &Op, index: u32) {
        let Some(g) = op.guard else {
            self.emit_op(op, index);
            return;
        };
        let p = self.src(&Src::Reg(g.reg));
        let bit = self.b.ins().band_imm_s(p, 1);
        let run = self.b.create_block();
        let after = self.b.create_block();
        if g.negated {
            self.b.ins().brif(bit, after, &[], run, &[]);
        } else {
            self.b.ins().brif(bit, run, &[], after, &[]);
        }
        self.b.switch_to_block(run);
        self.emit_op(op, index);
        self.b.ins().jump(after, &[]);
        self.b.switch_to_block(after);
        // The guarded op's results were computed in `run`, which does not
        // dominate `after`.
        for d in &op.dsts {
            self.f32_results.remove(d);
        }
    }

    fn emit_op(&mut self, op: &Op, index: u32) {
        match &op.kind {
            OpKind::Nop => {}
            OpKind::Activemask => {
                let m = self.b.ins().uextend(I64, self.mask);
                self.write(op.dsts[0], m);
            }
            OpKind::ReadSpecial(s) => {
                let v = self.special(*s);
                self.write(op.dsts[0], v);
            }
            OpKind::Ld {
                space, ty, offset, ..
            } => self.load(op, index, *space, *ty, *offset),
            OpKind::St { space, ty, offset } => self.store(op, index, *space, *ty, *offset),
            OpKind::Atom {
                space, ty, offset, ..
            } => self.atomic(op, index, *space, *ty, *offset),
            _ => {
                let srcs: Vec<Value> = op.srcs.iter().map(|s| self.src(s)).collect();
                self.pending_f32 = None;
                let results = match self.inline_pure(op, &srcs) {
                    Some(r) => r,
                    None => {
                        if std::env::var_os("WARPJIT_JIT_FALLBACKS").is_some() {
                            eprintln!("jit fallback: {:?}", op.kind);
                        }
                        self.call_pure(op, &srcs)
                    }
                };
                for (d, v) in op.dsts.iter().zip(results) {
                    self.write(*d, v);
                }
                if let (Some(r), [d]) = (self.pending_f32.take(), op.dsts.as_slice()) {
                    self.f32_results.insert(*d, r);
                }
            }
        }
    }

    /// Calls [`helpers::jit_pure3`] (one destination, at most three
    /// sources, passed in registers) or else [`helpers::jit_pure`] for one
    /// lane.
    pub fn call_pure(&mut self, op: &Op, srcs: &[Value]) -> Vec<Value> {
        if op.dsts.len() == 1 && srcs.len() <= 3 {
            let sig = *self.pure3_sig.get_or_insert_with(|| {
                let mut s = Signature::new(cranelift_codegen::isa::CallConv::SystemV);
                s.params = vec![AbiParam::new(I64); 4];
                s.returns = vec![AbiParam::new(I64)];
                self.b.import_signature(s)
            });
            let op_ptr = self.b.ins().iconst(I64, op as *const Op as i64);
            let mut args = vec![op_ptr];
            for k in 0..3 {
                let v = match srcs.get(k) {
                    Some(&v) => v,
                    None => self.b.ins().iconst(I64, 0),
                };
                args.push(v);
            }
            let f = self
                .b
                .ins()
                .iconst(I64, helpers::jit_pure3 as *const () as i64);
            let call = self.b.ins().call_indirect(sig, f, &args);
            return vec![self.b.inst_results(call)[0]];
        }
        self.call_pure_through_slots(op, srcs, false)
    }

    /// Calls `f`, an `extern "C" fn(f64) -> f64`, on `x`.
    pub fn call_f64_fn(&mut self, f: extern "C" fn(f64) -> f64, x: Value) -> Value {
        self.call_unary(f as *const (), types::F64, x)
    }

    /// Calls `f`, an `extern "C" fn(u64) -> u64`, on `x` (an I64).
    pub fn call_u64_fn(&mut self, f: extern "C" fn(u64) -> u64, x: Value) -> Value {
        self.call_unary(f as *const (), I64, x)
    }

    /// Calls the System V function at `f` taking and returning one `ty`
    /// (F64 or I64), on `x`.
    fn call_unary(&mut self, f: *const (), ty: types::Type, x: Value) -> Value {
        let slot = if ty == types::F64 {
            &mut self.f64_fn_sig
        } else {
            &mut self.u64_fn_sig
        };
        let sig = *slot.get_or_insert_with(|| {
            let mut s = Signature::new(cranelift_codegen::isa::CallConv::SystemV);
            s.params = vec![AbiParam::new(ty)];
            s.returns = vec![AbiParam::new(ty)];
            self.b.import_signature(s)
        });
        let f = self.b.ins().iconst(I64, f as i64);
        let call = self.b.ins().call_indirect(sig, f, &[x]);
        self.b.inst_results(call)[0]
    }

    /// As `call_pure`, from a block that rarely runs (a NaN result's
    /// slow path): through the `preserve_all` trampoline, so that the call
    /// clobbers no register of the hot path.
    pub fn call_pure_cold(&mut self, op: &Op, srcs: &[Value]) -> Vec<Value> {
        self.call_pure_through_slots(op, srcs, true)
    }

    /// Calls [`helpers::jit_pure`] (`cold`: through its trampoline) with
    /// the operands and results in a stack slot.
    fn call_pure_through_slots(&mut self, op: &Op, srcs: &[Value], cold: bool) -> Vec<Value> {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (2 * MAX_OPERANDS * 8) as u32,
            3,
        ));
        for (k, v) in srcs.iter().enumerate().take(MAX_OPERANDS) {
            self.b.ins().stack_store(I64, *v, slot, (k * 8) as i32);
        }
        let srcs_ptr = self.b.ins().stack_addr(I64, slot, 0);
        let out_ptr = self
            .b
            .ins()
            .stack_addr(I64, slot, (MAX_OPERANDS * 8) as i32);
        let op_ptr = self.b.ins().iconst(I64, op as *const Op as i64);
        if cold {
            let sig = *self.pure_cold_sig.get_or_insert_with(|| {
                self.b
                    .import_signature(trampoline::signature(&trampoline::PURE))
            });
            let f = self.b.ins().iconst(I64, self.trampolines.pure);
            self.b
                .ins()
                .call_indirect(sig, f, &[op_ptr, srcs_ptr, out_ptr]);
        } else {
            let sig = *self.ptr_sig.get_or_insert_with(|| {
                let mut s = Signature::new(cranelift_codegen::isa::CallConv::SystemV);
                s.params = vec![AbiParam::new(I64); 3];
                self.b.import_signature(s)
            });
            let f = self
                .b
                .ins()
                .iconst(I64, helpers::jit_pure as *const () as i64);
            self.b
                .ins()
                .call_indirect(sig, f, &[op_ptr, srcs_ptr, out_ptr]);
        }
        (0..op.dsts.len())
            .map(|k| {
                self.b
                    .ins()
                    .stack_load(I64, I64, slot, ((MAX_OPERANDS + k) * 8) as i32)
            })
            .collect()
    }

    /// Calls [`helpers::jit_atom`]; returns (status i32, old value i64).
    pub fn call_atom(&mut self, op: &Op, addr: Value, b: Value, c: Value) -> (Value, Value) {
        let f = helpers::jit_atom as *const ();
        let (status, slot) = self.call_atom_with(f, op, addr, b, c, 1);
        (status, self.b.ins().stack_load(I64, I64, slot, 0))
    }

    /// Calls the atomic helper `f` (the signature of [`helpers::jit_atom`])
    /// with an output slot of `outs` values; returns the status (i32) and
    /// the slot, which holds the old values at 8-byte steps.
    pub fn call_atom_with(
        &mut self,
        f: *const (),
        op: &Op,
        addr: Value,
        b: Value,
        c: Value,
        outs: u32,
    ) -> (Value, StackSlot) {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            8 * outs,
            3,
        ));
        let out = self.b.ins().stack_addr(I64, slot, 0);
        let mut s = Signature::new(cranelift_codegen::isa::CallConv::SystemV);
        s.params = vec![
            AbiParam::new(I64),
            AbiParam::new(I64),
            AbiParam::new(I32),
            AbiParam::new(I64),
            AbiParam::new(I64),
            AbiParam::new(I64),
            AbiParam::new(I64),
        ];
        s.returns = vec![AbiParam::new(I32)];
        let sig = self.b.import_signature(s);
        let f = self.b.ins().iconst(I64, f as i64);
        let op_ptr = self.b.ins().iconst(I64, op as *const Op as i64);
        let lane = self.b.ins().ireduce(I32, self.lane);
        let call = self
            .b
            .ins()
            .call_indirect(sig, f, &[self.env, op_ptr, lane, addr, b, c, out]);
        (self.b.inst_results(call)[0], slot)
    }

    /// Calls [`helpers::jit_region_more`] for a region's lane that took
    /// `steps` (i64); returns its new cap (0: stop).
    pub fn call_region_more(&mut self, steps: Value) -> Value {
        let mut s = Signature::new(cranelift_codegen::isa::CallConv::SystemV);
        s.params = vec![AbiParam::new(I64), AbiParam::new(I64)];
        s.returns = vec![AbiParam::new(I64)];
        let sig = self.b.import_signature(s);
        let f = self
            .b
            .ins()
            .iconst(I64, helpers::jit_region_more as *const () as i64);
        let call = self.b.ins().call_indirect(sig, f, &[self.env, steps]);
        self.b.inst_results(call)[0]
    }

    /// Calls [`helpers::jit_global_check`] through its trampoline; returns
    /// its status (i32).
    pub fn call_global_check(&mut self, addr: Value, size: u64) -> Value {
        let slot =
            self.b
                .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 4, 2));
        let out = self.b.ins().stack_addr(I64, slot, 0);
        let sig = *self.miss_sig.get_or_insert_with(|| {
            self.b
                .import_signature(trampoline::signature(&trampoline::GLOBAL_CHECK))
        });
        let f = self.b.ins().iconst(I64, self.trampolines.global_check);
        let size = self.b.ins().iconst(I64, size as i64);
        self.b
            .ins()
            .call_indirect(sig, f, &[self.env, addr, size, out]);
        self.b.ins().stack_load(I64, I32, slot, 0)
    }

    /// Emits a jump to a new block that records a fault of this lane at op
    /// `index` and goes on with the next lane. `kind` is an i32 value.
    pub fn fault(&mut self, index: u32, kind: Value, space: u32, addr: Value, size: u64) {
        if let Some(abort) = self.abort {
            self.b.ins().jump(abort, &[]);
            return;
        }
        let sig = *self.fault_sig.get_or_insert_with(|| {
            self.b
                .import_signature(trampoline::signature(&trampoline::FAULT))
        });
        let f = self.b.ins().iconst(I64, self.trampolines.fault);
        let op = self.b.ins().iconst(I32, index as i64);
        let lane = self.b.ins().ireduce(I32, self.lane);
        let space = self.b.ins().iconst(I32, space as i64);
        let size = self.b.ins().iconst(I64, size as i64);
        self.b
            .ins()
            .call_indirect(sig, f, &[self.env, op, lane, kind, space, addr, size]);
        self.b.ins().jump(self.next_lane, &[]);
    }
}
