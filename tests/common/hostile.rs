//! What the hostile-input tests share: the `warpjit` binary, a scratch
//! directory per test, one-kernel modules, and the no-crash check.
//! Included by path from hostile.rs and hostile_load.rs, not through
//! `common`, which the examples include too and which cannot name the
//! binary there.

use std::path::PathBuf;
use std::process::{Command, Output};

pub fn warpjit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_warpjit"))
}

/// A scratch directory of this test's own.
pub fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("warpjit-hostile-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `text` to `name` in `test`'s scratch directory.
pub fn write_ptx(test: &str, name: &str, text: &str) -> PathBuf {
    let path = scratch(test).join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The header of the modules these tests write.
pub const HEADER: &str = ".version 7.0\n.target sm_80\n.address_size 64\n\n";

/// A module of one kernel `k` with the given parameters and body.
pub fn kernel(params: &str, body: &str) -> String {
    format!("{HEADER}.visible .entry k({params})\n{{\n{body}\n}}\n")
}

/// The ways a launch runs: the JIT, the interpreter, and timed.
pub const MODES: [&[&str]; 3] = [&[], &["--engine", "interp"], &["--timing", "sm_80"]];

pub fn run(path: &PathBuf, args: &[&str]) -> Output {
    warpjit().arg("run").arg(path).args(args).output().unwrap()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// No panic, no abort: the process exited with a status of its own.
pub fn assert_no_crash(out: &Output, what: &str) {
    let err = stderr(out);
    assert!(
        out.status.code().is_some(),
        "{what}: killed by a signal: {err}"
    );
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert!(!err.contains("RUST_BACKTRACE"), "{what}: {err}");
}

pub fn trivial() -> String {
    kernel("", "\tret;")
}
