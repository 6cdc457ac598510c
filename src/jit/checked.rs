//! Checked builds' access records (`jit::compile_checked`): a checked
//! piece or region writes each access it makes, once its checks passed, to
//! the env's deferred log (`sanitizer::deferred::DeferredLog`, whose layout
//! is part of the ABI: [`Deferred`]'s offsets), and calls
//! [`helpers::jit_replay`] at its end, which passes them to the
//! sanitizer's hooks in the interpreter's order.

use cranelift_codegen::ir::{condcodes::IntCC, AbiParam, InstBuilder, Signature, Value};

use super::emit::{PieceBuilder, I32, I64};
use super::helpers;
use crate::engine::abi::offsets;
use crate::sanitizer::deferred::Deferred;

impl PieceBuilder<'_, '_> {
    /// Checked builds, while an access is emitted (`hook`), once its
    /// checks passed: appends this lane's access at `off` (arena offset, or
    /// the offset in the memory `space` names: 0, or `deferred::KIND_SHARED`
    /// or `deferred::KIND_LOCAL`) to the env's deferred log, with its step
    /// (`defer`), for [`helpers::jit_replay`] to pass to the sanitizer's
    /// hooks at the end of the call.
    pub fn call_check(&mut self, index: u32, off: Value, size: u64, space: u32) {
        let Some((kind, op)) = self.hook else {
            return;
        };
        let flags = self.trusted;
        let (at, step, path, next) = match self.defer {
            Some((step0, path)) => {
                // A region appends, or notes that the log is full.
                let step = self.b.ins().iadd_imm_s(step0, index as i64);
                let step = self.b.ins().ireduce(I32, step);
                let len = self.load_env(I32, offsets::SAN_LOG_LEN);
                let cap = self.load_env(I32, offsets::SAN_LOG_CAP);
                let room = self.b.ins().icmp(IntCC::UnsignedLessThan, len, cap);
                let (append, full, next) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.set_cold_block(full);
                self.b.ins().brif(room, append, &[], full, &[]);
                self.b.switch_to_block(full);
                let one = self.b.ins().iconst(I32, 1);
                self.b
                    .ins()
                    .store(flags, one, self.env, offsets::SAN_LOG_FULL);
                self.b.ins().jump(next, &[]);
                self.b.switch_to_block(append);
                let len1 = self.b.ins().iadd_imm_s(len, 1);
                self.b
                    .ins()
                    .store(flags, len1, self.env, offsets::SAN_LOG_LEN);
                let at = self.b.ins().uextend(I64, len);
                (at, step, path, Some(next))
            }
            None => {
                // A piece writes its op's slot and sets the lane's bit.
                let slot = self.slots[&index] as i64;
                let step = self.b.ins().iconst(I32, (index - self.piece_start) as i64);
                let path = self.b.ins().iconst(I64, 0);
                let masks = self.load_env(I64, offsets::SAN_MASKS);
                let m = self.b.ins().load(I32, flags, masks, (slot * 4) as i32);
                let one = self.b.ins().iconst(I32, 1);
                let lane = self.b.ins().ireduce(I32, self.lane);
                let bit = self.b.ins().ishl(one, lane);
                let m = self.b.ins().bor(m, bit);
                self.b.ins().store(flags, m, masks, (slot * 4) as i32);
                let at = self.b.ins().iadd_imm_s(self.lane, slot * 32);
                (at, step, path, None)
            }
        };
        let log = self.load_env(I64, offsets::SAN_LOG);
        let at = self
            .b
            .ins()
            .imul_imm_s(at, std::mem::size_of::<Deferred>() as i64);
        let at = self.b.ins().iadd(log, at);
        let op = self.b.ins().iconst(I64, op as i64);
        self.b.ins().store(flags, op, at, Deferred::OP);
        self.b.ins().store(flags, off, at, Deferred::OFF);
        self.b.ins().store(flags, path, at, Deferred::PATH);
        self.b.ins().store(flags, step, at, Deferred::STEP);
        let lane = self.b.ins().ireduce(I32, self.lane);
        let packed = self
            .b
            .ins()
            .bor_imm_s(lane, Deferred::pack(kind | space, size) as i64);
        self.b.ins().store(flags, packed, at, Deferred::PACKED);
        if let Some(next) = next {
            self.b.ins().jump(next, &[]);
            self.b.switch_to_block(next);
        }
    }

    /// Checked builds: calls [`helpers::jit_replay`] for a piece starting
    /// at op `start` with `slots` slots, or a region (`u32::MAX`); returns
    /// its status (i32).
    pub fn call_replay(&mut self, start: u32, slots: u32) -> Value {
        let mut s = Signature::new(cranelift_codegen::isa::CallConv::SystemV);
        s.params = vec![AbiParam::new(I64), AbiParam::new(I32), AbiParam::new(I32)];
        s.returns = vec![AbiParam::new(I32)];
        let sig = self.b.import_signature(s);
        let f = self
            .b
            .ins()
            .iconst(I64, helpers::jit_replay as *const () as i64);
        let start = self.b.ins().iconst(I32, start as i64);
        let slots = self.b.ins().iconst(I32, slots as i64);
        let call = self
            .b
            .ins()
            .call_indirect(sig, f, &[self.env, start, slots]);
        self.b.inst_results(call)[0]
    }
}
