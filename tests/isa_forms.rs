//! More of issue 27's forms, on both engines, with expected values written
//! from the PTX ISA: `lop3`'s predicate output (PTX ISA 8.2); the forms
//! the ISA does not have are refused naming the instruction and its line.

use warpjit::runtime::{Device, Engine, LaunchConfig, Options};
use warpjit::Error;

const ENGINES: [Engine; 2] = [Engine::Interp, Engine::Jit];

/// A kernel `k(.u64 in, .u64 out)` of `threads` threads running `body`
/// with `%rd1` = in and `%rd2` = out (global addresses); the body starts
/// at line 14.
fn module(target: &str, body: &str) -> String {
    format!(
        ".version 8.8\n.target {target}\n.address_size 64\n\
         .visible .entry k(.param .u64 pin, .param .u64 pout)\n{{\n\
         \t.reg .pred %p<20>;\n\t.reg .b32 %r<40>;\n\t.reg .f32 %f<20>;\n\t.reg .b64 %rd<20>;\n\
         \tld.param.u64 %rd1, [pin];\n\tld.param.u64 %rd2, [pout];\n\
         \tcvta.to.global.u64 %rd1, %rd1;\n\tcvta.to.global.u64 %rd2, %rd2;\n\
         {body}\n\tret;\n}}\n"
    )
}

/// Runs `body` on `engine` in one block of `threads` threads with `input`
/// in a buffer; returns the first `out_len` bytes of the output buffer or
/// the error.
fn run(
    engine: Engine,
    target: &str,
    body: &str,
    threads: u32,
    input: &[u8],
    out_len: usize,
) -> Result<Vec<u8>, Error> {
    let mut dev = Device::new(Options {
        arena_bytes: 1 << 20,
        engine,
        ..Options::default()
    });
    let m = dev.load_ptx("t.ptx", &module(target, body))?;
    let k = dev.kernel(m, None)?;
    let a = dev.alloc(8192)?;
    let b = dev.alloc(8192)?;
    dev.write(a, input)?;
    dev.write(b, &vec![0u8; 8192])?;
    let mut p = a.to_le_bytes().to_vec();
    p.extend_from_slice(&b.to_le_bytes());
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        shared_bytes: 0,
    };
    dev.launch(m, k, cfg, &p)?;
    let mut out = vec![0u8; out_len];
    dev.read(b, &mut out)?;
    Ok(out)
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The ISA's table: bit `i` of `F(a, b, c)` is bit `a_i*4 + b_i*2 + c_i`
/// of `lut` (0xF0, 0xCC, 0xAA being `a`, `b`, `c`).
fn lop3_ref(lut: u8, a: u32, b: u32, c: u32) -> u32 {
    (0..32)
        .map(|i| {
            let k = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1);
            (((lut >> k) & 1) as u32) << i
        })
        .sum()
}

/// Every predicate form of one `lut`: `.or` and `.and` with `q` and `!q`,
/// `d` written or `_`; the predicates packed into one word.
fn lop3_body(lut: u8) -> String {
    format!(
        "\tld.global.v4.b32 {{%r1, %r2, %r3, %r4}}, [%rd1];\n\
         \tsetp.ne.u32 %p1, %r4, 0;\n\
         \tlop3.or.b32 %r10|%p2, %r1, %r2, %r3, {lut:#x}, %p1;\n\
         \tlop3.and.b32 %r11|%p3, %r1, %r2, %r3, {lut:#x}, %p1;\n\
         \tlop3.or.b32 _|%p4, %r1, %r2, %r3, {lut:#x}, !%p1;\n\
         \tlop3.and.b32 _|%p5, %r1, %r2, %r3, {lut:#x}, !%p1;\n\
         \tselp.b32 %r20, 1, 0, %p2;\n\tselp.b32 %r21, 2, 0, %p3;\n\
         \tselp.b32 %r22, 4, 0, %p4;\n\tselp.b32 %r23, 8, 0, %p5;\n\
         \tor.b32 %r20, %r20, %r21;\n\tor.b32 %r22, %r22, %r23;\n\
         \tor.b32 %r20, %r20, %r22;\n\
         \tst.global.v4.b32 [%rd2], {{%r10, %r11, %r20, %r20}};"
    )
}

