//! Cubemap textures (`tex.cube`, `tex.acube`, `tld4` on cubes), `tld4` on
//! layered 2D textures, residency predicates, `txq.level`, texel offsets
//! and f16 results, on both engines (issue 27). The corpus sample `cuda/texture_cube` runs NVRTC's
//! output of the CUDA C++ forms against an independent reference.

mod common;

use warpjit::runtime::texture::{ArrayDesc, Resource};
use warpjit::runtime::{Device, Engine, KernelArg, LaunchConfig, Options};
use warpjit::sem::texture::{AddressMode, ChannelType, Cube, Format, Sampler};
use warpjit::sem::texture_cube::cube_face;
use warpjit::Error;

const ENGINES: [Engine; 2] = [Engine::Interp, Engine::Jit];

const KERNEL: &str = "
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 cube, .param .u64 acube, .param .u64 layers, .param .u64 o){
 .reg .b64 %rd<5>; .reg .pred %p<3>; .reg .b32 %r<12>; .reg .f32 %f<40>;
 ld.param.u64 %rd1, [cube]; ld.param.u64 %rd2, [acube]; ld.param.u64 %rd3, [layers];
 ld.param.u64 %rd4, [o];
 mov.f32 %f1, 0f3F800000; mov.f32 %f2, 0f3E800000; mov.f32 %f3, 0fBF000000;
 tex.cube.v4.f32.f32 {%f10, %f11, %f12, %f13}|%p1, [%rd1, {%f1, %f2, %f3, %f3}];
 mov.f32 %f4, 0fBE4CCCCD; mov.f32 %f5, 0fC0400000; mov.f32 %f6, 0f3F19999A;
 tex.cube.v4.f32.f32 {%f14, %f15, %f16, %f17}, [%rd1, {%f4, %f5, %f6, %f6}];
 tex.cube.v4.f32.f32 {%f18, %f19, %f20, %f21}, [%rd1, {%f1, %f1, %f1, %f1}];
 mov.u32 %r1, 5;
 tex.acube.v4.f32.f32 {%f22, %f23, %f24, %f25}, [%rd2, {%r1, %f1, %f2, %f3}];
 mov.f32 %f7, 0f00000000;
 tld4.r.cube.v4.f32.f32 {%f26, %f27, %f28, %f29}, [%rd1, {%f1, %f7, %f7, %f7}];
 mov.u32 %r2, 1; mov.f32 %f8, 0f3F800000;
 tld4.r.a2d.v4.f32.f32 {%f30, %f31, %f32, %f33}|%p2, [%rd3, {%r2, %f8, %f8, %f8}];
 mov.u32 %r3, 0;
 txq.level.width.b32 %r4, [%rd1], %r3;
 txq.level.height.b32 %r5, [%rd1], %r2;
 txq.array_size.b32 %r6, [%rd2];
 selp.u32 %r7, 1, 0, %p1;
 selp.u32 %r8, 1, 0, %p2;
 st.global.v4.f32 [%rd4], {%f10, %f14, %f18, %f22};
 st.global.v4.f32 [%rd4+16], {%f26, %f27, %f28, %f29};
 st.global.v4.f32 [%rd4+32], {%f30, %f31, %f32, %f33};
 st.global.v4.u32 [%rd4+48], {%r4, %r5, %r6, %r7};
 st.global.u32 [%rd4+64], %r8;
 ret;
}
.visible .entry flat(.param .u64 cube, .param .u64 o){
 .reg .b64 %rd<3>; .reg .f32 %f<8>;
 ld.param.u64 %rd1, [cube]; ld.param.u64 %rd2, [o];
 mov.f32 %f1, 0f3F000000;
 tex.2d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd1, {%f1, %f1}];
 st.global.f32 [%rd2], %f2;
 ret;
}
";

