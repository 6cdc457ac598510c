//! The reference interpreter: executes the IR one warp at a time over 32
//! lanes with an active mask and a SIMT reconvergence stack at immediate
//! post-dominators. It is the semantic oracle for the JIT and a debugging
//! engine: simple and evidently correct before fast.
//!
//! [`run_cta`] runs one CTA: its warps take turns, each running until it
//! reaches a barrier or finishes; a barrier releases its warps when enough
//! threads have arrived (exited threads count as arrived), and a CTA whose
//! live warps all wait on barriers that cannot complete is a deadlock error.

mod access;
mod barrier;
mod bulk;
mod bulk_tensor;
mod check;
mod cluster;
mod drive;
mod exec;
pub(crate) mod lanes;
mod matrix;
mod mbarrier;
mod schedule;
mod stack;
mod texture;
mod warp;
mod wmma;

use crate::engine::abi;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::front::Span;
use crate::ir::{self, FuncId};
use crate::runtime::memory::GlobalMemory;
pub use access::{Access, AccessKind};
pub use cluster::{run_cluster, CLUSTER_BARRIER, MAX_RANKS};
pub use drive::{Position, Stepped};
pub use schedule::{run_cta, CtaRun};
pub use warp::Warp;

/// What went wrong in a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    IllegalAddress,
    MisalignedAddress,
    Trap,
    /// `brkpt` with no debugger attached.
    Breakpoint,
    Assert,
    BarrierDeadlock,
    DivergentBarrier,
    Watchdog,
    StackOverflow,
    BadPrintf,
    /// Misuse of an `mbarrier` object that the ISA leaves undefined.
    Mbarrier,
    /// A texture or surface instruction through a handle that is no live
    /// object of its kind.
    BadHandle,
    /// A tensor-memory-accelerator copy through bytes that are no valid
    /// tensor map (`sem::tensor_map`).
    BadTensorMap,
    Cancelled,
}

/// A fault in one thread of a CTA.
#[derive(Clone, Debug)]
pub struct Fault {
    pub kind: FaultKind,
    pub message: String,
    /// `%tid` of the faulting thread (of the first lane, for warp-wide faults).
    pub thread: [u32; 3],
    /// The function and PTX span of the faulting instruction.
    pub func: Option<FuncId>,
    pub span: Span,
    /// The high-level source line (`.loc`) of the instruction: (file index, line).
    pub loc: Option<(u32, u32)>,
    /// The refused access of an address fault (what memcheck reports).
    pub access: Option<FaultAccess>,
}

/// An access refused by device memory: the faulting lane's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultAccess {
    pub rw: crate::sanitizer::Rw,
    /// Atomics are reported as writes, with this set.
    pub atomic: bool,
    /// The space after decoding a generic address.
    pub space: crate::ir::Space,
    pub addr: u64,
    pub size: u64,
    /// A device-side `free` of what is no live heap block (the address
    /// freed; `size` is 0).
    pub free: Option<crate::sanitizer::FreeError>,
}

impl Fault {
    /// The result of a CTA stopped because an earlier one faulted.
    pub fn cancelled() -> Fault {
        Fault {
            kind: FaultKind::Cancelled,
            message: "cancelled".into(),
            thread: [0; 3],
            func: None,
            span: Span::DUMMY,
            loc: None,
            access: None,
        }
    }
}

