//! The fidelity runs (`ptx-samples/fidelity/runs.toml`) compute what their
//! benchmarks compute: every run's launches untimed (the JIT), at full size
//! where that is cheap, else the same kernels on a smaller problem, with the
//! results checked on the host. Also: every published row names a run, and
//! every run's launches resolve (kernels, arguments, buffers, `K*sm`,
//! `occupancy:K`).

mod common;

use std::collections::HashMap;

use common::fidelity::{self, arch, f32_bytes, f64_bytes, run_full, runs_by_name, Session, Small};
use warpjit::runtime::{Device, KernelArg, Options};
use warpjit::timing::occupancy::{occupancy, OccupancyInput};

#[test]
fn every_row_has_a_run_and_every_run_resolves() {
    let runs = runs_by_name();
    for row in fidelity::rows() {
        let name = row
            .run
            .as_deref()
            .unwrap_or_else(|| panic!("{}: no run", row.id));
        assert!(runs.contains_key(name), "{}: no run {name}", row.id);
    }
    let text = common::read(&fidelity::dir().join("kernels.compute_80.ptx"));
    let mut dev = Device::new(Options::default());
    let m = dev.load_ptx("kernels.compute_80.ptx", &text).unwrap();
    let sms = arch("sm_80").chip.sm_count;
    for run in runs.values() {
        assert_eq!(run.ptx, "kernels.compute_80.ptx", "{}", run.name);
        let mut bufs = HashMap::new();
        for b in &run.buffers {
            let bytes = fidelity::buffer_bytes(b, sms).unwrap();
            assert!(bytes > 0, "{}: buffer {}", run.name, b.name);
            bufs.insert(b.name.clone(), (1u64 << 32, bytes));
        }
        assert!(
            run.launch.iter().any(|l| l.timed),
            "{}: nothing timed",
            run.name
        );
        for l in &run.launch {
            let k = dev
                .kernel(m, Some(&l.kernel))
                .unwrap_or_else(|e| panic!("{}: {e}", run.name));
            let args: Vec<KernelArg> = l
                .args
                .iter()
                .map(|a| {
                    fidelity::arg(a, &bufs, sms).unwrap_or_else(|e| panic!("{}: {e}", run.name))
                })
                .collect();
            dev.params(m, k, &args)
                .unwrap_or_else(|e| panic!("{}: {e}", run.name));
        }
        for r in &run.read {
            assert!(
                bufs.contains_key(&r.buffer),
                "{}: read {}",
                run.name,
                r.name
            );
        }
    }
    // The one shared-memory spoiler rows use: at most (exactly) 2 blocks of
    // every block size the runs use on the presets where the occupancy
    // rules allow it.
    for preset in ["v100-pcie", "sm_70", "sm_35", "sm_52", "k20c"] {
        let a = arch(preset);
        for block in [64, 256, 1024] {
            let dynamic = fidelity::occupancy_shared(&a, 2, block, 0).unwrap();
            let o = occupancy(
                &a.limits(),
                &OccupancyInput {
                    block_threads: block,
                    regs_per_thread: 16,
                    static_shared: 0,
                    dynamic_shared: dynamic,
                },
            );
            assert_eq!(o.active_blocks_per_sm, 2, "{preset}, {block} threads");
            // The smallest such: one allocation unit less lets 3 fit.
            let less = occupancy(
                &a.limits(),
                &OccupancyInput {
                    block_threads: 64,
                    regs_per_thread: 16,
                    static_shared: 0,
                    dynamic_shared: dynamic - a.occupancy.shared_alloc_unit,
                },
            );
            assert_eq!(
                less.limit_shared, 3,
                "{preset}: the spoiler is not the smallest"
            );
        }
    }
    // Above the 48 KiB a block may have without the opt-in attribute, the
    // kernel is taken to have opted in (a timed launch does the same): on
    // sm_80 two blocks of 55040 bytes fit, by the opt-in limit.
    let a = arch("sm_80");
    let dynamic = fidelity::occupancy_shared(&a, 2, 256, 0).unwrap();
    assert!(dynamic > 48 * 1024, "{dynamic}");
    let mut limits = a.limits();
    limits.shared_per_block = limits.shared_per_block_optin;
    let o = occupancy(
        &limits,
        &OccupancyInput {
            block_threads: 256,
            regs_per_thread: 16,
            static_shared: 0,
            dynamic_shared: dynamic,
        },
    );
    assert_eq!(o.active_blocks_per_sm, 2);
}

