//! Racecheck and mbarriers: an arrival (release) and a wait that finds its
//! phase complete (acquire) order accesses, and a bulk copy's writes are
//! ordered before the waits that see its transactions complete. The corpus
//! samples that synchronize through mbarriers (bulk and tensor copies,
//! `cuda::barrier`, `cuda::pipeline`, the mbarrier instructions themselves)
//! make no report; the kernels of ptx-samples/sanitizer/bugs_mbarrier.cu
//! (NVRTC output, compute_90) that race around an mbarrier (reading a bulk
//! copy's destination before the wait, writing after the arrival, waiting
//! for the wrong parity) are reported exactly, on both engines.

mod common;

use std::process::Command;

use common::samples::Sample;
use common::sanitizer::*;
use warpjit::runtime::{Device, KernelArg as A};
use warpjit::sanitizer::Hazard;

const MODULE: &str = "bugs_mbarrier";
const RAW: Hazard = Hazard::ReadAfterWrite;
const WAR: Hazard = Hazard::WriteAfterRead;

fn input(d: &mut Device, n: u32) -> u64 {
    uints(d, &(0..n).collect::<Vec<_>>())
}

#[test]
fn a_bulk_copys_destination_read_before_the_wait() {
    let text = assert_races(
        MODULE,
        "bulk_read_before_wait",
        x(2),
        x(256),
        |d| vec![A::Ptr(input(d, 512)), A::Ptr(d.alloc(2048).unwrap())],
        // Thread 0's own read: the copy it issued is not ordered before it
        // until the wait (its writes are the copy's, not the thread's).
        &[(RAW, X, (X, 1048), (X, 1071))],
    );
    assert!(
        text[0].starts_with("========= Error: Race reported between Write access and Read access (RAW hazard at __shared__ 0x0, 4 bytes) in block (0,0,0)\n"),
        "{}",
        text[0]
    );
    assert!(
        text[0].contains("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes")
            && text[0].contains("bugs_mbarrier.cu:43\n"),
        "{}",
        text[0]
    );
}

#[test]
fn a_write_after_the_arrival_races_with_the_waiting_reader() {
    let text = assert_races(
        MODULE,
        "write_after_arrive",
        x(2),
        x(64),
        |d| vec![A::Ptr(input(d, 64)), A::Ptr(d.alloc(256).unwrap())],
        // The write before the arrival is ordered; `data[lane] += 1` after
        // it is not.
        &[(RAW, X, (X, 1246), (at(32), 1267))],
    );
    assert!(
        text[0].contains("bugs_mbarrier.cu:60\n") && text[0].contains("bugs_mbarrier.cu:63\n"),
        "{}",
        text[0]
    );
}

#[test]
fn a_wait_for_the_wrong_parity_orders_nothing() {
    assert_races(
        MODULE,
        "wait_wrong_parity",
        x(2),
        x(64),
        |d| vec![A::Ptr(input(d, 64)), A::Ptr(d.alloc(256).unwrap())],
        // The consumer (warp 0) passes its wait at once and reads before
        // the producer (warp 1) writes.
        &[(WAR, X, (X, 1364), (at(32), 1336))],
    );
}

#[test]
fn rounds_through_full_and_empty_mbarriers_make_no_report() {
    for engine in ENGINES {
        let (mut dev, m) = setup("racecheck", MODULE, engine);
        let (n, blocks) = (4u32, 2u32);
        let inp = input(&mut dev, 32 * n * blocks);
        let out = dev.alloc(4 * 32 * blocks as u64).unwrap();
        let args = [A::Ptr(inp), A::Ptr(out), A::I32(n as i32)];
        launch(&dev, m, "rounds_right_parity", x(blocks), x(64), &args).unwrap();
        let reports = dev.take_reports();
        assert!(reports.is_empty(), "{engine:?}: {reports:#?}");
        let got = read_u32(&dev, out, 32 * blocks as usize);
        let want: Vec<u32> = (0..32 * blocks)
            .map(|i| {
                let (b, lane) = (i / 32, i % 32);
                (0..n).map(|r| (b * n + r) * 32 + lane).sum()
            })
            .collect();
        assert_eq!(got, want, "{engine:?}");
    }
}

