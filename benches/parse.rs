//! Parse throughput (MB/s) on the largest corpus files: warpjit's parser and,
//! side by side in the same run, the `ptx-90-parser` crate on the same files
//! where it accepts them.
//!
//! Run: `cargo bench --bench parse` (figures in docs/performance.md).

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// The largest corpus files, plus one synthetic "all samples concatenated body" file.
fn bench_files() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("ptx-samples");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort_by_key(|(_, text)| std::cmp::Reverse(text.len()));
    files.truncate(4);
    files
}

fn collect(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "ptx") {
            let rel = p
                .strip_prefix(
                    dir.ancestors()
                        .find(|a| a.ends_with("ptx-samples"))
                        .unwrap(),
                )
                .unwrap()
                .display()
                .to_string();
            out.push((rel, std::fs::read_to_string(&p).unwrap()));
        }
    }
}

fn parse_throughput(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse");
    for (name, text) in bench_files() {
        group.throughput(Throughput::Bytes(text.len() as u64));
        assert!(
            warpjit::front::parse_str(&name, &text).is_ok(),
            "{name} must parse"
        );
        group.bench_with_input(BenchmarkId::new("warpjit", &name), &text, |b, t| {
            b.iter(|| warpjit::front::parse_str("bench.ptx", std::hint::black_box(t)).unwrap())
        });
        let theirs =
            std::panic::catch_unwind(|| ptx_parser::parse_ptx(&text).is_ok()).unwrap_or(false);
        if theirs {
            group.bench_with_input(BenchmarkId::new("ptx-90-parser", &name), &text, |b, t| {
                b.iter(|| ptx_parser::parse_ptx(std::hint::black_box(t)).unwrap())
            });
        } else {
            eprintln!("ptx-90-parser rejects {name}; compared on the other files only");
        }
    }
    group.finish();

    // The whole corpus subset both parsers accept, parsed in one iteration.
    let mut all = Vec::new();
    collect(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("ptx-samples"),
        &mut all,
    );
    let accepted: Vec<String> = all
        .into_iter()
        .map(|(_, t)| t)
        .filter(|t| std::panic::catch_unwind(|| ptx_parser::parse_ptx(t).is_ok()).unwrap_or(false))
        .collect();
    let bytes: usize = accepted.iter().map(String::len).sum();
    let mut group = c.benchmark_group("parse_corpus");
    group.throughput(Throughput::Bytes(bytes as u64));
    let label = format!("{}_files_{}KiB", accepted.len(), bytes / 1024);
    group.bench_with_input(
        BenchmarkId::new("warpjit", &label),
        &accepted,
        |b, files| {
            b.iter(|| {
                for t in files {
                    warpjit::front::parse_str("bench.ptx", std::hint::black_box(t)).unwrap();
                }
            })
        },
    );
    group.bench_with_input(
        BenchmarkId::new("ptx-90-parser", &label),
        &accepted,
        |b, files| {
            b.iter(|| {
                for t in files {
                    ptx_parser::parse_ptx(std::hint::black_box(t)).unwrap();
                }
            })
        },
    );
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = parse_throughput
}
criterion_main!(benches);
