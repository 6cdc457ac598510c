//! The suite's correct kernels (ptx-samples/sanitizer/correct2.cu, NVRTC
//! output): mostly the fixed versions of the bugs_*.cu kernels (guards,
//! barriers, atomics, masks, sizes), and common patterns (tiled matmul,
//! scans, histograms with atomics, stencils with halos, warp and block
//! reductions, sorting, compaction, named barriers, the last-block
//! reduction). Each runs with every check on, on both engines, and with
//! memcheck alone on the JIT (compiled code): no report in any run, the
//! same results as an unchecked launch, and the results a host
//! computation expects.

mod common;

use std::fmt::Debug;

use common::sanitizer::*;
use warpjit::runtime::{Device, Engine, KernelArg as A, ModuleId};
use warpjit::sanitizer::Checks;

const MODULE: &str = "correct2";

/// Runs `run` (which uploads, launches and reads back) with every check on
/// each engine, with memcheck alone on the JIT, and unchecked: no run
/// reports anything, all compute the same; returns that result. (The last
/// two share a device, so that the module is compiled once.)
fn clean<T: PartialEq + Debug>(run: impl Fn(&mut Device, ModuleId) -> T) -> T {
    let mut results: Vec<T> = Vec::new();
    let mut check = |dev: &mut Device, m, what: &str| {
        let out = run(dev, m);
        let reports = dev.take_reports();
        assert!(reports.is_empty(), "{what}: {reports:#?}");
        if let Some(first) = results.first() {
            assert_eq!(first, &out, "{what}");
        }
        results.push(out);
    };
    for engine in ENGINES {
        let (mut dev, m) = setup("all", MODULE, engine);
        check(&mut dev, m, &format!("every check on {engine:?}"));
    }
    let (mut dev, m) = setup("memcheck", MODULE, Engine::Jit);
    check(&mut dev, m, "memcheck on the JIT");
    dev.set_checks(Checks::default());
    check(&mut dev, m, "unchecked");
    results.pop().unwrap()
}

fn seq(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32).collect()
}

fn scrambled(n: usize) -> Vec<i32> {
    (0..n).map(|i| (i as i32 * 37) % 101 - 50).collect()
}

fn go(dev: &Device, m: ModuleId, k: &str, grid: [u32; 3], block: [u32; 3], args: &[A]) {
    launch(dev, m, k, grid, block, args).unwrap();
}

#[test]
fn vector_add_with_its_guard() {
    let out = clean(|d, m| {
        let (a, b) = (floats(d, &seq(200)), floats(d, &[0.5; 200]));
        let c = d.alloc(800).unwrap();
        let args = [A::Ptr(a), A::Ptr(b), A::Ptr(c), A::I32(200)];
        go(d, m, "vector_add", x(4), x(64), &args);
        read_f32(d, c, 200)
    });
    assert_eq!(out, (0..200).map(|i| i as f32 + 0.5).collect::<Vec<_>>());
}

#[test]
fn reverse_from_n_minus_one() {
    let out = clean(|d, m| {
        let (i, o) = (floats(d, &seq(200)), d.alloc(800).unwrap());
        go(
            d,
            m,
            "reverse",
            x(4),
            x(64),
            &[A::Ptr(i), A::Ptr(o), A::I32(200)],
        );
        read_f32(d, o, 200)
    });
    assert_eq!(out, (0..200).rev().map(|i| i as f32).collect::<Vec<_>>());
}

#[test]
fn stencil_through_a_shared_tile_with_both_halos() {
    let n = 200;
    let out = clean(|d, m| {
        let (i, o) = (floats(d, &seq(n)), d.alloc(4 * n as u64).unwrap());
        let args = [A::Ptr(i), A::Ptr(o), A::I32(n as i32)];
        go(d, m, "stencil_shared", x(4), x(64), &args);
        read_f32(d, o, n)
    });
    let at = |i: i64| {
        if (0..n as i64).contains(&i) {
            i as f32
        } else {
            0.0
        }
    };
    let want: Vec<f32> = (0..n as i64)
        .map(|i| at(i - 1) + at(i) + at(i + 1))
        .collect();
    assert_eq!(out, want);
}

