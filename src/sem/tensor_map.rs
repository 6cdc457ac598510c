//! The tensor-map descriptor (`CUtensorMap`, 128 bytes) the tensor memory
//! accelerator's copies read: warpjit's own layout, its encoder with the
//! argument checks `cuTensorMapEncodeTiled` documents, its decoder (which
//! refuses anything the encoder would not have written), and the address
//! arithmetic of a box copy: which global element each box element comes
//! from, where it lands in shared memory, and the swizzle of that address.
//! The driver library (`cuda-shim`), the `tmap:` argument spec of
//! `warpjit run` and both engines (`interp::bulk_tensor`) share it.
//!
//! Layout (little-endian; all other bytes zero):
//!
//! | bytes | field |
//! |-------|-------|
//! | 0..8 | global address |
//! | 8..12 | magic `"WJTM"` |
//! | 12 | layout version (1) |
//! | 13 | rank (1..=5) |
//! | 14 | data type (`CUtensorMapDataType`) |
//! | 15 | interleave (`CUtensorMapInterleave`, only NONE is encoded) |
//! | 16 | swizzle (`CUtensorMapSwizzle`: 0 none, 1 32B, 2 64B, 3 128B) |
//! | 17 | L2 promotion (`CUtensorMapL2promotion`, no effect) |
//! | 18 | out-of-bounds fill (`CUtensorMapFloatOOBfill`: 0 zero, 1 NaN) |
//! | 19 | swizzle atomicity (`tensormap.replace`'s encoding: 0 16B, only 0 is decoded) |
//! | 24..64 | global dimensions, 5 × u64 (elements) |
//! | 64..96 | global strides of dimensions 1..5, 4 × u64 (bytes) |
//! | 96..106 | box dimensions, 5 × u16 (elements, 1..=256) |
//! | 106..111 | element strides, 5 × u8 (1..=8) |
//!
//! Unused dimensions hold 0 (dims, strides) and 1 (box, element strides).
//! The offsets are the constants in [`at`]; `tensormap.replace`
//! ([`replace`]) writes single fields through them.

/// Byte offsets of the descriptor's fields (the layout above).
pub mod at {
    pub const ADDR: usize = 0;
    pub const MAGIC: usize = 8;
    pub const VERSION: usize = 12;
    pub const RANK: usize = 13;
    pub const DTYPE: usize = 14;
    pub const INTERLEAVE: usize = 15;
    pub const SWIZZLE: usize = 16;
    pub const L2_PROMOTION: usize = 17;
    pub const FILL: usize = 18;
    pub const SWIZZLE_ATOMICITY: usize = 19;
    /// `dims[i]` at `DIMS + 8 * i`.
    pub const DIMS: usize = 24;
    /// The stride of dimension `i` (1..5) at `STRIDES + 8 * (i - 1)`.
    pub const STRIDES: usize = 64;
    /// `boxdim[i]` at `BOX + 2 * i`.
    pub const BOX: usize = 96;
    /// `elem_strides[i]` at `ELEM_STRIDES + i`.
    pub const ELEM_STRIDES: usize = 106;
}

use std::ops::Range;

/// Size of a descriptor in bytes.
pub const SIZE: usize = 128;
/// The magic at bytes 8..12.
pub const MAGIC: u32 = u32::from_le_bytes(*b"WJTM");
/// The layout version at byte 12.
pub const VERSION: u8 = 1;
/// Largest rank.
pub const MAX_RANK: usize = 5;

/// Why an encode was refused: `InvalidValue` is `CUDA_ERROR_INVALID_VALUE`,
/// `NotSupported` is `CUDA_ERROR_NOT_SUPPORTED` (a valid request warpjit
/// does not implement).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("invalid tensor map: {0}")]
    InvalidValue(String),
    #[error("tensor map not supported by warpjit: {0}")]
    NotSupported(String),
}

/// A decoded tiled tensor map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorMap {
    pub addr: u64,
    pub rank: usize,
    pub dtype: u8,
    pub interleave: u8,
    pub swizzle: u8,
    pub l2_promotion: u8,
    pub oob_nan: bool,
    /// Elements per dimension (`rank` used).
    pub dims: [u64; MAX_RANK],
    /// Bytes between consecutive elements of each dimension; `strides[0]`
    /// is the element size.
    pub strides: [u64; MAX_RANK],
    pub boxdim: [u32; MAX_RANK],
    pub elem_strides: [u32; MAX_RANK],
}

