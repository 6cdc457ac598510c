//! The stable text form of the IR (`warpjit check --emit ir`), for golden
//! tests and for reading what a kernel lowered to.

use std::fmt::Write;

use super::{Callee, Function, Module, Op, OpKind, Src, Terminator};

pub fn module_to_string(m: &Module) -> String {
    let mut out = String::new();
    for (id, g) in m.globals.iter() {
        let _ = writeln!(
            out,
            "{id} = {} `{}` size {} align {}{}",
            if g.constant { "const" } else { "global" },
            g.name,
            g.size,
            g.align,
            if g.relocations.is_empty() {
                String::new()
            } else {
                format!(" ({} relocations)", g.relocations.len())
            }
        );
    }
    if m.shared_static_size > 0 {
        let _ = writeln!(
            out,
            "shared static {} bytes, dynamic at {}",
            m.shared_static_size, m.shared_dynamic_offset
        );
    }
    for (id, f) in m.functions.iter() {
        if !f.external {
            function(&mut out, id, f);
        }
    }
    out
}

fn function(out: &mut String, id: super::FuncId, f: &Function) {
    let kind = if f.is_kernel { "kernel" } else { "func" };
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| format!("{}@{}:{}", p.name, p.offset, p.size))
        .collect();
    let _ = writeln!(
        out,
        "\n{kind} {id} `{}`({}) frame {}",
        f.name,
        params.join(", "),
        f.frame_size
    );
    for (r, info) in f.regs.iter() {
        let u = if f.uniform.regs[r] { " uniform" } else { "" };
        let _ = writeln!(out, "  {r}: {:?} {}{u}", info.ty, info.name);
    }
    for (b, data) in f.blocks.iter() {
        let label = data
            .label
            .as_deref()
            .map(|l| format!("  ; {l}"))
            .unwrap_or_default();
        let reconv = match f.cfg.ipdom.get(b).copied().flatten() {
            Some(p) => format!(" (ipdom {p})"),
            None => String::new(),
        };
        let uni = if matches!(
            data.term,
            Terminator::Branch { .. } | Terminator::Switch { .. }
        ) && f.uniform.branches[b]
        {
            " (uniform branch)"
        } else {
            ""
        };
        let _ = writeln!(out, "{b}:{reconv}{uni}{label}");
        for op in &data.ops {
            let _ = writeln!(out, "    {}", op_to_string(op));
        }
        let t = match &data.term {
            Terminator::Jump(t) => format!("jump {t}"),
            Terminator::Branch {
                cond,
                negated,
                taken,
                not_taken,
                uniform,
            } => format!(
                "br{} {}{cond} ? {taken} : {not_taken}",
                if *uniform { ".uni" } else { "" },
                if *negated { "!" } else { "" }
            ),
            Terminator::Switch { index, targets } => {
                let t: Vec<String> = targets.iter().map(|b| b.to_string()).collect();
                format!("switch {index} [{}]", t.join(", "))
            }
            Terminator::Ret => "ret".into(),
            Terminator::Exit => "exit".into(),
            Terminator::Trap => "trap".into(),
            Terminator::Brkpt => "brkpt".into(),
            Terminator::Unset => "<unterminated>".into(),
        };
        let _ = writeln!(out, "    {t}");
    }
}

fn src(s: &Src) -> String {
    match s {
        Src::Reg(r) => r.to_string(),
        Src::Imm(v) => format!("{v:#x}"),
        Src::Global(g, off) => format!("&{g}+{off}"),
        Src::Func(f) => format!("&{f}"),
        Src::FrameAddr(o) => format!("&frame+{o}"),
    }
}

pub fn op_to_string(op: &Op) -> String {
    let mut s = String::new();
    if let Some(g) = op.guard {
        let _ = write!(s, "@{}{} ", if g.negated { "!" } else { "" }, g.reg);
    }
    if !op.dsts.is_empty() {
        let d: Vec<String> = op.dsts.iter().map(|r| r.to_string()).collect();
        let _ = write!(s, "{} = ", d.join(", "));
    }
    let kind = match &op.kind {
        OpKind::Call { callee, args, rets } => {
            let c = match callee {
                Callee::Direct(f) => f.to_string(),
                Callee::Indirect(r) => format!("*{r}"),
                Callee::Printf => "vprintf".into(),
                Callee::AssertFail => "__assertfail".into(),
                Callee::Malloc => "malloc".into(),
                Callee::Free => "free".into(),
            };
            format!("call {c} args {args:?} rets {rets:?}")
        }
        other => format!("{other:?}"),
    };
    let srcs: Vec<String> = op.srcs.iter().map(src).collect();
    let _ = write!(s, "{kind} {}  ; {:?}x{}", srcs.join(", "), op.unit, op.cost);
    s
}
