//! Shared helpers for the integration tests: finding the corpus.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.ptx` file under `ptx-samples/`, sorted, except the linker's
/// inputs in `ptx-samples/link/` (relocatable code with `.extern`
/// references, which only loads linked: `tests/link.rs`).
pub fn corpus_ptx_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(&repo_root().join("ptx-samples"), &mut out);
    let link = repo_root().join("ptx-samples/link");
    out.retain(|p| p.extension().is_some_and(|e| e == "ptx") && !p.starts_with(&link));
    out.sort();
    out
}

/// Every sample directory (one holding a `sample.json`), sorted.
pub fn sample_dirs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(&repo_root().join("ptx-samples"), &mut out);
    let mut dirs: Vec<PathBuf> = out
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "sample.json"))
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .collect();
    dirs.sort();
    dirs
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

pub mod fidelity;
pub mod forms;
pub mod hw;
pub mod samples;
pub mod sanitizer;

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}