#[test]
fn gather_skipping_the_sentinel() {
    let idx: Vec<i32> = (0..64)
        .map(|i| if i % 9 == 5 { -1 } else { (i * 7) % 64 })
        .collect();
    let out = clean(|d, m| {
        let (v, ix) = (floats(d, &seq(64)), ints(d, &idx));
        let o = d.alloc(256).unwrap();
        go(
            d,
            m,
            "gather",
            x(1),
            x(64),
            &[A::Ptr(v), A::Ptr(ix), A::Ptr(o), A::I32(64)],
        );
        read_f32(d, o, 64)
    });
    let want: Vec<f32> = idx
        .iter()
        .map(|&j| if j < 0 { 0.0 } else { j as f32 })
        .collect();
    assert_eq!(out, want);
}

#[test]
fn histogram_with_shared_and_global_atomics() {
    let xs: Vec<f32> = (0..300).map(|i| (i % 11) as f32 / 10.0).collect();
    let out = clean(|d, m| {
        let (xv, counts) = (floats(d, &xs), zeroed(d, 32));
        let args = [A::Ptr(xv), A::Ptr(counts), A::I32(300), A::I32(8)];
        go(d, m, "histogram", x(2), x(64), &args);
        read_u32(d, counts, 8)
    });
    let mut want = vec![0u32; 8];
    for v in xs {
        want[((v * 8.0) as usize).min(7)] += 1;
    }
    assert_eq!(out, want);
}

#[test]
fn inclusive_scan_with_both_barriers() {
    let input = scrambled(256);
    let out = clean(|d, m| {
        let (i, o) = (ints(d, &input), d.alloc(1024).unwrap());
        go(
            d,
            m,
            "scan_inclusive",
            x(2),
            x(128),
            &[A::Ptr(i), A::Ptr(o)],
        );
        read_i32(d, o, 256)
    });
    let mut want = Vec::new();
    for block in input.chunks(128) {
        want.extend(block.iter().scan(0, |s, &v| {
            *s += v;
            Some(*s)
        }));
    }
    assert_eq!(out, want);
}

#[test]
fn tiled_matmul_with_both_barriers() {
    let n = 32;
    let a: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32).collect();
    let b: Vec<f32> = (0..n * n).map(|i| (i % 5) as f32 - 2.0).collect();
    let out = clean(|d, m| {
        let (av, bv) = (floats(d, &a), floats(d, &b));
        let c = d.alloc(4 * (n * n) as u64).unwrap();
        let args = [A::Ptr(av), A::Ptr(bv), A::Ptr(c), A::I32(n as i32)];
        go(d, m, "matmul_tiled", [2, 2, 1], [16, 16, 1], &args);
        read_f32(d, c, n * n)
    });
    for (r, c) in [(0, 0), (5, 17), (31, 31), (20, 3)] {
        let want: f32 = (0..n).map(|k| a[r * n + k] * b[k * n + c]).sum();
        assert_eq!(out[r * n + c], want, "c[{r}][{c}]");
    }
}

#[test]
fn block_sum_by_shuffles_and_shared_partials() {
    let out = clean(|d, m| {
        let (i, o) = (floats(d, &seq(200)), d.alloc(16).unwrap());
        go(
            d,
            m,
            "block_sum",
            x(4),
            x(64),
            &[A::Ptr(i), A::Ptr(o), A::I32(200)],
        );
        read_f32(d, o, 4)
    });
    let want: Vec<f32> = (0..4)
        .map(|b| (b * 64..(b * 64 + 64).min(200)).sum::<usize>() as f32)
        .collect();
    assert_eq!(out, want);
}

#[test]
fn odd_even_sort_with_a_barrier_per_phase() {
    let keys = scrambled(128);
    let out = clean(|d, m| {
        let k = ints(d, &keys);
        go(d, m, "odd_even_sort", x(1), x(64), &[A::Ptr(k)]);
        read_i32(d, k, 128)
    });
    let mut want = keys.clone();
    want.sort();
    assert_eq!(out, want);
}

#[test]
fn jacobi_with_two_buffers() {
    let input: Vec<f32> = (0..128).map(|i| (i * 13 % 32) as f32).collect();
    let out = clean(|d, m| {
        let (i, o) = (floats(d, &input), d.alloc(512).unwrap());
        go(
            d,
            m,
            "jacobi_double_buffer",
            x(2),
            x(64),
            &[A::Ptr(i), A::Ptr(o), A::I32(3)],
        );
        read_f32(d, o, 128)
    });
    // Dyadic values: exact in f32 whatever the rounding of each step.
    let mut want = Vec::new();
    for block in input.chunks(64) {
        let mut u = block.to_vec();
        for _ in 0..3 {
            let prev = u.clone();
            for t in 1..63 {
                u[t] = 0.5 * prev[t] + 0.25 * (prev[t - 1] + prev[t + 1]);
            }
        }
        want.extend(u);
    }
    assert_eq!(out, want);
}

