//! The execution engines on real corpus kernels at benchmark sizes, side by
//! side in the same run with a native Rust equivalent of the same algorithm
//! (rayon over all cores, release build, `mul_add` where the kernel uses an
//! fma). Each workload is first checked: the interpreter's and the JIT's
//! outputs must equal the native result (floats to a small relative error
//! where the summation order differs). Throughput is in thread-instructions
//! (instructions times active lanes), so the engines compare directly; the
//! native column is the wall time to beat. Before timing, a line per
//! workload gives its thread-instructions and the JIT's compile time.
//!
//! The sanitizer's checks are timed beside them (`check_*`: the same
//! launch with each check on, then all; docs/sanitizer.md).
//!
//! Run: `cargo bench --bench engines` (figures in docs/performance.md).

use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rayon::prelude::*;
use warpjit::ir::FuncId;
use warpjit::runtime::{Device, Engine, KernelArg, LaunchConfig, ModuleId, Options};
use warpjit::sanitizer::Checks;

/// A workload: a device launch, where its output lies, and its native equivalent.
struct Workload {
    name: &'static str,
    dev: Device,
    module: ModuleId,
    kernel: FuncId,
    cfg: LaunchConfig,
    args: Vec<KernelArg>,
    /// Device buffer (address, bytes) holding the result, compared with
    /// what `native` returns.
    output: (u64, usize),
    /// Reset before each checked launch (accumulating outputs).
    reset: Option<(u64, usize)>,
    native: Box<dyn Fn() -> Vec<u8>>,
    /// Relative tolerance of the f32 comparison (0: bit-exact bytes).
    tolerance: f32,
}

/// Loads `ptx-samples/cuda/<sample>` on a fresh device (interpreter first).
fn device(sample: &str) -> (Device, ModuleId, FuncId) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("ptx-samples/cuda")
        .join(sample)
        .join("kernel.compute_80.ptx");
    let mut dev = Device::new(Options {
        engine: Engine::Interp,
        ..Options::default()
    });
    let m = dev
        .load_ptx(sample, &std::fs::read_to_string(&path).unwrap())
        .unwrap();
    let k = dev.kernel(m, None).unwrap();
    (dev, m, k)
}

fn bytes_of<T: Copy>(data: &[T]) -> Vec<u8> {
    let n = std::mem::size_of_val(data);
    // SAFETY: plain-old-data slices of f32/u32/u8 viewed as bytes.
    unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, n) }.to_vec()
}

fn upload<T: Copy>(dev: &mut Device, data: &[T]) -> u64 {
    let bytes = bytes_of(data);
    let addr = dev.alloc(bytes.len() as u64).unwrap();
    dev.write(addr, &bytes).unwrap();
    addr
}

fn cfg(grid: [u32; 2], block: [u32; 2]) -> LaunchConfig {
    LaunchConfig {
        grid: [grid[0], grid[1], 1],
        block: [block[0], block[1], 1],
        shared_bytes: 0,
    }
}

/// Deterministic pseudo-random values.
fn noise(n: usize, seed: u32) -> Vec<u32> {
    let mut x = seed.wrapping_mul(2_654_435_761) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        })
        .collect()
}

fn saxpy() -> Workload {
    let n: usize = 1 << 20;
    let (mut dev, module, kernel) = device("saxpy");
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let y: Vec<f32> = (0..n).map(|i| (n - i) as f32).collect();
    let (dx, dy) = (upload(&mut dev, &x), upload(&mut dev, &y));
    Workload {
        name: "saxpy_1M",
        dev,
        module,
        kernel,
        cfg: cfg([4096, 1], [256, 1]),
        args: vec![
            KernelArg::I32(n as i32),
            KernelArg::F32(2.0),
            KernelArg::Ptr(dx),
            KernelArg::Ptr(dy),
        ],
        // y is updated in place: `engines` restores it before each check.
        output: (dy, 4 * n),
        reset: None,
        native: Box::new(move || {
            let mut out = y.clone();
            out.par_chunks_mut(4096).enumerate().for_each(|(c, ch)| {
                for (i, v) in ch.iter_mut().enumerate() {
                    *v = 2.0f32.mul_add(x[c * 4096 + i], *v);
                }
            });
            bytes_of(&out)
        }),
        tolerance: 0.0,
    }
}

