//! Loads and stores in compiled pieces, with the interpreter's checks.
//!
//! Every access is turned into a host pointer only after the same checks
//! the interpreter's `interp::lanes` makes, in the same order, so compiled code can never touch
//! host memory outside the arena, the CTA's shared memory, the lane's local
//! memory or the parameter buffer:
//! - global and constant: the whole access inside one live allocation, then
//!   natural alignment: inline through the arena's granule table for an
//!   aligned access inside one 256-byte granule, otherwise by calling
//!   `GlobalMemory::check` itself (`helpers::jit_global_check`);
//! - shared and local: alignment, then `offset + size <= length`;
//! - kernel parameters: `offset + size <= length`;
//! - generic: decoded by window, then as the space it falls in.
//!
//! A failed check records the fault and moves on to the next lane. An
//! inline global atomic skips the checks for the last address that passed
//! them in the same call (allocations cannot change while a piece runs);
//! "none yet" is the address 0, which can never pass them (allocations
//! start at `GLOBAL_BASE`), and is never taken for a checked address.

use cranelift_codegen::ir::{
    condcodes::IntCC, AtomicRmwOp, Block, InstBuilder, StackSlotData, StackSlotKind, Value,
};
use cranelift_frontend::{FunctionBuilder, Variable};

use super::emit::{PieceBuilder, I16, I32, I64};

use crate::engine::abi::{self, offsets};
use crate::engine::pure::extend_is_signed;
use crate::ir::{AtomOp, Op, OpKind, Space, Ty};
use crate::sanitizer::deferred;

/// Whether `op` is an atomic on global memory that `atomic` performs
/// inline (after the checks `checked` makes).
pub(super) fn inline_global_atomic(op: &Op) -> bool {
    match op.kind {
        OpKind::Atom {
            op: aop,
            space,
            ty,
            vec,
            ..
        } => space == Space::Global && vec <= 1 && inline_rmw(aop, ty).is_some(),
        _ => false,
    }
}

/// Whether `atomic` performs `op` inline (else through a helper, which a
/// checked build cannot hook: such atomics are interpreted there).
pub(super) fn inline_atomic(op: &Op) -> bool {
    match op.kind {
        OpKind::Atom {
            op: aop,
            space,
            ty,
            vec,
            ..
        } => {
            matches!(
                space,
                Space::Global | Space::Shared | Space::Local | Space::FrameParam | Space::Generic
            ) && vec <= 1
                && inline_rmw(aop, ty).is_some()
        }
        _ => true,
    }
}

fn aop_of(op: &Op) -> AtomOp {
    match op.kind {
        OpKind::Atom { op, .. } => op,
        _ => unreachable!("atomic() emits atomics only"),
    }
}

/// The value `rmw` (or, for `None`, a compare-and-swap of `b` for `c`)
/// leaves in memory that held `old`, as the host atomic would.
fn plain_rmw(
    b: &mut FunctionBuilder,
    rmw: Option<AtomicRmwOp>,
    old: Value,
    x: Value,
    c: Value,
) -> Value {
    let ins = b.ins();
    match rmw {
        Some(AtomicRmwOp::Add) => ins.iadd(old, x),
        Some(AtomicRmwOp::Smin) => ins.smin(old, x),
        Some(AtomicRmwOp::Umin) => ins.umin(old, x),
        Some(AtomicRmwOp::Smax) => ins.smax(old, x),
        Some(AtomicRmwOp::Umax) => ins.umax(old, x),
        Some(AtomicRmwOp::And) => ins.band(old, x),
        Some(AtomicRmwOp::Or) => ins.bor(old, x),
        Some(AtomicRmwOp::Xor) => ins.bxor(old, x),
        Some(AtomicRmwOp::Xchg) => x,
        Some(other) => unreachable!("inline_rmw never chooses {other:?}"),
        None => {
            let same = ins.icmp(IntCC::Equal, old, x);
            b.ins().select(same, c, old)
        }
    }
}

