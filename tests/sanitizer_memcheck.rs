//! Memcheck on the suite's kernels with memory-access bugs
//! (ptx-samples/sanitizer/bugs_memcheck.cu, NVRTC output): off-by-one and
//! missing bounds guards on global arrays, negative indices, an atomic
//! past the end, misaligned vector and packed accesses, shared (static and
//! dynamic) and local overflows, a type-size mismatch. Each test asserts
//! the exact report (kind, block, thread, PTX and CUDA line, space, size,
//! address and what the address is) on both engines: memcheck alone runs
//! on the launch's engine.

mod common;

use common::sanitizer::*;
use warpjit::runtime::{Device, KernelArg as A, ModuleId};
use warpjit::sanitizer::{Report, ReportKind, Rw};
use warpjit::Error;

const MODULE: &str = "bugs_memcheck";

/// Launches a kernel that must fault: memcheck makes exactly one report,
/// of the thread the launch error names.
fn one_fault(
    dev: &Device,
    m: ModuleId,
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    args: &[A],
) -> Report {
    let r = launch_shared(dev, m, kernel, grid, block, shared, args);
    let Err(Error::Launch(e)) = r else {
        panic!("{kernel} faults: {r:?}")
    };
    let mut reports = dev.take_reports();
    assert_eq!(reports.len(), 1, "{reports:#?}");
    let rep = reports.remove(0);
    let a = rep.access.as_ref().unwrap();
    assert_eq!((e.block, e.thread), (rep.block, a.thread), "{rep}");
    assert_eq!(rep.kernel, kernel);
    rep
}

fn seq(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32).collect()
}

const READ: ReportKind = ReportKind::InvalidAccess(Rw::Read);
const WRITE: ReportKind = ReportKind::InvalidAccess(Rw::Write);

#[test]
fn reverse_indexing_from_n_reads_one_past_the_end() {
    for engine in ENGINES {
        let (mut dev, m) = setup("memcheck", MODULE, engine);
        let input = floats(&mut dev, &seq(256));
        let out = dev.alloc(1024).unwrap();
        let args = [A::Ptr(input), A::Ptr(out), A::I32(256)];
        let r = one_fault(&dev, m, "reverse_off_by_one", x(4), x(64), 0, &args);
        assert_eq!(brief(&r), (READ, X, X, 48));
        assert_eq!((r.space, r.size, r.address), ("global", 4, input + 1024));
        assert_eq!(
            r.detail,
            format!(
                "is out of bounds: 0 bytes after the end of a 1024-byte allocation at {input:#x}"
            )
        );
        assert_eq!(cu_line(&r), "bugs_memcheck.cu:9");
        let text = r.to_string();
        assert!(
            text.starts_with("========= Invalid __global__ read of size 4 bytes\n"),
            "{text}"
        );
    }
}

#[test]
fn missing_bounds_guard_faults_in_the_last_block() {
    for engine in ENGINES {
        let (mut dev, m) = setup("memcheck", MODULE, engine);
        let a = floats(&mut dev, &seq(200));
        let b = floats(&mut dev, &seq(200));
        let c = dev.alloc(800).unwrap();
        let args = [A::Ptr(a), A::Ptr(b), A::Ptr(c), A::I32(200)];
        let r = one_fault(&dev, m, "vector_add_missing_guard", x(4), x(64), 0, &args);
        // i = 3 * 64 + 8 = 200 is the first index past the arrays.
        assert_eq!(brief(&r), (READ, at(3), at(8), 89));
        assert_eq!((r.space, r.size, r.address), ("global", 4, a + 800));
        assert_eq!(
            r.detail,
            format!("is out of bounds: 0 bytes after the end of a 800-byte allocation at {a:#x}")
        );
        assert_eq!(cu_line(&r), "bugs_memcheck.cu:17");
    }
}

#[test]
fn stencil_without_boundary_reads_before_the_start() {
    for engine in ENGINES {
        let (mut dev, m) = setup("memcheck", MODULE, engine);
        let input = floats(&mut dev, &seq(128));
        let out = dev.alloc(512).unwrap();
        let args = [A::Ptr(input), A::Ptr(out), A::I32(128)];
        let r = one_fault(&dev, m, "stencil_no_boundary", x(2), x(64), 0, &args);
        assert_eq!(brief(&r), (READ, X, X, 131));
        assert_eq!((r.space, r.size, r.address), ("global", 4, input - 4));
        assert_eq!(
            r.detail,
            format!(
                "is out of bounds: 4 bytes before the start of a 512-byte allocation at {input:#x}"
            )
        );
        assert_eq!(
            r.access.as_ref().unwrap().source_line,
            "ld.global.f32 \t%f1, [%rd6+-4];"
        );
    }
}

