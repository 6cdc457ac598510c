//! Stream-ordered allocation and memory pools (`cuMemAllocAsync`,
//! `cuMemFreeAsync`, `cuMemPool*`, `cuDeviceGetDefaultMemPool`).
//!
//! An asynchronous allocation is made at the call (memory that exists
//! before the stream reaches the allocation is what CUDA's stream order
//! allows: the work enqueued after the call may use it); an asynchronous
//! free is enqueued on the stream and frees when the stream reaches it,
//! after the work before it. Pools are accounting: every pool takes its
//! memory from the one device arena, and `cuMemPoolTrimTo` has nothing to
//! give back. In a stream capture an allocation is made at the call and
//! keeps its address for every launch of the graph (as a graph's memory
//! node does), and a free becomes an empty node: the memory stays until
//! freed outside a capture.

use super::*;
use crate::capture::capture_of;
use crate::context::need_context;
use crate::ops::Op;
use crate::queue::{resolve, submit_to};

/// The device's default pool's handle; created pools count up from it.
const DEFAULT_POOL: usize = 1;

/// A pool's attributes and the bytes of its live allocations.
#[derive(Default)]
pub(crate) struct Pool {
    reuse: [c_int; 3],
    release_threshold: u64,
    used: u64,
    used_high: u64,
}

/// The device's pools (`State::pools`): handle → pool.
pub(crate) struct Pools {
    pools: BTreeMap<usize, Pool>,
    /// Which pool each asynchronous allocation came from.
    owner: BTreeMap<u64, usize>,
    next: usize,
    current: usize,
}

impl Default for Pools {
    fn default() -> Pools {
        let mut pools = BTreeMap::new();
        pools.insert(
            DEFAULT_POOL,
            Pool {
                reuse: [1; 3],
                ..Pool::default()
            },
        );
        Pools {
            pools,
            owner: BTreeMap::new(),
            next: DEFAULT_POOL + 1,
            current: DEFAULT_POOL,
        }
    }
}

impl Pools {
    fn get(&mut self, pool: Handle) -> Result<&mut Pool, CUresult> {
        self.pools.get_mut(&(pool as usize)).ok_or(INVALID_VALUE)
    }

    /// An allocation of `pool` was freed.
    pub(crate) fn freed(&mut self, dptr: u64, bytes: u64) {
        if let Some(p) = self.owner.remove(&dptr) {
            if let Some(pool) = self.pools.get_mut(&p) {
                pool.used -= bytes.min(pool.used);
            }
        }
    }
}

