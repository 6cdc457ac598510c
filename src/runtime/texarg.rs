//! Texture and surface object arguments as the command line (`--arg`) and
//! the sample descriptions write them; see `args.rs` for the rest.
//!
//! `tex:GEOM:FORMAT:SIZE:FILE[:OPTION]...` makes a texture object:
//! - GEOM: `linear` (a linear buffer, what `tex1Dfetch` reads), `pitch2d`
//!   (rows in linear memory, pitch rounded up to 32 bytes), or a CUDA
//!   array: `1d`, `2d`, `3d`, `a1d`, `a2d` (layered), `cube` (a cubemap:
//!   six square faces, `+x -x +y -y +z -z`), `acube` (layered cubemaps);
//! - FORMAT: `TYPExN`, TYPE one of `u8 s8 u16 s16 u32 s32 f16 f32`, N
//!   channels 1, 2 or 4 (`f32x1`, `u8x4`);
//! - SIZE: `W`, `WxH`, `WxHxD`; layered arrays `WxL` (`a1d`), `WxHxL`
//!   (`a2d`); cubemaps `W` (faces of W x W texels), `WxL` (`acube`: L
//!   cubemaps);
//! - FILE: the texels, x fastest, then y, z, layer (a cubemap's faces are
//!   its layers, cubemap `l`'s in layers `6l..6l+5`), exactly the size;
//! - OPTIONs: `point` (default) or `linear` filtering; `clamp` (default),
//!   `wrap`, `mirror` or `border` for every dimension, or `addr=M0,M1,M2`
//!   per dimension; `border=R,G,B,A` (the border colour, default zeros);
//!   `norm` (normalized coordinates); `float` (8- and 16-bit integers read
//!   as normalized floats).
//!
//! `surf:GEOM:FORMAT:SIZE:FILE[:out=PATH]` makes a surface object over an
//! array (GEOM `1d` ... `a2d`); FILE `-` starts it zeroed; `out=PATH` writes
//! the array's texels to PATH after the launch.

use std::path::{Path, PathBuf};

use super::texture::{ArrayDesc, Resource};
use super::Device;
use crate::error::Error;
use crate::sem::texture::{AddressMode, ChannelType, Cube, Format, Sampler};

/// A texture or surface argument.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectSpec {
    pub surface: bool,
    pub geom: Geom,
    pub format: Format,
    /// Width, height, depth (1 where the geometry has none) and layers
    /// (0: not layered).
    pub size: [u64; 4],
    /// None: zeroed (`-`).
    pub input: Option<PathBuf>,
    pub output: Option<PathBuf>,
    pub sampler: Sampler,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Geom {
    Linear,
    Pitch2d,
    D1,
    D2,
    D3,
    A1d,
    A2d,
    Cube,
    Acube,
}

/// Row pitch of `pitch2d` textures: CUDA's texture pitch alignment.
const PITCH_ALIGN: u64 = 32;

fn format(text: &str) -> Option<Format> {
    let (ty, n) = text.split_once('x')?;
    let channel = match ty {
        "u8" => ChannelType::U8,
        "s8" => ChannelType::S8,
        "u16" => ChannelType::U16,
        "s16" => ChannelType::S16,
        "u32" => ChannelType::U32,
        "s32" => ChannelType::S32,
        "f16" => ChannelType::F16,
        "f32" => ChannelType::F32,
        _ => return None,
    };
    let channels = n.parse().ok().filter(|c| matches!(c, 1 | 2 | 4))?;
    Some(Format { channel, channels })
}

fn mode(text: &str) -> Option<AddressMode> {
    Some(match text {
        "clamp" => AddressMode::Clamp,
        "wrap" => AddressMode::Wrap,
        "mirror" => AddressMode::Mirror,
        "border" => AddressMode::Border,
        _ => return None,
    })
}

