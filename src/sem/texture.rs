//! Texture and surface objects' fetch semantics (PTX ISA §9.7.10 "Texture
//! instructions", §9.7.11 "Surface instructions"; the CUDA Programming
//! Guide's appendix "Texture Fetching" for addressing and filtering).
//!
//! A texture or surface object is a *view*: where its texels lie
//! ([`Layout`]), what one texel holds ([`Format`]) and, for textures, how
//! it is sampled ([`Sampler`]). These functions turn coordinates into the
//! four 32-bit results of `tex`/`tld4` and the byte locations of
//! `suld`/`sust`/`sured`; they read memory only through the closure the
//! caller passes, so they stay pure and both engines share them.
//!
//! Filtering follows the Programming Guide's formulas, with the fixed-point
//! rounding an NVIDIA H100 was measured to use (`ptx-samples/hw/
//! h100-gpucheck.json`, sample `cuda/texture_fetch`): point sampling takes
//! texel `floor(x)`; linear filtering shifts the coordinate by half a texel
//! (`xB = x - 0.5`), takes `i = floor(xB)` and the fraction `α = frac(xB)`
//! in 9-bit fixed point with 8 fraction bits, rounded to nearest with ties
//! up (`floor(α·256 + 1/2)`, 0..=256). Each corner's weight is the product
//! of the per-dimension weights (`α` or `256 - α`) rounded to 8 fraction
//! bits, ties to even (2D: `(α·β) / 256`). Float texels are summed in f32
//! (`Σ (W/256)·T`, texels in x-then-y-then-z order); unsigned normalized
//! 8/16-bit texels are filtered as 16-bit unorm integers (`u8 v` as
//! `v·257`): `Σ W·T16 / 256` rounded to nearest (ties up: untested) to a
//! 16-bit unorm, read as `u16 / 65535`. Normalized coordinates are only
//! scaled by the size (`c·n` in f32); each texel index is then addressed:
//! clamp to the edge, wrap (modulo the size), mirror (reflected every size),
//! border (texels outside read the border colour). Wrap and mirror need
//! normalized coordinates; without them they clamp, as CUDA documents.
//! Unmeasured: 3D weight rounding (the same rule, products of three),
//! signed-normalized and f16 filtering (the f32 sum), the border colour of
//! unorm textures (quantized to 16 bits) and rounding ties.

/// The type of one channel of a texel (CUDA's `CUarray_format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelType {
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    F16,
    F32,
}

impl ChannelType {
    pub fn bytes(self) -> u64 {
        match self {
            ChannelType::U8 | ChannelType::S8 => 1,
            ChannelType::U16 | ChannelType::S16 | ChannelType::F16 => 2,
            _ => 4,
        }
    }

    /// CUDA's `CUarray_format` value (what `txq`/`suq.channel_data_type` read).
    pub fn cuda_format(self) -> u32 {
        match self {
            ChannelType::U8 => 0x01,
            ChannelType::U16 => 0x02,
            ChannelType::U32 => 0x03,
            ChannelType::S8 => 0x08,
            ChannelType::S16 => 0x09,
            ChannelType::S32 => 0x0a,
            ChannelType::F16 => 0x10,
            ChannelType::F32 => 0x20,
        }
    }

    pub fn from_cuda_format(v: u32) -> Option<ChannelType> {
        Some(match v {
            0x01 => ChannelType::U8,
            0x02 => ChannelType::U16,
            0x03 => ChannelType::U32,
            0x08 => ChannelType::S8,
            0x09 => ChannelType::S16,
            0x0a => ChannelType::S32,
            0x10 => ChannelType::F16,
            0x20 => ChannelType::F32,
            _ => return None,
        })
    }

    pub fn is_float(self) -> bool {
        matches!(self, ChannelType::F16 | ChannelType::F32)
    }

    /// 8- and 16-bit integers may be read as normalized floats.
    pub fn normalizable(self) -> bool {
        self.bytes() < 4 && !self.is_float()
    }
}

/// A texel's format: 1, 2 or 4 channels of one type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Format {
    pub channel: ChannelType,
    pub channels: u8,
}

impl Format {
    pub fn bytes(self) -> u64 {
        self.channel.bytes() * self.channels as u64
    }
}

/// Address mode of one dimension (CUDA's `CUaddress_mode` values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressMode {
    Wrap = 0,
    Clamp = 1,
    Mirror = 2,
    Border = 3,
}

