//! The printer: AST back to PTX text.
//!
//! The output is canonical PTX (one statement per line, immediates as
//! `0f`/`0d` hex floats and decimal integers) that parses back to an equal AST;
//! `tests/roundtrip.rs` checks this over the whole corpus.

use std::fmt::{self, Write};

use super::ast::*;

/// Prints a whole module.
pub fn module_to_string(m: &Module) -> String {
    let mut out = String::new();
    write_module(&mut out, m).expect("writing to a String cannot fail");
    out
}

/// Prints one instruction (without indentation or newline).
pub fn instruction_to_string(ins: &Instruction) -> String {
    let mut out = String::new();
    write_instruction(&mut out, ins).expect("writing to a String cannot fail");
    out
}

fn write_module(out: &mut String, m: &Module) -> fmt::Result {
    writeln!(out, ".version {}.{}", m.version.0, m.version.1)?;
    write!(out, ".target {}", m.target.arch)?;
    for o in &m.target.options {
        write!(out, ", {o}")?;
    }
    writeln!(out)?;
    writeln!(out, ".address_size {}", m.address_size)?;
    for d in &m.directives {
        writeln!(out)?;
        match d {
            Directive::Variable(v) => {
                write_variable(out, v)?;
                writeln!(out)?;
            }
            Directive::Function(f) => write_function(out, f)?,
            Directive::File(f) => {
                write!(out, ".file {} ", f.index)?;
                write_string(out, &f.path)?;
                for x in &f.extra {
                    write!(out, ", {x}")?;
                }
                writeln!(out)?;
            }
            Directive::Section(s) => writeln!(out, ".section {}\n{{{}}}", s.name, s.body)?,
            Directive::Alias { alias, target, .. } => writeln!(out, ".alias {alias}, {target};")?,
            Directive::Pragma(p, _) => {
                write!(out, ".pragma ")?;
                write_string(out, p)?;
                writeln!(out, ";")?;
            }
        }
    }
    Ok(())
}

fn write_string(out: &mut String, s: &str) -> fmt::Result {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    Ok(())
}

fn write_dims(out: &mut String, dims: &[Option<u64>]) -> fmt::Result {
    for d in dims {
        match d {
            Some(n) => write!(out, "[{n}]")?,
            None => write!(out, "[]")?,
        }
    }
    Ok(())
}

fn write_variable(out: &mut String, v: &Variable) -> fmt::Result {
    if let Some(l) = v.linkage {
        write!(out, ".{l} ")?;
    }
    write!(out, ".{}", v.space)?;
    for a in &v.attributes {
        write!(out, " .attribute(.{a})")?;
    }
    if let Some(a) = v.align {
        write!(out, " .align {a}")?;
    }
    if let Some(n) = v.vector {
        write!(out, " .v{n}")?;
    }
    write!(out, " .{} {}", v.ty, v.name)?;
    if let Some(n) = v.range {
        write!(out, "<{n}>")?;
    }
    write_dims(out, &v.dims)?;
    if let Some(init) = &v.init {
        write!(out, " = ")?;
        write_initializer(out, init)?;
    }
    write!(out, ";")
}

fn write_initializer(out: &mut String, init: &Initializer) -> fmt::Result {
    match init {
        Initializer::Imm(imm) => write_imm(out, *imm),
        Initializer::Symbol { name, offset } => {
            write!(out, "{name}")?;
            write_offset(out, *offset)
        }
        Initializer::Generic { name, offset } => {
            write!(out, "generic({name})")?;
            write_offset(out, *offset)
        }
        Initializer::List(items) => {
            out.push('{');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                write_initializer(out, item)?;
            }
            out.push('}');
            Ok(())
        }
    }
}

fn write_offset(out: &mut String, offset: i64) -> fmt::Result {
    if offset != 0 {
        write!(out, "+{offset}")?;
    }
    Ok(())
}

