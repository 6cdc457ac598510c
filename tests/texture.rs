//! Texture and surface objects on both engines: the forms NVRTC emits for
//! `tex1Dfetch`, `tex1D`, `tex2D` (float4, float, int, uchar4),
//! `tex1DLayered`, `tex2DLayered`, `tex3D`, `tex2Dgather`, `tex2DLod`,
//! `tex2DGrad`, `surf1D/2D/3Dread`/`write` (`tests/data/texture/forms.*`),
//! run over objects made through `Device`'s API; `txq`/`suq`/`istypep`/
//! `sured` written by hand; a handle that is no live object is a
//! `bad_handle` fault at its line, a `.trap` surface access out of bounds
//! an illegal address.

mod common;

use warpjit::runtime::texture::{ArrayDesc, Resource};
use warpjit::runtime::{Device, Engine, KernelArg, LaunchConfig, ModuleId, Options};
use warpjit::sem::texture::{AddressMode, ChannelType, Cube, Format, Sampler};
use warpjit::Error;

const ENGINES: [Engine; 2] = [Engine::Interp, Engine::Jit];

fn load(engine: Engine, ptx: &str) -> (Device, ModuleId) {
    let mut dev = Device::new(Options {
        arena_bytes: 16 << 20,
        engine,
        ..Options::default()
    });
    let m = dev.load_ptx("forms.ptx", ptx).unwrap();
    (dev, m)
}

fn forms() -> String {
    common::read(&common::repo_root().join("tests/data/texture/forms.ptx"))
}

fn fmt(channel: ChannelType, channels: u8) -> Format {
    Format { channel, channels }
}

fn sampler(mode: AddressMode, linear: bool) -> Sampler {
    Sampler {
        address: [mode; 3],
        linear_filter: linear,
        read_normalized: false,
        normalized_coords: false,
        border: [0.0; 4],
    }
}

fn run(
    dev: &Device,
    m: ModuleId,
    name: &str,
    threads: u32,
    args: &[KernelArg],
) -> Result<(), Error> {
    let k = dev.kernel(m, Some(name)).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        shared_bytes: 0,
    };
    dev.launch_with(m, k, cfg, args).map(|_| ())
}

