//! Texture and surface objects, and the CUDA arrays they may read: the
//! device-side table every launch sees (`LaunchCtx::textures`).
//!
//! An array is an allocation in the device arena whose layout is
//! warpjit's own (texels dense, x fastest, then y, z, layer); a
//! resource is linear memory (1D, what `tex1Dfetch` reads), pitched 2D
//! memory, or an array. Creating an object turns its resource and
//! descriptor into a view ([`TexView`], [`SurfView`]) under a fresh opaque
//! 64-bit handle; handles are never reused, so a destroyed object's handle
//! stays invalid, and a fetch through it is a fault at the instruction.

use std::collections::HashMap;

use crate::error::Error;
use crate::sem::texture::{Cube, Format, Layout, Sampler, SurfView, TexView};

/// What an array holds: `height` 0 for 1D, `depth` 0 below 3D; `layers`
/// nonzero for layered arrays (1D layered: `height` 0; 2D layered:
/// `depth` 0), as `CUDA_ARRAY3D_DESCRIPTOR` says. A cubemap is 2D layered
/// with square faces, `layers` its faces: 6, or `6n` for `n` layered
/// cubemaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayDesc {
    pub format: Format,
    pub width: u64,
    pub height: u64,
    pub depth: u64,
    pub layers: u64,
    /// May back surfaces (`CUDA_ARRAY3D_SURFACE_LDST`).
    pub surface: bool,
    /// A cubemap (`CUDA_ARRAY3D_CUBEMAP`), layered or not.
    pub cube: Cube,
}

impl ArrayDesc {
    /// The layout of the array's texels at `base`.
    fn layout(&self, base: u64) -> Layout {
        let dims = if self.depth > 0 {
            3
        } else if self.height > 0 {
            2
        } else {
            1
        };
        let pitch = self.width * self.format.bytes();
        let slice = pitch * self.height.max(1);
        Layout {
            base,
            dims,
            layered: self.layers > 0,
            cube: self.cube,
            linear: false,
            width: self.width,
            height: self.height.max(1),
            depth: self.depth.max(1),
            layers: self.layers.max(1),
            pitch,
            slice,
            layer_stride: slice * self.depth.max(1),
        }
    }

    /// The array's size in bytes.
    pub fn bytes(&self) -> u64 {
        self.width
            * self.format.bytes()
            * self.height.max(1)
            * self.depth.max(1)
            * self.layers.max(1)
    }
}

/// What a texture or surface object reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    /// An array made by [`Textures::create_array`] (its handle).
    Array(u64),
    /// `width` texels of `format` at device address `addr` (`tex1Dfetch`).
    Linear {
        addr: u64,
        format: Format,
        width: u64,
    },
    /// Rows of `width` texels, `pitch` bytes apart.
    Pitch2d {
        addr: u64,
        format: Format,
        width: u64,
        height: u64,
        pitch: u64,
    },
}

/// One live object.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Object {
    Texture { view: TexView, resource: Resource },
    Surface { view: SurfView, resource: Resource },
}

/// A device's arrays and texture and surface objects.
#[derive(Debug, Default)]
pub struct Textures {
    arrays: HashMap<u64, (ArrayDesc, u64)>,
    objects: HashMap<u64, Object>,
    /// The last handle given out (arrays and objects share the count).
    last: u64,
}

/// The first handle: small integers are not handles, so a zero or
/// uninitialized parameter faults.
const FIRST_HANDLE: u64 = 0x7e0_0000;

fn bad(msg: impl Into<String>) -> Error {
    Error::InvalidArgument(msg.into())
}

impl Textures {
    fn next(&mut self) -> u64 {
        self.last = self.last.max(FIRST_HANDLE) + 1;
        self.last
    }

    /// Records an array whose texels live at `base` (an allocation of
    /// [`ArrayDesc::bytes`]); returns its handle.
    pub fn add_array(&mut self, desc: ArrayDesc, base: u64) -> u64 {
        let h = self.next();
        self.arrays.insert(h, (desc, base));
        h
    }

