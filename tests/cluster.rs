//! Thread-block clusters (sm_90) through the CLI on both engines: the
//! cluster special registers with and without `--cluster`, distributed
//! shared memory (`mapa`, `getctarank`, `ld`/`red` on `.shared::cluster`),
//! `barrier.cluster` (in a cluster and alone in a 1x1x1 one, timed too),
//! its deadlock report, faults at out-of-cluster ranks and offsets,
//! `elect.sync`, refused launches and refused forms at their line. The
//! cooperative-groups sample is `cuda/cluster_dsmem`.

#[path = "common/hostile.rs"]
#[allow(dead_code)]
mod hostile;

use hostile::{assert_no_crash, run, scratch, stderr, write_ptx};

const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\n";
const ENGINES: [&[&str]; 2] = [&["--engine", "jit"], &["--engine", "interp"]];

fn module(body: &str) -> String {
    format!("{HEADER}.visible .entry k(.param .u64 out)\n{{\n{body}\n}}\n")
}

/// Runs `ptx` with `args` on each engine, returning the `bytes` of output.
fn run_out(test: &str, ptx: &str, args: &[&str], bytes: usize) -> Vec<Vec<u32>> {
    let path = write_ptx(test, "k.ptx", ptx);
    let out_path = scratch(test).join("out.bin");
    ENGINES
        .iter()
        .map(|engine| {
            let spec = format!("out:{bytes}:{}", out_path.display());
            let mut all = args.to_vec();
            all.extend_from_slice(engine);
            all.extend_from_slice(&["--arg", &spec]);
            let out = run(&path, &all);
            assert!(out.status.success(), "{engine:?}: {}", stderr(&out));
            std::fs::read(&out_path)
                .unwrap()
                .chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect()
        })
        .collect()
}

const SPECIALS: &str = "\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<2>;\n\
    \tld.param.u64 %rd1, [out];\n\
    \tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %ctaid.y;\n\tmov.u32 %r3, %nctaid.x;\n\
    \tmad.lo.u32 %r4, %r2, %r3, %r1;\n\tmul.wide.u32 %rd2, %r4, 48;\n\tadd.u64 %rd3, %rd1, %rd2;\n\
    \tmov.u32 %r5, %clusterid.x;\n\tmov.u32 %r6, %clusterid.y;\n\
    \tmov.u32 %r7, %nclusterid.x;\n\tmov.u32 %r8, %nclusterid.y;\n\
    \tmov.u32 %r9, %cluster_ctaid.x;\n\tmov.u32 %r10, %cluster_ctaid.y;\n\
    \tmov.u32 %r11, %cluster_nctaid.x;\n\tmov.u32 %r12, %cluster_ctarank;\n\
    \tmov.u32 %r13, %cluster_nctarank;\n\tmov.pred %p1, %is_explicit_cluster;\n\
    \tselp.u32 %r14, 1, 0, %p1;\n\
    \tst.global.v4.u32 [%rd3], {%r5, %r6, %r7, %r8};\n\
    \tst.global.v4.u32 [%rd3+16], {%r9, %r10, %r11, %r12};\n\
    \tst.global.v2.u32 [%rd3+32], {%r13, %r14};\n\tret;";

#[test]
fn cluster_special_registers_with_and_without_clusters() {
    let ptx = module(SPECIALS);
    for out in run_out(
        "cl-special",
        &ptx,
        &["--grid", "4,2", "--block", "1", "--cluster", "2,2"],
        384,
    ) {
        for y in 0..2u32 {
            for x in 0..4u32 {
                let i = ((y * 4 + x) * 12) as usize;
                let want = [
                    x / 2,
                    y / 2,
                    2,
                    1,
                    x % 2,
                    y % 2,
                    2,
                    x % 2 + 2 * (y % 2),
                    4,
                    1,
                ];
                assert_eq!(out[i..i + 10], want, "CTA ({x}, {y})");
            }
        }
    }
    // Without clusters every CTA is a cluster of one, not explicit.
    for out in run_out("cl-special1", &ptx, &["--grid", "4,2", "--block", "1"], 384) {
        for y in 0..2u32 {
            for x in 0..4u32 {
                let i = ((y * 4 + x) * 12) as usize;
                assert_eq!(out[i..i + 10], [x, y, 4, 2, 0, 0, 1, 0, 1, 0]);
            }
        }
    }
}

