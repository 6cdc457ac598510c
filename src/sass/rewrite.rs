//! The PTX given to ptxas: the module's own text with one `.loc` before
//! every instruction, naming the instruction's PTX line in a `.file` that
//! is the PTX itself, so that `ptxas -lineinfo` attributes each SASS
//! instruction to the PTX line it came from. The module's own `.file`,
//! `.loc` and debug `.section`s are removed (they name the CUDA source);
//! everything else is unchanged, so ptxas compiles the same code.
//!
//! Also: which PTX lines hold memory instructions, and of what kind (the
//! summary uses them to tell unrolled copies from expanded instructions).

use std::collections::BTreeMap;

use crate::front::ast::{Directive, Instruction, Module, Opcode, StateSpace, Statement};
use crate::front::instr::Kw;
use crate::front::SourceFile;
use crate::timing::costs::MemKind;

/// `text` with a `.loc 1 LINE 1` before every instruction and
/// `.file 1 "file_name"` at the end; `module` is `text` parsed.
pub fn with_line_locs(source: &SourceFile, module: &Module, file_name: &str) -> String {
    // (start, end, replacement), applied back to front.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let target = &module.target;
    if is_debug(module) {
        // `.target sm_80, debug` wants the DWARF sections removed here
        // (ptxas then runs at -O0, as for a -G build).
        let mut t = format!(".target {}", target.arch);
        for o in target.options.iter().filter(|o| *o != "debug") {
            t.push_str(", ");
            t.push_str(o);
        }
        edits.push((target.span.start as usize, target.span.end as usize, t));
    }
    for d in &module.directives {
        match d {
            Directive::File(f) => {
                edits.push((f.span.start as usize, f.span.end as usize, String::new()))
            }
            Directive::Section(s) => {
                edits.push((s.span.start as usize, s.span.end as usize, String::new()))
            }
            Directive::Function(f) => {
                if let Some(body) = &f.body {
                    statements(source, body, &mut edits);
                }
            }
            _ => {}
        }
    }
    edits.sort_by_key(|e| (e.0, e.1));
    let text = source.text();
    let mut out = String::with_capacity(text.len() + edits.len() * 16 + 64);
    let mut at = 0;
    for (start, end, with) in edits {
        let start = start.max(at);
        out.push_str(&text[at..start]);
        out.push_str(&with);
        at = end.max(start);
    }
    out.push_str(&text[at..]);
    let name = file_name.replace(['"', '\\'], "_");
    out.push_str(&format!("\n\t.file\t1 \"{name}\"\n"));
    out
}

/// Whether the module is a device-debug build (`.target ..., debug`).
pub fn is_debug(module: &Module) -> bool {
    module.target.options.iter().any(|o| o == "debug")
}

fn statements(source: &SourceFile, body: &[Statement], edits: &mut Vec<(usize, usize, String)>) {
    for s in body {
        match s {
            Statement::Instruction(ins) => {
                let start = ins.span.start as usize;
                let line = source.line_col(start).line;
                edits.push((start, start, format!(".loc\t1 {line} 1\n\t")));
            }
            Statement::Loc(l) => {
                edits.push((l.span.start as usize, l.span.end as usize, String::new()))
            }
            Statement::Block(inner, _) => statements(source, inner, edits),
            _ => {}
        }
    }
}

/// Per PTX line, its memory instructions by kind and whether they read
/// constant space (parameter space excluded: kernel parameters become
/// constant-bank operands, call arguments registers).
pub fn memory_lines(
    source: &SourceFile,
    module: &Module,
) -> BTreeMap<u32, BTreeMap<(MemKind, bool), u32>> {
    let mut out = BTreeMap::new();
    for f in module.functions() {
        if let Some(body) = &f.body {
            memory_in(source, body, &mut out);
        }
    }
    out
}

fn memory_in(
    source: &SourceFile,
    body: &[Statement],
    out: &mut BTreeMap<u32, BTreeMap<(MemKind, bool), u32>>,
) {
    for s in body {
        match s {
            Statement::Instruction(ins) => {
                if let Some(key) = memory_kind(ins) {
                    let line = source.line_col(ins.span.start as usize).line as u32;
                    *out.entry(line).or_default().entry(key).or_default() += 1;
                }
            }
            Statement::Block(inner, _) => memory_in(source, inner, out),
            _ => {}
        }
    }
}

/// The kind of memory instruction `ins` is, if any.
pub fn memory_kind(ins: &Instruction) -> Option<(MemKind, bool)> {
    let space = ins.space();
    if matches!(space, Some(StateSpace::Param)) {
        return None;
    }
    let constant = matches!(space, Some(StateSpace::Const));
    let kind = match ins.opcode {
        Opcode::Ld | Opcode::Ldu | Opcode::Ldmatrix | Opcode::Tex | Opcode::Tld4 | Opcode::Suld => {
            MemKind::Load
        }
        Opcode::St | Opcode::Stmatrix | Opcode::Sust => MemKind::Store,
        Opcode::Atom | Opcode::Red | Opcode::Sured => MemKind::Atomic,
        Opcode::Cp if ins.has(Kw::Async) => MemKind::AsyncCopy,
        _ => return None,
    };
    Some((kind, constant && kind == MemKind::Load))
}

#[cfg(test)]
mod tests {
    use crate::front::{self, SourceFile};

    const PTX: &str = r#".version 8.8
.target sm_80
.address_size 64

.visible .entry k(.param .u64 p)
{
	.reg .b32 	%r<4>;
	.reg .pred 	%p<2>;
	.reg .b64 	%rd<4>;
	.loc	1 7 0
	ld.param.u64 	%rd1, [p];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	setp.eq.s32 	%p1, %r1, 0;
$L__BB0_1:	@%p1 st.global.u32 	[%rd2], %r1;
	{
	.reg .b32 t;
	add.s32 t, %r1, 1; ld.global.u32 %r2, [%rd2+4];
	}
	ret;
}
	.file	1 "/src/kernel.cu"
	.section	.debug_str
	{
$L__info_string0:
.b8 95,0
	}
"#;

    #[test]
    fn every_instruction_gets_its_line() {
        let source = SourceFile::new("k.ptx".to_string(), PTX.to_string());
        let module = front::parse(&source).unwrap();
        let out = super::with_line_locs(&source, &module, "k.ptx");
        assert!(!out.contains("kernel.cu") && !out.contains(".debug_str"));
        assert!(!out.contains(".loc\t1 7 0"));
        for (line, text) in [
            (11, "ld.param.u64"),
            (12, "cvta.to.global"),
            (15, "@%p1 st.global"),
            (18, "add.s32 t"),
            (18, "ld.global.u32"),
            (20, "ret;"),
        ] {
            let loc = format!(".loc\t1 {line} 1\n\t{text}");
            assert!(out.contains(&loc), "{loc:?} in\n{out}");
        }
        assert!(out.ends_with("\t.file\t1 \"k.ptx\"\n"));
        // The rewritten module still parses, with the same instructions.
        let again = front::parse_str("r.ptx", &out).unwrap();
        assert_eq!(again.functions().count(), module.functions().count());
        let mem = super::memory_lines(&source, &module);
        let lines: Vec<u32> = mem.keys().copied().collect();
        assert_eq!(lines, [15, 18]);
    }
}
