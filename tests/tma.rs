//! The tensor memory accelerator through the CLI on both engines, in the
//! forms the corpus sample (`ptx-samples/cuda/tma_copy`: tile loads and
//! stores, 128B swizzle, zero fill) does not reach: a reduction into global
//! memory with element strides and an out-of-bounds row, a descriptor
//! copied to shared memory, its address replaced, copied back with
//! `tensormap.cp_fenceproxy` and used from global memory, every other
//! field of it replaced (PTX ISA §9.7.9.26's encodings), and the faults
//! (bytes that are no tensor map, a misaligned or out-of-window shared box)
//! reported with their line, never a crash.

#[path = "common/hostile.rs"]
#[allow(dead_code)]
mod hostile;

use hostile::{assert_no_crash, run, scratch, stderr, write_ptx};

const HEADER: &str = ".version 8.0\n.target sm_90a\n.address_size 64\n\n";
const ENGINES: [&[&str]; 2] = [&[], &["--engine", "interp"]];

fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn read_u32s(p: &std::path::Path) -> Vec<u32> {
    std::fs::read(p)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Thread 0 loads the box at (3, 3) of `tmA` (u32 16x4, box 8x2, element
/// strides 2, 1: columns 3, 5, 7, 9 of row 3, and row 4, outside) and adds
/// it into `b` through `tmB` with `cp.reduce.async.bulk.tensor .add`.
const REDUCE: &str = "\
.visible .entry k(.param .u64 a, .param .u64 b, .param .align 64 .b8 tmA[128], .param .align 64 .b8 tmB[128])
{
\t.reg .pred %p<3>;
\t.reg .b32 %r<8>;
\t.reg .b64 %rd<4>;
\t.shared .align 128 .b8 buf[256];
\t.shared .align 8 .b64 bar;
\tmov.u32 %r1, %tid.x;
\tsetp.ne.u32 %p1, %r1, 0;
\t@%p1 bra DONE;
\tmov.u32 %r2, buf;
\tmov.u32 %r3, bar;
\tmov.u64 %rd1, tmA;
\tcvta.param.u64 %rd1, %rd1;
\tmov.u64 %rd2, tmB;
\tcvta.param.u64 %rd2, %rd2;
\tmbarrier.init.shared.b64 [%r3], 1;
\tmbarrier.arrive.expect_tx.shared.b64 %rd3, [%r3], 32;
\tmov.u32 %r4, 3;
\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd1, {%r4, %r4}], [%r3];
WAIT:
\tmbarrier.try_wait.parity.shared.b64 %p2, [%r3], 0;
\t@!%p2 bra WAIT;
\tcp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd2, {%r4, %r4}], [%r2];
\tcp.async.bulk.commit_group;
\tcp.async.bulk.wait_group 0;
DONE:
\tret;
}
";

