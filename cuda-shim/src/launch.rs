//! Launches (`cuLaunchKernel` with `kernelParams` or `extra`,
//! `cuLaunchKernelEx`, optional timing with `WARPJIT_TIMING`), enqueued
//! as stream work, and the occupancy queries, from the timing model's
//! port of NVIDIA's rules.

use super::*;
use crate::ops::{KernelLaunch, Op};
use crate::queue::submit;

// ---- Launches ----------------------------------------------------------------

const LAUNCH_PARAM_END: usize = 0;
const LAUNCH_PARAM_BUFFER_POINTER: usize = 1;
const LAUNCH_PARAM_BUFFER_SIZE: usize = 2;

/// Enqueues a launch on `stream`: the parameters are copied now, the
/// configuration checked now (CUDA_ERROR_INVALID_VALUE), the kernel runs
/// when the stream reaches it (its faults become the context's sticky
/// error).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuLaunchKernel(
    f: Handle,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    stream: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    let config = launch_config([gx, gy, gz], [bx, by, bz], shared);
    launch_kernel(f, config, stream, params, extra, false, None)
}

/// As `cuLaunchKernel`, every block resident at once (grid-wide sync): a
/// grid larger than the preset's SMs times the kernel's occupancy is
/// CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE.
#[no_mangle]
pub unsafe extern "C" fn cuLaunchCooperativeKernel(
    f: Handle,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    stream: Handle,
    params: *mut *mut c_void,
) -> CUresult {
    let config = launch_config([gx, gy, gz], [bx, by, bz], shared);
    launch_kernel(f, config, stream, params, std::ptr::null_mut(), true, None)
}

pub(crate) fn launch_config(grid: [c_uint; 3], block: [c_uint; 3], shared: c_uint) -> LaunchConfig {
    LaunchConfig {
        grid,
        block,
        shared_bytes: shared,
    }
}

/// What the launch entry points share: the parameters copied and the
/// configuration checked now (for a cooperative launch, that the grid can
/// be resident), the launch enqueued on `stream`.
unsafe fn launch_kernel(
    f: Handle,
    config: LaunchConfig,
    stream: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    cooperative: bool,
    cluster: Option<[u32; 3]>,
) -> CUresult {
    done(need_context().and_then(|()| {
        with_state(|s| enqueue_launch(s, f, config, stream, params, extra, cooperative, cluster))
    }))
}

/// [`launch_kernel`] under the state lock: the launch enqueued on `stream`
/// (or recorded, when `stream` captures: graph kernel nodes are made so).
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn enqueue_launch(
    s: &mut State,
    f: Handle,
    config: LaunchConfig,
    stream: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    cooperative: bool,
    cluster: Option<[u32; 3]>,
) -> Result<(), CUresult> {
    let i = (f as usize).wrapping_sub(1);
    let &(m, k) = s.functions.get(i).ok_or(INVALID_HANDLE)?;
    let buf = parameter_bytes(&s.dev(), m, k, params, extra)?;
    check_config(&s.dev(), m, k, &config)?;
    // Cluster shapes are checked at the call, as CUDA does
    // (CUDA_ERROR_INVALID_CLUSTER_SIZE, or NOT_SUPPORTED before
    // sm_90).
    let cluster = cluster.map(|dims| warpjit::runtime::ClusterLaunch {
        dims,
        non_portable: s
            .non_portable_cluster
            .contains(&((f as usize).wrapping_sub(1))),
    });
    let clustered = {
        let device = s.dev();
        let ir = device.ir(m);
        warpjit::runtime::cluster_shape(ir, &ir.functions[k], &config, cluster)
            .map_err(|e| crate::errors::code_of(&e))?
            .0
            != [1, 1, 1]
    };
    if clustered && s.arch.cc().is_ok_and(|(major, _)| major < 9) {
        let e = warpjit::Error::ClustersUnsupported(format!("the device is {}", s.arch.name));
        return Err(crate::errors::code_of(&e));
    }
    let cooperative = match cooperative {
        true => {
            let threads = config.block.iter().product();
            let per_sm = blocks_per_sm(s, f, threads, config.shared_bytes)?;
            let resident = per_sm as u64 * s.arch.chip.sm_count as u64;
            let blocks: u64 = config.grid.iter().map(|&g| g as u64).product();
            if blocks > resident {
                let e = warpjit::Error::CooperativeTooLarge { blocks, resident };
                return Err(crate::errors::code_of(&e));
            }
            Some(resident)
        }
        false => None,
    };
    // WARPJIT_TIMING=sm_80: time every launch and report on stderr.
    let timing = std::env::var("WARPJIT_TIMING")
        .ok()
        .filter(|v| !v.is_empty());
    if let Some(name) = &timing {
        Arch::builtin(name).map_err(|e| {
            eprintln!("warpjit: WARPJIT_TIMING: {e}");
            INVALID_VALUE
        })?;
    }
    let launch = KernelLaunch {
        module: m,
        kernel: k,
        config,
        params: buf,
        timing,
        cooperative,
        cluster,
    };
    submit(s, stream, Op::Launch(Box::new(launch))).map(|_| ())
}

