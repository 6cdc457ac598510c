//! `cuTensorMapEncodeTiled` and `cuTensorMapReplaceAddress` through the C
//! ABI: a valid 2-D map is written in warpjit's layout
//! (`warpjit::sem::tensor_map`), the arguments CUDA documents as invalid
//! are `CUDA_ERROR_INVALID_VALUE` (1), what warpjit does not implement
//! (interleave, im2col) `CUDA_ERROR_NOT_SUPPORTED` (801), and the address
//! replacement keeps every other field; and the corpus's TMA sample
//! (`ptx-samples/cuda/tma_copy`) launched with two encoded maps gives its
//! reference output.

use std::ffi::{c_void, CString};

mod common;
use common::*;

use warpjit::sem::tensor_map::TensorMap;

type Encode = unsafe extern "C" fn(
    *mut c_void,
    u32,
    u32,
    *mut c_void,
    *const u64,
    *const u64,
    *const u32,
    *const u32,
    u32,
    u32,
    u32,
    u32,
) -> u32;
type Replace = unsafe extern "C" fn(*mut c_void, *mut c_void) -> u32;

#[repr(C, align(64))]
struct CuTensorMap([u8; 128]);

const F32: u32 = 7;
const INVALID_VALUE: u32 = 1;
const NOT_SUPPORTED: u32 = 801;

struct Call {
    dtype: u32,
    rank: u32,
    addr: u64,
    dims: Vec<u64>,
    strides: Vec<u64>,
    boxdim: Vec<u32>,
    es: Vec<u32>,
    interleave: u32,
    swizzle: u32,
    fill: u32,
}

fn valid() -> Call {
    Call {
        dtype: F32,
        rank: 2,
        addr: 0x7000_0000_1000,
        dims: vec![40, 30],
        strides: vec![160],
        boxdim: vec![16, 8],
        es: vec![1, 1],
        interleave: 0,
        swizzle: 2,
        fill: 0,
    }
}

fn encode(f: Encode, c: &Call, out: &mut CuTensorMap) -> u32 {
    // SAFETY: arrays of the rank's length, a 128-byte aligned output.
    unsafe {
        f(
            out.0.as_mut_ptr() as *mut c_void,
            c.dtype,
            c.rank,
            c.addr as *mut c_void,
            c.dims.as_ptr(),
            c.strides.as_ptr(),
            c.boxdim.as_ptr(),
            c.es.as_ptr(),
            c.interleave,
            c.swizzle,
            0,
            c.fill,
        )
    }
}

#[test]
fn encode_tiled_writes_the_layout_and_checks_arguments() {
    // Before the library reads it (both tests set the same value).
    std::env::set_var("WARPJIT_ARCH", "sm_90");
    let lib = library();
    let enc = sym!(lib, b"cuTensorMapEncodeTiled", Encode);
    let replace = sym!(lib, b"cuTensorMapReplaceAddress", Replace);
    let mut map = CuTensorMap([0; 128]);
    assert_eq!(encode(*enc, &valid(), &mut map), 0);
    let m = TensorMap::from_bytes(&map.0).unwrap();
    assert_eq!((m.rank, m.addr, m.swizzle), (2, 0x7000_0000_1000, 2));
    assert_eq!(&m.dims[..2], &[40, 30]);
    assert_eq!(&m.strides[..2], &[4, 160]);
    assert_eq!(m.box_bytes(), 16 * 8 * 4);

    let bad: Vec<(&str, Call)> = vec![
        (
            "address not 16-byte aligned",
            Call {
                addr: 0x7000_0000_1008,
                ..valid()
            },
        ),
        (
            "stride not a multiple of 16",
            Call {
                strides: vec![164],
                ..valid()
            },
        ),
        (
            "box dimension above 256",
            Call {
                boxdim: vec![16, 257],
                ..valid()
            },
        ),
        (
            "inner box not a multiple of 16 bytes",
            Call {
                boxdim: vec![3, 8],
                ..valid()
            },
        ),
        (
            "inner box wider than the swizzle span",
            Call {
                boxdim: vec![32, 8],
                ..valid()
            },
        ),
        (
            "element stride 0",
            Call {
                es: vec![0, 1],
                ..valid()
            },
        ),
        ("rank 0", Call { rank: 0, ..valid() }),
        ("rank 6", Call { rank: 6, ..valid() }),
        (
            "unknown swizzle",
            Call {
                swizzle: 9,
                ..valid()
            },
        ),
        (
            "NaN fill of integers",
            Call {
                dtype: 3,
                fill: 1,
                ..valid()
            },
        ),
        (
            "empty dimension",
            Call {
                dims: vec![40, 0],
                ..valid()
            },
        ),
    ];
    for (what, c) in &bad {
        let mut out = CuTensorMap([0; 128]);
        assert_eq!(encode(*enc, c, &mut out), INVALID_VALUE, "{what}");
    }
    // A map not 64-byte aligned.
    let mut two = [CuTensorMap([0; 128]), CuTensorMap([0; 128])];
    let c = valid();
    // SAFETY: as `encode`, 128 bytes at 32 bytes into the 256-byte pair.
    let rc = unsafe {
        enc(
            (two.as_mut_ptr() as *mut u8).add(32) as *mut c_void,
            c.dtype,
            c.rank,
            c.addr as *mut c_void,
            c.dims.as_ptr(),
            c.strides.as_ptr(),
            c.boxdim.as_ptr(),
            c.es.as_ptr(),
            0,
            c.swizzle,
            0,
            0,
        )
    };
    assert_eq!(rc, INVALID_VALUE, "map not 64-byte aligned");
    let mut out = CuTensorMap([0; 128]);
    let interleaved = Call {
        interleave: 1,
        rank: 3,
        dims: vec![40, 30, 2],
        strides: vec![160, 4800],
        boxdim: vec![16, 8, 1],
        es: vec![1, 1, 1],
        swizzle: 0,
        ..valid()
    };
    assert_eq!(encode(*enc, &interleaved, &mut out), NOT_SUPPORTED);

    // SAFETY: a valid map, then one that is not.
    unsafe {
        let p = map.0.as_mut_ptr() as *mut c_void;
        assert_eq!(replace(p, 0x7000_0000_2000 as *mut c_void), 0);
        let m2 = TensorMap::from_bytes(&map.0).unwrap();
        assert_eq!(m2.addr, 0x7000_0000_2000);
        assert_eq!(m2.dims, m.dims);
        assert_eq!(replace(p, 0x7000_0000_2004 as *mut c_void), INVALID_VALUE);
        let mut junk = CuTensorMap([0; 128]);
        let q = junk.0.as_mut_ptr() as *mut c_void;
        assert_eq!(replace(q, 0x7000_0000_2000 as *mut c_void), INVALID_VALUE);
        assert_eq!(
            replace(std::ptr::null_mut(), 0x7000_0000_2000 as *mut c_void),
            INVALID_VALUE
        );
    }
    let im2col = sym!(
        lib,
        b"cuTensorMapEncodeIm2col",
        unsafe extern "C" fn() -> u32
    );
    // SAFETY: the stub ignores its arguments.
    assert_eq!(unsafe { im2col() }, NOT_SUPPORTED);
}