/// The arguments of `cuTensorMapEncodeTiled`, as the driver passes them.
#[derive(Clone, Debug)]
pub struct TiledArgs<'a> {
    pub dtype: u32,
    pub rank: u32,
    pub addr: u64,
    pub dims: &'a [u64],
    /// `rank - 1` strides in bytes of dimensions 1..rank.
    pub strides: &'a [u64],
    pub boxdim: &'a [u32],
    pub elem_strides: &'a [u32],
    pub interleave: u32,
    pub swizzle: u32,
    pub l2_promotion: u32,
    pub oob_fill: u32,
}

/// Size in bytes of an element of `CUtensorMapDataType` `t`, `None` for
/// the packed sub-byte types (13..=15) and unknown values.
pub fn elem_size(t: u32) -> Option<u64> {
    Some(match t {
        0 => 1,                        // UINT8
        1 | 6 | 9 => 2,                // UINT16, FLOAT16, BFLOAT16
        2 | 3 | 7 | 10 | 11 | 12 => 4, // UINT32, INT32, FLOAT32(_FTZ), TFLOAT32(_FTZ)
        4 | 5 | 8 => 8,                // UINT64, INT64, FLOAT64
        _ => return None,
    })
}

/// Whether data type `t` is a floating-point type (the NaN fill applies).
pub fn is_float(t: u8) -> bool {
    matches!(t, 6..=12)
}

/// The swizzle span in bytes of mode `s` (0 for none).
pub fn swizzle_span(s: u8) -> u64 {
    match s {
        1 => 32,
        2 => 64,
        3 => 128,
        _ => 0,
    }
}

/// The shared-memory address where the TMA puts the byte that lands at
/// `addr` unswizzled, for swizzle mode `s` (CUDA programming guide, TMA
/// swizzle): the 16-byte chunk index within a 128-byte row (address bits
/// 4..7) is XORed with the row index within the pattern (bits 7..10),
/// using 1, 2 or 3 bits for the 32B, 64B and 128B modes; the pattern
/// repeats every 256, 512 or 1024 bytes.
pub fn swizzle(addr: u64, s: u8) -> u64 {
    let bits = match s {
        1 => 1,
        2 => 2,
        3 => 3,
        _ => return addr,
    };
    let mask = (1u64 << bits) - 1;
    addr ^ (((addr >> 7) & mask) << 4)
}

fn bad(msg: impl Into<String>) -> EncodeError {
    EncodeError::InvalidValue(msg.into())
}