/// n(n-1)/2 modulo 2^32: the sum of iota:u32 over n ints.
fn iota_sum(n: u64) -> u32 {
    (n * (n - 1) / 2) as u32
}

#[test]
fn harris_reductions_sum_4m_and_32m_ints() {
    let mut s = Session::new(512 << 20);
    for k in 1..=7 {
        run_full(&mut s, &format!("harris_reduce{k}_int_4m"));
        assert_eq!(s.u32s("sum")[0], iota_sum(1 << 22), "kernel {k}");
    }
    run_full(&mut s, "harris_reduce7_int_32m");
    assert_eq!(s.u32s("sum")[0], iota_sum(1 << 25));
}

/// The kernels of the BabelStream, GPU-STREAM and gpu-benches stream runs,
/// with the runs' arguments, on 2^16 (+ 2) elements.
#[test]
fn stream_kernels_stream() {
    let runs = runs_by_name();
    let mut s = Small::new();
    let n = 1usize << 16;
    let a0: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let b0: Vec<f64> = (0..n).map(|i| 0.5 * i as f64).collect();
    let c0: Vec<f64> = (0..n).map(|i| 2.0 + i as f64).collect();
    for name in [
        "gpustream_v1_copy_f64_n49999872",
        "gpustream_v1_mul_f64_n49999872",
        "gpustream_v1_add_f64_n49999872",
        "gpustream_v1_triad_f64_n49999872",
        "gpustream_v09_copy_f64_n52428800",
        "gpustream_v09_triad_f64_n52428800",
    ] {
        let run = &runs[name];
        let l = &run.launch[0];
        let elements = fidelity::buffer_bytes(&run.buffers[0], 1).unwrap() / 8;
        assert_eq!(l.block, [1024, 1, 1], "{name}");
        assert!(
            matches!(l.grid[0], fidelity::Dim::N(g) if g as u64 * 1024 == elements),
            "{name}: one element per thread"
        );
        let (a, b, c) = (
            s.buf(&f64_bytes(a0.clone())),
            s.buf(&f64_bytes(b0.clone())),
            s.buf(&f64_bytes(c0.clone())),
        );
        let bufs: HashMap<String, (u64, u64)> = [("a", a), ("b", b), ("c", c)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), (v, 8 * n as u64)))
            .collect();
        let args: Vec<KernelArg> = l
            .args
            .iter()
            .map(|x| fidelity::arg(x, &bufs, 1).unwrap())
            .collect();
        s.launch(&l.kernel, [(n / 1024) as u32, 1, 1], l.block, 0, &args);
        let (ra, rb, rc) = (s.f64s(a, n), s.f64s(b, n), s.f64s(c, n));
        for i in 0..n {
            match l.kernel.as_str() {
                "stream_copy_f64" => assert_eq!(rc[i], a0[i], "{name}"),
                "stream_scale_f64" => assert_eq!(rb[i], 3.0 * c0[i], "{name}"),
                "stream_add_f64" => assert_eq!(rc[i], a0[i] + b0[i], "{name}"),
                "stream_triad_f64" => assert_eq!(ra[i], b0[i] + 3.0 * c0[i], "{name}"),
                k => panic!("{name}: kernel {k}"),
            }
        }
    }
    // Dot: a fixed 256 or 1024 blocks of 1024 threads, grid-stride, 1024
    // doubles of shared memory a block; the partial sums add up to the dot
    // product.
    for (name, blocks) in [
        ("babelstream_v3_dot_f64_256blk", 256u32),
        ("babelstream_dot_f64_1024blk", 1024),
    ] {
        let l = &runs[name].launch[0];
        assert_eq!(l.block, [1024, 1, 1], "{name}");
        assert!(
            matches!(l.grid[0], fidelity::Dim::N(g) if g == blocks),
            "{name}"
        );
        let (a, b, p) = (
            s.buf(&f64_bytes(a0.clone())),
            s.buf(&f64_bytes(b0.clone())),
            s.zeros(blocks as u64 * 8),
        );
        let shared = match l.shared_bytes {
            fidelity::Shared::N(n) => n,
            _ => panic!(),
        };
        s.launch(
            "stream_dot_f64",
            [blocks, 1, 1],
            [1024, 1, 1],
            shared,
            &[
                KernelArg::Ptr(a),
                KernelArg::Ptr(b),
                KernelArg::Ptr(p),
                KernelArg::U64(n as u64),
            ],
        );
        let got: f64 = s.f64s(p, blocks as usize).iter().sum();
        let want: f64 = (0..n).map(|i| a0[i] * b0[i]).sum();
        assert!((got - want).abs() <= 1e-9 * want, "{name}: {got} vs {want}");
    }
    // gpu-benches scale and read, n not a multiple of the block, with the
    // 2-blocks-per-SM spoiler of a V100.
    let n = 1000 + 2;
    for kernel in ["gpubench_scale_f64", "gpubench_read_f64"] {
        let (a, b) = (
            s.zeros(8 * n as u64),
            s.buf(&f64_bytes((0..n).map(|i| i as f64))),
        );
        let shared = fidelity::occupancy_shared(&arch("v100-pcie"), 2, 64, 0).unwrap();
        s.launch(
            kernel,
            [(n / 64 + 1) as u32, 1, 1],
            [64, 1, 1],
            shared,
            &[
                KernelArg::Ptr(a),
                KernelArg::Ptr(b),
                KernelArg::U64(n as u64),
            ],
        );
        let ra = s.f64s(a, n);
        for (i, &v) in ra.iter().enumerate() {
            let want = match kernel {
                "gpubench_scale_f64" => i as f64 * 1.2,
                _ if i == 123 => 123.0,
                _ => 0.0,
            };
            assert_eq!(v, want, "{kernel} [{i}]");
        }
    }
}

