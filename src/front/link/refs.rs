//! The module-scope names a PTX module's code and data refer to, found and
//! renamed in place, for the linker.
//!
//! A reference is an operand naming a variable or function (`bias`,
//! `[bias+4]`, `hits+8`, a call target) or an initializer naming one
//! (`{f, g}`, `generic(v)+4`). Inside a function, names it declares itself
//! (parameters, variables of any of its scopes, labels, call prototypes)
//! hide module-scope ones, and are left alone.

use std::collections::HashSet;

use crate::front::ast::{Directive, Function, Initializer, Operand, OperandKind, Statement};
use crate::front::Span;

/// Calls `f` on every module-scope name `module`'s directives refer to
/// (and on the names declared by `.alias`), with the span of the reference.
/// `f` may rename the name in place.
pub(super) fn for_each_reference(
    directives: &mut [Directive],
    f: &mut dyn FnMut(&mut String, Span),
) {
    for d in directives {
        match d {
            Directive::Function(func) => function_references(func, f),
            Directive::Variable(v) => {
                if let Some(init) = &mut v.init {
                    initializer_references(init, v.span, f);
                }
            }
            Directive::Alias {
                alias,
                target,
                span,
            } => {
                f(alias, *span);
                f(target, *span);
            }
            _ => {}
        }
    }
}

/// References from one function's body (its name is not one of them).
fn function_references(func: &mut Function, f: &mut dyn FnMut(&mut String, Span)) {
    let Some(body) = &mut func.body else {
        return;
    };
    let mut local: HashSet<String> = HashSet::new();
    for p in func.params.iter().chain(&func.returns) {
        local.insert(p.name.clone());
    }
    declared(body, &mut local);
    statements(body, &local, f);
}

/// Every name a body declares, in any of its scopes.
fn declared(body: &[Statement], out: &mut HashSet<String>) {
    for s in body {
        match s {
            Statement::Variable(v) => {
                out.insert(v.name.clone());
            }
            Statement::Label(name, _) => {
                out.insert(name.clone());
            }
            Statement::CallPrototype(p) => {
                out.insert(p.name.clone());
            }
            Statement::BranchTargets { name, .. } => {
                out.insert(name.clone());
            }
            Statement::Block(inner, _) => declared(inner, out),
            _ => {}
        }
    }
}

fn statements(
    body: &mut [Statement],
    local: &HashSet<String>,
    f: &mut dyn FnMut(&mut String, Span),
) {
    for s in body {
        match s {
            Statement::Instruction(ins) => {
                for op in &mut ins.operands {
                    operand(op, local, f);
                }
            }
            Statement::Variable(v) => {
                if let Some(init) = &mut v.init {
                    let span = v.span;
                    let mut g = |name: &mut String, at: Span| {
                        if !local.contains(name.as_str()) {
                            f(name, at)
                        }
                    };
                    initializer_references(init, span, &mut g);
                }
            }
            Statement::Block(inner, _) => statements(inner, local, f),
            _ => {}
        }
    }
}

fn operand(op: &mut Operand, local: &HashSet<String>, f: &mut dyn FnMut(&mut String, Span)) {
    let span = op.span;
    let name = match &mut op.kind {
        OperandKind::Name { name, .. } | OperandKind::SymbolOffset { name, .. } => name,
        OperandKind::Address {
            base: Some(name), ..
        } => name,
        OperandKind::Vector(ops)
        | OperandKind::VectorPred { items: ops, .. }
        | OperandKind::AddressList(ops)
        | OperandKind::List(ops) => {
            for o in ops {
                operand(o, local, f);
            }
            return;
        }
        OperandKind::Not(inner) | OperandKind::Neg(inner) => return operand(inner, local, f),
        OperandKind::Select { base, .. } => return operand(base, local, f),
        _ => return,
    };
    // Registers (`%r1`) and special registers are never module-scope names.
    if !name.starts_with('%') && !local.contains(name.as_str()) {
        f(name, span);
    }
}

fn initializer_references(
    init: &mut Initializer,
    span: Span,
    f: &mut dyn FnMut(&mut String, Span),
) {
    match init {
        Initializer::Symbol { name, .. } | Initializer::Generic { name, .. } => f(name, span),
        Initializer::List(items) => {
            for i in items {
                initializer_references(i, span, f);
            }
        }
        Initializer::Imm(_) => {}
    }
}

/// Adds `offset` to every `.file` index that `.loc` statements of `body` use.
pub(super) fn renumber_locs(body: &mut [Statement], offset: u32) {
    for s in body {
        match s {
            Statement::Loc(l) => {
                l.file += offset;
                if let Some((file, _, _)) = &mut l.inlined_at {
                    *file += offset;
                }
            }
            Statement::Block(inner, _) => renumber_locs(inner, offset),
            _ => {}
        }
    }
}
