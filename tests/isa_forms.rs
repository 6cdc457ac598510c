//! More of issue 27's forms, on both engines, with expected values written
//! from the PTX ISA: `lop3`'s predicate output (PTX ISA 8.2); `alloca`,
//! `stacksave` and `stackrestore` (PTX ISA 7.3: alignment, per-thread
//! sizes, calls above the allocations, a stack that outgrows its limit);
//! `redux.sync`'s `.f32` forms (PTX ISA 8.6: signed zeros, NaNs, `.abs`);
//! `brkpt` (a breakpoint fault); `cp.async`'s ignore-src predicate (PTX
//! ISA §9.7.9.25.3.1: the source is not read, the destination
//! zero-filled) and its immediate source size, at most the copy size;
//! the forms the ISA does not have are
//! refused naming the instruction and its line.

mod common;

use common::forms::{bytes, run_kernel, words, ENGINES};
use warpjit::interp::FaultKind;
use warpjit::runtime::Engine;
use warpjit::Error;

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
    let text = module(target, body);
    run_text(engine, &text, 64 * 1024, threads, input, out_len)
}

/// As [`run`], for a whole module `text` whose kernel `k` has the same
/// parameters, with `stack_bytes` of local memory per thread.
fn run_text(
    engine: Engine,
    text: &str,
    stack_bytes: u32,
    threads: u32,
    input: &[u8],
    out_len: usize,
) -> Result<Vec<u8>, Error> {
    run_kernel(engine, text, Some(stack_bytes), threads, input, out_len)
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

/// Each thread takes `tid + 1` words (aligned to 64), 12 bytes and one
/// word (aligned to 256), fills and sums the first through local and
/// generic addresses, and restores its stack; out (8 words a thread): the
/// sum, a word read back through a generic address, the three pointers,
/// the pointers before, after the allocations and after the restore.
const ALLOCA_BODY: &str = "\tmov.u32 %r1, %tid.x;\n\
    \tstacksave.u64 %rd3;\n\
    \tadd.u32 %r2, %r1, 1;\n\
    \tmul.wide.u32 %rd4, %r2, 4;\n\
    \talloca.u64 %rd5, %rd4, 64;\n\
    \talloca.u64 %rd6, 12;\n\
    \talloca.u32 %r3, 4, 256;\n\
    \tmov.u32 %r4, 0;\n\
    \tmov.u64 %rd7, %rd5;\n\
    FILL:\n\
    \tmad.lo.u32 %r5, %r1, 100, %r4;\n\
    \tst.local.u32 [%rd7], %r5;\n\
    \tadd.u64 %rd7, %rd7, 4;\n\
    \tadd.u32 %r4, %r4, 1;\n\
    \tsetp.lt.u32 %p1, %r4, %r2;\n\
    \t@%p1 bra FILL;\n\
    \tst.local.u32 [%rd6+8], 7;\n\
    \tst.local.u32 [%r3], 9;\n\
    \tcvta.local.u64 %rd8, %rd6;\n\
    \tld.u32 %r6, [%rd8+8];\n\
    \tcvta.local.u64 %rd9, %rd5;\n\
    \tmov.u32 %r7, 0;\n\
    \tmov.u32 %r4, 0;\n\
    SUM:\n\
    \tld.u32 %r5, [%rd9];\n\
    \tadd.u32 %r7, %r7, %r5;\n\
    \tadd.u64 %rd9, %rd9, 4;\n\
    \tadd.u32 %r4, %r4, 1;\n\
    \tsetp.lt.u32 %p1, %r4, %r2;\n\
    \t@%p1 bra SUM;\n\
    \tstacksave.u64 %rd10;\n\
    \tstackrestore.u64 %rd3;\n\
    \tstacksave.u64 %rd11;\n\
    \tmul.wide.u32 %rd12, %r1, 64;\n\
    \tadd.u64 %rd12, %rd2, %rd12;\n\
    \tcvt.u32.u64 %r8, %rd5;\n\
    \tcvt.u32.u64 %r9, %rd6;\n\
    \tst.global.v4.u32 [%rd12], {%r7, %r6, %r8, %r9};\n\
    \tcvt.u32.u64 %r8, %rd3;\n\
    \tcvt.u32.u64 %r9, %rd10;\n\
    \tcvt.u32.u64 %r10, %rd11;\n\
    \tst.global.v4.u32 [%rd12+16], {%r3, %r8, %r9, %r10};";

#[test]
fn alloca_gives_each_thread_aligned_disjoint_memory_and_stackrestore_frees_it() {
    // 40 threads: a full warp and a partial one, each its own sizes.
    for engine in ENGINES {
        let out = words(&run(engine, "sm_80", ALLOCA_BODY, 40, &[0; 4], 40 * 64).unwrap());
        for t in 0..40u32 {
            let w = &out[16 * t as usize..][..8];
            let [sum, back, a, b, c, before, after, restored] = w.try_into().unwrap();
            let n = t + 1;
            assert_eq!(
                sum,
                (0..n).map(|i| t * 100 + i).sum::<u32>(),
                "{engine:?} {t}"
            );
            assert_eq!(back, 7, "{engine:?} {t}");
            // Aligned as asked (64, the minimum of 8, 256), disjoint, in
            // order above the pointer saved first.
            assert_eq!(
                (a % 64, b % 8, c % 256),
                (0, 0, 0),
                "{engine:?} {t}: {w:x?}"
            );
            assert!(
                before <= a && a + 4 * n <= b && b + 12 <= c,
                "{engine:?} {t}: {w:x?}"
            );
            assert!(c + 4 <= after, "{engine:?} {t}: {w:x?}");
            // stackrestore gives back exactly the pointer stacksave gave.
            assert_eq!(restored, before, "{engine:?} {t}");
        }
    }
}

/// `f` fills a local array and an `alloca` of its own with `v`; the
/// kernel allocates 32 bytes, fills them with `tid`, calls `f`, and
/// stores what it reads back and its stack pointer before and after.
const ALLOCA_CALL: &str = ".version 8.8\n.target sm_80\n.address_size 64\n\
    .func f(.param .u32 v)\n{\n\
    \t.local .align 16 .b8 buf[64];\n\
    \t.reg .b32 %q<4>;\n\t.reg .b64 %qd<4>;\n\
    \tld.param.u32 %q1, [v];\n\
    \tst.local.v4.u32 [buf], {%q1, %q1, %q1, %q1};\n\
    \tst.local.v4.u32 [buf+48], {%q1, %q1, %q1, %q1};\n\
    \talloca.u64 %qd1, 128, 16;\n\
    \tst.local.v4.u32 [%qd1], {%q1, %q1, %q1, %q1};\n\
    \tst.local.v4.u32 [%qd1+112], {%q1, %q1, %q1, %q1};\n\
    \tret;\n}\n\
    .visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n\
    \t.reg .b32 %r<20>;\n\t.reg .b64 %rd<20>;\n\
    \tld.param.u64 %rd2, [pout];\n\tcvta.to.global.u64 %rd2, %rd2;\n\
    \tmov.u32 %r1, %tid.x;\n\
    \talloca.u64 %rd3, 32, 16;\n\
    \tst.local.v4.u32 [%rd3], {%r1, %r1, %r1, %r1};\n\
    \tst.local.v4.u32 [%rd3+16], {%r1, %r1, %r1, %r1};\n\
    \tstacksave.u64 %rd4;\n\
    \tadd.u32 %r2, %r1, 1000;\n\
    \t{\n\t.param .b32 a;\n\tst.param.b32 [a], %r2;\n\tcall f, (a);\n\t}\n\
    \tstacksave.u64 %rd5;\n\
    \tld.local.v4.u32 {%r3, %r4, %r5, %r6}, [%rd3];\n\
    \tld.local.v4.u32 {%r7, %r8, %r9, %r10}, [%rd3+16];\n\
    \tmul.wide.u32 %rd6, %r1, 48;\n\
    \tadd.u64 %rd6, %rd2, %rd6;\n\
    \tst.global.v4.u32 [%rd6], {%r3, %r4, %r5, %r6};\n\
    \tst.global.v4.u32 [%rd6+16], {%r7, %r8, %r9, %r10};\n\
    \tst.global.v2.u64 [%rd6+32], {%rd4, %rd5};\n\
    \tret;\n}\n";

#[test]
fn a_calls_frame_lies_above_the_callers_allocations_and_its_own_are_freed() {
    for engine in ENGINES {
        let out = words(&run_text(engine, ALLOCA_CALL, 64 * 1024, 33, &[0; 4], 33 * 48).unwrap());
        for t in 0..33u32 {
            let w = &out[12 * t as usize..][..12];
            assert_eq!(w[..8], [t; 8], "{engine:?} {t}: the caller's bytes");
            assert_eq!(w[8..10], w[10..12], "{engine:?} {t}: the stack pointer");
        }
    }
}

/// `n` iterations each taking 1 KiB and (with `restore`) giving it back.
fn alloca_loop(restore: bool) -> String {
    let (save, back) = if restore {
        ("\tstacksave.u64 %rd3;\n", "\tstackrestore.u64 %rd3;\n")
    } else {
        ("", "")
    };
    format!(
        "\tmov.u32 %r1, 0;\n\
         LOOP:\n{save}\
         \talloca.u64 %rd4, 1024, 16;\n\
         \tst.local.u32 [%rd4+1020], %r1;\n\
         \tld.local.u32 %r2, [%rd4+1020];\n{back}\
         \tadd.u32 %r1, %r1, 1;\n\
         \tsetp.lt.u32 %p1, %r1, 100;\n\
         \t@%p1 bra LOOP;\n\
         \tst.global.u32 [%rd2], %r2;"
    )
}

#[test]
fn a_stack_past_its_limit_is_a_stack_overflow_fault_naming_the_alloca() {
    for engine in ENGINES {
        // With stackrestore, 100 KiB in 1 KiB pieces fit in 4 KiB.
        let text = module("sm_80", &alloca_loop(true));
        let out = words(&run_text(engine, &text, 4096, 2, &[0; 4], 4).unwrap());
        assert_eq!(out, [99], "{engine:?}");
        // Without, the fourth allocation outgrows the stack.
        let text = module("sm_80", &alloca_loop(false));
        match run_text(engine, &text, 4096, 2, &[0; 4], 4) {
            Err(Error::Launch(e)) => {
                assert_eq!(e.kind, FaultKind::StackOverflow, "{engine:?}: {e}");
                assert!(e.location.contains("t.ptx:16:"), "{engine:?}: {e}");
                assert!(
                    e.message.contains("`alloca` of 1024 bytes"),
                    "{engine:?}: {e}"
                );
                assert!(e.message.contains("limit 4096"), "{engine:?}: {e}");
                assert_eq!(e.kernel, "k", "{engine:?}");
                assert_eq!(e.thread, [0, 0, 0], "{engine:?}");
            }
            other => panic!("{engine:?}: {other:?}"),
        }
        // A size of 2^64 - 1 does not wrap around.
        let body = "\tmov.u64 %rd3, -1;\n\talloca.u64 %rd4, %rd3;";
        let e = run(engine, "sm_80", body, 1, &[0; 4], 4).unwrap_err();
        assert!(
            matches!(&e, Error::Launch(l) if l.kind == FaultKind::StackOverflow),
            "{e}"
        );
        // stackrestore past the stack: no stacksave gives it.
        let body = "\tmov.u64 %rd3, 0x100000000;\n\tstackrestore.u64 %rd3;";
        match run(engine, "sm_80", body, 1, &[0; 4], 4) {
            Err(Error::Launch(e)) => {
                assert_eq!(e.kind, FaultKind::IllegalAddress, "{engine:?}: {e}");
                assert!(e.location.contains("t.ptx:15:"), "{engine:?}: {e}");
            }
            other => panic!("{engine:?}: {other:?}"),
        }
    }
}

#[test]
fn stack_forms_ptxas_rejects_are_errors_at_their_line() {
    let cases = [
        (
            "alloca.u64 %rd3, 16, 3;",
            "immediate power of two up to 2^23",
        ),
        (
            "alloca.u64 %rd3, 16, 16777216;",
            "immediate power of two up to 2^23",
        ),
        (
            "alloca.u64 %rd3, 16, %r1;",
            "immediate power of two up to 2^23",
        ),
        (
            "alloca.b64 %rd3, 16;",
            "the form is `alloca.u32` or `alloca.u64`",
        ),
        ("alloca.u64 %rd3;", "takes 2 to 3 operands"),
        ("stacksave.u64 %rd3, %rd4;", "takes 1 operands"),
        (
            "stacksave.global.u64 %rd3;",
            "`stacksave.u32` or `stacksave.u64`",
        ),
        ("stackrestore.u64 7;", "takes a register"),
    ];
    for (form, want) in cases {
        let err = run(Engine::Interp, "sm_80", &format!("\t{form}"), 1, &[0; 4], 4)
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{form}: {err}");
        assert!(err.contains("t.ptx:14:"), "{form}: {err}");
    }
}

/// Every lane loads its f32 from `in` and runs the `.f32` reductions over
/// the warp and over its half-warp; out (8 words a lane): min, max,
/// min.abs, max.abs, min.NaN, max.abs.NaN, then the half-warp's min and
/// max.NaN.
const REDUX_F32: &str = "\tmov.u32 %r1, %tid.x;\n\
    \tmul.wide.u32 %rd3, %r1, 4;\n\
    \tadd.u64 %rd4, %rd1, %rd3;\n\
    \tld.global.f32 %f1, [%rd4];\n\
    \tredux.sync.min.f32 %f2, %f1, 0xffffffff;\n\
    \tredux.sync.max.f32 %f3, %f1, 0xffffffff;\n\
    \tredux.sync.min.abs.f32 %f4, %f1, 0xffffffff;\n\
    \tredux.sync.max.abs.f32 %f5, %f1, 0xffffffff;\n\
    \tredux.sync.min.NaN.f32 %f6, %f1, 0xffffffff;\n\
    \tredux.sync.max.abs.NaN.f32 %f7, %f1, 0xffffffff;\n\
    \tsetp.lt.u32 %p1, %r1, 16;\n\
    \tselp.b32 %r2, 0xffff, 0xffff0000, %p1;\n\
    \tredux.sync.min.f32 %f8, %f1, %r2;\n\
    \tredux.sync.max.NaN.f32 %f9, %f1, %r2;\n\
    \tmul.wide.u32 %rd5, %r1, 32;\n\
    \tadd.u64 %rd5, %rd2, %rd5;\n\
    \tst.global.v4.f32 [%rd5], {%f2, %f3, %f4, %f5};\n\
    \tst.global.v4.f32 [%rd5+16], {%f6, %f7, %f8, %f9};";

fn redux_f32(engine: Engine, input: &[u32; 32]) -> Vec<[u32; 8]> {
    let out = words(&run(engine, "sm_100a", REDUX_F32, 32, &bytes(input), 32 * 32).unwrap());
    out.chunks(8).map(|c| c.try_into().unwrap()).collect()
}

#[test]
fn redux_f32_orders_signed_zeros_and_skips_or_propagates_nans() {
    const NAN: u32 = 0x7FFF_FFFF;
    let b = |x: f32| x.to_bits();
    // Lanes 0-15: signed zeros, subnormals of both signs; 16-31: a NaN,
    // -8 and 9.
    let mut input = [b(0.5); 32];
    input[..16].copy_from_slice(&[
        b(0.0),
        b(-0.0),
        b(1.5),
        b(-2.5),
        0x8000_0001,
        b(3.0),
        b(-0.0),
        b(2.0),
        b(0.25),
        b(-1.0),
        b(10.0),
        0x0000_0001,
        b(4.0),
        b(5.0),
        b(6.0),
        b(7.0),
    ]);
    input[16..21].copy_from_slice(&[0x7FC0_0000, b(1.0), b(-8.0), b(0.0), b(9.0)]);
    let whole = [b(-8.0), b(10.0), 0, b(10.0), NAN, NAN];
    // Only signed zeros: +0 > -0, and `.abs` makes every one +0.
    let zeros: [u32; 32] = std::array::from_fn(|l| if l % 3 == 1 { 0x8000_0000 } else { 0 });
    // Only NaNs (quiet and signalling, either sign): the canonical NaN.
    let nans: [u32; 32] = std::array::from_fn(|l| [0x7FC0_0000, 0xFF80_0001, 0x7FA0_0000][l % 3]);
    for engine in ENGINES {
        let out = redux_f32(engine, &input);
        for (l, w) in out.iter().enumerate() {
            assert_eq!(w[..6], whole, "{engine:?} lane {l}");
            let half = if l < 16 {
                [b(-2.5), b(10.0)]
            } else {
                [b(-8.0), NAN]
            };
            assert_eq!(w[6..], half, "{engine:?} lane {l}");
        }
        for w in redux_f32(engine, &zeros) {
            assert_eq!(
                w,
                [0x8000_0000, 0, 0, 0, 0x8000_0000, 0, 0x8000_0000, 0],
                "{engine:?}"
            );
        }
        for w in redux_f32(engine, &nans) {
            assert_eq!(w, [NAN; 8], "{engine:?}");
        }
    }
}

#[test]
fn redux_f32_forms_ptxas_rejects_are_errors_at_their_line() {
    let cases = [
        (
            "redux.sync.add.f32 %f1, %f2, -1;",
            "`.min` or `.max` on `.f32`",
        ),
        (
            "redux.sync.min.f64 %rd1, %rd2, -1;",
            "`.min` or `.max` on `.f32`",
        ),
        (
            "redux.sync.min.ftz.f32 %f1, %f2, -1;",
            "`.ftz` is not a modifier",
        ),
        (
            "redux.sync.min.abs.u32 %r1, %r2, -1;",
            "`.abs` and `.NaN` are for `.f32` only",
        ),
        (
            "redux.sync.max.NaN.s32 %r1, %r2, -1;",
            "`.abs` and `.NaN` are for `.f32` only",
        ),
    ];
    for (form, want) in cases {
        let err = run(
            Engine::Interp,
            "sm_100a",
            &format!("\t{form}"),
            1,
            &[0; 4],
            4,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains(want), "{form}: {err}");
        assert!(err.contains("t.ptx:14:"), "{form}: {err}");
    }
}

#[test]
fn brkpt_stops_the_kernel_with_a_breakpoint_fault_naming_its_line() {
    let body = |tid: u32| {
        format!(
            "\tmov.u32 %r1, %tid.x;\n\
             \tsetp.eq.u32 %p1, %r1, {tid};\n\
             \t@%p1 brkpt;\n\
             \tst.global.u32 [%rd2], 1;"
        )
    };
    for engine in ENGINES {
        match run(engine, "sm_80", &body(37), 64, &[0; 4], 4) {
            Err(Error::Launch(e)) => {
                assert_eq!(e.kind, FaultKind::Breakpoint, "{engine:?}: {e}");
                assert_eq!(e.kind.name(), "breakpoint");
                assert!(e.location.contains("t.ptx:16:"), "{engine:?}: {e}");
                assert!(e.message.contains("brkpt"), "{engine:?}: {e}");
                assert_eq!(
                    (e.kernel.as_str(), e.thread),
                    ("k", [37, 0, 0]),
                    "{engine:?}"
                );
            }
            other => panic!("{engine:?}: {other:?}"),
        }
        // A brkpt no thread reaches changes nothing.
        let out = words(&run(engine, "sm_80", &body(99), 64, &[0; 4], 4).unwrap());
        assert_eq!(out, [1], "{engine:?}");
    }
}

#[test]
fn cp_async_ignore_src_zero_fills_without_reading_the_source() {
    // Lanes 0 and 1 copy 16 bytes with `p` (false, true), lanes 2 and 3 of
    // each four copy 8 bytes with `!q` and a cache hint (ignored, copied);
    // the ignored lanes' source is an address nothing maps, which a read
    // would fault on. The tile starts all ones.
    let body = "\t.shared .align 16 .b8 tile[512];\n\
                \tmov.u32 %r1, %tid.x;\n\
                \tshl.b32 %r2, %r1, 4;\n\
                \tmov.u32 %r3, tile;\n\
                \tadd.u32 %r3, %r3, %r2;\n\
                \tmov.u32 %r9, -1;\n\
                \tst.shared.v4.u32 [%r3], {%r9, %r9, %r9, %r9};\n\
                \tbar.sync 0;\n\
                \tcvt.u64.u32 %rd3, %r2;\n\
                \tadd.u64 %rd4, %rd1, %rd3;\n\
                \tand.b32 %r4, %r1, 3;\n\
                \tsetp.eq.u32 %p1, %r4, 1;\n\
                \tsetp.ne.u32 %p2, %r4, 2;\n\
                \tsetp.lt.u32 %p3, %r4, 2;\n\
                \tsetp.eq.u32 %p4, %r4, 2;\n\
                \tor.pred %p4, %p4, %p1;\n\
                \tselp.b64 %rd5, 0xdead0000, %rd4, %p4;\n\
                \tmov.b64 %rd6, 0;\n\
                \t@%p3 cp.async.cg.shared.global [%r3], [%rd5], 16, %p1;\n\
                \t@!%p3 cp.async.ca.shared.global.L2::cache_hint [%r3], [%rd5], 8, !%p2, %rd6;\n\
                \tcp.async.commit_group;\n\
                \tcp.async.wait_group 0;\n\
                \tbar.sync 0;\n\
                \tld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r3];\n\
                \tadd.u64 %rd7, %rd2, %rd3;\n\
                \tst.global.v4.u32 [%rd7], {%r10, %r11, %r12, %r13};";
    let input: Vec<u32> = (0..128).map(|i| 0x1000 + i * 7).collect();
    let mut want = Vec::new();
    for t in 0..32usize {
        let w = &input[4 * t..4 * t + 4];
        want.extend_from_slice(&match t % 4 {
            0 => [w[0], w[1], w[2], w[3]],
            1 => [0; 4],
            2 => [0, 0, !0, !0],
            _ => [w[0], w[1], !0, !0],
        });
    }
    for engine in ENGINES {
        let out = run(engine, "sm_80", body, 32, &bytes(&input), 512).unwrap();
        assert_eq!(words(&out), want, "{engine:?}");
    }
}

/// An immediate `cp.async` source size beyond the copy size is refused at
/// load, naming its line, as ptxas refuses it ("value '8' out of range,
/// expected to be in range [0..4]"); up to the copy size it runs.
#[test]
fn cp_async_immediate_source_size_beyond_the_copy_is_refused() {
    let body = |sizes: &str| {
        format!(
            "\t.shared .align 16 .b8 tile[64];\n\
             \tmov.u32 %r1, tile;\n\
             \tcp.async.ca.shared.global [%r1], [%rd1], {sizes};\n\
             \tcp.async.wait_all;"
        )
    };
    for (sizes, bad) in [
        ("4, 8", Some(8)),
        ("16, 17", Some(17)),
        ("4, 4", None),
        ("8, 0", None),
    ] {
        let r = run(Engine::Interp, "sm_80", &body(sizes), 1, &[0; 16], 4);
        match bad {
            Some(v) => {
                let err = r.unwrap_err().to_string();
                let size = sizes.split(',').next().unwrap();
                let want =
                    format!("cp.async source size {v} is out of range: 0 to the copy size {size}");
                assert!(err.contains(&want), "{sizes}: {err}");
                assert!(err.contains("t.ptx:16:"), "{sizes}: {err}");
            }
            None => {
                r.unwrap();
            }
        }
    }
}
