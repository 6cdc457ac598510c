//! `cuGetExportTable` through the C ABI, as NVIDIA's runtime (cudart 12.9)
//! uses it, without cudart: each table's size and non-null slots; the
//! cudart interface's primary context and its fatbin-to-module slots (a
//! fatbin laid out as nvcc embeds it, holding the corpus's saxpy PTX, an
//! ELF entry to skip and a PTX entry for a newer target to pass over),
//! then the kernel launched and its results checked; LZ4-compressed PTX;
//! context-local storage; the integrity check's answers; an unknown id,
//! an unimplemented slot, the tools hooks' buffer sizes, and
//! `cuGetProcAddress` handing out stubs (and
//! `cuModuleGetLoadingMode`, which cudart asks at start-up).

use std::ffi::{c_int, c_uint, c_void, CString};

mod common;
use common::*;

/// The ids cudart 12.9 asks for that the shim provides, with each
/// table's entry count and whether entry 0 is the table's size.
const TABLES: [(&str, usize, bool); 6] = [
    ("6bd5fb6c-5bf4-e74a-8987-d93912fd9df9", 13, true),
    ("42d85a81-23f6-cb47-8298-f6e78a3aecdc", 4, true),
    ("a094798c-2e74-2e74-93f2-0800200c0a66", 7, true),
    ("c693336e-1121-df11-a8c3-68f355d89593", 4, false),
    ("263e8860-7cd2-6143-92f6-bbd5006dfa7e", 4, true),
    ("d4082055-bde6-704b-8d34-ba123c66e1f2", 3, true),
];

fn id(s: &str) -> [u8; 16] {
    let hex: String = s.chars().filter(|c| *c != '-').collect();
    let mut out = [0u8; 16];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}

type GetExportTable = unsafe extern "C" fn(*mut *const *const c_void, *const u8) -> u32;

/// The table for `uuid` (asserting the call succeeds).
fn table(lib: &libloading::Library, uuid: &str) -> *const *const c_void {
    let get = sym!(lib, b"cuGetExportTable", GetExportTable);
    let mut t = std::ptr::null();
    // SAFETY: an out-pointer and a 16-byte id.
    assert_eq!(unsafe { get(&mut t, id(uuid).as_ptr()) }, 0, "{uuid}");
    assert!(!t.is_null());
    t
}

/// Slot `n` of a table as a function of type `F`.
unsafe fn slot<F: Copy>(t: *const *const c_void, n: usize) -> F {
    let p = *t.add(n);
    assert!(!p.is_null(), "slot {n}");
    std::mem::transmute_copy(&p)
}

/// One fatbin entry: kind (1 PTX, 2 ELF), target, flags, stored payload,
/// and the uncompressed size.
struct Entry<'a> {
    kind: u16,
    sm: u32,
    flags: u64,
    payload: &'a [u8],
    raw: u64,
}

/// A fatbin as nvcc lays it out: a 16-byte header, then per entry a
/// header (72 bytes here: nvcc writes 64 or 80) and its payload padded to
/// 8 bytes. Backed by `u64`s so
/// it is 8-aligned.
fn fatbin(entries: &[Entry]) -> Vec<u64> {
    let mut body = Vec::new();
    for e in entries {
        let padded = e.payload.len().div_ceil(8) * 8;
        let mut h = [0u8; 72];
        h[0..2].copy_from_slice(&e.kind.to_le_bytes());
        h[2..4].copy_from_slice(&0x101u16.to_le_bytes());
        h[4..8].copy_from_slice(&72u32.to_le_bytes());
        h[8..12].copy_from_slice(&(padded as u32).to_le_bytes());
        h[16..20].copy_from_slice(&(e.payload.len() as u32).to_le_bytes());
        h[28..32].copy_from_slice(&e.sm.to_le_bytes());
        h[40..48].copy_from_slice(&(e.flags | 0x11).to_le_bytes());
        h[56..64].copy_from_slice(&e.raw.to_le_bytes());
        body.extend_from_slice(&h);
        body.extend_from_slice(e.payload);
        body.resize(body.len() + padded - e.payload.len(), 0);
    }
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&0xba55ed50u32.to_le_bytes());
    bytes.extend_from_slice(&1u16.to_le_bytes());
    bytes.extend_from_slice(&16u16.to_le_bytes());
    bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&body);
    bytes
        .chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect()
}

/// `__fatBinC_Wrapper_t`.
#[repr(C)]
struct Wrapper {
    magic: u32,
    version: u32,
    data: *const u64,
    unused: *const c_void,
}

fn saxpy_ptx() -> Vec<u8> {
    let mut p = std::fs::read(repo().join("ptx-samples/cuda/saxpy/kernel.compute_80.ptx")).unwrap();
    p.push(0);
    p
}

