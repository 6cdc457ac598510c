//! Memcheck of device-heap blocks and initcheck of local memory on the
//! suite's kernels (NVRTC output).
//!
//! ptx-samples/sanitizer/bugs_heap.cu misuses blocks of device-side
//! `malloc`: a loop one element past a block (into its red zone; without
//! memcheck, into the next block, unreported), a read after `free`, a
//! double `free`, a `free` of a pointer inside a block; and uses them
//! correctly. bugs_local.cu reads local arrays before writing them: a
//! histogram never zeroed, a table filled in part, a helper's array whose
//! entry only an earlier call wrote; and writes them fully. With
//! memcheck and initcheck both on, a heap read never written names its
//! block. Each test
//! asserts the exact reports (kind, block, thread, PTX and CUDA line,
//! address and what it is), the same on both engines.

mod common;

use common::sanitizer::*;
use warpjit::runtime::{Device, KernelArg as A};
use warpjit::sanitizer::{FreeError, Report, ReportKind, Rw};

/// Runs `kernel` of `module` in one block of `threads` with `check` on
/// each engine; returns the launch's outcome (Ok, or the error's text) and
/// reports, checking both engines agree on them.
fn run_checked(
    check: &str,
    module: &str,
    kernel: &str,
    threads: u32,
    mut args: impl FnMut(&mut Device) -> Vec<A>,
) -> (Result<(), String>, Vec<Report>) {
    let mut first: Option<(Result<(), String>, Vec<String>)> = None;
    let mut last = None;
    for engine in ENGINES {
        let (mut dev, m) = setup(check, module, engine);
        let args = args(&mut dev);
        let r = launch(&dev, m, kernel, x(1), x(threads), &args)
            .map(|_| ())
            .map_err(|e| e.to_string());
        let reports = dev.take_reports();
        let text = reports.iter().map(|r| r.to_string()).collect();
        match &first {
            None => first = Some((r.clone(), text)),
            Some(f) => assert_eq!(f, &(r.clone(), text), "{engine:?}"),
        }
        last = Some((r, reports));
    }
    last.unwrap()
}

// ---- memcheck of device-heap blocks -----------------------------------------

const HEAP: &str = "bugs_heap";
/// The device heap: the module's first allocation. Under memcheck each
/// block of 4 ints takes 16 bytes and a 16-byte red zone, and the 32
/// threads' blocks are taken in lane order, so thread 0's first block is
/// the heap's first.
const HEAP_BASE: u64 = 0x1000_0000_0100;

fn heap_args(d: &mut Device) -> Vec<A> {
    let input: Vec<i32> = (0..32 * 4).collect();
    vec![
        A::Ptr(ints(d, &input)),
        A::Ptr(d.alloc(128).unwrap()),
        A::I32(4),
    ]
}

/// The one report of a heap kernel that faults under memcheck.
fn one_heap_fault(kernel: &str, args: impl FnMut(&mut Device) -> Vec<A>) -> Report {
    let (r, mut reports) = run_checked("memcheck", HEAP, kernel, 32, args);
    assert!(r.unwrap_err().starts_with("illegal_address: "));
    assert_eq!(reports.len(), 1, "{reports:#?}");
    let rep = reports.remove(0);
    assert_eq!(rep.kernel, kernel);
    rep
}

#[test]
fn heap_block_overrun_is_reported_against_its_block() {
    let r = one_heap_fault("heap_overrun_next_block", heap_args);
    let write = ReportKind::InvalidAccess(Rw::Write);
    assert_eq!(brief(&r), (write, X, X, 184));
    assert_eq!((r.space, r.size, r.address), ("global", 4, HEAP_BASE + 16));
    assert_eq!(
        r.detail,
        format!(
            "is out of bounds: 0 bytes after the end of a 16-byte allocation at {HEAP_BASE:#x}"
        )
    );
    assert_eq!(cu_line(&r), "bugs_heap.cu:15");
    assert!(
        r.to_string()
            .starts_with("========= Invalid __global__ write of size 4 bytes\n"),
        "{r}"
    );
    // Unchecked, the store lands in the next thread's block, inside the
    // heap: no fault and no report, as on a GPU.
    let (r, reports) = run_checked("", HEAP, "heap_overrun_next_block", 32, heap_args);
    assert_eq!((r, reports.len()), (Ok(()), 0));
}

#[test]
fn heap_block_read_after_free_is_a_use_after_free() {
    let r = one_heap_fault("heap_use_after_free", heap_args);
    assert_eq!(brief(&r), (ReportKind::InvalidAccess(Rw::Read), X, X, 422));
    assert_eq!((r.space, r.size, r.address), ("global", 4, HEAP_BASE));
    assert_eq!(
        r.detail,
        format!("is 0 bytes inside a 16-byte allocation at {HEAP_BASE:#x} that was freed (use after free)")
    );
    assert_eq!(cu_line(&r), "bugs_heap.cu:33");
    let (r, reports) = run_checked("", HEAP, "heap_use_after_free", 32, heap_args);
    assert_eq!((r, reports.len()), (Ok(()), 0));
}

