//! Volta's `mma.sync.aligned.m8n8k4` with f16 inputs on both engines: all
//! four `.alayout.blayout` combinations and the three pairings of C and D
//! that ptxas accepts (an f16 D with an f32 C it refuses, and so does
//! warpjit). The fragments are packed here from the ISA's figures ("Matrix
//! Fragments for mma.m8n8k4 with .f16 floating point type": four 8x8x4
//! products, one per quad-pair), the expected D is a plain matrix product
//! per quad-pair.

mod common;

use common::forms::{bytes, run_kernel, words, ENGINES};
use half::f16;

/// Kernel: lane `l` loads its 12 input words at `in + 48 l` (A's two
/// registers, B's two, C's eight or four), runs the form and stores D's
/// registers at `out + 32 l`.
fn kernel(form: &str, nc: usize, nd: usize) -> String {
    let mut body = String::new();
    for i in 0..12 {
        body += &format!("\tld.global.b32 %r{}, [%rd4+{}];\n", 10 + i, 4 * i);
    }
    let list = |first: usize, n: usize| {
        (0..n)
            .map(|i| format!("%r{}", first + i))
            .collect::<Vec<_>>()
            .join(",")
    };
    body += &format!(
        "\t{form} {{{}}}, {{%r10,%r11}}, {{%r12,%r13}}, {{{}}};\n",
        list(30, nd),
        list(14, nc)
    );
    for i in 0..nd {
        body += &format!("\tst.global.b32 [%rd6+{}], %r{};\n", 4 * i, 30 + i);
    }
    format!(
        ".version 6.4\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 in, .param .u64 out)\n{{\n\t.reg .b32 %r<40>;\n\t.reg .b64 %rd<8>;\n\tld.param.u64 %rd1, [in];\n\tld.param.u64 %rd2, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n\tcvta.to.global.u64 %rd2, %rd2;\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 48;\n\tadd.s64 %rd4, %rd1, %rd3;\n\tmul.wide.u32 %rd5, %r1, 32;\n\tadd.s64 %rd6, %rd2, %rd5;\n{body}\tret;\n}}\n"
    )
}

/// (row, col) of A's element `i` in `lane` (the ISA's formulas).
fn place_a(row: bool, lane: usize, i: usize) -> (usize, usize) {
    let up = if lane < 16 { 0 } else { 4 };
    if row {
        (lane % 4 + up, i)
    } else {
        (i + up, lane % 4)
    }
}

fn place_b(row: bool, lane: usize, i: usize) -> (usize, usize) {
    let up = if lane < 16 { 0 } else { 4 };
    if row {
        (lane % 4, i + up)
    } else {
        (i, lane % 4 + up)
    }
}

fn place_acc(f32_acc: bool, lane: usize, i: usize) -> (usize, usize) {
    let up = if lane < 16 { 0 } else { 4 };
    if f32_acc {
        let x = (lane & 1) + (i & 2);
        (x + up, (i & 4) + (lane & 2) + (i & 1))
    } else {
        (lane % 4 + up, i)
    }
}

/// Quad-pair of `lane`: lanes 0-3 and 16-19 are the first.
fn qp(lane: usize) -> usize {
    (lane % 16) / 4
}