/// The host atomic that performs `aop` on `ty` exactly as
/// `sem::int::atom_int` defines it: `Some(Some(rmw))`, `Some(None)` for a
/// compare-and-swap, `None` when it takes more than one instruction.
fn inline_rmw(aop: AtomOp, ty: Ty) -> Option<Option<AtomicRmwOp>> {
    let bitwise = matches!(aop, AtomOp::Exch | AtomOp::Cas);
    if (ty.is_float() && !bitwise) || !matches!(ty.bytes(), 2 | 4 | 8) {
        return None;
    }
    let signed = ty.is_signed();
    Some(Some(match aop {
        AtomOp::Add => AtomicRmwOp::Add,
        AtomOp::Min if signed => AtomicRmwOp::Smin,
        AtomOp::Min => AtomicRmwOp::Umin,
        AtomOp::Max if signed => AtomicRmwOp::Smax,
        AtomOp::Max => AtomicRmwOp::Umax,
        AtomOp::And => AtomicRmwOp::And,
        AtomOp::Or => AtomicRmwOp::Or,
        AtomOp::Xor => AtomicRmwOp::Xor,
        AtomOp::Exch => AtomicRmwOp::Xchg,
        AtomOp::Cas => return Some(None),
        AtomOp::Inc | AtomOp::Dec => return None,
    }))
}
use crate::runtime::memory::{
    GLOBAL_BASE, GRANULE, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE,
};

fn space_code(space: Space) -> u32 {
    match space {
        Space::Global => abi::SPACE_GLOBAL,
        Space::Shared => abi::SPACE_SHARED,
        Space::Local => abi::SPACE_LOCAL,
        Space::Const => abi::SPACE_CONST,
        Space::KernelParam | Space::FrameParam => abi::SPACE_PARAM,
        Space::Generic => abi::SPACE_GENERIC,
    }
}

/// The memory an access resolves to.
#[derive(Clone, Copy)]
enum Region {
    Global,
    Shared,
    Local,
    /// The frame's `.param` bytes in local memory (not hooked).
    Frame,
    Param,
}

impl PieceBuilder<'_, '_> {
    pub fn load(&mut self, op: &Op, index: u32, space: Space, ty: Ty, offset: i64) {
        let size = ty.bytes() as u64;
        let n = op.dsts.len() as u64;
        let addr = self.src(&op.srcs[0]);
        let addr = self.b.ins().iadd_imm_s(addr, offset);
        self.record(op, addr);
        self.hook = self.hooks.then_some((deferred::KIND_READ, op as *const Op));
        let ptr = self.access(index, space, addr, size * n, false);
        self.hook = None;
        let flags = self.trusted;
        for (k, &d) in op.dsts.iter().enumerate() {
            let at = (k as u64 * size) as i32;
            let signed = extend_is_signed(ty);
            let v = match (size, signed) {
                (1, false) => self.b.ins().uload8(I64, flags, ptr, at),
                (1, true) => self.b.ins().sload8(I64, flags, ptr, at),
                (2, false) => self.b.ins().uload16(I64, flags, ptr, at),
                (2, true) => self.b.ins().sload16(I64, flags, ptr, at),
                (4, false) => self.b.ins().uload32(flags, ptr, at),
                (4, true) => self.b.ins().sload32(flags, ptr, at),
                _ => self.b.ins().load(I64, flags, ptr, at),
            };
            self.write(d, v);
        }
    }

    pub fn store(&mut self, op: &Op, index: u32, space: Space, ty: Ty, offset: i64) {
        let size = ty.bytes() as u64;
        let n = op.srcs.len() as u64 - 1;
        let addr = self.src(&op.srcs[0]);
        let addr = self.b.ins().iadd_imm_s(addr, offset);
        self.record(op, addr);
        let values: Vec<Value> = op.srcs[1..].iter().map(|s| self.src(s)).collect();
        self.hook = self
            .hooks
            .then_some((deferred::KIND_WRITE, op as *const Op));
        let ptr = self.access(index, space, addr, size * n, true);
        self.hook = None;
        let flags = self.trusted;
        for (k, v) in values.into_iter().enumerate() {
            let at = (k as u64 * size) as i32;
            match size {
                1 => self.b.ins().istore8(flags, v, ptr, at),
                2 => self.b.ins().istore16(flags, v, ptr, at),
                4 => self.b.ins().istore32(flags, v, ptr, at),
                _ => self.b.ins().store(flags, v, ptr, at),
            };
        }
    }

