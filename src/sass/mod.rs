//! SASS for the timing model: what ptxas really emits for each PTX line,
//! so that timed launches can issue the real binary's instructions
//! instead of the PTX's (`timing::costs`, `docs/timing-model.md`).
//!
//! This is the runtime side of it: it runs the tools and reads files; the
//! timing model only consumes the resulting [`SassTable`].
//!
//! - [`rewrite`]: the PTX with one `.loc` per instruction, naming its own
//!   PTX line, so that `ptxas -lineinfo` maps every SASS instruction back.
//! - [`tools`]: finding ptxas and nvdisasm, running them (with time
//!   limits), the cache of their results.
//! - [`disasm`]: reading `nvdisasm -c -g`; SASS opcodes to unit classes
//!   and memory accesses.
//! - [`summary`]: per PTX line, the SASS of one execution (unrolled copies
//!   counted once) and per kernel `ptxas -v`'s register count.
//! - [`sidecar`]: the table as JSON, committed beside the corpus's PTX.
//!
//! [`resolve`] chooses the source for a launch: the tools when found (and
//! their cached result), else the sidecar beside the PTX
//! (`FILE.ptx.sass.json`, used only if made from the same PTX text), else
//! none (the PTX model), saying why.

pub mod disasm;
pub mod rewrite;
pub mod sidecar;
pub mod summary;
pub mod tools;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::front::{self, ast, SourceFile};
use crate::timing::costs::SassTable;

/// Why SASS could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SassError {
    /// Neither the tools nor a sidecar (`--costs sass`); the text says why.
    #[error("no SASS: {0}")]
    Unavailable(String),
    #[error("{tool} did not finish in {seconds} s")]
    Timeout { tool: String, seconds: u64 },
    #[error("{tool} failed: {message}")]
    ToolFailed { tool: String, message: String },
    #[error("{0}")]
    Io(String),
    #[error("{file}: {why}")]
    BadSidecar { file: String, why: String },
    /// The PTX did not parse.
    #[error("{0}")]
    Ptx(String),
}

/// Where a timed launch's issue costs come from (`warpjit run --costs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CostMode {
    /// The PTX model.
    Ptx,
    /// SASS, or an error.
    Sass,
    /// SASS where it can be had, else the PTX model.
    Auto,
}

/// What [`resolve`] found.
#[derive(Clone, Debug)]
pub struct Resolution {
    /// The SASS, when found (its `origin` says where from).
    pub table: Option<SassTable>,
    /// Why there is none ("ptxas not found; no sidecar x.sass.json").
    pub note: String,
}

/// FNV-1a, 64 bits: the PTX hash and the cache key.
pub(crate) struct Fnv(u64);

impl Fnv {
    pub(crate) fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}

/// The hash a sidecar records of the PTX it was made from.
pub fn ptx_hash(text: &str) -> String {
    let mut h = Fnv::new();
    h.write(text.as_bytes());
    format!("fnv1a64:{:016x}", h.finish())
}

/// `FILE.ptx.sass.json` beside `FILE.ptx`.
pub fn sidecar_path(ptx: &Path) -> PathBuf {
    let mut name = ptx.file_name().unwrap_or_default().to_os_string();
    name.push(".sass.json");
    ptx.with_file_name(name)
}

/// The architecture to compile `module` for: sm_80, or the module's
/// target where that is later (`sm_90a` for `wgmma`).
pub fn sass_arch(module: &ast::Module) -> String {
    let t = &module.target.arch;
    let digits: String = t
        .trim_start_matches("sm_")
        .trim_start_matches("compute_")
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    match digits.parse::<u32>() {
        Ok(n) if n > 80 => t.replacen("compute_", "sm_", 1),
        _ => "sm_80".to_string(),
    }
}

/// What ptxas and nvdisasm made of a PTX text.
pub struct Compiled {
    /// The SASS architecture compiled for.
    pub arch: String,
    /// `ptxas -v`'s log.
    pub log: String,
    /// `nvdisasm -c -g`'s output (SASS with the PTX line of each group).
    pub disassembly: String,
}