#[test]
fn heap_double_free_and_free_of_an_interior_pointer() {
    let r = one_heap_fault("heap_double_free", heap_args);
    let double = ReportKind::BadFree(FreeError::DoubleFree);
    assert_eq!(brief(&r), (double, X, X, 616));
    assert_eq!((r.size, r.address, r.detail.as_str()), (0, HEAP_BASE, ""));
    assert_eq!(cu_line(&r), "bugs_heap.cu:49");
    let text = r.to_string();
    assert!(
        text.starts_with("========= Malloc/Free error encountered : Double free\n"),
        "{text}"
    );
    assert!(
        text.ends_with(&format!(
            "=========     by thread (0,0,0) in block (0,0,0)\n=========     Address {HEAP_BASE:#x}\n"
        )),
        "{text}"
    );

    let r = one_heap_fault("heap_free_interior", |d| {
        vec![A::Ptr(d.alloc(128).unwrap()), A::I32(4)]
    });
    let interior = ReportKind::BadFree(FreeError::InvalidPointer);
    assert_eq!(brief(&r), (interior, X, X, 736));
    assert_eq!(r.address, HEAP_BASE + 4);
    assert_eq!(cu_line(&r), "bugs_heap.cu:62");
    assert!(r
        .to_string()
        .starts_with("========= Malloc/Free error encountered : Invalid pointer to free\n"));

    // Unchecked, both are the launch error they were, and no report.
    let (r, reports) = run_checked("", HEAP, "heap_double_free", 32, heap_args);
    assert!(r.unwrap_err().contains(&format!(
        "free({HEAP_BASE:#x}): not a block that device-side malloc returned, or freed already"
    )));
    assert!(reports.is_empty());
}

#[test]
fn heap_blocks_used_properly_make_no_report() {
    for check in ["memcheck", "all"] {
        for engine in ENGINES {
            let (mut dev, m) = setup(check, HEAP, engine);
            let args = heap_args(&mut dev);
            let A::Ptr(out) = args[1] else { unreachable!() };
            launch(&dev, m, "heap_blocks_used_properly", x(1), x(32), &args).unwrap();
            assert!(dev.take_reports().is_empty(), "{check} {engine:?}");
            let want: Vec<i32> = (0..32)
                .map(|t| (0..4).map(|i| 3 * (t * 4 + i)).sum())
                .collect();
            assert_eq!(read_i32(&dev, out, 32), want, "{check} {engine:?}");
            // Every block was freed.
            assert_eq!(dev.heap().unwrap().in_use(), 0);
        }
    }
}

// ---- initcheck of local memory ----------------------------------------------

const LOCAL: &str = "bugs_local";
const UNINIT: ReportKind = ReportKind::UninitializedRead;

fn vals() -> Vec<i32> {
    (0..32 * 8).map(|i| i * 5 % 16).collect()
}

/// (thread, PTX line, local offset, size) of each report, which must all
/// be local-memory initcheck reports of `kernel`.
fn local_reports(reports: &[Report], kernel: &str) -> Vec<([u32; 3], u32, u64, u64)> {
    reports
        .iter()
        .map(|r| {
            let (kind, block, thread, line) = brief(r);
            assert_eq!((kind, block, r.space), (UNINIT, X, "local"), "{r}");
            assert_eq!(
                r.detail,
                "(local memory offset, never written by this thread)"
            );
            assert_eq!(r.kernel, kernel);
            (thread, line, r.address, r.size)
        })
        .collect()
}

#[test]
fn local_histogram_never_zeroed() {
    let kernel = "local_histogram_not_zeroed";
    for check in ["initcheck", "all"] {
        let (r, reports) = run_checked(check, LOCAL, kernel, 32, |d| {
            vec![
                A::Ptr(ints(d, &vals())),
                A::Ptr(d.alloc(128).unwrap()),
                A::I32(8),
            ]
        });
        r.unwrap();
        // Thread 0's first bins (in[0..4] & 15 = 0, 5, 10, 15) are read by
        // the unrolled `+=`, then the sum reads every bin, the first time
        // through vector loads.
        let want = [
            (63, 0x0, 4),
            (73, 0x14, 4),
            (83, 0x28, 4),
            (92, 0x3c, 4),
            (125, 0x8, 8),
            (127, 0x4, 4),
            (130, 0x10, 16),
            (136, 0x20, 16),
            (142, 0x30, 16),
        ]
        .map(|(line, at, size)| (X, line, at, size));
        assert_eq!(local_reports(&reports, kernel), want, "{check}");
        assert_eq!(cu_line(&reports[0]), "bugs_local.cu:11");
        assert_eq!(cu_line(&reports[4]), "bugs_local.cu:13");
        assert!(reports[0]
            .to_string()
            .starts_with("========= Uninitialized __local__ memory read of size 4 bytes\n"));
    }
    // Without initcheck: no report.
    let (r, reports) = run_checked("memcheck", LOCAL, kernel, 32, |d| {
        vec![
            A::Ptr(ints(d, &vals())),
            A::Ptr(d.alloc(128).unwrap()),
            A::I32(8),
        ]
    });
    assert_eq!((r, reports.len()), (Ok(()), 0));
}