/// The pointer-chase chains of the three runs are one cycle through all
/// their elements (walked on the host), and the chase runs.
#[test]
fn pointer_chase_chains_are_single_cycles() {
    let runs = runs_by_name();
    let mut s = Small::new();
    for name in [
        "gpubench_pchase_30kb",
        "gpubench_pchase_1029kb",
        "gpubench_pchase_125026kb",
    ] {
        let run = &runs[name];
        let init = &run.launch[0];
        let len: u64 = init.args[1].strip_prefix("u32:").unwrap().parse().unwrap();
        let chain = s.zeros(64 * len);
        s.launch(
            "pchase_init",
            [len.div_ceil(256) as u32, 1, 1],
            [256, 1, 1],
            0,
            &[KernelArg::Ptr(chain), KernelArg::U32(len as u32)],
        );
        let words = s.u64s(chain, 8 * len as usize);
        let mut seen = vec![false; len as usize];
        let mut at = 0u64;
        for step in 0..len {
            assert!(
                !seen[at as usize],
                "{name}: element {at} again after {step} steps"
            );
            seen[at as usize] = true;
            let next = words[8 * at as usize];
            assert!(
                next >= chain && next < chain + 64 * len && (next - chain) % 64 == 0,
                "{name}: element {at} points to {next:#x}"
            );
            at = (next - chain) / 64;
        }
        assert_eq!(at, 0, "{name}: the cycle does not close after {len} steps");
        // Order: successive elements are not neighbours (a random walk).
        let near = (0..len.min(4096))
            .filter(|&e| (words[8 * e as usize] - chain) / 64 == e + 1)
            .count();
        assert!(
            near * 100 < len.min(4096) as usize,
            "{name}: {near} sequential steps"
        );
        if len < 100_000 {
            let out = s.zeros(16);
            s.launch(
                "pchase",
                [1, 1, 1],
                [64, 1, 1],
                0,
                &[
                    KernelArg::Ptr(chain),
                    KernelArg::Ptr(out),
                    KernelArg::U64(len),
                    KernelArg::U64(64),
                ],
            );
            assert_eq!(
                s.u64s(out, 2)[1],
                0,
                "{name}: the chase reached a null pointer"
            );
        }
        s.dev.free(chain).unwrap();
    }
}