#[test]
fn float4_copy_from_an_aligned_start_with_a_tail() {
    let out = clean(|d, m| {
        let (i, o) = (floats(d, &seq(103)), d.alloc(4 * 103).unwrap());
        go(
            d,
            m,
            "float4_copy",
            x(1),
            x(32),
            &[A::Ptr(i), A::Ptr(o), A::I32(103)],
        );
        read_f32(d, o, 103)
    });
    assert_eq!(out, seq(103));
}

#[test]
fn dynamic_shared_memory_of_the_size_used() {
    let out = clean(|d, m| {
        let (i, o) = (floats(d, &seq(128)), d.alloc(512).unwrap());
        let args = [A::Ptr(i), A::Ptr(o)];
        launch_shared(d, m, "dynamic_shared_reverse", x(2), x(64), 512, &args).unwrap();
        read_f32(d, o, 128)
    });
    let want: Vec<f32> = (0..128)
        .map(|i| {
            let (b, t) = (i / 64, i % 64);
            (b * 64 + 63 - t) as f32 + (63 - t) as f32
        })
        .collect();
    assert_eq!(out, want);
}

#[test]
fn ballot_mask_taken_before_an_early_return() {
    let input = scrambled(64);
    let out = clean(|d, m| {
        let (i, o) = (ints(d, &input), zeroed(d, 256));
        go(
            d,
            m,
            "ballot_mask_before_early_return",
            x(1),
            x(64),
            &[A::Ptr(i), A::Ptr(o), A::I32(40)],
        );
        read_u32(d, o, 64)
    });
    let positive = |r: std::ops::Range<usize>| input[r].iter().filter(|&&v| v > 0).count() as u32;
    let mut want = vec![positive(0..32); 32];
    want.extend(vec![positive(32..40); 8]);
    want.extend(vec![0; 24]);
    assert_eq!(out, want);
}

#[test]
fn shuffles_with_the_member_mask_of_a_ballot() {
    let input = scrambled(64);
    let out = clean(|d, m| {
        let (i, o) = (ints(d, &input), zeroed(d, 256));
        go(
            d,
            m,
            "shuffle_with_ballot_mask",
            x(1),
            x(64),
            &[A::Ptr(i), A::Ptr(o), A::I32(40)],
        );
        read_i32(d, o, 40)
    });
    let want: Vec<i32> = (0..40)
        .map(|i| {
            if i % 32 < 31 && i + 1 < 40 {
                input[i + 1] - input[i]
            } else {
                0
            }
        })
        .collect();
    assert_eq!(out, want);
}

#[test]
fn half_warps_each_with_their_syncwarp_mask() {
    let out = clean(|d, m| {
        let (i, o) = (ints(d, &(0..64).collect::<Vec<_>>()), d.alloc(256).unwrap());
        go(
            d,
            m,
            "half_warp_exchange",
            x(1),
            x(64),
            &[A::Ptr(i), A::Ptr(o)],
        );
        read_i32(d, o, 64)
    });
    assert_eq!(out, (0..64).map(|t| t ^ 15).collect::<Vec<_>>());
}

#[test]
fn producer_and_consumers_on_named_barriers() {
    let input = scrambled(3 * 64);
    let out = clean(|d, m| {
        let (i, o) = (ints(d, &input), d.alloc(3 * 256).unwrap());
        go(
            d,
            m,
            "producer_consumer",
            x(2),
            x(96),
            &[A::Ptr(i), A::Ptr(o), A::I32(3)],
        );
        read_i32(d, o, 3 * 64)
    });
    assert_eq!(out, input.iter().map(|v| 2 * v).collect::<Vec<_>>());
}

