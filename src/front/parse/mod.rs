//! The PTX parser: text to [`ast::Module`](crate::front::ast::Module).
//!
//! Organised by the PTX ISA's structure: [`lex`] (§4 syntax), [`operand`]
//! (§6.4), [`instruction`] (§9), [`decl`] (§5.4 variables, §11 directives),
//! and this file, which drives module-level directives and function bodies.
//! Errors are recovered at statement boundaries (the next `;` in a body, the
//! next column-0 directive at module scope), so one run reports every error.

pub mod decl;
pub mod instruction;
pub mod lex;
pub mod operand;

use lex::{
    dotted_word, expected, failure, ident, opt_sym, string_lit, sym, u32_lit, ws, PErr, PResult,
};

use super::ast::{
    CallPrototype, Directive, FileDirective, Function, FunctionAttribute, FunctionKind, Loc,
    Module, Section, Statement, Target,
};
use super::diag::{Diagnostic, DiagnosticKind};
use super::source::Span;
use super::types::{Linkage, StateSpace};

/// Block nesting limit in function bodies.
const MAX_BLOCK_DEPTH: u32 = 64;

/// Parsing context: the whole source (for spans) and the errors found so far.
pub struct Ctx<'a> {
    src: &'a str,
    errors: std::cell::RefCell<Vec<Diagnostic>>,
}