#[test]
fn gather_through_an_unchecked_minus_one() {
    for engine in ENGINES {
        let (mut dev, m) = setup("memcheck", MODULE, engine);
        let values = floats(&mut dev, &seq(64));
        let idx: Vec<i32> = (0..64)
            .map(|i| if i == 5 { -1 } else { (i * 7) % 64 })
            .collect();
        let idx = ints(&mut dev, &idx);
        let out = dev.alloc(256).unwrap();
        let args = [A::Ptr(values), A::Ptr(idx), A::Ptr(out), A::I32(64)];
        let r = one_fault(&dev, m, "gather_unchecked_sentinel", x(1), x(64), 0, &args);
        assert_eq!(brief(&r), (READ, X, at(5), 184));
        assert_eq!(r.address, values - 4);
        assert_eq!(
            r.detail,
            format!(
                "is out of bounds: 4 bytes before the start of a 256-byte allocation at {values:#x}"
            )
        );
        assert_eq!(cu_line(&r), "bugs_memcheck.cu:32");
    }
}

/// An atomic refused by device memory is reported as compute-sanitizer
/// does: `Invalid __global__ atomic`.
#[test]
fn histogram_value_one_lands_one_bucket_past_the_end() {
    for engine in ENGINES {
        let (mut dev, m) = setup("memcheck", MODULE, engine);
        let xs: Vec<f32> = (0..100)
            .map(|i| if i == 37 { 1.0 } else { (i % 10) as f32 / 10.0 })
            .collect();
        let xs = floats(&mut dev, &xs);
        let counts = zeroed(&mut dev, 32);
        let args = [A::Ptr(xs), A::Ptr(counts), A::I32(100), A::I32(8)];
        let r = one_fault(&dev, m, "histogram_bin_past_end", x(2), x(64), 0, &args);
        let atomic = ReportKind::InvalidAccess(Rw::Atomic);
        assert_eq!(brief(&r), (atomic, X, at(37), 238));
        assert_eq!((r.space, r.size, r.address), ("global", 4, counts + 32));
        assert_eq!(
            r.detail,
            format!(
                "is out of bounds: 0 bytes after the end of a 32-byte allocation at {counts:#x}"
            )
        );
        let text = r.to_string();
        assert!(
            text.starts_with("========= Invalid __global__ atomic of size 4 bytes\n"),
            "{text}"
        );
        assert!(text.contains("atom.global.add.u32"), "{text}");
    }
}

#[test]
fn image_rows_past_the_height_in_a_2d_grid() {
    for engine in ENGINES {
        let (mut dev, m) = setup("memcheck", MODULE, engine);
        // 20 x 10 pixels in blocks of 16 x 4: the third row of blocks
        // covers rows 8 to 11.
        let img = floats(&mut dev, &seq(200));
        let out = dev.alloc(800).unwrap();
        let args = [A::Ptr(img), A::Ptr(out), A::I32(20), A::I32(10)];
        let r = one_fault(
            &dev,
            m,
            "image_missing_row_guard",
            [2, 3, 1],
            [16, 4, 1],
            0,
            &args,
        );
        assert_eq!(brief(&r), (READ, [0, 2, 0], [0, 2, 0], 283));
        assert_eq!(r.address, img + 800);
        assert_eq!(
            r.detail,
            format!("is out of bounds: 0 bytes after the end of a 800-byte allocation at {img:#x}")
        );
        assert!(r.to_string().contains("by thread (0,2,0) in block (0,2,0)"));
    }
}

#[test]
fn float4_load_at_an_odd_float_offset_is_misaligned() {
    for engine in ENGINES {
        let (mut dev, m) = setup("memcheck", MODULE, engine);
        let input = floats(&mut dev, &seq(64));
        let out = dev.alloc(256).unwrap();
        let args = [A::Ptr(input), A::Ptr(out), A::I32(1), A::I32(15)];
        let r = one_fault(&dev, m, "float4_copy_misaligned", x(1), x(32), 0, &args);
        let kind = ReportKind::MisalignedAccess(Rw::Read);
        assert_eq!(brief(&r), (kind, X, X, 335));
        assert_eq!((r.space, r.size, r.address), ("global", 16, input + 4));
        assert_eq!(r.detail, "is misaligned for a 16-byte access");
        assert!(r
            .to_string()
            .starts_with("========= Misaligned __global__ read of size 16 bytes\n"));
    }
}

