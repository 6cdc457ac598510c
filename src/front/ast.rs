//! The PTX abstract syntax tree (PTX ISA chapters 10 and 11: directives).
//!
//! A [`Module`] is the header (`.version`, `.target`, `.address_size`) and a
//! list of [`Directive`]s: module-scope variables, functions and kernels,
//! `.file` entries and debug sections. Function bodies are [`Statement`]s.
//! Every node carries the [`Span`] it was parsed from.

pub use super::instr::{
    Component, Guard, Imm, Instruction, Kw, Modifier, Opcode, Operand, OperandKind, VideoSel,
};
use super::source::Span;
pub use super::types::{Linkage, ScalarType, StateSpace};

/// A whole PTX module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module {
    /// `.version major.minor`.
    pub version: (u32, u32),
    pub target: Target,
    /// `.address_size 32|64` (64 when absent).
    pub address_size: u32,
    pub directives: Vec<Directive>,
}

impl Module {
    pub fn functions(&self) -> impl Iterator<Item = &Function> {
        self.directives.iter().filter_map(|d| match d {
            Directive::Function(f) => Some(f),
            _ => None,
        })
    }

    /// The kernels (`.entry` functions) that have a body.
    pub fn kernels(&self) -> impl Iterator<Item = &Function> {
        self.functions()
            .filter(|f| f.kind == FunctionKind::Entry && f.body.is_some())
    }

    pub fn variables(&self) -> impl Iterator<Item = &Variable> {
        self.directives.iter().filter_map(|d| match d {
            Directive::Variable(v) => Some(v),
            _ => None,
        })
    }
}

/// `.target sm_80[, texmode_independent, debug, map_f64_to_f32]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// e.g. `sm_80`, `sm_90a`, `compute_70`.
    pub arch: String,
    /// Further options, in order (`debug`, `texmode_independent`, ...).
    pub options: Vec<String>,
    pub span: Span,
}

/// A module-scope directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Directive {
    Variable(Variable),
    Function(Function),
    /// `.file N "name"[, timestamp, size]`.
    File(FileDirective),
    /// `.section .debug_xxx { ... }`, kept verbatim.
    Section(Section),
    /// `.alias alias, aliasee;`.
    Alias {
        alias: String,
        target: String,
        span: Span,
    },
    /// A module-scope `.pragma "...";`.
    Pragma(String, Span),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileDirective {
    pub index: u32,
    pub path: String,
    /// Optional timestamp and file size.
    pub extra: Vec<u64>,
    pub span: Span,
}

/// A debug section; its body is kept as written (DWARF data is never interpreted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// e.g. `.debug_info`.
    pub name: String,
    /// The text between the braces, verbatim.
    pub body: String,
    pub span: Span,
}

/// `.entry` (a kernel) or `.func` (a device function).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    Entry,
    Func,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub linkage: Option<Linkage>,
    pub kind: FunctionKind,
    pub name: String,
    /// `.func (.param .b32 ret) name` return parameters.
    pub returns: Vec<Param>,
    pub params: Vec<Param>,
    /// Performance-tuning and other directives between the signature and the body.
    pub attributes: Vec<FunctionAttribute>,
    /// `None` for a declaration (a prototype ending in `;`).
    pub body: Option<Vec<Statement>>,
    /// Span of the function's name.
    pub name_span: Span,
    pub span: Span,
}

/// Directives that follow a function's signature (§11.4 performance tuning, and others).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FunctionAttribute {
    Maxntid(Vec<u32>),
    Reqntid(Vec<u32>),
    Minnctapersm(u32),
    Maxnctapersm(u32),
    Maxnreg(u32),
    Noreturn,
    Pragma(Vec<String>),
    Explicitcluster,
    Reqnctapercluster(Vec<u32>),
    Maxclusterrank(u32),
    /// `.abi_preserve` / `.abi_preserve_control` and similar (number argument).
    Other(String, Vec<u32>),
}

/// A kernel or function parameter (or a `.callprototype` slot).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// `.param` or `.reg`.
    pub space: StateSpace,
    pub align: Option<u32>,
    pub vector: Option<u8>,
    pub ty: ScalarType,
    /// `.ptr[.space][.align N]` attributes of a kernel pointer parameter.
    pub ptr: Option<PtrAttr>,
    /// `_` in prototypes.
    pub name: String,
    /// Array dimensions (`.param .align 8 .b8 p[16]`).
    pub dims: Vec<Option<u64>>,
    pub span: Span,
}

impl Param {
    /// Size in bytes of the parameter (element size times array length).
    /// (Saturating: absurd declared sizes stay absurd instead of overflowing.)
    pub fn size_bytes(&self) -> u64 {
        let elems = self
            .dims
            .iter()
            .fold(1u64, |n, d| n.saturating_mul(d.unwrap_or(0)));
        (self.ty.size_bytes() as u64 * self.vector.unwrap_or(1) as u64).saturating_mul(elems)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtrAttr {
    pub space: Option<StateSpace>,
    pub align: Option<u32>,
}

/// A variable declaration (§5.4) at module or function scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    pub linkage: Option<Linkage>,
    pub space: StateSpace,
    /// `.attribute(.managed)` and similar.
    pub attributes: Vec<String>,
    pub align: Option<u32>,
    pub vector: Option<u8>,
    pub ty: ScalarType,
    pub name: String,
    /// `%r<12>`: a parameterized register range `%r0 .. %r11`.
    pub range: Option<u32>,
    /// Array dimensions; `None` for `[]` sized by the initializer.
    pub dims: Vec<Option<u64>>,
    pub init: Option<Initializer>,
    pub span: Span,
}

impl Variable {
    /// Number of elements (1 for scalars; product of dimensions for arrays).
    pub fn element_count(&self) -> u64 {
        self.dims
            .iter()
            .fold(1u64, |n, d| n.saturating_mul(d.unwrap_or(0)))
    }

    /// Size in bytes (array length times element and vector size; saturating).
    pub fn size_bytes(&self) -> u64 {
        self.element_count()
            .saturating_mul(self.ty.size_bytes() as u64 * self.vector.unwrap_or(1) as u64)
    }
}

/// An initializer value (§5.4.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Initializer {
    Imm(Imm),
    /// The address of a variable or function, plus a byte offset.
    Symbol {
        name: String,
        offset: i64,
    },
    /// `generic(var)+offset`: the generic address of a variable.
    Generic {
        name: String,
        offset: i64,
    },
    /// `{a, b, ...}` (nested for multi-dimensional arrays).
    List(Vec<Initializer>),
}

/// A statement in a function body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Statement {
    Instruction(Instruction),
    Label(String, Span),
    Variable(Variable),
    /// `.loc file line col[, function_name label[+off], inlined_at file line col]`.
    Loc(Loc),
    Pragma(Vec<String>, Span),
    /// A nested `{ ... }` scope.
    Block(Vec<Statement>, Span),
    /// `name: .callprototype (.param ...) _ (.param ...);`
    CallPrototype(CallPrototype),
    /// `name: .branchtargets L1, L2, ...;`
    BranchTargets {
        name: String,
        labels: Vec<String>,
        span: Span,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    pub file: u32,
    pub line: u32,
    pub col: u32,
    pub function_name: Option<(String, i64)>,
    pub inlined_at: Option<(u32, u32, u32)>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallPrototype {
    pub name: String,
    pub returns: Vec<Param>,
    pub params: Vec<Param>,
    pub noreturn: bool,
    pub span: Span,
}