/// An LZ4 block holding `data` as one literal run (a valid block: the
/// last sequence is literals only).
fn lz4_literals(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0xf0];
    let mut rest = data.len() - 15;
    while rest >= 255 {
        out.push(255);
        rest -= 255;
    }
    out.push(rest as u8);
    out.extend_from_slice(data);
    out
}

/// Runs saxpy (`y = a * x + y`) from `module` on 1000 elements and checks
/// every result.
fn run_saxpy(lib: &libloading::Library, module: Handle) {
    let get_fn = sym!(lib, b"cuModuleGetFunction", CuModuleGetFunction);
    let alloc = sym!(lib, b"cuMemAlloc_v2", CuMemAlloc);
    let htod = sym!(lib, b"cuMemcpyHtoD_v2", CuMemcpyHtoD);
    let dtoh = sym!(lib, b"cuMemcpyDtoH_v2", CuMemcpyDtoH);
    let n = 1000usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let y = vec![1.0f32; n];
    let mut f: Handle = std::ptr::null_mut();
    let (mut dx, mut dy) = (0u64, 0u64);
    // SAFETY: out-pointers to locals; buffers of n floats.
    unsafe {
        assert_eq!(get_fn(&mut f, module, c"_Z5saxpyifPKfPf".as_ptr()), 0);
        assert_eq!(alloc(&mut dx, 4 * n), 0);
        assert_eq!(alloc(&mut dy, 4 * n), 0);
        assert_eq!(htod(dx, x.as_ptr() as *const c_void, 4 * n), 0);
        assert_eq!(htod(dy, y.as_ptr() as *const c_void, 4 * n), 0);
        assert_eq!(launch_saxpy(lib, f, n as c_int, 2.5, dx, dy), 0);
        let mut out = vec![0f32; n];
        assert_eq!(dtoh(out.as_mut_ptr() as *mut c_void, dy, 4 * n), 0);
        for (i, v) in out.iter().enumerate() {
            assert_eq!(*v, 2.5 * i as f32 + 1.0, "y[{i}]");
        }
    }
}

#[test]
fn tables_have_their_sizes_and_no_null_slot() {
    let lib = library();
    let get = sym!(lib, b"cuGetExportTable", GetExportTable);
    for (uuid, len, sized) in TABLES {
        let t = table(&lib, uuid);
        // SAFETY: the table has `len` entries.
        unsafe {
            if sized {
                assert_eq!(*t as usize, len * 8, "{uuid}: its size in bytes");
            }
            for i in usize::from(sized)..len {
                assert!(!(*t.add(i)).is_null(), "{uuid} slot {i}");
            }
        }
    }
    let mut t = std::ptr::null();
    // SAFETY: out-pointers and 16-byte ids.
    unsafe {
        let unknown = id("f8cff951-2146-8b4e-b9e2-fb469e7c0dd9");
        assert_eq!(get(&mut t, unknown.as_ptr()), 801, "not provided");
        assert_eq!(get(std::ptr::null_mut(), unknown.as_ptr()), 1);
        assert_eq!(get(&mut t, std::ptr::null()), 1);
        // An unimplemented slot answers CUDA_ERROR_NOT_SUPPORTED.
        let cudart = table(&lib, TABLES[0].0);
        let f: unsafe extern "C" fn() -> u32 = slot(cudart, 3);
        assert_eq!(f(), 801);
    }
}

/// The tools hooks' first buffer is 1024 machine words, as public
/// reimplementations give it: cudart 12.9 reads a word at byte 0x6e0 of
/// it at start-up (a 1024-byte buffer made cudart's init fault when the
/// buffer lay at the end of this library's data segment).
#[test]
fn tools_hooks_buffers_are_as_large_as_cudart_reads() {
    let lib = library();
    let hooks = table(&lib, TABLES[2].0);
    type Buffer = unsafe extern "C" fn(*mut *mut c_void, *mut usize);
    // SAFETY: slots 2 and 6 of the table take two out-pointers.
    unsafe {
        for (slot_index, want) in [(2usize, 8192usize), (6, 14)] {
            let f: Buffer = slot(hooks, slot_index);
            let (mut ptr, mut size) = (std::ptr::null_mut(), 0usize);
            f(&mut ptr, &mut size);
            assert!(!ptr.is_null());
            assert_eq!(size, want, "slot {slot_index}");
        }
        let f: Buffer = slot(hooks, 2);
        let mut ptr = std::ptr::null_mut();
        f(&mut ptr, std::ptr::null_mut());
        assert_eq!(
            std::ptr::read_volatile((ptr as *const u8).add(0x6e0) as *const u32),
            0
        );
    }
}