fn f32_bytes(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A 2x2 f32 array of `layers` layers; texel (x, y) of layer L holds
/// `10 L + 2 y + x`.
fn array(dev: &mut Device, layers: u64, cube: Cube) -> u64 {
    let desc = ArrayDesc {
        format: Format {
            channel: ChannelType::F32,
            channels: 1,
        },
        width: 2,
        height: 2,
        depth: 0,
        layers,
        surface: false,
        cube,
    };
    let a = dev.array_create(desc).unwrap();
    let texels = (0..layers * 4).map(|i| (10 * (i / 4) + i % 4) as f32);
    dev.array_write(a, 0, &f32_bytes(texels)).unwrap();
    a
}

fn point() -> Sampler {
    Sampler {
        address: [AddressMode::Clamp; 3],
        linear_filter: false,
        read_normalized: false,
        normalized_coords: false,
        border: [0.0; 4],
    }
}

#[test]
fn cubemaps_gathers_residency_and_level_queries() {
    for engine in ENGINES {
        let mut dev = Device::new(Options {
            arena_bytes: 16 << 20,
            engine,
            ..Options::default()
        });
        let m = dev.load_ptx("cube.ptx", KERNEL).unwrap();
        let cube = array(&mut dev, 6, Cube::Single);
        let acube = array(&mut dev, 12, Cube::Layered);
        let layers = array(&mut dev, 3, Cube::No);
        let [tc, ta, tl] =
            [cube, acube, layers].map(|a| dev.texture_create(Resource::Array(a), point()).unwrap());
        let out = dev.alloc(80).unwrap();
        let k = dev.kernel(m, Some("k")).unwrap();
        let cfg = LaunchConfig {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            shared_bytes: 0,
        };
        let args = [tc, ta, tl, out].map(KernelArg::U64);
        dev.launch_with(m, k, cfg, &args).unwrap();
        let mut b = [0u8; 68];
        dev.read(out, &mut b).unwrap();
        let w: Vec<u32> = b
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let f: Vec<f32> = w.iter().map(|&x| f32::from_bits(x)).collect();
        // (1, 0.25, -0.5): face +x, s = 0.75, t = 0.375: texel (1, 0).
        // (-0.2, -3, 0.6): face -y, s = 0.4667, t = 0.4: texel (0, 0) of face 3.
        // (1, 1, 1): a tie, taken by +z (face 4): s = 1, t = 0: texel (1, 0).
        // acube layer 5 clamps to cubemap 1: layer 6, texel (1, 0).
        assert_eq!(f[..4], [1.0, 30.0, 41.0, 61.0], "{engine:?}");
        // tld4 at (1, 0, 0): face 0 at (s, t) = (0.5, 0.5): texels
        // (0, 1), (1, 1), (1, 0), (0, 0).
        assert_eq!(f[4..8], [2.0, 3.0, 1.0, 0.0], "{engine:?}");
        // tld4.a2d of layer 1 at (1, 1): the same corners of layer 1.
        assert_eq!(f[8..12], [12.0, 13.0, 11.0, 10.0], "{engine:?}");
        // txq.level: level 0's width; level 1 does not exist; acube: 2 cubes;
        // both residency predicates true.
        assert_eq!(w[12..17], [2, 0, 2, 1, 1], "{engine:?}");

        // A 2D fetch of a cubemap is a fault that names it.
        let flat = dev.kernel(m, Some("flat")).unwrap();
        let err = dev
            .launch_with(m, flat, cfg, &[KernelArg::U64(tc), KernelArg::U64(out)])
            .unwrap_err();
        let Error::Launch(e) = err else {
            panic!("{err}")
        };
        assert_eq!(e.kind.name(), "bad_handle", "{e}");
        assert!(e.message.contains("is a cubemap texture"), "{e}");
        assert!(e.location.contains("cube.ptx:"), "{e}");
    }
}

#[test]
fn cube_faces_follow_the_programming_guide_table() {
    // (direction, face, s, t): each face at its centre and off-centre.
    let cases: [([f32; 3], u64, f32, f32); 8] = [
        ([2.0, 0.5, -1.0], 0, 0.75, 0.375),
        ([-2.0, 0.5, -1.0], 1, 0.25, 0.375),
        ([0.5, 2.0, -1.0], 2, 0.625, 0.25),
        ([0.5, -2.0, -1.0], 3, 0.625, 0.75),
        ([0.5, -1.0, 2.0], 4, 0.625, 0.75),
        ([0.5, -1.0, -2.0], 5, 0.375, 0.75),
        // Ties: z before y before x; the sign bit picks the face.
        ([1.0, 1.0, 0.0], 2, 1.0, 0.5),
        ([-0.0, 0.0, -0.0], 5, f32::NAN, f32::NAN),
    ];
    for (d, face, s, t) in cases {
        let (f, gs, gt) = cube_face(d);
        assert_eq!(f, face, "{d:?}");
        if s.is_nan() {
            assert!(gs.is_nan() && gt.is_nan(), "{d:?}");
        } else {
            assert_eq!((gs, gt), (s, t), "{d:?}");
        }
    }
}

#[test]
fn cube_array_descriptors_are_checked() {
    let mut dev = Device::new(Options::default());
    let desc = |w, h, layers, cube| ArrayDesc {
        format: Format {
            channel: ChannelType::F32,
            channels: 1,
        },
        width: w,
        height: h,
        depth: 0,
        layers,
        surface: true,
        cube,
    };
    assert!(dev.array_create(desc(4, 4, 6, Cube::Single)).is_ok());
    assert!(dev.array_create(desc(4, 4, 18, Cube::Layered)).is_ok());
    for bad in [
        desc(4, 2, 6, Cube::Single),
        desc(4, 4, 12, Cube::Single),
        desc(4, 4, 7, Cube::Layered),
        desc(4, 4, 0, Cube::Layered),
    ] {
        assert!(dev.array_create(bad).is_err(), "{bad:?}");
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
fn cube_forms_ptx_does_not_have_are_errors_at_their_line() {
    let cases = [
        (
            "tex.cube.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2, %r3, %r4}];",
            "coordinates are .f32",
        ),
        (
            "tld4.r.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f8}];",
            "`tld4` reads",
        ),
        (
            "suld.b.cube.b32.trap {%r1}, [%rd1, {%r1, %r2, %r3, %r4}];",
            "a cubemap's faces are .a2d layers",
        ),
        (
            "suld.b.2d.v4.b32.trap {%r1, %r2, %r3, %r4}|%p1, [%rd1, {%r1, %r2}];",
            "no residency predicate",
        ),
        (
            "tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2}], {8, 0};",
            "in -8..=7",
        ),
        (
            "tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2}], {1, 0, 0, 0};",
            "offset vector of 2",
        ),
        (
            "tex.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3, %f4}], {1, 0, 0, 0};",
            "cubemaps take no offset",
        ),
        (
            "tex.2d.v2.f32.f32 {%f1, %f2}, [%rd1, {%f1, %f2}];",
            ".v2.f16x2",
        ),
        (
            "txq.level.filter_mode.b32 %r1, [%rd1], %r2;",
            "`txq.level` queries",
        ),
    ];
    for (line, what) in cases {
        let err = Device::new(Options::default())
            .load_ptx("bad.ptx", &kernel_with(line))
            .map(|_| ())
            .expect_err(line)
            .to_string();
        assert!(err.contains("bad.ptx:7:"), "{line}: {err}");
        assert!(err.contains(what), "{line}: {err}");
    }
}

const OFFSETS: &str = "
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 t, .param .u64 o){
 .reg .b64 %rd<3>; .reg .b32 %r<12>; .reg .f32 %f<20>; .reg .f16 %h<5>; .reg .f16x2 %x<3>;
 ld.param.u64 %rd1, [t]; ld.param.u64 %rd2, [o];
 mov.u32 %r1, 1;
 tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r1}], {-1, 0};
 mov.f32 %f5, 0f3FC00000;
 tex.2d.v4.f32.f32 {%f6, %f7, %f8, %f9}, [%rd1, {%f5, %f5}], {0, -1};
 tld4.r.2d.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd1, {%f5, %f5}], {-1, -1};
 tex.2d.v4.f16.f32 {%h1, %h2, %h3, %h4}, [%rd1, {%f5, %f5}];
 tex.2d.v2.f16x2.f32 {%x1, %x2}, [%rd1, {%f5, %f5}];
 mov.b32 %r2, {%h1, %h4};
 mov.b32 %r3, %x1;
 mov.b32 %r4, %x2;
 st.global.v4.f32 [%rd2], {%f1, %f6, %f10, %f11};
 st.global.v4.f32 [%rd2+16], {%f12, %f13, %f13, %f13};
 st.global.v4.u32 [%rd2+32], {%r2, %r3, %r4, %r4};
 ret;
}
";