impl AddressMode {
    pub fn from_cuda(v: u32) -> Option<AddressMode> {
        Some(match v {
            0 => AddressMode::Wrap,
            1 => AddressMode::Clamp,
            2 => AddressMode::Mirror,
            3 => AddressMode::Border,
            _ => return None,
        })
    }
}

/// Whether a 2D layered resource is a cubemap: its layers are the faces
/// `+x, -x, +y, -y, +z, -z` of one cube (`layers` 6) or of `layers / 6`
/// cubes (a layered cubemap, cube `l` in layers `6l..6l+5`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Cube {
    #[default]
    No,
    Single,
    Layered,
}

/// Where a resource's texels lie: texel `(x, y, z, layer)` is at
/// `base + layer·layer_stride + z·slice + y·pitch + x·format bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    pub base: u64,
    /// 1, 2 or 3.
    pub dims: u8,
    /// Layered (1D or 2D arrays of layers; a cubemap's faces are layers).
    pub layered: bool,
    pub cube: Cube,
    /// Linear memory read by `tex1Dfetch`: integer indices, out-of-range
    /// fetches read zeros, no sampling.
    pub linear: bool,
    pub width: u64,
    /// 1 for 1D.
    pub height: u64,
    /// 1 below 3D.
    pub depth: u64,
    /// 1 unless layered.
    pub layers: u64,
    /// Bytes from one row to the next.
    pub pitch: u64,
    /// Bytes from one depth slice to the next.
    pub slice: u64,
    /// Bytes from one layer to the next.
    pub layer_stride: u64,
}

impl Layout {
    /// Address of texel `(x, y, z, layer)` (all in range).
    pub fn texel_addr(&self, f: Format, x: u64, y: u64, z: u64, layer: u64) -> u64 {
        self.base + layer * self.layer_stride + z * self.slice + y * self.pitch + x * f.bytes()
    }

    /// The size of dimension `d` (0: width, 1: height, 2: depth).
    pub fn size(&self, d: usize) -> u64 {
        [self.width, self.height, self.depth][d]
    }
}

/// A texture's sampling state (its texture descriptor).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampler {
    pub address: [AddressMode; 3],
    pub linear_filter: bool,
    /// Read 8/16-bit integers as floats in [0, 1] (unsigned) or [-1, 1].
    pub read_normalized: bool,
    pub normalized_coords: bool,
    pub border: [f32; 4],
}

/// A texture object.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TexView {
    pub layout: Layout,
    pub format: Format,
    pub sampler: Sampler,
}

/// A surface object.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfView {
    pub layout: Layout,
    pub format: Format,
}

/// The coordinates of a fetch: floats, or integers (`.s32` coordinates,
/// texel indices), and the layer of layered textures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Coords {
    F32([f32; 3]),
    S32([i32; 3]),
}

impl TexView {
    /// Whether fetches give floats (float texels, or normalized integers);
    /// otherwise the channels' integers.
    pub fn float_results(&self) -> bool {
        self.format.channel.is_float() || self.sampler.read_normalized
    }

    /// A texel index mapped by dimension `d`'s address mode (`None`: a
    /// border texel).
    fn address(&self, d: usize, i: i64) -> Option<u64> {
        let n = self.layout.size(d) as i64;
        let mode = match self.sampler.address[d] {
            AddressMode::Wrap | AddressMode::Mirror if !self.sampler.normalized_coords => {
                AddressMode::Clamp
            }
            m => m,
        };
        Some(match mode {
            AddressMode::Clamp => i.clamp(0, n - 1),
            AddressMode::Border if i < 0 || i >= n => return None,
            AddressMode::Border => i,
            AddressMode::Wrap => i.rem_euclid(n),
            AddressMode::Mirror => {
                let p = i.rem_euclid(2 * n);
                if p >= n {
                    2 * n - 1 - p
                } else {
                    p
                }
            }
        } as u64)
    }

    /// The texel coordinate of float coordinate `c` in dimension `d`:
    /// normalized coordinates are scaled by the size (wrap and mirror act
    /// on the texel indices, as an H100 does).
    fn scaled(&self, d: usize, c: f32) -> f32 {
        if !self.sampler.normalized_coords {
            return c;
        }
        c * self.layout.size(d) as f32
    }

