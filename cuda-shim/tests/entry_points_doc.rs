//! docs/driver-entry-points.md (written by `cuda-shim/gen_entry_points.py`)
//! lists exactly the entry points the sources implement: every
//! `pub unsafe extern "C" fn cu…` of cuda-shim/src but the stubs, and the
//! interposer's NVRTC and nvJitLink entry points. Fails when one is added
//! or removed without regenerating the list.

use std::collections::BTreeSet;
use std::path::Path;

mod common;

/// The names after `pub unsafe extern "C" fn ` starting with one of `prefixes`.
fn defined(dir: &Path, skip: Option<&str>, prefixes: &[&str]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") || skip.is_some_and(|s| path.ends_with(s)) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for piece in text.split("pub unsafe extern \"C\" fn ").skip(1) {
            let name: String = piece
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if prefixes.iter().any(|p| name.starts_with(p)) {
                out.insert(name);
            }
        }
        // The interposer's nvJitLink entry points are made by `export!`.
        for piece in text.split("\nexport!(\"").skip(1) {
            let base: String = piece.chars().take_while(|c| *c != '"').collect();
            out.insert(format!("nvJitLink{base}"));
        }
    }
    out
}

#[test]
fn the_entry_point_list_matches_the_sources() {
    let root = common::repo();
    let doc = std::fs::read_to_string(root.join("docs/driver-entry-points.md")).unwrap();
    let listed = |prefix: &str| -> BTreeSet<String> {
        doc.lines()
            .filter_map(|l| l.strip_prefix(prefix))
            .filter_map(|l| l.split('`').next())
            .map(str::to_string)
            .collect()
    };
    let shim = defined(&root.join("cuda-shim/src"), Some("stubs.rs"), &["cu"]);
    assert_eq!(
        listed("| `"),
        shim,
        "docs/driver-entry-points.md is stale: python3 cuda-shim/gen_entry_points.py"
    );
    let interposer = defined(
        &root.join("cuda-shim/interpose/src"),
        None,
        &["nvrtc", "nvJitLink"],
    );
    assert_eq!(
        listed("- `"),
        interposer,
        "docs/driver-entry-points.md is stale: python3 cuda-shim/gen_entry_points.py"
    );
    assert!(doc.contains(&format!(
        "implements {} Driver API entry points",
        shim.len()
    )));
}