#[test]
fn texel_offsets_and_f16_results() {
    for engine in ENGINES {
        let mut dev = Device::new(Options {
            arena_bytes: 16 << 20,
            engine,
            ..Options::default()
        });
        let m = dev.load_ptx("off.ptx", OFFSETS).unwrap();
        // Layer 0 of `array`: texel (x, y) = 2y + x; linear filtering off.
        let a = array(&mut dev, 1, Cube::No);
        let t = dev.texture_create(Resource::Array(a), point()).unwrap();
        let out = dev.alloc(48).unwrap();
        let k = dev.kernel(m, Some("k")).unwrap();
        let cfg = LaunchConfig {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            shared_bytes: 0,
        };
        dev.launch_with(m, k, cfg, &[KernelArg::U64(t), KernelArg::U64(out)])
            .unwrap();
        let mut b = [0u8; 48];
        dev.read(out, &mut b).unwrap();
        let w: Vec<u32> = b
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let f: Vec<f32> = w.iter().map(|&x| f32::from_bits(x)).collect();
        // (1, 1) + (-1, 0): texel (0, 1) = 2; (1.5, 1.5) + (0, -1): (1, 0) = 1;
        // tld4 at (1.5, 1.5): i = j = 1, offset to (0, 0): texels (0, 1),
        // (1, 1), (1, 0), (0, 0).
        assert_eq!(f[..6], [2.0, 1.0, 2.0, 3.0, 1.0, 0.0], "{engine:?}");
        // Texel (1, 1) = 3 as f16 (0x4200); alpha 1.0 (0x3c00); green 0.
        assert_eq!(
            w[8..11],
            [0x3c00_4200, 0x0000_4200, 0x3c00_0000],
            "{engine:?}"
        );
    }
}