    /// An atomic (`atom`, `red`) for this lane: the integer read-modify-writes
    /// that are one host atomic instruction inline, after the checks a load
    /// makes; the others (`inc`, `dec`, float arithmetic) through
    /// `helpers::jit_atom`.
    pub fn atomic(&mut self, op: &Op, index: u32, space: Space, ty: Ty, offset: i64) {
        if let OpKind::Atom { vec: 2.., .. } = op.kind {
            return self.atomic_vector(op, index, space, ty, offset);
        }
        let addr = self.src(&op.srcs[0]);
        let addr = self.b.ins().iadd_imm_s(addr, offset);
        self.record(op, addr);
        let b = self.src(&op.srcs[1]);
        let c = match op.srcs.get(2) {
            Some(s) => self.src(s),
            None => self.b.ins().iconst(I64, 0),
        };
        let inline_space = matches!(
            space,
            Space::Global | Space::Shared | Space::Local | Space::FrameParam | Space::Generic
        );
        if let (true, Some(rmw)) = (inline_space, inline_rmw(aop_of(op), ty)) {
            let size = ty.bytes() as u64;
            let what = match aop_of(op) {
                AtomOp::Exch => deferred::KIND_ATOMIC,
                _ => deferred::KIND_ATOMIC_READS,
            };
            self.hook = self.hooks.then_some((what, op as *const Op));
            let ptr = match self.checked_atomic.get(&index) {
                Some(&last) => self.global_again(index, addr, size, last),
                None => self.access(index, space, addr, size, true),
            };
            self.hook = None;
            let width = match size {
                2 => I16,
                4 => I32,
                _ => I64,
            };
            let narrow = |b: &mut FunctionBuilder, v: Value| {
                if width == I64 {
                    v
                } else {
                    b.ins().ireduce(width, v)
                }
            };
            let bv = narrow(&mut self.b, b);
            let flags = self.trusted;
            let old = if self.trace.is_some() {
                // A timing build: its launch runs one CTA at a time on one
                // thread, so a plain read-modify-write is atomic.
                let cv = narrow(&mut self.b, c);
                let old = self.b.ins().load(width, flags, ptr, 0);
                let new = plain_rmw(&mut self.b, rmw, old, bv, cv);
                self.b.ins().store(flags, new, ptr, 0);
                old
            } else {
                match rmw {
                    Some(rmw) => self.b.ins().atomic_rmw(width, flags, rmw, ptr, bv),
                    None => {
                        let cv = narrow(&mut self.b, c);
                        self.b.ins().atomic_cas(flags, ptr, bv, cv)
                    }
                }
            };
            let old = if width == I64 {
                old
            } else {
                self.b.ins().uextend(I64, old)
            };
            if let Some(&d) = op.dsts.first() {
                self.write(d, old);
            }
            return;
        }
        if matches!(space, Space::Local | Space::FrameParam | Space::Generic) {
            self.uses_local = true;
        }
        let (status, old) = self.call_atom(op, addr, b, c);
        let (bad, ok) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(bad);
        self.b.ins().brif(status, bad, &[], ok, &[]);
        self.b.switch_to_block(bad);
        let kind = self.b.ins().iadd_imm_s(status, -1);
        self.fault(index, kind, space_code(space), addr, ty.bytes() as u64);
        self.b.switch_to_block(ok);
        if let Some(&d) = op.dsts.first() {
            self.write(d, old);
        }
    }

