//! CUDA arrays, texture and surface objects through the C ABI: the
//! descriptors' layouts (sizes and offsets as cuda.h 12.9 gives them,
//! measured with gcc's `offsetof`), an array filled by `cuMemcpy2D_v2`
//! from the host, read by a linear-filtering texture object in NVRTC's
//! `tex2D<float>` kernel, surfaces written by `surf2Dwrite` and copied
//! back by `cuMemcpy3D_v2`, descriptors read back, and misuse refused.

use std::ffi::{c_int, c_uint, c_void};
use std::ptr::null_mut;

mod common;
use common::*;

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Array3dDescriptor {
    width: usize,
    height: usize,
    depth: usize,
    format: c_uint,
    channels: c_uint,
    flags: c_uint,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct ArrayDescriptor {
    width: usize,
    height: usize,
    format: c_uint,
    channels: c_uint,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct ResourceDesc {
    res_type: c_uint,
    res: [u64; 16],
    flags: c_uint,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct TextureDesc {
    address_mode: [c_uint; 3],
    filter_mode: c_uint,
    flags: c_uint,
    max_anisotropy: c_uint,
    mipmap_filter_mode: c_uint,
    mipmap_level_bias: f32,
    min_mipmap_level_clamp: f32,
    max_mipmap_level_clamp: f32,
    border_color: [f32; 4],
    reserved: [c_int; 12],
}

const HOST: c_uint = 1;
const ARRAY: c_uint = 3;
const FLOAT: c_uint = 0x20;
const SURFACE_LDST: c_uint = 0x02;

type ArrayCreate = unsafe extern "C" fn(*mut Handle, *const Array3dDescriptor) -> u32;
type TexCreate =
    unsafe extern "C" fn(*mut u64, *const ResourceDesc, *const TextureDesc, *const c_void) -> u32;

#[test]
fn descriptor_layouts_are_cuda_hs() {
    use std::mem::{offset_of, size_of};
    // gcc -I<cuda_runtime/include>: sizeof and offsetof of cuda.h 12.9.
    assert_eq!(size_of::<ResourceDesc>(), 144);
    assert_eq!(offset_of!(ResourceDesc, res), 8);
    assert_eq!(offset_of!(ResourceDesc, flags), 136);
    assert_eq!(size_of::<TextureDesc>(), 104);
    assert_eq!(offset_of!(TextureDesc, flags), 16);
    assert_eq!(offset_of!(TextureDesc, border_color), 40);
    assert_eq!(size_of::<ArrayDescriptor>(), 24);
    assert_eq!(offset_of!(ArrayDescriptor, format), 16);
    assert_eq!(size_of::<Array3dDescriptor>(), 40);
    assert_eq!(offset_of!(Array3dDescriptor, flags), 32);
    assert_eq!(size_of::<Memcpy2D>(), 128);
    assert_eq!(offset_of!(Memcpy2D, dst_array), 96);
}

fn load_forms(lib: &libloading::Library) -> Handle {
    let load = sym!(lib, b"cuModuleLoadData", CuModuleLoadData);
    let path = repo().join("tests/data/texture/forms.ptx");
    let ptx = std::ffi::CString::new(std::fs::read(path).unwrap()).unwrap();
    let mut module: Handle = std::ptr::null_mut();
    // SAFETY: an out-pointer to a local and NUL-terminated text.
    unsafe { assert_eq!(load(&mut module, ptx.as_ptr() as *const c_void), 0) };
    module
}

fn function(lib: &libloading::Library, module: Handle, name: &std::ffi::CStr) -> Handle {
    let get = sym!(lib, b"cuModuleGetFunction", CuModuleGetFunction);
    let mut f: Handle = std::ptr::null_mut();
    // SAFETY: as above.
    unsafe { assert_eq!(get(&mut f, module, name.as_ptr()), 0) };
    f
}

fn launch(lib: &libloading::Library, f: Handle, grid: u32, block: u32, args: &mut [*mut c_void]) {
    let launch = sym!(lib, b"cuLaunchKernel", Launch);
    let sync = sym!(lib, b"cuCtxSynchronize", CuCtxSynchronize);
    let null = std::ptr::null_mut();
    // SAFETY: args point at locals of the kernel's parameter types.
    unsafe {
        assert_eq!(
            launch(
                f,
                grid,
                1,
                1,
                block,
                1,
                1,
                0,
                null,
                args.as_mut_ptr(),
                null_mut()
            ),
            0
        );
        assert_eq!(sync(), 0);
    }
}

fn host_to_array(lib: &libloading::Library, arr: Handle, data: &[f32], w: usize, h: usize) {
    let copy = sym!(
        lib,
        b"cuMemcpy2D_v2",
        unsafe extern "C" fn(*const Memcpy2D) -> u32
    );
    let p = Memcpy2D {
        src_x: 0,
        src_y: 0,
        src_type: HOST,
        src_host: data.as_ptr() as *const c_void,
        src_device: 0,
        src_array: std::ptr::null_mut(),
        src_pitch: 4 * w,
        dst_x: 0,
        dst_y: 0,
        dst_type: ARRAY,
        dst_host: std::ptr::null_mut(),
        dst_device: 0,
        dst_array: arr,
        dst_pitch: 0,
        width: 4 * w,
        height: h,
    };
    // SAFETY: the source holds w * h floats.
    unsafe { assert_eq!(copy(&p), 0) };
}

#[test]
fn textures_and_surfaces_over_arrays() {
    let lib = library();
    context(&lib);
    let module = load_forms(&lib);
    let create = sym!(lib, b"cuArray3DCreate_v2", ArrayCreate);
    let tex_create = sym!(lib, b"cuTexObjectCreate", TexCreate);
    let (w, h) = (4usize, 3usize);
    let data: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
    let desc = Array3dDescriptor {
        width: w,
        height: h,
        depth: 0,
        format: FLOAT,
        channels: 1,
        flags: SURFACE_LDST,
    };
    let mut arr: Handle = std::ptr::null_mut();
    // SAFETY: out-pointers to locals, descriptors of cuda.h's layout.
    unsafe { assert_eq!(create(&mut arr, &desc), 0) };
    host_to_array(&lib, arr, &data, w, h);
    let res = ResourceDesc {
        res_type: 0,
        res: [arr as u64, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        flags: 0,
    };
    let td = TextureDesc {
        address_mode: [1; 3],
        filter_mode: 1,
        ..Default::default()
    };
    let mut tex = 0u64;
    // SAFETY: as above.
    unsafe { assert_eq!(tex_create(&mut tex, &res, &td, std::ptr::null()), 0) };
    // tex2D<float>(tex, 1.0 + i, 1.5): halfway between texels i and i+1
    // of row 1 (the last clamped).
    let mut out = 0u64;
    let alloc = sym!(lib, b"cuMemAlloc_v2", CuMemAlloc);
    let dtoh = sym!(lib, b"cuMemcpyDtoH_v2", CuMemcpyDtoH);
    // SAFETY: as above.
    unsafe { assert_eq!(alloc(&mut out, 64), 0) };
    let (mut x, mut y) = (1.0f32, 1.5f32);
    let mut args = [
        &mut tex as *mut u64 as *mut c_void,
        &mut out as *mut u64 as *mut c_void,
        &mut x as *mut f32 as *mut c_void,
        &mut y as *mut f32 as *mut c_void,
    ];
    launch(&lib, function(&lib, module, c"t2f"), 1, 4, &mut args);
    let mut got = [0f32; 4];
    // SAFETY: 16 bytes into a local.
    unsafe { assert_eq!(dtoh(got.as_mut_ptr() as *mut c_void, out, 16), 0) };
    assert_eq!(got, [4.5, 5.5, 6.5, 7.0]);
    // The descriptors read back.
    let get_td = sym!(
        lib,
        b"cuTexObjectGetTextureDesc",
        unsafe extern "C" fn(*mut TextureDesc, u64) -> u32
    );
    let get_rd = sym!(
        lib,
        b"cuTexObjectGetResourceDesc",
        unsafe extern "C" fn(*mut ResourceDesc, u64) -> u32
    );
    let get_ad = sym!(
        lib,
        b"cuArray3DGetDescriptor_v2",
        unsafe extern "C" fn(*mut Array3dDescriptor, Handle) -> u32
    );
    let mut td2 = TextureDesc::default();
    let mut rd2 = ResourceDesc {
        res_type: 9,
        res: [0; 16],
        flags: 0,
    };
    let mut ad2 = Array3dDescriptor::default();
    // SAFETY: out-pointers to locals.
    unsafe {
        assert_eq!(get_td(&mut td2, tex), 0);
        assert_eq!(get_rd(&mut rd2, tex), 0);
        assert_eq!(get_ad(&mut ad2, arr), 0);
    }
    assert_eq!(
        (td2.address_mode, td2.filter_mode, td2.flags),
        ([1; 3], 1, 0)
    );
    assert_eq!((rd2.res_type, rd2.res[0]), (0, arr as u64));
    assert_eq!(
        (
            ad2.width,
            ad2.height,
            ad2.depth,
            ad2.format,
            ad2.channels,
            ad2.flags
        ),
        (4, 3, 0, FLOAT, 1, SURFACE_LDST)
    );

    // Surfaces: s2 doubles src into dst (block y = row).
    let surf_create = sym!(
        lib,
        b"cuSurfObjectCreate",
        unsafe extern "C" fn(*mut u64, *const ResourceDesc) -> u32
    );
    let mut dst_arr: Handle = std::ptr::null_mut();
    let (mut s, mut d, mut n) = (0u64, 0u64, w as c_int);
    // SAFETY: as above.
    unsafe {
        assert_eq!(create(&mut dst_arr, &desc), 0);
        assert_eq!(surf_create(&mut s, &res), 0);
        let dres = ResourceDesc {
            res: [dst_arr as u64, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            ..res
        };
        assert_eq!(surf_create(&mut d, &dres), 0);
    }
    let mut args = [
        &mut s as *mut u64 as *mut c_void,
        &mut d as *mut u64 as *mut c_void,
        &mut n as *mut c_int as *mut c_void,
    ];
    launch(
        &lib,
        function(&lib, module, c"s2"),
        h as u32,
        w as u32,
        &mut args,
    );
    let copy = sym!(
        lib,
        b"cuMemcpy2D_v2",
        unsafe extern "C" fn(*const Memcpy2D) -> u32
    );
    let mut back = vec![0f32; w * h];
    let p = Memcpy2D {
        src_x: 0,
        src_y: 0,
        src_type: ARRAY,
        src_host: std::ptr::null(),
        src_device: 0,
        src_array: dst_arr,
        src_pitch: 0,
        dst_x: 0,
        dst_y: 0,
        dst_type: HOST,
        dst_host: back.as_mut_ptr() as *mut c_void,
        dst_device: 0,
        dst_array: std::ptr::null_mut(),
        dst_pitch: 4 * w,
        width: 4 * w,
        height: h,
    };
    // SAFETY: the destination holds w * h floats.
    unsafe { assert_eq!(copy(&p), 0) };
    assert_eq!(back, data.iter().map(|v| 2.0 * v).collect::<Vec<_>>());

    // Misuse: an array a live object reads, objects destroyed twice, a
    // surface over an array not made for surfaces.
    let destroy_arr = sym!(lib, b"cuArrayDestroy", unsafe extern "C" fn(Handle) -> u32);
    let tex_destroy = sym!(lib, b"cuTexObjectDestroy", unsafe extern "C" fn(u64) -> u32);
    let surf_destroy = sym!(
        lib,
        b"cuSurfObjectDestroy",
        unsafe extern "C" fn(u64) -> u32
    );
    let plain = Array3dDescriptor { flags: 0, ..desc };
    let mut plain_arr: Handle = std::ptr::null_mut();
    let mut bad = 0u64;
    // SAFETY: as above.
    unsafe {
        assert_ne!(destroy_arr(arr), 0);
        assert_eq!(tex_destroy(tex), 0);
        assert_ne!(tex_destroy(tex), 0);
        assert_ne!(tex_destroy(s), 0, "a surface is no texture");
        assert_eq!(surf_destroy(s), 0);
        assert_eq!(surf_destroy(d), 0);
        assert_eq!(destroy_arr(arr), 0);
        assert_eq!(destroy_arr(dst_arr), 0);
        assert_eq!(create(&mut plain_arr, &plain), 0);
        let pres = ResourceDesc {
            res: [
                plain_arr as u64,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
            ],
            ..res
        };
        assert_ne!(surf_create(&mut bad, &pres), 0);
        assert_eq!(destroy_arr(plain_arr), 0);
    }
}

#[test]
fn cubemap_arrays_are_six_square_layers() {
    const LAYERED: c_uint = 0x01;
    const CUBEMAP: c_uint = 0x04;
    let lib = library();
    context(&lib);
    let create = sym!(lib, b"cuArray3DCreate_v2", ArrayCreate);
    let get = sym!(
        lib,
        b"cuArray3DGetDescriptor_v2",
        unsafe extern "C" fn(*mut Array3dDescriptor, Handle) -> u32
    );
    let desc = |w: usize, h: usize, depth: usize, flags: c_uint| Array3dDescriptor {
        width: w,
        height: h,
        depth,
        format: FLOAT,
        channels: 1,
        flags,
    };
    let ok = [
        desc(8, 8, 6, CUBEMAP),
        desc(8, 8, 12, CUBEMAP | LAYERED | SURFACE_LDST),
    ];
    for d in ok {
        let mut arr: Handle = std::ptr::null_mut();
        let mut back = Array3dDescriptor::default();
        // SAFETY: out-pointers to locals, descriptors of cuda.h's layout.
        unsafe {
            assert_eq!(create(&mut arr, &d), 0);
            assert_eq!(get(&mut back, arr), 0);
        }
        assert_eq!((back.depth, back.flags), (d.depth, d.flags));
    }
    // CUDA_ERROR_INVALID_VALUE: faces not square, not six, not 6n.
    for d in [
        desc(8, 4, 6, CUBEMAP),
        desc(8, 8, 12, CUBEMAP),
        desc(8, 8, 7, CUBEMAP | LAYERED),
    ] {
        let mut arr: Handle = std::ptr::null_mut();
        // SAFETY: as above.
        unsafe { assert_eq!(create(&mut arr, &d), 1) };
    }
}