impl<'a> Ctx<'a> {
    pub fn new(src: &'a str) -> Ctx<'a> {
        Ctx {
            src,
            errors: Default::default(),
        }
    }

    /// Byte offset of `rest` (a suffix of the source) in the source.
    pub fn offset(&self, rest: &str) -> usize {
        rest.as_ptr() as usize - self.src.as_ptr() as usize
    }

    /// The span from `start` up to `end` (both suffixes of the source).
    pub fn span(&self, start: &str, end: &str) -> Span {
        Span::new(self.offset(start), self.offset(end))
    }

    fn report(&self, e: PErr<'a>) {
        let at = self.offset(e.at);
        self.errors.borrow_mut().push(Diagnostic::new(
            e.kind,
            Span::new(at, (at + e.len).min(self.src.len())),
            e.message,
        ));
    }

    fn report_nom(&self, e: nom::Err<PErr<'a>>, fallback: &'a str) {
        match e {
            nom::Err::Error(e) | nom::Err::Failure(e) => self.report(e),
            nom::Err::Incomplete(_) => self.report(PErr {
                at: fallback,
                message: "unexpected end of input".into(),
                kind: DiagnosticKind::Syntax,
                len: 1,
            }),
        }
    }

    /// Parses a whole module; all errors found are returned together.
    pub fn module(&self) -> Result<Module, Vec<Diagnostic>> {
        let mut module = Module {
            version: (0, 0),
            target: Target {
                arch: String::new(),
                options: Vec::new(),
                span: Span::DUMMY,
            },
            address_size: 64,
            directives: Vec::new(),
        };
        let mut seen_version = false;
        let mut i = self.src;
        loop {
            let rest = match ws(i) {
                Ok((r, ())) => r,
                Err(e) => {
                    self.report_nom(e, i);
                    break;
                }
            };
            if rest.is_empty() {
                break;
            }
            match self.top_level(rest, &mut module, &mut seen_version) {
                Ok((r, ())) => i = r,
                Err(e) => {
                    self.report_nom(e, rest);
                    i = skip_to_next_directive(rest);
                }
            }
        }
        if self.errors.borrow().is_empty() {
            let missing = if !seen_version {
                Some("a PTX module must start with `.version`")
            } else if module.target.arch.is_empty() {
                Some("a PTX module must have a `.target` directive after `.version`")
            } else {
                None
            };
            if let Some(message) = missing {
                self.errors.borrow_mut().push(Diagnostic::new(
                    DiagnosticKind::Syntax,
                    Span::new(0, 0),
                    message,
                ));
            }
        }
        let errors = self.errors.take();
        if errors.is_empty() {
            Ok(module)
        } else {
            Err(errors)
        }
    }

    fn top_level(
        &self,
        i: &'a str,
        module: &mut Module,
        seen_version: &mut bool,
    ) -> PResult<'a, ()> {
        let start = i;
        if i.starts_with("@@DWARF") {
            let end = i.find('\n').unwrap_or(i.len());
            return Ok((&i[end..], ()));
        }
        let Some(after_dot) = i.strip_prefix('.') else {
            return expected(i, "a directive such as `.version`, `.entry` or `.global`");
        };
        let (r, word) = dotted_word(after_dot)?;
        match word {
            "version" => {
                let (r, ()) = ws(r)?;
                let (r, major) = u32_lit(r)?;
                let (r, ()) = sym('.')(r)?;
                let (r, minor) = u32_lit(r)?;
                module.version = (major, minor);
                *seen_version = true;
                Ok((r, ()))
            }
            "target" => {
                let (mut r, ()) = ws(r)?;
                let mut names = Vec::new();
                loop {
                    let (r2, name) = ident(r)?;
                    names.push(name.to_string());
                    let (r3, more) = opt_sym(',', r2)?;
                    if !more {
                        r = r2;
                        break;
                    }
                    let (r3, ()) = ws(r3)?;
                    r = r3;
                }
                module.target = Target {
                    arch: names.remove(0),
                    options: names,
                    span: self.span(start, r),
                };
                Ok((r, ()))
            }
            "address_size" => {
                let (r, ()) = ws(r)?;
                let (r, n) = u32_lit(r)?;
                if n != 32 && n != 64 {
                    return failure(
                        r,
                        DiagnosticKind::Syntax,
                        "`.address_size` must be 32 or 64",
                        1,
                    );
                }
                module.address_size = n;
                Ok((r, ()))
            }
            "file" => {
                let (r, ()) = ws(r)?;
                let (r, index) = u32_lit(r)?;
                let (r, ()) = ws(r)?;
                let (mut r, path) = string_lit(r)?;
                let mut extra = Vec::new();
                loop {
                    let (r2, more) = opt_sym(',', r)?;
                    if !more {
                        break;
                    }
                    let (r2, ()) = ws(r2)?;
                    let (r2, n) = lex::uint_lit(r2)?;
                    extra.push(n);
                    r = r2;
                }
                module.directives.push(Directive::File(FileDirective {
                    index,
                    path,
                    extra,
                    span: self.span(start, r),
                }));
                Ok((r, ()))
            }
            "section" => {
                let (r, ()) = ws(r)?;
                let (r, name) = section_name(r)?;
                let (r, ()) = sym('{')(r)?;
                let Some(len) = braced_body_len(r) else {
                    return failure(
                        start,
                        DiagnosticKind::Syntax,
                        "unterminated `.section` block: no closing `}`",
                        8,
                    );
                };
                let body = &r[..len];
                let r = &r[len + 1..];
                module.directives.push(Directive::Section(Section {
                    name: name.to_string(),
                    body: body.to_string(),
                    span: self.span(start, r),
                }));
                Ok((r, ()))
            }
            "pragma" => {
                let (r, strings) = self.pragma_strings(r)?;
                module
                    .directives
                    .push(Directive::Pragma(strings.join(", "), self.span(start, r)));
                Ok((r, ()))
            }
            "alias" => {
                let (r, ()) = ws(r)?;
                let (r, alias) = ident(r)?;
                let (r, ()) = sym(',')(r)?;
                let (r, ()) = ws(r)?;
                let (r, target) = ident(r)?;
                let (r, ()) = sym(';')(r)?;
                module.directives.push(Directive::Alias {
                    alias: alias.to_string(),
                    target: target.to_string(),
                    span: self.span(start, r),
                });
                Ok((r, ()))
            }
            _ => {
                let (r, linkage, word, word_at) = match Linkage::from_name(word) {
                    Some(l) => {
                        let (r2, ()) = ws(r)?;
                        let Some(r3) = r2.strip_prefix('.') else {
                            return expected(
                                r2,
                                "`.entry`, `.func` or a state space after the linking directive",
                            );
                        };
                        let (r3, w) = dotted_word(r3)?;
                        (r3, Some(l), w, r2)
                    }
                    None => (r, None, word, i),
                };
                match word {
                    "entry" | "func" => {
                        let kind = if word == "entry" {
                            FunctionKind::Entry
                        } else {
                            FunctionKind::Func
                        };
                        let (r, f) = self.function(start, r, linkage, kind)?;
                        module.directives.push(Directive::Function(f));
                        Ok((r, ()))
                    }
                    _ => match StateSpace::from_name(word) {
                        Some(
                            space @ (StateSpace::Global
                            | StateSpace::Const
                            | StateSpace::Shared
                            | StateSpace::Tex),
                        ) => {
                            let (r, vars) = self.variables(start, r, linkage, space)?;
                            module
                                .directives
                                .extend(vars.into_iter().map(Directive::Variable));
                            Ok((r, ()))
                        }
                        _ => failure(
                            word_at,
                            DiagnosticKind::Syntax,
                            format!("`.{word}` is not a module-scope directive"),
                            word.len() + 1,
                        ),
                    },
                }
            }
        }
    }

