//! Memory layout decided at lowering time: kernel and function parameter
//! slots (CUDA's ABI: each parameter at the next offset aligned to its
//! alignment), module globals with their initializer bytes and relocations,
//! and the CTA's shared memory (static variables, overlapping where no
//! kernel uses two of them, `shared_plan.rs`; then dynamic memory).

use cranelift_codegen::entity::PrimaryMap;

use super::shared_plan::SharedPlan;
use super::{error, unsupported, ModuleCtx, ModuleSym};
use crate::front::ast::{self, Imm, Initializer, StateSpace, Statement};
use crate::front::{Diagnostic, DiagnosticKind};
use crate::ir::{FuncId, Global, GlobalId, ParamSlot, RelocTarget, Relocation};

pub(crate) fn align_up(x: u64, a: u64) -> u64 {
    let a = a.max(1);
    x.div_ceil(a) * a
}

/// Parameter slots laid out in order; returns them and the total size.
pub(crate) fn param_slots(params: &[ast::Param], _kernel: bool) -> (Vec<ParamSlot>, u32) {
    let mut offset = 0u64;
    let mut slots = Vec::with_capacity(params.len());
    for p in params {
        let size = p.size_bytes().max(if p.dims.is_empty() {
            p.ty.size_bytes() as u64
        } else {
            0
        });
        let align = p
            .align
            .map(u64::from)
            .unwrap_or_else(|| (p.ty.size_bytes() as u64 * p.vector.unwrap_or(1) as u64).max(1));
        offset = align_up(offset, align);
        slots.push(ParamSlot {
            name: p.name.clone(),
            offset: offset as u32,
            size: size as u32,
            align: align as u32,
        });
        offset += size;
    }
    (slots, offset as u32)
}

/// The CTA's static shared memory: each variable at one offset, below
/// [`MAX_STATIC_SHARED`], apart from every variable a kernel that uses it
/// also uses, and free to overlap the others (`shared_plan.rs`).
#[derive(Default)]
pub(crate) struct SharedLayout {
    /// The end of the highest variable.
    pub size: u32,
    pub max_align: u32,
    /// Every static variable placed, in placement order (its index is the
    /// variable's number in `Function::shared_used`).
    pub vars: Vec<crate::ir::SharedVar>,
    /// Per kernel: the (start, end) of the variables placed that it uses.
    taken: Vec<Vec<(u64, u64)>>,
}

impl SharedLayout {
    pub fn new(kernels: usize) -> SharedLayout {
        SharedLayout {
            taken: vec![Vec::new(); kernels],
            ..SharedLayout::default()
        }
    }

    /// Places a variable that the kernels `users` use at the lowest offset
    /// aligned to `align` clear of theirs; returns its offset and number,
    /// `None` when a kernel's static shared memory would exceed a block's
    /// maximum.
    fn alloc(&mut self, users: &[u32], size: u64, align: u32) -> Option<(u32, u32)> {
        let a = align.min(4096) as u64;
        let mut busy: Vec<(u64, u64)> = users
            .iter()
            .flat_map(|&k| self.taken[k as usize].iter().copied())
            .collect();
        busy.sort_unstable();
        let mut off = 0u64;
        for (start, end) in busy {
            if off.checked_add(size)? <= start {
                break;
            }
            off = off.max(align_up(end, a));
        }
        let end = off.checked_add(size)?;
        if end > MAX_STATIC_SHARED {
            return None;
        }
        for &k in users {
            self.taken[k as usize].push((off, end));
        }
        self.size = self.size.max(end as u32);
        self.max_align = self.max_align.max(align);
        self.vars.push(crate::ir::SharedVar {
            offset: off as u32,
            size: size as u32,
            align,
        });
        Some((off as u32, self.vars.len() as u32 - 1))
    }

    /// Dynamic shared memory starts after the static variables, 16-byte aligned
    /// (the alignment CUDA guarantees for `extern __shared__` arrays).
    pub fn dynamic_offset(&self) -> u32 {
        align_up(self.size as u64, 16) as u32
    }
}

fn var_align(v: &ast::Variable) -> u32 {
    v.align
        .unwrap_or_else(|| v.ty.size_bytes() * v.vector.unwrap_or(1) as u32)
        .max(1)
}

/// Declared size of a variable; arrays sized by their initializer (`[]`) count its elements.
/// The largest module variable warpjit places (the default arena is 1 GiB).
pub(crate) const MAX_VARIABLE_BYTES: u64 = 1 << 30;
/// The largest static shared memory of a kernel (what one block can have on sm_90).
pub(crate) const MAX_STATIC_SHARED: u64 = 227 * 1024;
/// The largest per-thread frame of one function.
pub(crate) const MAX_FRAME_BYTES: u64 = 1 << 20;

fn var_size(v: &ast::Variable) -> u64 {
    let elem = v.ty.size_bytes() as u64 * v.vector.unwrap_or(1) as u64;
    if v.dims.iter().any(Option::is_none) {
        let n = match &v.init {
            Some(Initializer::List(items)) => count_leaves(items),
            _ => 0,
        };
        return n.saturating_mul(elem);
    }
    v.size_bytes()
}

fn count_leaves(items: &[Initializer]) -> u64 {
    items
        .iter()
        .map(|i| match i {
            Initializer::List(inner) => count_leaves(inner),
            _ => 1,
        })
        .sum()
}

