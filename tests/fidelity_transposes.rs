//! The transpose runs (Ruetsch and Micikevicius's kernels as the fidelity
//! runs have them, `ptx-samples/fidelity/runs.toml`) transpose and copy:
//! every kernel on a 1024 x 1024 matrix at full size, and every transpose
//! run's launches doing their part of a transpose, results checked on the
//! host. Split from fidelity_runs.rs.

mod common;

use common::fidelity::{self, f32_bytes, run_full, runs_by_name, Session, Small};
use warpjit::runtime::KernelArg;

#[test]
fn transposes_transpose_and_copies_copy() {
    let n = 1024;
    let mut s = Session::new(256 << 20);
    for (name, transposed) in [
        ("transpose_copy_f32_1024", false),
        ("transpose_copy_shared_f32_1024", false),
        ("transpose_naive_f32_1024", true),
        ("transpose_coalesced_f32_1024", true),
        ("transpose_nobankconflicts_f32_1024", true),
    ] {
        run_full(&mut s, name);
        let (input, out) = (s.u32s("in"), s.u32s("out"));
        for y in 0..n {
            for x in 0..n {
                let want = if transposed {
                    input[x * n + y]
                } else {
                    input[y * n + x]
                };
                assert_eq!(out[y * n + x], want, "{name}: ({y}, {x})");
            }
        }
    }
}

/// What a transpose-family kernel does to a matrix of `h` rows and `w`
/// columns in tiles of `t`: the value out[i] must hold, as an index into in.
fn transpose_source(kind: &str, i: usize, w: usize, h: usize, t: usize) -> usize {
    match kind {
        // Same shape, same place.
        "copy" | "copy_shared" => i,
        // out has w rows of h: out[x][y] = in[y][x].
        "naive" | "coalesced" | "nobankconflicts" | "diagonal" => {
            let (x, y) = (i / h, i % h);
            y * w + x
        }
        // Same shape; each tile transposed in place.
        "finegrained" => {
            let (y, x) = (i / w, i % w);
            let (ty, tx) = (y / t * t, x / t * t);
            (ty + (x - tx)) * w + tx + (y - ty)
        }
        // out has w rows of h; in's tile (X, Y) at out's tile (Y, X), not
        // transposed inside.
        "coarsegrained" => {
            let (r, c) = (i / h, i % h);
            let (tile_x, tile_y) = (r / t, c / t);
            (tile_y * t + r % t) * w + tile_x * t + c % t
        }
        k => panic!("transpose kind {k}"),
    }
}

/// Every transpose run (the Ruetsch & Micikevicius 32 x 8 runs at 1024 and
/// 2048, the CUDA Samples 16 x 16 ones): its size and shape, and its kernel,
/// block and shared memory on a small non-square matrix (5 x 3 tiles, which
/// also takes the diagonal kernels' non-square mapping).
#[test]
fn every_transpose_run_does_its_part_of_a_transpose() {
    let runs = runs_by_name();
    let mut s = Small::new();
    let mut seen = 0;
    for (name, run) in &runs {
        let (kind, n, tile) = if let Some(rest) = name.strip_prefix("cudasamples_transpose_") {
            let kind = rest.strip_suffix("_f32_1024_t16").unwrap();
            (kind, 1024, 16)
        } else if let Some(rest) = name.strip_prefix("transpose_") {
            let (kind, n) = rest.rsplit_once("_f32_").unwrap();
            (kind, n.parse::<u32>().unwrap(), 32)
        } else {
            continue;
        };
        seen += 1;
        let l = &run.launch[0];
        let rows = if tile == 32 { 8 } else { 16 };
        assert_eq!(l.block, [tile, rows, 1], "{name}");
        let grid: Vec<u32> = l
            .grid
            .iter()
            .map(|d| match d {
                fidelity::Dim::N(g) => *g,
                _ => panic!("{name}: grid"),
            })
            .collect();
        assert_eq!(grid, [n / tile, n / tile, 1], "{name}");
        for b in &run.buffers {
            assert_eq!(
                fidelity::buffer_bytes(b, 1).unwrap(),
                4 * n as u64 * n as u64,
                "{name}"
            );
        }
        let shared = match l.shared_bytes {
            fidelity::Shared::N(b) => b,
            _ => panic!("{name}: shared_bytes"),
        };
        let (gx, gy) = (5u32, 3u32);
        let (w, h, t) = ((gx * tile) as usize, (gy * tile) as usize, tile as usize);
        let input: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
        let (din, dout) = (s.buf(&f32_bytes(input)), s.zeros(4 * (w * h) as u64));
        s.launch(
            &l.kernel,
            [gx, gy, 1],
            l.block,
            shared,
            &[KernelArg::Ptr(dout), KernelArg::Ptr(din)],
        );
        for (i, v) in s.f32s(dout, w * h).into_iter().enumerate() {
            let want = transpose_source(kind, i, w, h, t);
            assert_eq!(v, want as f32, "{name}: out[{i}]");
        }
    }
    assert_eq!(seen, 5 + 8 + 8, "transpose runs");
}