/// Checks `a` as `cuTensorMapEncodeTiled` does and returns the descriptor.
pub fn encode_tiled(a: &TiledArgs) -> Result<[u8; SIZE], EncodeError> {
    let rank = a.rank as usize;
    if !(1..=MAX_RANK).contains(&rank) {
        return Err(bad(format!("rank {} (1 to 5)", a.rank)));
    }
    let Some(esize) = elem_size(a.dtype) else {
        return Err(if (13..=15).contains(&a.dtype) {
            EncodeError::NotSupported(format!("packed data type {}", a.dtype))
        } else {
            bad(format!("data type {}", a.dtype))
        });
    };
    match a.interleave {
        0 => {}
        1 | 2 => return Err(EncodeError::NotSupported("interleaved layouts".to_string())),
        i => return Err(bad(format!("interleave {i}"))),
    }
    match a.swizzle {
        0..=3 => {}
        4..=6 => {
            return Err(EncodeError::NotSupported(format!(
                "swizzle mode {} (128B with atomicity)",
                a.swizzle
            )))
        }
        s => return Err(bad(format!("swizzle {s}"))),
    }
    if a.l2_promotion > 3 {
        return Err(bad(format!("L2 promotion {}", a.l2_promotion)));
    }
    if a.oob_fill > 1 {
        return Err(bad(format!("out-of-bounds fill {}", a.oob_fill)));
    }
    if a.oob_fill == 1 && !is_float(a.dtype as u8) {
        return Err(bad("NaN fill of an integer data type"));
    }
    if a.addr == 0 || a.addr % 16 != 0 {
        return Err(bad(format!(
            "global address {:#x} (16-byte aligned, not null)",
            a.addr
        )));
    }
    if a.dims.len() < rank
        || a.boxdim.len() < rank
        || a.elem_strides.len() < rank
        || a.strides.len() < rank - 1
    {
        return Err(bad("an argument array shorter than the rank"));
    }
    let mut m = TensorMap::header(
        a.addr,
        rank,
        a.dtype as u8,
        a.swizzle as u8,
        a.l2_promotion as u8,
        a.oob_fill == 1,
        esize,
    );
    for i in 0..rank {
        let d = a.dims[i];
        if d == 0 || d > 1 << 32 {
            return Err(bad(format!("globalDim[{i}] = {d} (1 to 2^32)")));
        }
        m.dims[i] = d;
        let b = a.boxdim[i];
        if b == 0 || b > 256 {
            return Err(bad(format!("boxDim[{i}] = {b} (1 to 256)")));
        }
        m.boxdim[i] = b;
        let e = a.elem_strides[i];
        if e == 0 || e > 8 {
            return Err(bad(format!("elementStrides[{i}] = {e} (1 to 8)")));
        }
        m.elem_strides[i] = e;
    }
    for i in 1..rank {
        let s = a.strides[i - 1];
        if s % 16 != 0 || s >= 1 << 40 {
            return Err(bad(format!(
                "globalStrides[{}] = {s} (a multiple of 16 below 2^40)",
                i - 1
            )));
        }
        m.strides[i] = s;
    }
    let inner = a.boxdim[0] as u64 * esize;
    if inner % 16 != 0 {
        return Err(bad(format!(
            "boxDim[0] * element size = {inner} bytes (a multiple of 16)"
        )));
    }
    let span = swizzle_span(m.swizzle);
    if span != 0 && inner > span {
        return Err(bad(format!(
            "boxDim[0] * element size = {inner} bytes exceeds the {span}-byte swizzle span"
        )));
    }
    Ok(m.to_bytes())
}

/// A field `tensormap.replace.tile` writes (PTX ISA §9.7.9.26): the
/// dimension-indexed ones carry the instruction's ordinal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    GlobalAddress,
    Rank,
    BoxDim(u8),
    GlobalDim(u8),
    /// The stride of dimension `ord + 1` (`globalStrides[ord]` of
    /// `cuTensorMapEncodeTiled`).
    GlobalStride(u8),
    ElementStride(u8),
    Elemtype,
    InterleaveLayout,
    SwizzleMode,
    SwizzleAtomicity,
    FillMode,
}

impl Field {
    /// The PTX spelling of the field.
    pub fn name(self) -> &'static str {
        match self {
            Field::GlobalAddress => "global_address",
            Field::Rank => "rank",
            Field::BoxDim(_) => "box_dim",
            Field::GlobalDim(_) => "global_dim",
            Field::GlobalStride(_) => "global_stride",
            Field::ElementStride(_) => "element_stride",
            Field::Elemtype => "elemtype",
            Field::InterleaveLayout => "interleave_layout",
            Field::SwizzleMode => "swizzle_mode",
            Field::SwizzleAtomicity => "swizzle_atomicity",
            Field::FillMode => "fill_mode",
        }
    }

    /// Whether the instruction's value is `.b64` (else `.b32`).
    pub fn is_b64(self) -> bool {
        matches!(self, Field::GlobalAddress | Field::GlobalStride(_))
    }

    /// The largest ordinal of a dimension-indexed field (`None` for the
    /// others): a dimension 0..5, or a stride 0..4.
    pub fn max_ord(self) -> Option<u8> {
        match self {
            Field::BoxDim(_) | Field::GlobalDim(_) | Field::ElementStride(_) => Some(4),
            Field::GlobalStride(_) => Some(3),
            _ => None,
        }
    }
}

/// `CUtensorMapDataType` of `tensormap.replace`'s `.elemtype` encoding
/// (PTX ISA: 0 `.u8`, 1 `.u16`, 2 `.u32`, 3 `.s32`, 4 `.u64`, 5 `.s64`,
/// 6 `.f16`, 7 `.f32`, 8 `.f32.ftz`, 9 `.f64`, 10 `.bf16`, 11 `.tf32`,
/// 12 `.tf32.ftz`, 13..15 the packed sub-byte types, `None` here).
pub fn dtype_of_elemtype(v: u64) -> Option<u8> {
    Some(match v {
        0..=7 | 11 | 12 => v as u8,
        8 => 10, // FLOAT32_FTZ
        9 => 8,  // FLOAT64
        10 => 9, // BFLOAT16
        _ => return None,
    })
}