    fn function(
        &self,
        start: &'a str,
        i: &'a str,
        linkage: Option<Linkage>,
        kind: FunctionKind,
    ) -> PResult<'a, Function> {
        let (mut i, ()) = ws(i)?;
        // `.func .attribute(.abi_preserve...)`-style attributes are not emitted by
        // compilers we target; return parameters come first for `.func`.
        let mut returns = Vec::new();
        if kind == FunctionKind::Func && i.starts_with('(') {
            let (r, rets) = self.param_list(i)?;
            returns = rets;
            i = ws(r)?.0;
        }
        let name_start = i;
        let (r, name) = ident(i)?;
        let name_span = self.span(name_start, r);
        let (r2, ()) = ws(r)?;
        let (r, params) = if r2.starts_with('(') {
            self.param_list(r2)?
        } else {
            (r, Vec::new())
        };
        let (r, attributes) = self.function_attributes(r)?;
        let (r, ()) = ws(r)?;
        if let Some(r) = r.strip_prefix(';') {
            return Ok((
                r,
                Function {
                    linkage,
                    kind,
                    name: name.to_string(),
                    returns,
                    params,
                    attributes,
                    body: None,
                    name_span,
                    span: self.span(start, r),
                },
            ));
        }
        let Some(r) = r.strip_prefix('{') else {
            return expected(r, "`{` (a function body) or `;` (a declaration)");
        };
        let (r, body) = self.block_body(r, 0)?;
        Ok((
            r,
            Function {
                linkage,
                kind,
                name: name.to_string(),
                returns,
                params,
                attributes,
                body: Some(body),
                name_span,
                span: self.span(start, r),
            },
        ))
    }

    /// Statements up to and including the closing `}`. Statement errors are
    /// reported and skipped; only a missing `}` ends the block with an error.
    fn block_body(&self, mut i: &'a str, depth: u32) -> PResult<'a, Vec<Statement>> {
        if depth > MAX_BLOCK_DEPTH {
            return failure(i, DiagnosticKind::Syntax, "blocks nested too deeply", 1);
        }
        let mut body = Vec::new();
        loop {
            let (r, ()) = ws(i)?;
            if let Some(r) = r.strip_prefix('}') {
                return Ok((r, body));
            }
            if r.is_empty() {
                return expected(r, "`}` to close the function body");
            }
            match self.statement(r, depth, &mut body) {
                Ok((r2, ())) => i = r2,
                Err(e) => {
                    self.report_nom(e, r);
                    i = skip_statement(r);
                }
            }
        }
    }

    /// One statement, appended to `out` (a lone `;` appends nothing; a
    /// declaration of several names appends one statement per name).
    fn statement(&self, i: &'a str, depth: u32, out: &mut Vec<Statement>) -> PResult<'a, ()> {
        let start = i;
        if let Some(r) = i.strip_prefix(';') {
            return Ok((r, ()));
        }
        if let Some(r) = i.strip_prefix('{') {
            let (r, stmts) = self.block_body(r, depth + 1)?;
            out.push(Statement::Block(stmts, self.span(start, r)));
            return Ok((r, ()));
        }
        if let Some(after_dot) = i.strip_prefix('.') {
            let (r, word) = dotted_word(after_dot)?;
            return match word {
                "loc" => {
                    let (r, l) = self.loc(start, r)?;
                    out.push(Statement::Loc(l));
                    Ok((r, ()))
                }
                "pragma" => {
                    let (r, strings) = self.pragma_strings(r)?;
                    out.push(Statement::Pragma(strings, self.span(start, r)));
                    Ok((r, ()))
                }
                _ => match StateSpace::from_name(word) {
                    Some(space) => {
                        // A multi-name declaration becomes one statement per name.
                        let (r, vars) = self.variables(start, r, None, space)?;
                        out.extend(vars.into_iter().map(Statement::Variable));
                        Ok((r, ()))
                    }
                    None => failure(
                        start,
                        DiagnosticKind::Syntax,
                        format!("`.{word}` is not allowed in a function body"),
                        word.len() + 1,
                    ),
                },
            };
        }
        // A label (or a `.callprototype` / `.branchtargets` declaration)?
        if i.starts_with(lex::is_ident_start) {
            let (r, name) = ident(i)?;
            let (r2, ()) = ws(r)?;
            if let Some(r3) = r2.strip_prefix(':') {
                let (r4, ()) = ws(r3)?;
                if let Some(after) = r4.strip_prefix(".callprototype") {
                    let (r5, proto) = self.call_prototype(start, name, after)?;
                    out.push(Statement::CallPrototype(proto));
                    return Ok((r5, ()));
                }
                if let Some(after) = r4.strip_prefix(".branchtargets") {
                    let (mut r5, ()) = ws(after)?;
                    let mut labels = Vec::new();
                    loop {
                        let (r6, l) = ident(r5)?;
                        labels.push(l.to_string());
                        let (r6, ()) = ws(r6)?;
                        if let Some(r7) = r6.strip_prefix(',') {
                            r5 = ws(r7)?.0;
                        } else {
                            let (r7, ()) = sym(';')(r6)?;
                            out.push(Statement::BranchTargets {
                                name: name.to_string(),
                                labels,
                                span: self.span(start, r7),
                            });
                            return Ok((r7, ()));
                        }
                    }
                }
                out.push(Statement::Label(name.to_string(), self.span(start, r)));
                return Ok((r3, ()));
            }
        }
        let (r, instr) = self.instruction(i)?;
        out.push(Statement::Instruction(instr));
        Ok((r, ()))
    }

    fn call_prototype(&self, start: &'a str, name: &str, i: &'a str) -> PResult<'a, CallPrototype> {
        let (r, ()) = ws(i)?;
        let (r, returns) = if r.starts_with('(') {
            self.param_list(r)?
        } else {
            (r, Vec::new())
        };
        let (r, ()) = ws(r)?;
        let r = match r.strip_prefix('_') {
            Some(r) => r,
            None => return expected(r, "`_` (the prototype's placeholder name)"),
        };
        let (r2, ()) = ws(r)?;
        let (r, params) = if r2.starts_with('(') {
            self.param_list(r2)?
        } else {
            (r, Vec::new())
        };
        let (r, attrs) = self.function_attributes(r)?;
        let (r, ()) = sym(';')(r)?;
        Ok((
            r,
            CallPrototype {
                name: name.to_string(),
                returns,
                params,
                noreturn: attrs.contains(&FunctionAttribute::Noreturn),
                span: self.span(start, r),
            },
        ))
    }

    /// `.loc file line col[, function_name sym[+off], inlined_at file line col]`.
    fn loc(&self, start: &'a str, i: &'a str) -> PResult<'a, Loc> {
        let (r, ()) = ws(i)?;
        let (r, file) = u32_lit(r)?;
        let (r, ()) = ws(r)?;
        let (r, line) = u32_lit(r)?;
        let (r, ()) = ws(r)?;
        let (mut r, col) = u32_lit(r)?;
        let mut function_name = None;
        let mut inlined_at = None;
        loop {
            let (r2, more) = opt_sym(',', r)?;
            if !more {
                break;
            }
            let (r2, ()) = ws(r2)?;
            let (r2, key) = ident(r2)?;
            let (r2, ()) = ws(r2)?;
            match key {
                "function_name" => {
                    let (r3, n) = ident(r2)?;
                    let (r3, off) = operand::offset_suffix(r3)?;
                    function_name = Some((n.to_string(), off));
                    r = r3;
                }
                "inlined_at" => {
                    let (r3, f) = u32_lit(r2)?;
                    let (r3, ()) = ws(r3)?;
                    let (r3, l) = u32_lit(r3)?;
                    let (r3, ()) = ws(r3)?;
                    let (r3, c) = u32_lit(r3)?;
                    inlined_at = Some((f, l, c));
                    r = r3;
                }
                _ => return expected(r2, "`function_name` or `inlined_at`"),
            }
        }
        Ok((
            r,
            Loc {
                file,
                line,
                col,
                function_name,
                inlined_at,
                span: self.span(start, r),
            },
        ))
    }
}

