//! Merging the results of a launch's CTAs as they finish, in any order
//! and on any thread: instruction counts, printf output by CTA, and the
//! fault of the first faulting CTA in grid order.

use crate::interp::{self, FaultKind};

/// CTA results merged as they come, in any order: the counts, the printf
/// output of the CTAs that printed (by linear index), and the fault of the
/// first faulting CTA in grid order.
#[derive(Default)]
pub(crate) struct Merged {
    pub(crate) warp_instructions: u64,
    pub(crate) thread_instructions: u64,
    pub(crate) printf: std::collections::BTreeMap<u64, Vec<interp::PrintfRecord>>,
    pub(crate) fault: Option<(u64, interp::Fault)>,
}

impl Merged {
    /// Adds the result of CTA `i`.
    pub(crate) fn add(&mut self, i: u64, r: Result<interp::CtaOutput, interp::Fault>) {
        match r {
            Ok(out) => {
                self.warp_instructions += out.warp_instructions;
                self.thread_instructions += out.thread_instructions;
                if !out.printf.is_empty() {
                    self.printf.insert(i, out.printf);
                }
            }
            Err(fault) if fault.kind == FaultKind::Cancelled => {}
            Err(fault) => {
                if self.fault.as_ref().is_none_or(|(j, _)| i < *j) {
                    self.fault = Some((i, fault));
                }
            }
        }
    }

    pub(crate) fn merge(mut self, mut other: Merged) -> Merged {
        self.warp_instructions += other.warp_instructions;
        self.thread_instructions += other.thread_instructions;
        self.printf.append(&mut other.printf);
        if let Some((i, fault)) = other.fault {
            if self.fault.as_ref().is_none_or(|(j, _)| i < *j) {
                self.fault = Some((i, fault));
            }
        }
        self
    }
}

/// `%ctaid` of the CTA with linear index `i` in a grid `gx` x `gy` x _.
pub(crate) fn cta_id(i: u64, gx: u32, gy: u32) -> [u32; 3] {
    [
        (i % gx as u64) as u32,
        ((i / gx as u64) % gy as u64) as u32,
        (i / (gx as u64 * gy as u64)) as u32,
    ]
}
