//! Trampolines for the helpers that compiled code calls on its cold paths
//! (a fault, an access the inline bounds check did not accept, a NaN
//! result): Cranelift functions with the `preserve_all` calling convention
//! that call the Rust helper and write its result to memory.
//!
//! A call under the platform convention clobbers the caller-saved
//! registers, so every value live across it (the register file's base, the
//! arena, the lane mask: values a piece keeps for its whole lane loop) must
//! sit in one of the few callee-saved registers or be spilled to the stack
//! and reloaded on the hot path, lane after lane, although the call almost
//! never happens. A call to a `preserve_all` function clobbers nothing, so
//! the register allocator keeps those values in registers; the trampoline
//! saves and restores what the helper may clobber.
//!
//! They are built once per process (their code lives as long as it) and
//! called by address, like the helpers themselves.

use std::sync::OnceLock;

use cranelift_codegen::ir::{types, AbiParam, InstBuilder, MemFlagsData, Signature, Type};
use cranelift_codegen::isa::CallConv;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module as _};

use super::{helpers, CodeMemory};

/// The trampolines' addresses.
#[derive(Clone, Copy, Debug)]
pub(super) struct Trampolines {
    /// `(env, op, lane, kind, space, addr, size)`: [`helpers::jit_fault`].
    pub fault: i64,
    /// `(env, addr, size, status_out)`: [`helpers::jit_global_check`],
    /// its status stored as an i32 at `status_out`.
    pub global_check: i64,
    /// `(op, srcs, out)`: [`helpers::jit_pure`].
    pub pure: i64,
}

/// The trampolines and the module that keeps their code mapped for the
/// life of the process.
static TRAMPOLINES: OnceLock<Result<(Trampolines, CodeMemory), String>> = OnceLock::new();

/// The trampolines, built on first use.
pub(super) fn get() -> Result<Trampolines, String> {
    TRAMPOLINES
        .get_or_init(|| build().map(|(t, m)| (t, CodeMemory(m))))
        .as_ref()
        .map(|(t, _)| *t)
        .map_err(Clone::clone)
}

/// The signature pieces call a trampoline with.
pub(super) fn signature(params: &[Type]) -> Signature {
    let mut s = Signature::new(CallConv::PreserveAll);
    s.params = params.iter().map(|&t| AbiParam::new(t)).collect();
    s
}

/// Parameter types of the trampolines.
pub(super) const FAULT: [Type; 7] = [
    types::I64,
    types::I32,
    types::I32,
    types::I32,
    types::I32,
    types::I64,
    types::I64,
];
pub(super) const GLOBAL_CHECK: [Type; 4] = [types::I64; 4];
pub(super) const PURE: [Type; 3] = [types::I64; 3];

fn build() -> Result<(Trampolines, JITModule), String> {
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").map_err(|e| e.to_string())?;
    let isa = cranelift_native::builder()
        .map_err(|e| e.to_string())?
        .finish(settings::Flags::new(flags))
        .map_err(|e| e.to_string())?;
    let mut jit = JITModule::new(JITBuilder::with_isa(
        isa,
        cranelift_module::default_libcall_names(),
    ));
    let frontend = jit.isa().frontend_config();
    let mut ctx = jit.make_context();
    let mut fctx = FunctionBuilderContext::new();
    // (name, helper, parameters of the trampoline, whether the helper
    // returns an i32 that the trampoline stores at its last parameter)
    let specs: [(&str, i64, &[Type], bool); 3] = [
        (
            "fault",
            helpers::jit_fault as *const () as i64,
            &FAULT,
            false,
        ),
        (
            "global_check",
            helpers::jit_global_check as *const () as i64,
            &GLOBAL_CHECK,
            true,
        ),
        ("pure", helpers::jit_pure as *const () as i64, &PURE, false),
    ];
    let mut ids = Vec::new();
    for (name, helper, params, returns) in specs {
        let sig = signature(params);
        let id = jit
            .declare_function(&format!("trampoline_{name}"), Linkage::Local, &sig)
            .map_err(|e| e.to_string())?;
        ctx.func.signature = sig;
        {
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            let block = b.create_block();
            b.append_block_params_for_function_params(block);
            b.switch_to_block(block);
            b.seal_block(block);
            let args = b.block_params(block).to_vec();
            let n = if returns { args.len() - 1 } else { args.len() };
            let mut callee = Signature::new(CallConv::SystemV);
            callee.params = params[..n].iter().map(|&t| AbiParam::new(t)).collect();
            if returns {
                callee.returns = vec![AbiParam::new(types::I32)];
            }
            let callee = b.import_signature(callee);
            let f = b.ins().iconst(types::I64, helper);
            let call = b.ins().call_indirect(callee, f, &args[..n]);
            if returns {
                let status = b.inst_results(call)[0];
                b.ins().store(MemFlagsData::trusted(), status, args[n], 0);
            }
            b.ins().return_(&[]);
            b.finalize(frontend);
        }
        jit.define_function(id, &mut ctx)
            .map_err(|e| format!("trampoline {name}: {e:?}"))?;
        jit.clear_context(&mut ctx);
        ids.push(id);
    }
    jit.finalize_definitions().map_err(|e| e.to_string())?;
    let addr = |i: usize| jit.get_finalized_function(ids[i]) as i64;
    let t = Trampolines {
        fault: addr(0),
        global_check: addr(1),
        pure: addr(2),
    };
    Ok((t, jit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trampolines_build() {
        let t = get().expect("trampolines compile");
        assert!(t.fault != 0 && t.global_check != 0 && t.pure != 0);
    }
}