/// `.debug_info` and other section names (may contain dots).
fn section_name(i: &str) -> PResult<'_, &str> {
    let n = i
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'$'))
        .count();
    if n == 0 {
        return expected(i, "a section name such as `.debug_info`");
    }
    Ok((&i[n..], &i[..n]))
}

/// Length of the text before the `}` that closes an already-opened brace,
/// skipping quoted strings and comments.
fn braced_body_len(i: &str) -> Option<usize> {
    let b = i.as_bytes();
    let mut depth = 0usize;
    let mut n = 0;
    while n < b.len() {
        match b[n] {
            b'"' => {
                n += 1;
                while n < b.len() && b[n] != b'"' {
                    if b[n] == b'\\' {
                        n += 1;
                    }
                    n += 1;
                }
            }
            b'/' if b.get(n + 1) == Some(&b'/') => {
                while n < b.len() && b[n] != b'\n' {
                    n += 1;
                }
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                if depth == 0 {
                    return Some(n);
                }
                depth -= 1;
            }
            _ => {}
        }
        n += 1;
    }
    None
}

/// After an error in a body: skip past the next `;` outside braces, or up to
/// a `}` that closes the enclosing block, always consuming something.
fn skip_statement(i: &str) -> &str {
    let mut depth = 0usize;
    for (n, c) in i.bytes().enumerate() {
        match c {
            b';' if depth == 0 => return &i[n + 1..],
            b'{' => depth += 1,
            b'}' if depth == 0 => return if n == 0 { &i[1..] } else { &i[n..] },
            b'}' => depth -= 1,
            _ => {}
        }
    }
    &i[i.len()..]
}

/// After an error at module scope: skip to the next line that starts at
/// column 0 with `.` (the next directive), always making progress.
fn skip_to_next_directive(i: &str) -> &str {
    let mut rest = match i.find('\n') {
        Some(n) => &i[n + 1..],
        None => return &i[i.len()..],
    };
    loop {
        if rest.starts_with('.') {
            return rest;
        }
        match rest.find('\n') {
            Some(n) => rest = &rest[n + 1..],
            None => return &rest[rest.len()..],
        }
    }
}
