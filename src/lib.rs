//! warpjit: a PTX-to-micro-op translating JIT emulator.
//!
//! warpjit runs real NVIDIA PTX on a CPU. The pipeline, each stage depending
//! only on the ones before it (see `docs/architecture.md`):
//!
//! 1. [`front`]: PTX text to a spanned AST (nom), with errors rendered
//!    against the source, and a printer back to PTX.
//! 2. IR, interpreter, JIT, runtime and timing model: later stages.

pub mod engine;
pub mod error;
pub mod front;
pub mod interp;
pub mod ir;
pub mod jit;
pub mod runtime;
pub mod sanitizer;
pub mod sass;
pub mod sem;
pub mod timing;

pub use error::{Error, LaunchError};

/// Helpers shared by the unit tests of several modules.
#[cfg(test)]
pub(crate) mod testing {
    /// A deterministic pseudo-random sequence for the randomized tests.
    pub fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }
}