/// `tensormap.replace.tile` of `field` with `value` in descriptor `b`
/// (which must be a tensor map already): the byte range written, or why
/// the value cannot be encoded. The values are the ISA's: the rank is one
/// less than the tensor's rank, dimensions, box sizes, element strides and
/// byte strides are themselves; a map the replacement leaves inconsistent
/// (a box wider than the swizzle span, say) is refused when a copy uses it.
pub fn replace(b: &mut [u8; SIZE], field: Field, value: u64) -> Result<Range<usize>, String> {
    if u32::from_le_bytes(b[at::MAGIC..at::MAGIC + 4].try_into().unwrap()) != MAGIC {
        return Err("it holds no tensor map".to_string());
    }
    let bad = |what: &str| Err(format!("{} {value} ({what})", field.name()));
    let mut put = |o: usize, bytes: &[u8]| {
        b[o..o + bytes.len()].copy_from_slice(bytes);
        Ok(o..o + bytes.len())
    };
    match field {
        Field::GlobalAddress => put(at::ADDR, &value.to_le_bytes()),
        Field::Rank if value < MAX_RANK as u64 => put(at::RANK, &[value as u8 + 1]),
        Field::Rank => bad("0 to 4: the rank less one"),
        Field::BoxDim(i) if (1..=256).contains(&value) => {
            put(at::BOX + 2 * i as usize, &(value as u16).to_le_bytes())
        }
        Field::BoxDim(_) => bad("1 to 256"),
        Field::GlobalDim(i) if value >= 1 && value <= u32::MAX as u64 => {
            put(at::DIMS + 8 * i as usize, &value.to_le_bytes())
        }
        Field::GlobalDim(_) => bad("1 to 2^32 - 1"),
        Field::GlobalStride(i) if value % 16 == 0 && value < 1 << 40 => {
            put(at::STRIDES + 8 * i as usize, &value.to_le_bytes())
        }
        Field::GlobalStride(_) => bad("a multiple of 16 below 2^40"),
        Field::ElementStride(i) if (1..=8).contains(&value) => {
            put(at::ELEM_STRIDES + i as usize, &[value as u8])
        }
        Field::ElementStride(_) => bad("1 to 8"),
        Field::Elemtype => match dtype_of_elemtype(value) {
            Some(t) => put(at::DTYPE, &[t]),
            None if (13..=15).contains(&value) => bad("packed types are not supported"),
            None => bad("0 to 15"),
        },
        Field::InterleaveLayout if value == 0 => put(at::INTERLEAVE, &[0]),
        Field::InterleaveLayout if value <= 2 => bad("interleaved layouts are not supported"),
        Field::InterleaveLayout => bad("0 to 2"),
        Field::SwizzleMode if value <= 3 => put(at::SWIZZLE, &[value as u8]),
        Field::SwizzleMode if value == 4 => bad("the 96B swizzle is not supported"),
        Field::SwizzleMode => bad("0 to 4"),
        Field::SwizzleAtomicity if value <= 3 => put(at::SWIZZLE_ATOMICITY, &[value as u8]),
        Field::SwizzleAtomicity => bad("0 to 3"),
        Field::FillMode if value <= 1 => put(at::FILL, &[value as u8]),
        Field::FillMode => bad("0 or 1"),
    }
}

impl TensorMap {
    /// A map's fixed fields, with no dimensions yet (each `dims` 0, each
    /// box and element stride 1) and `strides[0]` the element size.
    fn header(
        addr: u64,
        rank: usize,
        dtype: u8,
        swizzle: u8,
        l2_promotion: u8,
        oob_nan: bool,
        esize: u64,
    ) -> TensorMap {
        let mut strides = [0; MAX_RANK];
        strides[0] = esize;
        TensorMap {
            addr,
            rank,
            dtype,
            interleave: 0,
            swizzle,
            l2_promotion,
            oob_nan,
            dims: [0; MAX_RANK],
            strides,
            boxdim: [1; MAX_RANK],
            elem_strides: [1; MAX_RANK],
        }
    }

