//! Lowering one function body: scopes and registers, labels and blocks,
//! control flow, operands. Instruction families live in `instr`, `mem`
//! and `warp`; this file is the frame they share.

use std::collections::HashMap;

use cranelift_codegen::entity::PrimaryMap;

use super::layout::{align_up, param_slots};

/// Registers one function may declare (the corpus's largest range is
/// `%r<1551>`): a declaration far beyond that (`%r<100000000>`) is refused
/// at its line rather than built, in time and memory it would not bound.
const MAX_REGS: u64 = 1 << 18;
use super::mods::ty_of;
use super::{error, unsupported, ModuleCtx, ModuleSym};
use crate::front::ast::{self, Instruction, Opcode, Operand, OperandKind, StateSpace, Statement};
use crate::front::{Diagnostic, DiagnosticKind, Span};
use crate::ir::{
    cfg::CfgInfo, Block, BlockData, ClusterReg, FuncId, Function, Guard, Op, OpKind, ParamSlot,
    Reg, ReservedSmem, SpecialReg, Src, Terminator, Ty, Unit,
};

/// A function-scope name.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Sym {
    Reg(Reg),
    /// A `.local` variable at this frame offset.
    Local(u32),
    /// A `.param` slot in this frame (function params, returns, call arguments).
    FrameParam(u32),
    /// A kernel parameter at this offset of the parameter buffer.
    KernelParam(u32),
    /// A function-scope `.shared` variable.
    Shared(u32),
}

/// A declared call prototype: parameter and return slots.
pub(crate) type Prototype = (Vec<ParamSlot>, Vec<ParamSlot>);

pub(crate) struct FnLower<'a> {
    pub ctx: &'a ModuleCtx,
    pub id: FuncId,
    pub f: Function,
    scopes: Vec<HashMap<String, Sym>>,
    labels: HashMap<String, Block>,
    pub prototypes: HashMap<String, Prototype>,
    pub branch_targets: HashMap<String, Vec<String>>,
    pub cur: Block,
    /// The carry flag of `add.cc` chains.
    cc: Option<Reg>,
    /// The last `.loc` seen: (file index, line).
    loc: Option<(u32, u32)>,
    pub errors: &'a mut Vec<Diagnostic>,
}

pub(crate) fn new_function(
    f: &ast::Function,
    params: Vec<ParamSlot>,
    returns: Vec<ParamSlot>,
    param_bytes: u32,
) -> Function {
    let is_kernel = f.kind == ast::FunctionKind::Entry;
    let mut blocks = PrimaryMap::new();
    let entry = blocks.push(BlockData {
        label: None,
        ops: Vec::new(),
        term: Terminator::Unset,
        term_span: f.span,
    });
    // A .func's frame starts with its parameter slots, then its return slots.
    let mut frame_size = if is_kernel { 0 } else { param_bytes };
    let mut returns = returns;
    if !is_kernel {
        for r in &mut returns {
            frame_size = align_up(frame_size as u64, r.align as u64) as u32;
            r.offset += frame_size;
        }
        frame_size += returns.last().map(|r| r.size).unwrap_or(0);
    }
    let dims = |attr: &dyn Fn(&ast::FunctionAttribute) -> Option<&Vec<u32>>| {
        f.attributes.iter().find_map(attr).map(|v| {
            let mut d = [1u32; 3];
            for (i, x) in v.iter().take(3).enumerate() {
                d[i] = *x;
            }
            d
        })
    };
    Function {
        name: f.name.clone(),
        is_kernel: is_kernel && f.body.is_some(),
        external: f.body.is_none(),
        params,
        returns,
        param_bytes,
        regs: PrimaryMap::new(),
        blocks,
        entry,
        frame_size,
        frame_align: 16,
        cfg: CfgInfo::default(),
        uniform: Default::default(),
        slots: Default::default(),
        shared_used: Vec::new(),
        reqntid: dims(&|a| match a {
            ast::FunctionAttribute::Reqntid(v) => Some(v),
            _ => None,
        }),
        maxntid: dims(&|a| match a {
            ast::FunctionAttribute::Maxntid(v) => Some(v),
            _ => None,
        }),
        reqnctapercluster: dims(&|a| match a {
            ast::FunctionAttribute::Reqnctapercluster(v) => Some(v),
            _ => None,
        }),
        explicit_cluster: f
            .attributes
            .iter()
            .any(|a| matches!(a, ast::FunctionAttribute::Explicitcluster)),
        maxnreg: f.attributes.iter().find_map(|a| match a {
            ast::FunctionAttribute::Maxnreg(n) => Some(*n),
            _ => None,
        }),
        unsupported: Vec::new(),
        span: f.span,
    }
}