#[test]
fn a_reduction_with_element_strides_adds_the_in_bounds_elements() {
    let path = write_ptx("tma-reduce", "k.ptx", &format!("{HEADER}{REDUCE}"));
    let dir = scratch("tma-reduce");
    let a: Vec<u32> = (0..64).collect();
    std::fs::write(dir.join("a.bin"), u32s(&a)).unwrap();
    std::fs::write(dir.join("b.bin"), u32s(&[1000; 64])).unwrap();
    let mut want = vec![1000u32; 64];
    for x in [3, 5, 7, 9] {
        want[3 * 16 + x] += a[3 * 16 + x];
    }
    for (i, mode) in ENGINES.iter().enumerate() {
        let out = dir.join(format!("b{i}.out"));
        let inout = format!("inout:{}:{}", dir.join("b.bin").display(), out.display());
        let mut args = vec![
            "--grid".to_string(),
            "1".into(),
            "--block".into(),
            "32".into(),
            "--arg".into(),
            format!("in:{}", dir.join("a.bin").display()),
            "--arg".into(),
            inout,
            "--arg".into(),
            "tmap:0:u32:16x4:8x2:estride=2,1".into(),
            "--arg".into(),
            "tmap:1:u32:16x4:8x2:estride=2,1".into(),
        ];
        args.extend(mode.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        let o = run(&path, &args);
        assert!(o.status.success(), "{mode:?}: {}", stderr(&o));
        assert_eq!(read_u32s(&out), want, "{mode:?}");
    }
}

/// Thread 0 copies the parameter `tm` (a map over `a`) into shared memory
/// through the register `mov` gives, points it at `b` with
/// `tensormap.replace`, publishes it to `scratch` with
/// `tensormap.cp_fenceproxy`, and loads the 4x2 box at (0, 0) through it.
const REPLACE: &str = "\
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 scratch, .param .u64 out, .param .align 64 .b8 tm[128])
{
\t.reg .pred %p<4>;
\t.reg .b32 %r<12>;
\t.reg .b64 %rd<16>;
\t.shared .align 128 .b8 desc[128];
\t.shared .align 128 .b8 buf[256];
\t.shared .align 8 .b64 bar;
\tmov.u32 %r1, %tid.x;
\tsetp.ne.u32 %p1, %r1, 0;
\t@%p1 bra DONE;
\tmov.u64 %rd1, tm;
\tmov.u32 %r2, desc;
\tmov.u32 %r6, 0;
COPY:
\tcvt.u64.u32 %rd2, %r6;
\tadd.u64 %rd3, %rd1, %rd2;
\tld.param.u64 %rd4, [%rd3];
\tadd.u32 %r7, %r2, %r6;
\tst.shared.u64 [%r7], %rd4;
\tadd.u32 %r6, %r6, 8;
\tsetp.lt.u32 %p2, %r6, 128;
\t@%p2 bra COPY;
\tld.param.u64 %rd5, [b];
\ttensormap.replace.tile.global_address.shared::cta.b1024.b64 [desc], %rd5;
\tld.param.u64 %rd6, [scratch];
\ttensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd6], [desc], 128;
\tfence.proxy.tensormap::generic.acquire.gpu [%rd6], 128;
\tmov.u32 %r3, buf;
\tmov.u32 %r4, bar;
\tmbarrier.init.shared.b64 [%r4], 1;
\tmbarrier.arrive.expect_tx.shared.b64 %rd7, [%r4], 32;
\tmov.u32 %r5, 0;
\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd6, {%r5, %r5}], [%r4];
WAIT:
\tmbarrier.try_wait.parity.shared.b64 %p3, [%r4], 0;
\t@!%p3 bra WAIT;
\tld.param.u64 %rd8, [out];
\tld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [buf];
\tst.global.v4.u32 [%rd8], {%r8, %r9, %r10, %r11};
\tld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [buf+16];
\tst.global.v4.u32 [%rd8+16], {%r8, %r9, %r10, %r11};
DONE:
\tret;
}
";

#[test]
fn a_replaced_descriptor_published_with_cp_fenceproxy_reads_the_new_tensor() {
    for mode in ENGINES {
        let (o, words) = run_replace("tma-replace", REPLACE, mode, 32);
        assert!(o.status.success(), "{mode:?}: {}", stderr(&o));
        assert_eq!(words, [500, 501, 502, 503, 516, 517, 518, 519], "{mode:?}");
    }
}

/// Thread 0 loads a box of `tm` to `buf + off` (line 21).
const FAULT: &str = "\
.visible .entry k(.param .u64 a, .param .align 64 .b8 tm[128], .param .u32 off)
{
\t.reg .b32 %r<8>;
\t.reg .b64 %rd<4>;
\t.reg .pred %p<2>;
\t.shared .align 128 .b8 buf[64];
\t.shared .align 8 .b64 bar;
\tmov.u32 %r1, %tid.x;
\tsetp.ne.u32 %p1, %r1, 0;
\t@%p1 bra DONE;
\tmov.u32 %r2, buf;
\tld.param.u32 %r5, [off];
\tadd.u32 %r2, %r2, %r5;
\tmov.u32 %r3, bar;
\tmov.u64 %rd1, tm;
\tmov.u32 %r4, 0;
\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd1, {%r4, %r4}], [%r3];
DONE:
\tret;
}
";