fn words(dev: &Device, addr: u64, n: usize) -> Vec<u32> {
    let mut b = vec![0u8; 4 * n];
    dev.read(addr, &mut b).unwrap();
    b.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn floats(dev: &Device, addr: u64, n: usize) -> Vec<f32> {
    words(dev, addr, n)
        .into_iter()
        .map(f32::from_bits)
        .collect()
}

fn f32_bytes(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A 2D array of `w`×`h` f32 texels `y * 10 + x` (one channel).
fn array_2d(dev: &mut Device, w: u64, h: u64, layers: u64, depth: u64) -> u64 {
    let desc = ArrayDesc {
        format: fmt(ChannelType::F32, 1),
        width: w,
        height: h,
        depth,
        layers,
        surface: true,
        cube: Cube::No,
    };
    let a = dev.array_create(desc).unwrap();
    let n = (w * h.max(1) * layers.max(1) * depth.max(1)) as usize;
    dev.array_write(a, 0, &f32_bytes((0..n).map(|i| i as f32)))
        .unwrap();
    a
}

#[test]
fn tex1dfetch_reads_linear_memory_and_zeros_out_of_range() {
    for engine in ENGINES {
        let (mut dev, m) = load(engine, &forms());
        let buf = dev.alloc(16).unwrap();
        dev.write(buf, &f32_bytes([1.5, 2.5, 3.5, 4.5])).unwrap();
        let res = Resource::Linear {
            addr: buf,
            format: fmt(ChannelType::F32, 1),
            width: 4,
        };
        let t = dev
            .texture_create(res, sampler(AddressMode::Clamp, false))
            .unwrap();
        let out = dev.alloc(4 * 6).unwrap();
        run(
            &dev,
            m,
            "t1",
            6,
            &[KernelArg::U64(t), KernelArg::Ptr(out), KernelArg::I32(6)],
        )
        .unwrap();
        assert_eq!(
            floats(&dev, out, 6),
            [1.5, 2.5, 3.5, 4.5, 0.0, 0.0],
            "{engine:?}"
        );
    }
}

#[test]
fn tex2d_point_and_linear_over_arrays() {
    for engine in ENGINES {
        let (mut dev, m) = load(engine, &forms());
        let a = array_2d(&mut dev, 4, 3, 0, 0);
        let point = dev
            .texture_create(Resource::Array(a), sampler(AddressMode::Clamp, false))
            .unwrap();
        let linear = dev
            .texture_create(Resource::Array(a), sampler(AddressMode::Clamp, true))
            .unwrap();
        let out = dev.alloc(16 * 4).unwrap();
        let args = |t| {
            [
                KernelArg::U64(t),
                KernelArg::Ptr(out),
                KernelArg::F32(0.5),
                KernelArg::F32(1.5),
            ]
        };
        run(&dev, m, "t2", 4, &args(point)).unwrap();
        let got = floats(&dev, out, 16);
        for i in 0..4 {
            assert_eq!(
                got[4 * i..4 * i + 4],
                [4.0 + i as f32, 0.0, 0.0, 1.0],
                "{engine:?}"
            );
        }
        // Linear at (x + 0.5, 1.5) with x integral: between texels x and
        // x+1 of row 1 (weights 1/2), the last clamped.
        let out2 = dev.alloc(4 * 4).unwrap();
        let args2 = [
            KernelArg::U64(linear),
            KernelArg::Ptr(out2),
            KernelArg::F32(1.0),
            KernelArg::F32(1.5),
        ];
        run(&dev, m, "t2f", 4, &args2).unwrap();
        assert_eq!(floats(&dev, out2, 4), [4.5, 5.5, 6.5, 7.0], "{engine:?}");
        // Gather: channel x of T[i,j+1], T[i+1,j+1], T[i+1,j], T[i,j]
        // around (1.0, 1.5): i = 0, j = 1.
        run(&dev, m, "tg", 1, &args2).unwrap();
        assert_eq!(floats(&dev, out2, 4), [8.0, 9.0, 5.0, 4.0], "{engine:?}");
        // `tex.level` and `tex.grad` read level 0.
        run(&dev, m, "tlod", 2, &args(point)).unwrap();
        assert_eq!(floats(&dev, out, 2), [4.0, 5.0]);
        run(&dev, m, "tgrad", 2, &args(point)).unwrap();
        assert_eq!(floats(&dev, out, 2), [4.0, 5.0]);
    }
}

#[test]
fn integer_and_normalized_reads() {
    for engine in ENGINES {
        let (mut dev, m) = load(engine, &forms());
        let desc = ArrayDesc {
            format: fmt(ChannelType::U8, 4),
            width: 2,
            height: 1,
            depth: 0,
            layers: 0,
            surface: false,
            cube: Cube::No,
        };
        let a = dev.array_create(desc).unwrap();
        dev.array_write(a, 0, &[1, 2, 255, 128, 5, 6, 7, 8])
            .unwrap();
        let t = dev
            .texture_create(Resource::Array(a), sampler(AddressMode::Clamp, false))
            .unwrap();
        let out = dev.alloc(8).unwrap();
        let args = [
            KernelArg::U64(t),
            KernelArg::Ptr(out),
            KernelArg::F32(0.0),
            KernelArg::F32(0.0),
        ];
        run(&dev, m, "t2u", 2, &args).unwrap();
        let mut b = [0u8; 8];
        dev.read(out, &mut b).unwrap();
        assert_eq!(b, [1, 2, 255, 128, 5, 6, 7, 8], "{engine:?}");
        let mut norm = sampler(AddressMode::Clamp, true);
        norm.read_normalized = true;
        let tn = dev.texture_create(Resource::Array(a), norm).unwrap();
        let out4 = dev.alloc(16).unwrap();
        let args = [
            KernelArg::U64(tn),
            KernelArg::Ptr(out4),
            KernelArg::F32(0.5),
            KernelArg::F32(0.5),
        ];
        run(&dev, m, "t2", 1, &args).unwrap();
        assert_eq!(
            floats(&dev, out4, 4),
            [1.0 / 255.0, 2.0 / 255.0, 1.0, 128.0 / 255.0]
        );
        let bad = dev.texture_create(
            Resource::Array(a),
            Sampler {
                read_normalized: false,
                ..norm
            },
        );
        assert!(bad.is_err(), "linear filtering of integers is refused");
    }
}

#[test]
fn layered_and_3d_textures() {
    for engine in ENGINES {
        let (mut dev, m) = load(engine, &forms());
        let a2 = array_2d(&mut dev, 4, 2, 3, 0);
        let t = dev
            .texture_create(Resource::Array(a2), sampler(AddressMode::Clamp, false))
            .unwrap();
        let out = dev.alloc(16).unwrap();
        // Layer 2, row 1, x 0.5..3.5: texels 2*8 + 4 + x.
        let args = [
            KernelArg::U64(t),
            KernelArg::Ptr(out),
            KernelArg::F32(0.5),
            KernelArg::F32(1.5),
            KernelArg::I32(2),
        ];
        run(&dev, m, "tl", 4, &args).unwrap();
        assert_eq!(floats(&dev, out, 4), [20.0, 21.0, 22.0, 23.0], "{engine:?}");
        let a1 = array_2d(&mut dev, 4, 0, 2, 0);
        let t1 = dev
            .texture_create(Resource::Array(a1), sampler(AddressMode::Clamp, false))
            .unwrap();
        let args = [
            KernelArg::U64(t1),
            KernelArg::Ptr(out),
            KernelArg::F32(0.5),
            KernelArg::I32(1),
        ];
        run(&dev, m, "tl1", 4, &args).unwrap();
        assert_eq!(floats(&dev, out, 4), [4.0, 5.0, 6.0, 7.0], "{engine:?}");
        let a3 = array_2d(&mut dev, 4, 2, 0, 2);
        let t3 = dev
            .texture_create(Resource::Array(a3), sampler(AddressMode::Border, false))
            .unwrap();
        let args = [
            KernelArg::U64(t3),
            KernelArg::Ptr(out),
            KernelArg::F32(1.5),
            KernelArg::F32(0.5),
            KernelArg::F32(1.5),
        ];
        run(&dev, m, "t3", 4, &args).unwrap();
        assert_eq!(floats(&dev, out, 4), [9.0, 10.0, 11.0, 0.0], "{engine:?}");
    }
}

#[test]
fn surfaces_read_and_write_bytes() {
    for engine in ENGINES {
        let (mut dev, m) = load(engine, &forms());
        let src = array_2d(&mut dev, 4, 2, 0, 0);
        let dst = array_2d(&mut dev, 4, 2, 0, 0);
        let s = dev.surface_create(Resource::Array(src)).unwrap();
        let d = dev.surface_create(Resource::Array(dst)).unwrap();
        let k = dev.kernel(m, Some("s2")).unwrap();
        let cfg = LaunchConfig {
            grid: [2, 1, 1],
            block: [4, 1, 1],
            shared_bytes: 0,
        };
        dev.launch_with(
            m,
            k,
            cfg,
            &[KernelArg::U64(s), KernelArg::U64(d), KernelArg::I32(4)],
        )
        .unwrap();
        let mut b = vec![0u8; 32];
        dev.array_read(dst, 0, &mut b).unwrap();
        let got: Vec<f32> = b
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(
            got,
            (0..8).map(|i| 2.0 * i as f32).collect::<Vec<_>>(),
            "{engine:?}"
        );
        // Five threads on a 4-wide surface: the fifth reads out of bounds
        // under `.trap`.
        let err = dev
            .launch_with(
                m,
                k,
                LaunchConfig {
                    block: [5, 1, 1],
                    ..cfg
                },
                &[KernelArg::U64(s), KernelArg::U64(d), KernelArg::I32(4)],
            )
            .unwrap_err();
        let Error::Launch(e) = err else {
            panic!("{err}")
        };
        assert_eq!(e.kind.name(), "illegal_address", "{e}");
        assert_eq!(e.thread, [4, 0, 0]);
    }
}

#[test]
fn a_handle_that_is_no_live_object_faults_at_its_line() {
    for engine in ENGINES {
        let (mut dev, m) = load(engine, &forms());
        let a = array_2d(&mut dev, 4, 2, 0, 0);
        let t = dev
            .texture_create(Resource::Array(a), sampler(AddressMode::Clamp, false))
            .unwrap();
        dev.object_destroy(t).unwrap();
        let out = dev.alloc(64).unwrap();
        for h in [0, t] {
            let args = [
                KernelArg::U64(h),
                KernelArg::Ptr(out),
                KernelArg::F32(0.0),
                KernelArg::F32(0.0),
            ];
            let err = run(&dev, m, "t2", 2, &args).unwrap_err();
            let Error::Launch(e) = err else {
                panic!("{err}")
            };
            assert_eq!(e.kind.name(), "bad_handle", "{e}");
            assert!(e.message.contains("not a live texture object"), "{e}");
            assert!(e.location.contains("forms.ptx:"), "{e}");
        }
    }
}

const QUERIES: &str = "
.version 8.0
.target sm_80
.address_size 64
.visible .entry q(.param .u64 t, .param .u64 s, .param .u64 o){
 .reg .b64 %rd<4>; .reg .pred %p<3>; .reg .b32 %r<12>;
 ld.param.u64 %rd1, [t]; ld.param.u64 %rd2, [s]; ld.param.u64 %rd3, [o];
 txq.width.b32 %r1, [%rd1];
 txq.height.b32 %r2, [%rd1];
 txq.filter_mode.b32 %r3, [%rd1];
 txq.addr_mode_1.b32 %r4, [%rd1];
 txq.channel_data_type.b32 %r5, [%rd1];
 suq.width.b32 %r6, [%rd2];
 suq.array_size.b32 %r7, [%rd2];
 istypep.texref %p1, %rd1;
 istypep.surfref %p2, %rd1;
 selp.u32 %r8, 1, 0, %p1;
 selp.u32 %r9, 1, 0, %p2;
 mov.u32 %r10, 0;
 mov.u32 %r11, 7;
 sured.b.add.2d.u32.trap [%rd2, {%r10, %r10}], %r11;
 sured.b.max.2d.s32.clamp [%rd2, {%r10, %r11}], %r11;
 st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};
 st.global.v4.u32 [%rd3+16], {%r5, %r6, %r7, %r8};
 st.global.u32 [%rd3+32], %r9;
 ret;
}";

#[test]
fn queries_istypep_and_reductions() {
    for engine in ENGINES {
        let (mut dev, m) = load(engine, QUERIES);
        let a = array_2d(&mut dev, 4, 2, 0, 0);
        let t = dev
            .texture_create(
                Resource::Array(a),
                Sampler {
                    address: [AddressMode::Clamp, AddressMode::Mirror, AddressMode::Wrap],
                    ..sampler(AddressMode::Clamp, true)
                },
            )
            .unwrap();
        let desc = ArrayDesc {
            format: fmt(ChannelType::S32, 1),
            width: 3,
            height: 2,
            depth: 0,
            layers: 5,
            surface: true,
            cube: Cube::No,
        };
        let sa = dev.array_create(desc).unwrap();
        let s = dev.surface_create(Resource::Array(sa)).unwrap();
        let out = dev.alloc(36).unwrap();
        run(
            &dev,
            m,
            "q",
            1,
            &[KernelArg::U64(t), KernelArg::U64(s), KernelArg::Ptr(out)],
        )
        .unwrap();
        assert_eq!(
            words(&dev, out, 9),
            [4, 2, 1, 2, 0x20, 3, 5, 1, 0],
            "{engine:?}"
        );
        let mut b = [0u8; 24];
        dev.array_read(sa, 0, &mut b).unwrap();
        // add 7 at (0, 0); max with 7 at (0, 7) clamped to row 1.
        assert_eq!(b[0], 7, "{engine:?}");
        assert_eq!(b[12], 7, "{engine:?}");
    }
}

/// One kernel whose body is `body` (registers declared).
fn kernel_with(body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p){{\n\
         .reg .b64 %rd<3>; .reg .f32 %f<9>; .reg .b32 %r<9>; .reg .pred %p<2>;\n\
         ld.param.u64 %rd1, [p];\n{body}\nret;\n}}\n"
    )
}