pub(crate) fn lower_body(
    ctx: &ModuleCtx,
    id: FuncId,
    f: &ast::Function,
    declared: &Function,
    errors: &mut Vec<Diagnostic>,
) -> Function {
    let mut lw = FnLower {
        ctx,
        id,
        f: declared.clone(),
        scopes: vec![HashMap::new()],
        labels: HashMap::new(),
        prototypes: HashMap::new(),
        branch_targets: HashMap::new(),
        cur: declared.entry,
        cc: None,
        loc: None,
        errors,
    };
    let body = f.body.as_deref().unwrap_or(&[]);
    // Labels are function-scoped: make their blocks first so branches can go forward.
    super::walk_statements(body, &mut |s| {
        if let Statement::Label(name, span) = s {
            let b = lw.f.blocks.push(BlockData {
                label: Some(name.clone()),
                ops: Vec::new(),
                term: Terminator::Unset,
                term_span: *span,
            });
            lw.labels.insert(name.clone(), b);
        }
    });
    let is_kernel = f.kind == ast::FunctionKind::Entry;
    for p in &lw.f.params.clone() {
        let sym = if is_kernel {
            Sym::KernelParam(p.offset)
        } else {
            Sym::FrameParam(p.offset)
        };
        lw.scopes[0].insert(p.name.clone(), sym);
    }
    for r in &lw.f.returns.clone() {
        lw.scopes[0].insert(r.name.clone(), Sym::FrameParam(r.offset));
    }
    lw.statements(body);
    let end = if is_kernel {
        Terminator::Exit
    } else {
        Terminator::Ret
    };
    if lw.f.blocks[lw.cur].term == Terminator::Unset {
        lw.f.blocks[lw.cur].term = end.clone();
    }
    for (_, b) in lw.f.blocks.iter_mut() {
        if b.term == Terminator::Unset {
            b.term = end.clone();
        }
    }
    lw.f.frame_size = align_up(lw.f.frame_size as u64, 16) as u32;
    lw.f
}