/// Each CTA of a cluster of 2 writes `rank * 100 + tid` to its shared
/// word `tid`, reads its neighbour's through `mapa.shared::cluster`, adds
/// 1000 to the neighbour's word `32 + tid` with `red.shared::cluster`, and
/// records (neighbour's value, getctarank of both addresses, its own word
/// `32 + tid` after the second cluster barrier). Line 23: the remote load.
const DSMEM: &str = "\t.shared .align 4 .b8 smem[256];\n\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<8>;\n\
    \tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %cluster_ctarank;\n\
    \tmov.u32 %r3, %ctaid.x;\n\tshl.b32 %r4, %r1, 2;\n\tmov.u32 %r5, smem;\n\
    \tadd.u32 %r6, %r5, %r4;\n\tmad.lo.u32 %r7, %r2, 100, %r1;\n\tst.shared.u32 [%r6], %r7;\n\
    \tbarrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;\n\
    \txor.b32 %r8, %r2, 1;\n\tmapa.shared::cluster.u32 %r9, %r6, %r8;\n\
    \tld.shared::cluster.u32 %r10, [%r9+OFFSET];\n\
    \tgetctarank.shared::cluster.u32 %r11, %r9;\n\tgetctarank.shared::cluster.u32 %r12, %r6;\n\
    \tred.shared::cluster.add.u32 [%r9+128], 1000;\n\
    \tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n\tld.shared.u32 %r13, [%r6+128];\n\
    \tmad.lo.u32 %r14, %r3, 32, %r1;\n\tmul.wide.u32 %rd2, %r14, 16;\n\tadd.u64 %rd3, %rd1, %rd2;\n\
    \tst.global.v4.u32 [%rd3], {%r10, %r11, %r12, %r13};\n\
    \tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n\tret;";

#[test]
fn distributed_shared_memory_reaches_the_neighbour() {
    let ptx = module(&DSMEM.replace("OFFSET", "0"));
    let args = ["--grid", "4", "--block", "32", "--cluster", "2"];
    for out in run_out("cl-dsmem", &ptx, &args, 2048) {
        for cta in 0..4u32 {
            let (rank, other) = (cta % 2, (cta % 2) ^ 1);
            for t in 0..32u32 {
                let i = ((cta * 32 + t) * 4) as usize;
                assert_eq!(out[i..i + 4], [other * 100 + t, other, rank, 1000]);
            }
        }
    }
}

#[test]
fn out_of_cluster_ranks_and_offsets_fault_at_the_access() {
    let cases = [
        // A rank outside a cluster of one (no --cluster).
        ("0", &[][..], "cluster rank 1: the cluster has 1 CTA(s)"),
        // Past the 256 bytes of the neighbour's shared memory.
        (
            "256",
            &["--cluster", "2"][..],
            "offset 0x100 of the shared memory of cluster rank 1",
        ),
    ];
    for (offset, extra, why) in cases {
        let path = write_ptx(
            "cl-fault",
            "k.ptx",
            &module(&DSMEM.replace("OFFSET", offset)),
        );
        let spec = format!("out:2048:{}", scratch("cl-fault").join("o.bin").display());
        for engine in ENGINES {
            let mut args = vec!["--grid", "4", "--block", "32", "--arg", &spec];
            args.extend_from_slice(extra);
            args.extend_from_slice(engine);
            let out = run(&path, &args);
            assert_no_crash(&out, "fault");
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{err}");
            assert!(err.contains("illegal address"), "{engine:?}: {err}");
            assert!(err.contains(why), "{engine:?}: {err}");
            assert!(err.contains("block (0, 0, 0), thread (0, 0, 0)"), "{err}");
            assert!(err.contains("k.ptx:23:"), "{engine:?}: {err}");
        }
    }
}