fn reduction() -> Workload {
    let n: usize = 1 << 22;
    let blocks = n / 512;
    let (mut dev, module, kernel) = device("reduction_shared");
    let vi: Vec<i32> = noise(n, 1)
        .iter()
        .map(|v| (v % 1000) as i32 - 500)
        .collect();
    let vf: Vec<f32> = vi.iter().map(|&v| v as f32 * 0.01).collect();
    let (di, df) = (upload(&mut dev, &vi), upload(&mut dev, &vf));
    let si = dev.alloc(4 * blocks as u64).unwrap();
    let sf = dev.alloc(4 * blocks as u64).unwrap();
    Workload {
        name: "reduction_4M",
        dev,
        module,
        kernel,
        cfg: cfg([blocks as u32, 1], [256, 1]),
        args: vec![
            KernelArg::Ptr(di),
            KernelArg::Ptr(df),
            KernelArg::Ptr(si),
            KernelArg::Ptr(sf),
            KernelArg::U32(n as u32),
        ],
        output: (si, 4 * blocks),
        reset: None,
        native: Box::new(move || {
            let sums: Vec<i32> = vi.par_chunks(512).map(|c| c.iter().sum()).collect();
            let fs: f32 = vf.par_chunks(512).map(|c| c.iter().sum::<f32>()).sum();
            std::hint::black_box(fs);
            bytes_of(&sums)
        }),
        tolerance: 0.0,
    }
}

fn matmul(sample: &'static str, name: &'static str) -> Workload {
    let n = 256usize;
    let (mut dev, module, kernel) = device(sample);
    let a: Vec<f32> = (0..n * n).map(|i| (i % 17) as f32 * 0.25).collect();
    let b: Vec<f32> = (0..n * n).map(|i| (i % 13) as f32 * 0.5).collect();
    let (da, db) = (upload(&mut dev, &a), upload(&mut dev, &b));
    let dc = dev.alloc((4 * n * n) as u64).unwrap();
    // Both kernels take (A, B, C, M, N, K).
    let mut args = vec![KernelArg::Ptr(da), KernelArg::Ptr(db), KernelArg::Ptr(dc)];
    args.extend((0..3).map(|_| KernelArg::I32(n as i32)));
    Workload {
        name,
        dev,
        module,
        kernel,
        cfg: cfg([16, 16], [16, 16]),
        args,
        output: (dc, 4 * n * n),
        reset: None,
        native: Box::new(move || {
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
            bytes_of(&c)
        }),
        tolerance: 1e-5,
    }
}

fn nbody() -> Workload {
    let n = 4096usize;
    let (mut dev, module, kernel) = device("nbody");
    let r = noise(4 * n, 7);
    let pos: Vec<f32> = r
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let u = (v % 20000) as f32 / 10000.0 - 1.0;
            if i % 4 == 3 {
                u.abs() + 0.5
            } else {
                u
            }
        })
        .collect();
    let dp = upload(&mut dev, &pos);
    let da = dev.alloc(12 * n as u64).unwrap();
    let eps2 = 0.01f32;
    Workload {
        name: "nbody_4096",
        dev,
        module,
        kernel,
        cfg: cfg([(n / 128) as u32, 1], [128, 1]),
        args: vec![
            KernelArg::Ptr(dp),
            KernelArg::Ptr(da),
            KernelArg::I32(n as i32),
            KernelArg::F32(eps2),
        ],
        output: (da, 12 * n),
        reset: None,
        native: Box::new(move || {
            let mut acc = vec![0f32; 3 * n];
            acc.par_chunks_mut(3).enumerate().for_each(|(i, a)| {
                let bi = &pos[4 * i..4 * i + 4];
                for bj in pos.chunks(4) {
                    let (rx, ry, rz) = (bj[0] - bi[0], bj[1] - bi[1], bj[2] - bi[2]);
                    let d = rx * rx + ry * ry + rz * rz + eps2;
                    let inv = 1.0 / d.sqrt();
                    let s = bj[3] * (inv * inv * inv);
                    a[0] += rx * s;
                    a[1] += ry * s;
                    a[2] += rz * s;
                }
            });
            bytes_of(&acc)
        }),
        // rsqrt.approx and fma contraction differ from the native code.
        tolerance: 1e-3,
    }
}