#[test]
fn shared_memory_swaps_keep_each_threads_values() {
    let mut s = Small::new();
    let (blocks, threads, iterations) = (3u32, 256u32, 37u32);
    for (kernel, width) in [("shmem_swap_f32", 1usize), ("shmem_swap_f32x4", 4)] {
        let n = (blocks * threads) as usize * width;
        let out = s.zeros(4 * n as u64);
        s.launch(
            kernel,
            [blocks, 1, 1],
            [threads, 1, 1],
            6 * threads * 4 * width as u32,
            &[KernelArg::Ptr(out), KernelArg::U32(iterations)],
        );
        for (i, v) in s.f32s(out, n).into_iter().enumerate() {
            let tid = (i / width) as u32 % threads;
            assert_eq!(v, (6 * tid + 15) as f32, "{kernel} [{i}]");
        }
    }
}

#[test]
fn sdk_matmul_multiplies() {
    let mut s = Small::new();
    let w = 96usize;
    let a: Vec<f32> = (0..w * w).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
    let b: Vec<f32> = (0..w * w).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
    let (da, db, dc) = (
        s.buf(&f32_bytes(a.clone())),
        s.buf(&f32_bytes(b.clone())),
        s.zeros(4 * (w * w) as u64),
    );
    s.launch(
        "sdk_matmul_f32_bs32",
        [(w / 32) as u32, (w / 32) as u32, 1],
        [32, 32, 1],
        8192,
        &[
            KernelArg::Ptr(dc),
            KernelArg::Ptr(da),
            KernelArg::Ptr(db),
            KernelArg::U32(w as u32),
        ],
    );
    let c = s.f32s(dc, w * w);
    for r in 0..w {
        for col in 0..w {
            let want: f32 = (0..w).map(|k| a[r * w + k] * b[k * w + col]).sum();
            assert_eq!(c[r * w + col], want, "({r}, {col})");
        }
    }
    // The run: the same kernel on 1024 x 1024 matrices, 32 x 32 blocks.
    let run = &runs_by_name()["cuda_sdk_matrixmul_f32_1024_bs32"];
    let l = &run.launch[0];
    assert_eq!(
        (l.kernel.as_str(), l.block),
        ("sdk_matmul_f32_bs32", [32, 32, 1])
    );
    assert_eq!(l.args[3], "u32:1024");
}

#[test]
fn strided_and_offset_copies_copy_their_elements() {
    let runs = runs_by_name();
    let mut s = Small::new();
    let threads = 4 * 256usize;
    for (name, run) in &runs {
        let (kernel, k) = match name.strip_prefix("stride_copy_f32_s") {
            Some(k) => ("stride_copy_f32", k),
            None => match name.strip_prefix("offset_copy_f32_o") {
                Some(k) => ("offset_copy_f32", k),
                None => continue,
            },
        };
        let k: usize = k.parse().unwrap();
        assert_eq!(run.launch[0].args[2], format!("u32:{k}"), "{name}");
        let len = if kernel == "stride_copy_f32" {
            threads * k
        } else {
            threads + 32
        };
        let input = s.buf(&f32_bytes((0..len).map(|i| i as f32 + 1.0)));
        let out = s.zeros(4 * len as u64);
        s.launch(
            kernel,
            [4, 1, 1],
            [256, 1, 1],
            0,
            &[
                KernelArg::Ptr(out),
                KernelArg::Ptr(input),
                KernelArg::U32(k as u32),
            ],
        );
        let got = s.f32s(out, len);
        for (i, &v) in got.iter().enumerate() {
            let copied = if kernel == "stride_copy_f32" {
                i % k == 0
            } else {
                i >= k && i < k + threads
            };
            assert_eq!(v, if copied { i as f32 + 1.0 } else { 0.0 }, "{name} [{i}]");
        }
    }
}

