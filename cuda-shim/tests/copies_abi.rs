//! 3D copies through the C ABI (`cuMemcpy3D_v2`, `CUDA_MEMCPY3D`): a box
//! out of a host volume into a pitched device volume and back, checked
//! byte for byte against the same box cut on the host.

use std::ffi::{c_uint, c_void};

mod common;
use common::*;

/// `CUDA_MEMCPY3D_v2`.
#[repr(C)]
#[derive(Clone, Copy)]
struct Memcpy3D {
    src_x: usize,
    src_y: usize,
    src_z: usize,
    src_lod: usize,
    src_type: c_uint,
    src_host: *const c_void,
    src_device: u64,
    src_array: Handle,
    reserved0: *mut c_void,
    src_pitch: usize,
    src_height: usize,
    dst_x: usize,
    dst_y: usize,
    dst_z: usize,
    dst_lod: usize,
    dst_type: c_uint,
    dst_host: *mut c_void,
    dst_device: u64,
    dst_array: Handle,
    reserved1: *mut c_void,
    dst_pitch: usize,
    dst_height: usize,
    width: usize,
    height: usize,
    depth: usize,
}

const HOST: c_uint = 1;
const DEVICE: c_uint = 2;

#[test]
fn a_box_goes_to_a_pitched_volume_and_back() {
    let lib = library();
    context(&lib);
    let alloc = sym!(lib, b"cuMemAlloc_v2", CuMemAlloc);
    let copy = sym!(
        lib,
        b"cuMemcpy3D_v2",
        unsafe extern "C" fn(*const Memcpy3D) -> u32
    );
    // A host volume of 40 x 7 x 5 bytes (pitch 40, 7 rows a slice).
    let (hp, hh, hd) = (40usize, 7usize, 5usize);
    let volume: Vec<u8> = (0..hp * hh * hd).map(|i| (i * 7 + 3) as u8).collect();
    // The box: 13 bytes from x = 5, 4 rows from y = 2, 3 slices from z = 1,
    // into a device volume of pitch 64 and 6 rows a slice, at (8, 1, 2).
    let (w, h, d) = (13usize, 4usize, 3usize);
    let (dp, dh, dd) = (64usize, 6usize, 6usize);
    let mut dev = 0u64;
    let mut back = vec![0u8; hp * hh * hd];
    let zero = Memcpy3D {
        src_x: 0,
        src_y: 0,
        src_z: 0,
        src_lod: 0,
        src_type: 0,
        src_host: std::ptr::null(),
        src_device: 0,
        src_array: std::ptr::null_mut(),
        reserved0: std::ptr::null_mut(),
        src_pitch: 0,
        src_height: 0,
        dst_x: 0,
        dst_y: 0,
        dst_z: 0,
        dst_lod: 0,
        dst_type: 0,
        dst_host: std::ptr::null_mut(),
        dst_device: 0,
        dst_array: std::ptr::null_mut(),
        reserved1: std::ptr::null_mut(),
        dst_pitch: 0,
        dst_height: 0,
        width: w,
        height: h,
        depth: d,
    };
    // SAFETY: the descriptors name live buffers of the sizes they give.
    unsafe {
        assert_eq!(alloc(&mut dev, dp * dh * dd), 0);
        let up = Memcpy3D {
            src_x: 5,
            src_y: 2,
            src_z: 1,
            src_type: HOST,
            src_host: volume.as_ptr() as *const c_void,
            src_pitch: hp,
            src_height: hh,
            dst_x: 8,
            dst_y: 1,
            dst_z: 2,
            dst_type: DEVICE,
            dst_device: dev,
            dst_pitch: dp,
            dst_height: dh,
            ..zero
        };
        assert_eq!(copy(&up), 0);
        // Back to the same place of a fresh host volume.
        let down = Memcpy3D {
            src_x: 8,
            src_y: 1,
            src_z: 2,
            src_type: DEVICE,
            src_device: dev,
            src_pitch: dp,
            src_height: dh,
            dst_x: 5,
            dst_y: 2,
            dst_z: 1,
            dst_type: HOST,
            dst_host: back.as_mut_ptr() as *mut c_void,
            dst_pitch: hp,
            dst_height: hh,
            ..zero
        };
        assert_eq!(copy(&down), 0);
        // A box that does not fit its slices is refused.
        let bad = Memcpy3D {
            src_height: 3,
            ..up
        };
        assert_eq!(copy(&bad), 1);
    }
    for z in 0..hd {
        for y in 0..hh {
            for x in 0..hp {
                let i = (z * hh + y) * hp + x;
                let inside =
                    (1..1 + d).contains(&z) && (2..2 + h).contains(&y) && (5..5 + w).contains(&x);
                let want = if inside { volume[i] } else { 0 };
                assert_eq!(back[i], want, "({x}, {y}, {z})");
            }
        }
    }
}