impl FnLower<'_> {
    fn statements(&mut self, body: &[Statement]) {
        for s in body {
            match s {
                Statement::Instruction(ins) => {
                    if let Err(e) = self.instruction(ins) {
                        self.errors.push(e);
                    }
                }
                Statement::Label(name, _) => {
                    let target = self.labels[name];
                    if self.f.blocks[self.cur].term == Terminator::Unset {
                        self.f.blocks[self.cur].term = Terminator::Jump(target);
                    }
                    self.cur = target;
                }
                Statement::Variable(v) => self.declare(v),
                Statement::Block(inner, _) => {
                    self.scopes.push(HashMap::new());
                    self.statements(inner);
                    self.scopes.pop();
                }
                Statement::CallPrototype(p) => {
                    let (params, _) = param_slots(&p.params, false);
                    let (returns, _) = param_slots(&p.returns, false);
                    self.prototypes.insert(p.name.clone(), (params, returns));
                }
                Statement::BranchTargets { name, labels, .. } => {
                    self.branch_targets.insert(name.clone(), labels.clone());
                }
                Statement::Loc(l) => self.loc = Some((l.file, l.line)),
                Statement::Pragma(..) => {}
            }
        }
    }

    fn declare(&mut self, v: &ast::Variable) {
        let scope = self.scopes.last_mut().unwrap();
        match v.space {
            StateSpace::Reg => {
                let Some(ty) = ty_of(v.ty) else {
                    self.errors.push(unsupported(
                        v.span,
                        format_args!("registers of type .{}", v.ty),
                    ));
                    return;
                };
                if v.vector.is_some() || !v.dims.is_empty() {
                    self.errors
                        .push(unsupported(v.span, "vector or array registers"));
                    return;
                }
                let declared = self.f.regs.len() as u64 + v.range.unwrap_or(1) as u64;
                if declared > MAX_REGS {
                    let msg = format!(
                        "`{}` makes {declared} registers in one function; warpjit takes at most {MAX_REGS}",
                        v.name
                    );
                    self.errors
                        .push(error(DiagnosticKind::Semantic, v.span, msg));
                    return;
                }
                match v.range {
                    Some(n) => {
                        for k in 0..n {
                            let name = format!("{}{k}", v.name);
                            let r = self.f.new_reg(ty, name.clone());
                            self.scopes.last_mut().unwrap().insert(name, Sym::Reg(r));
                        }
                    }
                    None => {
                        let r = self.f.new_reg(ty, v.name.clone());
                        scope.insert(v.name.clone(), Sym::Reg(r));
                    }
                }
            }
            StateSpace::Local | StateSpace::Param => {
                let elem = v.ty.size_bytes() as u64 * v.vector.unwrap_or(1) as u64;
                let size = if v.dims.is_empty() {
                    elem
                } else {
                    v.size_bytes()
                };
                let align = v.align.map(u64::from).unwrap_or(elem).clamp(1, 4096);
                let off = align_up(self.f.frame_size as u64, align);
                if off.saturating_add(size) > super::layout::MAX_FRAME_BYTES {
                    let max = super::layout::MAX_FRAME_BYTES;
                    let msg = format!(
                        "`{}` makes the per-thread frame larger than {max} bytes",
                        v.name
                    );
                    self.errors
                        .push(error(DiagnosticKind::Semantic, v.span, msg));
                    return;
                }
                let off = off as u32;
                self.f.frame_size = off + size as u32;
                self.f.frame_align = self.f.frame_align.max(align as u32);
                let sym = if v.space == StateSpace::Local {
                    Sym::Local(off)
                } else {
                    Sym::FrameParam(off)
                };
                scope.insert(v.name.clone(), sym);
            }
            StateSpace::Shared | StateSpace::SharedCta => {
                match self.ctx.func_shared.get(&(self.id, v.name.clone())) {
                    Some(&(off, var)) => {
                        scope.insert(v.name.clone(), Sym::Shared(off));
                        self.f.shared_used.push(var);
                    }
                    None => self.errors.push(error(
                        DiagnosticKind::Semantic,
                        v.span,
                        format!(
                            "`{}` takes static shared memory past what a block can have",
                            v.name
                        ),
                    )),
                }
            }
            other => self.errors.push(unsupported(
                v.span,
                format_args!("function-scope `.{other}` variable `{}`", v.name),
            )),
        }
    }

    pub fn lookup(&self, name: &str) -> Option<Sym> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// Whether an operand is a predicate: `!p`, or a register declared
    /// `.pred` (what tells `cp.async`'s ignore-src from its src-size).
    pub fn is_predicate(&self, op: &Operand) -> bool {
        match &op.kind {
            OperandKind::Not(_) => true,
            OperandKind::Name {
                name,
                component: None,
            } => matches!(self.lookup(name), Some(Sym::Reg(r)) if self.f.regs[r].ty == Ty::Pred),
            _ => false,
        }
    }

    /// A fresh temporary register.
    pub fn temp(&mut self, ty: Ty) -> Reg {
        let n = self.f.regs.len();
        self.f.new_reg(ty, format!("%tmp{n}"))
    }

    pub fn carry_reg(&mut self) -> Reg {
        match self.cc {
            Some(r) => r,
            None => {
                let r = self.f.new_reg(Ty::Pred, "%cc");
                self.cc = Some(r);
                r
            }
        }
    }

    pub fn guard(&self, ins: &Instruction) -> Result<Option<Guard>, Diagnostic> {
        match &ins.guard {
            None => Ok(None),
            Some(g) => match self.lookup(&g.pred) {
                Some(Sym::Reg(reg)) => Ok(Some(Guard {
                    reg,
                    negated: g.negated,
                })),
                _ => Err(error(
                    DiagnosticKind::Semantic,
                    g.span,
                    format!("unknown predicate `{}`", g.pred),
                )),
            },
        }
    }

    /// Appends an op to the current block.
    pub fn emit(
        &mut self,
        ins: &Instruction,
        kind: OpKind,
        dsts: Vec<Reg>,
        srcs: Vec<Src>,
        unit: Unit,
        cost: u16,
    ) -> Result<(), Diagnostic> {
        let guard = self.guard(ins)?;
        self.f.blocks[self.cur].ops.push(Op {
            kind,
            dsts,
            srcs,
            guard,
            unit,
            cost,
            span: ins.span,
            loc: self.loc,
            order: mem_order(ins),
        });
        Ok(())
    }

    /// Ends the current block with `term` and continues in a fresh block.
    pub fn terminate(&mut self, term: Terminator, span: Span) {
        let b = &mut self.f.blocks[self.cur];
        b.term = term;
        b.term_span = span;
        self.cur = self.new_block(span);
    }

    pub fn new_block(&mut self, span: Span) -> Block {
        self.f.blocks.push(BlockData {
            label: None,
            ops: Vec::new(),
            term: Terminator::Unset,
            term_span: span,
        })
    }

    pub fn label(&self, name: &str, span: Span) -> Result<Block, Diagnostic> {
        self.labels.get(name).copied().ok_or_else(|| {
            error(
                DiagnosticKind::Semantic,
                span,
                format!("unknown label `{name}`"),
            )
        })
    }

    /// Lowers `ins` as a control-flow instruction ending the block with `term`
    /// (guarded forms branch around it).
    pub fn control(&mut self, ins: &Instruction, term: Terminator) -> Result<(), Diagnostic> {
        match self.guard(ins)? {
            None => self.terminate(term, ins.span),
            Some(g) => {
                let target = match term {
                    Terminator::Jump(t) => t,
                    other => {
                        let t = self.new_block(ins.span);
                        self.f.blocks[t].term = other;
                        t
                    }
                };
                let next = self.new_block(ins.span);
                let uniform = ins.has(ast::Kw::Uni);
                let b = &mut self.f.blocks[self.cur];
                b.term = Terminator::Branch {
                    cond: g.reg,
                    negated: g.negated,
                    taken: target,
                    not_taken: next,
                    uniform,
                };
                b.term_span = ins.span;
                self.cur = next;
            }
        }
        Ok(())
    }

    /// A source operand as a value of type `ty`.
    pub fn src(&mut self, ins: &Instruction, op: &Operand, ty: Ty) -> Result<Src, Diagnostic> {
        match &op.kind {
            OperandKind::Imm(imm) => Ok(Src::Imm(imm_for(*imm, ty))),
            OperandKind::Name { name, component } => {
                self.named(ins, name, *component, 0, op.span, ty)
            }
            OperandKind::SymbolOffset { name, offset } => {
                self.named(ins, name, None, *offset, op.span, ty)
            }
            OperandKind::Not(_) => Err(unsupported(op.span, "a negated operand here")),
            _ => Err(error(
                DiagnosticKind::Semantic,
                op.span,
                "expected a register, a symbol or an immediate",
            )),
        }
    }

    /// A source that must be a register (or is copied into one).
    pub fn src_reg(&mut self, ins: &Instruction, op: &Operand, ty: Ty) -> Result<Reg, Diagnostic> {
        match self.src(ins, op, ty)? {
            Src::Reg(r) => Ok(r),
            other => {
                let t = self.temp(ty);
                self.emit(ins, OpKind::Mov, vec![t], vec![other], Unit::Int, 1)?;
                Ok(t)
            }
        }
    }

    fn named(
        &mut self,
        ins: &Instruction,
        name: &str,
        component: Option<ast::Component>,
        offset: i64,
        span: Span,
        ty: Ty,
    ) -> Result<Src, Diagnostic> {
        if let Some(sreg) = special_register(name, component) {
            let t = self.temp(
                if matches!(
                    sreg,
                    SpecialReg::Clock64
                        | SpecialReg::Globaltimer
                        | SpecialReg::Gridid
                        | SpecialReg::Pm64(_)
                        | SpecialReg::CurrentGraphExec
                ) {
                    Ty::U64
                } else {
                    Ty::U32
                },
            );
            self.emit_unguarded(
                ins,
                OpKind::ReadSpecial(sreg),
                vec![t],
                vec![],
                Unit::Int,
                1,
            );
            return Ok(Src::Reg(t));
        }
        if component.is_some() {
            return Err(unsupported(
                span,
                format_args!("vector component of `{name}`"),
            ));
        }
        let off = |base: u32| (base as i64 + offset) as u64;
        // The PTX ISA's predefined identifier `WARP_SZ`: the warp size as
        // a run-time constant, usable wherever an immediate is.
        if name == "WARP_SZ" && self.lookup(name).is_none() && !self.ctx.syms.contains_key(name) {
            return Ok(Src::Imm((32 + offset) as u64));
        }
        match self.lookup(name) {
            Some(Sym::Reg(r)) if offset == 0 => return Ok(Src::Reg(r)),
            Some(Sym::Reg(_)) => {
                return Err(unsupported(span, "register plus offset outside an address"))
            }
            Some(Sym::Local(o)) => return Ok(Src::FrameAddr(off(o) as u32)),
            Some(Sym::Shared(o)) => return Ok(Src::Imm(off(o))),
            // A kernel parameter's address in the parameter space (what
            // `ld.param` through a register takes, as NVRTC does to index
            // a struct parameter).
            Some(Sym::KernelParam(o)) => return Ok(Src::Imm(off(o))),
            // A device function's parameter (or a `.param` variable of its
            // body) lives in the thread's frame: its address is a `.local`
            // one, for `ld.local`/`st.local` (PTX ISA §5.1.6.2: the
            // parameter is copied to the stack), `cvta.param` and
            // `ld.param`/`st.param` through a register. In a kernel those
            // mean its own parameters, so a body's `.param` is refused.
            Some(Sym::FrameParam(o)) if !self.f.is_kernel => {
                return Ok(Src::FrameAddr(off(o) as u32))
            }
            Some(Sym::FrameParam(_)) => {
                return Err(unsupported(
                    span,
                    format_args!("taking the address of a kernel's `.param` variable `{name}`"),
                ))
            }
            None => {}
        }
        let _ = ty;
        match self.ctx.syms.get(name) {
            Some(ModuleSym::Global(g)) => Ok(Src::Global(*g, offset)),
            Some(&ModuleSym::Shared { offset, var }) => {
                self.f.shared_used.push(var);
                Ok(Src::Imm(off(offset)))
            }
            Some(ModuleSym::DynamicShared) => Ok(Src::Imm(off(self.ctx.shared_dynamic_offset))),
            Some(ModuleSym::Func(f)) => Ok(Src::Func(*f)),
            None => Err(error(
                DiagnosticKind::Semantic,
                span,
                format!("`{name}` is not declared"),
            )),
        }
    }

    fn emit_unguarded(
        &mut self,
        ins: &Instruction,
        kind: OpKind,
        dsts: Vec<Reg>,
        srcs: Vec<Src>,
        unit: Unit,
        cost: u16,
    ) {
        self.f.blocks[self.cur].ops.push(Op {
            kind,
            dsts,
            srcs,
            guard: None,
            unit,
            cost,
            span: ins.span,
            loc: self.loc,
            order: mem_order(ins),
        });
    }

    /// A destination register (`_` gives a fresh temporary).
    pub fn dst(&mut self, op: &Operand, ty: Ty) -> Result<Reg, Diagnostic> {
        match &op.kind {
            OperandKind::Sink => Ok(self.temp(ty)),
            OperandKind::Name {
                name,
                component: None,
            } => match self.lookup(name) {
                Some(Sym::Reg(r)) => Ok(r),
                _ => Err(error(
                    DiagnosticKind::Semantic,
                    op.span,
                    format!("`{name}` is not a register"),
                )),
            },
            _ => Err(error(
                DiagnosticKind::Semantic,
                op.span,
                "expected a destination register",
            )),
        }
    }

    /// The operands, checking their number.
    pub fn operands<'i>(
        &self,
        ins: &'i Instruction,
        n: std::ops::RangeInclusive<usize>,
    ) -> Result<&'i [Operand], Diagnostic> {
        if n.contains(&ins.operands.len()) {
            Ok(&ins.operands)
        } else {
            Err(error(
                DiagnosticKind::Semantic,
                ins.span,
                format!(
                    "`{}` takes {} operands, found {}",
                    ins.opcode.name(),
                    if n.start() == n.end() {
                        n.start().to_string()
                    } else {
                        format!("{} to {}", n.start(), n.end())
                    },
                    ins.operands.len()
                ),
            ))
        }
    }

    fn instruction(&mut self, ins: &Instruction) -> Result<(), Diagnostic> {
        use Opcode::*;
        match ins.opcode {
            Bra => {
                let ops = self.operands(ins, 1..=1)?;
                let name = ops[0].name().ok_or_else(|| {
                    error(DiagnosticKind::Semantic, ops[0].span, "expected a label")
                })?;
                let target = self.label(name, ops[0].span)?;
                self.control(ins, Terminator::Jump(target))
            }
            Ret => {
                let t = if self.f.is_kernel {
                    Terminator::Exit
                } else {
                    Terminator::Ret
                };
                self.control(ins, t)
            }
            Exit => self.control(ins, Terminator::Exit),
            Trap => self.control(ins, Terminator::Trap),
            Brkpt => self.control(ins, Terminator::Brkpt),
            Brx => self.brx(ins),
            Call => self.call(ins),
            _ => self.lower_op(ins),
        }
    }

    fn brx(&mut self, ins: &Instruction) -> Result<(), Diagnostic> {
        let ops = self.operands(ins, 2..=2)?;
        if ins.guard.is_some() {
            return Err(unsupported(ins.span, "guarded brx.idx"));
        }
        let index = self.src_reg(ins, &ops[0], Ty::U32)?;
        let table = ops[1].name().unwrap_or_default().to_string();
        let labels = self.branch_targets.get(&table).cloned().ok_or_else(|| {
            error(
                DiagnosticKind::Semantic,
                ops[1].span,
                format!("unknown .branchtargets `{table}`"),
            )
        })?;
        let targets = labels
            .iter()
            .map(|l| self.label(l, ins.span))
            .collect::<Result<Vec<_>, _>>()?;
        self.terminate(Terminator::Switch { index, targets }, ins.span);
        Ok(())
    }
}

