//! Fuzz target for the PTX front end: any input must parse or fail with
//! diagnostics (never panic, never hang); whatever parses must print back to
//! PTX that parses to an equal AST, and must lower (and verify) to IR or
//! fail with diagnostics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpjit::front::{parse_str, print, SourceFile};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match parse_str("fuzz.ptx", &text) {
        Ok(module) => {
            let printed = print::module_to_string(&module);
            let again = parse_str("printed.ptx", &printed)
                .unwrap_or_else(|d| panic!("printed module does not parse:\n{d}\n---\n{printed}"));
            assert!(module == again, "AST changed through print and parse:\n{printed}");
            let source = SourceFile::new("fuzz.ptx", text.as_ref());
            if let Err(diags) = warpjit::ir::lower::run(&module, &source) {
                let _ = diags.to_string();
            }
        }
        Err(diags) => {
            // Rendering must not panic either.
            let _ = diags.to_string();
        }
    }
});
