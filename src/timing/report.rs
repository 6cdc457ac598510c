//! What a timed launch reports: cycles and time, per-SM cycles, IPC,
//! occupancy (theoretical, achieved, limiter), the issue-stall breakdown,
//! the instruction mix by unit, memory transactions and cache hit rates,
//! bank conflicts, and cycles attributed to PTX lines; as text or JSON.

use std::fmt::Write;

use super::arch::UnitClass;
use super::memory::MemStats;

/// Why a scheduler did not issue in a cycle (the warp closest to issuing
/// decides).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stall {
    /// Waiting for an ALU result.
    Dependency = 0,
    /// Waiting for a load's value.
    Memory,
    /// Every warp that could issue waits at a barrier.
    Barrier,
    /// The instruction was ready but its units were busy.
    UnitBusy,
    /// The warp's previous instruction was still dispatching.
    Dispatch,
    /// No warp resident on the scheduler (or all finished).
    NoEligibleWarp,
}

impl Stall {
    pub const ALL: [Stall; 6] = [
        Stall::Dependency,
        Stall::Memory,
        Stall::Barrier,
        Stall::UnitBusy,
        Stall::Dispatch,
        Stall::NoEligibleWarp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Stall::Dependency => "dependency",
            Stall::Memory => "memory",
            Stall::Barrier => "barrier",
            Stall::UnitBusy => "unit_busy",
            Stall::Dispatch => "dispatch",
            Stall::NoEligibleWarp => "no_eligible_warp",
        }
    }
}

/// One issue, for execution diagrams.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IssueEvent {
    pub cycle: u64,
    pub sm: u32,
    pub scheduler: u32,
    pub cta: u64,
    pub warp: u32,
    /// The instruction's ordinal in its function (`I<ordinal>`).
    pub ordinal: u32,
    pub line: u32,
    /// Cycles its dispatch took.
    pub dispatch: u32,
}

/// Cycles (issue and stall) and issues per PTX line (indexed by line).
#[derive(Clone, Debug, Default)]
pub struct LineCycles(pub Vec<(u64, u64)>);

impl LineCycles {
    #[inline]
    pub fn add(&mut self, line: u32, cycles: u64, issues: u64) {
        let l = line as usize;
        if l >= self.0.len() {
            self.0.resize(l + 1, (0, 0));
        }
        let e = &mut self.0[l];
        e.0 += cycles;
        e.1 += issues;
    }

    /// (line, cycles, issues), most cycles first.
    pub fn top(&self, n: usize) -> Vec<(u32, u64, u64)> {
        let mut v: Vec<(u32, u64, u64)> = self
            .0
            .iter()
            .enumerate()
            .filter(|(_, &(c, i))| c > 0 || i > 0)
            .map(|(l, &(c, i))| (l as u32, c, i))
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v.truncate(n);
        v
    }
}

/// The timing model's result for one launch.
#[derive(Clone, Debug, Default)]
pub struct TimingReport {
    pub arch: String,
    pub clock_mhz: f64,
    /// Cycles of the simulated CTAs (the whole grid unless sampling).
    pub cycles: u64,
    /// Estimated cycles of the whole grid (equal to `cycles` unless sampling).
    pub estimated_cycles: u64,
    pub simulated_ctas: u64,
    pub grid_ctas: u64,
    /// Cycles each SM had resident warps.
    pub sm_cycles: Vec<u64>,
    pub warp_instructions: u64,
    /// Hardware instructions (micro-ops weighted by their issue cost).
    pub hw_instructions: u64,
    /// Warp-instructions that issued folded: ops with no SASS instruction
    /// of their own (SASS costs, `timing::costs`); not in the counts above.
    pub folded_instructions: u64,
    /// Where the issue costs came from: "PTX" (and why, when SASS was
    /// asked for), or "SASS sm_80 (ptxas 12.9.86, ...), N instructions on
    /// M PTX lines".
    pub costs: String,
    pub thread_instructions: u64,
    /// Issues per unit class (`UnitClass as usize`).
    pub mix: [u64; 8],
    /// Scheduler-cycles without issue, per reason (`Stall as usize`).
    pub stalls: [u64; 6],
    pub theoretical_occupancy: f64,
    pub achieved_occupancy: f64,
    pub limiter: String,
    pub blocks_per_sm: u32,
    /// The L1 of the launch (what its shared memory carveout left).
    pub l1_kib: u32,
    pub regs_per_thread: u32,
    /// Where the register count came from ("user", "ptxas log", "estimate").
    pub regs_source: String,
    pub memory: MemStats,
    /// Host wall time of the timed part of the launch (simulating and
    /// executing the simulated CTAs; the module's instruction table, built
    /// on its first timed launch, counts as compilation).
    pub wall: std::time::Duration,
    pub line_cycles: LineCycles,
    pub events: Vec<IssueEvent>,
}