#[test]
fn a_cluster_barrier_alone_in_a_cta_and_in_a_timed_run() {
    // Three phases; the last thread of the block arrives late each time
    // (after a loop), the others wait for it.
    let body = "\t.shared .align 4 .u32 acc;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
        \t.reg .pred %p<3>;\n\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\
        \tmov.u32 %r2, 0;\n\tsetp.eq.u32 %p1, %r1, 63;\n$L_phase:\n\t@!%p1 bra $L_arrive;\n\
        \tmov.u32 %r3, 0;\n$L_spin:\n\tadd.u32 %r3, %r3, 1;\n\tsetp.lt.u32 %p2, %r3, 100;\n\
        \t@%p2 bra $L_spin;\n\tatom.shared.add.u32 %r4, [acc], 1;\n$L_arrive:\n\
        \tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n\tld.shared.u32 %r5, [acc];\n\
        \tmul.wide.u32 %rd2, %r1, 12;\n\tadd.u64 %rd3, %rd1, %rd2;\n\tmul.wide.u32 %rd2, %r2, 4;\n\
        \tadd.u64 %rd3, %rd3, %rd2;\n\tst.global.u32 [%rd3], %r5;\n\tadd.u32 %r2, %r2, 1;\n\
        \tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n\
        \tsetp.lt.u32 %p2, %r2, 3;\n\t@%p2 bra $L_phase;\n\tret;";
    let ptx = module(body);
    let mut runs = run_out("cl-alone", &ptx, &["--grid", "1", "--block", "64"], 768);
    runs.extend(run_out(
        "cl-alone-timed",
        &ptx,
        &["--grid", "1", "--block", "64", "--timing", "sm_90"],
        768,
    ));
    for out in runs {
        for t in 0..64 {
            assert_eq!(out[t * 3..t * 3 + 3], [1, 2, 3], "thread {t}");
        }
    }
}

#[test]
fn a_cluster_barrier_that_cannot_complete_is_a_deadlock() {
    // Rank 1's warp 0 waits at `bar.sync 1, 64` for warp 1, which waits at
    // the cluster barrier (line 13) for warp 0's arrival.
    let body = "\t.reg .b32 %r<4>;\n\t.reg .pred %p<3>;\n\tmov.u32 %r1, %tid.x;\n\
        \tmov.u32 %r2, %cluster_ctarank;\n\tsetp.eq.u32 %p1, %r2, 1;\n\
        \tsetp.lt.u32 %p2, %r1, 32;\n\tand.pred %p1, %p1, %p2;\n\t@%p1 bra $L_bar;\n\
        \tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n$L_bar:\n\t@%p1 bar.sync 1, 64;\n\
        \tret;";
    let src = module(body).replace(
        "\tbarrier.cluster.wait;",
        "\tbarrier.cluster.wait;\n\tbar.sync 1, 64;",
    );
    let path = write_ptx("cl-deadlock", "k.ptx", &src);
    let spec = format!("out:8:{}", scratch("cl-deadlock").join("o.bin").display());
    for engine in ENGINES {
        let mut args = vec![
            "--grid",
            "2",
            "--block",
            "64",
            "--cluster",
            "2",
            "--arg",
            &spec,
        ];
        args.extend_from_slice(engine);
        let out = run(&path, &args);
        assert_no_crash(&out, "deadlock");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{engine:?}: {err}");
        assert!(
            err.contains("cluster barrier deadlock"),
            "{engine:?}: {err}"
        );
        assert!(
            err.contains("CTA rank 1 warp 0 at barrier 1"),
            "{engine:?}: {err}"
        );
        // Reported in the CTA of the first waiting warp: rank 0's warp 0.
        assert!(err.contains("block (0, 0, 0), thread (0, 0, 0)"), "{err}");
    } // The same in a CTA that is a cluster of its own (rank 0 skips the
      // cluster barrier): an ordinary barrier deadlock, timed too.
    let src = src.replace("%p1, %r2, 1;", "%p1, %r2, 0;");
    let path = write_ptx("cl-deadlock1", "k.ptx", &src);
    for mode in [ENGINES[0], ENGINES[1], &["--timing", "sm_90"]] {
        let mut args = vec!["--grid", "1", "--block", "64", "--arg", &spec];
        args.extend_from_slice(mode);
        let out = run(&path, &args);
        assert_no_crash(&out, "deadlock");
        let err = stderr(&out);
        assert!(err.contains("barrier deadlock"), "{mode:?}: {err}");
        assert!(
            err.contains("warp 1 at the cluster barrier"),
            "{mode:?}: {err}"
        );
    }
}