    /// The descriptor's 128 bytes.
    pub fn to_bytes(&self) -> [u8; SIZE] {
        let mut b = [0u8; SIZE];
        b[at::ADDR..at::ADDR + 8].copy_from_slice(&self.addr.to_le_bytes());
        b[at::MAGIC..at::MAGIC + 4].copy_from_slice(&MAGIC.to_le_bytes());
        b[at::VERSION] = VERSION;
        b[at::RANK] = self.rank as u8;
        b[at::DTYPE] = self.dtype;
        b[at::INTERLEAVE] = self.interleave;
        b[at::SWIZZLE] = self.swizzle;
        b[at::L2_PROMOTION] = self.l2_promotion;
        b[at::FILL] = self.oob_nan as u8;
        for i in 0..MAX_RANK {
            let o = at::DIMS + 8 * i;
            b[o..o + 8].copy_from_slice(&self.dims[i].to_le_bytes());
            if i >= 1 {
                let o = at::STRIDES + 8 * (i - 1);
                b[o..o + 8].copy_from_slice(&self.strides[i].to_le_bytes());
            }
            let o = at::BOX + 2 * i;
            b[o..o + 2].copy_from_slice(&(self.boxdim[i] as u16).to_le_bytes());
            b[at::ELEM_STRIDES + i] = self.elem_strides[i] as u8;
        }
        b
    }

    /// Decodes a descriptor; `Err` says why `b` is not one warpjit wrote
    /// (or one whose fields `tensormap.replace` made invalid).
    pub fn from_bytes(b: &[u8; SIZE]) -> Result<TensorMap, String> {
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
        let magic = u32::from_le_bytes(b[at::MAGIC..at::MAGIC + 4].try_into().unwrap());
        if magic != MAGIC || b[at::VERSION] != VERSION {
            return Err("not a tensor map made by cuTensorMapEncodeTiled".to_string());
        }
        let rank = b[at::RANK] as usize;
        if !(1..=MAX_RANK).contains(&rank) {
            return Err(format!("rank {rank}"));
        }
        let dtype = b[at::DTYPE];
        let Some(esize) = elem_size(dtype as u32) else {
            return Err(format!("data type {dtype}"));
        };
        if b[at::INTERLEAVE] != 0 {
            return Err(format!("interleave {} (not supported)", b[at::INTERLEAVE]));
        }
        if b[at::SWIZZLE] > 3 {
            return Err(format!("swizzle {}", b[at::SWIZZLE]));
        }
        if b[at::SWIZZLE_ATOMICITY] != 0 {
            let a = b[at::SWIZZLE_ATOMICITY];
            return Err(format!("swizzle atomicity {a} (only 16B is supported)"));
        }
        if b[at::FILL] > 1 || (b[at::FILL] == 1 && !is_float(dtype)) {
            return Err(format!("fill mode {} of data type {dtype}", b[at::FILL]));
        }
        let swizzle = b[at::SWIZZLE];
        let (l2, nan) = (b[at::L2_PROMOTION], b[at::FILL] != 0);
        let mut m = TensorMap::header(u64_at(at::ADDR), rank, dtype, swizzle, l2, nan, esize);
        for i in 0..rank {
            m.dims[i] = u64_at(at::DIMS + 8 * i);
            let o = at::BOX + 2 * i;
            m.boxdim[i] = u16::from_le_bytes([b[o], b[o + 1]]) as u32;
            m.elem_strides[i] = b[at::ELEM_STRIDES + i] as u32;
            if i >= 1 {
                m.strides[i] = u64_at(at::STRIDES + 8 * (i - 1));
            }
            if m.dims[i] == 0 || m.boxdim[i] == 0 || m.boxdim[i] > 256 {
                return Err(format!("dimension {i} or its box is empty or too large"));
            }
            if m.elem_strides[i] == 0 || m.elem_strides[i] > 8 {
                return Err(format!(
                    "element stride {} of dimension {i}",
                    m.elem_strides[i]
                ));
            }
        }
        let inner = m.boxdim[0] as u64 * esize;
        let span = swizzle_span(m.swizzle);
        if inner % 16 != 0 || (span != 0 && inner > span) {
            return Err(format!("inner box of {inner} bytes"));
        }
        Ok(m)
    }

