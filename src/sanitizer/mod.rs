//! The CPU compute-sanitizer: which checks a device runs ([`Checks`]),
//! what a check finds while a CTA runs ([`Finding`]), the launch-wide
//! [`Collector`] that keeps one finding per kind and pair of PTX lines
//! (the first in grid order, so reports do not depend on thread
//! scheduling), and the rendered [`Report`] users read.
//!
//! The shadow state lives beside: [`shadow`] owns global memory's
//! "written" bits (initcheck), [`shared`] a CTA's shared-memory shadow
//! (written bits and the race records of racecheck) and its race records
//! of global memory ([`global_cells`]), [`hb`] the happens-before clocks
//! of mbarriers, release/acquire, warp and partial barriers, [`local`] the
//! written bits of each thread's local memory (initcheck), [`hooks`]
//! the access hooks over them that the engines call, and [`deferred`] the
//! log compiled code keeps its accesses in until it calls the hooks. This
//! module and its children depend only on the IR and the front end's
//! spans, never on an engine: the interpreter (`interp::check`) and
//! compiled code (through [`deferred::DeferredLog`], `jit::helpers::jit_replay`)
//! call the same hooks. Memcheck
//! needs no shadow: device memory already refuses every access outside a
//! live allocation (with memcheck, outside a live device-heap block:
//! `runtime::heap`), and the runtime describes the refused address against
//! the allocations (and freed ones) when it reports.

pub mod deferred;
pub mod global_cells;
pub mod hb;
pub mod hooks;
pub mod local;
pub mod shadow;
pub mod shared;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Mutex;

use crate::front::Span;
use crate::ir::{FuncId, Space};

/// The checks a device runs on every launch (all off by default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checks {
    /// Accesses outside live allocations, with the nearest allocation
    /// described; leaks at exit in the driver library.
    pub memcheck: bool,
    /// Shared-memory hazards between threads of one CTA.
    pub racecheck: bool,
    /// Reads of global memory never written, of shared memory never
    /// written in this CTA, and of local memory never written by the
    /// thread.
    pub initcheck: bool,
    /// Barriers and warp-synchronous operations used against their rules.
    pub synccheck: bool,
}

/// The environment variable naming the driver library's checks.
pub const CHECK_ENV: &str = "WARPJIT_CHECK";

impl Checks {
    pub const NAMES: [&'static str; 4] = ["memcheck", "racecheck", "initcheck", "synccheck"];

    /// Whether any check is on.
    pub fn any(self) -> bool {
        self.memcheck || self.racecheck || self.initcheck || self.synccheck
    }

    /// Whether a check needs the engines' hooks on every access (all but
    /// memcheck: device memory refuses what memcheck reports on either
    /// engine, and the fault carries the refused access).
    pub fn hooks(self) -> bool {
        self.racecheck || self.initcheck || self.synccheck
    }

    /// The checks of a comma-separated list of names (`memcheck`,
    /// `racecheck`, `initcheck`, `synccheck`, or `all`); an empty list or
    /// an unknown name is an error.
    pub fn parse(list: &str) -> Result<Checks, String> {
        let mut c = Checks::default();
        let mut seen = false;
        for name in list.split(',').map(str::trim) {
            match name {
                "memcheck" => c.memcheck = true,
                "racecheck" => c.racecheck = true,
                "initcheck" => c.initcheck = true,
                "synccheck" => c.synccheck = true,
                "all" => {
                    c = Checks {
                        memcheck: true,
                        racecheck: true,
                        initcheck: true,
                        synccheck: true,
                    }
                }
                "" => continue,
                other => {
                    return Err(format!(
                        "`{other}` is not a check: expected memcheck, racecheck, initcheck, synccheck or all"
                    ))
                }
            }
            seen = true;
        }
        if !seen {
            return Err(
                "no check named: expected memcheck, racecheck, initcheck, synccheck or all".into(),
            );
        }
        Ok(c)
    }

    /// Both sets of checks.
    pub fn union(self, o: Checks) -> Checks {
        Checks {
            memcheck: self.memcheck || o.memcheck,
            racecheck: self.racecheck || o.racecheck,
            initcheck: self.initcheck || o.initcheck,
            synccheck: self.synccheck || o.synccheck,
        }
    }

    /// The names of the checks that are on.
    pub fn names(self) -> Vec<&'static str> {
        let on = [
            self.memcheck,
            self.racecheck,
            self.initcheck,
            self.synccheck,
        ];
        Self::NAMES
            .iter()
            .zip(on)
            .filter(|(_, on)| *on)
            .map(|(n, _)| *n)
            .collect()
    }