/// Everything a CTA needs from its launch.
pub struct LaunchCtx<'a> {
    pub module: &'a ir::Module,
    pub kernel: FuncId,
    pub memory: &'a GlobalMemory,
    pub params: &'a [u8],
    /// Device address of each global (by `GlobalId` index).
    pub global_addrs: &'a [u64],
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u32,
    /// Round the CTA's shared-memory window up to [`SHARED_GRANULE`] bytes,
    /// as a GPU allocates it (`Options::round_allocations` without
    /// memcheck): an access just past the kernel's shared memory, such as
    /// NVVM's vector load of a dynamic array's last elements, reads the
    /// padding instead of faulting.
    pub round_shared: bool,
    /// The module reads `%reserved_smem_offset_*`: each CTA also gets
    /// [`RESERVED_SHARED`] bytes of reserved shared memory.
    pub reserved_shared: bool,
    /// A cooperative launch's grid workspace (device address of the words
    /// cooperative groups' grid-wide sync counts arrivals in; `%envreg1`/
    /// `%envreg2`), 0 for other launches.
    pub grid_workspace: u64,
    /// CTAs per cluster in each dimension (`[1, 1, 1]` without clusters).
    pub cluster: [u32; 3],
    /// The launch asked for clusters (`%is_explicit_cluster`).
    pub explicit_cluster: bool,
    /// Warp-instructions the whole launch may still execute.
    pub budget: &'a AtomicU64,
    pub deadline: Option<Instant>,
    /// The lowest linear index of a CTA that faulted (`u64::MAX`: none
    /// yet): CTAs after it in grid order stop early, those before it run
    /// on, so that the fault reported is always that of the first
    /// faulting CTA in grid order.
    pub cancel: &'a AtomicU64,
    /// Per-lane local memory limit in bytes (the stack size).
    pub stack_limit: u32,
    pub start: Instant,
    /// Compiled pieces to run instead of interpreting (the JIT engine).
    pub code: Option<&'a dyn abi::CompiledCode>,
    /// The kernel's registers that must start at zero ([`registers_to_zero`]).
    pub zeroed_regs: &'a [ir::Reg],
    /// The launch's printf buffer.
    pub printf: &'a PrintfBuffer,
    /// The device heap (device-side `malloc`/`free`), where the device has
    /// one.
    pub heap: Option<&'a crate::runtime::heap::DeviceHeap>,
    /// The sanitizer's checks and findings of a checked launch (`None`:
    /// no check, no hook does anything).
    pub sanitizer: Option<&'a crate::sanitizer::Launch>,
    /// The device's texture and surface objects.
    pub textures: &'a crate::runtime::texture::Textures,
}

/// The room a launch has for printf output: like CUDA's fixed printf FIFO
/// (`cudaLimitPrintfFifoSize`, 1 MiB by default), output past it is
/// dropped, and counted.
#[derive(Debug)]
pub struct PrintfBuffer {
    limit: u64,
    used: AtomicU64,
    dropped: AtomicU64,
}

impl PrintfBuffer {
    pub fn new(limit: u64) -> PrintfBuffer {
        PrintfBuffer {
            limit,
            used: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
        }
    }

