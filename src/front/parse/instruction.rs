//! Instruction statements (PTX ISA §9): `[@[!]p] opcode{.modifier} operands;`.
//!
//! Each `.modifier` is classified as a type, a state space, a matrix shape or
//! a keyword; anything else, or a modifier of a class the opcode does not
//! take, is an error naming the modifier and the opcode.

use super::lex::{dotted_word, expected, failure, ident, ws, PResult};
use super::Ctx;
use crate::front::diag::DiagnosticKind;
use crate::front::instr::{Guard, Instruction, Kw, Modifier, Opcode};
use crate::front::types::{ScalarType, StateSpace};

impl<'a> Ctx<'a> {
    /// A whole instruction statement, including its `;`.
    pub fn instruction(&self, i: &'a str) -> PResult<'a, Instruction> {
        let start = i;
        let (i, guard) = self.guard(i)?;
        let (i, ()) = ws(i)?;
        let op_start = i;
        let n = i
            .bytes()
            .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_')
            .count();
        if n == 0 {
            return expected(i, "an instruction");
        }
        let Some(opcode) = Opcode::from_name(&i[..n]) else {
            return failure(
                op_start,
                DiagnosticKind::UnknownOpcode,
                format!("`{}` is not a PTX instruction", &i[..n]),
                n,
            );
        };
        let mut i = &i[n..];
        let first = i
            .strip_prefix('.')
            .map(|r| {
                r.split(|c: char| c == '.' || c.is_whitespace() || c == ';')
                    .next()
                    .unwrap_or("")
            })
            .unwrap_or("");
        if opcode.kept_unparsed(first) {
            return self.kept_unparsed(start, guard, opcode, i);
        }
        let mut modifiers = Vec::new();
        while let Some(rest) = i.strip_prefix('.') {
            let (rest, word) = dotted_word(rest)?;
            let modifier = classify_modifier(word).ok_or_else(|| {
                nom::Err::Failure(super::lex::PErr {
                    at: i,
                    message: format!("`.{word}` is not a PTX modifier").into(),
                    kind: DiagnosticKind::BadModifier,
                    len: word.len() + 1,
                })
            })?;
            if modifier.classes() & opcode.allowed() == 0 {
                return failure(
                    i,
                    DiagnosticKind::BadModifier,
                    format!("`.{word}` is not a valid modifier for `{}`", opcode.name()),
                    word.len() + 1,
                );
            }
            modifiers.push(modifier);
            i = rest;
        }
        if !i.starts_with(|c: char| c.is_whitespace() || c == ';' || c == '/') {
            return expected(i, "white space, `.modifier` or `;` after the opcode");
        }
        let mut operands = Vec::new();
        let (mut i, ()) = ws(i)?;
        if let Some(rest) = i.strip_prefix(';') {
            i = rest;
        } else {
            loop {
                let (rest, op) = self.operand(i, 0)?;
                operands.push(op);
                let (rest, ()) = ws(rest)?;
                if let Some(r) = rest.strip_prefix(',') {
                    i = r;
                } else if let Some(r) = rest.strip_prefix(';') {
                    i = r;
                    break;
                } else {
                    return expected(rest, "`,` or `;`");
                }
            }
        }
        Ok((
            i,
            Instruction {
                guard,
                opcode,
                modifiers,
                operands,
                span: self.span(start, i),
            },
        ))
    }

    /// An instruction of a family warpjit does not execute
    /// ([`Opcode::kept_unparsed`]): the modifiers it can classify, no
    /// operands, up to and including the `;`.
    fn kept_unparsed(
        &self,
        start: &'a str,
        guard: Option<Guard>,
        opcode: Opcode,
        i: &'a str,
    ) -> PResult<'a, Instruction> {
        let Some(end) = i.find(';') else {
            return expected(i, "`;` ending the instruction");
        };
        let modifiers = i[..end]
            .split_whitespace()
            .next()
            .unwrap_or("")
            .split('.')
            .filter_map(classify_modifier)
            .collect();
        let rest = &i[end + 1..];
        Ok((
            rest,
            Instruction {
                guard,
                opcode,
                modifiers,
                operands: Vec::new(),
                span: self.span(start, rest),
            },
        ))
    }

    fn guard(&self, i: &'a str) -> PResult<'a, Option<Guard>> {
        let Some(rest) = i.strip_prefix('@') else {
            return Ok((i, None));
        };
        let (rest, ()) = ws(rest)?;
        let (rest, negated) = match rest.strip_prefix('!') {
            Some(r) => (r, true),
            None => (rest, false),
        };
        let (rest, ()) = ws(rest)?;
        let (rest, pred) = ident(rest)?;
        Ok((
            rest,
            Some(Guard {
                negated,
                pred: pred.to_string(),
                span: self.span(i, rest),
            }),
        ))
    }
}

/// Classifies the word after a dot: type, state space, shape or keyword.
pub fn classify_modifier(word: &str) -> Option<Modifier> {
    if let Some(t) = ScalarType::from_name(word) {
        return Some(Modifier::Type(t));
    }
    if let Some(s) = StateSpace::from_name(word) {
        return Some(Modifier::Space(s));
    }
    if let Some(k) = Kw::from_name(word) {
        return Some(Modifier::Kw(k));
    }
    parse_shape(word)
}

/// `m16n8k16` or `m8n8` (k = 0).
fn parse_shape(word: &str) -> Option<Modifier> {
    let rest = word.strip_prefix('m')?;
    let (m, rest) = split_number(rest)?;
    let rest = rest.strip_prefix('n')?;
    let (n, rest) = split_number(rest)?;
    let k = if rest.is_empty() {
        0
    } else {
        let (k, rest) = split_number(rest.strip_prefix('k')?)?;
        if !rest.is_empty() {
            return None;
        }
        k
    };
    Some(Modifier::Shape { m, n, k })
}

fn split_number(s: &str) -> Option<(u16, &str)> {
    let n = s.bytes().take_while(|b| b.is_ascii_digit()).count();
    if n == 0 {
        return None;
    }
    Some((s[..n].parse().ok()?, &s[n..]))
}