pub(crate) fn declare_module_variable(
    v: &ast::Variable,
    ctx: &mut ModuleCtx,
    globals: &mut PrimaryMap<GlobalId, Global>,
    shared: &mut SharedLayout,
    plan: &SharedPlan,
    errors: &mut Vec<Diagnostic>,
) {
    match v.space {
        StateSpace::Global | StateSpace::Const => {
            if let Some(ModuleSym::Global(_)) = ctx.syms.get(&v.name) {
                return;
            }
            let size = var_size(v);
            if size > MAX_VARIABLE_BYTES {
                errors.push(error(
                    DiagnosticKind::Semantic,
                    v.span,
                    format!("`{}` is {size} bytes; warpjit places variables of at most {MAX_VARIABLE_BYTES} bytes", v.name),
                ));
                return;
            }
            let id = globals.push(Global {
                name: v.name.clone(),
                constant: v.space == StateSpace::Const,
                size,
                align: var_align(v),
                init: vec![0; size as usize],
                relocations: Vec::new(),
                external: v.linkage == Some(ast::Linkage::Extern),
                span: v.span,
            });
            ctx.syms.insert(v.name.clone(), ModuleSym::Global(id));
        }
        StateSpace::Shared | StateSpace::SharedCta => {
            let dynamic =
                v.linkage == Some(ast::Linkage::Extern) || v.dims.iter().any(Option::is_none);
            if dynamic {
                ctx.syms.insert(v.name.clone(), ModuleSym::DynamicShared);
            } else {
                match shared.alloc(plan.module_var(&v.name), var_size(v), var_align(v)) {
                    Some((offset, var)) => {
                        ctx.syms.insert(v.name.clone(), ModuleSym::Shared { offset, var });
                    }
                    None => errors.push(error(
                        DiagnosticKind::Semantic,
                        v.span,
                        format!("`{}` takes static shared memory past the {MAX_STATIC_SHARED} bytes a block can have", v.name),
                    )),
                }
            }
        }
        _ => errors.push(unsupported(
            v.span,
            format_args!("module-scope `.{}` variable `{}`", v.space, v.name),
        )),
    }
}

pub(crate) fn declare_function_shared(
    id: FuncId,
    body: &[Statement],
    ctx: &mut ModuleCtx,
    shared: &mut SharedLayout,
    plan: &SharedPlan,
) {
    let mut found = Vec::new();
    super::walk_statements(body, &mut |s| {
        if let Statement::Variable(v) = s {
            if matches!(v.space, StateSpace::Shared | StateSpace::SharedCta) {
                found.push(v.clone());
            }
        }
    });
    for v in found {
        // Too-large function-scope shared variables are reported when the body declares them.
        if let Some(placed) = shared.alloc(plan.func_var(id), var_size(&v), var_align(&v)) {
            ctx.func_shared.insert((id, v.name.clone()), placed);
        }
    }
}

/// Writes a global's initializer bytes and relocations.
pub(crate) fn initialize_global(
    v: &ast::Variable,
    ctx: &ModuleCtx,
    globals: &mut PrimaryMap<GlobalId, Global>,
    errors: &mut Vec<Diagnostic>,
) {
    let Some(init) = &v.init else { return };
    let Some(ModuleSym::Global(id)) = ctx.syms.get(&v.name).copied() else {
        return;
    };
    let elem = v.ty.size_bytes() as u64;
    let mut leaves = Vec::new();
    flatten(init, &mut leaves);
    let g = &mut globals[id];
    for (k, leaf) in leaves.into_iter().enumerate() {
        let offset = k as u64 * elem;
        if offset + elem > g.size {
            errors.push(error(
                DiagnosticKind::Semantic,
                v.span,
                format!("initializer of `{}` has too many elements", v.name),
            ));
            return;
        }
        match leaf {
            Initializer::Imm(imm) => {
                let bits = imm_bits(*imm, v.ty);
                let bytes = bits.to_le_bytes();
                g.init[offset as usize..(offset + elem) as usize]
                    .copy_from_slice(&bytes[..elem as usize]);
            }
            Initializer::Symbol {
                name,
                offset: addend,
            }
            | Initializer::Generic {
                name,
                offset: addend,
            } => {
                let target = match ctx.syms.get(name) {
                    Some(ModuleSym::Global(t)) => RelocTarget::Global(*t),
                    Some(ModuleSym::Func(f)) => RelocTarget::Function(*f),
                    Some(ModuleSym::Shared { offset, .. }) => RelocTarget::Shared(*offset),
                    _ => {
                        errors.push(error(
                            DiagnosticKind::Semantic,
                            v.span,
                            format!("unknown symbol `{name}` in the initializer of `{}`", v.name),
                        ));
                        return;
                    }
                };
                g.relocations.push(Relocation {
                    offset,
                    width: elem as u32,
                    target,
                    addend: *addend,
                });
            }
            Initializer::List(_) => unreachable!("flattened"),
        }
    }
}

fn flatten<'a>(init: &'a Initializer, out: &mut Vec<&'a Initializer>) {
    match init {
        Initializer::List(items) => items.iter().for_each(|i| flatten(i, out)),
        leaf => out.push(leaf),
    }
}

/// The bits of an immediate as a value of PTX type `ty` (floats converted).
pub(crate) fn imm_bits(imm: Imm, ty: ast::ScalarType) -> u64 {
    use ast::ScalarType as S;
    match (imm, ty) {
        (Imm::F64(b), S::F32) => (f64::from_bits(b) as f32).to_bits() as u64,
        (Imm::F32(b), S::F64) => (f32::from_bits(b) as f64).to_bits(),
        (Imm::Int(i), S::F32) => (i as f32).to_bits() as u64,
        (Imm::Int(i), S::F64) => (i as f64).to_bits(),
        (Imm::Int(i), _) => i as u64,
        (Imm::F32(b), _) => b as u64,
        (Imm::F64(b), _) => b,
    }
}