/// Allocates `bytes` from `pool` for work on `stream`.
unsafe fn alloc_async(dptr: *mut u64, bytes: usize, pool: usize, stream: Handle) -> CUresult {
    done(need_context().and_then(|()| {
        with_state(|s| {
            if dptr.is_null() || bytes == 0 {
                return Err(INVALID_VALUE);
            }
            resolve(s, stream)?;
            if !s.pools.pools.contains_key(&pool) {
                return Err(INVALID_VALUE);
            }
            let a = s
                .dev_mut()
                .alloc(bytes as u64)
                .map_err(|e| errors::code_of(&e))?;
            s.allocations.insert(a, bytes as u64);
            s.pools.owner.insert(a, pool);
            let p = s.pools.pools.get_mut(&pool).expect("checked above");
            p.used += bytes as u64;
            p.used_high = p.used_high.max(p.used);
            out(dptr, a)
        })
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAllocAsync(dptr: *mut u64, bytes: usize, stream: Handle) -> CUresult {
    let pool = match with_state(|s| Ok(s.pools.current)) {
        Ok(p) => p,
        Err(e) => return e,
    };
    alloc_async(dptr, bytes, pool, stream)
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAllocFromPoolAsync(
    dptr: *mut u64,
    bytes: usize,
    pool: Handle,
    stream: Handle,
) -> CUresult {
    alloc_async(dptr, bytes, pool as usize, stream)
}

/// Frees `dptr` when `stream` reaches the free (after the work before it).
#[no_mangle]
pub unsafe extern "C" fn cuMemFreeAsync(dptr: u64, stream: Handle) -> CUresult {
    done(with_state(|s| {
        // A null pointer frees nothing, as with `cuMemFree` (cuda.core
        // frees its zero-byte buffers, which have no allocation, so).
        if dptr == 0 {
            return Ok(());
        }
        if !s.allocations.contains_key(&dptr) {
            return Err(INVALID_VALUE);
        }
        let id = resolve(s, stream)?;
        let op = if capture_of(&mut s.sched, id).is_some() {
            Op::Wait
        } else {
            Op::Free { dptr }
        };
        submit_to(s, id, op).map(|_| ())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetDefaultMemPool(pool: *mut Handle, dev: c_int) -> CUresult {
    if dev != 0 {
        return INVALID_DEVICE;
    }
    done(with_state(|_| out(pool, DEFAULT_POOL as Handle)))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetMemPool(pool: *mut Handle, dev: c_int) -> CUresult {
    if dev != 0 {
        return INVALID_DEVICE;
    }
    done(with_state(|s| out(pool, s.pools.current as Handle)))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceSetMemPool(dev: c_int, pool: Handle) -> CUresult {
    if dev != 0 {
        return INVALID_DEVICE;
    }
    done(with_state(|s| {
        s.pools.get(pool)?;
        s.pools.current = pool as usize;
        Ok(())
    }))
}

/// `CUmemPoolProps` is not read beyond its pointer: every pool is device
/// memory of device 0.
#[no_mangle]
pub unsafe extern "C" fn cuMemPoolCreate(pool: *mut Handle, props: *const c_void) -> CUresult {
    if props.is_null() {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        let p = s.pools.next;
        s.pools.next += 1;
        s.pools.pools.insert(
            p,
            Pool {
                reuse: [1; 3],
                ..Pool::default()
            },
        );
        out(pool, p as Handle)
    }))
}

/// Destroys a pool; its live allocations stay valid until freed, as CUDA
/// defers the pool's release until then.
#[no_mangle]
pub unsafe extern "C" fn cuMemPoolDestroy(pool: Handle) -> CUresult {
    done(with_state(|s| {
        if pool as usize == DEFAULT_POOL {
            return Err(INVALID_VALUE);
        }
        s.pools.get(pool)?;
        s.pools.pools.remove(&(pool as usize));
        if s.pools.current == pool as usize {
            s.pools.current = DEFAULT_POOL;
        }
        Ok(())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemPoolTrimTo(pool: Handle, _keep: usize) -> CUresult {
    done(with_state(|s| s.pools.get(pool).map(|_| ())))
}

/// `CUmemPool_attribute`: 1-3 reuse flags (int), 4 the release threshold,
/// 5-8 reserved and used memory, current and high-water (u64; the high
/// waters may be reset to 0).
#[no_mangle]
pub unsafe extern "C" fn cuMemPoolSetAttribute(
    pool: Handle,
    attr: c_int,
    value: *mut c_void,
) -> CUresult {
    if value.is_null() {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        let p = s.pools.get(pool)?;
        match attr {
            1..=3 => p.reuse[attr as usize - 1] = *(value as *const c_int),
            4 => p.release_threshold = *(value as *const u64),
            6 | 8 if *(value as *const u64) == 0 => p.used_high = p.used,
            _ => return Err(INVALID_VALUE),
        }
        Ok(())
    }))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemPoolGetAttribute(
    pool: Handle,
    attr: c_int,
    value: *mut c_void,
) -> CUresult {
    if value.is_null() {
        return INVALID_VALUE;
    }
    done(with_state(|s| {
        let p = s.pools.get(pool)?;
        match attr {
            1..=3 => *(value as *mut c_int) = p.reuse[attr as usize - 1],
            4 => *(value as *mut u64) = p.release_threshold,
            5 | 7 => *(value as *mut u64) = p.used,
            6 | 8 => *(value as *mut u64) = p.used_high,
            _ => return Err(INVALID_VALUE),
        }
        Ok(())
    }))
}