    /// Elements of the box copied along dimension `i`: the box dimension
    /// divided by the element stride, rounded up.
    pub fn box_count(&self, i: usize) -> u64 {
        (self.boxdim[i] as u64).div_ceil(self.elem_strides[i] as u64)
    }

    /// Element size in bytes.
    pub fn elem_size(&self) -> u64 {
        self.strides[0]
    }

    /// Bytes one box copy moves to shared memory and counts toward the
    /// mbarrier's transactions, out-of-bounds elements included.
    pub fn box_bytes(&self) -> u64 {
        (0..self.rank).map(|i| self.box_count(i)).product::<u64>() * self.elem_size()
    }

    /// Every element of the box at `coords` (one per dimension): calls
    /// `f(offset, global)` with the element's unswizzled byte offset in the
    /// shared-memory box and its global address, `None` when it lies
    /// outside the tensor. Elements come in shared-memory order.
    pub fn for_each_element(&self, coords: &[i32], mut f: impl FnMut(u64, Option<u64>)) {
        let counts: Vec<u64> = (0..self.rank).map(|i| self.box_count(i)).collect();
        let total: u64 = counts.iter().product();
        let esize = self.elem_size();
        for n in 0..total {
            let mut rest = n;
            let mut addr = self.addr;
            let mut inside = true;
            for i in 0..self.rank {
                let k = rest % counts[i];
                rest /= counts[i];
                let c = coords[i] as i64 + k as i64 * self.elem_strides[i] as i64;
                if c < 0 || c as u64 >= self.dims[i] {
                    inside = false;
                } else {
                    addr = addr.wrapping_add(c as u64 * self.strides[i]);
                }
            }
            f(n * esize, inside.then_some(addr))
        }
    }

    /// The fill of an out-of-bounds element: zero, or the canonical NaN
    /// of the data type with the NaN-request fill.
    pub fn fill(&self) -> u64 {
        if !self.oob_nan {
            return 0;
        }
        match self.dtype {
            6 => 0x7fff,                // f16
            9 => 0x7fff,                // bf16
            8 => 0x7fff_ffff_ffff_ffff, // f64
            _ => 0x7fff_ffff,           // f32, tf32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args<'a>(
        dims: &'a [u64],
        strides: &'a [u64],
        boxdim: &'a [u32],
        es: &'a [u32],
    ) -> TiledArgs<'a> {
        TiledArgs {
            dtype: 7,
            rank: dims.len() as u32,
            addr: 0x1000,
            dims,
            strides,
            boxdim,
            elem_strides: es,
            interleave: 0,
            swizzle: 0,
            l2_promotion: 0,
            oob_fill: 0,
        }
    }

    #[test]
    fn encode_decode_round_trip() {
        let b = encode_tiled(&args(&[40, 30], &[192], &[16, 8], &[1, 2])).unwrap();
        let m = TensorMap::from_bytes(&b).unwrap();
        assert_eq!(m.rank, 2);
        assert_eq!(m.addr, 0x1000);
        assert_eq!(&m.dims[..2], &[40, 30]);
        assert_eq!(&m.strides[..2], &[4, 192]);
        assert_eq!(m.box_count(1), 4);
        assert_eq!(m.box_bytes(), 16 * 4 * 4);
        assert_eq!(m.to_bytes(), b);
    }

