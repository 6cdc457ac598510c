//! f64 `mma.sync.aligned.m8n8k4` and `wmma.mma.sync.aligned...m8n8k4`
//! with `.rn .rz .rm .rp` on both engines: each fma of the chain (C, then
//! k = 0..3) rounds in the form's mode.
//! Every row of A is (1, s 2^-60, 0, 0) and every column of B (1, 1, 0, 0),
//! C is 0, so each element of D is 1 + s 2^-60 rounded in that mode.
//! Fragments as the ISA's "Matrix Fragments for mma.m8n8k4 with .f64":
//! A row `lane / 4`, column `lane % 4`; B row `lane % 4`, column
//! `lane / 4`; C and D row `lane / 4`, columns `2 (lane % 4) + i`.

mod common;

use common::forms::{bytes, run_kernel, words, ENGINES};

fn kernel(mode: &str) -> String {
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 in, .param .u64 out)\n{{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<8>;\n\t.reg .f64 %fd<8>;\n\tld.param.u64 %rd1, [in];\n\tld.param.u64 %rd2, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n\tcvta.to.global.u64 %rd2, %rd2;\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 32;\n\tadd.s64 %rd4, %rd1, %rd3;\n\tmul.wide.u32 %rd5, %r1, 16;\n\tadd.s64 %rd6, %rd2, %rd5;\n\tld.global.f64 %fd1, [%rd4];\n\tld.global.f64 %fd2, [%rd4+8];\n\tld.global.f64 %fd3, [%rd4+16];\n\tld.global.f64 %fd4, [%rd4+24];\n\tmma.sync.aligned.m8n8k4.row.col{mode}.f64.f64.f64.f64 {{%fd5,%fd6}}, {{%fd1}}, {{%fd2}}, {{%fd3,%fd4}};\n\tst.global.f64 [%rd6], %fd5;\n\tst.global.f64 [%rd6+8], %fd6;\n\tret;\n}}\n"
    )
}

/// Runs `kernel` in each mode (none, `.rz`, `.rm`, `.rp`) on both engines
/// with the f64 words `input` and checks that all 64 elements of D are
/// `want` of that mode.
fn check_modes(kernel: fn(&str) -> String, input: &[f64], want: [f64; 4], what: &str) {
    let input: Vec<u32> = input
        .iter()
        .flat_map(|v| {
            let b = v.to_bits();
            [b as u32, (b >> 32) as u32]
        })
        .collect();
    for (mode, want) in ["", ".rz", ".rm", ".rp"].into_iter().zip(want) {
        for engine in ENGINES {
            let out =
                words(&run_kernel(engine, &kernel(mode), None, 32, &bytes(&input), 512).unwrap());
            for e in 0..64 {
                let got = f64::from_bits(out[2 * e] as u64 | (out[2 * e + 1] as u64) << 32);
                assert_eq!(got, want, "{engine:?} {what}{mode} element {e}");
            }
        }
    }
}

/// Each mode's result for a row of A of (1, `sign` 2^-60, 0, 0).
fn cases() -> [(f64, [f64; 4]); 2] {
    let (up, down) = (1.0 + f64::EPSILON, 1.0 - f64::EPSILON / 2.0);
    [(1.0, [1.0, 1.0, 1.0, up]), (-1.0, [1.0, down, down, 1.0])]
}

#[test]
fn f64_mma_rounds_each_fma_in_its_mode() {
    let tiny = 2f64.powi(-60);
    for (sign, want) in cases() {
        // Lane l: A (row l / 4, column l % 4), B (row l % 4), C's two.
        let input: Vec<f64> = (0..32)
            .flat_map(|lane| {
                let k = lane % 4;
                let a = [1.0, sign * tiny, 0.0, 0.0][k];
                let b = if k < 2 { 1.0 } else { 0.0 };
                [a, b, 0.0, 0.0]
            })
            .collect();
        check_modes(kernel, &input, want, &format!("mma sign {sign} "));
    }
}

/// The same product through `wmma`: A row-major, B column-major, C and D
/// row-major in global memory (in: A at 0, B at 256, C at 512).
fn wmma_kernel(mode: &str) -> String {
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 in, .param .u64 out)\n{{\n\t.reg .b64 %rd<8>;\n\t.reg .f64 %fd<8>;\n\tld.param.u64 %rd1, [in];\n\tld.param.u64 %rd2, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n\tcvta.to.global.u64 %rd2, %rd2;\n\tadd.s64 %rd3, %rd1, 256;\n\tadd.s64 %rd4, %rd1, 512;\n\twmma.load.a.sync.aligned.row.m8n8k4.f64 {{%fd1}}, [%rd1];\n\twmma.load.b.sync.aligned.col.m8n8k4.f64 {{%fd2}}, [%rd3];\n\twmma.load.c.sync.aligned.row.m8n8k4.f64 {{%fd3,%fd4}}, [%rd4];\n\twmma.mma.sync.aligned.row.col.m8n8k4{mode}.f64.f64.f64.f64 {{%fd5,%fd6}}, {{%fd1}}, {{%fd2}}, {{%fd3,%fd4}};\n\twmma.store.d.sync.aligned.row.m8n8k4.f64 [%rd2], {{%fd5,%fd6}};\n\tret;\n}}\n"
    )
}

#[test]
fn f64_wmma_rounds_each_fma_in_its_mode() {
    let tiny = 2f64.powi(-60);
    for (sign, want) in cases() {
        let mut vals = vec![0f64; 128];
        for r in 0..8 {
            vals[4 * r] = 1.0;
            vals[4 * r + 1] = sign * tiny;
        }
        for n in 0..8 {
            vals[32 + 4 * n] = 1.0;
            vals[32 + 4 * n + 1] = 1.0;
        }
        check_modes(wmma_kernel, &vals, want, &format!("wmma sign {sign} "));
    }
}