/// The corpus samples synchronizing through mbarriers, each PTX file of
/// each, run with racecheck through the CLI on both engines: no report.
/// (Their compute_70 files build `cuda::barrier` and `cuda::pipeline` from
/// `atom.acq_rel`, relaxed atomics and `ld.acquire` spins, with one lane
/// arriving for its warp after `bar.warp.sync`: racecheck takes these as
/// ordering, `sanitizer::hb`.)
#[test]
fn corpus_samples_waiting_on_mbarriers_make_no_race_report() {
    let samples = [
        "bulk_copy",
        "tma_copy",
        "barrier_memcpy_async",
        "mbarrier_phases",
        "pipeline_double_buffer",
    ];
    assert_eq!(no_reports(&samples, "racecheck"), 18);
}

/// With every check on, on both engines: cooperative groups' large tiles
/// (a barrier in the reserved shared memory, which starts zeroed, built
/// from release/acquire atomics, with `shfl.sync` passing one lane's
/// acquire to its warp and lanes overwriting a word after `redux.sync`:
/// 4 racecheck and 16 initcheck reports before the collectives ordered
/// and the reserved memory counted as written), multicast bulk and tensor
/// copies (checked in the CTAs they land in) and bulk reductions.
#[test]
fn corpus_samples_with_every_check_make_no_report() {
    let samples = ["cg_large_tiles", "bulk_multicast", "bulk_reduce"];
    assert_eq!(no_reports(&samples, "all"), 10);
}

/// Runs each PTX file of each corpus sample through the CLI with `checks`
/// on both engines, asserting that it succeeds with no report; returns
/// the number of runs.
fn no_reports(samples: &[&str], checks: &str) -> usize {
    let root = common::repo_root();
    let tmp = std::env::temp_dir().join(format!("warpjit-corpus-{checks}-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut runs = 0;
    for name in samples {
        let s = Sample::load(&root.join("ptx-samples/cuda").join(name));
        let dim = |k: &str| -> String {
            let v: Vec<String> = s.spec[k]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.to_string())
                .collect();
            v.join(",")
        };
        for ptx in s.ptx_files() {
            for engine in ["jit", "interp"] {
                let mut cmd = Command::new(env!("CARGO_BIN_EXE_warpjit"));
                cmd.arg("run").arg(&ptx);
                cmd.args(["--kernel", s.spec["kernel"].as_str().unwrap()]);
                cmd.args(["--grid", &dim("grid"), "--block", &dim("block")]);
                if let Some(b) = s.spec["shared_bytes"].as_u64().filter(|&b| b > 0) {
                    cmd.args(["--shared", &b.to_string()]);
                }
                for a in s.spec["args"].as_array().unwrap() {
                    let a = a.as_str().unwrap();
                    let p: Vec<&str> = a.split(':').collect();
                    let dir = s.dir.display();
                    let t = tmp.display();
                    let arg = match p[..] {
                        ["in", f] => format!("in:{dir}/{f}"),
                        ["out", n, f] => format!("out:{n}:{t}/{f}"),
                        ["inout", i, o] => format!("inout:{dir}/{i}:{t}/{o}"),
                        _ => a.to_string(),
                    };
                    cmd.args(["--arg", &arg]);
                }
                cmd.args(["--engine", engine, "--check", checks]);
                let out = cmd.output().unwrap();
                let err = String::from_utf8_lossy(&out.stderr);
                assert!(
                    out.status.success() && err.contains("ERROR SUMMARY: 0 errors"),
                    "{name} {} {engine}: {err}",
                    ptx.display()
                );
                runs += 1;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    runs
}