    /// A vector atomic (`atom.global.v4.f32.add`...): its operands through
    /// a stack slot to `helpers::jit_atom_vec`, which checks the whole
    /// vector and updates each element atomically; the old values come
    /// back through another.
    fn atomic_vector(&mut self, op: &Op, index: u32, space: Space, ty: Ty, offset: i64) {
        let n = op.srcs.len() as u32 - 1;
        let addr = self.src(&op.srcs[0]);
        let addr = self.b.ins().iadd_imm_s(addr, offset);
        self.record(op, addr);
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            8 * n,
            3,
        ));
        for (k, s) in op.srcs[1..].iter().enumerate() {
            let v = self.src(s);
            self.b.ins().stack_store(I64, v, slot, 8 * k as i32);
        }
        let bs = self.b.ins().stack_addr(I64, slot, 0);
        let zero = self.b.ins().iconst(I64, 0);
        if matches!(space, Space::Local | Space::FrameParam | Space::Generic) {
            self.uses_local = true;
        }
        let f = super::helpers::jit_atom_vec as *const ();
        let (status, outs) = self.call_atom_with(f, op, addr, bs, zero, n);
        let (bad, ok) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(bad);
        self.b.ins().brif(status, bad, &[], ok, &[]);
        self.b.switch_to_block(bad);
        let kind = self.b.ins().iadd_imm_s(status, -1);
        let size = ty.bytes() as u64 * u64::from(n);
        self.fault(index, kind, space_code(space), addr, size);
        self.b.switch_to_block(ok);
        for (k, &d) in op.dsts.iter().enumerate() {
            let old = self.b.ins().stack_load(I64, I64, outs, 8 * k as i32);
            self.write(d, old);
        }
    }

    /// A global access by the op whose last address to pass its checks in
    /// this call is the variable `last` (0 before any has): that address
    /// again skips them. Address 0 itself is checked like any other: it
    /// never passes, so "the same as none yet" must not count as checked.
    fn global_again(&mut self, index: u32, addr: Value, size: u64, last: Variable) -> Value {
        let (check, ok) = (self.b.create_block(), self.b.create_block());
        let prev = self.b.use_var(last);
        let equal = self.b.ins().icmp(IntCC::Equal, addr, prev);
        let some = self.b.ins().icmp_imm_u(IntCC::NotEqual, prev, 0);
        let same = self.b.ins().band(equal, some);
        self.b.ins().brif(same, ok, &[], check, &[]);
        self.b.switch_to_block(check);
        self.checked(Region::Global, index, abi::SPACE_GLOBAL, addr, addr, size);
        self.b.def_var(last, addr);
        self.b.ins().jump(ok, &[]);
        self.b.switch_to_block(ok);
        let a_off = self
            .b
            .ins()
            .iadd_imm_s(addr, GLOBAL_BASE.wrapping_neg() as i64);
        self.b.ins().iadd(self.arena, a_off)
    }

    /// Timing pieces: records this lane's address of a traced access in
    /// its trace slot and, for a guarded op, marks the lane (before any
    /// check, as the interpreter's driver reads it; an unguarded op's mask
    /// is the call's, stored before the lane loop by `emit_piece`).
    fn record(&mut self, op: &Op, addr: Value) {
        let Some(trace) = self.trace else {
            return;
        };
        if !super::plan::is_traced(&op.kind) {
            return;
        }
        let slot = self.trace_slot;
        self.trace_slot += 1;
        let flags = self.trusted;
        let lane8 = self.b.ins().ishl_imm_s(self.lane, 3);
        let at = self.b.ins().iadd(trace, lane8);
        let row = offsets::TRACE_ADDRS + (slot * 32 * 8) as i32;
        self.b.ins().store(flags, addr, at, row);
        if op.guard.is_none() {
            return;
        }
        let mask_at = offsets::TRACE_MASKS + (slot * 4) as i32;
        let lanes = self.b.ins().load(I32, flags, trace, mask_at);
        let lane32 = self.b.ins().ireduce(I32, self.lane);
        let one = self.b.ins().iconst(I32, 1);
        let bit = self.b.ins().ishl(one, lane32);
        let lanes = self.b.ins().bor(lanes, bit);
        self.b.ins().store(flags, lanes, trace, mask_at);
    }

    /// Checks an access of `size` bytes at `addr` in `space` (`write`: it
    /// stores); returns the host pointer (faulting lanes leave through
    /// `fault`).
    fn access(&mut self, index: u32, space: Space, addr: Value, size: u64, write: bool) -> Value {
        let code = space_code(space);
        let region = match space {
            Space::Global | Space::Const => Region::Global,
            Space::Shared => Region::Shared,
            Space::Local => Region::Local,
            Space::KernelParam => Region::Param,
            Space::FrameParam => {
                let off = self.b.ins().iadd(self.frame_base, addr);
                return self.checked(Region::Frame, index, code, addr, off, size);
            }
            Space::Generic => return self.generic(index, addr, size, write),
        };
        self.checked(region, index, code, addr, addr, size)
    }

    /// A generic address: shared, local or kernel-parameter window (the
    /// last read-only: a write there faults as out of bounds), else global.
    fn generic(&mut self, index: u32, addr: Value, size: u64, write: bool) -> Value {
        let code = abi::SPACE_GENERIC;
        let done = self.b.create_block();
        self.b.append_block_param(done, I64);
        let (shared, not_shared, local, not_local, param, global) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let s_off = self
            .b
            .ins()
            .iadd_imm_s(addr, SHARED_WINDOW.wrapping_neg() as i64);
        let in_s = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, s_off, WINDOW_SIZE as i64);
        self.b.ins().brif(in_s, shared, &[], not_shared, &[]);
        self.b.switch_to_block(not_shared);
        let l_off = self
            .b
            .ins()
            .iadd_imm_s(addr, LOCAL_WINDOW.wrapping_neg() as i64);
        let in_l = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, l_off, WINDOW_SIZE as i64);
        self.b.ins().brif(in_l, local, &[], not_local, &[]);
        self.b.switch_to_block(not_local);
        let p_off = self
            .b
            .ins()
            .iadd_imm_s(addr, PARAM_WINDOW.wrapping_neg() as i64);
        let in_p = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, p_off, WINDOW_SIZE as i64);
        self.b.ins().brif(in_p, param, &[], global, &[]);
        for (block, region, off) in [
            (shared, Region::Shared, s_off),
            (local, Region::Local, l_off),
            (param, Region::Param, p_off),
            (global, Region::Global, addr),
        ] {
            self.b.switch_to_block(block);
            let p = match (region, write) {
                (Region::Param, true) => {
                    // Read-only: every write is out of bounds.
                    let ok = self.b.create_block();
                    let none = self.b.ins().iconst(I64, 0);
                    self.bounds_exit(p_off, none, size, ok, index, code, addr);
                    self.b.ins().iconst(I64, 0)
                }
                _ => self.checked(region, index, code, addr, off, size),
            };
            self.b.ins().jump(done, &[p.into()]);
        }
        self.b.switch_to_block(done);
        self.b.block_params(done)[0]
    }

    /// The checks of one region. `addr` is what a fault reports, `off` the
    /// address within the region (the device address for global memory).
    fn checked(
        &mut self,
        region: Region,
        index: u32,
        code: u32,
        addr: Value,
        off: Value,
        size: u64,
    ) -> Value {
        let ok = self.b.create_block();
        let flags = self.trusted;
        match region {
            Region::Global => {
                // Fast path: aligned, inside the arena, and inside the live
                // prefix of its granule; anything else asks `check`. The
                // index is clamped onto the table's zero sentinel, and a
                // misalignment adds 512 to the end offset (more than any
                // entry), so one comparison decides.
                let a_off = self
                    .b
                    .ins()
                    .iadd_imm_s(off, GLOBAL_BASE.wrapping_neg() as i64);
                let g = self
                    .b
                    .ins()
                    .ushr_imm_s(a_off, GRANULE.trailing_zeros() as i64);
                let g = self.b.ins().umin(g, self.granule_count);
                let (slow, bad) = (self.b.create_block(), self.b.create_block());
                self.b.set_cold_block(slow);
                self.b.set_cold_block(bad);
                let g2 = self.b.ins().ishl_imm_s(g, 1);
                let entry = self.b.ins().iadd(self.granules, g2);
                let valid = self.b.ins().uload16(I64, flags, entry, 0);
                let within = self.b.ins().band_imm_s(a_off, (GRANULE - 1) as i64);
                let end = self.b.ins().iadd_imm_s(within, size as i64);
                let misaligned = self
                    .b
                    .ins()
                    .band_imm_s(a_off, (size.clamp(1, 32) - 1) as i64);
                let penalty = self.b.ins().ishl_imm_s(misaligned, 9);
                let end = self.b.ins().bor(end, penalty);
                let good = self
                    .b
                    .ins()
                    .icmp(IntCC::UnsignedLessThanOrEqual, end, valid);
                self.b.ins().brif(good, ok, &[], slow, &[]);
                self.b.switch_to_block(slow);
                let status = self.call_global_check(off, size);
                self.b.ins().brif(status, bad, &[], ok, &[]);
                self.b.switch_to_block(bad);
                let kind = self.b.ins().iadd_imm_s(status, -1);
                self.fault(index, kind, code, addr, size);
                self.b.switch_to_block(ok);
                self.call_check(index, a_off, size, 0);
                self.b.ins().iadd(self.arena, a_off)
            }
            Region::Shared | Region::Local | Region::Frame => {
                let align = size.clamp(1, 32);
                let misaligned = self.b.ins().band_imm_s(off, (align - 1) as i64);
                let aligned = self.b.create_block();
                self.misaligned_exit(misaligned, aligned, index, code, addr, size);
                self.b.switch_to_block(aligned);
                let (base, len) = if let Region::Shared = region {
                    (self.shared, self.shared_len)
                } else {
                    self.uses_local = true;
                    let lane8 = self.b.ins().ishl_imm_s(self.lane, 3);
                    let at = self.b.ins().iadd(self.env, lane8);
                    (
                        self.b.ins().load(I64, flags, at, offsets::LOCAL_PTRS),
                        self.b.ins().load(I64, flags, at, offsets::LOCAL_LENS),
                    )
                };
                self.bounds_exit(off, len, size, ok, index, code, addr);
                match region {
                    Region::Shared => self.call_check(index, off, size, deferred::KIND_SHARED),
                    Region::Local => self.call_check(index, off, size, deferred::KIND_LOCAL),
                    _ => {}
                }
                let p = self.b.ins().iadd(base, off);
                p
            }
            Region::Param => {
                let (base, len) = (self.params, self.params_len);
                self.bounds_exit(off, len, size, ok, index, code, addr);
                let p = self.b.ins().iadd(base, off);
                p
            }
        }
    }

    /// Branches to a misalignment fault when `misaligned != 0`, else to `next`.
    fn misaligned_exit(
        &mut self,
        misaligned: Value,
        next: Block,
        index: u32,
        code: u32,
        addr: Value,
        size: u64,
    ) {
        let bad = self.b.create_block();
        self.b.set_cold_block(bad);
        self.b.ins().brif(misaligned, bad, &[], next, &[]);
        self.b.switch_to_block(bad);
        let kind = self.b.ins().iconst(I32, abi::FAULT_MISALIGNED as i64);
        self.fault(index, kind, code, addr, size);
        self.b.switch_to_block(next);
    }

    /// Continues in `next` when `off + size <= len` (no overflow), else faults.
    #[allow(clippy::too_many_arguments)]
    fn bounds_exit(
        &mut self,
        off: Value,
        len: Value,
        size: u64,
        next: Block,
        index: u32,
        code: u32,
        addr: Value,
    ) {
        // off <= len - size, with len >= size.
        let room = self.b.ins().iadd_imm_s(len, -(size as i64));
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, off, room);
        let big = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, len, size as i64);
        let good = self.b.ins().band(fits, big);
        let bad = self.b.create_block();
        self.b.set_cold_block(bad);
        self.b.ins().brif(good, next, &[], bad, &[]);
        self.b.switch_to_block(bad);
        let kind = self.b.ins().iconst(I32, abi::FAULT_OUT_OF_BOUNDS as i64);
        self.fault(index, kind, code, addr, size);
        self.b.switch_to_block(next);
    }
}
