//! Operands (PTX ISA §6.4): registers and symbols with vector components,
//! immediates, vectors `{...}`, addresses `[...]`, call lists `(...)`,
//! negated predicates `!p`, negated registers `-a` and video selectors
//! `a.b0`/`d.h10` (§9.7.16), predicate pairs `p|q` and the sink `_`.

use super::lex::{expected, failure, ident, int_lit, is_ident_char, number, opt_sym, ws, PResult};
use super::Ctx;
use crate::front::diag::DiagnosticKind;
use crate::front::instr::{Component, Operand, OperandKind, VideoSel};

/// Nesting limit for `{...}`, `[...]`, `(...)` and `!` (keeps hostile input off the stack).
const MAX_NESTING: u32 = 32;

impl<'a> Ctx<'a> {
    /// One operand, after optional white space.
    pub fn operand(&self, i: &'a str, depth: u32) -> PResult<'a, Operand> {
        let (i, ()) = ws(i)?;
        if depth > MAX_NESTING {
            return failure(i, DiagnosticKind::Syntax, "operand nested too deeply", 1);
        }
        let start = i;
        let first = match i.chars().next() {
            Some(c) => c,
            None => return expected(i, "an operand"),
        };
        let (rest, kind) = match first {
            '!' => {
                let (rest, inner) = self.operand(&i[1..], depth + 1)?;
                (rest, OperandKind::Not(Box::new(inner)))
            }
            '{' => {
                let (rest, items) = self.operand_list(&i[1..], '}', depth)?;
                match rest.trim_start().strip_prefix('|') {
                    Some(r) => {
                        let (r, ()) = ws(r)?;
                        let (r, pred) = ident(r)?;
                        let pred = pred.to_string();
                        (r, OperandKind::VectorPred { items, pred })
                    }
                    None => (rest, OperandKind::Vector(items)),
                }
            }
            '(' => {
                let (rest, items) = self.operand_list(&i[1..], ')', depth)?;
                (rest, OperandKind::List(items))
            }
            '[' => self.address(&i[1..], depth)?,
            // `_|p` (`elect.sync`'s destinations without `d`).
            '_' if i[1..].trim_start().starts_with('|') => {
                let (r, ()) = ws(i[1..].trim_start().strip_prefix('|').unwrap())?;
                let (r, second) = ident(r)?;
                (r, OperandKind::PredPair("_".into(), second.to_string()))
            }
            '_' if !i[1..].starts_with(is_ident_char) => (&i[1..], OperandKind::Sink),
            // `-%r1`, `-x`: a negated register or symbol (a `-` before a digit
            // is a negative number).
            '-' if i[1..].starts_with(|c: char| {
                c == '%' || c.is_ascii_alphabetic() || c == '_' || c == '$'
            }) =>
            {
                let (rest, inner) = self.operand(&i[1..], depth + 1)?;
                (rest, OperandKind::Neg(Box::new(inner)))
            }
            c if c.is_ascii_digit() || c == '-' => {
                let (rest, imm) = number(i)?;
                (rest, OperandKind::Imm(imm))
            }
            _ => self.named_operand(i)?,
        };
        Ok((
            rest,
            Operand {
                kind,
                span: self.span(start, rest),
            },
        ))
    }

    /// `a, b, c` up to and including `close` (may be empty).
    fn operand_list(&self, i: &'a str, close: char, depth: u32) -> PResult<'a, Vec<Operand>> {
        let (mut i, empty) = opt_sym(close, i)?;
        let mut items = Vec::new();
        if empty {
            return Ok((i, items));
        }
        loop {
            let (rest, op) = self.operand(i, depth + 1)?;
            items.push(op);
            let (rest, ()) = ws(rest)?;
            if let Some(r) = rest.strip_prefix(',') {
                i = r;
            } else if let Some(r) = rest.strip_prefix(close) {
                return Ok((r, items));
            } else {
                return expected(rest, format!("`,` or `{close}`"));
            }
        }
    }

    /// After `[`: `[name]`, `[name+off]`, `[name-off]`, `[imm]`, or `[a, b, ...]`.
    fn address(&self, i: &'a str, depth: u32) -> PResult<'a, OperandKind> {
        let (i, ()) = ws(i)?;
        if i.starts_with(|c: char| c.is_ascii_digit()) {
            let (rest, offset) = int_lit(i)?;
            let (rest, ()) = super::lex::sym(']')(rest)?;
            return Ok((rest, OperandKind::Address { base: None, offset }));
        }
        let (after_name, name) = ident(i)?;
        let (r, ()) = ws(after_name)?;
        if r.starts_with(',') {
            let (rest, items) = self.operand_list(i, ']', depth)?;
            return Ok((rest, OperandKind::AddressList(items)));
        }
        let (r, offset) = offset_suffix(r)?;
        let (r, ()) = super::lex::sym(']')(r)?;
        Ok((
            r,
            OperandKind::Address {
                base: Some(name.to_string()),
                offset,
            },
        ))
    }

    /// A register, symbol or label, with an optional component, `+offset` or `|q`.
    fn named_operand(&self, i: &'a str) -> PResult<'a, OperandKind> {
        let (rest, name) = ident(i)?;
        // `%tid.x`: a dot, one component letter, then a non-identifier character.
        let b = rest.as_bytes();
        if b.len() >= 2 && b[0] == b'.' && !(b.len() > 2 && is_ident_char(b[2] as char)) {
            if let Some(c) = Component::from_char(b[1] as char) {
                return Ok((
                    &rest[2..],
                    OperandKind::Name {
                        name: name.to_string(),
                        component: Some(c),
                    },
                ));
            }
        }
        if let (r, Some(sel)) = video_sel(rest)? {
            let base = Operand {
                kind: OperandKind::Name {
                    name: name.to_string(),
                    component: None,
                },
                span: self.span(i, rest),
            };
            return Ok((
                r,
                OperandKind::Select {
                    base: Box::new(base),
                    sel,
                },
            ));
        }
        let (r, ()) = ws(rest)?;
        if r.starts_with('+') || (r.starts_with('-') && !r.starts_with("->")) {
            let (r2, offset) = offset_suffix(r)?;
            return Ok((
                r2,
                OperandKind::SymbolOffset {
                    name: name.to_string(),
                    offset,
                },
            ));
        }
        if let Some(r) = r.strip_prefix('|') {
            let (r, ()) = ws(r)?;
            let (r, second) = ident(r)?;
            return Ok((
                r,
                OperandKind::PredPair(name.to_string(), second.to_string()),
            ));
        }
        Ok((
            rest,
            OperandKind::Name {
                name: name.to_string(),
                component: None,
            },
        ))
    }
}

/// A video selector or mask after a name (`.b0`, `.h10`, `.b3210`): `Some`
/// when `i` starts with `.b` or `.h` and digits; more than four digits is an
/// error.
fn video_sel(i: &str) -> PResult<'_, Option<VideoSel>> {
    let b = i.as_bytes();
    if b.len() < 3 || b[0] != b'.' || !matches!(b[1], b'b' | b'h') || !b[2].is_ascii_digit() {
        return Ok((i, None));
    }
    let n = b[2..].iter().take_while(|c| c.is_ascii_digit()).count();
    let end = 2 + n;
    if i[end..].starts_with(is_ident_char) {
        return Ok((i, None));
    }
    let digits: Vec<u8> = b[2..end].iter().map(|c| c - b'0').collect();
    match VideoSel::new(b[1] == b'h', &digits) {
        Some(sel) => Ok((&i[end..], Some(sel))),
        None => failure(
            i,
            DiagnosticKind::Syntax,
            format!(
                "`{}` is not a video selector (at most four digits)",
                &i[..end]
            ),
            end,
        ),
    }
}

/// An optional `+N`, `-N` or `+-N` byte offset (0 when absent).
pub fn offset_suffix(i: &str) -> PResult<'_, i64> {
    let (i, ()) = ws(i)?;
    let (i, negate) = if let Some(r) = i.strip_prefix('+') {
        (r, false)
    } else if let Some(r) = i.strip_prefix('-') {
        (r, true)
    } else {
        return Ok((i, 0));
    };
    let (i, ()) = ws(i)?;
    let (i, v) = int_lit(i)?;
    Ok((i, if negate { v.wrapping_neg() } else { v }))
}