fn mandelbrot() -> Workload {
    let (w, h, max_iter) = (256usize, 192usize, 256u32);
    let (mut dev, module, kernel) = device("mandelbrot");
    let out = dev.alloc((4 * w * h) as u64).unwrap();
    let (x0, y0, dx, dy) = (
        -2.25f32,
        -1.21875f32,
        3.0f32 / w as f32,
        2.4375f32 / h as f32,
    );
    Workload {
        name: "mandelbrot_256x192",
        dev,
        module,
        kernel,
        cfg: cfg([16, 12], [16, 16]),
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
        output: (out, 4 * w * h),
        reset: None,
        native: Box::new(move || {
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
            bytes_of(&it)
        }),
        // Iteration counts may differ by fma contraction at the set's edge.
        tolerance: f32::NAN,
    }
}

fn histogram() -> Workload {
    let n = 1usize << 22;
    let (mut dev, module, kernel) = device("histogram_atomic");
    let data: Vec<u8> = noise(n, 3).iter().map(|v| (v >> 7) as u8).collect();
    let dd = upload(&mut dev, &data);
    let hist = dev.alloc(1024).unwrap();
    Workload {
        name: "histogram_4M",
        dev,
        module,
        kernel,
        cfg: cfg([64, 1], [256, 1]),
        args: vec![
            KernelArg::Ptr(dd),
            KernelArg::U32(n as u32),
            KernelArg::Ptr(hist),
        ],
        output: (hist, 1024),
        reset: Some((hist, 1024)),
        // Per-thread-chunk histograms merged (the kernel: per-block shared
        // histograms merged with atomics).
        native: Box::new(move || {
            let h = data
                .par_chunks(1 << 16)
                .map(|c| {
                    let mut h = [0u32; 256];
                    for &b in c {
                        h[b as usize] += 1;
                    }
                    h
                })
                .reduce(
                    || [0u32; 256],
                    |mut a, b| {
                        for i in 0..256 {
                            a[i] += b[i];
                        }
                        a
                    },
                );
            bytes_of(&h)
        }),
        tolerance: 0.0,
    }
}

fn stencil() -> Workload {
    let (nx, ny) = (1024usize, 1024usize);
    let (mut dev, module, kernel) = device("stencil_2d");
    let u: Vec<f32> = noise(nx * ny, 5)
        .iter()
        .map(|v| (v % 1000) as f32 * 0.001)
        .collect();
    let f: Vec<f32> = noise(nx * ny, 6)
        .iter()
        .map(|v| (v % 100) as f32 * 0.01)
        .collect();
    let (du, df) = (upload(&mut dev, &u), upload(&mut dev, &f));
    let dn = dev.alloc((4 * nx * ny) as u64).unwrap();
    let h2 = 1.0f32 / (nx * nx) as f32;
    Workload {
        name: "stencil2d_1024",
        dev,
        module,
        kernel,
        cfg: cfg([(nx / 16) as u32, (ny / 16) as u32], [16, 16]),
        args: vec![
            KernelArg::Ptr(du),
            KernelArg::Ptr(df),
            KernelArg::Ptr(dn),
            KernelArg::I32(nx as i32),
            KernelArg::I32(ny as i32),
            KernelArg::F32(h2),
        ],
        output: (dn, 4 * nx * ny),
        reset: None,
        native: Box::new(move || {
            let mut out = vec![0f32; nx * ny];
            out.par_chunks_mut(nx).enumerate().for_each(|(j, row)| {
                for (i, o) in row.iter_mut().enumerate() {
                    *o = if i == 0 || j == 0 || i == nx - 1 || j == ny - 1 {
                        u[j * nx + i]
                    } else {
                        let sum = u[(j - 1) * nx + i]
                            + u[(j + 1) * nx + i]
                            + u[j * nx + i - 1]
                            + u[j * nx + i + 1];
                        0.25 * h2.mul_add(f[j * nx + i], sum)
                    };
                }
            });
            bytes_of(&out)
        }),
        tolerance: 1e-6,
    }
}