/// Parses the part after `tex:` or `surf:`.
pub fn parse(surface: bool, rest: &str, spec: &str) -> Result<ObjectSpec, String> {
    let e = |m: String| format!("argument `{spec}`: {m}");
    let parts: Vec<&str> = rest.split(':').collect();
    let [geom, fmt, size, file, options @ ..] = parts.as_slice() else {
        return Err(e(format!(
            "expected {}:GEOM:FORMAT:SIZE:FILE[:OPTION]...",
            if surface { "surf" } else { "tex" }
        )));
    };
    let geom = match *geom {
        "linear" if !surface => Geom::Linear,
        "pitch2d" if !surface => Geom::Pitch2d,
        "1d" => Geom::D1,
        "2d" => Geom::D2,
        "3d" => Geom::D3,
        "a1d" => Geom::A1d,
        "a2d" => Geom::A2d,
        "cube" => Geom::Cube,
        "acube" => Geom::Acube,
        g => {
            return Err(e(format!(
                "`{g}` is not a geometry (linear pitch2d 1d 2d 3d a1d a2d cube acube; surfaces: arrays)"
            )))
        }
    };
    let format = format(fmt).ok_or_else(|| {
        e(format!(
            "`{fmt}` is not a format (TYPExN: f32x1, u8x4, ...)"
        ))
    })?;
    let dims: Vec<u64> = size
        .split('x')
        .map(|d| d.parse::<u64>().ok().filter(|&v| v > 0))
        .collect::<Option<_>>()
        .ok_or_else(|| e(format!("`{size}` is not a size (W, WxH, WxHxD)")))?;
    let want = match geom {
        Geom::Linear | Geom::D1 | Geom::Cube => 1,
        Geom::Pitch2d | Geom::D2 | Geom::A1d | Geom::Acube => 2,
        Geom::D3 | Geom::A2d => 3,
    };
    if dims.len() != want {
        return Err(e(format!("{geom:?} takes a size of {want} number(s)")));
    }
    let size = match geom {
        Geom::A1d => [dims[0], 1, 1, dims[1]],
        Geom::A2d => [dims[0], dims[1], 1, dims[2]],
        Geom::Cube => [dims[0], dims[0], 1, 6],
        Geom::Acube => [dims[0], dims[0], 1, 6 * dims[1]],
        _ => [
            dims[0],
            *dims.get(1).unwrap_or(&1),
            *dims.get(2).unwrap_or(&1),
            0,
        ],
    };
    let mut s = ObjectSpec {
        surface,
        geom,
        format,
        size,
        input: (*file != "-").then(|| PathBuf::from(file)),
        output: None,
        sampler: Sampler {
            address: [AddressMode::Clamp; 3],
            linear_filter: false,
            read_normalized: false,
            normalized_coords: false,
            border: [0.0; 4],
        },
    };
    for o in options {
        let (key, value) = o.split_once('=').unwrap_or((o, ""));
        match (surface, key) {
            (true, "out") if !value.is_empty() => s.output = Some(value.into()),
            (false, "point") => s.sampler.linear_filter = false,
            (false, "linear") => s.sampler.linear_filter = true,
            (false, "norm") => s.sampler.normalized_coords = true,
            (false, "float") => s.sampler.read_normalized = true,
            (false, "addr") => {
                let modes: Vec<AddressMode> = value
                    .split(',')
                    .map(mode)
                    .collect::<Option<_>>()
                    .filter(|m: &Vec<_>| (1..=3).contains(&m.len()))
                    .ok_or_else(|| {
                        e(format!(
                            "`{o}`: addr=M0[,M1[,M2]] of clamp wrap mirror border"
                        ))
                    })?;
                for (d, m) in modes.into_iter().enumerate() {
                    s.sampler.address[d] = m;
                }
            }
            (false, "border") if !value.is_empty() => {
                let c: Vec<f32> = value
                    .split(',')
                    .map(|v| v.parse().ok())
                    .collect::<Option<_>>()
                    .filter(|c: &Vec<f32>| c.len() == 4)
                    .ok_or_else(|| e(format!("`{o}`: border=R,G,B,A")))?;
                s.sampler.border.copy_from_slice(&c);
                s.sampler.address = [AddressMode::Border; 3];
            }
            (false, m) if mode(m).is_some() => s.sampler.address = [mode(m).unwrap(); 3],
            _ => {
                return Err(e(format!(
                    "unknown option `{o}` ({})",
                    if surface {
                        "surfaces take out=PATH"
                    } else {
                        "point linear clamp wrap mirror border addr=.. border=R,G,B,A norm float"
                    }
                )))
            }
        }
    }
    Ok(s)
}

/// A buffer to write back after a launch: device address, length, path.
pub(super) type Output = (u64, u64, PathBuf);

