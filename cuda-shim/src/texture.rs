//! CUDA arrays, texture objects and surface objects (`cuArray*`,
//! `cuTexObject*`, `cuSurfObject*`) over the device's texture table
//! (`warpjit::runtime::texture`). An array's handle (`CUarray`) is its
//! table handle cast to the pointer type; its texels are dense in device
//! memory, so copies to and from it (`cuMemcpy2D`/`3D` with
//! `CU_MEMORYTYPE_ARRAY`) are pitched device copies ([`array_side`]).
//! The descriptors' layouts are cuda.h 12.x's (`tests/texture_abi.rs`).

use super::*;
use warpjit::runtime::texture::{ArrayDesc, Object, Resource};
use warpjit::sem::texture::{AddressMode, ChannelType, Cube, Format, Sampler};

/// `CUDA_ARRAY_DESCRIPTOR`.
#[repr(C)]
pub struct ArrayDescriptor {
    pub width: usize,
    pub height: usize,
    pub format: c_uint,
    pub channels: c_uint,
}

/// `CUDA_ARRAY3D_DESCRIPTOR`.
#[repr(C)]
pub struct Array3dDescriptor {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub format: c_uint,
    pub channels: c_uint,
    pub flags: c_uint,
}

/// `CUDA_RESOURCE_DESC`: the type, a 128-byte union, flags.
#[repr(C)]
pub struct ResourceDesc {
    pub res_type: c_uint,
    pub res: [u64; 16],
    pub flags: c_uint,
}

/// `CUDA_TEXTURE_DESC`.
#[repr(C)]
pub struct TextureDesc {
    pub address_mode: [c_uint; 3],
    pub filter_mode: c_uint,
    pub flags: c_uint,
    pub max_anisotropy: c_uint,
    pub mipmap_filter_mode: c_uint,
    pub mipmap_level_bias: f32,
    pub min_mipmap_level_clamp: f32,
    pub max_mipmap_level_clamp: f32,
    pub border_color: [f32; 4],
    pub reserved: [c_int; 12],
}

const LAYERED: c_uint = 0x01;
const SURFACE_LDST: c_uint = 0x02;
const CUBEMAP: c_uint = 0x04;
const TEXTURE_GATHER: c_uint = 0x08;
const READ_AS_INTEGER: c_uint = 0x01;
const NORMALIZED_COORDINATES: c_uint = 0x02;

fn format(format: c_uint, channels: c_uint) -> Result<Format, CUresult> {
    let channel = ChannelType::from_cuda_format(format).ok_or(NOT_SUPPORTED)?;
    match channels {
        1 | 2 | 4 => Ok(Format {
            channel,
            channels: channels as u8,
        }),
        _ => Err(INVALID_VALUE),
    }
}