fn bitonic() -> Workload {
    let blocks = 256usize;
    let n = blocks * 1024;
    let (mut dev, module, kernel) = device("bitonic_sort");
    let keys = noise(n, 9);
    let dk = upload(&mut dev, &keys);
    let out = dev.alloc(4 * n as u64).unwrap();
    Workload {
        name: "bitonic_256x1024",
        dev,
        module,
        kernel,
        cfg: cfg([blocks as u32, 1], [512, 1]),
        args: vec![KernelArg::Ptr(dk), KernelArg::Ptr(out)],
        output: (out, 4 * n),
        reset: None,
        // The same compare-exchange network, per 1024-key chunk.
        native: Box::new(move || {
            let mut s = keys.clone();
            s.par_chunks_mut(1024).for_each(|c| {
                let mut k = 2;
                while k <= 1024 {
                    let mut j = k >> 1;
                    while j > 0 {
                        for t in 0..512usize {
                            let i = 2 * t - (t & (j - 1));
                            let ixj = i | j;
                            if (c[i] > c[ixj]) == (i & k == 0) {
                                c.swap(i, ixj);
                            }
                        }
                        j >>= 1;
                    }
                    k <<= 1;
                }
            });
            bytes_of(&s)
        }),
        tolerance: 0.0,
    }
}

/// Launches once on the device's current engine and checks the output.
fn check(w: &Workload, engine: &str) -> warpjit::runtime::LaunchReport {
    if let Some((addr, len)) = w.reset {
        w.dev.memset(addr, 0, len as u64).unwrap();
    }
    let report = w
        .dev
        .launch_with(w.module, w.kernel, w.cfg, &w.args)
        .unwrap();
    let mut got = vec![0u8; w.output.1];
    w.dev.read(w.output.0, &mut got).unwrap();
    let want = (w.native)();
    let ok = if w.tolerance == 0.0 {
        got == want
    } else {
        let f = |b: &[u8]| {
            b.chunks(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect::<Vec<f32>>()
        };
        if w.tolerance.is_nan() {
            // Integer counts: at most 0.1% of them may differ.
            let diff = got
                .chunks(4)
                .zip(want.chunks(4))
                .filter(|(a, b)| a != b)
                .count();
            diff * 1000 <= got.len() / 4
        } else {
            f(&got)
                .iter()
                .zip(f(&want))
                .all(|(a, b)| (a - b).abs() <= w.tolerance * b.abs().max(1.0))
        }
    };
    assert!(
        ok,
        "{} on the {engine}: the output differs from the native result",
        w.name
    );
    report
}

fn engines(c: &mut Criterion) {
    let workloads = vec![
        saxpy(),
        reduction(),
        matmul("matmul_naive", "matmul_naive_256"),
        matmul("matmul_tiled", "matmul_tiled_256"),
        nbody(),
        mandelbrot(),
        histogram(),
        stencil(),
        bitonic(),
    ];
    if let Ok(rounds) = std::env::var(SANITIZER_ROUNDS) {
        sanitizer_cost(workloads, rounds.parse().expect("a number of rounds"));
        return;
    }
    for mut w in workloads {
        // saxpy updates y in place: give each check the original y.
        let original = if w.name.starts_with("saxpy") {
            let mut y = vec![0u8; w.output.1];
            w.dev.read(w.output.0, &mut y).unwrap();
            Some(y)
        } else {
            None
        };
        let restore = |w: &Workload| {
            if let Some(y) = &original {
                w.dev.write(w.output.0, y).unwrap();
            }
        };
        restore(&w);
        let report = check(&w, "interpreter");
        restore(&w);
        w.dev.set_engine(Engine::Jit);
        let jit_report = check(&w, "JIT");
        restore(&w);
        eprintln!(
            "{:<20} {:>14} thread-instructions  JIT compile {:.2} ms",
            w.name,
            report.thread_instructions,
            jit_report.compile_time.as_secs_f64() * 1e3
        );
        let mut group = c.benchmark_group(format!("engines/{}", w.name));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(4));
        group.throughput(Throughput::Elements(report.thread_instructions));
        w.dev.set_engine(Engine::Interp);
        group.bench_function("interp", |b| {
            b.iter(|| {
                w.dev
                    .launch_with(w.module, w.kernel, w.cfg, &w.args)
                    .unwrap()
            })
        });
        w.dev.set_engine(Engine::Jit);
        group.bench_function("jit", |b| {
            b.iter(|| {
                w.dev
                    .launch_with(w.module, w.kernel, w.cfg, &w.args)
                    .unwrap()
            })
        });
        group.bench_function("native", |b| b.iter(|| (w.native)()));
        group.finish();
    }
}