fn write_imm(out: &mut String, imm: Imm) -> fmt::Result {
    match imm {
        Imm::Int(v) => write!(out, "{v}"),
        Imm::F32(bits) => write!(out, "0f{bits:08X}"),
        Imm::F64(bits) => write!(out, "0d{bits:016X}"),
    }
}

fn write_param(out: &mut String, p: &Param) -> fmt::Result {
    write!(out, ".{}", p.space)?;
    if let Some(a) = p.align {
        write!(out, " .align {a}")?;
    }
    if let Some(n) = p.vector {
        write!(out, " .v{n}")?;
    }
    write!(out, " .{}", p.ty)?;
    if let Some(ptr) = &p.ptr {
        write!(out, " .ptr")?;
        if let Some(s) = ptr.space {
            write!(out, " .{s}")?;
        }
        if let Some(a) = ptr.align {
            write!(out, " .align {a}")?;
        }
    }
    write!(out, " {}", p.name)?;
    write_dims(out, &p.dims)
}

fn write_params(out: &mut String, params: &[Param]) -> fmt::Result {
    out.push('(');
    for (k, p) in params.iter().enumerate() {
        out.push_str(if k > 0 { ",\n\t" } else { "\n\t" });
        write_param(out, p)?;
    }
    if !params.is_empty() {
        out.push('\n');
    }
    out.push(')');
    Ok(())
}

fn write_numbers(out: &mut String, nums: &[u32]) -> fmt::Result {
    for (k, n) in nums.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        write!(out, "{n}")?;
    }
    Ok(())
}

fn write_pragma_strings(out: &mut String, strings: &[String]) -> fmt::Result {
    write!(out, ".pragma ")?;
    for (k, s) in strings.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        write_string(out, s)?;
    }
    out.push(';');
    Ok(())
}

fn write_function(out: &mut String, f: &Function) -> fmt::Result {
    if let Some(l) = f.linkage {
        write!(out, ".{l} ")?;
    }
    match f.kind {
        FunctionKind::Entry => write!(out, ".entry ")?,
        FunctionKind::Func => {
            write!(out, ".func ")?;
            if !f.returns.is_empty() {
                write_params(out, &f.returns)?;
                out.push(' ');
            }
        }
    }
    write!(out, "{}", f.name)?;
    write_params(out, &f.params)?;
    for a in &f.attributes {
        out.push('\n');
        match a {
            FunctionAttribute::Maxntid(n) => {
                write!(out, ".maxntid ")?;
                write_numbers(out, n)?;
            }
            FunctionAttribute::Reqntid(n) => {
                write!(out, ".reqntid ")?;
                write_numbers(out, n)?;
            }
            FunctionAttribute::Reqnctapercluster(n) => {
                write!(out, ".reqnctapercluster ")?;
                write_numbers(out, n)?;
            }
            FunctionAttribute::Minnctapersm(n) => write!(out, ".minnctapersm {n}")?,
            FunctionAttribute::Maxnctapersm(n) => write!(out, ".maxnctapersm {n}")?,
            FunctionAttribute::Maxnreg(n) => write!(out, ".maxnreg {n}")?,
            FunctionAttribute::Maxclusterrank(n) => write!(out, ".maxclusterrank {n}")?,
            FunctionAttribute::Noreturn => write!(out, ".noreturn")?,
            FunctionAttribute::Explicitcluster => write!(out, ".explicitcluster")?,
            FunctionAttribute::Pragma(s) => write_pragma_strings(out, s)?,
            FunctionAttribute::Other(name, n) => {
                write!(out, ".{name} ")?;
                write_numbers(out, n)?;
            }
        }
    }
    match &f.body {
        None => writeln!(out, ";"),
        Some(body) => {
            writeln!(out, "\n{{")?;
            write_statements(out, body, 1)?;
            writeln!(out, "}}")
        }
    }
}

