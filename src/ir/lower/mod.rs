//! Lowering: AST to micro-op IR, as one readable pipeline.
//!
//! [`run`] lays out module-scope memory (globals with their initializers,
//! static and dynamic shared memory), declares every function with its
//! parameter layout, then lowers each body ([`func`]), one PTX instruction
//! at a time ([`instr`] for arithmetic, [`mem`] for memory, [`warp`] for warp
//! and CTA operations and calls, [`video`] for the video instructions).
//! Anything the IR cannot express yet is an
//! `unsupported: <instruction>` diagnostic at its span, at load time.

mod bulk_tensor;
mod cluster;
mod func;
mod instr;
mod layout;
mod lop3;
mod matrix;
mod mbarrier;
mod mem;
mod misc;
mod mods;
mod names;
mod shared_plan;
mod stack;
mod texture;
mod video;
mod warp;
mod wmma;

use std::collections::HashMap;

use cranelift_codegen::entity::PrimaryMap;

use super::{cfg, FuncId, Function, Global, GlobalId, Module, ParamSlot};
use crate::front::ast::{self, Directive, FunctionKind, Statement};
use crate::front::{Diagnostic, DiagnosticKind, Diagnostics, SourceFile, Span};

/// A module-scope name.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ModuleSym {
    Global(GlobalId),
    /// A static shared variable: its offset in the CTA's shared memory and
    /// its number (`Function::shared_used`).
    Shared {
        offset: u32,
        var: u32,
    },
    Func(FuncId),
    /// The start of dynamic shared memory (an `extern .shared` array).
    DynamicShared,
}

/// What every function's lowering can look up.
pub(crate) struct ModuleCtx {
    pub syms: HashMap<String, ModuleSym>,
    /// Function-scope `.shared` variables: (function, name) to shared
    /// offset and variable number.
    pub func_shared: HashMap<(FuncId, String), (u32, u32)>,
    pub shared_dynamic_offset: u32,
    /// Callee parameter and return slots (frame offsets), by function.
    pub signatures: HashMap<FuncId, (Vec<ParamSlot>, Vec<ParamSlot>)>,
    /// Functions declared without a body.
    pub external: std::collections::HashSet<FuncId>,
}

pub(crate) fn error(kind: DiagnosticKind, span: Span, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(kind, span, message)
}

pub(crate) fn unsupported(span: Span, what: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::new(DiagnosticKind::Unsupported, span, format!("{what}"))
}

/// Lowers a parsed module. Every error found is returned, rendered against
/// `source`; a construct warpjit cannot run is one of them (what `warpjit
/// check` reports).
pub fn run(module: &ast::Module, source: &SourceFile) -> Result<Module, Diagnostics> {
    lower(module, source, false)
}

/// Lowers a parsed module as a device loads it: a function whose body has
/// only `unsupported` errors is kept as a `trap` with them
/// ([`Function::unsupported`]), so that the module's other kernels still
/// run and a launch that may reach it is refused with those diagnostics
/// (as a GPU's loader would not refuse a module over one kernel). Any
/// other error fails the module, as [`run`] does.
pub fn run_deferring(module: &ast::Module, source: &SourceFile) -> Result<Module, Diagnostics> {
    lower(module, source, true)
}

