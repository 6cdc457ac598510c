//! Source files and byte spans.
//!
//! Owns [`SourceFile`] (a named PTX text with a line index) and [`Span`] (a
//! byte range into it). Every AST node carries a span; diagnostics turn spans
//! into `file:line:col` with the source line and a caret.

/// A half-open byte range `[start, end)` into a [`SourceFile`]'s text.
///
/// Spans never take part in equality: two AST nodes are equal when they say
/// the same thing, wherever they were written (so parse, print, parse gives an
/// equal AST). Compare `start`/`end` directly to test positions.
#[derive(Clone, Copy, Debug, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl PartialEq for Span {
    fn eq(&self, _: &Span) -> bool {
        true
    }
}

impl Eq for Span {}

impl std::hash::Hash for Span {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

impl Span {
    pub const DUMMY: Span = Span { start: 0, end: 0 };

    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(self) -> bool {
        self.end == self.start
    }

    /// The smallest span covering both.
    pub fn join(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// A 1-based line and column (columns count characters, not bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    pub line: usize,
    pub col: usize,
}

/// A PTX source text with its name (usually a path) and line index.
#[derive(Clone, Debug)]
pub struct SourceFile {
    name: String,
    text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(memchr_newlines(text.as_bytes()));
        SourceFile {
            name: name.into(),
            text,
            line_starts,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Line and column of a byte offset (clamped to the text).
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = offset.min(self.text.len());
        let line_idx = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line_idx];
        let col = self.text[start..floor_char_boundary(&self.text, offset)]
            .chars()
            .count();
        LineCol {
            line: line_idx + 1,
            col: col + 1,
        }
    }

    /// The text of 1-based line `line`, without its line terminator.
    pub fn line_text(&self, line: usize) -> &str {
        if line == 0 || line > self.line_starts.len() {
            return "";
        }
        let start = self.line_starts[line - 1];
        let end = self
            .line_starts
            .get(line)
            .map(|&e| e - 1)
            .unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches('\r')
    }

    /// The source text a span covers.
    pub fn slice(&self, span: Span) -> &str {
        let s = floor_char_boundary(&self.text, span.start as usize);
        let e = floor_char_boundary(&self.text, span.end as usize);
        &self.text[s..e.max(s)]
    }

    /// `file:line:col` of a span's start.
    pub fn location(&self, span: Span) -> String {
        let lc = self.line_col(span.start as usize);
        format!("{}:{}:{}", self.name, lc.line, lc.col)
    }
}

fn memchr_newlines(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .map(|(i, _)| i + 1)
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_and_line_text() {
        let f = SourceFile::new("a.ptx", "ab\ncdé\r\nx");
        assert_eq!(f.line_col(0), LineCol { line: 1, col: 1 });
        assert_eq!(f.line_col(3), LineCol { line: 2, col: 1 });
        assert_eq!(f.line_col(5), LineCol { line: 2, col: 3 });
        assert_eq!(f.line_text(2), "cdé");
        assert_eq!(f.line_text(3), "x");
        assert_eq!(f.line_col(100), LineCol { line: 3, col: 2 });
    }
}
