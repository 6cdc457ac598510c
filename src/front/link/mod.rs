//! The linker: several PTX modules into one, as ptxas and nvJitLink link
//! relocatable PTX (`nvcc -rdc=true`, NVRTC `--relocatable-device-code`,
//! numba-cuda's kernel with its NRT and fp16 helpers).
//!
//! Each input is parsed on its own (errors name the input, `line:col`).
//! Module-scope functions and variables then link by name:
//! - `.extern` declarations (and bodiless `.visible` prototypes) resolve to
//!   the `.visible`, `.weak` or `.common` definition another input (or the
//!   same one) gives; the device-runtime functions of grid-wide
//!   cooperative-groups sync resolve to warpjit's own (`devrt.rs`), linked
//!   in as one more input when an input declares one and none defines it; a name declared as a function but defined as a
//!   variable, or the other way round, is an error;
//! - two `.visible` definitions of one name are an error naming both;
//!   `.weak` definitions yield to a `.visible` one (the first `.weak` one
//!   is kept when there is none), `.common` variables to a `.visible` one
//!   (the largest is kept when there is none);
//! - an `.extern` name that an input uses and no input defines is an
//!   "undefined reference" naming the symbol and where it is used, except
//!   the functions warpjit provides itself (`vprintf`, `__assertfail`, and
//!   `malloc`/`free`, the device heap's); the other CUDA device-runtime
//!   functions (`cudaLaunchDevice`, `cudaGetParameterBuffer`, ... from
//!   `libcudadevrt`: dynamic parallelism) get their own message;
//! - names without linkage are the input's own: where two inputs use one
//!   name (or one input's local name is another's global one) the later
//!   one is renamed `name$linkN` (N its input number), its references too;
//! - `.extern .shared` arrays are dynamic shared memory, not symbols.
//!
//! The linked module has the inputs' directives in input order (warpjit
//! resolves module-scope names regardless of order): losing `.weak`
//! definitions and resolved `.extern` functions become prototypes, resolved
//! `.extern` variables are dropped, `.file` indices are renumbered so each
//! input's `.loc` lines still name its own source files. Its header has the
//! highest `.version` and `.target` of the inputs; `.address_size` must
//! agree. One input links to itself, unchanged.

pub mod devrt;
pub mod inputs;
mod refs;

use std::collections::{HashMap, HashSet};
use std::fmt;

use super::ast::{self, Directive, Linkage, StateSpace};
use super::{Diagnostics, SourceFile, Span};

/// Why inputs did not link.
#[derive(Clone, Debug)]
pub enum LinkError {
    /// No input was given.
    NoInputs,
    /// Inputs that did not parse: each one's diagnostics.
    Parse(Vec<Diagnostics>),
    /// Symbols that do not link, every one found.
    Symbols(Vec<LinkProblem>),
}

/// One symbol that does not link. Locations are `input:line:col`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkProblem {
    /// Two strong (`.visible`) definitions of one name, or a function and a
    /// variable defined with one global name.
    Duplicate {
        name: String,
        first: String,
        second: String,
    },
    /// A used `.extern` name that no input defines.
    Undefined { name: String, at: String },
    /// A used CUDA device-runtime function (libcudadevrt's), which warpjit
    /// does not have.
    DeviceRuntime { name: String, at: String },
    /// Declared as a function and defined as a variable, or the reverse.
    KindMismatch {
        name: String,
        declared_at: String,
        defined_at: String,
        declared_function: bool,
    },
    /// An input whose `.address_size` differs from the first input's.
    AddressSize {
        input: String,
        size: u32,
        expected: u32,
    },
}

impl LinkProblem {
    /// The symbol the problem is about (the input's name for
    /// `AddressSize`).
    pub fn name(&self) -> &str {
        match self {
            LinkProblem::Duplicate { name, .. }
            | LinkProblem::Undefined { name, .. }
            | LinkProblem::DeviceRuntime { name, .. }
            | LinkProblem::KindMismatch { name, .. } => name,
            LinkProblem::AddressSize { input, .. } => input,
        }
    }
}

