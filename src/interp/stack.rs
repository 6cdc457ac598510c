//! The thread's stack (`alloca`, `stacksave`, `stackrestore`; PTX ISA 7.3):
//! each lane's stack pointer is [`Frame::top`](super::warp::Frame), a
//! local-space address (the lane's local memory is one byte array,
//! frames at increasing offsets). `alloca` takes the next `size` bytes at
//! the requested alignment above it and moves it up (the ISA's stack grows
//! down, but only the pointers' order would show it, and the ISA leaves
//! their values open); a call's frame starts above every lane's pointer, and
//! a return frees what the callee took. Every access is checked against
//! the lane's local memory as any other local access, and a stack that
//! would outgrow the per-thread limit (`Options::stack_bytes`, the
//! driver's `CU_LIMIT_STACK_SIZE`) is a stack-overflow fault, as a call
//! too deep; `stackrestore` of anything outside the frame's stack (no value
//! `stacksave` can have given) is an illegal-address fault. Both engines run
//! these ops here.

use super::warp::Warp;
use super::{Cta, Fault, FaultKind};
use crate::ir::{Op, StackOp, Ty};

impl Warp {
    pub(super) fn stack(
        &mut self,
        cta: &mut Cta,
        op: &Op,
        mask: u32,
        sop: StackOp,
        ty: Ty,
    ) -> Result<(), Fault> {
        let limit = cta.ctx.stack_limit as u64;
        let module = cta.ctx.module;
        for l in (0..32usize).filter(|l| mask & (1 << l) != 0) {
            let frame = self.frames.last().unwrap();
            let floor = frame.base as u64 + module.functions[frame.func].frame_size as u64;
            let top = frame.top[l] as u64;
            match sop {
                StackOp::Alloca { align } => {
                    let size = self.read(cta, &op.srcs[0], l) & ty.mask();
                    let ptr = top.next_multiple_of(align as u64);
                    let end = ptr.saturating_add(size);
                    if end > limit {
                        let msg = format!(
                            "stack overflow: `alloca` of {size} bytes (aligned to {align}) \
                             needs {end} bytes of local memory per thread (limit {limit})"
                        );
                        return Err(self.fault(
                            cta,
                            FaultKind::StackOverflow,
                            l as u32,
                            Some(op),
                            msg,
                        ));
                    }
                    let mem = &mut self.local[l];
                    if mem.len() < end as usize {
                        mem.resize(end as usize, 0);
                    }
                    self.frames.last_mut().unwrap().top[l] = end as u32;
                    self.write(cta, op.dsts[0], l, ptr);
                    cta.check_new_frame(self.index, 1 << l, ptr as u32, end as u32);
                }
                StackOp::Save => self.write(cta, op.dsts[0], l, top),
                StackOp::Restore => {
                    let a = self.read(cta, &op.srcs[0], l) & ty.mask();
                    if a < floor || a > limit {
                        let msg = format!(
                            "`stackrestore` to local address {a:#x}, which no `stacksave` \
                             of this function gives (its stack lies from {floor:#x} to {limit:#x})"
                        );
                        return Err(self.fault(
                            cta,
                            FaultKind::IllegalAddress,
                            l as u32,
                            Some(op),
                            msg,
                        ));
                    }
                    self.frames.last_mut().unwrap().top[l] = a as u32;
                }
            }
        }
        Ok(())
    }
}