    /// The four result words of the texel at integer indices (before
    /// address modes), or of the border.
    fn texel<E>(
        &self,
        idx: [i64; 3],
        layer: u64,
        read: &mut dyn FnMut(u64, u64) -> Result<u64, E>,
    ) -> Result<[u32; 4], E> {
        let dims = self.layout.dims as usize;
        let mut at = [0u64; 3];
        for d in 0..dims {
            match self.address(d, idx[d]) {
                Some(i) => at[d] = i,
                None => return Ok(self.border()),
            }
        }
        let addr = self
            .layout
            .texel_addr(self.format, at[0], at[1], at[2], layer);
        self.channels(addr, read)
    }

    fn border(&self) -> [u32; 4] {
        let b = self.sampler.border;
        if self.float_results() {
            b.map(f32::to_bits)
        } else {
            b.map(|v| v as i32 as u32)
        }
    }

    /// The channels at `addr` as result words; missing channels read 0,
    /// alpha 1.
    fn channels<E>(
        &self,
        addr: u64,
        read: &mut dyn FnMut(u64, u64) -> Result<u64, E>,
    ) -> Result<[u32; 4], E> {
        let float = self.float_results();
        let mut out = if float {
            [0, 0, 0, 1f32.to_bits()]
        } else {
            [0, 0, 0, 1]
        };
        let ty = self.format.channel;
        for (c, o) in out
            .iter_mut()
            .enumerate()
            .take(self.format.channels as usize)
        {
            let raw = read(addr + c as u64 * ty.bytes(), ty.bytes())?;
            *o = channel_value(ty, raw, float);
        }
        Ok(out)
    }

    /// `tex`: the four result words at `coords` (`layer` for layered
    /// textures), filtered as the sampler says.
    pub fn fetch<E>(
        &self,
        coords: Coords,
        layer: i32,
        read: &mut dyn FnMut(u64, u64) -> Result<u64, E>,
    ) -> Result<[u32; 4], E> {
        self.fetch_offset(coords, layer, [0; 3], read)
    }

    /// [`Self::fetch`] with `tex`'s offset operand: texel offsets added to
    /// the texel indices the coordinates give (after normalized
    /// coordinates are scaled, before address modes), as to the indices of
    /// both corners of a linear filter's footprint.
    pub fn fetch_offset<E>(
        &self,
        coords: Coords,
        layer: i32,
        offset: [i32; 3],
        read: &mut dyn FnMut(u64, u64) -> Result<u64, E>,
    ) -> Result<[u32; 4], E> {
        let layer = self.layer(layer);
        let off = offset.map(|o| o as i64);
        if self.layout.linear {
            let i = off[0]
                + match coords {
                    Coords::S32(c) => c[0] as i64,
                    Coords::F32(c) => c[0].floor() as i64,
                };
            if i < 0 || i as u64 >= self.layout.width {
                return Ok([0; 4]);
            }
            return self.channels(self.layout.texel_addr(self.format, i as u64, 0, 0, 0), read);
        }
        let dims = self.layout.dims as usize;
        let c = match coords {
            Coords::S32(c) => {
                let idx = [0, 1, 2].map(|d| c[d] as i64 + off[d]);
                return self.texel(idx, layer, read);
            }
            Coords::F32(c) => c,
        };
        if !self.sampler.linear_filter || !self.float_results() {
            let mut idx = [0i64; 3];
            for d in 0..dims {
                idx[d] = floor_index(self.scaled(d, c[d])) + off[d];
            }
            return self.texel(idx, layer, read);
        }
        let mut base = [0i64; 3];
        let mut w = [0u64; 3];
        for d in 0..dims {
            (base[d], w[d]) = linear_weight_fixed(self.scaled(d, c[d]));
            base[d] += off[d];
        }
        let unorm = self.sampler.read_normalized
            && matches!(self.format.channel, ChannelType::U8 | ChannelType::U16);
        let mut sum = [0f32; 4];
        let mut sum16 = [0f64; 4];
        for corner in 0..(1usize << dims) {
            let mut idx = base;
            let mut product = 1u64;
            for d in 0..dims {
                let hi = corner >> d & 1 == 1;
                idx[d] += hi as i64;
                product *= if hi { w[d] } else { 256 - w[d] };
            }
            let weight = round_shift_even(product, 8 * (dims as u32 - 1));
            let t = self.texel(idx, layer, read)?;
            if unorm {
                for (s, v) in sum16.iter_mut().zip(t) {
                    // The texel (or border colour) as a 16-bit unorm.
                    let t16 = (f32::from_bits(v) as f64 * 65535.0).round();
                    *s += weight as f64 * t16;
                }
            } else {
                let weight = weight as f32 / 256.0;
                for (s, v) in sum.iter_mut().zip(t) {
                    *s += weight * f32::from_bits(v);
                }
            }
        }
        if unorm {
            // Round Σ W·T16 / 256 to a 16-bit unorm (ties up).
            return Ok(sum16.map(|s| ((s / 256.0 + 0.5).floor() as f32 / 65535.0).to_bits()));
        }
        Ok(sum.map(f32::to_bits))
    }