#[test]
fn bad_descriptors_and_shared_boxes_are_faults_at_the_line() {
    let path = write_ptx("tma-fault", "k.ptx", &format!("{HEADER}{FAULT}"));
    let dir = scratch("tma-fault");
    std::fs::write(dir.join("a.bin"), vec![0u8; 1024]).unwrap();
    std::fs::write(dir.join("zero.bin"), vec![0u8; 128]).unwrap();
    let a = format!("in:{}", dir.join("a.bin").display());
    let zero = format!("bytes:{}", dir.join("zero.bin").display());
    let cases = [
        (zero.as_str(), "u32:0", "bad tensor map"),
        ("tmap:0:u32:16x16:4x2", "u32:16", "misaligned"),
        (
            "tmap:0:u32:16x16:16x16",
            "u32:0",
            "illegal address: 4-byte shared access",
        ),
    ];
    for mode in ENGINES {
        for (tm, off, want) in cases {
            let mut args = vec!["--grid", "1", "--block", "32", "--arg", &a, "--arg", tm];
            args.extend(["--arg", off]);
            args.extend_from_slice(mode);
            let o = run(&path, &args);
            assert_no_crash(&o, want);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(1), "{mode:?} {tm}: {err}");
            assert!(err.contains(want), "{mode:?} {tm}: {err}");
            assert!(err.contains("k.ptx:21:"), "{mode:?} {tm}: {err}");
        }
    }
}

/// Thread 0 loads the 4x2x2 box at (0, 2, 1) of a 4x3x2 f32 tensor with
/// the NaN fill (one row inside, the rest outside) and stores the 16
/// elements with a 1-D tensor store to `out`.
const RANKS: &str = "\
.visible .entry k(.param .u64 a, .param .u64 out, .param .align 64 .b8 tm3[128], .param .align 64 .b8 tm1[128])
{
\t.reg .pred %p<3>;
\t.reg .b32 %r<8>;
\t.reg .b64 %rd<4>;
\t.shared .align 128 .b8 buf[64];
\t.shared .align 8 .b64 bar;
\tmov.u32 %r1, %tid.x;
\tsetp.ne.u32 %p1, %r1, 0;
\t@%p1 bra DONE;
\tmov.u32 %r2, buf;
\tmov.u32 %r3, bar;
\tmov.u64 %rd1, tm3;
\tmov.u64 %rd2, tm1;
\tmbarrier.init.shared.b64 [%r3], 1;
\tmbarrier.arrive.expect_tx.shared.b64 %rd3, [%r3], 64;
\tmov.u32 %r4, 0;
\tmov.u32 %r5, 2;
\tmov.u32 %r6, 1;
\tcp.async.bulk.tensor.3d.shared::cta.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [%r2], [%rd1, {%r4, %r5, %r6}], [%r3], %rd3;
\tcp.async.bulk.prefetch.tensor.3d.L2.global.tile [%rd1, {%r4, %r5, %r6}];
WAIT:
\tmbarrier.try_wait.parity.shared.b64 %p2, [%r3], 0;
\t@!%p2 bra WAIT;
\tcp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%rd2, {%r4}], [%r2];
DONE:
\tret;
}
";

