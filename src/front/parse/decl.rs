//! Declarations: variables (§5.4), parameters (§5.1.6), initializers, and
//! function signatures with their performance directives (§11.3, §11.4).

use super::lex::{
    cut_err, dotted_word, expected, failure, ident, number, opt_sym, string_lit, sym, u32_lit,
    uint_lit, ws, PResult,
};
use super::operand::offset_suffix;
use super::Ctx;
use crate::front::ast::{FunctionAttribute, Initializer, Param, PtrAttr, Variable};
use crate::front::diag::DiagnosticKind;
use crate::front::types::{Linkage, ScalarType, StateSpace};

const MAX_INIT_NESTING: u32 = 16;

/// The prefix of a declaration: alignment, vector width, attributes and type.
#[derive(Default)]
struct DeclPrefix {
    align: Option<u32>,
    vector: Option<u8>,
    attributes: Vec<String>,
    ty: Option<ScalarType>,
    ptr: Option<PtrAttr>,
}

impl<'a> Ctx<'a> {
    /// `.align N`, `.vN`, `.attribute(...)`, `.ptr...` and the type, in any order
    /// (the type is required; `.ptr` attributes may follow it).
    fn decl_prefix(&self, mut i: &'a str, allow_ptr: bool) -> PResult<'a, DeclPrefix> {
        let mut p = DeclPrefix::default();
        loop {
            let (r, ()) = ws(i)?;
            let Some(after_dot) = r.strip_prefix('.') else {
                break;
            };
            let (after, word) = dotted_word(after_dot)?;
            match word {
                "align" => {
                    let (after, ()) = ws(after)?;
                    let (after, n) = u32_lit(after)?;
                    match p.ptr.as_mut() {
                        Some(ptr) if allow_ptr => ptr.align = Some(n),
                        _ => p.align = Some(n),
                    }
                    i = after;
                }
                "v2" | "v4" | "v8" => {
                    p.vector = Some(word[1..].parse().unwrap_or(1));
                    i = after;
                }
                "attribute" => {
                    let (after, ()) = sym('(')(after)?;
                    let (after, ()) = ws(after)?;
                    let after = after.strip_prefix('.').unwrap_or(after);
                    let (after, name) = dotted_word(after)?;
                    let (after, ()) = sym(')')(after)?;
                    p.attributes.push(name.to_string());
                    i = after;
                }
                "ptr" if allow_ptr => {
                    p.ptr = Some(PtrAttr {
                        space: None,
                        align: None,
                    });
                    i = after;
                }
                _ => {
                    if let Some(t) = ScalarType::from_name(word) {
                        if p.ty.is_some() {
                            return failure(
                                r,
                                DiagnosticKind::Syntax,
                                "a declaration has one type",
                                word.len() + 1,
                            );
                        }
                        p.ty = Some(t);
                        i = after;
                    } else if let (Some(ptr), Some(space)) =
                        (p.ptr.as_mut(), StateSpace::from_name(word))
                    {
                        ptr.space = Some(space);
                        i = after;
                    } else if p.ty.is_some() {
                        break;
                    } else if matches!(word, "texref" | "samplerref" | "surfref") {
                        // Valid PTX (texture, sampler and surface
                        // references) that warpjit does not run.
                        return failure(
                            r,
                            DiagnosticKind::Unsupported,
                            format!("`.{word}` variables (texture, sampler and surface references, the bound mode) are not supported; texture and surface objects (`.u64` handles) are"),
                            word.len() + 1,
                        );
                    } else {
                        return failure(
                            r,
                            DiagnosticKind::Syntax,
                            format!("expected a type, `.align` or `.vN` in the declaration, found `.{word}`"),
                            word.len() + 1,
                        );
                    }
                }
            }
        }
        if p.ty.is_none() {
            return expected(ws(i)?.0, "a type such as `.b32` or `.f32`");
        }
        Ok((i, p))
    }

    /// Array dimensions `[N][M]` or `[]`.
    fn dims(&self, mut i: &'a str) -> PResult<'a, Vec<Option<u64>>> {
        let mut dims = Vec::new();
        loop {
            let (r, open) = opt_sym('[', i)?;
            if !open {
                return Ok((i, dims));
            }
            let (r, ()) = ws(r)?;
            if let Some(r) = r.strip_prefix(']') {
                dims.push(None);
                i = r;
            } else {
                let (r, n) = uint_lit(r)?;
                let (r, ()) = sym(']')(r)?;
                dims.push(Some(n));
                i = r;
            }
        }
    }

    /// A variable declaration after its linkage and state space, up to and
    /// including `;`. One declaration may name several variables.
    pub fn variables(
        &self,
        start: &'a str,
        i: &'a str,
        linkage: Option<Linkage>,
        space: StateSpace,
    ) -> PResult<'a, Vec<Variable>> {
        let (mut i, prefix) = self.decl_prefix(i, false)?;
        let mut vars = Vec::new();
        loop {
            let (r, ()) = ws(i)?;
            let (r, name) = ident(r)?;
            let (r, range) = {
                let (r2, open) = opt_sym('<', r)?;
                if open {
                    let (r2, ()) = ws(r2)?;
                    let (r2, n) = u32_lit(r2)?;
                    let (r2, ()) = sym('>')(r2)?;
                    (r2, Some(n))
                } else {
                    (r, None)
                }
            };
            let (r, dims) = self.dims(r)?;
            let (r, has_init) = opt_sym('=', r)?;
            let (r, init) = if has_init {
                let (r, v) = cut_err(self.initializer(r, 0))?;
                (r, Some(v))
            } else {
                (r, None)
            };
            vars.push(Variable {
                linkage,
                space,
                attributes: prefix.attributes.clone(),
                align: prefix.align,
                vector: prefix.vector,
                ty: prefix.ty.unwrap_or(ScalarType::B8),
                name: name.to_string(),
                range,
                dims,
                init,
                span: self.span(start, r),
            });
            let (r, ()) = ws(r)?;
            if let Some(r) = r.strip_prefix(',') {
                i = r;
            } else if let Some(r) = r.strip_prefix(';') {
                for v in &mut vars {
                    v.span = self.span(start, r);
                }
                return Ok((r, vars));
            } else {
                return expected(r, "`,`, `=` or `;` in the declaration");
            }
        }
    }

    /// An initializer: a number, `{...}`, `generic(sym)+off` or `sym+off`.
    fn initializer(&self, i: &'a str, depth: u32) -> PResult<'a, Initializer> {
        let (i, ()) = ws(i)?;
        if depth > MAX_INIT_NESTING {
            return failure(
                i,
                DiagnosticKind::Syntax,
                "initializer nested too deeply",
                1,
            );
        }
        if let Some(mut r) = i.strip_prefix('{') {
            let mut items = Vec::new();
            let (r2, empty) = opt_sym('}', r)?;
            if empty {
                return Ok((r2, Initializer::List(items)));
            }
            loop {
                let (r2, item) = self.initializer(r, depth + 1)?;
                items.push(item);
                let (r2, ()) = ws(r2)?;
                if let Some(r3) = r2.strip_prefix(',') {
                    r = r3;
                } else if let Some(r3) = r2.strip_prefix('}') {
                    return Ok((r3, Initializer::List(items)));
                } else {
                    return expected(r2, "`,` or `}` in the initializer");
                }
            }
        }
        if i.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            let (r, imm) = number(i)?;
            return Ok((r, Initializer::Imm(imm)));
        }
        let (r, name) = ident(i)?;
        if name == "generic" {
            let (r2, open) = opt_sym('(', r)?;
            if open {
                let (r2, ()) = ws(r2)?;
                let (r2, inner) = ident(r2)?;
                let (r2, ()) = sym(')')(r2)?;
                let (r2, offset) = offset_suffix(r2)?;
                return Ok((
                    r2,
                    Initializer::Generic {
                        name: inner.to_string(),
                        offset,
                    },
                ));
            }
        }
        let (r, offset) = offset_suffix(r)?;
        Ok((
            r,
            Initializer::Symbol {
                name: name.to_string(),
                offset,
            },
        ))
    }

    /// One parameter: `.param .align 8 .b8 name[16]`, `.reg .b32 name`,
    /// `.param .u64 .ptr .global .align 16 name`, or `.param .b32 _` in prototypes.
    pub fn param(&self, i: &'a str) -> PResult<'a, Param> {
        let (i, ()) = ws(i)?;
        let start = i;
        let Some(r) = i.strip_prefix('.') else {
            return expected(i, "`.param` or `.reg`");
        };
        let (r, word) = dotted_word(r)?;
        let space = match StateSpace::from_name(word) {
            Some(s @ (StateSpace::Param | StateSpace::Reg)) => s,
            _ => return expected(i, "`.param` or `.reg`"),
        };
        let (r, prefix) = self.decl_prefix(r, true)?;
        let (r, ()) = ws(r)?;
        let (r, name) = if let Some(r2) = r
            .strip_prefix('_')
            .filter(|r2| !r2.starts_with(super::lex::is_ident_char))
        {
            (r2, "_")
        } else {
            ident(r)?
        };
        let (r, dims) = self.dims(r)?;
        Ok((
            r,
            Param {
                space,
                align: prefix.align,
                vector: prefix.vector,
                ty: prefix.ty.unwrap_or(ScalarType::B8),
                ptr: prefix.ptr,
                name: name.to_string(),
                dims,
                span: self.span(start, r),
            },
        ))
    }

    /// `( param, param, ... )`, possibly empty.
    pub fn param_list(&self, i: &'a str) -> PResult<'a, Vec<Param>> {
        let (mut i, ()) = sym('(')(i)?;
        let mut params = Vec::new();
        let (r, empty) = opt_sym(')', i)?;
        if empty {
            return Ok((r, params));
        }
        loop {
            let (r, p) = self.param(i)?;
            params.push(p);
            let (r, ()) = ws(r)?;
            if let Some(r) = r.strip_prefix(',') {
                i = r;
            } else if let Some(r) = r.strip_prefix(')') {
                return Ok((r, params));
            } else {
                return expected(r, "`,` or `)` in the parameter list");
            }
        }
    }

    /// Directives between a function's signature and its body or `;`.
    pub fn function_attributes(&self, mut i: &'a str) -> PResult<'a, Vec<FunctionAttribute>> {
        let mut attrs = Vec::new();
        loop {
            let (r, ()) = ws(i)?;
            let Some(after_dot) = r.strip_prefix('.') else {
                return Ok((r, attrs));
            };
            let (after, word) = dotted_word(after_dot)?;
            let (after, attr) = match word {
                "maxntid" | "reqntid" | "reqnctapercluster" => {
                    let (after, dims) = number_list(after)?;
                    (
                        after,
                        match word {
                            "maxntid" => FunctionAttribute::Maxntid(dims),
                            "reqntid" => FunctionAttribute::Reqntid(dims),
                            _ => FunctionAttribute::Reqnctapercluster(dims),
                        },
                    )
                }
                "minnctapersm" | "maxnctapersm" | "maxnreg" | "maxclusterrank" => {
                    let (after, ()) = ws(after)?;
                    let (after, n) = u32_lit(after)?;
                    (
                        after,
                        match word {
                            "minnctapersm" => FunctionAttribute::Minnctapersm(n),
                            "maxnctapersm" => FunctionAttribute::Maxnctapersm(n),
                            "maxnreg" => FunctionAttribute::Maxnreg(n),
                            _ => FunctionAttribute::Maxclusterrank(n),
                        },
                    )
                }
                "noreturn" => (after, FunctionAttribute::Noreturn),
                "explicitcluster" => (after, FunctionAttribute::Explicitcluster),
                "pragma" => {
                    let (after, strings) = self.pragma_strings(after)?;
                    (after, FunctionAttribute::Pragma(strings))
                }
                "abi_preserve" | "abi_preserve_control" => {
                    let (after, nums) = number_list(after)?;
                    (after, FunctionAttribute::Other(word.to_string(), nums))
                }
                _ => return Ok((r, attrs)),
            };
            attrs.push(attr);
            i = after;
        }
    }

    /// `"a", "b" ;` after `.pragma`.
    pub fn pragma_strings(&self, mut i: &'a str) -> PResult<'a, Vec<String>> {
        let mut out = Vec::new();
        loop {
            let (r, ()) = ws(i)?;
            let (r, s) = string_lit(r)?;
            out.push(s);
            let (r, ()) = ws(r)?;
            if let Some(r) = r.strip_prefix(',') {
                i = r;
            } else if let Some(r) = r.strip_prefix(';') {
                return Ok((r, out));
            } else {
                return expected(r, "`,` or `;` after the pragma string");
            }
        }
    }
}

/// `N[, N[, N]]`.
fn number_list(i: &str) -> PResult<'_, Vec<u32>> {
    let mut out = Vec::new();
    let mut i = i;
    loop {
        let (r, ()) = ws(i)?;
        let (r, n) = u32_lit(r)?;
        out.push(n);
        if out.len() == 3 {
            return Ok((r, out));
        }
        let (r2, more) = opt_sym(',', r)?;
        if !more {
            return Ok((r, out));
        }
        i = r2;
    }
}