#[test]
fn local_table_filled_in_part() {
    let kernel = "local_table_partly_filled";
    let idx: Vec<i32> = (0..32).collect();
    let (r, reports) = run_checked("initcheck", LOCAL, kernel, 32, |d| {
        let v = ints(d, &vals());
        vec![
            A::Ptr(v),
            A::Ptr(ints(d, &idx)),
            A::Ptr(d.alloc(128).unwrap()),
            A::I32(8),
        ]
    });
    r.unwrap();
    // Entries 0..8 are filled; thread 8 is the first to read past them
    // (table[8], 32 bytes into the frame).
    assert_eq!(local_reports(&reports, kernel), [([8, 0, 0], 243, 0x20, 4)]);
    assert_eq!(cu_line(&reports[0]), "bugs_local.cu:23");
}

#[test]
fn local_array_of_a_later_call_is_new_memory() {
    let kernel = "local_frame_reused";
    let run = |n| {
        run_checked("initcheck", LOCAL, kernel, 32, |d| {
            vec![
                A::Ptr(ints(d, &vals())),
                A::Ptr(d.alloc(128).unwrap()),
                A::I32(n),
            ]
        })
    };
    // The first call fills all 16 entries, the second only 8, and thread
    // 0 reads entry 8 in the second: the bytes the first call wrote there
    // count as never written in the new frame.
    let (r, reports) = run(8);
    r.unwrap();
    assert_eq!(local_reports(&reports, kernel), [(X, 329, 0x70, 4)]);
    assert_eq!(cu_line(&reports[0]), "bugs_local.cu:32");
    // Both calls filling all 16: no report.
    let (r, reports) = run(16);
    assert_eq!((r, reports.len()), (Ok(()), 0));
}

#[test]
fn local_arrays_fully_written_make_no_report() {
    let idx: Vec<i32> = (0..32).map(|i| i * 7).collect();
    let v = vals();
    let want: Vec<i32> = (0..32usize)
        .map(|t| {
            let mut bins = [0; 16];
            (0..8).for_each(|i| bins[(v[t * 8 + i] & 15) as usize] += 1);
            let s: i32 = (0..16).map(|b| b as i32 * bins[b]).sum();
            v[(idx[t] & 15) as usize] * 3 + s + v[t & 15] + 1
        })
        .collect();
    for check in ["initcheck", "all"] {
        for engine in ENGINES {
            let (mut dev, m) = setup(check, LOCAL, engine);
            let (vv, ii, out) = (
                ints(&mut dev, &v),
                ints(&mut dev, &idx),
                dev.alloc(128).unwrap(),
            );
            let args = [A::Ptr(vv), A::Ptr(ii), A::Ptr(out), A::I32(8)];
            launch(&dev, m, "local_arrays_fully_written", x(1), x(32), &args).unwrap();
            assert!(dev.take_reports().is_empty(), "{check} {engine:?}");
            assert_eq!(read_i32(&dev, out, 32), want, "{check} {engine:?}");
        }
    }
}

/// With memcheck and initcheck both on, a read of a heap block never
/// written names the block, not the whole heap (bugs_init.cu's
/// `device_malloc_not_cleared`: each thread's 16-byte scratch block).
#[test]
fn initcheck_of_heap_memory_names_the_block_under_memcheck() {
    let (r, reports) = run_checked(
        "memcheck,initcheck",
        "bugs_init",
        "device_malloc_not_cleared",
        32,
        |d| {
            let i = ints(d, &[1; 32 * 8]);
            vec![A::Ptr(i), A::Ptr(d.alloc(128).unwrap()), A::I32(8)]
        },
    );
    r.unwrap();
    let got: Vec<_> = reports.iter().map(|r| (brief(r), r.address)).collect();
    let want: Vec<_> = (0..4)
        .map(|k| ((UNINIT, X, X, 646 + k as u32), HEAP_BASE + 4 * k))
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        reports[3].detail,
        format!("is 12 bytes inside a 16-byte allocation at {HEAP_BASE:#x}, never written")
    );
}