/// The parameter buffer from `kernelParams` (a pointer per parameter) or
/// `extra` (one packed buffer), copied.
unsafe fn parameter_bytes(
    device: &Device,
    m: ModuleId,
    k: FuncId,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> Result<Vec<u8>, CUresult> {
    let (slots, total) = device.kernel_params(m, k);
    let mut buf = vec![0u8; total as usize];
    if !params.is_null() {
        for (n, slot) in slots.iter().enumerate() {
            let p = *params.add(n) as *const u8;
            if p.is_null() {
                return Err(INVALID_VALUE);
            }
            let at = slot.offset as usize;
            let to = buf
                .get_mut(at..at + slot.size as usize)
                .ok_or(INVALID_VALUE)?;
            std::ptr::copy_nonoverlapping(p, to.as_mut_ptr(), to.len());
        }
    } else if !extra.is_null() {
        let (mut ptr, mut size) = (std::ptr::null::<u8>(), 0usize);
        let mut e = extra;
        loop {
            match *e as usize {
                LAUNCH_PARAM_END => break,
                LAUNCH_PARAM_BUFFER_POINTER => ptr = *e.add(1) as *const u8,
                LAUNCH_PARAM_BUFFER_SIZE => {
                    let p = *e.add(1) as *const usize;
                    if p.is_null() {
                        return Err(INVALID_VALUE);
                    }
                    size = *p;
                }
                _ => return Err(INVALID_VALUE),
            }
            e = e.add(2);
        }
        if ptr.is_null() || size < total as usize {
            return Err(INVALID_VALUE);
        }
        std::ptr::copy_nonoverlapping(ptr, buf.as_mut_ptr(), total as usize);
    } else if total > 0 {
        return Err(INVALID_VALUE);
    }
    Ok(buf)
}

/// The launch-configuration checks warpjit's `Device::launch` makes,
/// made at enqueue so that a bad configuration is the launch call's
/// error (CUDA_ERROR_INVALID_VALUE), as in CUDA, not a later one.
fn check_config(device: &Device, m: ModuleId, k: FuncId, c: &LaunchConfig) -> Result<(), CUresult> {
    use warpjit::runtime::{
        MAX_BLOCK_DIM, MAX_GRID_DIM, MAX_SHARED_PER_BLOCK, MAX_THREADS_PER_BLOCK,
    };
    if let Some(d) = device.unsupported(m, k) {
        let f = &device.ir(m).functions[k];
        let e = warpjit::Error::Unsupported {
            kernel: f.name.clone(),
            diagnostics: d,
        };
        return Err(crate::errors::code_of(&e));
    }
    let ir = device.ir(m);
    let f = &ir.functions[k];
    let refuse = |why: String| {
        eprintln!("warpjit: launch of `{}`: {why}", f.name);
        Err(INVALID_VALUE)
    };
    for d in 0..3 {
        if c.block[d] == 0 || c.grid[d] == 0 {
            return refuse(format!(
                "grid {:?} or block {:?} has a zero dimension",
                c.grid, c.block
            ));
        }
        if c.block[d] > MAX_BLOCK_DIM[d] || c.grid[d] > MAX_GRID_DIM[d] {
            return refuse(format!(
                "grid {:?} or block {:?} is above the limits {MAX_GRID_DIM:?}, {MAX_BLOCK_DIM:?}",
                c.grid, c.block
            ));
        }
    }
    let threads: u64 = c.block.iter().map(|&x| x as u64).product();
    if threads > MAX_THREADS_PER_BLOCK as u64 {
        return refuse(format!(
            "a block of {threads} threads exceeds {MAX_THREADS_PER_BLOCK}"
        ));
    }
    if let Some(r) = f.reqntid.filter(|&r| r != c.block) {
        return refuse(format!(
            ".reqntid {r:?} differs from the block {:?}",
            c.block
        ));
    }
    if let Some(m) = f.maxntid {
        if threads > m.iter().map(|&x| x as u64).product::<u64>() {
            return refuse(format!(".maxntid {m:?} is below the block {:?}", c.block));
        }
    }
    let stack = device.options().stack_bytes;
    if f.frame_size > stack {
        return refuse(format!(
            "{} bytes of local memory per thread exceed the stack limit {stack}",
            f.frame_size
        ));
    }
    let shared = ir.shared_dynamic_offset as u64 + c.shared_bytes as u64;
    if shared > MAX_SHARED_PER_BLOCK as u64 {
        return refuse(format!(
            "{shared} bytes of shared memory exceed {MAX_SHARED_PER_BLOCK}"
        ));
    }
    Ok(())
}

/// `CUlaunchConfig` (cuda.h 12.x).
#[repr(C)]
pub struct LaunchConfigC {
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    stream: Handle,
    attrs: *mut c_void,
    num_attrs: c_uint,
}

#[no_mangle]
pub unsafe extern "C" fn cuLaunchKernelEx(
    config: *const LaunchConfigC,
    f: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    let Some(c) = config.as_ref() else {
        return INVALID_VALUE;
    };
    // `CUlaunchAttribute` is the id, padded to 8 bytes, then a 64-byte
    // value union: CU_LAUNCH_ATTRIBUTE_COOPERATIVE (2) holds `int
    // cooperative`, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (4) `unsigned
    // x, y, z`.
    let mut cooperative = false;
    let mut cluster = None;
    if !c.attrs.is_null() {
        for n in 0..c.num_attrs as usize {
            let attr = (c.attrs as *const u8).add(n * 72);
            let value = attr.add(8);
            match *(attr as *const u32) {
                2 => cooperative |= *(value as *const c_int) != 0,
                4 => {
                    let d = value as *const c_uint;
                    cluster = Some([*d, *d.add(1), *d.add(2)]);
                }
                _ => {}
            }
        }
    }
    let config = launch_config(c.grid, c.block, c.shared);
    launch_kernel(f, config, c.stream, params, extra, cooperative, cluster)
}

/// Blocks of `block` threads of kernel `f` resident per SM, by NVIDIA's
/// occupancy rules on the preset (registers from warpjit's estimate).
fn blocks_per_sm(s: &State, f: Handle, block: u32, dynamic_shared: u32) -> Result<u32, CUresult> {
    let &(m, k) = s
        .functions
        .get((f as usize).wrapping_sub(1))
        .ok_or(INVALID_HANDLE)?;
    let device = s.dev();
    let ir = device.ir(m);
    let input = warpjit::timing::occupancy::OccupancyInput {
        block_threads: block,
        regs_per_thread: warpjit::timing::regs::estimate(ir, k),
        static_shared: ir.static_shared_of(k),
        dynamic_shared,
    };
    Ok(warpjit::timing::occupancy::occupancy(&s.arch.limits(), &input).active_blocks_per_sm)
}

#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
    blocks: *mut c_int,
    f: Handle,
    block: c_int,
    dynamic_shared: usize,
) -> CUresult {
    done(with_state(|s| {
        let n = blocks_per_sm(s, f, block.max(1) as u32, dynamic_shared as u32)?;
        out(blocks, n as c_int)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    blocks: *mut c_int,
    f: Handle,
    block: c_int,
    dynamic_shared: usize,
    _flags: c_uint,
) -> CUresult {
    cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, f, block, dynamic_shared)
}

/// As `cudaOccupancyMaxPotentialBlockSize`: the block size (a multiple of
/// the warp size, up to the limit) with the most resident warps, the
/// largest among equals, and the grid that fills the device with it.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSize(
    min_grid: *mut c_int,
    block_size: *mut c_int,
    f: Handle,
    dynamic_shared_of: Option<unsafe extern "C" fn(c_int) -> usize>,
    dynamic_shared: usize,
    limit: c_int,
) -> CUresult {
    done(with_state(|s| {
        let max = s.arch.occupancy.max_threads_per_block as i32;
        let limit = if limit <= 0 { max } else { limit.min(max) };
        let mut best = (0u32, 0i32, 0u32);
        let mut b = (limit / 32) * 32;
        while b >= 32 {
            let smem = match dynamic_shared_of {
                Some(cb) => cb(b),
                None => dynamic_shared,
            };
            let n = blocks_per_sm(s, f, b as u32, smem as u32)?;
            let warps = n * (b as u32 / 32);
            if warps > best.0 {
                best = (warps, b, n);
            }
            b -= 32;
        }
        if best.1 == 0 {
            return Err(701);
        }
        out(min_grid, (best.2 * s.arch.chip.sm_count) as c_int)?;
        out(block_size, best.1)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSizeWithFlags(
    min_grid: *mut c_int,
    block_size: *mut c_int,
    f: Handle,
    dynamic_shared_of: Option<unsafe extern "C" fn(c_int) -> usize>,
    dynamic_shared: usize,
    limit: c_int,
    _flags: c_uint,
) -> CUresult {
    cuOccupancyMaxPotentialBlockSize(
        min_grid,
        block_size,
        f,
        dynamic_shared_of,
        dynamic_shared,
        limit,
    )
}