#[test]
fn elect_sync_elects_the_lowest_member_lane() {
    // Lanes 4..8 of the mask 0xf0 (and lane 9, outside it): d is the
    // leader's lane in every lane, p true in the leader alone; `_|p` too.
    let body = "\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<4>;\n\
        \tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, 16;\n\
        \tadd.u64 %rd3, %rd1, %rd2;\n\telect.sync %r2|%p1, 0xf0;\n\tselp.u32 %r3, 1, 0, %p1;\n\
        \tsetp.ge.u32 %p2, %r1, 6;\n\t@!%p2 bra $L_end;\n\telect.sync _|%p3, 0xffffffff;\n\
        \tselp.u32 %r4, 1, 0, %p3;\n\tst.global.u32 [%rd3+8], %r4;\n$L_end:\n\
        \tst.global.v2.u32 [%rd3], {%r2, %r3};\n\tret;";
    for out in run_out(
        "cl-elect",
        &module(body),
        &["--grid", "1", "--block", "32"],
        512,
    ) {
        for t in 0..32u32 {
            let i = (t * 4) as usize;
            assert_eq!(
                out[i..i + 3],
                [4, (t == 4) as u32, (t == 6) as u32],
                "lane {t}"
            );
        }
    }
}

#[test]
fn cluster_launches_are_refused_where_cuda_refuses_them() {
    let path = write_ptx("cl-refuse", "k.ptx", &module("\tret;"));
    let sm80 = write_ptx(
        "cl-refuse",
        "k80.ptx",
        &module("\tret;").replace("sm_90", "sm_80"),
    );
    let cases: [(&std::path::PathBuf, &[&str], &str); 5] = [
        (
            &path,
            &["--grid", "4", "--cluster", "3"],
            "not a whole number of clusters",
        ),
        (
            &path,
            &["--grid", "16", "--cluster", "16"],
            "clusters hold 1 to 8 CTAs",
        ),
        (
            &path,
            &["--grid", "32", "--cluster", "32", "--non-portable-cluster"],
            "clusters hold 1 to 16 CTAs",
        ),
        (&path, &["--grid", "4", "--cluster", "2,0"], "clusters hold"),
        (
            &sm80,
            &["--grid", "4", "--cluster", "2"],
            "need sm_90 or later",
        ),
    ];
    let spec = format!("out:8:{}", scratch("cl-refuse").join("o.bin").display());
    let run = |ptx: &std::path::PathBuf, args: &[&str]| {
        let mut all = args.to_vec();
        all.extend_from_slice(&["--arg", &spec]);
        run(ptx, &all)
    };
    for (ptx, args, why) in cases {
        let mut all = vec!["--block", "32"];
        all.extend_from_slice(args);
        let out = run(ptx, &all);
        assert_no_crash(&out, why);
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        assert!(stderr(&out).contains(why), "{args:?}: {}", stderr(&out));
    }
    let out = run(
        &path,
        &[
            "--grid",
            "16",
            "--block",
            "32",
            "--cluster",
            "16",
            "--non-portable-cluster",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // A kernel's own shape: the launch may repeat it, not change it.
    let attr = module("\tret;").replace(
        ".visible .entry k(.param .u64 out)\n",
        ".visible .entry k(.param .u64 out)\n.reqnctapercluster 2, 1, 1\n",
    );
    let path = write_ptx("cl-refuse", "attr.ptx", &attr);
    let out = run(&path, &["--grid", "4", "--block", "32", "--cluster", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(&path, &["--grid", "4", "--block", "32", "--cluster", "4"]);
    assert!(
        stderr(&out).contains("declares .reqnctapercluster [2, 1, 1]"),
        "{}",
        stderr(&out)
    );
    let out = run(&path, &["--grid", "3", "--block", "32"]);
    assert!(
        stderr(&out).contains("not a whole number of clusters"),
        "{}",
        stderr(&out)
    );
    let out = run(
        &path,
        &["--grid", "4", "--block", "32", "--timing", "sm_90"],
    );
    assert!(
        stderr(&out).contains("timed launches have none"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn malformed_cluster_forms_are_load_errors_at_their_line() {
    let cases = [
        ("\tbarrier.cluster.arrive.acquire;", "unsupported: `barrier.cluster` with `.acquire`"),
        ("\tbarrier.cluster.wait.release;", "unsupported: `barrier.cluster` with `.release`"),
        ("\tbarrier.cluster;", "needs `.arrive` or `.wait`"),
        ("\t.reg .b32 %r<3>;\n\tmapa.u32 %r1, %r2, 1;", "needs the type `.u64`"),
        ("\t.reg .b64 %rd<3>;\n\tmapa.global.u64 %rd1, %rd2, 1;", "unsupported: `mapa.global.u64` of `.global`"),
        ("\t.reg .b32 %r<3>;\n\telect.sync %r1, 0xffffffff;", "needs `d|p`"),
        (
            "\t.shared .b64 bar;\n\t.reg .pred %p<2>;\n\tmbarrier.try_wait.parity.shared::cluster.b64 %p1, [bar], 0;",
            "unsupported: this mbarrier operation on `.shared::cluster`",
        ),
    ];
    for (body, want) in cases {
        let path = write_ptx("cl-load", "k.ptx", &module(body));
        let out = hostile::warpjit().arg("check").arg(&path).output().unwrap();
        assert_no_crash(&out, want);
        let err = stderr(&out);
        assert!(!out.status.success(), "{body}");
        assert!(err.contains(want), "{body}: {err}");
        let line = 7 + body.matches('\n').count();
        assert!(err.contains(&format!("k.ptx:{line}:2:")), "{body}: {err}");
    }
}

#[test]
fn mbarrier_arrivals_reach_another_cta_of_the_cluster() {
    // Each CTA's thread 0 initializes its mbarrier for 64 arrivals; after
    // a cluster barrier every thread arrives on the neighbour's (mapa,
    // `.shared::cluster`) with a count of 2 and waits for its own phase 0
    // to complete, then records the neighbour's rank + 1.
    let body = "\t.shared .align 8 .b64 bar;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\
        \t.reg .pred %p<3>;\n\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\
        \tmov.u32 %r2, %cluster_ctarank;\n\tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 bra $L_sync;\n\
        \tmbarrier.init.shared.b64 [bar], 64;\n$L_sync:\n\tbarrier.cluster.arrive;\n\
        \tbarrier.cluster.wait;\n\txor.b32 %r3, %r2, 1;\n\tmov.u32 %r4, bar;\n\
        \tmapa.shared::cluster.u32 %r5, %r4, %r3;\n\
        \tmbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r5], 2;\n$L_wait:\n\
        \tmbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;\n\t@!%p2 bra $L_wait;\n\
        \tgetctarank.shared::cluster.u32 %r6, %r5;\n\tadd.u32 %r6, %r6, 1;\n\
        \tmov.u32 %r7, %ctaid.x;\n\tmad.lo.u32 %r7, %r7, 32, %r1;\n\
        \tmul.wide.u32 %rd2, %r7, 4;\n\tadd.u64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r6;\n\
        \tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n\tret;";
    let args = ["--grid", "4", "--block", "32", "--cluster", "2"];
    for out in run_out("cl-mbar", &module(body), &args, 512) {
        for (i, v) in out.iter().enumerate() {
            assert_eq!(*v, (((i / 32) % 2) ^ 1) as u32 + 1, "thread {i}");
        }
    }
    // With half the arrivals (a count of 1), the waits never complete: an
    // mbarrier deadlock at the wait, not a hang.
    let path = write_ptx(
        "cl-mbar-dead",
        "k.ptx",
        &module(&body.replace("[%r5], 2;", "[%r5], 1;")),
    );
    let spec = format!(
        "out:512:{}",
        scratch("cl-mbar-dead").join("o.bin").display()
    );
    for engine in ENGINES {
        let mut all = args.to_vec();
        all.extend_from_slice(engine);
        all.extend_from_slice(&["--arg", &spec]);
        let out = run(&path, &all);
        assert_no_crash(&out, "mbarrier deadlock");
        let err = stderr(&out);
        assert!(err.contains("mbarrier deadlock"), "{engine:?}: {err}");
        assert!(err.contains("k.ptx:25:"), "{engine:?}: {err}");
    }
}

#[test]
fn generic_addresses_of_the_neighbours_shared_memory() {
    // mapa.u64 of a generic address of the CTA's own shared memory: the
    // neighbour's is shared::cluster, not shared::cta, nor global; its
    // rank reads back; cvta.to.shared::cluster of it is mapa's
    // shared::cluster form; a store through it lands in the neighbour.
    let body = "\t.shared .align 4 .b8 smem[8];\n\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<8>;\n\
        \t.reg .pred %p<2>;\n\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %cluster_ctarank;\n\
        \txor.b32 %r2, %r1, 1;\n\tmov.u64 %rd2, smem;\n\tcvta.shared.u64 %rd3, %rd2;\n\
        \tmapa.u64 %rd4, %rd3, %r2;\n\
        \tisspacep.shared::cta %p1, %rd4;\n\tselp.u32 %r3, 1, 0, %p1;\n\
        \tisspacep.shared::cluster %p1, %rd4;\n\tselp.u32 %r4, 1, 0, %p1;\n\
        \tisspacep.global %p1, %rd4;\n\tselp.u32 %r5, 1, 0, %p1;\n\
        \tisspacep.shared %p1, %rd3;\n\tselp.u32 %r6, 1, 0, %p1;\n\
        \tgetctarank.u64 %r7, %rd4;\n\tgetctarank.u64 %r8, %rd3;\n\
        \tcvta.to.shared::cluster.u64 %rd5, %rd4;\n\tmapa.shared::cluster.u64 %rd6, %rd2, %r2;\n\
        \tsetp.eq.u64 %p1, %rd5, %rd6;\n\tselp.u32 %r9, 1, 0, %p1;\n\
        \tadd.u32 %r10, %r1, 7;\n\tst.u32 [%rd4+4], %r10;\n\
        \tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n\tld.shared.u32 %r11, [smem+4];\n\
        \tmov.u32 %r10, %ctaid.x;\n\tmul.wide.u32 %rd7, %r10, 32;\n\tadd.u64 %rd7, %rd1, %rd7;\n\
        \tst.global.v4.u32 [%rd7], {%r3, %r4, %r5, %r6};\n\
        \tst.global.v4.u32 [%rd7+16], {%r7, %r8, %r9, %r11};\n\tret;";
    let args = ["--grid", "2", "--block", "1", "--cluster", "2"];
    for out in run_out("cl-generic", &module(body), &args, 64) {
        for rank in 0..2u32 {
            let i = (rank * 8) as usize;
            assert_eq!(
                out[i..i + 8],
                [0, 1, 0, 1, rank ^ 1, rank, 1, (rank ^ 1) + 7],
                "rank {rank}"
            );
        }
    }
}

/// A multicast bulk copy (`.multicast::cluster`) whose CTA mask names a
/// rank outside the cluster faults at the copy; one with a non-multicast
/// source space is an error at its line.
#[test]
fn multicast_to_a_rank_outside_the_cluster_faults() {
    let body = "\t.shared .align 128 .b8 tile[64];\n\t.shared .align 8 .b64 bar;\n\
        \t.reg .b64 %rd<3>;\n\t.reg .b16 %rs<2>;\n\tld.param.u64 %rd1, [out];\n\
        \tmov.u16 %rs1, 5;\n\
        \tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [tile], [%rd1], 64, [bar], %rs1;\n\
        \tret;";
    let path = write_ptx("cl-mc", "k.ptx", &module(body));
    let spec = format!("out:2048:{}", scratch("cl-mc").join("o.bin").display());
    for engine in ENGINES {
        let mut args = vec![
            "--grid",
            "2",
            "--block",
            "32",
            "--cluster",
            "2",
            "--arg",
            &spec,
        ];
        args.extend_from_slice(engine);
        let out = run(&path, &args);
        assert_no_crash(&out, "fault");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("illegal address"), "{engine:?}: {err}");
        assert!(err.contains("cluster rank 2"), "{engine:?}: {err}");
        assert!(err.contains("k.ptx:13:"), "{engine:?}: {err}");
    }
    let bad = body.replace(".shared::cluster.global.", ".global.shared::cta.");
    let err = warpjit::runtime::Device::new(Default::default())
        .load_ptx("k.ptx", &module(&bad))
        .map(|_| ())
        .expect_err("a multicast store")
        .to_string();
    assert!(
        err.contains("k.ptx:13:") && err.contains("multicast"),
        "{err}"
    );
}