    /// The checks [`CHECK_ENV`] names (none when it is unset or empty);
    /// an error names the variable.
    pub fn from_env() -> Result<Checks, String> {
        match std::env::var(CHECK_ENV) {
            Ok(s) if s.trim().is_empty() => Ok(Checks::default()),
            Ok(s) => Checks::parse(&s).map_err(|e| format!("{CHECK_ENV}={s:?}: {e}")),
            Err(std::env::VarError::NotPresent) => Ok(Checks::default()),
            Err(e) => Err(format!("{CHECK_ENV}: {e}")),
        }
    }
}

/// Reading or writing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rw {
    Read,
    Write,
    /// An atomic read-modify-write, as memcheck names an atomic that device
    /// memory refused (`Invalid __global__ atomic`); the checks' hooks see
    /// atomics apart (`SharedShadow::atomic`).
    Atomic,
}

impl Rw {
    pub fn name(self) -> &'static str {
        match self {
            Rw::Read => "read",
            Rw::Write => "write",
            Rw::Atomic => "atomic",
        }
    }
}

/// The instruction that made an access: its function, PTX span and
/// `.loc` source line.
#[derive(Clone, Copy, Debug)]
pub struct Site {
    pub func: FuncId,
    pub span: Span,
    pub loc: Option<(u32, u32)>,
}

/// One thread's access as a finding names it.
#[derive(Clone, Copy, Debug)]
pub struct Access {
    pub rw: Rw,
    /// Linear thread index in the CTA.
    pub thread: u32,
    pub site: Site,
}

/// The order of two conflicting accesses to the same bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Hazard {
    /// A write, then a read by another thread.
    ReadAfterWrite,
    /// A read, then a write by another thread.
    WriteAfterRead,
    /// Two writes by different threads.
    WriteAfterWrite,
}

impl Hazard {
    pub fn short(self) -> &'static str {
        match self {
            Hazard::ReadAfterWrite => "RAW",
            Hazard::WriteAfterRead => "WAR",
            Hazard::WriteAfterWrite => "WAW",
        }
    }
}

/// What synccheck found wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SyncError {
    /// `bar.sync`/`bar.red` with a thread count that is not a multiple of 32.
    CountNotWarpMultiple,
    /// A thread count smaller than the threads arriving at the barrier.
    CountBelowArrivals,
    /// Warps arriving at one round of a barrier with different thread
    /// counts (`bar.sync 1, 64` in one warp, `bar.sync 1, 96` in another).
    CountsDiffer,
    /// A warp-synchronous op whose member mask leaves out the lane executing it.
    MaskMissesLanes,
    /// A warp-synchronous op whose member mask names live lanes that do
    /// not execute it with the others.
    MaskNamesAbsentLanes,
    /// A `shfl.sync` lane reading a source lane (in range: its predicate
    /// true) that its member mask leaves out.
    SourceNotMember,
    /// `cp.async` with a source size (from a register) larger than the
    /// copy size (PTX ISA: undefined; the copy reads `cp-size` bytes).
    CopySourceTooLarge,
    /// A CTA barrier reached by only some of a warp's live lanes (a launch
    /// error too: the barrier cannot complete).
    DivergentWarp,
    /// The threads of a CTA completing one round of a whole-CTA barrier
    /// (no thread count) at different barrier instructions, one of them
    /// `.aligned` (`bar.sync`, `__syncthreads()`): a `__syncthreads()` in
    /// code the CTA's threads do not all take.
    DivergentBlock,
}

/// A device-side `free` of what is no live heap block (memcheck's
/// "Malloc/Free error").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FreeError {
    /// A block freed already (memcheck remembers freed blocks).
    DoubleFree,
    /// An address that is no block's start.
    InvalidPointer,
}

impl FreeError {
    /// compute-sanitizer's name for the error.
    pub fn name(self) -> &'static str {
        match self {
            FreeError::DoubleFree => "Double free",
            FreeError::InvalidPointer => "Invalid pointer to free",
        }
    }

    /// The launch error's message, the same whatever the error.
    pub fn message(addr: u64) -> String {
        format!("free({addr:#x}): not a block that device-side malloc returned, or freed already")
    }
}

