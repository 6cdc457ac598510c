//! Names defined twice, which ptxas rejects ("Duplicate definition of ..."):
//! two module-scope variables, or two function bodies, of one name (or a
//! variable and a function); two parameters of a function (return
//! parameters included); two variables or labels of one scope of a body (a
//! function's parameters belong to its outermost scope, and `%r<4>`
//! declares `%r0` to `%r3`). A nested `{ }` scope may declare a name of an
//! enclosing one again (it hides it), but warpjit's labels are the whole
//! function's: a label repeated in another scope is reported unsupported.

use std::collections::HashMap;

use super::error;
use crate::front::ast::{self, Directive, Statement};
use crate::front::types::{Linkage, StateSpace};
use crate::front::{Diagnostic, DiagnosticKind, SourceFile, Span};

/// Every name defined twice in `module`, as errors.
pub(crate) fn check(module: &ast::Module, source: &SourceFile, errors: &mut Vec<Diagnostic>) {
    let line = |s: Span| source.line_col(s.start as usize).line;
    let dup = |what: &str, name: &str, at: Span, first: Span| {
        error(
            DiagnosticKind::Semantic,
            at,
            format!(
                "duplicate definition of {what} `{name}` (first defined on line {})",
                line(first)
            ),
        )
    };
    let mut variables: HashMap<&str, Span> = HashMap::new();
    // Name, and whether a body was seen.
    let mut functions: HashMap<&str, (Span, bool)> = HashMap::new();
    for d in &module.directives {
        match d {
            Directive::Variable(v) => {
                if v.linkage == Some(Linkage::Extern) {
                    continue;
                }
                if let Some(&first) = variables.get(v.name.as_str()) {
                    errors.push(dup("variable", &v.name, v.span, first));
                } else if let Some(&(first, _)) = functions.get(v.name.as_str()) {
                    errors.push(dup("symbol", &v.name, v.span, first));
                } else {
                    variables.insert(&v.name, v.span);
                }
            }
            Directive::Function(f) => {
                let at = f.name_span;
                if let Some(&first) = variables.get(f.name.as_str()) {
                    errors.push(dup("symbol", &f.name, at, first));
                }
                match functions.get_mut(f.name.as_str()) {
                    Some((first, defined)) if f.body.is_some() => {
                        if *defined {
                            errors.push(dup("function", &f.name, at, *first));
                        } else {
                            *first = at;
                            *defined = true;
                        }
                    }
                    Some(_) => {}
                    None => {
                        functions.insert(&f.name, (at, f.body.is_some()));
                    }
                }
                check_function(f, &dup, &line, errors);
            }
            _ => {}
        }
    }
}

/// The names one scope defines.
#[derive(Default)]
struct Scope<'a> {
    names: HashMap<&'a str, Span>,
    /// `%r<4>`: (prefix, count, span).
    ranges: Vec<(&'a str, u32, Span)>,
}

impl<'a> Scope<'a> {
    /// Where `name` was defined in this scope, if it was.
    fn find(&self, name: &str) -> Option<Span> {
        if let Some(&s) = self.names.get(name) {
            return Some(s);
        }
        self.ranges.iter().find_map(|&(prefix, n, span)| {
            let k = name.strip_prefix(prefix)?;
            let in_range = !k.is_empty()
                && k.bytes().all(|b| b.is_ascii_digit())
                && (k == "0" || !k.starts_with('0'))
                && k.parse::<u64>().is_ok_and(|k| k < n as u64);
            in_range.then_some(span)
        })
    }

    /// Where a name of range `prefix<n>` was defined in this scope, if one was.
    fn find_range(&self, prefix: &str, n: u32) -> Option<Span> {
        if let Some(&(_, _, s)) = self.ranges.iter().find(|r| r.0 == prefix) {
            return Some(s);
        }
        self.names.iter().find_map(|(name, &span)| {
            let k = name.strip_prefix(prefix)?;
            let in_range = !k.is_empty()
                && k.bytes().all(|b| b.is_ascii_digit())
                && (k == "0" || !k.starts_with('0'))
                && k.parse::<u64>().is_ok_and(|k| k < n as u64);
            in_range.then_some(span)
        })
    }
}

type Dup<'d> = dyn Fn(&str, &str, Span, Span) -> Diagnostic + 'd;

fn check_function(
    f: &ast::Function,
    dup: &Dup,
    line: &dyn Fn(Span) -> usize,
    errors: &mut Vec<Diagnostic>,
) {
    let mut top = Scope::default();
    for p in f.returns.iter().chain(&f.params) {
        if p.name == "_" || p.name.is_empty() {
            continue;
        }
        match top.find(&p.name) {
            Some(first) => errors.push(dup("parameter", &p.name, p.span, first)),
            None => {
                top.names.insert(&p.name, p.span);
            }
        }
    }
    let Some(body) = &f.body else {
        return;
    };
    let mut labels: HashMap<&str, Span> = HashMap::new();
    scope(body, top, &mut labels, dup, line, errors);
}

fn scope<'a>(
    body: &'a [Statement],
    mut here: Scope<'a>,
    labels: &mut HashMap<&'a str, Span>,
    dup: &Dup,
    line: &dyn Fn(Span) -> usize,
    errors: &mut Vec<Diagnostic>,
) {
    for s in body {
        match s {
            Statement::Variable(v) => {
                let what = if v.space == StateSpace::Reg {
                    "register"
                } else {
                    "variable"
                };
                match v.range {
                    Some(n) => match here.find_range(&v.name, n) {
                        Some(first) => {
                            let name = format!("{}<{n}>", v.name);
                            errors.push(dup(what, &name, v.span, first));
                        }
                        None => here.ranges.push((&v.name, n, v.span)),
                    },
                    None => match here.find(&v.name) {
                        Some(first) => errors.push(dup(what, &v.name, v.span, first)),
                        None => {
                            here.names.insert(&v.name, v.span);
                        }
                    },
                }
            }
            Statement::Label(name, span) => {
                if let Some(first) = here.find(name) {
                    errors.push(dup("label", name, *span, first));
                    continue;
                }
                here.names.insert(name, *span);
                if let Some(&first) = labels.get(name.as_str()) {
                    errors.push(error(
                        DiagnosticKind::Unsupported,
                        *span,
                        format!(
                            "label `{name}` defined again in another scope (first on line {}): labels are the whole function's",
                            line(first)
                        ),
                    ));
                } else {
                    labels.insert(name, *span);
                }
            }
            Statement::CallPrototype(p) => match here.find(&p.name) {
                Some(first) => errors.push(dup("label", &p.name, p.span, first)),
                None => {
                    here.names.insert(&p.name, p.span);
                }
            },
            Statement::BranchTargets { name, span, .. } => match here.find(name) {
                Some(first) => errors.push(dup("label", name, *span, first)),
                None => {
                    here.names.insert(name, *span);
                }
            },
            Statement::Block(inner, _) => {
                scope(inner, Scope::default(), labels, dup, line, errors);
            }
            Statement::Instruction(_) | Statement::Loc(_) | Statement::Pragma(..) => {}
        }
    }
}