/// The special register a name denotes (`%tid.x`, `%laneid`, ...).
fn special_register(name: &str, component: Option<ast::Component>) -> Option<SpecialReg> {
    let dim = component.map(|c| match c {
        ast::Component::X => 0,
        ast::Component::Y => 1,
        ast::Component::Z => 2,
        ast::Component::W => 3,
    });
    Some(match (name, dim) {
        ("%tid", Some(d)) if d < 3 => SpecialReg::Tid(d),
        ("%ntid", Some(d)) if d < 3 => SpecialReg::Ntid(d),
        ("%ctaid", Some(d)) if d < 3 => SpecialReg::Ctaid(d),
        ("%nctaid", Some(d)) if d < 3 => SpecialReg::Nctaid(d),
        ("%laneid", None) => SpecialReg::Laneid,
        ("%warpid", None) => SpecialReg::Warpid,
        ("%nwarpid", None) => SpecialReg::Nwarpid,
        ("%smid", None) => SpecialReg::Smid,
        ("%nsmid", None) => SpecialReg::Nsmid,
        ("%gridid", None) => SpecialReg::Gridid,
        ("%lanemask_eq", None) => SpecialReg::LanemaskEq,
        ("%lanemask_lt", None) => SpecialReg::LanemaskLt,
        ("%lanemask_le", None) => SpecialReg::LanemaskLe,
        ("%lanemask_gt", None) => SpecialReg::LanemaskGt,
        ("%lanemask_ge", None) => SpecialReg::LanemaskGe,
        ("%clock", None) => SpecialReg::Clock,
        ("%clock_hi", None) => SpecialReg::ClockHi,
        ("%clock64", None) => SpecialReg::Clock64,
        ("%globaltimer", None) => SpecialReg::Globaltimer,
        ("%globaltimer_lo", None) => SpecialReg::GlobaltimerLo,
        ("%globaltimer_hi", None) => SpecialReg::GlobaltimerHi,
        ("%dynamic_smem_size", None) => SpecialReg::DynamicSmemSize,
        ("%total_smem_size", None) => SpecialReg::TotalSmemSize,
        ("%aggr_smem_size", None) => SpecialReg::AggrSmemSize,
        ("%current_graph_exec", None) => SpecialReg::CurrentGraphExec,
        (pm, None) if pm.starts_with("%pm") => {
            let (n, wide) = match pm["%pm".len()..].strip_suffix("_64") {
                Some(n) => (n, true),
                None => (&pm["%pm".len()..], false),
            };
            let n: u8 = n.parse().ok().filter(|n| *n < 8)?;
            match wide {
                true => SpecialReg::Pm64(n),
                false => SpecialReg::Pm(n),
            }
        }
        ("%reserved_smem_offset_begin", None) => SpecialReg::ReservedSmem(ReservedSmem::Begin),
        ("%reserved_smem_offset_end", None) => SpecialReg::ReservedSmem(ReservedSmem::End),
        ("%reserved_smem_offset_cap", None) => SpecialReg::ReservedSmem(ReservedSmem::Cap),
        ("%reserved_smem_offset_0", None) => SpecialReg::ReservedSmem(ReservedSmem::At(0)),
        ("%reserved_smem_offset_1", None) => SpecialReg::ReservedSmem(ReservedSmem::At(1)),
        ("%clusterid", Some(d)) if d < 3 => SpecialReg::Cluster(ClusterReg::Id(d)),
        ("%nclusterid", Some(d)) if d < 3 => SpecialReg::Cluster(ClusterReg::Nid(d)),
        ("%cluster_ctaid", Some(d)) if d < 3 => SpecialReg::Cluster(ClusterReg::Ctaid(d)),
        ("%cluster_nctaid", Some(d)) if d < 3 => SpecialReg::Cluster(ClusterReg::Nctaid(d)),
        ("%cluster_ctarank", None) => SpecialReg::Cluster(ClusterReg::Ctarank),
        ("%cluster_nctarank", None) => SpecialReg::Cluster(ClusterReg::Nctarank),
        ("%is_explicit_cluster", None) => SpecialReg::Cluster(ClusterReg::IsExplicit),
        (env, None) if env.starts_with("%envreg") => {
            let n: u8 = env["%envreg".len()..].parse().ok().filter(|n| *n < 32)?;
            SpecialReg::Envreg(n)
        }
        _ => return None,
    })
}