/// Makes the object `s` describes on `dev` (its data read from `inputs`);
/// returns its handle and, for a surface with `out=`, the array's bytes to
/// write back: (address, length, path under `outputs`).
pub(super) fn create(
    dev: &mut Device,
    s: &ObjectSpec,
    inputs: &Path,
    outputs: &Path,
    limit: u64,
) -> Result<(u64, Option<Output>), Error> {
    let [w, h, d, layers] = s.size;
    let bytes = w * h * d * layers.max(1) * s.format.bytes();
    let data = match &s.input {
        Some(p) => {
            let data = super::args::read_file(inputs, p, limit)?;
            if data.len() as u64 != bytes {
                return Err(Error::InvalidArgument(format!(
                    "{}: {} bytes; a {:?} {}x{}x{}x{} of {}-byte texels is {bytes}",
                    p.display(),
                    data.len(),
                    s.geom,
                    w,
                    h,
                    d,
                    layers,
                    s.format.bytes()
                )));
            }
            data
        }
        None => vec![0; bytes as usize],
    };
    let resource = match s.geom {
        Geom::Linear => {
            let addr = dev.alloc(bytes.max(1))?;
            dev.write(addr, &data)?;
            Resource::Linear {
                addr,
                format: s.format,
                width: w,
            }
        }
        Geom::Pitch2d => {
            let row = w * s.format.bytes();
            let pitch = row.div_ceil(PITCH_ALIGN) * PITCH_ALIGN;
            let addr = dev.alloc(pitch * h)?;
            for y in 0..h {
                let r = &data[(y * row) as usize..((y + 1) * row) as usize];
                dev.write(addr + y * pitch, r)?;
            }
            Resource::Pitch2d {
                addr,
                format: s.format,
                width: w,
                height: h,
                pitch,
            }
        }
        g => {
            let desc = ArrayDesc {
                format: s.format,
                width: w,
                height: if g == Geom::D1 || g == Geom::A1d {
                    0
                } else {
                    h
                },
                depth: if g == Geom::D3 { d } else { 0 },
                layers,
                surface: s.surface,
                cube: match g {
                    Geom::Cube => Cube::Single,
                    Geom::Acube => Cube::Layered,
                    _ => Cube::No,
                },
            };
            let a = dev.array_create(desc)?;
            dev.array_write(a, 0, &data)?;
            Resource::Array(a)
        }
    };
    if s.surface {
        let handle = dev.surface_create(resource)?;
        let out = match (&s.output, resource) {
            (Some(p), Resource::Array(a)) => {
                let (base, ..) = dev.array_region(a)?;
                Some((base, bytes, outputs.join(p)))
            }
            _ => None,
        };
        Ok((handle, out))
    } else {
        Ok((dev.texture_create(resource, s.sampler)?, None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texture_and_surface_specs() {
        let t = parse(false, "2d:f32x1:64x32:img.bin:linear:wrap:norm", "x").unwrap();
        assert_eq!(t.geom, Geom::D2);
        assert_eq!(t.size, [64, 32, 1, 0]);
        assert!(t.sampler.linear_filter && t.sampler.normalized_coords);
        assert_eq!(t.sampler.address, [AddressMode::Wrap; 3]);
        let t = parse(false, "a2d:u8x4:8x4x3:i.bin:float:border=1,0,0,1", "x").unwrap();
        assert_eq!(t.size, [8, 4, 1, 3]);
        assert_eq!(t.sampler.border, [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(t.sampler.address, [AddressMode::Border; 3]);
        let t = parse(false, "2d:f32x1:4x4:i.bin:addr=clamp,mirror", "x").unwrap();
        assert_eq!(t.sampler.address[1], AddressMode::Mirror);
        let s = parse(true, "2d:f32x1:4x4:-:out=o.bin", "x").unwrap();
        assert_eq!((s.input, s.output), (None, Some("o.bin".into())));
        assert!(parse(false, "2d:f32x3:4x4:i.bin", "x").is_err());
        assert!(parse(false, "2d:f32x1:4:i.bin", "x").is_err());
        assert!(parse(true, "linear:f32x1:4:i.bin", "x").is_err());
        assert!(parse(false, "1d:f32x1:4:i.bin:bilinear", "x").is_err());
        let c = parse(false, "cube:f32x1:8:c.bin:linear", "x").unwrap();
        assert_eq!((c.geom, c.size), (Geom::Cube, [8, 8, 1, 6]));
        let c = parse(true, "acube:u8x4:4x3:-", "x").unwrap();
        assert_eq!((c.geom, c.size), (Geom::Acube, [4, 4, 1, 18]));
        assert!(parse(false, "cube:f32x1:8x8:c.bin", "x").is_err());
    }
}
