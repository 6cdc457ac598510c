//! Finding and running ptxas and nvdisasm, and the cache of their results.
//!
//! Each tool is looked for, in order: in its environment variable
//! (`WARPJIT_PTXAS`, `WARPJIT_NVDISASM`; when set, only there: a path that
//! is not a file hides the tool), on `PATH`, and in the Python packages of
//! NVIDIA's wheels (`nvidia/cuda_nvcc/bin/ptxas` of `nvidia-cuda-nvcc-cu12`,
//! `nvidia/cu13/bin/nvdisasm` of `nvidia-cuda-nvdisasm` 13.x, and the 12.x
//! layouts), under each directory of `python3 -c "import nvidia;
//! print(nvidia.__path__)"` (remembered in the cache directory, asked
//! again when a remembered directory is gone). The lookup runs once per
//! process; Python gets 10 seconds, ptxas and nvdisasm 300 and 120 per run,
//! and a tool that hangs is killed. Outputs go through files, never pipes.
//!
//! Results are cached by a hash of the PTX text and the tools' identities
//! (path, size, modification time) in `$WARPJIT_CACHE_DIR`, else
//! `$XDG_CACHE_HOME/warpjit/sass`, else `~/.cache/warpjit/sass`; a cache
//! that cannot be written is skipped.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::SassError;

/// The two tools.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tools {
    pub ptxas: PathBuf,
    pub nvdisasm: PathBuf,
}

/// The tools, or why they are not there (found once per process).
pub fn discover() -> Result<Tools, String> {
    static FOUND: OnceLock<Result<Tools, String>> = OnceLock::new();
    FOUND.get_or_init(find).clone()
}

fn find() -> Result<Tools, String> {
    // Python's answer is remembered in the cache directory (it takes a
    // tenth of a second), and asked again when a remembered path is gone.
    let remembered = cache_dir().map(|d| d.join("nvidia-dirs.txt"));
    let mut python: Option<Vec<PathBuf>> = None;
    let mut python_dirs = || -> Vec<PathBuf> {
        python
            .get_or_insert_with(|| {
                let known = remembered
                    .as_ref()
                    .and_then(|f| std::fs::read_to_string(f).ok())
                    .map(|t| t.lines().map(PathBuf::from).collect::<Vec<_>>())
                    .filter(|d| !d.is_empty() && d.iter().all(|p| p.is_dir()));
                known.unwrap_or_else(|| {
                    let dirs = nvidia_dirs();
                    if let (Some(f), false) = (&remembered, dirs.is_empty()) {
                        let text: Vec<String> =
                            dirs.iter().map(|d| d.display().to_string()).collect();
                        store(f, &(text.join("\n") + "\n"));
                    }
                    dirs
                })
            })
            .clone()
    };
    let ptxas = locate(
        "ptxas",
        "WARPJIT_PTXAS",
        &["cuda_nvcc/bin/ptxas"],
        &mut python_dirs,
    )?;
    let nvdisasm = locate(
        "nvdisasm",
        "WARPJIT_NVDISASM",
        &[
            "cu13/bin/nvdisasm",
            "cuda_nvdisasm/bin/nvdisasm",
            "cuda_nvcc/bin/nvdisasm",
        ],
        &mut python_dirs,
    )?;
    Ok(Tools { ptxas, nvdisasm })
}

fn locate(
    name: &str,
    var: &str,
    wheel_paths: &[&str],
    python_dirs: &mut dyn FnMut() -> Vec<PathBuf>,
) -> Result<PathBuf, String> {
    if let Some(v) = std::env::var_os(var) {
        let p = PathBuf::from(&v);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!(
                "{name} not found ({var}={} is not a file)",
                p.display()
            ))
        };
    }
    if let Some(paths) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&paths) {
            let p = dir.join(name);
            if p.is_file() {
                return Ok(p);
            }
        }
    }
    for dir in python_dirs() {
        for w in wheel_paths {
            let p = dir.join(w);
            if p.is_file() {
                return Ok(p);
            }
        }
    }
    Err(format!("{name} not found"))
}