    #[test]
    fn encode_checks_arguments() {
        let ok = |a: TiledArgs| encode_tiled(&a);
        let inv =
            |r: Result<[u8; SIZE], EncodeError>| matches!(r, Err(EncodeError::InvalidValue(_)));
        assert!(inv(ok(TiledArgs {
            addr: 0x1008,
            ..args(&[40], &[], &[16], &[1])
        })));
        assert!(
            inv(ok(args(&[40, 30], &[168], &[16, 8], &[1, 1]))),
            "stride not /16"
        );
        assert!(inv(ok(args(&[40], &[], &[257], &[1]))), "box > 256");
        assert!(inv(ok(args(&[40], &[], &[6], &[1]))), "inner box 24 bytes");
        assert!(inv(ok(args(&[40], &[], &[16], &[9]))), "element stride 9");
        assert!(inv(ok(args(&[0], &[], &[16], &[1]))), "empty dim");
        assert!(inv(ok(TiledArgs {
            rank: 6,
            ..args(&[40], &[], &[16], &[1])
        })));
        assert!(
            inv(ok(TiledArgs {
                swizzle: 1,
                ..args(&[40], &[], &[16], &[1])
            })),
            "64 B > 32 B span"
        );
        assert!(ok(TiledArgs {
            swizzle: 3,
            ..args(&[40], &[], &[32], &[1])
        })
        .is_ok());
        assert!(inv(ok(TiledArgs {
            oob_fill: 1,
            dtype: 3,
            ..args(&[40], &[], &[16], &[1])
        })));
        assert!(matches!(
            ok(TiledArgs {
                interleave: 1,
                ..args(&[40], &[], &[16], &[1])
            }),
            Err(EncodeError::NotSupported(_))
        ));
        let mut b = encode_tiled(&args(&[40], &[], &[16], &[1])).unwrap();
        b[8] ^= 1;
        assert!(TensorMap::from_bytes(&b).is_err());
    }

    #[test]
    fn swizzle_xors_chunk_with_row() {
        // 128B: chunk c of row r lands at chunk c ^ (r % 8).
        for r in 0..16u64 {
            for c in 0..8u64 {
                let a = r * 128 + c * 16 + 5;
                assert_eq!(swizzle(a, 3), r * 128 + ((c ^ (r % 8)) * 16) + 5);
            }
        }
        // 64B: 2 bits of chunk index XOR bits 7..9.
        assert_eq!(swizzle(128 + 16, 2), 128);
        assert_eq!(swizzle(3 * 128, 2), 3 * 128 + 48);
        assert_eq!(swizzle(4 * 128, 2), 4 * 128);
        // 32B: bit 4 XOR bit 7.
        assert_eq!(swizzle(128, 1), 128 + 16);
        assert_eq!(swizzle(256, 1), 256);
        assert_eq!(swizzle(77, 0), 77);
    }

    #[test]
    fn box_elements_and_out_of_bounds() {
        let b = encode_tiled(&args(&[5, 3], &[32], &[4, 2], &[1, 1])).unwrap();
        let m = TensorMap::from_bytes(&b).unwrap();
        let mut seen = vec![];
        m.for_each_element(&[3, -1], |off, g| seen.push((off, g)));
        assert_eq!(seen.len(), 8);
        // Row -1 is outside; row 0 has columns 3, 4 inside, 5, 6 outside.
        assert!(seen[..4].iter().all(|(_, g)| g.is_none()));
        assert_eq!(seen[4], (16, Some(0x1000 + 12)));
        assert_eq!(seen[5], (20, Some(0x1000 + 16)));
        assert_eq!(seen[6].1, None);
    }

    #[test]
    fn replace_writes_the_isa_encodings() {
        // PTX's elemtype numbering differs from CUtensorMapDataType's at 8..10.
        let dt: Vec<_> = (0..16).map(dtype_of_elemtype).collect();
        assert_eq!(dt[7], Some(7));
        assert_eq!((dt[8], dt[9], dt[10]), (Some(10), Some(8), Some(9)));
        assert_eq!((dt[13], dt[15]), (None, None));
        let mut b = encode_tiled(&args(&[40, 30], &[192], &[16, 8], &[1, 2])).unwrap();
        assert_eq!(replace(&mut b, Field::Rank, 2), Ok(at::RANK..at::RANK + 1));
        replace(&mut b, Field::GlobalDim(2), 7).unwrap();
        replace(&mut b, Field::GlobalStride(1), 192 * 30).unwrap();
        replace(&mut b, Field::BoxDim(2), 5).unwrap();
        replace(&mut b, Field::ElementStride(2), 3).unwrap();
        replace(&mut b, Field::Elemtype, 9).unwrap();
        let m = TensorMap::from_bytes(&b).unwrap();
        assert_eq!((m.rank, m.dims[2], m.strides[2]), (3, 7, 192 * 30));
        assert_eq!((m.boxdim[2], m.elem_strides[2], m.dtype), (5, 3, 8));
        assert!(replace(&mut b, Field::Rank, 5).is_err());
        assert!(replace(&mut [0; SIZE], Field::Rank, 1).is_err());
    }
}