#[test]
fn volta_m8n8k4_every_layout_and_accumulator() {
    // Small integers: every product and sum is exact, any rounding agrees.
    let a = |q: usize, r: usize, c: usize| ((q * 7 + r * 3 + c * 5) % 11) as f64 - 5.0;
    let b = |q: usize, r: usize, c: usize| ((q * 5 + r * 7 + c * 3) % 13) as f64 - 6.0;
    let cv = |q: usize, r: usize, c: usize| ((q * 3 + r * 11 + c) % 17) as f64 * 0.5 - 4.0;
    let h = |v: f64| f16::from_f64(v).to_bits() as u32;
    for al in ["row", "col"] {
        for bl in ["row", "col"] {
            for (dt, ct) in [("f32", "f32"), ("f32", "f16"), ("f16", "f16")] {
                let (d32, c32) = (dt == "f32", ct == "f32");
                let (nc, nd) = (if c32 { 8 } else { 4 }, if d32 { 8 } else { 4 });
                let form = format!("mma.sync.aligned.m8n8k4.{al}.{bl}.{dt}.f16.f16.{ct}");
                let mut input = vec![0u32; 32 * 12];
                for lane in 0..32 {
                    let q = qp(lane);
                    let w = &mut input[12 * lane..12 * lane + 12];
                    for i in 0..4 {
                        let (r, c) = place_a(al == "row", lane, i);
                        w[i / 2] |= h(a(q, r, c)) << (16 * (i % 2));
                        let (r, c) = place_b(bl == "row", lane, i);
                        w[2 + i / 2] |= h(b(q, r, c)) << (16 * (i % 2));
                    }
                    for i in 0..8 {
                        let (r, c) = place_acc(c32, lane, i);
                        let v = cv(q, r, c);
                        if c32 {
                            w[4 + i] = (v as f32).to_bits();
                        } else {
                            w[4 + i / 2] |= h(v) << (16 * (i % 2));
                        }
                    }
                }
                let text = kernel(&form, nc, nd);
                for engine in ENGINES {
                    let out = run_kernel(engine, &text, None, 32, &bytes(&input), 32 * 32)
                        .unwrap_or_else(|e| panic!("{form} on {engine:?}: {e}"));
                    let out = words(&out);
                    for lane in 0..32 {
                        let q = qp(lane);
                        for i in 0..8 {
                            let (r, c) = place_acc(d32, lane, i);
                            let want: f64 =
                                (0..4).map(|k| a(q, r, k) * b(q, k, c)).sum::<f64>() + cv(q, r, c);
                            let got = if d32 {
                                f32::from_bits(out[8 * lane + i]) as f64
                            } else {
                                let reg = out[8 * lane + i / 2];
                                f16::from_bits((reg >> (16 * (i % 2))) as u16).to_f64()
                            };
                            assert_eq!(got, want, "{form} {engine:?}: lane {lane} element {i}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn volta_m8n8k4_rounds_once() {
    // 2048 + 1 + 1 in f16: rounded once the sum 2050 is exact; an f16
    // accumulation step by step would give 2048 (ties to even twice).
    let form = "mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16";
    let one = f16::from_f64(1.0).to_bits() as u32;
    let mut input = vec![0u32; 32 * 12];
    for lane in 0..32 {
        let w = &mut input[12 * lane..12 * lane + 12];
        // A (.row): the lane's row has 1 at k = 0, 1; B (.col): the lane's
        // column has 1 at k = 0, 1; so every element of D is 2048 + 1 + 1.
        w[0] = one | (one << 16);
        w[2] = one | (one << 16);
        let c = f16::from_f64(2048.0).to_bits() as u32;
        for r in 0..4 {
            w[4 + r] = c | (c << 16);
        }
    }
    for engine in ENGINES {
        let out = words(
            &run_kernel(engine, &kernel(form, 4, 4), None, 32, &bytes(&input), 1024).unwrap(),
        );
        for lane in 0..32 {
            for i in 0..8 {
                let bits = (out[8 * lane + i / 2] >> (16 * (i % 2))) as u16;
                let got = f16::from_bits(bits).to_f64();
                assert_eq!(got, 2050.0, "{engine:?} lane {lane} elem {i}");
            }
        }
    }
}

#[test]
fn volta_m8n8k4_f16_d_with_f32_c_is_refused() {
    // ptxas 12.9: ".dtype must be '.f32' when .ctype is '.f32' for 'mma'
    // instruction with shape '.m8n8k4'".
    let form = "mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f32";
    for engine in ENGINES {
        let r = run_kernel(
            engine,
            &kernel(form, 8, 4),
            None,
            32,
            &bytes(&[0u32; 32 * 12]),
            1024,
        );
        let err = format!("{:?}", r.expect_err("refused"));
        assert!(err.contains("mma"), "{engine:?}: {err}");
    }
}