    /// `tld4.comp.2d`: channel `comp` of the four texels a linear filter
    /// would read at `c`, counter-clockwise from the lower left:
    /// `T[i,j+1], T[i+1,j+1], T[i+1,j], T[i,j]`.
    /// `layer` selects the layer of a 2D layered texture; `offset` is
    /// `tld4`'s texel offset operand (added to `i` and `j`).
    pub fn gather<E>(
        &self,
        comp: usize,
        c: [f32; 2],
        layer: i32,
        offset: [i32; 2],
        read: &mut dyn FnMut(u64, u64) -> Result<u64, E>,
    ) -> Result<[u32; 4], E> {
        let layer = self.layer(layer);
        let (i, _) = linear_weight(self.scaled(0, c[0]));
        let (j, _) = linear_weight(self.scaled(1, c[1]));
        let (i, j) = (i + offset[0] as i64, j + offset[1] as i64);
        let mut out = [0u32; 4];
        for (o, (di, dj)) in out.iter_mut().zip([(0, 1), (1, 1), (1, 0), (0, 0)]) {
            *o = self.texel([i + di, j + dj, 0], layer, read)?[comp];
        }
        Ok(out)
    }

    /// A layer index clamped to the texture's layers.
    pub(super) fn layer(&self, layer: i32) -> u64 {
        if self.layout.layered {
            (layer as i64).clamp(0, self.layout.layers as i64 - 1) as u64
        } else {
            0
        }
    }
}

/// `floor(x)` as a texel index (NaN reads texel 0; infinities saturate).
fn floor_index(x: f32) -> i64 {
    let f = x.floor();
    if f.is_nan() {
        0
    } else {
        f.clamp(i32::MIN as f32, i32::MAX as f32) as i64
    }
}

/// The lower texel index and the weight of the upper one for linear
/// filtering at texel coordinate `x`: `xB = x - 0.5`, `i = floor(xB)`,
/// `α = frac(xB)` in 9-bit fixed point with 8 fraction bits, rounded to
/// nearest, ties up (as an H100 does).
pub fn linear_weight(x: f32) -> (i64, f32) {
    let (i, a) = linear_weight_fixed(x);
    (i, a as f32 / 256.0)
}

/// [`linear_weight`] with the weight as an integer 0..=256 (units 1/256).
pub fn linear_weight_fixed(x: f32) -> (i64, u64) {
    let xb = x - 0.5;
    let i = floor_index(xb);
    let frac = if xb.is_finite() { xb - xb.floor() } else { 0.0 };
    // frac·256 is exact and not negative: round() rounds its ties up.
    (i, (frac * 256.0).round() as u64)
}

/// `v / 2^shift` rounded to nearest, ties to even.
fn round_shift_even(v: u64, shift: u32) -> u64 {
    if shift == 0 {
        return v;
    }
    let q = v >> shift;
    let r = v & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    if r > half || (r == half && q & 1 == 1) {
        q + 1
    } else {
        q
    }
}

/// One channel's raw bits as a result word: floats as f32 bits
/// (normalized integers converted), integers sign- or zero-extended.
pub fn channel_value(ty: ChannelType, raw: u64, float: bool) -> u32 {
    match ty {
        ChannelType::F32 => raw as u32,
        ChannelType::F16 => half::f16::from_bits(raw as u16).to_f32().to_bits(),
        ChannelType::U8 if float => (raw as u8 as f32 / 255.0).to_bits(),
        ChannelType::S8 if float => (raw as i8 as f32 / 127.0).max(-1.0).to_bits(),
        ChannelType::U16 if float => (raw as u16 as f32 / 65535.0).to_bits(),
        ChannelType::S16 if float => (raw as i16 as f32 / 32767.0).max(-1.0).to_bits(),
        ChannelType::U8 => raw as u8 as u32,
        ChannelType::S8 => raw as i8 as i32 as u32,
        ChannelType::U16 => raw as u16 as u32,
        ChannelType::S16 => raw as i16 as i32 as u32,
        ChannelType::U32 | ChannelType::S32 => raw as u32,
    }
}

