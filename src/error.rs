//! The library's typed errors. (Only the `warpjit` binary uses `anyhow`.)

use std::fmt;

use crate::front::link::LinkError;
use crate::front::Diagnostics;
use crate::interp::FaultKind;

/// Everything the library API can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The PTX did not parse, lower or verify; every error of the file.
    #[error("{0}")]
    Module(Diagnostics),
    /// A launch of a kernel that uses (or may call a function that uses)
    /// a construct warpjit does not execute; its module loaded, and its
    /// other kernels run.
    #[error("kernel `{kernel}` cannot run on warpjit:\n{diagnostics}")]
    Unsupported {
        kernel: String,
        diagnostics: Diagnostics,
    },
    /// PTX inputs did not link (see [`crate::front::link`]): an input did
    /// not parse, or its symbols do not resolve.
    #[error("{0}")]
    Link(LinkError),
    /// A kernel faulted during a launch.
    #[error("{0}")]
    Launch(Box<LaunchError>),
    /// An argument to the API was wrong (launch configuration, sizes, names).
    #[error("{0}")]
    InvalidArgument(String),
    /// A cooperative launch of more CTAs than can be resident at once.
    #[error("cooperative launch of {blocks} blocks: only {resident} can be resident at once")]
    CooperativeTooLarge { blocks: u64, resident: u64 },
    /// A cluster launch whose shape the device refuses: a cluster of more
    /// than 8 CTAs (16 where allowed), a grid that is not a whole number
    /// of clusters, a shape other than the kernel's `.reqnctapercluster`.
    #[error("{0}")]
    InvalidCluster(String),
    /// Thread-block clusters before sm_90.
    #[error("thread-block clusters need sm_90 or later: {0}")]
    ClustersUnsupported(String),
    /// The device arena is full.
    #[error("out of device memory: cannot allocate {requested} bytes (arena of {capacity} bytes)")]
    OutOfMemory { requested: u64, capacity: u64 },
    /// A host copy touched device memory outside a live allocation.
    #[error("invalid device address {addr:#x} for a {len}-byte copy")]
    InvalidAddress { addr: u64, len: u64 },
    /// The JIT could not compile a module (a bug: please report it; the
    /// interpreter, `Engine::Interp`, still runs the module).
    #[error("{0}")]
    Jit(String),
}

/// A fault in a running kernel, located in the grid and in the PTX.
#[derive(Debug, Clone)]
pub struct LaunchError {
    pub kind: FaultKind,
    pub message: String,
    pub kernel: String,
    /// `%ctaid` of the faulting block and `%tid` of the faulting thread.
    pub block: [u32; 3],
    pub thread: [u32; 3],
    /// `file:line:col` of the PTX instruction, and the instruction's text.
    pub location: String,
    pub source_line: String,
    /// The high-level source line (from `.loc`), e.g. `kernel.cu:37`.
    pub source_location: Option<String>,
}

impl FaultKind {
    /// A short name for the fault class (used in reports and by tools).
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::IllegalAddress => "illegal_address",
            FaultKind::MisalignedAddress => "misaligned",
            FaultKind::Trap => "trap",
            FaultKind::Breakpoint => "breakpoint",
            FaultKind::Assert => "assert",
            FaultKind::BarrierDeadlock => "barrier_deadlock",
            FaultKind::DivergentBarrier => "barrier_deadlock",
            FaultKind::Watchdog => "watchdog",
            FaultKind::StackOverflow => "stack_overflow",
            FaultKind::BadPrintf => "printf",
            FaultKind::Mbarrier => "mbarrier",
            FaultKind::BadHandle => "bad_handle",
            FaultKind::BadTensorMap => "bad_tensor_map",
            FaultKind::Cancelled => "cancelled",
        }
    }
}

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [bx, by, bz] = self.block;
        let [tx, ty, tz] = self.thread;
        write!(
            f,
            "{}: {}\n  kernel `{}`, block ({bx}, {by}, {bz}), thread ({tx}, {ty}, {tz})\n  at {}",
            self.kind.name(),
            self.message,
            self.kernel,
            self.location
        )?;
        if !self.source_line.is_empty() {
            write!(f, ": {}", self.source_line.trim())?;
        }
        if let Some(src) = &self.source_location {
            write!(f, "\n  source {src}")?;
        }
        Ok(())
    }
}

impl std::error::Error for LaunchError {}