fn write_statements(out: &mut String, body: &[Statement], depth: usize) -> fmt::Result {
    for s in body {
        let indent = "\t".repeat(depth);
        match s {
            Statement::Label(name, _) => writeln!(out, "{name}:")?,
            Statement::Instruction(ins) => {
                out.push_str(&indent);
                write_instruction(out, ins)?;
                out.push('\n');
            }
            Statement::Variable(v) => {
                out.push_str(&indent);
                write_variable(out, v)?;
                out.push('\n');
            }
            Statement::Loc(l) => {
                write!(out, "{indent}.loc {} {} {}", l.file, l.line, l.col)?;
                if let Some((name, off)) = &l.function_name {
                    write!(out, ", function_name {name}")?;
                    write_offset(out, *off)?;
                }
                if let Some((f, ln, c)) = l.inlined_at {
                    write!(out, ", inlined_at {f} {ln} {c}")?;
                }
                out.push('\n');
            }
            Statement::Pragma(strings, _) => {
                out.push_str(&indent);
                write_pragma_strings(out, strings)?;
                out.push('\n');
            }
            Statement::Block(inner, _) => {
                writeln!(out, "{indent}{{")?;
                write_statements(out, inner, depth + 1)?;
                writeln!(out, "{indent}}}")?;
            }
            Statement::CallPrototype(p) => {
                write!(out, "{indent}{}: .callprototype ", p.name)?;
                if !p.returns.is_empty() {
                    write_params(out, &p.returns)?;
                    out.push(' ');
                }
                out.push('_');
                out.push(' ');
                write_params(out, &p.params)?;
                if p.noreturn {
                    out.push_str(" .noreturn");
                }
                out.push_str(";\n");
            }
            Statement::BranchTargets { name, labels, .. } => {
                writeln!(out, "{indent}{name}: .branchtargets {};", labels.join(", "))?;
            }
        }
    }
    Ok(())
}

fn write_instruction(out: &mut String, ins: &Instruction) -> fmt::Result {
    if let Some(g) = &ins.guard {
        write!(out, "@{}{} ", if g.negated { "!" } else { "" }, g.pred)?;
    }
    out.push_str(ins.opcode.name());
    for m in &ins.modifiers {
        write!(out, ".{m}")?;
    }
    for (k, op) in ins.operands.iter().enumerate() {
        out.push_str(if k == 0 { " " } else { ", " });
        write_operand(out, op)?;
    }
    out.push(';');
    Ok(())
}

fn write_list(out: &mut String, items: &[Operand], open: char, close: char) -> fmt::Result {
    out.push(open);
    for (k, op) in items.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        write_operand(out, op)?;
    }
    out.push(close);
    Ok(())
}

fn write_operand(out: &mut String, op: &Operand) -> fmt::Result {
    match &op.kind {
        OperandKind::Name { name, component } => {
            out.push_str(name);
            if let Some(c) = component {
                write!(out, ".{}", c.name())?;
            }
            Ok(())
        }
        OperandKind::SymbolOffset { name, offset } => write!(out, "{name}+{offset}"),
        OperandKind::Imm(imm) => write_imm(out, *imm),
        OperandKind::Vector(items) => write_list(out, items, '{', '}'),
        OperandKind::VectorPred { items, pred } => {
            write_list(out, items, '{', '}')?;
            write!(out, "|{pred}")
        }
        OperandKind::Address { base, offset } => match base {
            Some(b) => {
                write!(out, "[{b}")?;
                write_offset(out, *offset)?;
                out.push(']');
                Ok(())
            }
            None => write!(out, "[{}]", *offset as u64),
        },
        OperandKind::AddressList(items) => write_list(out, items, '[', ']'),
        OperandKind::List(items) => write_list(out, items, '(', ')'),
        OperandKind::Not(inner) => {
            out.push('!');
            write_operand(out, inner)
        }
        OperandKind::Neg(inner) => {
            out.push('-');
            write_operand(out, inner)
        }
        OperandKind::Select { base, sel } => {
            write_operand(out, base)?;
            write!(out, "{sel}")
        }
        OperandKind::PredPair(a, b) => write!(out, "{a}|{b}"),
        OperandKind::Sink => {
            out.push('_');
            Ok(())
        }
    }
}
