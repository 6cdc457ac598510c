//! The front end over the whole real-PTX corpus: every file parses, prints
//! back to PTX that parses to an equal AST, and every sample's launch
//! description matches its kernel's signature.

mod common;

use warpjit::front::{self, ast, print};

#[test]
fn corpus_is_large_enough() {
    let files = common::corpus_ptx_files();
    assert!(
        files.len() >= 48,
        "expected at least 48 corpus PTX files, found {}",
        files.len()
    );
    assert!(
        common::sample_dirs().len() >= 48,
        "expected at least 48 samples"
    );
}

#[test]
fn every_corpus_file_parses() {
    let mut failures = Vec::new();
    for path in common::corpus_ptx_files() {
        let text = common::read(&path);
        match front::parse_str(&path.display().to_string(), &text) {
            Ok(m) => assert!(
                m.functions().count() > 0,
                "{}: no functions",
                path.display()
            ),
            Err(d) => failures.push(d.to_string()),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn parse_print_parse_gives_the_same_ast() {
    for path in common::corpus_ptx_files() {
        let name = path.display().to_string();
        let first = front::parse_str(&name, &common::read(&path)).unwrap();
        let printed = print::module_to_string(&first);
        let second = front::parse_str(&format!("{name} (printed)"), &printed)
            .unwrap_or_else(|d| panic!("printed module does not parse:\n{d}"));
        assert!(
            first == second,
            "{name}: AST changed through print and parse"
        );
        assert_eq!(
            printed,
            print::module_to_string(&second),
            "{name}: printing is not stable"
        );
    }
}

/// Size in bytes of a `TYPE:VALUE` scalar argument's type.
fn scalar_size(ty: &str) -> Option<u64> {
    Some(match ty {
        "u8" | "s8" | "b8" => 1,
        "u16" | "s16" | "b16" | "f16" => 2,
        "u32" | "s32" | "b32" | "f32" => 4,
        "u64" | "s64" | "b64" | "f64" => 8,
        _ => return None,
    })
}

#[test]
fn launch_descriptions_match_kernel_signatures() {
    let mut problems = Vec::new();
    for dir in common::sample_dirs() {
        let spec: serde_json::Value = serde_json::from_str(&common::read(&dir.join("sample.json")))
            .expect("sample.json is JSON");
        let kernel = spec["kernel"].as_str().expect("kernel name");
        let args: Vec<&str> = spec["args"]
            .as_array()
            .expect("args")
            .iter()
            .map(|a| a.as_str().expect("arg is a string"))
            .collect();
        let ptx_files = spec["ptx"].as_array().expect("ptx list");
        assert!(!ptx_files.is_empty(), "{}: no PTX listed", dir.display());
        for ptx in ptx_files {
            let path = dir.join(ptx.as_str().unwrap());
            let module =
                front::parse_str(&path.display().to_string(), &common::read(&path)).unwrap();
            let Some(f) = module.kernels().find(|f| f.name == kernel) else {
                problems.push(format!("{}: no kernel {kernel}", path.display()));
                continue;
            };
            if f.params.len() != args.len() {
                problems.push(format!(
                    "{}: {} params but {} args",
                    path.display(),
                    f.params.len(),
                    args.len()
                ));
                continue;
            }
            for (p, a) in f.params.iter().zip(&args) {
                let (kind, rest) = a.split_once(':').unwrap();
                let want = match kind {
                    "in" | "out" | "inout" | "tex" | "surf" => Some(8),
                    "tmap" => Some(128),
                    "bytes" => std::fs::metadata(dir.join(rest)).ok().map(|m| m.len()),
                    ty => scalar_size(ty),
                };
                if want != Some(p.size_bytes()) {
                    problems.push(format!(
                        "{}: arg `{a}` does not fit param {} of {} bytes",
                        path.display(),
                        p.name,
                        p.size_bytes()
                    ));
                }
            }
        }
        for e in spec["expect"].as_array().into_iter().flatten() {
            let reference = dir.join(e["reference"].as_str().unwrap());
            assert!(reference.exists(), "{}: missing", reference.display());
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn kernels_have_their_parameters_and_bodies() {
    // A spot check of structure on a known sample: vector_add.
    let dir = common::repo_root().join("ptx-samples/cuda/vector_add");
    let path = dir.join("kernel.compute_80.ptx");
    let m = front::parse_str("vector_add", &common::read(&path)).unwrap();
    assert_eq!(m.target.arch, "sm_80");
    assert_eq!(m.address_size, 64);
    let k = m.kernels().next().unwrap();
    assert_eq!(k.kind, ast::FunctionKind::Entry);
    assert!(k.params.len() >= 3);
    let body = k.body.as_ref().unwrap();
    let instrs = body
        .iter()
        .filter(|s| matches!(s, ast::Statement::Instruction(_)))
        .count();
    assert!(instrs > 5, "vector_add has {instrs} instructions");
    assert!(body.iter().any(|s| matches!(
        s,
        ast::Statement::Instruction(i) if i.opcode == ast::Opcode::Ld
            && i.space() == Some(ast::StateSpace::Global)
    )));
}