#[test]
fn local_array_large_enough_for_every_digit() {
    let vals: Vec<u32> = (0..32)
        .map(|i| {
            if i % 4 == 3 {
                4_000_000_000 - i
            } else {
                i * 1013
            }
        })
        .collect();
    let out = clean(|d, m| {
        let (i, o) = (uints(d, &vals), d.alloc(128).unwrap());
        go(
            d,
            m,
            "local_digits",
            x(1),
            x(32),
            &[A::Ptr(i), A::Ptr(o), A::I32(32)],
        );
        read_u32(d, o, 32)
    });
    let hash = |mut v: u32| {
        let mut digits = Vec::new();
        loop {
            digits.push(v % 10);
            v /= 10;
            if v == 0 {
                break;
            }
        }
        digits
            .iter()
            .fold(0u32, |s, &g| s.wrapping_mul(31).wrapping_add(g))
    };
    assert_eq!(out, vals.iter().map(|&v| hash(v)).collect::<Vec<_>>());
}

#[test]
fn block_maximum_by_shared_atomic_max() {
    let input = scrambled(128);
    let out = clean(|d, m| {
        let (i, o) = (ints(d, &input), d.alloc(8).unwrap());
        go(
            d,
            m,
            "shared_max_atomic",
            x(2),
            x(64),
            &[A::Ptr(i), A::Ptr(o)],
        );
        read_i32(d, o, 2)
    });
    let want: Vec<i32> = input.chunks(64).map(|c| *c.iter().max().unwrap()).collect();
    assert_eq!(out, want);
}

#[test]
fn stream_compaction_by_ballot_and_one_atomic_per_warp() {
    let input = scrambled(256);
    // Per block: the count, and the values compacted, sorted (warps claim
    // their room in any order).
    let got = clean(|d, m| {
        let (i, o) = (ints(d, &input), zeroed(d, 1024));
        let count = d.alloc(8).unwrap();
        let args = [A::Ptr(i), A::Ptr(o), A::Ptr(count)];
        go(d, m, "compact_odd", x(2), x(128), &args);
        let (values, counts) = (read_i32(d, o, 256), read_i32(d, count, 2));
        (0..2)
            .map(|b| {
                let n = counts[b] as usize;
                let mut v = values[b * 128..b * 128 + n].to_vec();
                v.sort();
                v
            })
            .collect::<Vec<_>>()
    });
    let want: Vec<Vec<i32>> = input
        .chunks(128)
        .map(|block| {
            let mut v: Vec<i32> = block.iter().copied().filter(|v| v & 1 != 0).collect();
            v.sort();
            v
        })
        .collect();
    assert_eq!(got, want);
}

#[test]
fn last_block_sums_the_partials_through_a_module_counter() {
    let out = clean(|d, m| {
        let i = floats(d, &seq(256));
        let (partial, total) = (d.alloc(16).unwrap(), d.alloc(4).unwrap());
        let args = [A::Ptr(i), A::Ptr(partial), A::Ptr(total)];
        // Twice: the ticket wraps back to 0 for the next launch.
        go(d, m, "sum_last_block", x(4), x(64), &args);
        go(d, m, "sum_last_block", x(4), x(64), &args);
        (read_f32(d, partial, 4), read_f32(d, total, 1)[0])
    });
    let partial: Vec<f32> = (0..4)
        .map(|b| (b * 64..b * 64 + 64).sum::<usize>() as f32)
        .collect();
    assert_eq!(out, (partial, (0..256).sum::<usize>() as f32));
}

#[test]
fn non_aligned_barriers_may_meet_in_divergent_branches() {
    let out = clean(|d, m| {
        let (i, o) = (ints(d, &(0..64).collect::<Vec<_>>()), d.alloc(256).unwrap());
        go(
            d,
            m,
            "warp_specialized_barrier",
            x(1),
            x(64),
            &[A::Ptr(i), A::Ptr(o)],
        );
        read_i32(d, o, 64)
    });
    let want: Vec<i32> = (0..64)
        .map(|t| if t < 32 { t + 32 + 1 } else { 2 * (t - 32) })
        .collect();
    assert_eq!(out, want);
}

#[test]
fn half_warps_each_shuffling_within_their_mask_and_width() {
    let out = clean(|d, m| {
        let (i, o) = (ints(d, &(0..64).collect::<Vec<_>>()), d.alloc(256).unwrap());
        go(
            d,
            m,
            "half_warp_broadcast",
            x(1),
            x(64),
            &[A::Ptr(i), A::Ptr(o)],
        );
        read_i32(d, o, 64)
    });
    let want: Vec<i32> = (0..64).map(|t| (t & !15) * 1000 + (t ^ 8)).collect();
    assert_eq!(out, want);
}
