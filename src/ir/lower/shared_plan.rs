//! Which kernels use each static `.shared` variable, so that variables no
//! kernel uses together may share offsets.
//!
//! A GPU gives each kernel its own shared-memory layout: the variables it
//! and the functions it calls name. warpjit keeps one offset per variable
//! (a device function's code names its variables at one offset whichever
//! kernel calls it) but lets variables overlap when no kernel uses both
//! (`layout::SharedLayout`). Without that, a module of many kernels (CUB's
//! and Thrust's, thousands of kernels each with its own function-scope
//! `static_temp_storage`) would add all of them up and pass a block's
//! limit although each kernel fits.
//!
//! Found on the AST, before lowering: a function uses the module-scope
//! variables its instructions name and the function-scope variables it
//! declares; a kernel uses what the functions it reaches through direct
//! calls (and function addresses it names) use. A kernel whose reach calls
//! through a register may reach any function. A shadowing local name
//! counts as a use of the module-scope one (safe: only more overlap is
//! refused), and a variable a module-scope initializer names is used by
//! every kernel.

use std::collections::{HashMap, HashSet};

use super::{walk_statements, FuncId};
use crate::front::ast::{
    self, Directive, FunctionKind, Initializer, Opcode, OperandKind, StateSpace, Statement,
};

/// The kernels (numbered in declaration order) that use each static shared
/// variable.
#[derive(Default)]
pub(crate) struct SharedPlan {
    module_vars: HashMap<String, Vec<u32>>,
    func_vars: HashMap<FuncId, Vec<u32>>,
    all: Vec<u32>,
}

impl SharedPlan {
    pub fn new(module: &ast::Module, bodies: &[(FuncId, &ast::Function)]) -> SharedPlan {
        let shared: HashSet<&str> = module
            .directives
            .iter()
            .filter_map(|d| match d {
                Directive::Variable(v)
                    if matches!(v.space, StateSpace::Shared | StateSpace::SharedCta) =>
                {
                    Some(v.name.as_str())
                }
                _ => None,
            })
            .collect();
        let mut by_name: HashMap<&str, usize> = bodies
            .iter()
            .enumerate()
            .map(|(i, (_, f))| (f.name.as_str(), i))
            .collect();
        // `.alias a, f;`: calling `a` calls `f`.
        for d in &module.directives {
            if let Directive::Alias { alias, target, .. } = d {
                if let Some(&i) = by_name.get(target.as_str()) {
                    by_name.insert(alias.as_str(), i);
                }
            }
        }
        // Per body: the bodies it names, whether it calls through a
        // register, the module-scope shared variables it names.
        let mut callees: Vec<Vec<usize>> = vec![Vec::new(); bodies.len()];
        let mut indirect = vec![false; bodies.len()];
        let mut names: Vec<HashSet<&str>> = vec![HashSet::new(); bodies.len()];
        for (i, (_, f)) in bodies.iter().enumerate() {
            let Some(body) = &f.body else { continue };
            walk_statements(body, &mut |s| {
                let Statement::Instruction(ins) = s else {
                    return;
                };
                if ins.opcode == Opcode::Call {
                    // `call [(rets),] callee, ...`: a register callee is indirect.
                    let callee = ins
                        .operands
                        .iter()
                        .find(|o| !matches!(o.kind, OperandKind::List(_)));
                    if callee
                        .and_then(|o| o.name())
                        .is_some_and(|t| t.starts_with('%'))
                    {
                        indirect[i] = true;
                    }
                }
                for op in &ins.operands {
                    operand_names(&op.kind, &mut |n| {
                        if let Some(&j) = by_name.get(n) {
                            callees[i].push(j);
                        } else if shared.contains(n) {
                            names[i].insert(n);
                        }
                    });
                }
            });
        }
        let mut plan = SharedPlan::default();
        let mut kernel = 0u32;
        for (root, (_, f)) in bodies.iter().enumerate() {
            if f.kind != FunctionKind::Entry {
                continue;
            }
            let mut seen = vec![false; bodies.len()];
            let mut stack = vec![root];
            let mut reach = Vec::new();
            let mut any = false;
            while let Some(b) = stack.pop() {
                if std::mem::replace(&mut seen[b], true) {
                    continue;
                }
                reach.push(b);
                any |= indirect[b];
                stack.extend(callees[b].iter().copied());
            }
            if any {
                reach = (0..bodies.len()).collect();
            }
            let mut mine: HashSet<&str> = HashSet::new();
            for &b in &reach {
                plan.func_vars.entry(bodies[b].0).or_default().push(kernel);
                mine.extend(names[b].iter().copied());
            }
            for n in mine {
                plan.module_vars
                    .entry(n.to_string())
                    .or_default()
                    .push(kernel);
            }
            plan.all.push(kernel);
            kernel += 1;
        }
        // Names in module-scope initializers (a generic address of a shared
        // variable in a global): any kernel may use them.
        for d in &module.directives {
            if let Directive::Variable(v) = d {
                if let Some(init) = &v.init {
                    init_names(init, &mut |n| {
                        if shared.contains(n) {
                            plan.module_vars.insert(n.to_string(), plan.all.clone());
                        }
                    });
                }
            }
        }
        plan
    }