impl fmt::Display for LinkProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkProblem::Duplicate { name, first, second } => write!(
                f,
                "{second}: error: duplicate definition of `{name}` (first defined at {first})"
            ),
            LinkProblem::Undefined { name, at } => {
                write!(f, "{at}: error: undefined reference to `{name}`")
            }
            LinkProblem::DeviceRuntime { name, at } => write!(
                f,
                "{at}: error: `{name}` is a CUDA device-runtime function (libcudadevrt): of the device runtime warpjit provides only grid-wide cooperative-groups sync (`cudaCGGetIntrinsicHandle`, `cudaCGSynchronize`, `cudaCGSynchronizeGrid`), not dynamic parallelism"
            ),
            LinkProblem::KindMismatch {
                name,
                declared_at,
                defined_at,
                declared_function,
            } => {
                let (decl, def) = if *declared_function {
                    ("a function", "a variable")
                } else {
                    ("a variable", "a function")
                };
                write!(
                    f,
                    "{declared_at}: error: `{name}` is declared as {decl} but defined as {def} at {defined_at}"
                )
            }
            LinkProblem::AddressSize {
                input,
                size,
                expected,
            } => write!(
                f,
                "{input}: error: `.address_size {size}` cannot link with `.address_size {expected}` inputs"
            ),
        }
    }
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::NoInputs => write!(f, "nothing to link: no PTX inputs"),
            LinkError::Parse(diags) => {
                for (i, d) in diags.iter().enumerate() {
                    if i > 0 {
                        writeln!(f)?;
                    }
                    write!(f, "{d}")?;
                }
                Ok(())
            }
            LinkError::Symbols(problems) => {
                for (i, p) in problems.iter().enumerate() {
                    if i > 0 {
                        writeln!(f)?;
                    }
                    write!(f, "{p}")?;
                }
                if problems.len() > 1 {
                    write!(f, "\n{} link errors", problems.len())?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for LinkError {}

/// Functions that are resolved when a module loads, not by linking:
/// warpjit's own `vprintf` and `__assertfail`, and the CUDA driver's
/// device-side `malloc`/`free` (the device heap, `runtime::heap`).
const PROVIDED: &[&str] = &["vprintf", "__assertfail", "malloc", "free"];

/// Whether `name` is a function of the CUDA device runtime (libcudadevrt:
/// `cudaCG*`, `cudaLaunchDevice`, `cudaGetParameterBuffer`, device-side
/// `cudaMalloc`, ...; all of its functions start with `cuda`).
pub fn is_device_runtime(name: &str) -> bool {
    name.starts_with("cuda") || name.starts_with("__cudaCDP")
}

/// Links PTX texts (name, text) into one module's PTX text. One input is
/// returned as it is, once its symbols check.
pub fn link_ptx(inputs: &[(&str, &str)]) -> Result<String, LinkError> {
    let sources: Vec<SourceFile> = inputs
        .iter()
        .map(|(name, text)| SourceFile::new(*name, *text))
        .collect();
    let (module, grew) = link_inputs(&sources)?;
    if let ([(_, text)], false) = (inputs, grew) {
        return Ok(text.to_string());
    }
    Ok(super::print::module_to_string(&module))
}

/// Links parsed-from-source inputs into one module (see the module doc).
pub fn link(inputs: &[SourceFile]) -> Result<ast::Module, LinkError> {
    link_inputs(inputs).map(|(m, _)| m)
}

/// [`link`], and whether warpjit's device runtime was linked in as one
/// more input.
fn link_inputs(inputs: &[SourceFile]) -> Result<(ast::Module, bool), LinkError> {
    if inputs.is_empty() {
        return Err(LinkError::NoInputs);
    }
    let mut modules = Vec::with_capacity(inputs.len());
    let mut parse_errors = Vec::new();
    for src in inputs {
        match super::parse(src) {
            Ok(m) => modules.push(m),
            Err(d) => parse_errors.push(d),
        }
    }
    if !parse_errors.is_empty() {
        return Err(LinkError::Parse(parse_errors));
    }
    if let Some((src, module)) = devrt::needed(&modules) {
        let mut sources = inputs.to_vec();
        sources.push(src);
        modules.push(module);
        return Ok((Linker::new(&sources, modules).run()?, true));
    }
    Ok((Linker::new(inputs, modules).run()?, false))
}

/// Strength of a global definition: `.visible` wins over `.common`, which
/// wins over `.weak`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Strength {
    Weak,
    Common,
    Strong,
}

/// A global definition: which input, which directive, how strong.
#[derive(Clone, Copy, Debug)]
struct Def {
    input: usize,
    directive: usize,
    strength: Strength,
    function: bool,
    /// A variable's size (largest `.common` wins).
    size: u64,
    span: Span,
}

/// What a module-scope directive is to the linker.
enum Role {
    /// A global definition.
    Definition(Strength),
    /// An `.extern` declaration or a bodiless global prototype.
    Declaration,
    /// A name without linkage, the input's own.
    Local,
    /// Not a symbol (dynamic shared memory, files, sections, pragmas).
    Other,
}

fn role(d: &Directive) -> Role {
    let strength = |l: Option<Linkage>| match l {
        Some(Linkage::Visible) => Some(Strength::Strong),
        Some(Linkage::Weak) => Some(Strength::Weak),
        Some(Linkage::Common) => Some(Strength::Common),
        _ => None,
    };
    match d {
        Directive::Function(f) => match (f.linkage, &f.body) {
            (None, _) => Role::Local,
            (Some(Linkage::Extern), _) | (_, None) => Role::Declaration,
            (l, Some(_)) => Role::Definition(strength(l).unwrap_or(Strength::Strong)),
        },
        Directive::Variable(v) => {
            // `.extern .shared .b8 smem[];`: the block's dynamic shared memory.
            let dynamic_shared = matches!(v.space, StateSpace::Shared | StateSpace::SharedCta)
                && v.linkage == Some(Linkage::Extern)
                && v.dims.iter().any(Option::is_none);
            if dynamic_shared {
                return Role::Other;
            }
            match v.linkage {
                None => Role::Local,
                Some(Linkage::Extern) => Role::Declaration,
                l => Role::Definition(strength(l).unwrap_or(Strength::Strong)),
            }
        }
        _ => Role::Other,
    }
}

fn directive_name(d: &Directive) -> Option<(&str, Span, bool)> {
    match d {
        Directive::Function(f) => Some((&f.name, f.name_span, true)),
        Directive::Variable(v) => Some((&v.name, v.span, false)),
        _ => None,
    }
}

struct Linker<'a> {
    sources: &'a [SourceFile],
    modules: Vec<ast::Module>,
    /// The chosen definition of every global name.
    winners: HashMap<String, Def>,
    problems: Vec<LinkProblem>,
}

