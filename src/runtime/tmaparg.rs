//! The `tmap:` argument spec of `warpjit run` and sample descriptions: a
//! 128-byte tensor map (a `__grid_constant__ const CUtensorMap` parameter)
//! over an earlier buffer argument, encoded by `sem::tensor_map` exactly
//! as `cuTensorMapEncodeTiled` would.
//!
//! `tmap:ARG:TYPE:DIMS:BOX[:OPTION]...`: ARG the 0-based index of an
//! earlier `in:`, `out:` or `inout:` argument (the tensor's memory); TYPE
//! `u8 u16 u32 s32 u64 s64 f16 bf16 f32 f64 tf32`; DIMS the global
//! dimensions and BOX the box dimensions, innermost first, `x`-separated
//! (`64x48`, `32x8`); OPTIONs `stride=S1,S2,...` (bytes between
//! consecutive indices of dimensions 1.. ; by default the tensor is
//! packed, each stride rounded up to 16), `estride=E0,E1,...` (element
//! strides, default 1), `swizzle=32|64|128`, `nan` (out-of-bounds float
//! elements read as NaN). Example: `tmap:0:f32:40x30:16x8:swizzle=64`.

use crate::sem::tensor_map::{self, EncodeError, TiledArgs};

/// A parsed `tmap:` argument.
#[derive(Clone, Debug, PartialEq)]
pub struct TmapSpec {
    /// Index of the argument holding the tensor.
    pub arg: usize,
    pub dtype: u32,
    pub dims: Vec<u64>,
    pub strides: Vec<u64>,
    pub boxdim: Vec<u32>,
    pub elem_strides: Vec<u32>,
    pub swizzle: u32,
    pub nan: bool,
}

fn dtype(name: &str) -> Option<u32> {
    Some(match name {
        "u8" => 0,
        "u16" => 1,
        "u32" => 2,
        "s32" => 3,
        "u64" => 4,
        "s64" => 5,
        "f16" => 6,
        "f32" => 7,
        "f64" => 8,
        "bf16" => 9,
        "tf32" => 11,
        _ => return None,
    })
}

fn list<T: std::str::FromStr>(s: &str, sep: char) -> Option<Vec<T>> {
    s.split(sep).map(|x| x.parse().ok()).collect()
}

/// Parses the part after `tmap:`.
pub fn parse(rest: &str, spec: &str) -> Result<TmapSpec, String> {
    let err = |m: &str| {
        format!("argument `{spec}`: {m} (tmap:ARG:TYPE:DIMS:BOX[:stride=..][:estride=..][:swizzle=32|64|128][:nan])")
    };
    let parts: Vec<&str> = rest.split(':').collect();
    let [arg, ty, dims, boxdim, options @ ..] = parts.as_slice() else {
        return Err(err("expected ARG, TYPE, DIMS and BOX"));
    };
    let arg = arg
        .parse()
        .map_err(|_| err("ARG is the index of an earlier buffer argument"))?;
    let dtype = dtype(ty).ok_or_else(|| err(&format!("unknown type `{ty}`")))?;
    let dims: Vec<u64> = list(dims, 'x').ok_or_else(|| err("bad DIMS"))?;
    let boxdim: Vec<u32> = list(boxdim, 'x').ok_or_else(|| err("bad BOX"))?;
    if dims.is_empty() || dims.len() > 5 || boxdim.len() != dims.len() {
        return Err(err("DIMS and BOX need the same rank, 1 to 5"));
    }
    let esize = tensor_map::elem_size(dtype).unwrap();
    let mut strides = vec![];
    let mut s = esize;
    for d in &dims[..dims.len() - 1] {
        s = (s * d).div_ceil(16) * 16;
        strides.push(s);
    }
    let mut out = TmapSpec {
        arg,
        dtype,
        elem_strides: vec![1; dims.len()],
        dims,
        strides,
        boxdim,
        swizzle: 0,
        nan: false,
    };
    for o in options {
        match o.split_once('=') {
            Some(("stride", v)) => {
                out.strides = list(v, ',')
                    .filter(|l: &Vec<u64>| l.len() == out.dims.len() - 1)
                    .ok_or_else(|| err("stride= takes rank-1 byte strides"))?
            }
            Some(("estride", v)) => {
                out.elem_strides = list(v, ',')
                    .filter(|l: &Vec<u32>| l.len() == out.dims.len())
                    .ok_or_else(|| err("estride= takes rank element strides"))?
            }
            Some(("swizzle", v)) => {
                out.swizzle = match v {
                    "none" | "0" => 0,
                    "32" => 1,
                    "64" => 2,
                    "128" => 3,
                    _ => return Err(err("swizzle is 32, 64 or 128")),
                }
            }
            None if *o == "nan" => out.nan = true,
            _ => return Err(err(&format!("unknown option `{o}`"))),
        }
    }
    Ok(out)
}

impl TmapSpec {
    /// The descriptor over the tensor at device address `addr`.
    pub fn encode(&self, addr: u64) -> Result<[u8; tensor_map::SIZE], EncodeError> {
        tensor_map::encode_tiled(&TiledArgs {
            dtype: self.dtype,
            rank: self.dims.len() as u32,
            addr,
            dims: &self.dims,
            strides: &self.strides,
            boxdim: &self.boxdim,
            elem_strides: &self.elem_strides,
            interleave: 0,
            swizzle: self.swizzle,
            l2_promotion: 0,
            oob_fill: self.nan as u32,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tmap_specs() {
        let s = parse(
            "1:f32:40x30:16x8:swizzle=64",
            "tmap:1:f32:40x30:16x8:swizzle=64",
        )
        .unwrap();
        assert_eq!(s.arg, 1);
        assert_eq!(s.strides, vec![160]);
        assert_eq!(s.swizzle, 2);
        let m = tensor_map::TensorMap::from_bytes(&s.encode(0x1000).unwrap()).unwrap();
        assert_eq!(m.box_bytes(), 16 * 8 * 4);
        // A row of 10 floats is padded to 48 bytes.
        let s = parse("0:f32:10x4:4x4", "t").unwrap();
        assert_eq!(s.strides, vec![48]);
        assert!(parse("0:q8:4:4", "t").is_err());
        assert!(parse("0:f32:4x4:4", "t").is_err());
        assert!(parse("0:f32:4x4:4x4:swizzle=16", "t").is_err());
    }
}