/// What a check found in one CTA, before the runtime locates it.
#[derive(Clone, Debug)]
pub enum Finding {
    /// A read of bytes never written (global: since allocation; shared:
    /// in this CTA; local: by this thread in this frame). `addr` is the
    /// device address (global), the offset in the CTA's shared memory, or
    /// the offset in the thread's local memory.
    Uninitialized {
        space: Space,
        addr: u64,
        size: u32,
        access: Access,
    },
    /// Two accesses to the same bytes of shared or global memory, from
    /// different threads of one CTA, in the same barrier interval.
    /// `offset` is the first byte they share: a shared-memory offset, or
    /// a device address.
    Race {
        hazard: Hazard,
        space: Space,
        offset: u64,
        size: u32,
        first: Access,
        second: Access,
    },
    /// A barrier or warp-synchronous op used against its rules.
    Sync {
        error: SyncError,
        message: String,
        access: Access,
        /// The other thread's barrier, for [`SyncError::DivergentBlock`] and
        /// [`SyncError::CountsDiffer`].
        other: Option<Access>,
    },
}

impl Finding {
    /// Findings with the same key are one report: the kind and the PTX
    /// instructions involved.
    fn key(&self) -> Key {
        match self {
            Finding::Uninitialized { space, access, .. } => {
                let space = match space {
                    Space::Shared => 1,
                    Space::Local => 2,
                    _ => 0,
                };
                (0, space, access.site.span.start, 0)
            }
            Finding::Race {
                hazard,
                first,
                second,
                ..
            } => (
                1,
                *hazard as u8,
                first.site.span.start,
                second.site.span.start,
            ),
            Finding::Sync { error, access, .. } => (2, *error as u8, access.site.span.start, 0),
        }
    }
}

/// What makes findings one report: the kind (and hazard or error) and the
/// PTX instructions involved (by span start).
type Key = (u8, u8, u32, u32);

/// A CTA's findings, one per key (the first it made).
#[derive(Debug, Default)]
pub struct CtaFindings {
    list: Vec<Finding>,
    keys: std::collections::HashSet<Key>,
}