/// How `suld`/`sust`/`sured` treat coordinates outside the surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Oob {
    Trap,
    Clamp,
    Zero,
}

/// Where a surface access goes, or why it goes nowhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SurfPlace {
    Addr(u64),
    /// Out of bounds under `.zero`: loads read zeros, stores do nothing.
    Skip,
    /// Out of bounds under `.trap`.
    OutOfBounds,
    /// The byte x coordinate is not a multiple of the access size.
    Misaligned,
}

impl SurfView {
    /// The address of a `bytes`-byte access at byte x `x`, rows `y`,
    /// slice `z` and layer `layer` (unused coordinates 0).
    pub fn place(&self, bytes: u64, x: i32, y: i32, z: i32, layer: i32, oob: Oob) -> SurfPlace {
        let l = &self.layout;
        let row = l.width * self.format.bytes();
        if x.rem_euclid(bytes as i32) != 0 {
            return SurfPlace::Misaligned;
        }
        let limits = [
            (x as i64, row as i64 - bytes as i64 + 1),
            (y as i64, l.height as i64),
            (z as i64, l.depth as i64),
            (layer as i64, l.layers as i64),
        ];
        let inside = limits.iter().all(|&(v, n)| v >= 0 && v < n);
        let [x, y, z, layer] = if inside {
            limits.map(|(v, _)| v as u64)
        } else {
            match oob {
                Oob::Trap => return SurfPlace::OutOfBounds,
                Oob::Zero => return SurfPlace::Skip,
                Oob::Clamp => limits.map(|(v, n)| v.clamp(0, (n - 1).max(0)) as u64),
            }
        };
        let x = x / bytes * bytes;
        SurfPlace::Addr(l.base + layer * l.layer_stride + z * l.slice + y * l.pitch + x)
    }
}

/// A `txq`/`suq` attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Query {
    Width,
    Height,
    Depth,
    ChannelDataType,
    ChannelOrder,
    NormalizedCoords,
    FilterMode,
    /// `addr_mode_0`..`addr_mode_2`.
    AddrMode(u8),
    ArraySize,
    NumMipmapLevels,
    NumSamples,
    MemoryLayout,
}

/// A `sured.b` operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SuredOp {
    Add,
    Min,
    Max,
    And,
    Or,
}

/// What `istypep` asks about a handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandleKind {
    Texref,
    Samplerref,
    Surfref,
}

/// How `tex` returns its four channels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexResults {
    /// `.v4.{f32,s32,u32}`: four 32-bit words.
    Words,
    /// `.v4.f16`: each channel as an f16 (16-bit registers).
    F16,
    /// `.v2.f16x2`: channels 0 and 1 packed in the first register (0 low),
    /// 2 and 3 in the second.
    F16x2,
}

impl TexResults {
    /// The destination registers' values from the four channel words
    /// (`float`: the words are f32 bits, else integers, `signed` or not):
    /// converted to f16, rounded to nearest even, for the f16 forms.
    pub fn values(self, w: [u32; 4], float: bool, signed: bool) -> ([u64; 4], usize) {
        let h = |v: u32| -> u64 {
            let x = if float {
                f32::from_bits(v)
            } else if signed {
                v as i32 as f32
            } else {
                v as f32
            };
            half::f16::from_f32(x).to_bits() as u64
        };
        match self {
            TexResults::Words => (w.map(|v| v as u64), 4),
            TexResults::F16 => (w.map(h), 4),
            TexResults::F16x2 => ([h(w[0]) | h(w[1]) << 16, h(w[2]) | h(w[3]) << 16, 0, 0], 2),
        }
    }
}