fn lower(module: &ast::Module, source: &SourceFile, defer: bool) -> Result<Module, Diagnostics> {
    let mut errors = Vec::new();
    // Names defined twice would resolve to either definition: stop here.
    names::check(module, source, &mut errors);
    if !errors.is_empty() {
        return Err(Diagnostics::new(source, errors));
    }
    let mut functions: PrimaryMap<FuncId, Function> = PrimaryMap::new();
    let mut globals: PrimaryMap<GlobalId, Global> = PrimaryMap::new();
    let mut ctx = ModuleCtx {
        syms: HashMap::new(),
        func_shared: HashMap::new(),
        shared_dynamic_offset: 0,
        signatures: HashMap::new(),
        external: Default::default(),
    };

    // 1. Declare functions (so globals and bodies can refer to any of them).
    let mut bodies: Vec<(FuncId, &ast::Function)> = Vec::new();
    for d in &module.directives {
        if let Directive::Function(f) = d {
            if let Some(ModuleSym::Func(existing)) = ctx.syms.get(&f.name).copied() {
                // A declaration followed by a definition: keep one entry.
                if f.body.is_some() {
                    functions[existing].external = false;
                    bodies.push((existing, f));
                }
                continue;
            }
            let (params, param_bytes) =
                layout::param_slots(&f.params, f.kind == FunctionKind::Entry);
            let (returns, _) = layout::param_slots(&f.returns, false);
            let id = functions.push(func::new_function(f, params, returns, param_bytes));
            ctx.signatures.insert(
                id,
                (functions[id].params.clone(), functions[id].returns.clone()),
            );
            ctx.syms.insert(f.name.clone(), ModuleSym::Func(id));
            if f.body.is_some() {
                bodies.push((id, f));
            }
        }
    }
    for (id, f) in functions.iter() {
        if f.external {
            ctx.external.insert(id);
        }
    }
    for &(id, _) in &bodies {
        ctx.external.remove(&id);
    }

    // 2. Lay out module-scope variables and shared memory (module and function scope).
    let plan = shared_plan::SharedPlan::new(module, &bodies);
    let mut shared = layout::SharedLayout::new(plan.kernels());
    for d in &module.directives {
        if let Directive::Variable(v) = d {
            layout::declare_module_variable(
                v,
                &mut ctx,
                &mut globals,
                &mut shared,
                &plan,
                &mut errors,
            );
        }
    }
    for &(id, f) in &bodies {
        if let Some(body) = &f.body {
            layout::declare_function_shared(id, body, &mut ctx, &mut shared, &plan);
        }
    }
    ctx.shared_dynamic_offset = shared.dynamic_offset();
    for d in &module.directives {
        if let Directive::Variable(v) = d {
            layout::initialize_global(v, &ctx, &mut globals, &mut errors);
        }
    }

    // 3. Lower every body.
    for (id, f) in bodies {
        let mut body_errors = Vec::new();
        let mut lowered = func::lower_body(&ctx, id, f, &functions[id], &mut body_errors);
        let refused = !body_errors.is_empty()
            && body_errors
                .iter()
                .all(|d| d.kind == DiagnosticKind::Unsupported);
        if defer && refused {
            lowered = functions[id].clone();
            let entry = lowered.entry;
            lowered.blocks[entry].term = super::Terminator::Trap;
            lowered.unsupported = body_errors;
        } else {
            errors.extend(body_errors);
        }
        lowered.shared_used.sort_unstable();
        lowered.shared_used.dedup();
        lowered.cfg = cfg::analyze(&lowered.blocks);
        lowered.uniform = super::uniform::analyze(&lowered);
        lowered.slots = super::slots::assign(&lowered);
        functions[id] = lowered;
    }

    let files = module
        .directives
        .iter()
        .filter_map(|d| match d {
            Directive::File(f) => Some((f.index, f.path.clone())),
            _ => None,
        })
        .collect();
    let lowered = Module {
        source_name: source.name().to_string(),
        functions,
        globals,
        shared_static_size: shared.size,
        shared_vars: shared.vars,
        shared_dynamic_offset: ctx.shared_dynamic_offset,
        files,
        target: module.target.arch.clone(),
    };
    if errors.is_empty() && cfg!(debug_assertions) {
        if let Err(e) = super::verify::run(&lowered) {
            errors.push(error(
                DiagnosticKind::Semantic,
                Span::DUMMY,
                format!("IR verifier: {e}"),
            ));
        }
    }
    if errors.is_empty() {
        Ok(lowered)
    } else {
        Err(Diagnostics::new(source, errors))
    }
}

/// Whether a statement list (recursively) declares anything in `space`.
pub(crate) fn walk_statements<'a>(body: &'a [Statement], f: &mut dyn FnMut(&'a Statement)) {
    for s in body {
        f(s);
        if let Statement::Block(inner, _) = s {
            walk_statements(inner, f);
        }
    }
}
