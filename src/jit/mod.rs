//! The Cranelift JIT: compiles a module's micro-ops into native pieces that
//! the warp driver runs instead of interpreting them (see
//! `docs/jit-design.md`).
//!
//! [`compile`] plans the pieces of every block ([`plan`]), emits each as a
//! Cranelift function over the [`PieceEnv`](crate::engine::abi::PieceEnv)
//! ABI ([`emit`], [`ops`], [`mem`]), and returns a [`CompiledModule`] that
//! implements [`CompiledCode`]. Ops outside pieces (warp-wide ops, atomics,
//! calls, barriers) are executed by the interpreter's driver, which also
//! keeps the SIMT stack, so both engines reconverge at the same points.

mod checked;
mod convert;
mod emit;
mod helpers;
mod mem;
mod ops;
pub mod plan;
mod region;
mod trampoline;

use std::time::{Duration, Instant};

use cranelift_codegen::entity::{EntityRef, SecondaryMap};
use cranelift_codegen::ir::{types, AbiParam};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module as _};

use crate::engine::abi::{CompiledCode, Piece, PieceFn, Region};
use crate::ir::{self, Block, FuncId};

/// Why compiling failed (a bug in the JIT, reported rather than crashing).
#[derive(Debug, thiserror::Error)]
#[error("JIT compilation of `{function}` failed: {message}")]
pub struct JitError {
    pub function: String,
    pub message: String,
}

/// Compiled code of one loaded module.
pub struct CompiledModule {
    /// Keeps the machine code alive. Never used after finalization.
    _code: CodeMemory,
    /// Per function, per block, per op: the piece starting there.
    pieces: SecondaryMap<FuncId, Vec<Vec<Option<Piece>>>>,
    /// Per function, per block: the region whose header it is.
    regions: SecondaryMap<FuncId, Vec<Option<Region>>>,
    /// Time spent compiling.
    pub compile_time: Duration,
    /// Number of pieces and of ops they cover, of all ops.
    pub stats: CompileStats,
}

/// What the compiler produced.
#[derive(Clone, Copy, Debug, Default)]
pub struct CompileStats {
    pub regions: usize,
    pub pieces: usize,
    pub ops_in_pieces: usize,
    pub ops: usize,
}