/// Kernels whose results are never stored (benchmarks that only time their
/// loads and arithmetic) run on a small grid and leave their buffers as
/// they were.
#[test]
fn load_only_kernels_run_and_store_nothing() {
    let mut s = Small::new();
    for (kernel, elem, args_seed) in [
        ("mixbench_ro_f32_i0", 4u64, KernelArg::F32(1.0)),
        ("mixbench_ro_f32_i192", 4, KernelArg::F32(1.0)),
        ("mixbench_ro_f32_i256", 4, KernelArg::F32(1.0)),
        ("mixbench_ro_f64_i192", 8, KernelArg::F64(1.0)),
        ("mixbench_ro_f64_i256", 8, KernelArg::F64(1.0)),
    ] {
        let blocks = 3u32;
        let data = s.zeros(blocks as u64 * 256 * 32 * elem);
        s.launch(
            kernel,
            [blocks, 1, 1],
            [256, 1, 1],
            0,
            &[args_seed, KernelArg::Ptr(data)],
        );
        let bytes = s.read(data, (blocks as u64 * 256 * 32 * elem) as usize);
        assert!(bytes.iter().all(|&b| b == 0), "{kernel} stored");
    }
    for (kernel, n) in [
        ("gpubench_cache_sum_f64_24kb", 3072usize),
        ("gpubench_cache_sum_f64_984kb", 125952),
    ] {
        let a = s.zeros(2048);
        let b = s.buf(&f64_bytes(vec![1.1; n]));
        s.launch(
            kernel,
            [2, 1, 1],
            [256, 1, 1],
            0,
            &[
                KernelArg::Ptr(a),
                KernelArg::Ptr(b),
                KernelArg::U32(2),
                KernelArg::U32(0),
            ],
        );
        assert!(s.read(a, 2048).iter().all(|&b| b == 0), "{kernel} stored");
    }
}

/// The bandwidthTest copy: 32,000,000 bytes as 2,000,000 uint4, guarded.
#[test]
fn bandwidthtest_copy_copies_every_uint4_and_no_more() {
    let run = &runs_by_name()["cudasamples_bandwidthtest_d2d_32e6"];
    let l = &run.launch[0];
    assert_eq!(l.args[2], "u32:2000000");
    assert!(matches!(l.grid[0], fidelity::Dim::N(g) if g as u64 * l.block[0] as u64 >= 2_000_000));
    for b in &run.buffers {
        assert_eq!(fidelity::buffer_bytes(b, 1).unwrap(), 32_000_000);
    }
    let mut s = Small::new();
    let n = 1000usize;
    let input = s.buf(&f32_bytes((0..4 * 1024).map(|i| i as f32 + 1.0)));
    let out = s.zeros(16 * 1024);
    s.launch(
        "copy_u32x4",
        [4, 1, 1],
        [256, 1, 1],
        0,
        &[
            KernelArg::Ptr(out),
            KernelArg::Ptr(input),
            KernelArg::U32(n as u32),
        ],
    );
    for (i, v) in s.f32s(out, 4 * 1024).into_iter().enumerate() {
        let want = if i < 4 * n { i as f32 + 1.0 } else { 0.0 };
        assert_eq!(v, want, "[{i}]");
    }
}

