//! Execution engines on real corpus kernels at benchmark sizes, side by side
//! in the same run with a native Rust equivalent of the same algorithm
//! (rayon over all cores, release build). Throughput is in thread-
//! instructions (instructions times active lanes) for the engines, so the
//! engines can be compared; the native column is the wall time to beat.
//!
//! Run: `cargo bench --bench engines` (figures in docs/performance.md).
//! The Cranelift JIT joins this table when it lands (issue 4).

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rayon::prelude::*;
use warpjit::ir::FuncId;
use warpjit::runtime::{Device, KernelArg, LaunchConfig, ModuleId, Options};

fn load(dev: &mut Device, sample: &str) -> (ModuleId, FuncId) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("ptx-samples/cuda")
        .join(sample)
        .join("kernel.compute_80.ptx");
    let text = std::fs::read_to_string(&path).unwrap();
    let m = dev.load_ptx(sample, &text).unwrap();
    let k = dev.kernel(m, None).unwrap();
    (m, k)
}

fn upload(dev: &mut Device, data: &[f32]) -> u64 {
    let bytes: Vec<u8> = data.iter().flat_map(|f| f.to_le_bytes()).collect();
    let addr = dev.alloc(bytes.len() as u64).unwrap();
    dev.write(addr, &bytes).unwrap();
    addr
}

/// A workload: a device launch and its native equivalent.
struct Workload {
    name: &'static str,
    dev: Device,
    module: ModuleId,
    kernel: FuncId,
    cfg: LaunchConfig,
    args: Vec<KernelArg>,
    native: Box<dyn Fn()>,
}

fn saxpy() -> Workload {
    let n: usize = 1 << 20;
    let mut dev = Device::new(Options {
        engine: warpjit::runtime::Engine::Interp,
        ..Options::default()
    });
    let (module, kernel) = load(&mut dev, "saxpy");
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let y: Vec<f32> = (0..n).map(|i| (n - i) as f32).collect();
    let (dx, dy) = (upload(&mut dev, &x), upload(&mut dev, &y));
    let native = Box::new(move || {
        let mut y = y.clone();
        y.par_chunks_mut(4096).enumerate().for_each(|(c, ch)| {
            for (i, v) in ch.iter_mut().enumerate() {
                *v = 2.0f32.mul_add(x[c * 4096 + i], *v);
            }
        });
        std::hint::black_box(y);
    });
    Workload {
        name: "saxpy_1M",
        dev,
        module,
        kernel,
        cfg: LaunchConfig {
            grid: [1024, 1, 1],
            block: [256, 1, 1],
            shared_bytes: 0,
        },
        args: vec![
            KernelArg::I32(n as i32),
            KernelArg::F32(2.0),
            KernelArg::Ptr(dx),
            KernelArg::Ptr(dy),
        ],
        native,
    }
}

fn matmul_naive() -> Workload {
    let n = 256usize;
    let mut dev = Device::new(Options {
        engine: warpjit::runtime::Engine::Interp,
        ..Options::default()
    });
    let (module, kernel) = load(&mut dev, "matmul_naive");
    let a: Vec<f32> = (0..n * n).map(|i| (i % 17) as f32 * 0.25).collect();
    let b: Vec<f32> = (0..n * n).map(|i| (i % 13) as f32 * 0.5).collect();
    let (da, db) = (upload(&mut dev, &a), upload(&mut dev, &b));
    let dc = dev.alloc((4 * n * n) as u64).unwrap();
    let native = Box::new(move || {
        let mut c = vec![0f32; n * n];
        c.par_chunks_mut(n).enumerate().for_each(|(row, out)| {
            for (col, o) in out.iter_mut().enumerate() {
                let mut acc = 0f32;
                for k in 0..n {
                    acc = a[row * n + k].mul_add(b[k * n + col], acc);
                }
                *o = acc;
            }
        });
        std::hint::black_box(c);
    });
    Workload {
        name: "matmul_naive_256",
        dev,
        module,
        kernel,
        cfg: LaunchConfig {
            grid: [16, 16, 1],
            block: [16, 16, 1],
            shared_bytes: 0,
        },
        args: vec![
            KernelArg::Ptr(da),
            KernelArg::Ptr(db),
            KernelArg::Ptr(dc),
            KernelArg::I32(n as i32),
            KernelArg::I32(n as i32),
            KernelArg::I32(n as i32),
        ],
        native,
    }
}

fn mandelbrot() -> Workload {
    let (w, h, max_iter) = (256usize, 192usize, 256u32);
    let mut dev = Device::new(Options {
        engine: warpjit::runtime::Engine::Interp,
        ..Options::default()
    });
    let (module, kernel) = load(&mut dev, "mandelbrot");
    let out = dev.alloc((4 * w * h) as u64).unwrap();
    let (x0, y0, dx, dy) = (
        -2.25f32,
        -1.21875f32,
        3.0f32 / w as f32,
        2.4375f32 / h as f32,
    );
    let native = Box::new(move || {
        let mut it = vec![0u32; w * h];
        it.par_chunks_mut(w).enumerate().for_each(|(py, row)| {
            for (px, o) in row.iter_mut().enumerate() {
                let (cx, cy) = (x0 + px as f32 * dx, y0 + py as f32 * dy);
                let (mut x, mut y, mut i) = (0f32, 0f32, 0u32);
                while i < max_iter && x * x + y * y <= 4.0 {
                    let t = x * x - y * y + cx;
                    y = 2.0 * x * y + cy;
                    x = t;
                    i += 1;
                }
                *o = i;
            }
        });
        std::hint::black_box(it);
    });
    Workload {
        name: "mandelbrot_256x192",
        dev,
        module,
        kernel,
        cfg: LaunchConfig {
            grid: [16, 12, 1],
            block: [16, 16, 1],
            shared_bytes: 0,
        },
        args: vec![
            KernelArg::Ptr(out),
            KernelArg::I32(w as i32),
            KernelArg::I32(h as i32),
            KernelArg::F32(x0),
            KernelArg::F32(y0),
            KernelArg::F32(dx),
            KernelArg::F32(dy),
            KernelArg::I32(max_iter as i32),
        ],
        native,
    }
}

fn engines(c: &mut Criterion) {
    for w in [saxpy(), matmul_naive(), mandelbrot()] {
        let report = w
            .dev
            .launch_with(w.module, w.kernel, w.cfg, &w.args)
            .unwrap();
        let mut group = c.benchmark_group(format!("engines/{}", w.name));
        group
            .sample_size(10)
            .measurement_time(std::time::Duration::from_secs(8));
        group.throughput(Throughput::Elements(report.thread_instructions));
        group.bench_function("interp", |b| {
            b.iter(|| {
                w.dev
                    .launch_with(w.module, w.kernel, w.cfg, &w.args)
                    .unwrap()
            })
        });
        let mut jdev = w.dev;
        jdev.set_engine(warpjit::runtime::Engine::Jit);
        group.bench_function("jit", |b| {
            b.iter(|| {
                jdev.launch_with(w.module, w.kernel, w.cfg, &w.args)
                    .unwrap()
            })
        });
        group.bench_function("native", |b| b.iter(|| (w.native)()));
        group.finish();
    }
}

criterion_group!(benches, engines);
criterion_main!(benches);
