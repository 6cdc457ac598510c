//! Emitting a region (a loop, see `plan::regions`) as one function over the
//! `PieceFn` signature. Each lane runs the loop's blocks as native control
//! flow from the header until it leaves for the exit, with the registers the
//! loop touches in Cranelift variables throughout; its live-out registers go
//! to the scratch area. Only when every lane got through does a second pass
//! copy the scratch into the register file, so a fault or a runaway lane
//! (more than `step_cap` steps) leaves the warp untouched and the driver
//! interprets the region instead, reporting exactly what the interpreter
//! reports.

use std::collections::HashMap;

use cranelift_codegen::entity::EntityRef;
use cranelift_codegen::ir::{condcodes::IntCC, InstBuilder, Value};
use cranelift_frontend::Variable;

use super::emit::{reg_offset, PieceBuilder, I32, I64};
use super::plan::RegionPlan;
use crate::engine::abi::offsets;
use crate::ir::liveness::Liveness;
use crate::ir::{Block, Function, Reg, Src, Terminator};

/// Emits `plan`; returns (live-out count, uses local memory).
#[allow(clippy::too_many_arguments)]
pub(super) fn emit_region(
    fctx: &mut cranelift_frontend::FunctionBuilderContext,
    cfunc: &mut cranelift_codegen::ir::Function,
    func: &Function,
    plan: &RegionPlan,
    liveness: &Liveness,
    global_addrs: &[u64],
    trampolines: super::trampoline::Trampolines,
    frontend: cranelift_codegen::isa::TargetFrontendConfig,
    checked: bool,
) -> (usize, bool) {
    let in_region = |b: Block| plan.blocks.binary_search(&b).is_ok();
    // Every register the loop reads or writes is loaded at lane start (a
    // register written on some paths only keeps its old value on the others).
    let mut touched: Vec<Reg> = Vec::new();
    let mut written: Vec<Reg> = Vec::new();
    for &b in &plan.blocks {
        let data = &func.blocks[b];
        for op in &data.ops {
            let srcs = op.srcs.iter().filter_map(|s| match s {
                Src::Reg(r) => Some(*r),
                _ => None,
            });
            for r in srcs
                .chain(op.guard.map(|g| g.reg))
                .chain(op.dsts.iter().copied())
            {
                if !touched.contains(&r) {
                    touched.push(r);
                }
            }
            for &d in &op.dsts {
                if !written.contains(&d) {
                    written.push(d);
                }
            }
        }
        if let Terminator::Branch { cond, .. } = data.term {
            if !touched.contains(&cond) {
                touched.push(cond);
            }
        }
    }
    let live_exit = liveness.live_at(func, plan.exit, 0);
    let live_outs: Vec<Reg> = written
        .into_iter()
        .filter(|r| live_exit.contains(*r))
        .collect();

    let mut p = PieceBuilder::new(fctx, cfunc, func, global_addrs, trampolines);
    p.hooks = checked;
    let abort = p.b.create_block();
    let limit = p.b.create_block();
    p.abort = Some(abort);
    let head = p.b.create_block();
    let body = p.b.create_block();
    p.next_lane = p.b.create_block();
    let lane_exit = p.b.create_block();
    let copy_head = p.b.create_block();
    let copy_body = p.b.create_block();
    let done = p.b.create_block();
    let scratch = p.load_env(I64, offsets::SCRATCH);
    let cap = p.b.declare_var(I64);
    let first_cap = p.load_env(I64, offsets::STEP_CAP);
    p.b.def_var(cap, first_cap);
    let remaining = p.b.declare_var(I32);
    p.b.def_var(remaining, p.mask);
    let counters: Vec<Variable> = (0..6).map(|_| p.b.declare_var(I64)).collect();
    // Checked builds: the hash of the blocks the lane passed (`jit_defer`).
    let path = p.b.declare_var(I64);
    let (ops_n, steps_n, cost_n) = (counters[0], counters[1], counters[2]);
    let (total_ops, max_steps, max_cost) = (counters[3], counters[4], counters[5]);
    let zero = p.b.ins().iconst(I64, 0);
    for &v in &counters[3..] {
        p.b.def_var(v, zero);
    }
    p.b.ins().jump(head, &[]);

    p.b.switch_to_block(head);
    let m = p.b.use_var(remaining);
    p.b.ins().brif(m, body, &[], copy_head, &[]);

    // One lane: load what the loop touches, run it, park the live-outs.
    p.b.switch_to_block(body);
    let lane_regs = p.begin_lane(remaining);
    for &r in &touched {
        let v =
            p.b.ins()
                .load(I64, p.trusted, lane_regs, reg_offset(p.func, r));
        let var = p.var(r);
        p.b.def_var(var, v);
    }
    for &v in counters[..3].iter().chain([&path]) {
        p.b.def_var(v, zero);
    }
    let blocks: HashMap<Block, cranelift_codegen::ir::Block> = plan
        .blocks
        .iter()
        .map(|&b| (b, p.b.create_block()))
        .collect();
    p.b.ins().jump(blocks[&plan.header], &[]);
    for &b in &plan.blocks {
        let data = &func.blocks[b];
        p.b.switch_to_block(blocks[&b]);
        p.forget_f32_results();
        let add = |p: &mut PieceBuilder, v: Variable, n: i64| {
            let x = p.b.use_var(v);
            let y = p.b.ins().iadd_imm_s(x, n);
            p.b.def_var(v, y);
            y
        };
        add(&mut p, ops_n, data.ops.len() as i64);
        add(&mut p, cost_n, data.ops.iter().map(|o| o.cost as i64).sum());
        let steps = add(&mut p, steps_n, data.ops.len() as i64 + 1);
        if checked {
            let step0 = p.b.ins().iadd_imm_s(steps, -(data.ops.len() as i64 + 1));
            let h = p.b.use_var(path);
            let h = p.b.ins().bxor_imm_s(h, b.index() as i64 + 1);
            let h = p.b.ins().imul_imm_s(h, 0x9E37_79B9_7F4A_7C15_u64 as i64);
            p.b.def_var(path, h);
            p.defer = Some((step0, h));
        }
        if b == plan.header {
            // Past the cap, ask the watchdog whether the lane may go on.
            let c = p.b.use_var(cap);
            let over = p.b.ins().icmp(IntCC::UnsignedGreaterThan, steps, c);
            let (ask, go) = (p.b.create_block(), p.b.create_block());
            p.b.set_cold_block(ask);
            p.b.ins().brif(over, ask, &[], go, &[]);
            p.b.switch_to_block(ask);
            let more = p.call_region_more(steps);
            p.b.def_var(cap, more);
            p.b.ins().brif(more, go, &[], limit, &[]);
            p.b.switch_to_block(go);
        }
        for (i, op) in data.ops.iter().enumerate() {
            p.emit_guarded(op, i as u32);
        }
        let target = |t: Block| {
            if in_region(t) {
                blocks[&t]
            } else {
                lane_exit
            }
        };
        match &data.term {
            Terminator::Jump(t) => {
                p.b.ins().jump(target(*t), &[]);
            }
            Terminator::Branch {
                cond,
                negated,
                taken,
                not_taken,
                ..
            } => {
                let c = p.src(&Src::Reg(*cond));
                let bit = p.b.ins().band_imm_s(c, 1);
                let (t, n) = (target(*taken), target(*not_taken));
                if *negated {
                    p.b.ins().brif(bit, n, &[], t, &[]);
                } else {
                    p.b.ins().brif(bit, t, &[], n, &[]);
                }
            }
            _ => unreachable!("the plan admits jumps and branches only"),
        }
    }

    p.b.switch_to_block(lane_exit);
    for (k, &r) in live_outs.iter().enumerate() {
        let var = p.var(r);
        let v = p.b.use_var(var);
        let lane8 = p.b.ins().ishl_imm_s(p.lane, 3);
        let at = p.b.ins().iadd(scratch, lane8);
        p.b.ins().store(p.trusted, v, at, (k * 32 * 8) as i32);
    }
    let fold = |p: &mut PieceBuilder, acc: Variable, v: Variable, max: bool| {
        let (a, x) = (p.b.use_var(acc), p.b.use_var(v));
        let r = if max {
            p.b.ins().umax(a, x)
        } else {
            p.b.ins().iadd(a, x)
        };
        p.b.def_var(acc, r);
    };
    fold(&mut p, total_ops, ops_n, false);
    fold(&mut p, max_steps, steps_n, true);
    fold(&mut p, max_cost, cost_n, true);
    p.b.ins().jump(p.next_lane, &[]);
    p.emit_next_lane(remaining, head);

    // Every lane finished: replay the deferred accesses (checked builds;
    // the driver interprets the loop if they were not in the interpreter's
    // order), then commit the live-outs.
    p.b.switch_to_block(copy_head);
    if checked {
        let status = p.call_replay(u32::MAX, 0);
        let go = p.b.create_block();
        p.b.ins().brif(status, abort, &[], go, &[]);
        p.b.switch_to_block(go);
    }
    p.b.def_var(remaining, p.mask);
    let copy_loop = p.b.create_block();
    p.b.ins().jump(copy_loop, &[]);
    p.b.switch_to_block(copy_loop);
    let m = p.b.use_var(remaining);
    p.b.ins().brif(m, copy_body, &[], done, &[]);
    p.b.switch_to_block(copy_body);
    let lane_regs = p.begin_lane(remaining);
    let lane8 = p.b.ins().ishl_imm_s(p.lane, 3);
    let from = p.b.ins().iadd(scratch, lane8);
    for (k, &r) in live_outs.iter().enumerate() {
        let v = p.b.ins().load(I64, p.trusted, from, (k * 32 * 8) as i32);
        p.b.ins()
            .store(p.trusted, v, lane_regs, reg_offset(p.func, r));
    }
    let m = p.b.use_var(remaining);
    let m1 = p.b.ins().iadd_imm_s(m, -1);
    let m2 = p.b.ins().band(m, m1);
    p.b.def_var(remaining, m2);
    p.b.ins().jump(copy_loop, &[]);

    p.b.switch_to_block(done);
    for (v, off) in [
        (total_ops, offsets::REGION_OPS),
        (max_steps, offsets::REGION_STEPS),
        (max_cost, offsets::REGION_COST),
    ] {
        let x = p.b.use_var(v);
        p.b.ins().store(p.trusted, x, p.env, off);
    }
    let ok = p.b.ins().iconst(I32, 0);
    p.b.ins().return_(&[ok]);

    for (block, status) in [(abort, 1), (limit, 2)] {
        p.b.switch_to_block(block);
        let s: Value = p.b.ins().iconst(I32, status);
        p.b.ins().return_(&[s]);
    }
    p.b.seal_all_blocks();
    let uses_local = p.uses_local;
    p.b.finalize(frontend);
    (live_outs.len(), uses_local)
}