fn create_array(desc: ArrayDesc, arr: *mut Handle) -> CUresult {
    done(need_context().and_then(|()| {
        with_state(|s| {
            let h = s
                .dev_mut()
                .array_create(desc)
                .map_err(|e| errors::code_of(&e))?;
            let (base, ..) = s.dev().array_region(h).map_err(|e| errors::code_of(&e))?;
            s.arrays.insert(base, desc.bytes());
            unsafe { out(arr, h as Handle) }
        })
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuArrayCreate_v2(arr: *mut Handle, d: *const ArrayDescriptor) -> CUresult {
    let Some(d) = d.as_ref() else {
        return INVALID_VALUE;
    };
    let format = match format(d.format, d.channels) {
        Ok(f) => f,
        Err(e) => return e,
    };
    let desc = ArrayDesc {
        format,
        width: d.width as u64,
        height: d.height as u64,
        depth: 0,
        layers: 0,
        surface: false,
        cube: Cube::No,
    };
    create_array(desc, arr)
}

#[no_mangle]
pub unsafe extern "C" fn cuArray3DCreate_v2(
    arr: *mut Handle,
    d: *const Array3dDescriptor,
) -> CUresult {
    let Some(d) = d.as_ref() else {
        return INVALID_VALUE;
    };
    if d.flags & !(LAYERED | SURFACE_LDST | CUBEMAP | TEXTURE_GATHER) != 0 {
        return NOT_SUPPORTED; // sparse, depth textures...
    }
    let format = match format(d.format, d.channels) {
        Ok(f) => f,
        Err(e) => return e,
    };
    let layered = d.flags & LAYERED != 0;
    let cube = d.flags & CUBEMAP != 0;
    if (layered && d.depth == 0)
        || (cube && (d.width != d.height || d.depth == 0 || d.depth % 6 != 0))
        || (cube && !layered && d.depth != 6)
    {
        return INVALID_VALUE;
    }
    // A cubemap's six faces (or 6n, layered) are layers.
    let layers = layered || cube;
    let desc = ArrayDesc {
        format,
        width: d.width as u64,
        height: d.height as u64,
        depth: if layers { 0 } else { d.depth as u64 },
        layers: if layers { d.depth as u64 } else { 0 },
        surface: d.flags & SURFACE_LDST != 0,
        cube: match (cube, layered) {
            (false, _) => Cube::No,
            (true, false) => Cube::Single,
            (true, true) => Cube::Layered,
        },
    };
    create_array(desc, arr)
}

#[no_mangle]
pub unsafe extern "C" fn cuArrayDestroy(arr: Handle) -> CUresult {
    done(with_state(|s| {
        let (base, ..) = s
            .dev()
            .array_region(arr as u64)
            .map_err(|_| INVALID_HANDLE)?;
        s.dev_mut()
            .array_destroy(arr as u64)
            .map_err(|_| INVALID_HANDLE)?;
        s.arrays.remove(&base);
        Ok(())
    }))
}

fn array_desc(arr: Handle) -> Result<ArrayDesc, CUresult> {
    with_state(|s| s.dev().array_desc(arr as u64).map_err(|_| INVALID_HANDLE))
}

#[no_mangle]
pub unsafe extern "C" fn cuArrayGetDescriptor_v2(d: *mut ArrayDescriptor, arr: Handle) -> CUresult {
    done(array_desc(arr).and_then(|a| {
        if a.depth > 0 || a.layers > 0 {
            return Err(INVALID_VALUE); // a 3D or layered array
        }
        let v = ArrayDescriptor {
            width: a.width as usize,
            height: a.height as usize,
            format: a.format.channel.cuda_format(),
            channels: a.format.channels as c_uint,
        };
        out(d, v)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuArray3DGetDescriptor_v2(
    d: *mut Array3dDescriptor,
    arr: Handle,
) -> CUresult {
    done(array_desc(arr).and_then(|a| {
        let flags = match a.cube {
            Cube::No if a.layers > 0 => LAYERED,
            Cube::No => 0,
            Cube::Single => CUBEMAP,
            Cube::Layered => CUBEMAP | LAYERED,
        } | if a.surface { SURFACE_LDST } else { 0 };
        let v = Array3dDescriptor {
            width: a.width as usize,
            height: a.height as usize,
            depth: if a.layers > 0 { a.layers } else { a.depth } as usize,
            format: a.format.channel.cuda_format(),
            channels: a.format.channels as c_uint,
            flags,
        };
        out(d, v)
    }))
}

/// The resource a `CUDA_RESOURCE_DESC` names.
fn resource(r: &ResourceDesc) -> Result<Resource, CUresult> {
    if r.flags != 0 {
        return Err(INVALID_VALUE);
    }
    let u = &r.res;
    let fmt_of = |w: u64| format(w as u32, (w >> 32) as u32);
    match r.res_type {
        0 => Ok(Resource::Array(u[0])),
        1 => Err(NOT_SUPPORTED), // mipmapped arrays
        // linear: devPtr, format, numChannels, sizeInBytes.
        2 => {
            let format = fmt_of(u[1])?;
            Ok(Resource::Linear {
                addr: u[0],
                format,
                width: u[2] / format.bytes(),
            })
        }
        // pitch2D: devPtr, format, numChannels, width, height, pitchInBytes.
        3 => Ok(Resource::Pitch2d {
            addr: u[0],
            format: fmt_of(u[1])?,
            width: u[2],
            height: u[3],
            pitch: u[4],
        }),
        _ => Err(INVALID_VALUE),
    }
}

fn resource_desc(r: Resource, fmt: Format) -> ResourceDesc {
    let mut d = ResourceDesc {
        res_type: 0,
        res: [0; 16],
        flags: 0,
    };
    let f = fmt.channel.cuda_format() as u64 | (fmt.channels as u64) << 32;
    match r {
        Resource::Array(a) => d.res[0] = a,
        Resource::Linear { addr, width, .. } => {
            d.res_type = 2;
            d.res[..3].copy_from_slice(&[addr, f, width * fmt.bytes()]);
        }
        Resource::Pitch2d {
            addr,
            width,
            height,
            pitch,
            ..
        } => {
            d.res_type = 3;
            d.res[..5].copy_from_slice(&[addr, f, width, height, pitch]);
        }
    }
    d
}

#[no_mangle]
pub unsafe extern "C" fn cuTexObjectCreate(
    tex: *mut u64,
    res: *const ResourceDesc,
    desc: *const TextureDesc,
    view: *const c_void,
) -> CUresult {
    let (Some(r), Some(t)) = (res.as_ref(), desc.as_ref()) else {
        return INVALID_VALUE;
    };
    if !view.is_null() {
        return NOT_SUPPORTED; // resource views
    }
    done(need_context().and_then(|()| {
        let resource = resource(r)?;
        let mut address = [AddressMode::Clamp; 3];
        for (a, &m) in address.iter_mut().zip(&t.address_mode) {
            *a = AddressMode::from_cuda(m).ok_or(INVALID_VALUE)?;
        }
        with_state(|s| {
            let fmt = match resource {
                Resource::Array(a) => s.dev().array_desc(a).map_err(|_| INVALID_HANDLE)?.format,
                Resource::Linear { format, .. } | Resource::Pitch2d { format, .. } => format,
            };
            let sampler = Sampler {
                address,
                linear_filter: t.filter_mode == 1,
                // The driver reads 8/16-bit integers as normalized floats
                // unless told to read integers.
                read_normalized: t.flags & READ_AS_INTEGER == 0 && fmt.channel.normalizable(),
                normalized_coords: t.flags & NORMALIZED_COORDINATES != 0,
                border: t.border_color,
            };
            let h = s
                .dev_mut()
                .texture_create(resource, sampler)
                .map_err(|e| errors::code_of(&e))?;
            out(tex, h)
        })
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuTexObjectDestroy(tex: u64) -> CUresult {
    done(with_state(|s| {
        match s.dev().object(tex) {
            Some(Object::Texture { .. }) => {}
            _ => return Err(INVALID_VALUE),
        }
        s.dev_mut().object_destroy(tex).map_err(|_| INVALID_VALUE)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuTexObjectGetResourceDesc(d: *mut ResourceDesc, tex: u64) -> CUresult {
    done(with_state(|s| match s.dev().object(tex) {
        Some(Object::Texture { view, resource }) => out(d, resource_desc(resource, view.format)),
        _ => Err(INVALID_VALUE),
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuTexObjectGetTextureDesc(d: *mut TextureDesc, tex: u64) -> CUresult {
    done(with_state(|s| match s.dev().object(tex) {
        Some(Object::Texture { view, .. }) => {
            let sm = view.sampler;
            let int_read = !sm.read_normalized && view.format.channel.normalizable();
            let v = TextureDesc {
                address_mode: sm.address.map(|m| m as c_uint),
                filter_mode: sm.linear_filter as c_uint,
                flags: if int_read { READ_AS_INTEGER } else { 0 }
                    | if sm.normalized_coords {
                        NORMALIZED_COORDINATES
                    } else {
                        0
                    },
                max_anisotropy: 0,
                mipmap_filter_mode: 0,
                mipmap_level_bias: 0.0,
                min_mipmap_level_clamp: 0.0,
                max_mipmap_level_clamp: 0.0,
                border_color: sm.border,
                reserved: [0; 12],
            };
            out(d, v)
        }
        _ => Err(INVALID_VALUE),
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuSurfObjectCreate(surf: *mut u64, res: *const ResourceDesc) -> CUresult {
    let Some(r) = res.as_ref() else {
        return INVALID_VALUE;
    };
    done(need_context().and_then(|()| {
        let resource = resource(r)?;
        with_state(|s| {
            let h = s
                .dev_mut()
                .surface_create(resource)
                .map_err(|e| errors::code_of(&e))?;
            out(surf, h)
        })
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuSurfObjectDestroy(surf: u64) -> CUresult {
    done(with_state(|s| {
        match s.dev().object(surf) {
            Some(Object::Surface { .. }) => {}
            _ => return Err(INVALID_VALUE),
        }
        s.dev_mut().object_destroy(surf).map_err(|_| INVALID_VALUE)
    }))
}

/// One side of a 2D/3D copy that is an array (`CU_MEMORYTYPE_ARRAY`) as
/// a device side: (memory type device, base address, row pitch, rows
/// per slice).
pub(crate) fn array_side(s: &State, arr: Handle) -> Result<(c_uint, u64, usize, usize), CUresult> {
    let dev = s.dev();
    let (base, pitch, slice) = dev.array_region(arr as u64).map_err(|_| INVALID_VALUE)?;
    Ok((2, base, pitch as usize, (slice / pitch.max(1)) as usize))
}
