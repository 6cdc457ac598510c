//! The PTX front end: source text to a spanned AST, and back to text.
//!
//! Owns everything that knows PTX's surface syntax and nothing that executes
//! it: [`source`] (files and spans), [`diag`] (typed errors rendered against
//! the source), [`types`] and [`instr`] (PTX's vocabulary as enums), [`ast`]
//! (the tree), [`parse`] (the nom grammar), [`print`] (AST back to PTX) and
//! [`link`] (several parsed modules into one, by their symbols).
//! Later stages depend on this module; it depends on none of them.

pub mod ast;
pub mod diag;
pub mod instr;
pub mod link;
pub mod parse;
pub mod print;
pub mod source;
pub mod types;

pub use diag::{Diagnostic, DiagnosticKind, Diagnostics};
pub use source::{SourceFile, Span};

/// Parses a PTX module. On failure, returns every error found in the file.
pub fn parse(source: &SourceFile) -> Result<ast::Module, Diagnostics> {
    parse::Ctx::new(source.text())
        .module()
        .map_err(|errs| Diagnostics::new(source, errs))
}

/// Parses PTX text given directly (the name is used in error messages).
pub fn parse_str(name: &str, text: &str) -> Result<ast::Module, Diagnostics> {
    parse(&SourceFile::new(name, text))
}