/// The Accel-Sim microbenchmarks at full size: each reads its cycles, and
/// each chase ends where its chain says.
#[test]
fn accelsim_chases_end_where_their_chains_say() {
    let mut s = Session::new(64 << 20);
    for name in [
        "accelsim_l1_lat_chase_u64_4096",
        "accelsim_l2_lat_chase_u64_4096",
    ] {
        run_full(&mut s, name);
        let chain = s.bufs["chain"].0;
        let out = s.u64s("out");
        assert!(out[0] > 0, "{name}: cycles");
        // The head load gives word 1; 32768 steps later (8 laps of 4096) word 1 again.
        assert_eq!(out[1], chain + 8, "{name}");
        let words = s.u64s("chain");
        for (i, &v) in words.iter().enumerate() {
            assert_eq!(v, chain + 8 * ((i as u64 + 1) % 4096), "{name}: word {i}");
        }
    }
    run_full(&mut s, "accelsim_mem_lat_chase_u64_cv");
    let chain = s.bufs["chain"].0;
    let out = s.u64s("out");
    assert!(out[0] > 0, "mem_lat: cycles");
    // Thread t: head -> word t + 4, then 8191 steps of 4 words.
    for t in 0..4u64 {
        assert_eq!(
            out[1 + t as usize],
            chain + 8 * (t + 4 + 4 * 8191),
            "mem_lat thread {t}"
        );
    }
    let words = s.u64s("chain");
    let n = words.len() as u64;
    assert_eq!(n, 1_179_648);
    for i in [0, 1, 12345, n - 5, n - 4, n - 1] {
        assert_eq!(
            words[i as usize],
            chain + 8 * ((i + 4) % n),
            "mem_lat word {i}"
        );
    }
    run_full(&mut s, "accelsim_shared_lat_chase_u64");
    let out = s.u64s("out");
    assert!(out[0] > 0, "shared_lat: cycles");
    assert_eq!(out[1], 2048, "shared_lat: 2048 steps of +1 from 0");
    run_full(&mut s, "accelsim_shared_bw_u32_1024t");
    let (clocks, out) = (s.u64s("clocks"), s.u64s("out"));
    let first = clocks[..1024].iter().min().unwrap();
    let last = clocks[1024..].iter().max().unwrap();
    assert_eq!(
        out[0],
        last - first,
        "shared_bw: latest stop - earliest start"
    );
    assert!(out[0] > 0 && out[1] == 0, "shared_bw");
    for name in ["accelsim_lat_fma_f32", "accelsim_lat_fma_f64"] {
        run_full(&mut s, name);
        assert!(s.u64s("out")[0] > 0, "{name}: cycles");
        assert!(s.bytes("res").iter().all(|&b| b == 0), "{name}: 0 * 0 + 0");
    }
}

/// gpu-strides: every stride's run, on fewer loads; the sum is never stored.
#[test]
fn l1_stride_runs_time_their_loads_and_store_nothing() {
    let runs = runs_by_name();
    let mut s = Small::new();
    for k in [1u32, 2, 3, 4, 8, 16, 32] {
        let name = format!("gpubench_l1stride_f32_s{k}");
        let l = &runs[&name].launch[0];
        assert_eq!(l.block, [1024, 1, 1], "{name}");
        assert_eq!(l.args[3], format!("u32:{k}"), "{name}");
        assert_eq!(l.args[4], "u32:18432", "{name}");
        // The 64 threads' 8 floats lie inside the buffer.
        assert!(
            4 * (63 * k as u64 + 29) <= fidelity::buffer_bytes(&runs[&name].buffers[0], 1).unwrap()
        );
        let a = s.buf(&f32_bytes(vec![1.0; 2048]));
        let (sink, out) = (s.zeros(4096), s.zeros(8));
        s.launch(
            &l.kernel,
            [1, 1, 1],
            [1024, 1, 1],
            0,
            &[
                KernelArg::Ptr(a),
                KernelArg::Ptr(sink),
                KernelArg::Ptr(out),
                KernelArg::U32(k),
                KernelArg::U32(64),
                KernelArg::U32(0),
            ],
        );
        assert!(s.u64s(out, 1)[0] > 0, "{name}: cycles");
        assert!(s.read(sink, 4096).iter().all(|&b| b == 0), "{name} stored");
    }
}