/// A texture or surface instruction (`OpKind::Texture`). Sources: the
/// handle, then for fetches and surface accesses the coordinates `x, y,
/// z, layer` (bits of f32 or s32 values; unused ones 0), then `sust`'s
/// values or `sured`'s operand; destinations: `tex`/`tld4`'s four
/// results, `suld`'s values, the query's or `istypep`'s answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexOp {
    /// `tex` (`.level`/`.grad` read level 0: objects have no mipmaps);
    /// `cube`: `.cube`/`.acube`, the coordinates a direction. Sources 5..8
    /// are the texel offsets (zeros without an offset operand).
    Tex {
        int_coords: bool,
        cube: bool,
        results: TexResults,
    },
    /// `tld4.{r,g,b,a}.{2d,a2d,cube,acube}`: channel 0..3; sources 5
    /// and 6 the texel offsets.
    Tld4 {
        comp: u8,
        cube: bool,
    },
    Txq(Query),
    /// `txq.level.{width,height,depth}`: the size of a mipmap level (the
    /// level of detail the second source).
    TxqLevel(Query),
    Suq(Query),
    /// `suld.b`: `bytes` per destination register.
    Suld {
        bytes: u8,
        oob: Oob,
    },
    /// `sust.b`: `bytes` per source value.
    Sust {
        bytes: u8,
        oob: Oob,
    },
    Sured {
        op: SuredOp,
        bytes: u8,
        signed: bool,
        oob: Oob,
    },
    Istypep(HandleKind),
}

impl TexView {
    /// `txq`'s answer (`None`: not an attribute of textures).
    pub fn query(&self, q: Query) -> Option<u32> {
        let s = &self.sampler;
        Some(match q {
            Query::NormalizedCoords => s.normalized_coords as u32,
            Query::FilterMode => s.linear_filter as u32,
            Query::AddrMode(d) => s.address[d as usize] as u32,
            Query::NumMipmapLevels => 1,
            Query::NumSamples => 0,
            Query::MemoryLayout => return None,
            q => return layout_query(&self.layout, self.format, q),
        })
    }
}

impl TexView {
    /// `txq.level`'s answer: level `lod`'s width, height or depth; a
    /// texture object has one level, so level 0 gives the texture's size
    /// and any other level 0 (it has none).
    pub fn level_query(&self, q: Query, lod: i32) -> u32 {
        if lod != 0 {
            return 0;
        }
        layout_query(&self.layout, self.format, q).unwrap_or(0)
    }
}

impl SurfView {
    /// `suq`'s answer (`None`: not an attribute of surfaces).
    pub fn query(&self, q: Query) -> Option<u32> {
        match q {
            // 1: linear memory, 0: an array's (opaque) layout.
            Query::MemoryLayout => Some(self.layout.linear as u32),
            q => layout_query(&self.layout, self.format, q),
        }
    }
}

/// The attributes textures and surfaces share: sizes (0 for dimensions
/// the resource does not have), CUDA's `CUarray_format` for the channel
/// type, the number of channels for the channel order.
fn layout_query(l: &Layout, f: Format, q: Query) -> Option<u32> {
    Some(match q {
        Query::Width => l.width as u32,
        Query::Height if l.dims >= 2 => l.height as u32,
        Query::Depth if l.dims >= 3 => l.depth as u32,
        Query::Height | Query::Depth => 0,
        Query::ArraySize if l.cube == Cube::Layered => (l.layers / 6) as u32,
        Query::ArraySize if l.layered && l.cube == Cube::No => l.layers as u32,
        Query::ArraySize => 0,
        Query::ChannelDataType => f.channel.cuda_format(),
        Query::ChannelOrder => f.channels as u32,
        _ => return None,
    })
}

/// `sured.b`'s new value from the old (`bytes` 4 or 8).
pub fn sured(op: SuredOp, bytes: u8, signed: bool, old: u64, v: u64) -> u64 {
    let mask = if bytes == 8 { u64::MAX } else { 0xffff_ffff };
    let (o, v) = (old & mask, v & mask);
    let sx = |x: u64| {
        if bytes == 8 {
            x as i64
        } else {
            x as u32 as i32 as i64
        }
    };
    let r = match op {
        SuredOp::Add => o.wrapping_add(v),
        SuredOp::And => o & v,
        SuredOp::Or => o | v,
        SuredOp::Min if signed => sx(o).min(sx(v)) as u64,
        SuredOp::Max if signed => sx(o).max(sx(v)) as u64,
        SuredOp::Min => o.min(v),
        SuredOp::Max => o.max(v),
    };
    r & mask
}