/// The directories of Python's `nvidia` namespace package (none when
/// Python or the package is missing).
fn nvidia_dirs() -> Vec<PathBuf> {
    let dir = scratch_dir();
    let Ok(dir) = dir else { return Vec::new() };
    let script = "import nvidia, sys; sys.stdout.write('\\n'.join(nvidia.__path__))";
    let out = run(
        Command::new("python3").args(["-c", script]),
        &dir,
        Duration::from_secs(10),
    );
    let _ = std::fs::remove_dir_all(&dir);
    match out {
        Ok(o) if o.success => o.stdout.lines().map(PathBuf::from).collect(),
        _ => Vec::new(),
    }
}

/// What a finished tool left.
pub struct Output {
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `cmd` with its outputs in files of `dir`, killing it after
/// `limit`.
pub fn run(cmd: &mut Command, dir: &Path, limit: Duration) -> Result<Output, SassError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let io = |e: std::io::Error| SassError::Io(format!("{program}: {e}"));
    let out_path = dir.join("stdout.txt");
    let err_path = dir.join("stderr.txt");
    let out = std::fs::File::create(&out_path).map_err(io)?;
    let err = std::fs::File::create(&err_path).map_err(io)?;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(io)?;
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(io)? {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(SassError::Timeout {
                tool: program,
                seconds: limit.as_secs(),
            });
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    Ok(Output {
        success: status.success(),
        stdout: read(&out_path),
        stderr: read(&err_path),
    })
}

/// A fresh scratch directory under the system's temporary directory.
pub fn scratch_dir() -> Result<PathBuf, SassError> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("warpjit-sass-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| SassError::Io(format!("{}: {e}", dir.display())))?;
    Ok(dir)
}

/// ptxas's version (`12.9.86` from `... V12.9.86`), or "unknown".
pub fn ptxas_version(tools: &Tools) -> String {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION
        .get_or_init(|| {
            let Ok(dir) = scratch_dir() else {
                return "unknown".into();
            };
            let out = run(
                Command::new(&tools.ptxas).arg("--version"),
                &dir,
                Duration::from_secs(30),
            );
            let _ = std::fs::remove_dir_all(&dir);
            out.ok()
                .and_then(|o| {
                    o.stdout
                        .split_whitespace()
                        .find_map(|w| w.strip_prefix('V').map(str::to_string))
                })
                .unwrap_or_else(|| "unknown".into())
        })
        .clone()
}

/// The cache directory (see the module doc), if there is a home.
fn cache_dir() -> Option<PathBuf> {
    Some(match std::env::var_os("WARPJIT_CACHE_DIR") {
        Some(d) => PathBuf::from(d),
        None => match std::env::var_os("XDG_CACHE_HOME") {
            Some(d) if !d.is_empty() => PathBuf::from(d).join("warpjit/sass"),
            _ => PathBuf::from(std::env::var_os("HOME")?).join(".cache/warpjit/sass"),
        },
    })
}

/// What identifies a tool for the cache: path, size, modification time.
fn identity(p: &Path) -> String {
    let meta = std::fs::metadata(p).ok();
    let size = meta.as_ref().map_or(0, |m| m.len());
    let mtime = meta
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs());
    format!("{}:{size}:{mtime}", p.display())
}

/// The cache file for `ptx` compiled for `arch` by `tools`, if there is a
/// cache directory.
pub fn cache_file(tools: &Tools, arch: &str, ptx: &str) -> Option<PathBuf> {
    let dir = cache_dir()?;
    let key = format!(
        "{} {}\n{arch}\n{}\n{}\n",
        super::sidecar::FORMAT,
        super::summary::REVISION,
        identity(&tools.ptxas),
        identity(&tools.nvdisasm)
    );
    let mut h = super::Fnv::new();
    h.write(key.as_bytes());
    h.write(ptx.as_bytes());
    Some(dir.join(format!("{:016x}.json", h.finish())))
}

/// Writes `text` to `path` through a temporary file (readers never see a
/// partial entry); failures are ignored (the cache is an optimisation).
pub fn store(path: &Path, text: &str) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = dir.join(format!(
        ".{}.{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("entry"),
        std::process::id()
    ));
    if std::fs::write(&tmp, text).is_ok() && std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}