#[test]
fn fatbin_slots_load_the_ptx_that_then_runs() {
    let lib = library();
    context(&lib);
    let cudart = table(&lib, TABLES[0].0);
    let ptx = saxpy_ptx();
    // A newer target's PTX (not loadable here) and a SASS cubin around
    // the sm_80 PTX: the loader must take the sm_80 one.
    let image = fatbin(&[
        Entry {
            kind: 2,
            sm: 80,
            flags: 0,
            payload: b"\x7fELF not really a cubin",
            raw: 0,
        },
        Entry {
            kind: 1,
            sm: 80,
            flags: 0,
            payload: &ptx,
            raw: ptx.len() as u64,
        },
        Entry {
            kind: 1,
            sm: 90,
            flags: 0,
            payload: b"not PTX for this device\0",
            raw: 24,
        },
    ]);
    let wrapper = Wrapper {
        magic: 0x466243b1,
        version: 1,
        data: image.as_ptr(),
        unused: std::ptr::null(),
    };
    type FromWrapper = unsafe extern "C" fn(*mut Handle, *const Wrapper) -> u32;
    type FromWrapperExt =
        unsafe extern "C" fn(*mut Handle, *const Wrapper, *mut c_void, *mut c_void, c_uint) -> u32;
    type FromHeader =
        unsafe extern "C" fn(*const u64, *mut Handle, *mut c_void, *mut c_void, c_uint) -> u32;
    type PrimaryContext = unsafe extern "C" fn(*mut Handle, c_int) -> u32;
    let retain = sym!(lib, b"cuDevicePrimaryCtxRetain", CuDevicePrimaryCtxRetain);
    let load = sym!(lib, b"cuModuleLoadData", CuModuleLoadData);
    let null = std::ptr::null_mut();
    // SAFETY: the slots' signatures; out-pointers to locals; the fatbin
    // and wrapper outlive the calls.
    unsafe {
        let (mut primary, mut got): (Handle, Handle) = (null, null);
        assert_eq!(retain(&mut primary, 0), 0);
        let primary_context: PrimaryContext = slot(cudart, 2);
        assert_eq!(primary_context(&mut got, 0), 0);
        assert_eq!(got, primary);
        assert_eq!(primary_context(&mut got, 1), 101, "one device");

        let mut m: Handle = null;
        let from_wrapper: FromWrapper = slot(cudart, 1);
        assert_eq!(from_wrapper(&mut m, &wrapper), 0);
        run_saxpy(&lib, m);
        let from_ext: FromWrapperExt = slot(cudart, 6);
        assert_eq!(from_ext(&mut m, &wrapper, null, null, 0), 0);
        run_saxpy(&lib, m);
        let from_header: FromHeader = slot(cudart, 8);
        assert_eq!(from_header(image.as_ptr(), &mut m, null, null, 0), 0);
        run_saxpy(&lib, m);
        // cuModuleLoadData takes the fatbin (and the wrapper) too.
        assert_eq!(load(&mut m, image.as_ptr() as *const c_void), 0);
        run_saxpy(&lib, m);
        assert_eq!(load(&mut m, &wrapper as *const Wrapper as *const c_void), 0);
        run_saxpy(&lib, m);

        // LZ4-compressed PTX.
        let packed = lz4_literals(&ptx);
        let lz4 = fatbin(&[Entry {
            kind: 1,
            sm: 80,
            flags: 0x2000,
            payload: &packed,
            raw: ptx.len() as u64,
        }]);
        assert_eq!(from_header(lz4.as_ptr(), &mut m, null, null, 0), 0);
        run_saxpy(&lib, m);

        // A fatbin of SASS only, and a wrapper of an unknown version.
        let sass = fatbin(&[Entry {
            kind: 2,
            sm: 80,
            flags: 0,
            payload: b"\x7fELF",
            raw: 0,
        }]);
        assert_eq!(from_header(sass.as_ptr(), &mut m, null, null, 0), 209);
        assert_eq!(load(&mut m, sass.as_ptr() as *const c_void), 209);
        let odd = Wrapper {
            version: 7,
            ..wrapper
        };
        assert_eq!(from_wrapper(&mut m, &odd), 209);
        assert_eq!(from_wrapper(null as _, &wrapper), 1);
    }
}

