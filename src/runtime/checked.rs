//! Checked launches (the sanitizer, `Options::checks`): the device's
//! checks and its reports so far, and turning a launch's findings and
//! memcheck faults into located [`Report`]s.
//!
//! Racecheck and initcheck run on the launch's engine: the interpreter
//! calls the sanitizer's hooks (`interp::check`), the JIT a checked build
//! of the module whose accesses call them (`jit::compile_checked`); what
//! synccheck checks always runs in the warp driver both engines share.
//! Memcheck alone needs no hook: device memory refuses every access
//! outside a live allocation on both engines (compiled code through the
//! granule table; with memcheck, each device-heap block is checked on
//! its own, `runtime::heap`), and the fault names the refused access,
//! which is described here against the allocations, and a bad
//! device-side `free` is a report too; so memcheck runs on the
//! launch's engine, the JIT by default. An unchecked launch pays nothing:
//! no shadow exists, and the hooks see `None`.

use super::memory::{LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
use super::{Device, LoadedModule};
use crate::front::Span;
use crate::interp::{Fault, FaultKind};
use crate::ir::{self, Space};
use crate::sanitizer::{self, Access, Checks, Finding, Located, Report, ReportKind, Rw, SyncError};

impl Device {
    /// The checks launches run.
    pub fn checks(&self) -> Checks {
        self.options.checks
    }

    /// Chooses the checks of later launches. Turning initcheck on counts
    /// every live allocation as written (earlier copies are not known).
    pub fn set_checks(&mut self, checks: Checks) {
        self.options.checks = checks;
        self.memory.set_initcheck(checks.initcheck);
        self.memory
            .set_rounded(self.options.round_allocations && !checks.memcheck);
        self.set_heap_checked();
    }

    /// Memcheck checks the device heap's blocks one by one
    /// (`runtime::heap`), or the heap is one allocation.
    pub(super) fn set_heap_checked(&mut self) {
        if let Some(h) = &self.heap {
            self.memory
                .set_heap_check(h.set_checked(self.options.checks.memcheck));
        }
    }

    /// The reports of the checked launches since the last call, in launch
    /// order (within a launch: grid order, then the order found).
    pub fn take_reports(&self) -> Vec<Report> {
        std::mem::take(&mut *self.reports.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// A report of device memory never freed (memcheck's leak check: the
    /// driver library calls this for each allocation live at exit).
    pub fn leak_report(addr: u64, size: u64) -> Report {
        Report {
            kind: ReportKind::Leak,
            space: "global",
            size,
            address: addr,
            detail: String::new(),
            kernel: String::new(),
            block: [0; 3],
            access: None,
            other: None,
        }
    }

    /// Records the reports of a finished checked launch: its findings up to
    /// the faulting CTA, then (memcheck) the fault of an access that device
    /// memory refused.
    pub(super) fn record_checked(
        &self,
        lm: &LoadedModule,
        f: &ir::Function,
        cfg: &super::LaunchConfig,
        launch: sanitizer::Launch,
        fault: Option<&(u64, Fault)>,
    ) {
        let [gx, gy, _] = cfg.grid;
        let mut out = Vec::new();
        for (linear, finding) in launch.collector.into_sorted(fault.map(|(i, _)| *i)) {
            let block = super::cta_id(linear, gx, gy);
            let r = self.finding_report(lm, f, cfg.block, block, finding);
            if r.kind == ReportKind::Sync(SyncError::DivergentBlock) && !aligned_barriers(&r) {
                continue;
            }
            out.push(r);
        }
        if let Some((i, fault)) = fault {
            let block = super::cta_id(*i, gx, gy);
            if let Some(r) = self.fault_report(lm, f, block, fault, launch.checks) {
                out.push(r);
            }
        }
        if !out.is_empty() {
            let mut reports = self.reports.lock().unwrap_or_else(|e| e.into_inner());
            reports.extend(out);
        }
    }

    fn finding_report(
        &self,
        lm: &LoadedModule,
        f: &ir::Function,
        block_dim: [u32; 3],
        block: [u32; 3],
        finding: Finding,
    ) -> Report {
        let here = |a: &Access| locate(lm, a.rw, tid(a.thread, block_dim), a.site.span, a.site.loc);
        let base = |kind, space, size: u32, address, detail: String, access: &Access| Report {
            kind,
            space,
            size: size as u64,
            address,
            detail,
            kernel: f.name.clone(),
            block,
            access: Some(here(access)),
            other: None,
        };
        match finding {
            Finding::Uninitialized {
                space,
                addr,
                size,
                access,
            } => {
                let detail = match space {
                    Space::Shared => "(shared memory offset, never written in this block)".into(),
                    Space::Local => "(local memory offset, never written by this thread)".into(),
                    _ => match self.memory.allocation_of(addr) {
                        Some((s, e)) => format!(
                            "is {} bytes inside a {}-byte allocation at {s:#x}, never written",
                            addr - s,
                            e - s
                        ),
                        None => String::new(),
                    },
                };
                let space = sanitizer::space_name(space);
                base(
                    ReportKind::UninitializedRead,
                    space,
                    size,
                    addr,
                    detail,
                    &access,
                )
            }
            Finding::Race {
                hazard,
                space,
                offset,
                size,
                first,
                second,
            } => {
                let mut r = base(
                    ReportKind::Race(hazard),
                    sanitizer::space_name(space),
                    size,
                    offset,
                    String::new(),
                    &second,
                );
                r.other = Some(here(&first));
                r
            }
            Finding::Sync {
                error,
                message,
                access,
                other,
            } => {
                let mut r = base(ReportKind::Sync(error), "", 0, 0, message, &access);
                r.other = other.as_ref().map(here);
                r
            }
        }
    }

    /// The report of a launch's fault, when a check reports it: memcheck
    /// an access device memory refused, synccheck a barrier only part of a
    /// warp reached.
    fn fault_report(
        &self,
        lm: &LoadedModule,
        f: &ir::Function,
        block: [u32; 3],
        fault: &Fault,
        checks: Checks,
    ) -> Option<Report> {
        if fault.kind == FaultKind::DivergentBarrier && checks.synccheck {
            return Some(Report {
                kind: ReportKind::Sync(SyncError::DivergentWarp),
                space: "",
                size: 0,
                address: 0,
                detail: fault
                    .message
                    .strip_prefix("divergent barrier: ")
                    .unwrap_or(&fault.message)
                    .to_string(),
                kernel: f.name.clone(),
                block,
                access: Some(locate(lm, Rw::Read, fault.thread, fault.span, fault.loc)),
                other: None,
            });
        }
        let a = fault.access.filter(|_| checks.memcheck)?;
        let rw = if a.atomic { Rw::Atomic } else { a.rw };
        if let Some(e) = a.free {
            return Some(Report {
                kind: ReportKind::BadFree(e),
                space: "global",
                size: 0,
                address: a.addr,
                detail: String::new(),
                kernel: f.name.clone(),
                block,
                access: Some(locate(lm, rw, fault.thread, fault.span, fault.loc)),
                other: None,
            });
        }
        let kind = match fault.kind {
            FaultKind::IllegalAddress => ReportKind::InvalidAccess(rw),
            FaultKind::MisalignedAddress => ReportKind::MisalignedAccess(rw),
            _ => return None,
        };
        let space = match a.space {
            Space::Generic if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&a.addr) => {
                Space::Shared
            }
            Space::Generic if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&a.addr) => {
                Space::Local
            }
            Space::Generic | Space::Const => Space::Global,
            s => s,
        };
        let detail = match (kind, space) {
            (ReportKind::MisalignedAccess(_), _) => {
                format!("is misaligned for a {}-byte access", a.size)
            }
            (_, Space::Global) => self.memory.describe(a.addr, a.size),
            _ => "is out of bounds".into(),
        };
        Some(Report {
            kind,
            space: sanitizer::space_name(space),
            size: a.size,
            address: a.addr,
            detail,
            kernel: f.name.clone(),
            block,
            access: Some(locate(lm, rw, fault.thread, fault.span, fault.loc)),
            other: None,
        })
    }
}

/// Whether one of the two barriers of a [`SyncError::DivergentBlock`]
/// report is `.aligned` (`bar.sync`, `bar.red`, `barrier.sync.aligned`):
/// all the CTA's threads must then execute that same instruction. Two
/// non-aligned `barrier.sync` may complete one round at different
/// instructions (the IR does not keep the modifier, so the PTX text
/// decides).
fn aligned_barriers(r: &Report) -> bool {
    [&r.access, &r.other].into_iter().flatten().any(|l| {
        let mut words = l.source_line.split_whitespace();
        let mut opcode = words.next().unwrap_or("");
        if opcode.starts_with('@') {
            opcode = words.next().unwrap_or("");
        }
        opcode.starts_with("bar.") || opcode.split('.').any(|m| m == "aligned")
    })
}

/// `%tid` of linear thread `t` in a block of `dim`.
fn tid(t: u32, dim: [u32; 3]) -> [u32; 3] {
    let [bx, by, _] = dim;
    [t % bx, (t / bx) % by, t / (bx * by)]
}

/// An access located in the PTX and the high-level source.
fn locate(
    lm: &LoadedModule,
    rw: Rw,
    thread: [u32; 3],
    span: Span,
    loc: Option<(u32, u32)>,
) -> Located {
    let lc = lm.source.line_col(span.start as usize);
    let source_location = loc.map(|(file, line)| {
        let name = lm
            .ir
            .files
            .iter()
            .find(|f| f.0 == file)
            .map(|f| f.1.as_str())
            .unwrap_or("?");
        format!("{name}:{line}")
    });
    Located {
        rw,
        thread,
        location: lm.source.location(span),
        line: lc.line as u32,
        source_line: lm.source.line_text(lc.line).trim().to_string(),
        source_location,
    }
}