impl TimingReport {
    /// Warp-instructions per cycle per active SM (as profilers report IPC).
    pub fn ipc(&self) -> f64 {
        let active: u64 = self.sm_cycles.iter().sum();
        if active == 0 {
            0.0
        } else {
            self.warp_instructions as f64 / active as f64
        }
    }

    pub fn time_us(&self) -> f64 {
        self.estimated_cycles as f64 / self.clock_mhz
    }

    /// The text report's `costs:` line.
    fn costs_text(&self) -> String {
        let source = if self.costs.is_empty() {
            "PTX"
        } else {
            &self.costs
        };
        if self.folded_instructions > 0 {
            format!(
                "{source}; {} PTX warp-instructions folded",
                self.folded_instructions
            )
        } else {
            source.to_string()
        }
    }

    fn rate(hits: u64, misses: u64) -> f64 {
        if hits + misses == 0 {
            0.0
        } else {
            hits as f64 / (hits + misses) as f64
        }
    }

    pub fn to_json(&self) -> serde_json::Value {
        let m = &self.memory;
        let stalls: serde_json::Map<String, serde_json::Value> = Stall::ALL
            .iter()
            .map(|s| (s.name().to_string(), self.stalls[*s as usize].into()))
            .collect();
        let mix: serde_json::Map<String, serde_json::Value> = UnitClass::ALL
            .iter()
            .map(|c| (c.name().to_string(), self.mix[*c as usize].into()))
            .collect();
        let lines: Vec<serde_json::Value> = self
            .line_cycles
            .top(usize::MAX)
            .into_iter()
            .map(|(l, c, i)| serde_json::json!({"line": l, "cycles": c, "issues": i}))
            .collect();
        let shared_avg = if m.shared_accesses == 0 {
            0.0
        } else {
            m.bank_conflict_degree_sum as f64 / m.shared_accesses as f64
        };
        serde_json::json!({
            "arch": self.arch,
            "clock_mhz": self.clock_mhz,
            "cycles": self.estimated_cycles,
            "simulated_cycles": self.cycles,
            "time_us": self.time_us(),
            "sampled": self.simulated_ctas < self.grid_ctas,
            "simulated_ctas": self.simulated_ctas,
            "grid_ctas": self.grid_ctas,
            "sm_cycles": self.sm_cycles,
            "ipc": self.ipc(),
            "warp_instructions": self.warp_instructions,
            "hw_instructions": self.hw_instructions,
            "folded_instructions": self.folded_instructions,
            "costs": {
                "model": if self.costs.starts_with("SASS") { "sass" } else { "ptx" },
                "detail": self.costs,
            },
            "thread_instructions": self.thread_instructions,
            "occupancy": {
                "theoretical": self.theoretical_occupancy,
                "achieved": self.achieved_occupancy,
                "limiter": self.limiter,
                "blocks_per_sm": self.blocks_per_sm,
                "regs_per_thread": self.regs_per_thread,
                "regs_source": self.regs_source,
            },
            "stalls": stalls,
            "instruction_mix": mix,
            "memory": {
                "global_loads": m.global_loads,
                "global_stores": m.global_stores,
                "global_atomics": m.global_atomics,
                "local_accesses": m.local_accesses,
                "sectors": m.sectors,
                "lines": m.lines,
                "l1_hit_rate": Self::rate(m.l1_hits, m.l1_misses),
                "l2_hit_rate": Self::rate(m.l2_hits, m.l2_misses),
                "l1_kib": self.l1_kib,
                "dram_sectors": m.dram_sectors,
                "dram_writes": m.dram_writes,
                "mshr_wait_cycles": m.mshr_wait_cycles,
                "shared_accesses": m.shared_accesses,
                "bank_conflict_degree_avg": shared_avg,
                "bank_conflict_degree_max": m.bank_conflict_degree_max,
            },
            "lines": lines,
        })
    }