impl CtaFindings {
    /// Adds a finding unless one with its key is already there.
    pub fn add(&mut self, f: Finding) {
        if self.keys.insert(f.key()) {
            self.list.push(f);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// Most distinct reports a launch keeps (compute-sanitizer also stops
/// printing after a limit); the rest are counted.
pub const MAX_REPORTS: usize = 1000;

/// A launch's findings from all its CTAs: per key, the one of the first
/// CTA in grid order (then the first that CTA made).
#[derive(Debug, Default)]
pub struct Collector {
    /// Per key: the CTA's linear index, the finding's index in that CTA, the finding.
    found: Mutex<BTreeMap<Key, (u64, usize, Finding)>>,
}

impl Collector {
    /// Adds the findings of CTA `linear`.
    pub fn add(&self, linear: u64, findings: CtaFindings) {
        if findings.is_empty() {
            return;
        }
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        for (i, f) in findings.list.into_iter().enumerate() {
            let key = f.key();
            match found.get(&key) {
                Some(&(l, j, _)) if (l, j) <= (linear, i) => {}
                _ => {
                    if found.len() < MAX_REPORTS || found.contains_key(&key) {
                        found.insert(key, (linear, i, f));
                    }
                }
            }
        }
    }

    /// The findings of CTAs up to `last` (the faulting CTA, whose
    /// successors may or may not have run), in grid order, each with its
    /// CTA's linear index.
    pub fn into_sorted(self, last: Option<u64>) -> Vec<(u64, Finding)> {
        let found = self.found.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut v: Vec<(u64, usize, Finding)> = found
            .into_values()
            .filter(|(l, _, _)| last.is_none_or(|last| *l <= last))
            .collect();
        v.sort_by_key(|(l, i, _)| (*l, *i));
        v.into_iter().map(|(l, _, f)| (l, f)).collect()
    }
}

/// A checked launch: its checks, and where its CTAs leave findings.
#[derive(Debug, Default)]
pub struct Launch {
    pub checks: Checks,
    pub collector: Collector,
}

/// A running CTA's sanitizer state: its shared-memory shadow and findings.
#[derive(Debug, Default)]
pub struct CtaState {
    pub shadow: shared::SharedShadow,
    /// Each thread's local-memory written bits (initcheck).
    pub local: local::LocalShadow,
    pub findings: CtaFindings,
    /// Per barrier id, the first arrival of its current round at a
    /// whole-CTA barrier (synccheck: the others must arrive at the same
    /// instruction).
    pub barrier_sites: [Option<Access>; 16],
    /// Per barrier id, the thread count of the first arrival of its
    /// current round at a barrier with a count, and that arrival
    /// (synccheck: the others must give the same count).
    pub barrier_counts: [Option<(u32, Access)>; 16],
    /// The accesses of the compiled loop a warp is running, until they are
    /// replayed (`deferred::DeferredLog`).
    pub deferred: deferred::DeferredLog,
}

impl CtaState {
    /// Barrier `id` released, its waiting threads `waiters`: for racecheck,
    /// a new interval, or, for a partial round (a thread count below the
    /// CTA's, or `bar.arrive`: `hb::Clocks::bar_arrive`), the waiters
    /// acquire what its arrivals released and the other threads are not
    /// ordered by it; a new round for synccheck.
    pub fn barrier_released(&mut self, id: usize, waiters: impl Iterator<Item = u32>) {
        match self.shadow.clocks() {
            Some(c) if c.bar_partial(id) => c.bar_release(id, waiters),
            _ => self.shadow.barrier(),
        }
        if let Some(s) = self.barrier_sites.get_mut(id) {
            *s = None;
        }
        if let Some(c) = self.barrier_counts.get_mut(id) {
            *c = None;
        }
    }
}

/// What a report is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportKind {
    /// An access outside every live allocation (memcheck).
    InvalidAccess(Rw),
    /// An access not aligned to its size (memcheck).
    MisalignedAccess(Rw),
    /// A read of memory never written (initcheck).
    UninitializedRead,
    /// A shared-memory hazard (racecheck).
    Race(Hazard),
    /// A synchronization error (synccheck).
    Sync(SyncError),
    /// Device memory allocated and never freed (memcheck, driver library).
    Leak,
    /// A device-side `free` of what is no live heap block (memcheck).
    BadFree(FreeError),
}

impl ReportKind {
    /// The check that makes reports of this kind.
    pub fn check(self) -> &'static str {
        match self {
            ReportKind::InvalidAccess(_)
            | ReportKind::MisalignedAccess(_)
            | ReportKind::Leak
            | ReportKind::BadFree(_) => "memcheck",
            ReportKind::UninitializedRead => "initcheck",
            ReportKind::Race(_) => "racecheck",
            ReportKind::Sync(_) => "synccheck",
        }
    }
}

/// Where an access was made, located in the grid and the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub rw: Rw,
    pub thread: [u32; 3],
    /// `file:line:col` of the PTX instruction.
    pub location: String,
    /// The PTX line number.
    pub line: u32,
    /// The instruction's text.
    pub source_line: String,
    /// The high-level source line (from `.loc`), e.g. `kernel.cu:12`.
    pub source_location: Option<String>,
}

/// A sanitizer report, as the CLI and the driver library print it.
#[derive(Clone, Debug)]
pub struct Report {
    pub kind: ReportKind,
    /// `global`, `shared`, `local`, ... (empty for synccheck).
    pub space: &'static str,
    /// Bytes accessed (or leaked).
    pub size: u64,
    /// The device address (global), or the offset in shared memory.
    pub address: u64,
    /// What the address is (the nearest allocation and the offset to it),
    /// or the synccheck message.
    pub detail: String,
    /// The kernel (empty for leaks).
    pub kernel: String,
    pub block: [u32; 3],
    /// The access (the second of a race).
    pub access: Option<Located>,
    /// A race's first access; for a barrier reached at two instructions
    /// ([`SyncError::DivergentBlock`]) or with two thread counts
    /// ([`SyncError::CountsDiffer`]), the other one.
    pub other: Option<Located>,
}

/// The name compute-sanitizer gives a space (`__global__`, ...).
pub fn space_name(space: Space) -> &'static str {
    match space {
        Space::Global => "global",
        Space::Shared => "shared",
        Space::Local => "local",
        Space::Const => "const",
        Space::KernelParam | Space::FrameParam => "param",
        Space::Generic => "generic",
    }
}