/// Set to a number of rounds: instead of the engines, time the sanitizer
/// (docs/sanitizer.md) on the workloads `SANITIZER_WORKLOADS` names
/// (comma-separated; all by default), in the configurations
/// `SANITIZER_CONFIGS` names (comma-separated, from `interp`,
/// `memcheck`, `racecheck`, `initcheck`, `synccheck` and `all`; all by
/// default; the unchecked JIT, the baseline, always runs).
const SANITIZER_ROUNDS: &str = "SANITIZER_ROUNDS";
const SANITIZER_WORKLOADS: &str = "SANITIZER_WORKLOADS";
const SANITIZER_CONFIGS: &str = "SANITIZER_CONFIGS";

/// The sanitizer's cost, as paired runs: each round times the unchecked
/// JIT and interpreter and each check alone, then all, one launch each,
/// in turn, so that a busy machine slows every configuration alike; the
/// figures are medians over the rounds of each launch's time and of its
/// ratio to the same round's unchecked JIT launch.
fn sanitizer_cost(workloads: Vec<Workload>, rounds: usize) {
    let names = std::env::var(SANITIZER_WORKLOADS).unwrap_or_default();
    let wanted = std::env::var(SANITIZER_CONFIGS).unwrap_or_default();
    let configs = [
        ("jit", Engine::Jit, ""),
        ("interp", Engine::Interp, ""),
        ("memcheck", Engine::Jit, "memcheck"),
        ("racecheck", Engine::Jit, "racecheck"),
        ("initcheck", Engine::Jit, "initcheck"),
        ("synccheck", Engine::Jit, "synccheck"),
        ("all", Engine::Jit, "all"),
    ];
    let configs: Vec<_> = configs
        .into_iter()
        .filter(|(name, _, _)| {
            *name == "jit" || wanted.is_empty() || wanted.split(',').any(|c| c == *name)
        })
        .collect();
    let interp = configs.iter().position(|c| c.0 == "interp");
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    for mut w in workloads {
        if !names.is_empty() && !names.split(',').any(|n| n == w.name) {
            continue;
        }
        let mut times = vec![Vec::new(); configs.len()];
        for _ in 0..rounds {
            for (i, (_, engine, checks)) in configs.iter().enumerate() {
                w.dev.set_engine(*engine);
                let c = match *checks {
                    "" => Checks::default(),
                    list => Checks::parse(list).unwrap(),
                };
                w.dev.set_checks(c);
                let start = std::time::Instant::now();
                let r = w.dev.launch_with(w.module, w.kernel, w.cfg, &w.args);
                times[i].push(start.elapsed().as_secs_f64());
                r.unwrap();
                let reports = w.dev.take_reports();
                assert!(reports.is_empty(), "{}: {}", w.name, reports[0]);
            }
        }
        w.dev.set_checks(Checks::default());
        let base = times[0].clone();
        for (i, (name, _, _)) in configs.iter().enumerate() {
            let ratios = times[i].iter().zip(&base).map(|(t, b)| t / b).collect();
            let vs_interp = interp.map_or(String::new(), |k| {
                let r = times[i].iter().zip(&times[k]).map(|(t, b)| t / b).collect();
                format!("  {:>5.2}x the interpreter", median(r))
            });
            eprintln!(
                "{:<18} {:<10} {:>9.1} ms  {:>6.2}x the JIT{vs_interp}",
                w.name,
                name,
                median(times[i].clone()) * 1e3,
                median(ratios),
            );
        }
    }
}

criterion_group!(benches, engines);
criterion_main!(benches);