    /// Forgets an array; returns its base address, to be freed.
    pub fn remove_array(&mut self, h: u64) -> Result<u64, Error> {
        let in_use = self.objects.values().any(|o| match o {
            Object::Texture { resource, .. } | Object::Surface { resource, .. } => {
                *resource == Resource::Array(h)
            }
        });
        if in_use {
            return Err(bad(format!(
                "array {h:#x} is read by a live texture or surface object"
            )));
        }
        self.arrays
            .remove(&h)
            .map(|(_, base)| base)
            .ok_or_else(|| bad(format!("{h:#x} is not an array")))
    }

    /// An array's descriptor and base address.
    pub fn array(&self, h: u64) -> Result<(ArrayDesc, u64), Error> {
        self.arrays
            .get(&h)
            .copied()
            .ok_or_else(|| bad(format!("{h:#x} is not an array")))
    }

    /// A resource's layout and format, checked.
    fn resolve(&self, r: &Resource) -> Result<(Layout, Format), Error> {
        let check_format = |f: Format| {
            if matches!(f.channels, 1 | 2 | 4) {
                Ok(())
            } else {
                Err(bad(format!(
                    "{} channels: a texel has 1, 2 or 4",
                    f.channels
                )))
            }
        };
        match *r {
            Resource::Array(h) => {
                let (desc, base) = self.array(h)?;
                Ok((desc.layout(base), desc.format))
            }
            Resource::Linear {
                addr,
                format,
                width,
            } => {
                check_format(format)?;
                let pitch = width * format.bytes();
                let layout = Layout {
                    base: addr,
                    dims: 1,
                    layered: false,
                    cube: Cube::No,
                    linear: true,
                    width,
                    height: 1,
                    depth: 1,
                    layers: 1,
                    pitch,
                    slice: pitch,
                    layer_stride: pitch,
                };
                Ok((layout, format))
            }
            Resource::Pitch2d {
                addr,
                format,
                width,
                height,
                pitch,
            } => {
                check_format(format)?;
                if pitch < width * format.bytes() {
                    return Err(bad(format!(
                        "pitch {pitch} is less than a row of {width} texels"
                    )));
                }
                let layout = Layout {
                    base: addr,
                    dims: 2,
                    layered: false,
                    cube: Cube::No,
                    linear: false,
                    width,
                    height,
                    depth: 1,
                    layers: 1,
                    pitch,
                    slice: pitch * height,
                    layer_stride: pitch * height,
                };
                Ok((layout, format))
            }
        }
    }

    /// Creates a texture object over `resource`; returns its handle.
    pub fn create_texture(&mut self, resource: Resource, sampler: Sampler) -> Result<u64, Error> {
        let (layout, format) = self.resolve(&resource)?;
        if sampler.read_normalized && !format.channel.normalizable() {
            return Err(bad(
                "normalized-float reads need 8- or 16-bit integer texels",
            ));
        }
        let view = TexView {
            layout,
            format,
            sampler,
        };
        if sampler.linear_filter && !view.float_results() {
            return Err(bad(
                "linear filtering needs float results (float texels or normalized-float reads)",
            ));
        }
        let h = self.next();
        self.objects.insert(h, Object::Texture { view, resource });
        Ok(h)
    }

    /// Creates a surface object over an array made for surfaces.
    pub fn create_surface(&mut self, resource: Resource) -> Result<u64, Error> {
        let Resource::Array(a) = resource else {
            return Err(bad("a surface object needs a CUDA array"));
        };
        if !self.array(a)?.0.surface {
            return Err(bad(format!("array {a:#x} was not created for surfaces")));
        }
        let (layout, format) = self.resolve(&resource)?;
        let h = self.next();
        self.objects.insert(
            h,
            Object::Surface {
                view: SurfView { layout, format },
                resource,
            },
        );
        Ok(h)
    }

    /// Destroys a texture or surface object.
    pub fn destroy(&mut self, h: u64) -> Result<(), Error> {
        self.objects
            .remove(&h)
            .map(|_| ())
            .ok_or_else(|| bad(format!("{h:#x} is not a texture or surface object")))
    }