    /// The kernels that use the module-scope variable `name` (none: no kernel).
    pub fn module_var(&self, name: &str) -> &[u32] {
        self.module_vars.get(name).map_or(&[], Vec::as_slice)
    }

    /// The kernels that use the variables function `f` declares.
    pub fn func_var(&self, f: FuncId) -> &[u32] {
        self.func_vars.get(&f).map_or(&[], Vec::as_slice)
    }

    /// How many kernels there are.
    pub fn kernels(&self) -> usize {
        self.all.len()
    }
}

fn operand_names<'a>(kind: &'a OperandKind, f: &mut dyn FnMut(&'a str)) {
    match kind {
        OperandKind::Name { name, .. } | OperandKind::SymbolOffset { name, .. } => f(name),
        OperandKind::Address {
            base: Some(name), ..
        } => f(name),
        OperandKind::Vector(ops) | OperandKind::AddressList(ops) | OperandKind::List(ops) => {
            for o in ops {
                operand_names(&o.kind, f);
            }
        }
        OperandKind::Not(inner) | OperandKind::Neg(inner) => operand_names(&inner.kind, f),
        OperandKind::Select { base, .. } => operand_names(&base.kind, f),
        _ => {}
    }
}

fn init_names<'a>(init: &'a Initializer, f: &mut dyn FnMut(&'a str)) {
    match init {
        Initializer::Symbol { name, .. } | Initializer::Generic { name, .. } => f(name),
        Initializer::List(items) => items.iter().for_each(|i| init_names(i, f)),
        Initializer::Imm(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::{parse, SourceFile};
    use cranelift_codegen::entity::EntityRef;

    /// Who uses what: through direct calls, an `.alias`, and a call
    /// through a register (which may reach any function).
    #[test]
    fn kernels_use_what_the_functions_they_reach_name() {
        let ptx = r#".version 8.0
.target sm_80
.address_size 64
.shared .align 4 .b8 s_f[16];
.shared .align 4 .b8 s_k2[16];
.shared .align 4 .b8 s_none[16];
.func f()
{
	.reg .b32 %r<2>;
	.shared .align 4 .b8 own[8];
	ld.shared.u32 %r1, [s_f];
	ret;
}
.alias a, f;
.visible .entry k1()
{
	call.uni a, ();
	ret;
}
.visible .entry k2()
{
	.reg .b32 %r<2>;
	ld.shared.u32 %r1, [s_k2];
	ret;
}
.visible .entry k3()
{
	.reg .b64 %rd<2>;
	.reg .b32 %r<2>;
	mov.u64 %rd1, 0;
	call.uni %rd1, (), proto;
	ret;
}
"#;
        let src = SourceFile::new("plan.ptx", ptx);
        let m = parse(&src).unwrap();
        let funcs: Vec<&ast::Function> = m
            .directives
            .iter()
            .filter_map(|d| match d {
                Directive::Function(f) => Some(f),
                _ => None,
            })
            .collect();
        let bodies: Vec<(FuncId, &ast::Function)> = funcs
            .iter()
            .enumerate()
            .map(|(i, f)| (FuncId::new(i), *f))
            .collect();
        let plan = SharedPlan::new(&m, &bodies);
        assert_eq!(plan.kernels(), 3);
        // k1 (0) reaches f through the alias; k3 (2) calls through a register.
        assert_eq!(plan.module_var("s_f"), [0, 2]);
        assert_eq!(plan.func_var(FuncId::new(0)), [0, 2]);
        assert_eq!(plan.module_var("s_k2"), [1, 2]);
        assert_eq!(plan.module_var("s_none"), [] as [u32; 0]);
    }
}
