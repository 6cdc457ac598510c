//! Wild addresses under the JIT: whatever address a kernel computes, every
//! access is checked against the arena's live allocations (global), the
//! CTA's shared memory, the lane's local memory or the parameter buffer, and
//! a refused access is reported exactly as the interpreter reports it (same
//! kind, message, block, thread and PTX line). Real kernels with corrupted
//! pointer arguments: nvcc's `vector_add` (ld/st.global) and numba's tiled
//! transpose (generic ld/st, decoded at run time into shared, local or
//! global memory). A device function's parameters addressed through
//! their home in the thread's frame (`mov`, `cvta.param`, `ld.param`
//! through a register, `ld.local`/`st.local`) on both engines.

mod common;

use warpjit::runtime::memory::{GLOBAL_BASE, LOCAL_WINDOW, SHARED_WINDOW};
use warpjit::runtime::{args, Device, Engine, LaunchConfig, Options};

/// Runs `sample`'s kernel with its own arguments, except that pointer
/// parameter `param` is replaced by what `wild` computes from the device;
/// returns the error text (or "ok").
fn run_with_pointer(
    engine: Engine,
    sample: &str,
    ptx: &str,
    param: usize,
    wild: &dyn Fn(&mut Device) -> u64,
    timed: bool,
) -> String {
    let dir = common::repo_root().join("ptx-samples").join(sample);
    let spec: serde_json::Value =
        serde_json::from_str(&common::read(&dir.join("sample.json"))).unwrap();
    let mut dev = Device::new(Options {
        arena_bytes: 64 << 20,
        engine,
        sequential: true,
        ..Options::default()
    });
    let m = dev.load_ptx(ptx, &common::read(&dir.join(ptx))).unwrap();
    let k = dev.kernel(m, spec["kernel"].as_str()).unwrap();
    let specs: Vec<_> = spec["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| args::parse_arg(a.as_str().unwrap()).unwrap())
        .collect();
    let out = std::env::temp_dir().join(format!("warpjit-jitmem-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let mut prepared = args::prepare(&mut dev, m, k, &specs, &dir, &out).unwrap();
    let offset = dev.kernel_params(m, k).0[param].offset as usize;
    let addr = wild(&mut dev);
    prepared.params[offset..offset + 8].copy_from_slice(&addr.to_le_bytes());
    let dim = |key: &str| {
        let v: Vec<u32> = spec[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as u32)
            .collect();
        [v[0], v[1], v[2]]
    };
    let cfg = LaunchConfig {
        grid: dim("grid"),
        block: dim("block"),
        shared_bytes: 0,
    };
    let result = if timed {
        let arch = warpjit::timing::Arch::builtin("sm_80").unwrap();
        let t = warpjit::runtime::TimingOptions::new(arch);
        dev.launch_timed(m, k, cfg, &prepared.params, &t)
            .map(|_| ())
    } else {
        dev.launch(m, k, cfg, &prepared.params).map(|_| ())
    };
    match result {
        Ok(()) => "ok".to_string(),
        Err(e) => e.to_string(),
    }
}

/// Addresses a buggy kernel might compute: null, small integers, host-like
/// pointers, just below the arena, in the gap after a live allocation, in a
/// freed allocation, misaligned, inside the shared and local windows but
/// beyond their sizes, and the top of the address space.
type WildPointer = Box<dyn Fn(&mut Device) -> u64>;

fn wild_pointers() -> Vec<(&'static str, WildPointer)> {
    vec![
        ("null", Box::new(|_| 0)),
        ("small", Box::new(|_| 64)),
        ("host-like", Box::new(|_| 0x7fff_ffff_f000)),
        ("below arena", Box::new(|_| GLOBAL_BASE - 4)),
        (
            "gap after allocation",
            Box::new(|d| d.alloc(100).unwrap() + 100),
        ),
        (
            "freed",
            Box::new(|d| {
                let a = d.alloc(1 << 16).unwrap();
                d.free(a).unwrap();
                a
            }),
        ),
        ("misaligned", Box::new(|d| d.alloc(1 << 16).unwrap() + 2)),
        ("shared window", Box::new(|_| SHARED_WINDOW + (1 << 20))),
        ("local window", Box::new(|_| LOCAL_WINDOW + (1 << 24))),
        ("top", Box::new(|_| u64::MAX - 7)),
    ]
}

fn engines_agree(sample: &str, ptx: &str, param: usize) {
    for (what, wild) in wild_pointers() {
        let interp = run_with_pointer(Engine::Interp, sample, ptx, param, &*wild, false);
        let jit = run_with_pointer(Engine::Jit, sample, ptx, param, &*wild, false);
        assert!(
            interp.contains("illegal address") || interp.contains("misaligned address"),
            "{sample} with a {what} pointer: {interp}"
        );
        assert_eq!(interp, jit, "{sample} with a {what} pointer");
        // Timed runs compile their own pieces (with address traces).
        let timed = run_with_pointer(Engine::Jit, sample, ptx, param, &*wild, true);
        assert!(
            timed.contains("illegal address") || timed.contains("misaligned address"),
            "{sample} with a {what} pointer, timed: {timed}"
        );
    }
}

#[test]
fn global_accesses_with_wild_pointers_fault_identically() {
    // vector_add(a, b, c, n): corrupt the output pointer c (a store).
    engines_agree("cuda/vector_add", "kernel.compute_80.ptx", 2);
    // ... and the input pointer a (a load).
    engines_agree("cuda/vector_add", "kernel.compute_80.ptx", 0);
}

#[test]
fn generic_accesses_with_wild_pointers_fault_identically() {
    // numba's transpose: parameter 4 is the source data pointer (generic
    // loads), parameter 13 the destination (generic stores).
    engines_agree("numba/transpose_tiled", "kernel.sm_80.ptx", 4);
    engines_agree("numba/transpose_tiled", "kernel.sm_80.ptx", 13);
}

#[test]
fn global_atomics_with_wild_pointers_fault_identically() {
    // atomics_int: parameter 3 is the first `atom.global.add.u32` target,
    // 5 the 64-bit accumulators (`atom.global.add.u64`, `cas.b64`). An
    // inline atomic on device address 0 once skipped every check in the JIT
    // (its "last checked address" started at 0) and wrote to host memory.
    engines_agree("cuda/atomics_int", "kernel.compute_80.ptx", 3);
    engines_agree("cuda/atomics_int", "kernel.compute_80.ptx", 5);
}

/// A struct parameter indexed with run-time indices (NVRTC's `ld.param`
/// through a register holding the parameter's address): an index past the
/// parameter bytes faults in the parameter space, identically on both
/// engines and in timed runs, never reading beyond the launch's parameters.
#[test]
fn parameter_loads_through_a_register_stay_in_the_parameters() {
    // struct_param_indexed(Table t, ...): t.n is the struct's first word;
    // k = sel[i] % t.n indexes t.coef[k], so a huge n reads far past the
    // parameters.
    let huge_n: &dyn Fn(&mut Device) -> u64 = &|_| 1_000_000;
    let sample = "cuda/struct_param_indexed";
    let ptx = "kernel.compute_80.ptx";
    let interp = run_with_pointer(Engine::Interp, sample, ptx, 0, huge_n, false);
    let jit = run_with_pointer(Engine::Jit, sample, ptx, 0, huge_n, false);
    assert!(
        interp.contains("illegal address") && interp.contains("param"),
        "{interp}"
    );
    assert_eq!(interp, jit);
    let timed = run_with_pointer(Engine::Jit, sample, ptx, 0, huge_n, true);
    assert!(timed.contains("illegal address"), "{timed}");
}

/// The generic window of the kernel parameters (`cvta.param`, what a
/// `__grid_constant__` parameter's address becomes): loads through it read
/// the parameter buffer, `isspacep.param` and `.global` hold for it (the
/// ISA puts the `.param` window inside the `.global` one), `cvta.to.param`
/// goes back; a store through it is an illegal address, the same on both
/// engines and timed. `cvta.param` in a device function is refused.
#[test]
fn kernel_parameters_through_generic_addresses() {
    let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n\n\
        .visible .entry k(.param .align 8 .b8 s[16], .param .u64 out, .param .u32 poke)\n{\n\
        \t.reg .pred %p<4>;\n\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<6>;\n\
        \tmov.b64 %rd1, s;\n\tcvta.param.u64 %rd2, %rd1;\n\tld.u32 %r1, [%rd2+8];\n\
        \tisspacep.param %p1, %rd2;\n\tisspacep.global %p2, %rd2;\n\tisspacep.shared %p3, %rd2;\n\
        \tselp.u32 %r2, 1, 0, %p1;\n\tselp.u32 %r3, 1, 0, %p2;\n\tselp.u32 %r4, 1, 0, %p3;\n\
        \tcvta.to.param.u64 %rd3, %rd2;\n\tld.param.u32 %r5, [%rd3+12];\n\
        \tld.param.u64 %rd4, [out];\n\tcvta.to.global.u64 %rd4, %rd4;\n\
        \tisspacep.param %p1, %rd4;\n\tselp.u32 %r6, 1, 0, %p1;\n\
        \tst.global.v4.u32 [%rd4], {%r1, %r2, %r3, %r4};\n\tst.global.v2.u32 [%rd4+16], {%r5, %r6};\n\
        \tld.param.u32 %r7, [poke];\n\tsetp.ne.u32 %p1, %r7, 0;\n\
        \t@%p1 st.u32 [%rd2+4], %r7;\n\tret;\n}\n";
    let line_of_store = ptx
        .lines()
        .position(|l| l.contains("st.u32 [%rd2+4]"))
        .unwrap()
        + 1;
    let run = |engine: Engine, poke: u32, timed: bool| -> Result<Vec<u32>, String> {
        let mut dev = Device::new(Options {
            arena_bytes: 1 << 20,
            engine,
            ..Options::default()
        });
        let m = dev.load_ptx("p.ptx", ptx).unwrap();
        let k = dev.kernel(m, Some("k")).unwrap();
        let out = dev.alloc(24).unwrap();
        let (slots, total) = dev.kernel_params(m, k);
        let mut params = vec![0u8; total as usize];
        for (i, v) in [10u32, 20, 30, 40].iter().enumerate() {
            params[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        let o = slots[1].offset as usize;
        params[o..o + 8].copy_from_slice(&out.to_le_bytes());
        let o = slots[2].offset as usize;
        params[o..o + 4].copy_from_slice(&poke.to_le_bytes());
        let cfg = LaunchConfig {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            shared_bytes: 0,
        };
        let r = if timed {
            let arch = warpjit::timing::Arch::builtin("sm_80").unwrap();
            let t = warpjit::runtime::TimingOptions::new(arch);
            dev.launch_timed(m, k, cfg, &params, &t).map(|_| ())
        } else {
            dev.launch(m, k, cfg, &params).map(|_| ())
        };
        r.map_err(|e| e.to_string())?;
        let mut bytes = vec![0u8; 24];
        dev.read(out, &mut bytes).unwrap();
        Ok(bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect())
    };
    let mut errors = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        for timed in [false, true] {
            assert_eq!(
                run(engine, 0, timed).unwrap(),
                vec![30, 1, 1, 0, 40, 0],
                "{engine:?} timed {timed}"
            );
            let e = run(engine, 7, timed).unwrap_err();
            assert!(
                e.contains("illegal address") && e.contains(&format!("p.ptx:{line_of_store}:")),
                "{engine:?} timed {timed}: {e}"
            );
            errors.push(e);
        }
    }
    assert!(errors.windows(2).all(|w| w[0] == w[1]), "{errors:#?}");
}

/// A device function's parameter has a home in the thread's frame: `mov`
/// of its name gives a `.local` address (PTX ISA §5.1.6.2: the parameter
/// is copied to the stack) for `ld.local`/`st.local`, `cvta.param` makes it
/// generic, `cvta.to.param` takes it back, `ld.param` through a register
/// reads it, and the return parameter's address can be written through
/// (PTX ISA 6.0). Thread t passes s = {100t .. 100t + 3} and i = t & 3.
#[test]
fn a_device_functions_parameters_are_addressable_in_its_frame() {
    let text = ".version 8.0\n.target sm_80\n.address_size 64\n\n\
        .func (.param .b32 r) f(.param .align 4 .b8 s[16], .param .b32 i, .param .b64 out)\n{\n\
        \t.reg .b32 %r<12>;\n\t.reg .b64 %rd<12>;\n\
        \tld.param.u32 %r1, [i];\n\tld.param.u64 %rd9, [out];\n\
        \tmul.wide.u32 %rd1, %r1, 4;\n\
        \tmov.b64 %rd2, s;\n\
        \tadd.s64 %rd3, %rd2, %rd1;\n\
        \tld.local.u32 %r2, [%rd3];\n\
        \tcvta.param.u64 %rd4, %rd2;\n\
        \tadd.s64 %rd5, %rd4, %rd1;\n\
        \tld.u32 %r3, [%rd5];\n\
        \txor.b32 %r8, %r1, 1;\n\
        \tmul.wide.u32 %rd6, %r8, 4;\n\
        \tadd.s64 %rd6, %rd2, %rd6;\n\
        \tld.param.u32 %r4, [%rd6];\n\
        \tst.local.u32 [%rd3], 1000;\n\
        \tld.local.u32 %r5, [%rd3];\n\
        \tcvta.to.param.u64 %rd7, %rd4;\n\
        \tld.param.u32 %r6, [%rd7+12];\n\
        \tst.global.u32 [%rd9], %r2;\n\tst.global.u32 [%rd9+4], %r3;\n\tst.global.u32 [%rd9+8], %r4;\n\tst.global.u32 [%rd9+12], %r5;\n\
        \tst.global.u32 [%rd9+16], %r6;\n\
        \tadd.u32 %r7, %r2, %r6;\n\
        \tmov.b64 %rd8, r;\n\
        \tst.local.u32 [%rd8], %r7;\n\
        \tret;\n}\n\n\
        .visible .entry k(.param .u64 pout)\n{\n\
        \t.reg .b32 %r<10>;\n\t.reg .b64 %rd<6>;\n\
        \tld.param.u64 %rd1, [pout];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
        \tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, 24;\n\tadd.s64 %rd3, %rd1, %rd2;\n\
        \tmul.lo.u32 %r2, %r1, 100;\n\tadd.u32 %r3, %r2, 1;\n\tadd.u32 %r4, %r2, 2;\n\tadd.u32 %r5, %r2, 3;\n\
        \tand.b32 %r6, %r1, 3;\n\
        \t{\n\t.param .align 4 .b8 a[16];\n\t.param .b32 b;\n\t.param .b64 c;\n\t.param .b32 ret;\n\
        \tst.param.b32 [a], %r2;\n\tst.param.b32 [a+4], %r3;\n\tst.param.b32 [a+8], %r4;\n\tst.param.b32 [a+12], %r5;\n\
        \tst.param.b32 [b], %r6;\n\tst.param.b64 [c], %rd3;\n\
        \tcall.uni (ret), f, (a, b, c);\n\tld.param.b32 %r7, [ret];\n\t}\n\
        \tst.global.u32 [%rd3+20], %r7;\n\tret;\n}\n";
    let mut want = Vec::new();
    for t in 0..32u32 {
        let i = t & 3;
        let s = |k: u32| 100 * t + k;
        let last = if i == 3 { 1000 } else { s(3) };
        want.extend([s(i), s(i), s(i ^ 1), 1000, last, s(i) + last]);
    }
    for engine in [Engine::Interp, Engine::Jit] {
        let mut dev = Device::new(Options {
            engine,
            ..Options::default()
        });
        let m = dev.load_ptx("f.ptx", text).unwrap();
        let k = dev.kernel(m, Some("k")).unwrap();
        let out = dev.alloc(32 * 24).unwrap();
        let cfg = LaunchConfig {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            shared_bytes: 0,
        };
        dev.launch(m, k, cfg, &out.to_le_bytes()).unwrap();
        let mut bytes = vec![0u8; 32 * 24];
        dev.read(out, &mut bytes).unwrap();
        let got: Vec<u32> = bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, want, "{engine:?}");
    }
}

/// `isspacep.param` (the ISA's `.param{::entry}`, the kernel's parameter
/// space) in a device function: true for the generic address of a kernel
/// parameter passed down to it, false for a global or a local address (a
/// device function's own parameters live in its frame), on both engines.
#[test]
fn isspacep_param_in_a_device_function_asks_for_the_kernels_parameters() {
    let text = ".version 8.0\n.target sm_80\n.address_size 64\n\n\
        .func (.param .b32 r) f(.param .b64 a)\n{\n\
        \t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<2>;\n\
        \tld.param.u64 %rd1, [a];\n\
        \tisspacep.param %p1, %rd1;\n\
        \tselp.u32 %r1, 1, 0, %p1;\n\
        \tst.param.b32 [r], %r1;\n\tret;\n}\n\n\
        .visible .entry k(.param .u64 pout, .param .u32 x)\n{\n\
        \t.reg .b32 %r<6>;\n\t.reg .b64 %rd<6>;\n\
        \tld.param.u64 %rd1, [pout];\n\tcvta.to.global.u64 %rd5, %rd1;\n\
        \tmov.b64 %rd2, x;\n\tcvta.param.u64 %rd2, %rd2;\n\
        \t{\n\t.param .b64 a;\n\t.param .b32 ret;\n\
        \tst.param.b64 [a], %rd2;\n\tcall.uni (ret), f, (a);\n\tld.param.b32 %r1, [ret];\n\t}\n\
        \t{\n\t.param .b64 a;\n\t.param .b32 ret;\n\
        \tst.param.b64 [a], %rd1;\n\tcall.uni (ret), f, (a);\n\tld.param.b32 %r2, [ret];\n\t}\n\
        \tst.global.u32 [%rd5], %r1;\n\tst.global.u32 [%rd5+4], %r2;\n\tret;\n}\n";
    for engine in [Engine::Interp, Engine::Jit] {
        let mut dev = Device::new(Options {
            engine,
            ..Options::default()
        });
        let m = dev.load_ptx("f.ptx", text).unwrap();
        let k = dev.kernel(m, Some("k")).unwrap();
        let out = dev.alloc(8).unwrap();
        let cfg = LaunchConfig {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            shared_bytes: 0,
        };
        let mut params = out.to_le_bytes().to_vec();
        params.extend(7u32.to_le_bytes());
        dev.launch(m, k, cfg, &params).unwrap();
        let mut bytes = [0u8; 8];
        dev.read(out, &mut bytes).unwrap();
        assert_eq!(bytes, [1, 0, 0, 0, 0, 0, 0, 0], "{engine:?}");
    }
}
