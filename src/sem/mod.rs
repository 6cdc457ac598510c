//! Semantics of the micro-ops: pure scalar functions over lane bit patterns.
//!
//! One file per family: [`int`] (integer arithmetic, bit manipulation,
//! comparisons, atomic value updates), [`float`] (floating-point arithmetic
//! with PTX rounding, ftz, saturation and NaN rules; comparisons; `testp`),
//! [`cvt`] (every `cvt` type pair and modifier), [`mbarrier`] (the
//! `mbarrier` object's state and operations), [`video`] (the video
//! instructions `vadd`...`vset4`), [`tensor_map`] (the TMA descriptor and
//! its box arithmetic). The interpreter calls them
//! per lane; the JIT calls them for operations it does not inline. They are
//! the executable definition of PTX semantics in warpjit, tested against the
//! PTX ISA's rules.

pub mod cvt;
pub mod cvt_extra;
pub mod float;
pub mod fp8;
pub mod int;
pub mod mbarrier;
pub mod mma_forms;
pub mod mma_volta;
pub mod tensor;
pub mod tensor_map;
pub mod texture;
pub mod texture_cube;
#[cfg(test)]
mod texture_tests;
pub mod video;
pub mod wgmma;
pub mod wmma;