/// Immediate bits as a value of type `ty` (float literals converted).
pub(crate) fn imm_for(imm: ast::Imm, ty: Ty) -> u64 {
    use ast::Imm;
    let bits = match (imm, ty) {
        (Imm::F64(b), Ty::F32) => (f64::from_bits(b) as f32).to_bits() as u64,
        (Imm::F32(b), Ty::F64) => (f32::from_bits(b) as f64).to_bits(),
        (Imm::F64(b), Ty::F16) => half::f16::from_f64(f64::from_bits(b)).to_bits() as u64,
        (Imm::F32(b), Ty::F16) => half::f16::from_f32(f32::from_bits(b)).to_bits() as u64,
        (Imm::F64(b), Ty::Bf16) => half::bf16::from_f64(f64::from_bits(b)).to_bits() as u64,
        (Imm::F32(b), Ty::Bf16) => half::bf16::from_f32(f32::from_bits(b)).to_bits() as u64,
        (Imm::Int(i), _) => i as u64,
        (Imm::F32(b), _) => b as u64,
        (Imm::F64(b), _) => b,
    };
    bits & ty.mask()
}

/// The `.sem` qualifier of `ins` (PTX ISA §8.4).
fn mem_order(ins: &Instruction) -> crate::ir::MemOrder {
    use crate::front::instr::{Kw, Modifier};
    use crate::ir::MemOrder;
    ins.modifiers
        .iter()
        .find_map(|m| match m {
            Modifier::Kw(Kw::Relaxed) => Some(MemOrder::Relaxed),
            Modifier::Kw(Kw::Acquire) => Some(MemOrder::Acquire),
            Modifier::Kw(Kw::Release) => Some(MemOrder::Release),
            Modifier::Kw(Kw::AcqRel | Kw::Sc) => Some(MemOrder::AcqRel),
            _ => None,
        })
        .unwrap_or_default()
}