/// Compiles `module` (parsed from `source`, the PTX file `name`) with
/// ptxas for [`sass_arch`] and disassembles it with nvdisasm (`tools`).
pub fn compile(
    source: &SourceFile,
    module: &ast::Module,
    tools: &tools::Tools,
) -> Result<Compiled, SassError> {
    let arch = sass_arch(module);
    let base = Path::new(source.name())
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("kernel.ptx");
    let rewritten = rewrite::with_line_locs(source, module, base);
    let dir = tools::scratch_dir()?;
    let result = (|| {
        let ptx = dir.join("in.ptx");
        let cubin = dir.join("out.cubin");
        std::fs::write(&ptx, &rewritten)
            .map_err(|e| SassError::Io(format!("{}: {e}", ptx.display())))?;
        let out = tools::run(
            Command::new(&tools.ptxas)
                .arg(format!("-arch={arch}"))
                .args(["-lineinfo", "-v"])
                .args(rewrite::is_debug(module).then_some("-O0"))
                .arg(&ptx)
                .arg("-o")
                .arg(&cubin),
            &dir,
            Duration::from_secs(300),
        )?;
        if !out.success {
            return Err(SassError::ToolFailed {
                tool: "ptxas".into(),
                message: first_error(&out.stderr).replace(&ptx.display().to_string(), base),
            });
        }
        let log = format!("{}{}", out.stdout, out.stderr);
        let dis = tools::run(
            Command::new(&tools.nvdisasm).args(["-c", "-g"]).arg(&cubin),
            &dir,
            Duration::from_secs(120),
        )?;
        if !dis.success {
            return Err(SassError::ToolFailed {
                tool: "nvdisasm".into(),
                message: first_error(&dis.stderr),
            });
        }
        Ok(Compiled {
            arch: arch.clone(),
            log,
            disassembly: dis.stdout,
        })
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Compiles `text` (the PTX file `name`) with ptxas and disassembles it
/// with nvdisasm (`tools`), giving its table (origin "ptxas run").
pub fn generate(name: &str, text: &str, tools: &tools::Tools) -> Result<SassTable, SassError> {
    let source = SourceFile::new(name.to_string(), text.to_string());
    let module = front::parse(&source).map_err(|d| SassError::Ptx(d.to_string()))?;
    let c = compile(&source, &module, tools)?;
    let d = disasm::parse(&c.disassembly);
    let mem_lines = rewrite::memory_lines(&source, &module);
    let kernels: Vec<String> = module.kernels().map(|k| k.name.clone()).collect();
    let mut table = summary::summarize(
        &d,
        &summary::Inputs {
            mem_lines: &mem_lines,
            log: &c.log,
            kernels: &kernels,
            arch: &c.arch,
            ptxas: &tools::ptxas_version(tools),
            ptx_hash: &ptx_hash(text),
        },
    );
    table.origin = "ptxas run".into();
    Ok(table)
}

/// The first line of a tool's errors that says "error" or "fatal" (else
/// its first).
fn first_error(stderr: &str) -> String {
    let line = stderr
        .lines()
        .find(|l| l.contains("error") || l.contains("fatal"))
        .or_else(|| stderr.lines().next())
        .unwrap_or("no message")
        .trim();
    line.chars().take(300).collect()
}

/// [`generate`] through the cache (origin "cache" on a hit).
pub fn generate_cached(
    name: &str,
    text: &str,
    tools: &tools::Tools,
) -> Result<SassTable, SassError> {
    let arch = front::parse_str(name, text)
        .map(|m| sass_arch(&m))
        .map_err(|d| SassError::Ptx(d.to_string()))?;
    let entry = tools::cache_file(tools, &arch, text);
    if let Some(path) = &entry {
        if let Ok(cached) = std::fs::read_to_string(path) {
            if let Ok(mut t) = sidecar::from_json(&path.display().to_string(), &cached) {
                if t.ptx_hash == ptx_hash(text) {
                    t.origin = "cache".into();
                    return Ok(t);
                }
            }
        }
    }
    let table = generate(name, text, tools)?;
    if let Some(path) = &entry {
        tools::store(path, &sidecar::to_json(&table));
    }
    Ok(table)
}

/// Reads the sidecar of `ptx` (whose text is `text`), or says why there
/// is none for this text.
pub fn read_sidecar(ptx: &Path, text: &str) -> Result<SassTable, String> {
    let path = sidecar_path(ptx);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Ok(json) = std::fs::read_to_string(&path) else {
        return Err(format!("no sidecar {name}"));
    };
    let mut t =
        sidecar::from_json(&path.display().to_string(), &json).map_err(|e| e.to_string())?;
    if t.ptx_hash != ptx_hash(text) {
        return Err(format!("sidecar {name} is for another PTX text"));
    }
    t.origin = format!("sidecar {name}");
    Ok(t)
}

/// Where the issue costs of a launch of `text` (read from `ptx`, when it
/// came from a file) come from under `mode` (see the module doc).
pub fn resolve(ptx: Option<&Path>, text: &str, mode: CostMode) -> Result<Resolution, SassError> {
    if mode == CostMode::Ptx {
        return Ok(Resolution {
            table: None,
            note: "--costs ptx".into(),
        });
    }
    let name = ptx.map_or("kernel.ptx".to_string(), |p| p.display().to_string());
    let mut why = Vec::new();
    match tools::discover() {
        Ok(t) => match generate_cached(&name, text, &t) {
            Ok(table) => {
                return Ok(Resolution {
                    table: Some(table),
                    note: String::new(),
                })
            }
            Err(e) => why.push(e.to_string()),
        },
        Err(e) => why.push(e),
    }
    match ptx.map(|p| read_sidecar(p, text)) {
        Some(Ok(table)) => {
            return Ok(Resolution {
                table: Some(table),
                note: String::new(),
            })
        }
        Some(Err(e)) => why.push(e),
        None => why.push("no PTX file for a sidecar".into()),
    }
    let note = why.join("; ");
    match mode {
        CostMode::Sass => Err(SassError::Unavailable(note)),
        _ => Ok(Resolution { table: None, note }),
    }
}