fn write_located(f: &mut fmt::Formatter<'_>, l: &Located, kernel: &str) -> fmt::Result {
    write!(f, "=========     at {kernel}")?;
    if let Some(src) = &l.source_location {
        write!(f, " in {src}")?;
    }
    writeln!(f)?;
    writeln!(
        f,
        "=========     PTX {}: {}",
        l.location,
        l.source_line.trim()
    )
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [bx, by, bz] = self.block;
        let tid = |t: [u32; 3]| format!("({},{},{})", t[0], t[1], t[2]);
        match self.kind {
            ReportKind::InvalidAccess(rw) | ReportKind::MisalignedAccess(rw) => {
                let what = if matches!(self.kind, ReportKind::MisalignedAccess(_)) {
                    "Misaligned"
                } else {
                    "Invalid"
                };
                writeln!(
                    f,
                    "========= {what} __{}__ {} of size {} bytes",
                    self.space,
                    rw.name(),
                    self.size
                )?;
            }
            ReportKind::BadFree(e) => {
                writeln!(f, "========= Malloc/Free error encountered : {}", e.name())?
            }
            ReportKind::UninitializedRead => writeln!(
                f,
                "========= Uninitialized __{}__ memory read of size {} bytes",
                self.space, self.size
            )?,
            ReportKind::Race(h) => {
                let (a, b) = (self.other.as_ref(), self.access.as_ref());
                writeln!(
                    f,
                    "========= Error: Race reported between {} access and {} access ({} hazard at __{}__ {:#x}, {} bytes) in block ({bx},{by},{bz})",
                    a.map_or("?", |a| if a.rw == Rw::Read { "Read" } else { "Write" }),
                    b.map_or("?", |b| if b.rw == Rw::Read { "Read" } else { "Write" }),
                    h.short(),
                    self.space,
                    self.address,
                    self.size
                )?;
                for l in [a, b].into_iter().flatten() {
                    writeln!(f, "=========     by thread {}", tid(l.thread))?;
                    write_located(f, l, &self.kernel)?;
                }
                return Ok(());
            }
            ReportKind::Sync(e) => {
                let what = match e {
                    SyncError::CountNotWarpMultiple
                    | SyncError::CountBelowArrivals
                    | SyncError::CountsDiffer => "Barrier error detected. Invalid arguments",
                    SyncError::MaskMissesLanes
                    | SyncError::MaskNamesAbsentLanes
                    | SyncError::SourceNotMember => {
                        "Warp-synchronous error detected. Invalid member mask"
                    }
                    SyncError::CopySourceTooLarge => {
                        "Asynchronous copy error detected. Invalid arguments"
                    }
                    SyncError::DivergentWarp => {
                        "Barrier error detected. Divergent thread(s) in warp"
                    }
                    SyncError::DivergentBlock => {
                        "Barrier error detected. Divergent thread(s) in block"
                    }
                };
                writeln!(f, "========= {what}: {}", self.detail)?
            }
            ReportKind::Leak => {
                return writeln!(
                    f,
                    "========= Leaked {} bytes at {:#x}",
                    self.size, self.address
                );
            }
        }
        if let Some(l) = &self.access {
            write_located(f, l, &self.kernel)?;
            writeln!(
                f,
                "=========     by thread {} in block ({bx},{by},{bz})",
                tid(l.thread)
            )?;
        }
        match self.kind {
            ReportKind::Sync(e) => match &self.other {
                Some(l) => {
                    let does = match e {
                        SyncError::CountsDiffer => "arrives with another count",
                        _ => "waits",
                    };
                    writeln!(f, "=========     while thread {} {does}", tid(l.thread))?;
                    write_located(f, l, &self.kernel)
                }
                None => Ok(()),
            },
            _ if self.detail.is_empty() => {
                writeln!(f, "=========     Address {:#x}", self.address)
            }
            _ => writeln!(
                f,
                "=========     Address {:#x} {}",
                self.address, self.detail
            ),
        }
    }
}

/// compute-sanitizer's closing line: `========= ERROR SUMMARY: N errors`.
pub fn summary(errors: usize) -> String {
    let s = if errors == 1 { "" } else { "s" };
    format!("========= ERROR SUMMARY: {errors} error{s}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_lists_parse_and_bad_names_are_errors() {
        let c = Checks::parse("memcheck, initcheck").unwrap();
        assert!(c.memcheck && c.initcheck && !c.racecheck && !c.synccheck);
        assert_eq!(
            Checks::parse("all").unwrap().names(),
            Checks::NAMES.to_vec()
        );
        assert!(Checks::parse("memchek").unwrap_err().contains("memchek"));
        assert!(Checks::parse("").is_err());
        assert!(Checks::parse(",").is_err());
        assert!(!Checks::default().any());
    }
}