impl<'a> Linker<'a> {
    fn new(sources: &'a [SourceFile], modules: Vec<ast::Module>) -> Linker<'a> {
        Linker {
            sources,
            modules,
            winners: HashMap::new(),
            problems: Vec::new(),
        }
    }

    fn at(&self, input: usize, span: Span) -> String {
        self.sources[input].location(span)
    }

    fn run(mut self) -> Result<ast::Module, LinkError> {
        if self.modules.len() == 1 {
            self.choose_definitions();
            self.check_references();
            return self.finish_single();
        }
        let expected = self.modules[0].address_size;
        for (i, m) in self.modules.iter().enumerate().skip(1) {
            if m.address_size != expected {
                self.problems.push(LinkProblem::AddressSize {
                    input: self.sources[i].name().to_string(),
                    size: m.address_size,
                    expected,
                });
            }
        }
        self.choose_definitions();
        self.check_references();
        if !self.problems.is_empty() {
            return Err(LinkError::Symbols(self.problems));
        }
        self.rename_locals();
        Ok(self.merge())
    }

    fn finish_single(mut self) -> Result<ast::Module, LinkError> {
        if self.problems.is_empty() {
            Ok(self.modules.remove(0))
        } else {
            Err(LinkError::Symbols(self.problems))
        }
    }

    /// Picks each global name's definition; reports duplicates.
    fn choose_definitions(&mut self) {
        let mut defs: Vec<(String, Def)> = Vec::new();
        for (input, m) in self.modules.iter().enumerate() {
            for (directive, d) in m.directives.iter().enumerate() {
                let Role::Definition(strength) = role(d) else {
                    continue;
                };
                let Some((name, span, function)) = directive_name(d) else {
                    continue;
                };
                let size = match d {
                    Directive::Variable(v) => v.size_bytes(),
                    _ => 0,
                };
                defs.push((
                    name.to_string(),
                    Def {
                        input,
                        directive,
                        strength,
                        function,
                        size,
                        span,
                    },
                ));
            }
        }
        for (name, def) in defs {
            let Some(best) = self.winners.get(&name).copied() else {
                self.winners.insert(name, def);
                continue;
            };
            let both_strong = best.strength == Strength::Strong && def.strength == Strength::Strong;
            let same_input_function = best.input == def.input && best.function && def.function;
            if both_strong || best.function != def.function || same_input_function {
                self.problems.push(LinkProblem::Duplicate {
                    first: self.at(best.input, best.span),
                    second: self.at(def.input, def.span),
                    name,
                });
                continue;
            }
            let better = def.strength > best.strength
                || (def.strength == Strength::Common
                    && best.strength == Strength::Common
                    && def.size > best.size);
            if better {
                self.winners.insert(name, def);
            }
        }
    }

    /// Every used `.extern` name must be defined, as what it is declared.
    fn check_references(&mut self) {
        let mut problems = Vec::new();
        for input in 0..self.modules.len() {
            let mut declared: HashMap<String, (bool, Span)> = HashMap::new();
            for d in &self.modules[input].directives {
                if let (Role::Declaration, Some((name, span, function))) =
                    (role(d), directive_name(d))
                {
                    declared.entry(name.to_string()).or_insert((function, span));
                }
            }
            for (name, &(function, span)) in &declared {
                if let Some(def) = self.winners.get(name) {
                    if def.function != function {
                        problems.push(LinkProblem::KindMismatch {
                            name: name.clone(),
                            declared_at: self.at(input, span),
                            defined_at: self.at(def.input, def.span),
                            declared_function: function,
                        });
                    }
                }
            }
            // The first use of each undefined name.
            let mut used: Vec<(String, Span)> = Vec::new();
            let mut seen = HashSet::new();
            refs::for_each_reference(&mut self.modules[input].directives, &mut |name, at| {
                if declared.contains_key(name.as_str())
                    && !self.winners.contains_key(name.as_str())
                    && !PROVIDED.contains(&name.as_str())
                    && seen.insert(name.clone())
                {
                    used.push((name.clone(), at));
                }
            });
            for (name, span) in used {
                let at = self.at(input, span);
                problems.push(if is_device_runtime(&name) {
                    LinkProblem::DeviceRuntime { name, at }
                } else {
                    LinkProblem::Undefined { name, at }
                });
            }
        }
        self.problems.extend(problems);
    }

    /// Renames local names that another input also uses (see the module doc).
    fn rename_locals(&mut self) {
        let mut all: HashSet<String> = HashSet::new();
        let mut global: HashSet<String> = HashSet::new();
        let mut locals: Vec<Vec<String>> = Vec::new();
        for m in &self.modules {
            // In order, once each (a prototype and its definition are one name).
            let mut mine = Vec::new();
            let mut seen = HashSet::new();
            for d in &m.directives {
                if let Some((name, _, _)) = directive_name(d) {
                    all.insert(name.to_string());
                    match role(d) {
                        Role::Local => {
                            if seen.insert(name) {
                                mine.push(name.to_string());
                            }
                        }
                        Role::Definition(_) | Role::Declaration => {
                            global.insert(name.to_string());
                        }
                        Role::Other => {}
                    }
                }
            }
            locals.push(mine);
        }
        let mut kept: HashSet<String> = HashSet::new();
        for (input, names) in locals.into_iter().enumerate() {
            let mut map: HashMap<String, String> = HashMap::new();
            for name in names {
                if !global.contains(&name) && kept.insert(name.clone()) {
                    continue;
                }
                let mut fresh = format!("{name}$link{}", input + 1);
                let mut k = 1;
                while all.contains(&fresh) {
                    k += 1;
                    fresh = format!("{name}$link{}_{k}", input + 1);
                }
                all.insert(fresh.clone());
                map.insert(name, fresh);
            }
            if map.is_empty() {
                continue;
            }
            let directives = &mut self.modules[input].directives;
            for d in directives.iter_mut() {
                if matches!(role(d), Role::Local) {
                    let name = match d {
                        Directive::Function(f) => &mut f.name,
                        Directive::Variable(v) => &mut v.name,
                        _ => continue,
                    };
                    if let Some(new) = map.get(name.as_str()) {
                        *name = new.clone();
                    }
                }
            }
            refs::for_each_reference(directives, &mut |name, _| {
                if let Some(new) = map.get(name.as_str()) {
                    *name = new.clone();
                }
            });
        }
    }

    /// The linked module (see the module doc for what it holds).
    fn merge(self) -> ast::Module {
        let first = &self.modules[0];
        let mut version = first.version;
        let mut target = first.target.clone();
        for m in &self.modules[1..] {
            version = version.max(m.version);
            if arch_number(&m.target.arch) > arch_number(&target.arch) {
                target.arch = m.target.arch.clone();
            }
            for o in &m.target.options {
                if !target.options.contains(o) {
                    target.options.push(o.clone());
                }
            }
        }
        let address_size = first.address_size;
        let mut directives = Vec::new();
        // Names already given a prototype or a definition, and dynamic shared arrays.
        let mut declared: HashSet<String> = HashSet::new();
        let mut file_offset = 0;
        for (input, m) in self.modules.into_iter().enumerate() {
            let mut max_file = 0;
            for (index, mut d) in m.directives.into_iter().enumerate() {
                match role(&d) {
                    Role::Definition(_) => {
                        let name = directive_name(&d).map(|(n, _, _)| n.to_string());
                        let winner = name
                            .as_ref()
                            .and_then(|n| self.winners.get(n))
                            .is_some_and(|w| w.input == input && w.directive == index);
                        match d {
                            Directive::Function(mut f) if !winner => {
                                // A losing weak definition: keep its prototype.
                                f.body = None;
                                if declared.insert(f.name.clone()) {
                                    directives.push(Directive::Function(f));
                                }
                            }
                            Directive::Variable(_) if !winner => {}
                            mut d => {
                                if let Directive::Function(f) = &mut d {
                                    declared.insert(f.name.clone());
                                    if let Some(body) = &mut f.body {
                                        refs::renumber_locs(body, file_offset);
                                    }
                                }
                                directives.push(d);
                            }
                        }
                    }
                    Role::Declaration => match d {
                        Directive::Function(mut f) => {
                            if let Some(w) = self.winners.get(&f.name) {
                                f.linkage = Some(match w.strength {
                                    Strength::Weak => Linkage::Weak,
                                    _ => Linkage::Visible,
                                });
                            }
                            if declared.insert(f.name.clone()) {
                                directives.push(Directive::Function(f));
                            }
                        }
                        // An unresolved variable, once (resolved ones are dropped).
                        Directive::Variable(v)
                            if !self.winners.contains_key(&v.name)
                                && declared.insert(v.name.clone()) =>
                        {
                            directives.push(Directive::Variable(v));
                        }
                        _ => {}
                    },
                    Role::Local => {
                        if let Directive::Function(f) = &mut d {
                            if let Some(body) = &mut f.body {
                                refs::renumber_locs(body, file_offset);
                            }
                        }
                        directives.push(d);
                    }
                    Role::Other => match &mut d {
                        Directive::File(f) => {
                            max_file = max_file.max(f.index);
                            f.index += file_offset;
                            directives.push(d);
                        }
                        Directive::Variable(v) => {
                            if declared.insert(v.name.clone()) {
                                directives.push(d);
                            }
                        }
                        _ => directives.push(d),
                    },
                }
            }
            file_offset += max_file;
        }
        ast::Module {
            version,
            target,
            address_size,
            directives,
        }
    }
}

/// `sm_90a` → 90, `compute_80` → 80 (0 when there is no number).
fn arch_number(arch: &str) -> u32 {
    arch.trim_start_matches(|c: char| !c.is_ascii_digit())
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap_or(0)
}
