//! Lexical layer of the PTX grammar (PTX ISA §4: syntax).
//!
//! White space and comments, identifiers, integer and floating-point
//! literals, strings and dotted words, as nom parsers over `&str`. The error
//! type [`PErr`] remembers where a parse failed and what was expected, and
//! keeps the error that got furthest when alternatives all fail.

use std::borrow::Cow;

use nom::error::{ErrorKind, ParseError};
use nom::IResult;

use crate::front::diag::DiagnosticKind;

/// A parse failure: where (`at` is the unparsed rest), what was expected, and
/// how long the offending token is.
#[derive(Debug, Clone)]
pub struct PErr<'a> {
    pub at: &'a str,
    pub message: Cow<'static, str>,
    pub kind: DiagnosticKind,
    pub len: usize,
}

impl<'a> ParseError<&'a str> for PErr<'a> {
    fn from_error_kind(input: &'a str, kind: ErrorKind) -> Self {
        PErr {
            at: input,
            message: Cow::Owned(format!("unexpected input ({kind:?})")),
            kind: DiagnosticKind::Syntax,
            len: 1,
        }
    }

    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }

    fn or(self, other: Self) -> Self {
        if other.at.len() <= self.at.len() {
            other
        } else {
            self
        }
    }
}

pub type PResult<'a, T> = IResult<&'a str, T, PErr<'a>>;

/// A recoverable error: "expected `what`" at `at`.
pub fn expected<'a, T>(at: &'a str, what: impl Into<Cow<'static, str>>) -> PResult<'a, T> {
    let what = what.into();
    let found = describe_found(at);
    Err(nom::Err::Error(PErr {
        at,
        message: Cow::Owned(format!("expected {what}, found {found}")),
        kind: DiagnosticKind::Syntax,
        len: token_len(at),
    }))
}

/// An unrecoverable error (no alternative may try again), with its own kind.
pub fn failure<'a, T>(
    at: &'a str,
    kind: DiagnosticKind,
    message: impl Into<Cow<'static, str>>,
    len: usize,
) -> PResult<'a, T> {
    Err(nom::Err::Failure(PErr {
        at,
        message: message.into(),
        kind,
        len: len.max(1),
    }))
}

/// Turns a recoverable error into a failure (nom's `cut`, keeping our message).
pub fn cut_err<'a, T>(r: PResult<'a, T>) -> PResult<'a, T> {
    r.map_err(|e| match e {
        nom::Err::Error(e) => nom::Err::Failure(e),
        other => other,
    })
}

fn describe_found(at: &str) -> String {
    match at.chars().next() {
        None => "end of file".to_string(),
        Some('\n') | Some('\r') => "end of line".to_string(),
        Some(_) => {
            let n = token_len(at);
            format!("`{}`", &at[..n])
        }
    }
}

/// Length in bytes of the token at the start of `at` (at least one character).
pub fn token_len(at: &str) -> usize {
    let skip = usize::from(at.starts_with('%'));
    let ident = at[skip..]
        .char_indices()
        .take_while(|&(_, c)| is_ident_char(c) || c == '.' || c == ':')
        .last()
        .map(|(i, c)| skip + i + c.len_utf8())
        .unwrap_or(0);
    if ident > 0 {
        ident
    } else {
        at.chars().next().map(|c| c.len_utf8()).unwrap_or(0)
    }
}

pub fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '$' || c == '%'
}

pub fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Skips white space, `//` line comments and `/* */` block comments.
pub fn ws(mut i: &str) -> PResult<'_, ()> {
    loop {
        let b = i.as_bytes();
        let mut n = 0;
        while n < b.len() && matches!(b[n], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
            n += 1;
        }
        i = &i[n..];
        if i.starts_with("//") {
            let end = i.find('\n').unwrap_or(i.len());
            i = &i[end..];
        } else if i.starts_with("/*") {
            match i[2..].find("*/") {
                Some(end) => i = &i[end + 4..],
                None => return failure(i, DiagnosticKind::Syntax, "unterminated `/*` comment", 2),
            }
        } else {
            return Ok((i, ()));
        }
    }
}

/// `ws` then the exact character `c`.
pub fn sym(c: char) -> impl Fn(&str) -> PResult<'_, ()> {
    move |i| {
        let (i, ()) = ws(i)?;
        match i.strip_prefix(c) {
            Some(rest) => Ok((rest, ())),
            None => expected(i, format!("`{c}`")),
        }
    }
}

/// `ws` then, if the next character is `c`, consume it.
pub fn opt_sym(c: char, i: &str) -> PResult<'_, bool> {
    let (i, ()) = ws(i)?;
    match i.strip_prefix(c) {
        Some(rest) => Ok((rest, true)),
        None => Ok((i, false)),
    }
}