    /// Takes room for `bytes` of output; false (and the call counted as
    /// dropped) when the buffer has not that much left.
    pub fn admit(&self, bytes: u64) -> bool {
        let taken = self.used.fetch_add(bytes, Ordering::Relaxed);
        if taken.saturating_add(bytes) > self.limit {
            self.used.fetch_sub(bytes, Ordering::Relaxed);
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// The printf calls whose output did not fit.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

/// The registers of `f` a program can observe before writing them: those
/// live at its entry (possibly read before any write), and the sources of
/// shuffles, which read inactive lanes too. Warps start with these at zero
/// (and may reuse register files from earlier CTAs for the rest).
pub fn registers_to_zero(f: &ir::Function) -> Vec<ir::Reg> {
    let live = ir::liveness::Liveness::compute(f).live_at(f, f.entry, 0);
    let mut regs: Vec<ir::Reg> = f.regs.keys().filter(|r| live.contains(*r)).collect();
    for block in f.blocks.values() {
        for op in &block.ops {
            if let ir::OpKind::Shfl { .. } = op.kind {
                for s in &op.srcs {
                    if let ir::Src::Reg(r) = s {
                        regs.push(*r);
                    }
                }
            }
        }
    }
    regs.sort();
    regs.dedup();
    regs
}

/// One printf call's output.
#[derive(Clone, Debug)]
pub struct PrintfRecord {
    /// Linear thread index within the CTA.
    pub thread: u32,
    pub text: String,
}

/// What a CTA produced.
#[derive(Debug, Default)]
pub struct CtaOutput {
    /// In call order per thread; sort by thread (stable) for the report.
    pub printf: Vec<PrintfRecord>,
    pub warp_instructions: u64,
    /// Instructions times the lanes active when each issued.
    pub thread_instructions: u64,
}

/// A named barrier's state within a CTA.
#[derive(Clone, Debug, Default)]
pub(crate) struct BarrierState {
    arrived: u32,
    expected: Option<u32>,
    /// Threads whose `bar.red` predicate was true / false.
    trues: u32,
    falses: u32,
}

/// Shared state of a running CTA.
pub struct Cta<'a> {
    pub ctx: &'a LaunchCtx<'a>,
    pub ctaid: [u32; 3],
    pub shared: Vec<u8>,
    /// During its round in a cluster of several CTAs, the shared memory of
    /// the others by rank (empty at its own rank; `cluster.rs`).
    pub peers: Vec<Vec<u8>>,
    pub nthreads: u32,
    pub output: CtaOutput,
    pub(crate) barriers: [BarrierState; 16],
    /// Changes made to `mbarrier` objects so far (the scheduler's measure
    /// of progress among warps that spin on them).
    pub(crate) mbarrier_changes: u64,
    /// Changes this CTA made to `mbarrier` objects of other CTAs of its
    /// cluster (the cluster's runner counts them as theirs).
    pub(crate) remote_mbarrier_changes: u64,
    /// The sanitizer's state, in a checked launch.
    pub(crate) san: Option<Box<crate::sanitizer::CtaState>>,
    /// During its round in a cluster of a checked launch, the other CTAs'
    /// sanitizer states by rank (`None` at its own rank), lent like
    /// `peers`: a multicast copy's writes are checked in the CTA they
    /// land in.
    pub(crate) peer_san: Vec<Option<Box<crate::sanitizer::CtaState>>>,
}

impl<'a> Cta<'a> {
    /// The CTA's linear index in the grid.
    pub fn linear(&self) -> u64 {
        let [gx, gy, _] = self.ctx.grid;
        let [x, y, z] = self.ctaid;
        x as u64 + gx as u64 * (y as u64 + gy as u64 * z as u64)
    }

    /// A CTA earlier in grid order faulted: this one's result no longer
    /// matters.
    pub fn cancelled(&self) -> bool {
        self.ctx.cancel.load(Ordering::Relaxed) < self.linear()
    }

    pub fn threads_exited(warps: &[Warp]) -> u32 {
        warps
            .iter()
            .map(|w| (w.exited & w.valid).count_ones())
            .sum()
    }
}

/// The granularity in which a GPU allocates a CTA's shared memory: 128
/// bytes from compute capability 8.0 (cuda_occupancy.h's shared-memory
/// allocation granularity; 256 before), the smallest of the generations, so
/// that rounding never lets an access through that a GPU would fault.
pub const SHARED_GRANULE: usize = 128;

/// The bytes of a CTA's shared-memory window: the module's static shared
/// memory and the launch's dynamic part, rounded up to [`SHARED_GRANULE`]
/// where the launch rounds, then the reserved shared memory where the
/// module uses it.
pub fn cta_shared_size(ctx: &LaunchCtx) -> usize {
    let size = user_shared_size(ctx);
    let size = if ctx.round_shared {
        size.next_multiple_of(SHARED_GRANULE)
    } else {
        size
    };
    if ctx.reserved_shared {
        size.next_multiple_of(16) + RESERVED_SHARED
    } else {
        size
    }
}

pub use crate::engine::RESERVED_SHARED;

/// Where the reserved shared memory starts (`%reserved_smem_offset_begin`).
pub fn reserved_shared_offset(ctx: &LaunchCtx) -> usize {
    cta_shared_size(ctx) - RESERVED_SHARED
}

/// The kernel's own shared memory, static and dynamic
/// (`%total_smem_size`).
pub fn user_shared_size(ctx: &LaunchCtx) -> usize {
    let size = ctx.module.shared_dynamic_offset as usize + ctx.dynamic_shared as usize;
    size.max(ctx.module.shared_static_size as usize)
}

/// A CTA ready to run and its warps (reused from earlier CTAs run on this
/// thread: their register files, local memory and environments).
pub fn new_cta<'a>(ctx: &'a LaunchCtx<'a>, ctaid: [u32; 3]) -> (Cta<'a>, Vec<Warp>) {
    let [bx, by, bz] = ctx.block;
    let nthreads = bx * by * bz;
    let shared_size = cta_shared_size(ctx);
    let cta = Cta {
        ctx,
        ctaid,
        shared: vec![0; shared_size],
        peers: Vec::new(),
        nthreads,
        output: CtaOutput::default(),
        barriers: Default::default(),
        mbarrier_changes: 0,
        remote_mbarrier_changes: 0,
        san: ctx.sanitizer.map(|l| {
            let mut san = check::start_cta(l.checks, shared_size);
            // The reserved shared memory starts zeroed (cooperative groups'
            // barriers read it before any thread writes it).
            if ctx.reserved_shared {
                san.shadow
                    .initialized(reserved_shared_offset(ctx), RESERVED_SHARED);
            }
            san
        }),
        peer_san: Vec::new(),
    };
    let nwarps = nthreads.div_ceil(32);
    let warps = WARP_POOL.with(|pool| {
        let mut pool = pool.borrow_mut();
        (0..nwarps)
            .map(|w| {
                let valid = if (w + 1) * 32 <= nthreads {
                    u32::MAX
                } else {
                    (1u32 << (nthreads - w * 32)) - 1
                };
                match pool.pop() {
                    Some(mut warp) => {
                        warp.reset(ctx, ctaid, w, valid);
                        warp
                    }
                    None => Warp::new(ctx, ctaid, w, valid),
                }
            })
            .collect()
    });
    (cta, warps)
}

/// Returns a finished CTA's warps to this thread's pool.
pub fn retire_warps(mut warps: Vec<Warp>) {
    WARP_POOL.with(|pool| pool.borrow_mut().append(&mut warps));
}

thread_local! {
    static WARP_POOL: std::cell::RefCell<Vec<Warp>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Releases every barrier of the CTA that can complete (exited threads
/// count as arrived), appending the warps it releases.
pub fn release_barriers(
    cta: &mut Cta,
    warps: &mut [Warp],
    released: &mut Vec<usize>,
) -> Result<(), Fault> {
    let exited = Cta::threads_exited(warps);
    let mut waiting = [0u32; 16];
    for w in warps.iter() {
        if let Some(id) = w.waiting_on().filter(|&id| id < CLUSTER_BARRIER) {
            waiting[id as usize] += 1;
        }
    }
    // A cluster of one CTA: the cluster barrier is the CTA's.
    if cluster::cluster_size(cta.ctx) == 1 {
        let waiting: Vec<usize> = (0..warps.len())
            .filter(|&i| warps[i].waiting_on() == Some(CLUSTER_BARRIER))
            .collect();
        if cluster::release_cluster(&mut [&mut *warps]) {
            cluster::cluster_released(cta);
            released.extend(waiting);
        }
    }
    for (id, &n) in waiting.iter().enumerate() {
        let b = &cta.barriers[id];
        if n == 0 {
            continue;
        }
        let expected = b.expected.unwrap_or(cta.nthreads);
        let complete = match b.expected {
            Some(n) => b.arrived >= n,
            None => b.arrived + exited >= expected,
        };
        if complete {
            if let Some(san) = cta.san.as_deref_mut() {
                let waiters = warps
                    .iter()
                    .filter(|w| w.waiting_on() == Some(id as u32))
                    .flat_map(|w| {
                        let live = w.valid & !w.exited;
                        (0..32u32)
                            .filter(move |l| live & (1 << l) != 0)
                            .map(move |l| w.index * 32 + l)
                    });
                san.barrier_released(id, waiters);
            }
            let b = std::mem::take(&mut cta.barriers[id]);
            for (i, w) in warps.iter_mut().enumerate() {
                if w.waiting_on() == Some(id as u32) {
                    w.release_barrier(b.trues, b.falses == 0, b.trues > 0);
                    released.push(i);
                }
            }
        }
    }
    Ok(())
}

/// The fault of a CTA whose live warps all wait at barriers that cannot
/// complete.
pub fn deadlock(cta: &Cta, warps: &[Warp]) -> Fault {
    let exited = Cta::threads_exited(warps);
    let first = warps.iter().find(|w| w.waiting_on().is_some());
    let (span, func, thread) =
        first
            .map(|w| w.position(cta))
            .unwrap_or((Span::DUMMY, None, [0; 3]));
    let waits: Vec<String> = warps
        .iter()
        .filter_map(|w| {
            w.waiting_on()
                .map(|b| format!("warp {} at {}", w.index, cluster::barrier_name(b)))
        })
        .collect();
    Fault {
        kind: FaultKind::BarrierDeadlock,
        message: format!(
            "barrier deadlock: {} of {} threads exited and the rest wait forever ({})",
            exited,
            cta.nthreads,
            waits.join(", ")
        ),
        thread,
        func,
        span,
        loc: None,
        access: None,
    }
}
