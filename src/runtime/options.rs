//! A device's options ([`Options`]: limits, sizes, the engine, the
//! sanitizer's checks) and the environment variables that set some of them
//! for the CLI and the driver library alike.

use std::time::Duration;

use super::heap;

/// Limits and sizes of a device.
#[derive(Clone, Debug)]
pub struct Options {
    /// Bytes reserved for global memory (allocations and module globals).
    pub arena_bytes: u64,
    /// A launch may execute at most this many warp-instructions (the watchdog).
    pub watchdog_instructions: u64,
    /// A launch may run at most this long (60 s by default).
    pub watchdog_time: Option<Duration>,
    /// Local memory (stack) per thread in bytes.
    pub stack_bytes: u32,
    /// How kernels execute.
    pub engine: Engine,
    /// Run the CTAs of a launch one after another in grid order on the
    /// calling thread, instead of in parallel: results that depend on the
    /// order of atomics across CTAs (float sums) become reproducible.
    pub sequential: bool,
    /// Registers that are never live together share a register-file row
    /// (`ir::slots`); false gives every register a row of its own, the
    /// layout to compare against when testing the sharing.
    pub share_register_slots: bool,
    /// Bytes of printf output a launch may produce (CUDA's printf FIFO,
    /// 1 MiB by default); what overflows is dropped and counted in
    /// [`LaunchReport::printf_dropped`].
    pub printf_buffer_bytes: u64,
    /// Bytes of the device heap that device-side `malloc` allocates from
    /// (CUDA's `cudaLimitMallocHeapSize`, 8 MiB by default), reserved when
    /// the first module that calls `malloc` or `free` is loaded.
    pub malloc_heap_bytes: u64,
    /// Place global memory at the host addresses equal to its device
    /// addresses, so that a device pointer is a host pointer too (CUDA's
    /// unified addressing, which managed and mapped host memory need;
    /// `runtime::arena`). One device of a process can have it; where the
    /// range is taken, the arena is placed anywhere
    /// ([`Device::unified_addresses`] says which).
    pub unified_addresses: bool,
    /// Round allocations up to 256 bytes for accesses, as a GPU's are
    /// (a small overrun of an allocation then reads or writes padding
    /// instead of faulting), except while memcheck is on
    /// (`GlobalMemory::set_rounded`). The driver library turns it on, for
    /// programs that run on GPUs; the CLI and the library default to exact
    /// bounds, which report every overrun.
    pub round_allocations: bool,
    /// The sanitizer's checks (none by default). A checked launch runs on
    /// the interpreter and leaves its reports for [`Device::take_reports`].
    pub checks: crate::sanitizer::Checks,
}

/// The environment variable that sets a launch's time limit in seconds
/// (the CLI's `--watchdog-seconds` default, and the driver library's).
pub const WATCHDOG_SECONDS_ENV: &str = "WARPJIT_WATCHDOG_SECONDS";

/// A time limit in seconds: a finite, non-negative number that a
/// `Duration` holds.
pub fn parse_seconds(s: &str) -> Result<Duration, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if !v.is_finite() || v < 0.0 {
        return Err(format!(
            "`{s}` is not a finite, non-negative number of seconds"
        ));
    }
    Duration::try_from_secs_f64(v).map_err(|_| format!("`{s}` seconds is too large a time limit"))
}

/// The time limit [`WATCHDOG_SECONDS_ENV`] sets, if it is set; an error
/// names the variable.
pub fn watchdog_time_from_env() -> Result<Option<Duration>, String> {
    match std::env::var(WATCHDOG_SECONDS_ENV) {
        Ok(s) => parse_seconds(&s)
            .map(Some)
            .map_err(|e| format!("{WATCHDOG_SECONDS_ENV}: {e}")),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(e) => Err(format!("{WATCHDOG_SECONDS_ENV}: {e}")),
    }
}

/// The execution engine of launches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Engine {
    /// The reference interpreter (the semantic oracle).
    Interp,
    /// Compiled code (Cranelift), with the interpreter for what it does not compile.
    #[default]
    Jit,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            arena_bytes: 1 << 30,
            watchdog_instructions: 1 << 36,
            watchdog_time: Some(Duration::from_secs(60)),
            stack_bytes: 64 * 1024,
            engine: Engine::default(),
            sequential: false,
            share_register_slots: true,
            printf_buffer_bytes: 1 << 20,
            malloc_heap_bytes: heap::DEFAULT_HEAP_BYTES,
            unified_addresses: false,
            round_allocations: false,
            checks: crate::sanitizer::Checks::default(),
        }
    }
}
