//! The timing model: cycle estimates for a launch on a GPU described by an
//! architecture preset ([`arch`]), from what execution observed.
//!
//! - [`occupancy`]: NVIDIA's occupancy rules (`cuda_occupancy.h`, checked).
//! - [`program`]: static per-instruction facts (unit, registers, line);
//!   [`costs`]: the same facts from ptxas's SASS per PTX line, where given.
//! - [`sim`]: the cycle model (block scheduler, warp schedulers, dispatch,
//!   scoreboard), driving execution through the traits of [`exec`];
//!   `sched`: one warp scheduler's ready sets, unit booking and policies;
//!   `solo`: a lone warp's instructions issued in one visit; `folded`:
//!   ops with no SASS instruction of their own (SASS costs).
//! - [`memory`]: the memory hierarchy (L1, L2 slices, DRAM, shared
//!   memory), over `coalesce`, `cache`, `banks`, `server` and `dram`.
//! - [`report`], [`diagram`]: what users read.
//!
//! Depends on the IR only: it knows neither the interpreter nor the JIT
//! (the runtime implements [`exec`]'s traits over them). See
//! `docs/timing-model.md`.

pub mod arch;
mod banks;
mod cache;
mod coalesce;
pub mod costs;
pub mod diagram;
mod dram;
pub mod exec;
mod folded;
mod issue;
pub mod memory;
pub mod occupancy;
pub mod program;
pub mod regs;
pub mod report;
mod sched;
mod server;
pub mod sim;
mod solo;

pub use arch::Arch;
pub use cache::Cache;
pub use report::TimingReport;