#[test]
fn int_read_from_packed_3_byte_records_is_misaligned() {
    for engine in ENGINES {
        let (mut dev, m) = setup("memcheck", MODULE, engine);
        let rec: Vec<u8> = (0..48).collect();
        let rec = upload(&mut dev, &rec, |b| vec![b]);
        let out = dev.alloc(64).unwrap();
        let args = [A::Ptr(rec), A::Ptr(out), A::I32(16)];
        let r = one_fault(&dev, m, "packed_records_misaligned", x(1), x(16), 0, &args);
        assert_eq!(
            brief(&r),
            (ReportKind::MisalignedAccess(Rw::Read), X, at(1), 374)
        );
        assert_eq!((r.size, r.address), (4, rec + 3));
        assert_eq!(r.detail, "is misaligned for a 4-byte access");
    }
}

#[test]
fn dynamic_shared_memory_smaller_than_the_kernel_uses() {
    for engine in ENGINES {
        let (mut dev, m) = setup("memcheck", MODULE, engine);
        let input = floats(&mut dev, &seq(128));
        let out = dev.alloc(512).unwrap();
        let args = [A::Ptr(input), A::Ptr(out)];
        // 64 threads use 128 floats; the launch gives 64.
        let r = one_fault(
            &dev,
            m,
            "dynamic_shared_undersized",
            x(2),
            x(64),
            256,
            &args,
        );
        assert_eq!(brief(&r), (WRITE, X, X, 422));
        // The dynamic area starts after the module's 256 bytes of static
        // shared memory: buf[64] is at 0x200, the end of the launch's.
        assert_eq!((r.space, r.size, r.address), ("shared", 4, 0x200));
        assert_eq!(r.detail, "is out of bounds");
        assert!(r
            .to_string()
            .starts_with("========= Invalid __shared__ write of size 4 bytes\n"));
    }
}

#[test]
fn shared_tile_without_room_for_the_halo() {
    for engine in ENGINES {
        let (mut dev, m) = setup("memcheck", MODULE, engine);
        let input = floats(&mut dev, &seq(128));
        let out = dev.alloc(512).unwrap();
        let args = [A::Ptr(input), A::Ptr(out), A::I32(128)];
        let r = one_fault(&dev, m, "halo_tile_too_small", x(2), x(64), 0, &args);
        // Thread 63 stores its cell at tile[64], just past the tile.
        assert_eq!(brief(&r), (WRITE, X, at(63), 476));
        assert_eq!((r.space, r.size, r.address), ("shared", 4, 0x100));
        assert_eq!(cu_line(&r), "bugs_memcheck.cu:91");
    }
}

#[test]
fn local_array_overflow_past_the_thread_frame() {
    for engine in ENGINES {
        let (mut dev, m) = setup("memcheck", MODULE, engine);
        // Only thread 3's value has nine digits.
        let vals: Vec<u32> = (0..32)
            .map(|i| if i == 3 { 123_456_789 } else { i * 1000 + 7 })
            .collect();
        let input = uints(&mut dev, &vals);
        let out = dev.alloc(128).unwrap();
        let args = [A::Ptr(input), A::Ptr(out), A::I32(32)];
        let r = one_fault(&dev, m, "local_digits_overflow", x(1), x(32), 0, &args);
        assert_eq!(brief(&r), (WRITE, X, at(3), 583));
        // digits[8], past the 32-byte local depot.
        assert_eq!((r.space, r.size, r.address), ("local", 4, 0x20));
        assert!(r
            .to_string()
            .starts_with("========= Invalid __local__ write of size 4 bytes\n"));
        assert_eq!(cu_line(&r), "bugs_memcheck.cu:108");
    }
}

#[test]
fn doubles_written_to_a_buffer_sized_for_floats() {
    for engine in ENGINES {
        let (mut dev, m) = setup("memcheck", MODULE, engine);
        let input = floats(&mut dev, &seq(64));
        let out = dev.alloc(64 * 4).unwrap();
        let args = [A::Ptr(input), A::Ptr(out), A::I32(64)];
        let r = one_fault(&dev, m, "double_into_float_buffer", x(1), x(64), 0, &args);
        // out[32] starts at byte 256, the end of the buffer.
        assert_eq!(brief(&r), (WRITE, X, at(32), 679));
        assert_eq!((r.space, r.size, r.address), ("global", 8, out + 256));
        assert_eq!(
            r.detail,
            format!("is out of bounds: 0 bytes after the end of a 256-byte allocation at {out:#x}")
        );
    }
}

/// With all checks on (the interpreter), memcheck reports the same fault,
/// and the other checks add nothing before it.
#[test]
fn every_check_reports_only_the_fault() {
    let (mut dev, m) = setup("all", MODULE, warpjit::runtime::Engine::Jit);
    let input = floats(&mut dev, &seq(256));
    let out = dev.alloc(1024).unwrap();
    let args = [A::Ptr(input), A::Ptr(out), A::I32(256)];
    let r = one_fault(&dev, m, "reverse_off_by_one", x(4), x(64), 0, &args);
    assert_eq!(brief(&r), (READ, X, X, 48));
}
