//! Hostile input (issue 23): whatever the PTX, the files and the command
//! line, `warpjit` gives a clear error or a result, never a panic, an abort,
//! a hang or an escape. The kernels run on both engines and, where it
//! applies, timed.

use std::path::PathBuf;
use std::process::{Command, Output};

fn warpjit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_warpjit"))
}

/// A scratch directory of this test's own.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("warpjit-hostile-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `text` to `name` in `test`'s scratch directory.
fn write_ptx(test: &str, name: &str, text: &str) -> PathBuf {
    let path = scratch(test).join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A module of one kernel `k` with the given parameters and body.
fn kernel(params: &str, body: &str) -> String {
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k({params})\n{{\n{body}\n}}\n"
    )
}

/// The ways a launch runs: the JIT, the interpreter, and timed.
const MODES: [&[&str]; 3] = [&[], &["--engine", "interp"], &["--timing", "sm_80"]];

fn run(path: &PathBuf, args: &[&str]) -> Output {
    warpjit().arg("run").arg(path).args(args).output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// No panic, no abort: the process exited with a status of its own.
fn assert_no_crash(out: &Output, what: &str) {
    let err = stderr(out);
    assert!(
        out.status.code().is_some(),
        "{what}: killed by a signal: {err}"
    );
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert!(!err.contains("RUST_BACKTRACE"), "{what}: {err}");
}

fn trivial() -> String {
    kernel("", "\tret;")
}

#[test]
fn watchdog_seconds_out_of_range_is_a_clear_error() {
    let path = write_ptx("wd-secs", "k.ptx", &trivial());
    for bad in ["nan", "NaN", "inf", "-inf", "1e300", "-1", "1e20", "x", ""] {
        let opt = format!("--watchdog-seconds={bad}");
        let out = run(&path, &["--grid", "1", "--block", "1", &opt]);
        assert_no_crash(&out, bad);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("--watchdog-seconds"),
            "{bad}: {}",
            stderr(&out)
        );
    }
    // Large but representable limits and zero-length ones are accepted.
    for good in ["1e19", "0.5", "1e9"] {
        for mode in MODES {
            let mut args = vec!["--grid", "1", "--block", "1", "--watchdog-seconds", good];
            args.extend_from_slice(mode);
            let out = run(&path, &args);
            assert_no_crash(&out, good);
            assert!(out.status.success(), "{good} {mode:?}: {}", stderr(&out));
        }
    }
}