#[test]
fn forms_not_executed_are_unsupported_at_their_line() {
    let cases = [
        (
            "tex.2dms.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2, %r3, %r4}];",
            "multisample",
        ),
        (
            "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, %rd2, {%f5, %f6}];",
            "sampler",
        ),
        (
            "sust.p.2d.v4.b32.trap [%rd1, {%r1, %r2}], {%r3, %r4, %r5, %r6};",
            "formatted",
        ),
        (
            "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}], {%r1, %r2}, %f7;",
            "depth compare",
        ),
    ];
    for (line, what) in cases {
        // The module loads; the kernel's launches are refused.
        let mut dev = Device::new(Options::default());
        let m = dev.load_ptx("bad.ptx", &kernel_with(line)).unwrap();
        let k = dev.kernel(m, Some("k")).unwrap();
        let err = dev.unsupported(m, k).expect(line).to_string();
        assert!(err.contains("bad.ptx:7:1: unsupported"), "{line}: {err}");
        assert!(err.contains(what), "{line}: {err}");
    }
    let texref = ".version 8.0\n.target sm_80\n.address_size 64\n.global .texref t;\n";
    let err = Device::new(Options::default())
        .load_ptx("ref.ptx", texref)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("ref.ptx:4:") && err.contains("texture and surface objects"),
        "{err}"
    );
}