/// An identifier (§4.4): `[a-zA-Z_$%][a-zA-Z0-9_$]*` (`%` only first).
pub fn ident(i: &str) -> PResult<'_, &str> {
    let mut chars = i.char_indices();
    match chars.next() {
        Some((_, c)) if is_ident_start(c) => {}
        _ => return expected(i, "an identifier"),
    }
    let end = chars
        .find(|&(_, c)| !is_ident_char(c))
        .map(|(idx, _)| idx)
        .unwrap_or(i.len());
    if end == 1 && i.starts_with('%') {
        return expected(i, "an identifier");
    }
    Ok((&i[end..], &i[..end]))
}

/// A word after a dot: letters, digits, `_` and `::` (e.g. `shared::cta`, `L2::64B`).
pub fn dotted_word(i: &str) -> PResult<'_, &str> {
    let b = i.as_bytes();
    let mut n = 0;
    while n < b.len() {
        let c = b[n];
        if c.is_ascii_alphanumeric() || c == b'_' {
            n += 1;
        } else if c == b':' && b.get(n + 1) == Some(&b':') {
            n += 2;
        } else {
            break;
        }
    }
    if n == 0 {
        return expected(i, "a word after `.`");
    }
    Ok((&i[n..], &i[..n]))
}

/// An unsigned integer literal: decimal, `0x` hex, `0b` binary, leading-`0`
/// octal, with an optional `U` suffix (§4.5.1).
pub fn uint_lit(i: &str) -> PResult<'_, u64> {
    let b = i.as_bytes();
    if b.is_empty() || !b[0].is_ascii_digit() {
        return expected(i, "an integer");
    }
    let (radix, start) = if b.len() > 1 && b[0] == b'0' && (b[1] == b'x' || b[1] == b'X') {
        (16, 2)
    } else if b.len() > 1 && b[0] == b'0' && (b[1] == b'b' || b[1] == b'B') {
        (2, 2)
    } else if b.len() > 1 && b[0] == b'0' && b[1].is_ascii_digit() {
        (8, 1)
    } else {
        (10, 0)
    };
    let mut n = start;
    let mut value: u64 = 0;
    while n < b.len() {
        let d = match (b[n] as char).to_digit(radix) {
            Some(d) => d as u64,
            None => break,
        };
        value = match value
            .checked_mul(radix as u64)
            .and_then(|v| v.checked_add(d))
        {
            Some(v) => v,
            None => {
                return failure(
                    i,
                    DiagnosticKind::Syntax,
                    "integer literal does not fit in 64 bits",
                    n + 1,
                )
            }
        };
        n += 1;
    }
    if n == start {
        return expected(i, "digits");
    }
    if n < b.len() && (b[n] == b'U' || b[n] == b'u') {
        n += 1;
    }
    if n < b.len() && (b[n].is_ascii_alphanumeric() || b[n] == b'_') {
        return expected(&i[n..], "the end of the integer literal");
    }
    Ok((&i[n..], value))
}

/// A signed integer literal (two's complement wrap for values above `i64::MAX`).
pub fn int_lit(i: &str) -> PResult<'_, i64> {
    let (rest, neg) = match i.strip_prefix('-') {
        Some(r) => (r, true),
        None => (i.strip_prefix('+').unwrap_or(i), false),
    };
    let (rest, v) = uint_lit(rest)?;
    let v = v as i64;
    Ok((rest, if neg { v.wrapping_neg() } else { v }))
}

/// A 32-bit unsigned number (directive arguments).
pub fn u32_lit(i: &str) -> PResult<'_, u32> {
    let (rest, v) = uint_lit(i)?;
    match u32::try_from(v) {
        Ok(v) => Ok((rest, v)),
        Err(_) => failure(
            i,
            DiagnosticKind::Syntax,
            "number does not fit in 32 bits",
            token_len(i),
        ),
    }
}

