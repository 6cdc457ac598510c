//! What both engines share below them: the contract between the warp
//! driver and compiled code ([`abi`]: the `#[repr(C)]` environment
//! generated code reads, compiled pieces and regions) and the value
//! semantics of the pure micro-ops ([`pure`]), which the interpreter
//! evaluates per lane and the JIT calls for the pure ops it does not
//! generate inline. The interpreter (`interp`, which also holds the warp
//! driver today) and the JIT (`jit`) both build on this module and neither
//! imports the other.

pub mod abi;
pub mod pure;

/// Shared memory a CTA reserves for the system on sm_80 and later (CUDA's
/// `cudaDevAttrReservedSharedMemoryPerBlock`, 1 KiB), which cooperative
/// groups use as scratch through `%reserved_smem_offset_*`. Allocated only
/// for kernels of modules that read those registers, at the end of the
/// CTA's window and zeroed like the rest; `_0` is its first half, `_1` its
/// second.
pub const RESERVED_SHARED: usize = 1024;
