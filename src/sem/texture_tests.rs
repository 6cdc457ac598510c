//! Unit tests of `sem::texture`: addressing, filtering, read modes,
//! gathers, surface placement and queries (PTX ISA §9.7.10-11, the CUDA
//! Programming Guide's texture-fetching formulas).

use super::texture::*;

/// Texels as little-endian bytes at address 0.
fn mem(bytes: Vec<u8>) -> impl FnMut(u64, u64) -> Result<u64, ()> {
    move |a, n| {
        let mut v = [0u8; 8];
        let (a, n) = (a as usize, n as usize);
        v[..n].copy_from_slice(bytes.get(a..a + n).ok_or(())?);
        Ok(u64::from_le_bytes(v))
    }
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn layout(dims: u8, w: u64, h: u64, fb: u64) -> Layout {
    Layout {
        base: 0,
        dims,
        layered: false,
        cube: Cube::No,
        linear: false,
        width: w,
        height: h,
        depth: 1,
        layers: 1,
        pitch: w * fb,
        slice: w * h * fb,
        layer_stride: w * h * fb,
    }
}

fn sampler(mode: AddressMode, linear: bool, norm: bool) -> Sampler {
    Sampler {
        address: [mode; 3],
        linear_filter: linear,
        read_normalized: false,
        normalized_coords: norm,
        border: [7.0, 8.0, 9.0, 10.0],
    }
}

const F1: Format = Format {
    channel: ChannelType::F32,
    channels: 1,
};

fn tex1(mode: AddressMode, linear: bool, norm: bool) -> TexView {
    TexView {
        layout: layout(1, 4, 1, 4),
        format: F1,
        sampler: sampler(mode, linear, norm),
    }
}

fn x(view: &TexView, c: f32, data: &[f32]) -> f32 {
    let r = view.fetch(Coords::F32([c, 0.0, 0.0]), 0, &mut mem(f32s(data)));
    f32::from_bits(r.unwrap()[0])
}

const D: [f32; 4] = [10.0, 20.0, 30.0, 40.0];

#[test]
fn point_sampling_and_address_modes() {
    let clamp = tex1(AddressMode::Clamp, false, false);
    assert_eq!(x(&clamp, 1.99, &D), 20.0);
    assert_eq!(x(&clamp, -3.0, &D), 10.0);
    assert_eq!(x(&clamp, 9.0, &D), 40.0);
    // Wrap and mirror need normalized coordinates; without, they clamp.
    assert_eq!(x(&tex1(AddressMode::Wrap, false, false), 5.0, &D), 40.0);
    let wrap = tex1(AddressMode::Wrap, false, true);
    assert_eq!(x(&wrap, 1.25, &D), 20.0);
    assert_eq!(x(&wrap, -0.25, &D), 40.0);
    let mirror = tex1(AddressMode::Mirror, false, true);
    // Mirror reflects texel indices (as an H100 does): 1.25·4 = 5 is texel 2.
    assert_eq!(x(&mirror, 1.25, &D), 30.0);
    assert_eq!(x(&mirror, 1.3, &D), 30.0);
    assert_eq!(x(&mirror, -0.1, &D), 10.0);
    let border = tex1(AddressMode::Border, false, false);
    assert_eq!(x(&border, 4.0, &D), 7.0);
    assert_eq!(x(&border, -0.5, &D), 7.0);
    assert_eq!(x(&border, 3.5, &D), 40.0);
}

#[test]
fn linear_weights_are_9_bit_fixed_point() {
    assert_eq!(linear_weight(1.0), (0, 0.5));
    // frac 1/1024 rounds to 0 in 8 fraction bits, 1/256 stays.
    assert_eq!(linear_weight(0.5 + 1.0 / 1024.0), (0, 0.0));
    assert_eq!(linear_weight(0.5 + 1.0 / 256.0), (0, 1.0 / 256.0));
    // Close below 1.0 rounds up to 1.0 (the ninth bit).
    assert_eq!(linear_weight(1.5 - 1.0 / 1024.0), (0, 1.0));
    assert_eq!(linear_weight(0.25), (-1, 0.75));
    // Ties round up: frac 200.5/256 is 201/256.
    assert_eq!(linear_weight(0.5 + 200.5 / 256.0), (0, 201.0 / 256.0));
}

#[test]
fn linear_filtering_1d_and_2d() {
    let clamp = tex1(AddressMode::Clamp, true, false);
    assert_eq!(x(&clamp, 1.0, &D), 15.0);
    assert_eq!(x(&clamp, 0.2, &D), 10.0);
    // α = round(0.3 * 256) / 256 = 77/256.
    let a = 77.0f32 / 256.0;
    assert_eq!(x(&clamp, 1.8, &D), (1.0 - a) * 20.0 + a * 30.0);
    let border = tex1(AddressMode::Border, true, false);
    assert_eq!(x(&border, 4.0, &D), 0.5 * 40.0 + 0.5 * 7.0);
    // 2D corner weights are the products rounded to 8 fraction bits, ties
    // to even (an H100's): α = 168, β = 48 give 72, 136, 16, 32 (/256).
    let t = TexView {
        layout: layout(2, 2, 2, 4),
        format: F1,
        sampler: sampler(AddressMode::Clamp, true, false),
    };
    let d = [9.25, 18.5, 10.25, -4.75];
    let r = t.fetch(
        Coords::F32([0.5 + 168.0 / 256.0, 0.5 + 48.0 / 256.0, 0.0]),
        0,
        &mut mem(f32s(&d)),
    );
    assert_eq!(f32::from_bits(r.unwrap()[0]), 3194.0 / 256.0);
    let t = TexView {
        layout: layout(2, 2, 2, 4),
        format: F1,
        sampler: sampler(AddressMode::Clamp, true, false),
    };
    let r = t.fetch(Coords::F32([1.0, 1.0, 0.0]), 0, &mut mem(f32s(&D)));
    assert_eq!(f32::from_bits(r.unwrap()[0]), 25.0);
    // Missing channels read 0 and alpha 1.
    assert_eq!(r.unwrap()[1..], [0, 0, 1f32.to_bits()]);
}

#[test]
fn read_modes() {
    let u8n = |raw: u8| f32::from_bits(channel_value(ChannelType::U8, raw as u64, true));
    assert_eq!(u8n(255), 1.0);
    assert_eq!(u8n(128), 128.0 / 255.0);
    let s8n = |raw: i8| f32::from_bits(channel_value(ChannelType::S8, raw as u8 as u64, true));
    assert_eq!(s8n(-128), -1.0);
    assert_eq!(s8n(-127), -1.0);
    assert_eq!(s8n(127), 1.0);
    assert_eq!(channel_value(ChannelType::S16, 0xfffe, false), -2i32 as u32);
    assert_eq!(channel_value(ChannelType::U16, 0xfffe, false), 0xfffe);
    assert_eq!(
        channel_value(ChannelType::F16, 0x3c00, false),
        1f32.to_bits()
    );
}

#[test]
fn linear_memory_reads_zero_out_of_range() {
    let mut l = layout(1, 4, 1, 4);
    l.linear = true;
    let t = TexView {
        layout: l,
        format: F1,
        sampler: sampler(AddressMode::Clamp, false, false),
    };
    let f = |i| {
        t.fetch(Coords::S32([i, 0, 0]), 0, &mut mem(f32s(&D)))
            .unwrap()
    };
    assert_eq!(f(2)[0], 30f32.to_bits());
    assert_eq!(f(4), [0; 4]);
    assert_eq!(f(-1), [0; 4]);
}

#[test]
fn gather_order_is_counter_clockwise_from_lower_left() {
    let t = TexView {
        layout: layout(2, 2, 2, 4),
        format: F1,
        sampler: sampler(AddressMode::Clamp, false, false),
    };
    let r = t
        .gather(0, [1.0, 1.0], 0, [0; 2], &mut mem(f32s(&D)))
        .unwrap();
    // T[0,1], T[1,1], T[1,0], T[0,0].
    assert_eq!(r.map(f32::from_bits), [30.0, 40.0, 20.0, 10.0]);
}

#[test]
fn surface_placement() {
    let s = SurfView {
        layout: layout(2, 4, 2, 4),
        format: F1,
    };
    assert_eq!(s.place(4, 12, 1, 0, 0, Oob::Trap), SurfPlace::Addr(16 + 12));
    assert_eq!(s.place(4, 16, 0, 0, 0, Oob::Trap), SurfPlace::OutOfBounds);
    assert_eq!(s.place(4, 16, 0, 0, 0, Oob::Zero), SurfPlace::Skip);
    assert_eq!(
        s.place(4, 16, 5, 0, 0, Oob::Clamp),
        SurfPlace::Addr(16 + 12)
    );
    assert_eq!(s.place(4, -4, -1, 0, 0, Oob::Clamp), SurfPlace::Addr(0));
    assert_eq!(s.place(4, 2, 0, 0, 0, Oob::Trap), SurfPlace::Misaligned);
    assert_eq!(s.place(8, 8, 1, 0, 0, Oob::Trap), SurfPlace::Addr(24));
    assert_eq!(s.place(8, 12, 1, 0, 0, Oob::Trap), SurfPlace::Misaligned);
}

#[test]
fn queries_and_reductions() {
    let t = tex1(AddressMode::Border, true, true);
    assert_eq!(t.query(Query::Width), Some(4));
    assert_eq!(t.query(Query::Height), Some(0));
    assert_eq!(t.query(Query::FilterMode), Some(1));
    assert_eq!(t.query(Query::AddrMode(0)), Some(3));
    assert_eq!(t.query(Query::ChannelDataType), Some(0x20));
    assert_eq!(t.query(Query::NormalizedCoords), Some(1));
    assert_eq!(
        sured(SuredOp::Min, 4, true, 5, -3i32 as u32 as u64),
        -3i32 as u32 as u64
    );
    assert_eq!(sured(SuredOp::Min, 4, false, 5, -3i32 as u32 as u64), 5);
    assert_eq!(sured(SuredOp::Add, 4, false, 0xffff_ffff, 2), 1);
    assert_eq!(sured(SuredOp::Or, 8, false, 1 << 40, 1), (1 << 40) | 1);
}