#[test]
fn lop3_predicate_output_is_d_nonzero_combined_with_q() {
    // By hand: a & b & c (0x80) of disjoint words is 0, so p = q with
    // `.or` and false with `.and`; with a common bit it is 1, so p is
    // true with `.or` and q with `.and`.
    #[rustfmt::skip]
    let by_hand: [(u8, [u32; 4], [u32; 3]); 4] = [
        (0x80, [0xF0, 0x0F, 0xFF, 1], [0, 0, 0b0001]),
        (0x80, [0xF0, 0x0F, 0xFF, 0], [0, 0, 0b0100]),
        (0x80, [0xF1, 0x0F, 0xFF, 0], [1, 1, 0b1101]),
        (0x80, [0xF1, 0x0F, 0xFF, 7], [1, 1, 0b0111]),
    ];
    let luts = [0x00, 0xFF, 0x80, 0x96, 0xE8, 0x01, 0xFE, 0x1E, 0x6A, 0xCA];
    let inputs = [
        [0, 0, 0],
        [u32::MAX, u32::MAX, u32::MAX],
        [0x8000_0000, 0, 0],
        [0x1234_5678, 0x9ABC_DEF0, 0x0F0F_F0F0],
        [0xFFFF_0000, 0x00FF_FF00, 0x0000_FFFF],
        [1, 2, 4],
    ];
    for engine in ENGINES {
        for (lut, input, want) in by_hand {
            let out = words(&run(engine, "sm_80", &lop3_body(lut), 1, &bytes(&input), 16).unwrap());
            assert_eq!(out[..3], want, "{engine:?} {lut:#x} {input:x?}");
        }
        for lut in luts {
            let body = lop3_body(lut);
            for [a, b, c] in inputs {
                for q in [0, 1] {
                    let out =
                        words(&run(engine, "sm_80", &body, 1, &bytes(&[a, b, c, q]), 16).unwrap());
                    let d = lop3_ref(lut, a, b, c);
                    let (nz, q) = (d != 0, q != 0);
                    let p = (nz || q) as u32
                        | ((nz && q) as u32) << 1
                        | ((nz || !q) as u32) << 2
                        | ((nz && !q) as u32) << 3;
                    assert_eq!(
                        out[..3],
                        [d, d, p],
                        "{engine:?} {lut:#x} {a:#x} {b:#x} {c:#x} {q}"
                    );
                }
            }
        }
    }
}

#[test]
fn lop3_predicate_form_reads_its_sources_first_and_obeys_its_guard() {
    // `d` is also `a`, `p` also `q`; then a guarded form whose guard is
    // false leaves both as they were, and a true one writes both.
    let body = "\tld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd1];\n\
                \tsetp.ne.u32 %p1, %r4, 0;\n\
                \tlop3.and.b32 %r1|%p1, %r1, %r2, %r3, 0xF0, %p1;\n\
                \tselp.b32 %r5, 1, 0, %p1;\n\
                \tsetp.eq.u32 %p2, %r4, 99;\n\
                \t@%p2 lop3.or.b32 %r6|%p1, %r2, %r2, %r2, 0xFF, %p1;\n\
                \tselp.b32 %r7, 1, 0, %p1;\n\
                \tmov.b32 %r6, 5;\n\
                \t@!%p2 lop3.or.b32 %r6|%p1, %r2, %r2, %r2, 0xFF, %p1;\n\
                \tselp.b32 %r8, 1, 0, %p1;\n\
                \tst.global.v4.b32 [%rd2], {%r1, %r5, %r7, %r8};\n\
                \tst.global.b32 [%rd2+16], %r6;";
    for engine in ENGINES {
        // a = 0x10 (d = a): p = (0x10 != 0) and q.
        let out = words(&run(engine, "sm_80", body, 1, &bytes(&[0x10, 3, 5, 1]), 20).unwrap());
        assert_eq!(out, [0x10, 1, 1, 1, u32::MAX], "{engine:?}");
        // a = 0: p false whatever q; the false guard keeps it false.
        let out = words(&run(engine, "sm_80", body, 1, &bytes(&[0, 3, 5, 1]), 20).unwrap());
        assert_eq!(out, [0, 0, 0, 1, u32::MAX], "{engine:?}");
    }
}

#[test]
fn lop3_forms_the_isa_does_not_have_are_refused_at_their_line() {
    let cases = [
        (
            "lop3.xor.b32 %r1|%p1, %r2, %r3, %r4, 0x80, %p2;",
            "combines with `.or` or `.and`",
        ),
        (
            "lop3.or.b32 %r1, %r2, %r3, %r4, 0x80, %p2;",
            "needs a predicate output `d|p`",
        ),
        (
            "lop3.and.b32 %r1|_, %r2, %r3, %r4, 0x80, %p2;",
            "needs a predicate output `d|p`",
        ),
        (
            "lop3.b32 %r1|%p1, %r2, %r3, %r4, 0x80;",
            "needs `.or` or `.and`",
        ),
        (
            "lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 0x80;",
            "takes 6 operands",
        ),
        (
            "lop3.or.b32 %r1|%p1, %r2, %r3, %r4, %r5, %p2;",
            "non-immediate lop3 truth table",
        ),
    ];
    for (form, want) in cases {
        let err = run(Engine::Interp, "sm_80", &format!("\t{form}"), 1, &[0; 4], 4)
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{form}: {err}");
        assert!(err.contains("t.ptx:14:"), "{form}: {err}");
    }
}