/// A numeric literal: `0fXXXXXXXX` (f32 bits), `0dXXXXXXXXXXXXXXXX` (f64
/// bits), a decimal float (f64), or an integer; with an optional leading `-`.
pub fn number(i: &str) -> PResult<'_, crate::front::instr::Imm> {
    use crate::front::instr::Imm;
    let (body, neg) = match i.strip_prefix('-') {
        Some(r) => (r, true),
        None => (i, false),
    };
    let b = body.as_bytes();
    if b.len() >= 2 && b[0] == b'0' && matches!(b[1], b'f' | b'F' | b'd' | b'D') {
        let digits = if matches!(b[1], b'f' | b'F') { 8 } else { 16 };
        let hex = &body[2..];
        let n = hex.bytes().take_while(|c| c.is_ascii_hexdigit()).count();
        if n != digits {
            return failure(
                i,
                DiagnosticKind::Syntax,
                format!(
                    "a `0{}` float literal needs exactly {digits} hex digits",
                    b[1] as char
                ),
                2 + n + neg as usize,
            );
        }
        let bits = u64::from_str_radix(&hex[..n], 16).unwrap_or(0);
        let rest = &hex[n..];
        return Ok(if digits == 8 {
            let bits = bits as u32;
            (rest, Imm::F32(if neg { bits ^ 0x8000_0000 } else { bits }))
        } else {
            (rest, Imm::F64(if neg { bits ^ (1 << 63) } else { bits }))
        });
    }
    // Decimal float: digits '.' digits [e[+-]digits] or digits e[+-]digits.
    let int_digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if int_digits > 0 && !(b[0] == b'0' && b.len() > 1 && matches!(b[1], b'x' | b'X' | b'b' | b'B'))
    {
        let mut n = int_digits;
        let mut is_float = false;
        if n < b.len() && b[n] == b'.' {
            is_float = true;
            n += 1;
            n += b[n..].iter().take_while(|c| c.is_ascii_digit()).count();
        }
        if n < b.len() && (b[n] == b'e' || b[n] == b'E') {
            let mut m = n + 1;
            if m < b.len() && (b[m] == b'+' || b[m] == b'-') {
                m += 1;
            }
            let exp = b[m..].iter().take_while(|c| c.is_ascii_digit()).count();
            if exp > 0 {
                is_float = true;
                n = m + exp;
            }
        }
        if is_float {
            let v: f64 = match body[..n].parse() {
                Ok(v) => v,
                Err(_) => return expected(i, "a number"),
            };
            let v = if neg { -v } else { v };
            return Ok((&body[n..], Imm::F64(v.to_bits())));
        }
    }
    let (rest, v) = int_lit(i)?;
    Ok((rest, Imm::Int(v)))
}

/// A double-quoted string with C escapes.
pub fn string_lit(i: &str) -> PResult<'_, String> {
    let Some(body) = i.strip_prefix('"') else {
        return expected(i, "a string");
    };
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((idx, c)) = chars.next() {
        match c {
            '"' => return Ok((&body[idx + 1..], out)),
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                Some((_, e)) => out.push(e),
                None => break,
            },
            '\n' => break,
            c => out.push(c),
        }
    }
    failure(i, DiagnosticKind::Syntax, "unterminated string", 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::instr::Imm;

    #[test]
    fn integer_literal_forms() {
        assert_eq!(uint_lit("0x1F;").unwrap(), (";", 31));
        assert_eq!(uint_lit("017,").unwrap(), (",", 15));
        assert_eq!(uint_lit("0b101 ").unwrap(), (" ", 5));
        assert_eq!(uint_lit("42U]").unwrap(), ("]", 42));
        assert_eq!(uint_lit("0").unwrap(), ("", 0));
        assert_eq!(int_lit("-8").unwrap(), ("", -8));
        assert_eq!(int_lit("0xFFFFFFFFFFFFFFFF").unwrap(), ("", -1));
        assert!(uint_lit("99999999999999999999").is_err());
        assert!(uint_lit("12ab").is_err());
    }

    #[test]
    fn float_literal_forms() {
        assert_eq!(number("0f3F800000").unwrap(), ("", Imm::F32(0x3F80_0000)));
        assert_eq!(number("-0f3F800000").unwrap(), ("", Imm::F32(0xBF80_0000)));
        assert_eq!(
            number("0d3FF0000000000000").unwrap(),
            ("", Imm::F64(0x3FF0_0000_0000_0000))
        );
        assert_eq!(number("0.5;").unwrap(), (";", Imm::F64(0.5f64.to_bits())));
        assert_eq!(number("1e3").unwrap(), ("", Imm::F64(1000f64.to_bits())));
        assert_eq!(number("-3").unwrap(), ("", Imm::Int(-3)));
        assert!(number("0f3F80").is_err());
    }

    #[test]
    fn whitespace_and_comments() {
        assert_eq!(ws("  // c\n /* x\n */ a").unwrap().0, "a");
        assert!(ws("/* open").is_err());
    }

    #[test]
    fn identifiers() {
        assert_eq!(ident("%r12,").unwrap(), (",", "%r12"));
        assert_eq!(ident("$L__BB0_1:").unwrap(), (":", "$L__BB0_1"));
        assert_eq!(ident("_Z3fooPf(").unwrap(), ("(", "_Z3fooPf"));
        assert!(ident("1abc").is_err());
        assert!(ident("% r").is_err());
    }
}
