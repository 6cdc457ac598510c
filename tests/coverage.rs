//! docs/ptx-coverage.md mentions every opcode the parser knows.

mod common;

use warpjit::front::ast::Opcode;

#[test]
fn coverage_doc_lists_every_opcode() {
    let doc = common::read(&common::repo_root().join("docs/ptx-coverage.md"));
    let missing: Vec<&str> = Opcode::ALL
        .iter()
        .map(|o| o.name())
        .filter(|n| {
            !doc.contains(&format!("`{n}`"))
                && !doc.contains(&format!("`{n}."))
                && !doc.contains(&format!("`{n} "))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/ptx-coverage.md does not mention: {missing:?}"
    );
}