struct CodeMemory(#[allow(dead_code)] JITModule);
// SAFETY: the JIT module is only kept to own the executable memory; after
// `finalize_definitions` nothing reads or writes it until it is dropped, and
// the finalized code is immutable and position-independent of threads.
unsafe impl Send for CodeMemory {}
unsafe impl Sync for CodeMemory {}

impl CompiledCode for CompiledModule {
    fn piece(&self, func: FuncId, block: Block, pc: usize) -> Option<&Piece> {
        self.pieces[func].get(block.index())?.get(pc)?.as_ref()
    }

    fn region(&self, func: FuncId, block: Block) -> Option<&Region> {
        self.regions[func].get(block.index())?.as_ref()
    }
}

/// Compiles the function in `ctx` as `id`, printing its machine code when
/// `WARPJIT_JIT_DISASM` is set.
fn define(
    jit: &mut JITModule,
    ctx: &mut cranelift_codegen::Context,
    id: cranelift_module::FuncId,
    name: &str,
    function: &str,
) -> Result<(), JitError> {
    let disasm = std::env::var_os("WARPJIT_JIT_DISASM").is_some();
    ctx.set_disasm(disasm);
    jit.define_function(id, ctx).map_err(|e| JitError {
        function: function.to_string(),
        message: format!("{e:?}"),
    })?;
    if disasm {
        if let Some(text) = ctx.compiled_code().and_then(|c| c.vcode.as_ref()) {
            eprintln!("compiled {name} ({function}):\n{text}");
        }
    }
    jit.clear_context(ctx);
    Ok(())
}

/// A piece declared to the JIT module, waiting for finalization to give
/// its code address.
struct DeclaredPiece {
    func: FuncId,
    plan: plan::PiecePlan,
    id: cranelift_module::FuncId,
    facts: PieceFacts,
}

/// What the drivers know of a piece besides its entry (see [`Piece`]).
struct PieceFacts {
    end: u32,
    cost: u32,
    uses_local: bool,
    traced: u64,
    private: bool,
    deferrable: u32,
}

impl PieceFacts {
    /// The facts of a piece running `ops`, which end at op `end` of their
    /// block; `timing` as in [`compile_for`].
    fn of(ops: &[ir::Op], end: usize, uses_local: bool, timing: bool) -> Self {
        let traced = if timing {
            ops.iter()
                .enumerate()
                .filter(|(_, o)| plan::is_traced(&o.kind))
                .fold(0u64, |bits, (i, _)| bits | 1 << i)
        } else {
            0
        };
        let private = ops.iter().all(|o| plan::is_private(&o.kind));
        let deferrable = if timing && !private {
            ops.iter()
                .take_while(|o| plan::is_deferrable(&o.kind))
                .count() as u32
        } else {
            0
        };
        PieceFacts {
            end: end as u32,
            cost: ops.iter().map(|o| o.cost as u32).sum(),
            uses_local,
            traced,
            private,
            deferrable,
        }
    }

    fn with_entry(self, entry: PieceFn) -> Piece {
        Piece {
            entry,
            end: self.end,
            cost: self.cost,
            uses_local: self.uses_local,
            traced: self.traced,
            private: self.private,
            deferrable: self.deferrable,
        }
    }
}

/// Compiles every function of `module`; `global_addrs` are the device
/// addresses of its globals (baked into the code).
pub fn compile(module: &ir::Module, global_addrs: &[u64]) -> Result<CompiledModule, JitError> {
    compile_for(module, global_addrs, false)
}

/// As [`compile`]; with `timing`, for the timing model's stepping driver:
/// no regions (a warp must advance instruction by instruction), pieces
/// record the lanes' addresses of their memory accesses (`abi::Trace`) for
/// the model, and start at every `%clock` read, so that it reads its
/// modeled issue cycle.
pub fn compile_for(
    module: &ir::Module,
    global_addrs: &[u64],
    timing: bool,
) -> Result<CompiledModule, JitError> {
    compile_with(module, global_addrs, timing, false)
}

/// As [`compile`], for launches with racecheck or initcheck: every access
/// of global, constant, shared or local memory (generic addresses
/// included; not a frame's `.param` bytes) is written to a deferred log
/// with what the interpreter gives the sanitizer's hooks, and the hooks are
/// called at the end of the piece or region in the interpreter's order
/// (`sanitizer::deferred::DeferredLog`, `helpers::jit_replay`); atomics the
/// JIT performs through a helper are interpreted, and regions that store
/// are not compiled (a region whose lanes did not follow one path is
/// interpreted after it ran).
pub fn compile_checked(
    module: &ir::Module,
    global_addrs: &[u64],
) -> Result<CompiledModule, JitError> {
    compile_with(module, global_addrs, false, true)
}

fn compile_with(
    module: &ir::Module,
    global_addrs: &[u64],
    timing: bool,
    checked: bool,
) -> Result<CompiledModule, JitError> {
    let start = Instant::now();
    let err = |function: &str, message: String| JitError {
        function: function.to_string(),
        message,
    };
    let mut flags = settings::builder();
    flags
        .set("opt_level", "speed")
        .map_err(|e| err("", e.to_string()))?;
    // Cranelift's IR verifier runs between passes in debug builds (and so
    // in `cargo test`); release builds skip it, as it is a fifth of the
    // compile time.
    let verify = if cfg!(debug_assertions) {
        "true"
    } else {
        "false"
    };
    flags
        .set("enable_verifier", verify)
        .map_err(|e| err("", e.to_string()))?;
    let isa_builder = cranelift_native::builder().map_err(|e| err("", e.to_string()))?;
    let isa = isa_builder
        .finish(settings::Flags::new(flags))
        .map_err(|e| err("", e.to_string()))?;
    let mut jit = JITModule::new(JITBuilder::with_isa(
        isa,
        cranelift_module::default_libcall_names(),
    ));
    let trampolines = trampoline::get().map_err(|e| err("", e))?;
    let mut ctx = jit.make_context();
    let mut fctx = cranelift_frontend::FunctionBuilderContext::new();
    let mut sig = jit.make_signature();
    sig.params.push(AbiParam::new(types::I64));
    sig.params.push(AbiParam::new(types::I32));
    sig.returns.push(AbiParam::new(types::I32));

    // Another CTA's shared memory is reached through the driver only.
    let cluster = ir::uses_clusters(module);
    let mut stats = CompileStats::default();
    let mut declared = Vec::new();
    let mut pieces: SecondaryMap<FuncId, Vec<Vec<Option<Piece>>>> = SecondaryMap::new();
    let mut regions: SecondaryMap<FuncId, Vec<Option<Region>>> = SecondaryMap::new();
    let mut declared_regions = Vec::new();
    for (fid, func) in module.functions.iter() {
        if func.external {
            continue;
        }
        pieces[fid] = func
            .blocks
            .values()
            .map(|b| vec![None; b.ops.len()])
            .collect();
        stats.ops += func.blocks.values().map(|b| b.ops.len()).sum::<usize>();
        let liveness = ir::liveness::Liveness::compute(func);
        regions[fid] = vec![None; func.blocks.len()];
        if !timing && std::env::var_os("WARPJIT_NO_REGIONS").is_none() {
            // A checked build's region may be interpreted after it ran
            // (its accesses not in the interpreter's order): it must have
            // stored nothing (regions hold no atomics, `plan::regions`).
            let stores = |r: &plan::RegionPlan| {
                r.blocks.iter().any(|&b| {
                    func.blocks[b]
                        .ops
                        .iter()
                        .any(|o| matches!(o.kind, ir::OpKind::St { .. }))
                })
            };
            for r in plan::regions(func, cluster)
                .into_iter()
                .filter(|r| !checked || !stores(r))
            {
                let name = format!("{}_{}_region", fid.index(), r.header.index());
                let id = jit
                    .declare_function(&name, Linkage::Local, &sig)
                    .map_err(|e| err(&func.name, e.to_string()))?;
                ctx.func.signature = sig.clone();
                let (live_outs, uses_local) = region::emit_region(
                    &mut fctx,
                    &mut ctx.func,
                    func,
                    &r,
                    &liveness,
                    global_addrs,
                    trampolines,
                    jit.isa().frontend_config(),
                    checked,
                );
                define(&mut jit, &mut ctx, id, &name, &func.name)?;
                stats.regions += 1;
                declared_regions.push((fid, r, id, live_outs, uses_local));
            }
        }
        for p in plan::run(func, timing, cluster, checked) {
            let live_after = liveness.live_at(func, p.block, p.end);
            let name = format!("{}_{}_{}", fid.index(), p.block.index(), p.start);
            let id = jit
                .declare_function(&name, Linkage::Local, &sig)
                .map_err(|e| err(&func.name, e.to_string()))?;
            ctx.func.signature = sig.clone();
            let uses_local = emit::emit_piece(
                &mut fctx,
                &mut ctx.func,
                func,
                &p,
                global_addrs,
                trampolines,
                &live_after,
                timing,
                checked,
                jit.isa().frontend_config(),
            );
            define(&mut jit, &mut ctx, id, &name, &func.name)?;
            let ops = &func.blocks[p.block].ops[p.start..p.end];
            stats.pieces += 1;
            stats.ops_in_pieces += p.end - p.start;
            declared.push(DeclaredPiece {
                func: fid,
                facts: PieceFacts::of(ops, p.end, uses_local, timing),
                plan: p,
                id,
            });
        }
    }
    jit.finalize_definitions()
        .map_err(|e| err("", e.to_string()))?;
    for d in declared {
        let code = jit.get_finalized_function(d.id);
        // SAFETY: the function was defined with the `PieceFn` signature.
        let entry: PieceFn = unsafe { std::mem::transmute::<*const u8, PieceFn>(code) };
        pieces[d.func][d.plan.block.index()][d.plan.start] = Some(d.facts.with_entry(entry));
    }
    for (fid, r, id, live_outs, uses_local) in declared_regions {
        let code = jit.get_finalized_function(id);
        // SAFETY: the function was defined with the `PieceFn` signature.
        let entry: PieceFn = unsafe { std::mem::transmute::<*const u8, PieceFn>(code) };
        regions[fid][r.header.index()] = Some(Region {
            entry,
            exit: r.exit,
            blocks: r.blocks,
            live_outs,
            uses_local,
        });
    }
    Ok(CompiledModule {
        regions,
        _code: CodeMemory(jit),
        pieces,
        compile_time: start.elapsed(),
        stats,
    })
}
