//! Initialization, the driver version and the one device: its name, memory and
//! attributes (from the timing preset).

use super::*;

// ---- Initialization, version, devices -------------------------------------

#[no_mangle]
pub unsafe extern "C" fn cuInit(_flags: c_uint) -> CUresult {
    if forked() {
        return NOT_INITIALIZED;
    }
    watch_forks();
    let mut guard = queue::lock();
    if guard.is_none() {
        let name = std::env::var("WARPJIT_ARCH").unwrap_or_else(|_| "sm_80".into());
        let arch = match Arch::builtin(&name) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("warpjit: WARPJIT_ARCH: {e}");
                return INVALID_VALUE;
            }
        };
        let mut options = Options {
            // Device pointers are host pointers too: managed and mapped
            // host memory (runtime/arena.rs).
            unified_addresses: true,
            // Allocations rounded up as a GPU's are (exact under memcheck).
            round_allocations: true,
            ..Options::default()
        };
        if let Ok(text) = std::env::var("WARPJIT_DEVICE_MEMORY") {
            match device_memory(&text) {
                Ok(bytes) => options.arena_bytes = bytes,
                Err((code, why)) => {
                    eprintln!("warpjit: WARPJIT_DEVICE_MEMORY={text:?}: {why}");
                    return code;
                }
            }
        }
        match warpjit::runtime::watchdog_time_from_env() {
            Ok(Some(t)) => options.watchdog_time = Some(t),
            Ok(None) => {}
            Err(why) => {
                eprintln!("warpjit: {why}");
                return INVALID_VALUE;
            }
        }
        match crate::sanitizer::checks_at_init() {
            Ok(checks) => options.checks = checks,
            Err(why) => {
                eprintln!("warpjit: {why}");
                return INVALID_VALUE;
            }
        }
        *guard = Some(State {
            device: std::sync::Arc::new(std::sync::RwLock::new(Device::new(options))),
            arch,
            modules: HashMap::new(),
            functions: Vec::new(),
            non_portable_cluster: Default::default(),
            allocations: BTreeMap::new(),
            module_globals: BTreeMap::new(),
            ipc_opened: BTreeMap::new(),
            arrays: BTreeMap::new(),
            pools: Default::default(),
            user_objects: Default::default(),
            sched: queue::Scheduler::default(),
            next_handle: FIRST_HANDLE,
            primary_retains: 0,
            contexts: vec![PRIMARY],
            context_flags: HashMap::new(),
            links: HashMap::new(),
            limits: [64 * 1024, 1 << 20, 8 << 20, 2, 2048, 32, 0],
            cache_config: 0,
            host_allocations: BTreeMap::new(),
            managed: Default::default(),
            host_registered: BTreeMap::new(),
        });
    }
    SUCCESS
}

/// `WARPJIT_DEVICE_MEMORY`: bytes, or kibibytes, mebibytes or gibibytes
/// with a K, M or G suffix (either case). Zero, anything else, and a size
/// the host cannot reserve are refused (the arena is reserved at once,
/// its pages mapped as they are first touched).
fn device_memory(text: &str) -> Result<u64, (CUresult, String)> {
    let t = text.trim();
    let (digits, shift) = match t.as_bytes().last() {
        Some(b'k' | b'K') => (&t[..t.len() - 1], 10),
        Some(b'm' | b'M') => (&t[..t.len() - 1], 20),
        Some(b'g' | b'G') => (&t[..t.len() - 1], 30),
        _ => (t, 0),
    };
    let bad = || {
        (
            INVALID_VALUE,
            "expected a positive size in bytes, optionally with a K, M or G suffix (e.g. 4G)"
                .into(),
        )
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let bytes = n
        .checked_mul(1 << shift)
        .filter(|&b| b > 0 && b <= isize::MAX as u64 / 2)
        .ok_or_else(bad)?;
    // Reserve it once here: a size the host refuses is an error code, not
    // an abort when the device reserves its arena.
    let layout = std::alloc::Layout::from_size_align(bytes.next_multiple_of(8) as usize, 8)
        .map_err(|_| bad())?;
    // SAFETY: a non-zero layout, freed at once.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout);
        if p.is_null() {
            return Err((
                OUT_OF_MEMORY,
                "the host cannot reserve that much memory".into(),
            ));
        }
        std::alloc::dealloc(p, layout);
    }
    Ok(bytes)
}