#[test]
fn the_tma_sample_runs_with_encoded_maps() {
    std::env::set_var("WARPJIT_ARCH", "sm_90");
    let lib = library();
    context(&lib);
    let enc = sym!(lib, b"cuTensorMapEncodeTiled", Encode);
    let load = sym!(lib, b"cuModuleLoadData", CuModuleLoadData);
    let get_function = sym!(lib, b"cuModuleGetFunction", CuModuleGetFunction);
    let alloc = sym!(lib, b"cuMemAlloc_v2", CuMemAlloc);
    let htod = sym!(lib, b"cuMemcpyHtoD_v2", CuMemcpyHtoD);
    let dtoh = sym!(lib, b"cuMemcpyDtoH_v2", CuMemcpyDtoH);
    let launch = sym!(lib, b"cuLaunchKernel", Launch);
    let sync = sym!(lib, b"cuCtxSynchronize", CuCtxSynchronize);
    let dir = repo().join("ptx-samples/cuda/tma_copy");
    let ptx = CString::new(std::fs::read(dir.join("kernel.compute_90.ptx")).unwrap()).unwrap();
    let input = std::fs::read(dir.join("in.bin")).unwrap();
    let want = std::fs::read(dir.join("out.expected.bin")).unwrap();
    let null = std::ptr::null_mut();
    let (mut module, mut f): (Handle, Handle) = (null, null);
    // SAFETY: out-pointers to locals; the parameter array points at the
    // kernel's arguments (two device pointers, two 128-byte maps).
    unsafe {
        assert_eq!(load(&mut module, ptx.as_ptr() as *const c_void), 0);
        assert_eq!(get_function(&mut f, module, c"tma_copy".as_ptr()), 0);
        let (mut a, mut b) = (0u64, 0u64);
        assert_eq!(alloc(&mut a, input.len()), 0);
        assert_eq!(htod(a, input.as_ptr() as *const c_void, input.len()), 0);
        assert_eq!(alloc(&mut b, want.len()), 0);
        let zeros = vec![0u8; want.len()];
        assert_eq!(htod(b, zeros.as_ptr() as *const c_void, zeros.len()), 0);
        let map = |addr: u64| {
            let c = Call {
                addr,
                dims: vec![100, 40],
                strides: vec![400],
                boxdim: vec![32, 8],
                swizzle: 3,
                ..valid()
            };
            let mut m = CuTensorMap([0; 128]);
            assert_eq!(encode(*enc, &c, &mut m), 0);
            m
        };
        let (mut ma, mut mb) = (map(a), map(b));
        let mut params: [*mut c_void; 4] = [
            &mut a as *mut u64 as *mut c_void,
            &mut b as *mut u64 as *mut c_void,
            ma.0.as_mut_ptr() as *mut c_void,
            mb.0.as_mut_ptr() as *mut c_void,
        ];
        let p = params.as_mut_ptr();
        assert_eq!(launch(f, 4, 5, 1, 128, 1, 1, 0, null, p, null as _), 0);
        assert_eq!(sync(), 0);
        let mut got = vec![0u8; want.len()];
        assert_eq!(dtoh(got.as_mut_ptr() as *mut c_void, b, got.len()), 0);
        assert!(
            got == want,
            "tma_copy's output differs from out.expected.bin"
        );
    }
}