#[test]
fn context_local_storage_keeps_values_per_context_and_key() {
    let lib = library();
    context(&lib);
    let t = table(&lib, TABLES[3].0);
    type Put = unsafe extern "C" fn(Handle, *mut c_void, *mut c_void, *const c_void) -> u32;
    type Delete = unsafe extern "C" fn(Handle, *mut c_void) -> u32;
    type Get = unsafe extern "C" fn(*mut *mut c_void, Handle, *mut c_void) -> u32;
    let mut key = 0u8;
    let key = &mut key as *mut u8 as *mut c_void;
    let null = std::ptr::null_mut();
    // SAFETY: the slots' signatures; out-pointers to locals.
    unsafe {
        let (put, delete, get): (Put, Delete, Get) = (slot(t, 0), slot(t, 1), slot(t, 2));
        let mut v: *mut c_void = null;
        assert_eq!(get(&mut v, null, key), 400, "nothing stored yet");
        assert_eq!(put(null, key, 0x1234 as *mut c_void, std::ptr::null()), 0);
        assert_eq!(get(&mut v, null, key), 0);
        assert_eq!(v as usize, 0x1234);
        // The current context named explicitly is the same context.
        let get_current = sym!(
            lib,
            b"cuCtxGetCurrent",
            unsafe extern "C" fn(*mut Handle) -> u32
        );
        let mut ctx: Handle = null;
        assert_eq!(get_current(&mut ctx), 0);
        assert_eq!(get(&mut v, ctx, key), 0);
        assert_eq!(v as usize, 0x1234);
        assert_eq!(get(&mut v, 0x7777 as Handle, key), 400, "another context");
        assert_eq!(delete(ctx, key), 0);
        assert_eq!(get(&mut v, null, key), 400);
    }
}

#[test]
fn integrity_check_answers_the_challenge() {
    let lib = library();
    context(&lib);
    let t = table(&lib, TABLES[5].0);
    type Check = unsafe extern "C" fn(u32, u64, *mut [u64; 2]) -> u32;
    // SAFETY: the slot's signature; out-pointers to locals.
    unsafe {
        let check: Check = slot(t, 1);
        let mut a = [0u64; 2];
        assert_eq!(check(12090, 5, &mut a), 0);
        assert_eq!(a, [0x3341181c03cb675c, 0x8ed383aa1f4cd1e8]);
        assert_eq!(check(12091, 5, &mut a), 0);
        assert_eq!(a, [0x1841181c03cb675c, 0x8ed383aa1f4cd1e8]);
        let (mut b, mut c) = ([0u64; 2], [0u64; 2]);
        assert_eq!(check(12092, 1_700_000_000, &mut a), 0);
        assert_eq!(check(12092, 1_700_000_000, &mut b), 0);
        assert_eq!(check(12092, 1_700_000_001, &mut c), 0);
        assert_eq!(a, b, "the same challenge, the same answer");
        assert_ne!(a, c, "the answer covers the time");
        assert_ne!(a, [0x3341181c03cb675c, 0x8ed383aa1f4cd1e8]);
        assert_eq!(check(12092, 1, std::ptr::null_mut()), 1);
    }
}

#[test]
fn get_proc_address_hands_out_stubs_for_cuda_h_names() {
    let lib = library();
    type GetProc =
        unsafe extern "C" fn(*const i8, *mut *const c_void, c_int, u64, *mut c_int) -> u32;
    let get_proc = sym!(lib, b"cuGetProcAddress_v2", GetProc);
    // SAFETY: NUL-terminated names and out-pointers to locals; a stub
    // takes no arguments.
    unsafe {
        for (name, exported) in [
            ("cuGraphAddNode", &b"cuGraphAddNode"[..]),
            ("cuMemcpyPeer", b"cuMemcpyPeer"),
        ] {
            let c = CString::new(name).unwrap();
            let (mut p, mut status) = (std::ptr::null(), -1);
            assert_eq!(get_proc(c.as_ptr(), &mut p, 12090, 0, &mut status), 0);
            assert_eq!(status, 0);
            let s: libloading::Symbol<*const c_void> = lib.get(exported).unwrap();
            assert_eq!(p, *s, "{name} resolves to its stub");
            let f: unsafe extern "C" fn() -> u32 = std::mem::transmute(p);
            assert_eq!(f(), 801);
        }
        // cudart asks how modules load: eagerly (CU_MODULE_EAGER_LOADING).
        let c = CString::new("cuModuleGetLoadingMode").unwrap();
        let mut p = std::ptr::null();
        assert_eq!(
            get_proc(c.as_ptr(), &mut p, 12090, 0, std::ptr::null_mut()),
            0
        );
        let mode_of: unsafe extern "C" fn(*mut c_int) -> u32 = std::mem::transmute(p);
        let mut mode = 0;
        assert_eq!(mode_of(&mut mode), 0);
        assert_eq!(mode, 1);
        assert_eq!(mode_of(std::ptr::null_mut()), 1);
        let c = CString::new("cuNoSuchThing").unwrap();
        let (mut p, mut status) = (std::ptr::null(), -1);
        assert_eq!(get_proc(c.as_ptr(), &mut p, 12090, 0, &mut status), 500);
        assert_eq!(status, 1);
        assert!(p.is_null());
    }
}