    /// The live object `h`.
    pub fn object(&self, h: u64) -> Option<&Object> {
        self.objects.get(&h)
    }

    /// The texture object `h`.
    pub fn texture(&self, h: u64) -> Option<&TexView> {
        match self.objects.get(&h) {
            Some(Object::Texture { view, .. }) => Some(view),
            _ => None,
        }
    }

    /// The surface object `h`.
    pub fn surface(&self, h: u64) -> Option<&SurfView> {
        match self.objects.get(&h) {
            Some(Object::Surface { view, .. }) => Some(view),
            _ => None,
        }
    }
}

impl super::Device {
    /// Creates a CUDA array (zeroed) in device memory; returns its handle.
    pub fn array_create(&mut self, desc: ArrayDesc) -> Result<u64, Error> {
        if desc.width == 0
            || !matches!(desc.format.channels, 1 | 2 | 4)
            || (desc.depth > 0 && desc.height == 0)
            || (desc.layers > 0 && desc.depth > 0)
            || (desc.cube != Cube::No
                && (desc.height != desc.width || desc.layers == 0 || desc.layers % 6 != 0))
            || (desc.cube == Cube::Single && desc.layers != 6)
        {
            return Err(bad(format!("invalid array descriptor {desc:?}")));
        }
        let bytes = desc.bytes();
        let base = self.alloc(bytes)?;
        self.memset(base, 0, bytes)?;
        Ok(self.textures.add_array(desc, base))
    }

    /// Destroys an array no live object reads.
    pub fn array_destroy(&mut self, h: u64) -> Result<(), Error> {
        let base = self.textures.remove_array(h)?;
        self.free(base)
    }

    /// An array's descriptor.
    pub fn array_desc(&self, h: u64) -> Result<ArrayDesc, Error> {
        Ok(self.textures.array(h)?.0)
    }

    /// Where an array's texels lie: base address, bytes per row, bytes per
    /// 2D slice (layers and depth slices follow each other).
    pub fn array_region(&self, h: u64) -> Result<(u64, u64, u64), Error> {
        let (desc, base) = self.textures.array(h)?;
        let l = desc.layout(base);
        Ok((base, l.pitch, l.slice))
    }

    /// Writes `data` into an array from byte `offset` of its contents
    /// (rows, then slices, then layers, dense).
    pub fn array_write(&mut self, h: u64, offset: u64, data: &[u8]) -> Result<(), Error> {
        let (desc, base) = self.textures.array(h)?;
        if offset + data.len() as u64 > desc.bytes() {
            return Err(bad(format!(
                "{} bytes at {offset} do not fit array {h:#x} of {} bytes",
                data.len(),
                desc.bytes()
            )));
        }
        self.write(base + offset, data)
    }

    /// Reads an array's contents from byte `offset` into `out`.
    pub fn array_read(&self, h: u64, offset: u64, out: &mut [u8]) -> Result<(), Error> {
        let (desc, base) = self.textures.array(h)?;
        if offset + out.len() as u64 > desc.bytes() {
            return Err(bad(format!(
                "{} bytes at {offset} are past the end of array {h:#x} of {} bytes",
                out.len(),
                desc.bytes()
            )));
        }
        self.read(base + offset, out)
    }

    /// Creates a texture object; returns its handle (the kernel
    /// parameter's value).
    pub fn texture_create(&mut self, resource: Resource, sampler: Sampler) -> Result<u64, Error> {
        self.textures.create_texture(resource, sampler)
    }

    /// Creates a surface object over an array made for surfaces.
    pub fn surface_create(&mut self, resource: Resource) -> Result<u64, Error> {
        self.textures.create_surface(resource)
    }

    /// Destroys a texture or surface object.
    pub fn object_destroy(&mut self, h: u64) -> Result<(), Error> {
        self.textures.destroy(h)
    }

    /// A live texture or surface object (its resource and view).
    pub fn object(&self, h: u64) -> Option<Object> {
        self.textures.object(h).copied()
    }
}