    /// The text report; `source_line` gives a PTX line's text.
    pub fn to_text(&self, source_line: &dyn Fn(u32) -> String) -> String {
        let mut s = String::new();
        let m = &self.memory;
        let _ = writeln!(
            s,
            "timing ({}, {} MHz): {} cycles = {:.2} us{}",
            self.arch,
            self.clock_mhz,
            self.estimated_cycles,
            self.time_us(),
            if self.simulated_ctas < self.grid_ctas {
                format!(
                    " (sampled: {} of {} CTAs simulated, {} cycles, extrapolated)",
                    self.simulated_ctas, self.grid_ctas, self.cycles
                )
            } else {
                String::new()
            }
        );
        let active: Vec<u64> = self.sm_cycles.iter().copied().filter(|&c| c > 0).collect();
        let _ = writeln!(
            s,
            "  SMs used {} of {}; per-SM cycles min {} max {}",
            active.len(),
            self.sm_cycles.len(),
            active.iter().min().unwrap_or(&0),
            active.iter().max().unwrap_or(&0)
        );
        let _ = writeln!(
            s,
            "  {} warp-instructions ({} hardware, {} thread-instructions), IPC {:.3} per SM",
            self.warp_instructions,
            self.hw_instructions,
            self.thread_instructions,
            self.ipc()
        );
        let _ = writeln!(
            s,
            "  occupancy: theoretical {:.1}%, achieved {:.1}%, limited by {} ({} blocks/SM, {} registers/thread from {})",
            100.0 * self.theoretical_occupancy,
            100.0 * self.achieved_occupancy,
            self.limiter,
            self.blocks_per_sm,
            self.regs_per_thread,
            self.regs_source
        );
        let _ = writeln!(s, "  costs: {}", self.costs_text());
        let total: u64 = self.stalls.iter().sum();
        let _ = write!(s, "  scheduler stalls ({total} scheduler-cycles):");
        for st in Stall::ALL {
            let v = self.stalls[st as usize];
            if v > 0 {
                let _ = write!(
                    s,
                    " {} {:.1}%",
                    st.name(),
                    100.0 * v as f64 / total.max(1) as f64
                );
            }
        }
        let _ = writeln!(s);
        let _ = write!(s, "  instruction mix:");
        for c in UnitClass::ALL {
            let v = self.mix[c as usize];
            if v > 0 {
                let _ = write!(s, " {} {}", c.name(), v);
            }
        }
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "  memory: {} global loads, {} stores, {} atomics, {} local; {} sectors in {} lines; L1 ({} KB) hit {:.1}%, L2 hit {:.1}%; DRAM {} sectors read, {} written back",
            m.global_loads,
            m.global_stores,
            m.global_atomics,
            m.local_accesses,
            m.sectors,
            m.lines,
            self.l1_kib,
            100.0 * Self::rate(m.l1_hits, m.l1_misses),
            100.0 * Self::rate(m.l2_hits, m.l2_misses),
            m.dram_sectors,
            m.dram_writes
        );
        if m.shared_accesses > 0 {
            let _ = writeln!(
                s,
                "  shared: {} accesses, bank-conflict degree avg {:.2}, max {}",
                m.shared_accesses,
                m.bank_conflict_degree_sum as f64 / m.shared_accesses as f64,
                m.bank_conflict_degree_max
            );
        }
        let _ = writeln!(s, "  hottest PTX lines (issue + stall cycles):");
        let all: u64 = self.line_cycles.0.iter().map(|v| v.0).sum();
        for (line, cycles, issues) in self.line_cycles.top(8) {
            let _ = writeln!(
                s,
                "    {:>5.1}% line {:>4} ({} issues): {}",
                100.0 * cycles as f64 / all.max(1) as f64,
                line,
                issues,
                source_line(line).trim()
            );
        }
        s
    }
}