#[no_mangle]
pub unsafe extern "C" fn cuDriverGetVersion(version: *mut c_int) -> CUresult {
    done(out(version, 12090))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetCount(count: *mut c_int) -> CUresult {
    done(with_state(|_| Ok(())).and_then(|()| out(count, 1)))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGet(device: *mut c_int, ordinal: c_int) -> CUresult {
    done(with_state(|_| {
        if ordinal != 0 {
            return Err(INVALID_DEVICE);
        }
        out(device, 0)
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, device: c_int) -> CUresult {
    done(with_state(|s| {
        if device != 0 {
            return Err(INVALID_DEVICE);
        }
        if name.is_null() || len <= 0 {
            return Err(INVALID_VALUE);
        }
        let text = format!("warpjit ({} model)", s.arch.name);
        let n = text.len().min(len as usize - 1);
        std::ptr::copy_nonoverlapping(text.as_ptr(), name as *mut u8, n);
        *name.add(n) = 0;
        Ok(())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, device: c_int) -> CUresult {
    done(with_state(|s| {
        if device != 0 {
            return Err(INVALID_DEVICE);
        }
        out(bytes, s.dev().options().arena_bytes as usize)
    }))
}

/// `CUdevice_attribute` values, consistent with the preset.
/// `unified`: whether device pointers are host pointers (the arena at its
/// device addresses), which managed and mapped host memory need.
fn attribute(arch: &Arch, unified: bool, attr: c_int) -> Option<c_int> {
    let unified = unified as c_int;
    let (major, minor) = arch.cc().unwrap_or((8, 0));
    let o = &arch.occupancy;
    Some(match attr {
        1 => o.max_threads_per_block as c_int, // MAX_THREADS_PER_BLOCK
        2 | 3 => 1024,                         // MAX_BLOCK_DIM_X/Y
        4 => 64,                               // MAX_BLOCK_DIM_Z
        5 => i32::MAX,                         // MAX_GRID_DIM_X
        6 | 7 => 65535,                        // MAX_GRID_DIM_Y/Z
        8 => 48 * 1024,                        // MAX_SHARED_MEMORY_PER_BLOCK
        9 => 64 * 1024,                        // TOTAL_CONSTANT_MEMORY
        10 => 32,                              // WARP_SIZE
        11 => i32::MAX,                        // MAX_PITCH
        12 => 65536,                           // MAX_REGISTERS_PER_BLOCK
        13 => (arch.chip.clock_mhz * 1000.0) as c_int, // CLOCK_RATE (kHz)
        14 => 512,                             // TEXTURE_ALIGNMENT
        15 => 1,                               // GPU_OVERLAP
        16 => arch.chip.sm_count as c_int,     // MULTIPROCESSOR_COUNT
        17 => 0,                               // KERNEL_EXEC_TIMEOUT
        18 => 0,                               // INTEGRATED
        19 => unified,     // CAN_MAP_HOST_MEMORY (see cuMemHostGetDevicePointer_v2)
        20 => 0,           // COMPUTE_MODE (default)
        31 => 1,           // CONCURRENT_KERNELS
        33 | 34 | 50 => 0, // PCI bus / device / domain
        51 => 32,          // TEXTURE_PITCH_ALIGNMENT (bytes; any pitch works here)
        36 => 1000,        // MEMORY_CLOCK_RATE (kHz, nominal)
        37 => 4096,        // GLOBAL_MEMORY_BUS_WIDTH
        38 => (arch.memory.l2_kib * 1024) as c_int, // L2_CACHE_SIZE
        39 => (o.max_warps_per_sm * 32) as c_int, // MAX_THREADS_PER_MULTIPROCESSOR
        41 => 1,           // UNIFIED_ADDRESSING
        75 => major as c_int, // COMPUTE_CAPABILITY_MAJOR
        76 => minor as c_int, // COMPUTE_CAPABILITY_MINOR
        81 => o.shared_per_sm as c_int, // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
        82 => o.regs_per_sm as c_int, // MAX_REGISTERS_PER_MULTIPROCESSOR
        83 => unified,     // MANAGED_MEMORY (see cuMemAllocManaged)
        89 => unified,     // CONCURRENT_MANAGED_ACCESS: host and kernels share one coherent memory
        95 => 1,           // COOPERATIVE_LAUNCH (cuLaunchCooperativeKernel)
        120 => arch.cc().is_ok_and(|(major, _)| major >= 9) as c_int, // CLUSTER_LAUNCH
        99 => 0,           // PAGEABLE_MEMORY_ACCESS
        97 => o.shared_per_block as c_int, // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
        106 => o.max_blocks_per_sm as c_int, // MAX_BLOCKS_PER_MULTIPROCESSOR
        111 => o.reserved_shared_per_block as c_int, // RESERVED_SHARED_MEMORY_PER_BLOCK
        115 => 1,          // MEMORY_POOLS_SUPPORTED
        _ => return None,
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetAttribute(
    value: *mut c_int,
    attr: c_int,
    device: c_int,
) -> CUresult {
    done(with_state(|s| {
        if device != 0 {
            return Err(INVALID_DEVICE);
        }
        // Unknown attributes read as 0 (features warpjit does not offer).
        out(
            value,
            attribute(&s.arch, s.dev().unified_addresses(), attr).unwrap_or(0),
        )
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid_v2(uuid: *mut u8, device: c_int) -> CUresult {
    done(with_state(|_| {
        if device != 0 {
            return Err(INVALID_DEVICE);
        }
        if uuid.is_null() {
            return Err(INVALID_VALUE);
        }
        let bytes = *b"warpjit-device-0";
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), uuid, 16);
        Ok(())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid(uuid: *mut u8, device: c_int) -> CUresult {
    cuDeviceGetUuid_v2(uuid, device)
}

/// PyCUDA's `Device.compute_capability` (deprecated in CUDA, still called
/// at init): the preset's compute capability, as attributes 75 and 76.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceComputeCapability(
    major: *mut c_int,
    minor: *mut c_int,
    device: c_int,
) -> CUresult {
    done(with_state(|s| {
        if device != 0 {
            return Err(INVALID_DEVICE);
        }
        if major.is_null() || minor.is_null() {
            return Err(INVALID_VALUE);
        }
        *major = attribute(&s.arch, false, 75).unwrap_or(0);
        *minor = attribute(&s.arch, false, 76).unwrap_or(0);
        Ok(())
    }))
}

/// A fixed bus id (domain, bus and device 0, as attributes 33, 34 and 50
/// report), truncated to `len` bytes with its NUL.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetPCIBusId(
    id: *mut c_char,
    len: c_int,
    device: c_int,
) -> CUresult {
    done(with_state(|_| {
        if device != 0 {
            return Err(INVALID_DEVICE);
        }
        if id.is_null() || len <= 0 {
            return Err(INVALID_VALUE);
        }
        let text = b"0000:00:00.0";
        let n = text.len().min(len as usize - 1);
        std::ptr::copy_nonoverlapping(text.as_ptr(), id as *mut u8, n);
        *id.add(n) = 0;
        Ok(())
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_memory_sizes() {
        assert_eq!(device_memory("4096"), Ok(4096));
        assert_eq!(device_memory("64k"), Ok(64 << 10));
        assert_eq!(device_memory(" 256M "), Ok(256 << 20));
        assert_eq!(device_memory("2G"), Ok(2 << 30));
        for bad in [
            "",
            "0",
            "G",
            "-1",
            "1.5G",
            "12Q",
            "4GB",
            "99999999999999999999",
            "9999999999G",
        ] {
            assert_eq!(
                device_memory(bad).map_err(|e| e.0),
                Err(INVALID_VALUE),
                "{bad:?}"
            );
        }
    }
}