#[test]
fn a_3d_box_with_the_nan_fill_and_a_1d_store() {
    let path = write_ptx("tma-ranks", "k.ptx", &format!("{HEADER}{RANKS}"));
    let dir = scratch("tma-ranks");
    let a: Vec<u8> = (0..24).flat_map(|i| (i as f32).to_le_bytes()).collect();
    std::fs::write(dir.join("a.bin"), a).unwrap();
    let mut want = vec![0x7fff_ffffu32; 16];
    for (x, w) in want.iter_mut().take(4).enumerate() {
        *w = (20.0 + x as f32).to_bits();
    }
    for (i, mode) in ENGINES.iter().enumerate() {
        let out = dir.join(format!("o{i}.bin"));
        let mut args = vec![
            "--grid".to_string(),
            "1".into(),
            "--block".into(),
            "32".into(),
            "--arg".into(),
            format!("in:{}", dir.join("a.bin").display()),
            "--arg".into(),
            format!("out:64:{}", out.display()),
            "--arg".into(),
            "tmap:0:f32:4x3x2:4x2x2:nan".into(),
            "--arg".into(),
            "tmap:1:f32:16:16".into(),
        ];
        args.extend(mode.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        let o = run(&path, &args);
        assert!(o.status.success(), "{mode:?}: {}", stderr(&o));
        assert_eq!(read_u32s(&out), want, "{mode:?}");
    }
}

#[test]
fn im2col_is_refused_at_its_line() {
    // (Multicast loads execute: `cuda/bulk_multicast`, `tests/cluster.rs`.)
    let cases = [(
        "cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r1}], [%r1], {%rs1};",
        "(im2col and gather modes; only `.tile` executes)",
    )];
    for (i, (line, want)) in cases.iter().enumerate() {
        let text = format!(
            "{HEADER}.visible .entry k(.param .u64 p)\n{{\n\t.reg .b32 %r<2>;\n\t.reg .b16 %rs<2>;\n\t.reg .b64 %rd<2>;\n\t{line}\n\tret;\n}}\n"
        );
        let path = write_ptx("tma-refused", &format!("k{i}.ptx"), &text);
        let o = run(&path, &["--grid", "1", "--block", "32", "--arg", "u64:0"]);
        assert_no_crash(&o, want);
        let err = stderr(&o);
        assert!(!o.status.success(), "{line}: {err}");
        assert!(err.contains("unsupported:"), "{line}: {err}");
        assert!(err.contains(want), "{line}: {err}");
        assert!(err.contains(&format!("k{i}.ptx:10:")), "{line}: {err}");
    }
}

/// The replacements after the address: a 2-D map over `b` as 8x6 rows of
/// 32 bytes (`.rank` is the rank less one, `.global_stride` ordinal 0 is
/// dimension 1's byte stride), a box of 8x3 with element strides 2, 1,
/// `.elemtype` 7 (`.f32`) with the NaN fill, no swizzle, interleave or
/// atomicity; the box at (4, 4) holds columns 4, 6 (8, 10 outside) of rows
/// 4, 5 (6 outside).
const REPLACED_FIELDS: &str = "\
\ttensormap.replace.tile.rank.shared::cta.b1024.b32 [desc], 1;
\ttensormap.replace.tile.global_dim.shared::cta.b1024.b32 [desc], 0, 8;
\tmov.u32 %r8, 6;
\ttensormap.replace.tile.global_dim.shared::cta.b1024.b32 [desc], 1, %r8;
\tmov.u64 %rd9, 32;
\ttensormap.replace.tile.global_stride.shared::cta.b1024.b64 [desc], 0, %rd9;
\ttensormap.replace.tile.box_dim.shared::cta.b1024.b32 [desc], 0, 8;
\ttensormap.replace.tile.box_dim.shared::cta.b1024.b32 [desc], 1, 3;
\ttensormap.replace.tile.element_stride.shared::cta.b1024.b32 [desc], 0, 2;
\ttensormap.replace.tile.elemtype.shared::cta.b1024.b32 [desc], 7;
\ttensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [desc], 1;
\ttensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [desc], 0;
\ttensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [desc], 0;
\ttensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32 [desc], 0;
";

/// `REPLACE` with `extra` after its address replacement, loading the box
/// at (4, 4) of `box_bytes` bytes and writing 48 bytes of it out.
fn replace_kernel(extra: &str, box_bytes: u32) -> String {
    let line = "\ttensormap.replace.tile.global_address.shared::cta.b1024.b64 [desc], %rd5;\n";
    REPLACE
        .replace(line, &format!("{line}{extra}"))
        .replace("[%r4], 32;", &format!("[%r4], {box_bytes};"))
        .replace("mov.u32 %r5, 0;", "mov.u32 %r5, 4;")
        .replace(
            "DONE:",
            "\tld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [buf+32];\n\
             \tst.global.v4.u32 [%rd8+32], {%r8, %r9, %r10, %r11};\nDONE:",
        )
}

/// Runs `text` (after the header) on one block of 32 threads with two
/// 64-word inputs, a scratch buffer, `out_bytes` of output and a 16x4 u32
/// tensor map of 4x2 boxes over the first input; the output words when it
/// succeeds.
fn run_replace(
    name: &str,
    text: &str,
    mode: &[&str],
    out_bytes: usize,
) -> (std::process::Output, Vec<u32>) {
    let path = write_ptx(name, "k.ptx", &format!("{HEADER}{text}"));
    let dir = scratch(name);
    std::fs::write(dir.join("a.bin"), u32s(&(0..64).collect::<Vec<_>>())).unwrap();
    std::fs::write(dir.join("b.bin"), u32s(&(500..564).collect::<Vec<_>>())).unwrap();
    let out = dir.join("o.bin");
    let mut args = vec![
        "--grid".to_string(),
        "1".into(),
        "--block".into(),
        "32".into(),
        "--arg".into(),
        format!("in:{}", dir.join("a.bin").display()),
        "--arg".into(),
        format!("in:{}", dir.join("b.bin").display()),
        "--arg".into(),
        format!("out:128:{}", dir.join("scratch.bin").display()),
        "--arg".into(),
        format!("out:{out_bytes}:{}", out.display()),
        "--arg".into(),
        "tmap:0:u32:16x4:4x2".into(),
    ];
    args.extend(mode.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let o = run(&path, &args);
    let words = if o.status.success() {
        read_u32s(&out)
    } else {
        vec![]
    };
    (o, words)
}

#[test]
fn every_replaced_field_is_what_the_tensor_copy_follows() {
    const NAN: u32 = 0x7fff_ffff;
    let b = |row: u32, col: u32| 500 + row * 8 + col;
    let want = [
        b(4, 4),
        b(4, 6),
        NAN,
        NAN,
        b(5, 4),
        b(5, 6),
        NAN,
        NAN,
        NAN,
        NAN,
        NAN,
        NAN,
    ];
    for mode in ENGINES {
        let (o, words) = run_replace("tma-fields", &replace_kernel(REPLACED_FIELDS, 48), mode, 48);
        assert!(o.status.success(), "{mode:?}: {}", stderr(&o));
        assert_eq!(words, want, "{mode:?}");
    }
}

#[test]
fn replaced_values_the_descriptor_cannot_hold_are_faults_at_their_line() {
    // Line 30 of the kernel is the first replacement after the address's.
    let cases = [
        (
            "box_dim.shared::cta.b1024.b32 [desc], 0, 300",
            "box_dim 300 (1 to 256)",
        ),
        ("rank.shared::cta.b1024.b32 [desc], 5", "rank 5"),
        (
            "global_stride.shared::cta.b1024.b64 [desc], 0, 24",
            "global_stride 24",
        ),
        ("elemtype.shared::cta.b1024.b32 [desc], 13", "packed types"),
        (
            "interleave_layout.shared::cta.b1024.b32 [desc], 1",
            "interleaved",
        ),
        ("swizzle_mode.shared::cta.b1024.b32 [desc], 4", "96B"),
    ];
    for mode in ENGINES {
        for (form, want) in cases {
            let extra = format!("\ttensormap.replace.tile.{form};\n");
            let (o, _) = run_replace("tma-field-faults", &replace_kernel(&extra, 48), mode, 48);
            assert_no_crash(&o, want);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(1), "{mode:?} {form}: {err}");
            assert!(err.contains("bad_tensor_map"), "{mode:?} {form}: {err}");
            assert!(err.contains(want), "{mode:?} {form}: {err}");
            assert!(err.contains("k.ptx:30:"), "{mode:?} {form}: {err}");
        }
    }
    // Swizzle atomicity other than 16B is kept, and refused when a copy uses it.
    let extra = "\ttensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32 [desc], 1;\n";
    let (o, _) = run_replace(
        "tma-field-faults",
        &replace_kernel(extra, 48),
        ENGINES[0],
        48,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("swizzle atomicity 1"), "{err}");
}
