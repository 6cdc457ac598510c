//! Diagnostics: typed front-end errors with spans, rendered against the source.
//!
//! A [`Diagnostic`] names what went wrong ([`DiagnosticKind`]), where (a
//! [`Span`]) and what was expected. [`Diagnostics`] collects every error found
//! in one file (the parser recovers at statement boundaries) and renders them
//! as `file:line:col: error: ...` followed by the source line and a caret.

use std::fmt;

use super::source::{SourceFile, Span};

/// What kind of problem a diagnostic reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiagnosticKind {
    /// The text does not follow PTX's grammar.
    Syntax,
    /// An opcode that is not part of PTX.
    UnknownOpcode,
    /// A `.modifier` that PTX does not define, or not for this opcode.
    BadModifier,
    /// Valid PTX that this version of warpjit does not implement.
    Unsupported,
    /// A semantic error found after parsing (undefined names, bad types...).
    Semantic,
}

impl DiagnosticKind {
    fn label(&self) -> &'static str {
        match self {
            DiagnosticKind::Syntax => "syntax error",
            DiagnosticKind::UnknownOpcode => "unknown instruction",
            DiagnosticKind::BadModifier => "invalid modifier",
            DiagnosticKind::Unsupported => "unsupported",
            DiagnosticKind::Semantic => "error",
        }
    }
}

/// One error at one place in a source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub kind: DiagnosticKind,
    pub span: Span,
    pub message: String,
}

impl Diagnostic {
    pub fn new(kind: DiagnosticKind, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            kind,
            span,
            message: message.into(),
        }
    }

    /// Renders `file:line:col: <kind>: <message>`, the source line and a caret.
    pub fn render(&self, source: &SourceFile) -> String {
        let lc = source.line_col(self.span.start as usize);
        let line = source.line_text(lc.line);
        let width = {
            let end = source.line_col(self.span.end as usize);
            if end.line == lc.line && end.col > lc.col {
                end.col - lc.col
            } else {
                1
            }
        };
        let gutter = lc.line.to_string();
        let pad = " ".repeat(gutter.len());
        let indent: String = line
            .chars()
            .take(lc.col - 1)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        format!(
            "{}:{}:{}: {}: {}\n{pad} |\n{gutter} | {line}\n{pad} | {indent}{}",
            source.name(),
            lc.line,
            lc.col,
            self.kind.label(),
            self.message,
            "^".repeat(width.min(80)),
        )
    }
}

/// All diagnostics of one source file, in source order.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    pub file: String,
    pub items: Vec<Diagnostic>,
    rendered: Vec<String>,
}

impl Diagnostics {
    pub fn new(source: &SourceFile, mut items: Vec<Diagnostic>) -> Diagnostics {
        items.sort_by_key(|d| d.span.start);
        let rendered = items.iter().map(|d| d.render(source)).collect();
        Diagnostics {
            file: source.name().to_string(),
            items,
            rendered,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.rendered.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            writeln!(f, "{r}")?;
        }
        if self.items.len() > 1 {
            write!(f, "{} errors in {}", self.items.len(), self.file)?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_location_line_and_caret() {
        let src = SourceFile::new("k.ptx", ".version 8.0\n\tadd.s32 %r1, %r2;\n");
        let d = Diagnostic::new(
            DiagnosticKind::Syntax,
            Span::new(22, 25),
            "expected `,` then an operand",
        );
        let text = d.render(&src);
        assert!(
            text.starts_with("k.ptx:2:10: syntax error: expected"),
            "{text}"
        );
        assert!(text.contains("2 | \tadd.s32 %r1, %r2;"), "{text}");
        assert!(text.ends_with("| \t        ^^^"), "{text:?}");
    }
}
