//! Architecture presets: everything the cycle model knows about a GPU, as
//! data. The built-in presets (`src/timing/presets/sm_*.toml`, compiled in)
//! cite a source beside every value; users copy one (`warpjit preset sm_80`)
//! and edit it (`--arch-file PATH`). Loading checks every field, so a model
//! never runs on a preset with a zero clock or a missing unit class.

use serde::Deserialize;
use std::fmt;

use super::occupancy::GpuLimits;

/// A GPU's parameters for the timing model (see `docs/timing-model.md`).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Arch {
    pub name: String,
    /// "major.minor", e.g. "8.0".
    pub compute_capability: String,
    #[serde(default)]
    pub description: String,
    pub chip: Chip,
    pub scheduler: Scheduler,
    /// Functional units per SM, by class.
    pub units: Units,
    /// Dependent-issue latency in cycles, by class.
    pub latency: Latencies,
    pub memory: Memory,
    pub occupancy: OccupancyLimits,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Chip {
    pub sm_count: u32,
    pub clock_mhz: f64,
    /// Cycles from a CTA's retirement (its stores acknowledged) to the
    /// first issue of the CTA the work distributor sends to the freed
    /// slot: the completion travels to the chip's front end and the next
    /// CTA back. The first wave is dispatched with the kernel and waits
    /// for nothing.
    #[serde(default)]
    pub block_launch_cycles: u32,
    /// The work distributor's rate: an SM receives a CTA at most once per
    /// this many cycles (first wave included); 0: no limit.
    #[serde(default)]
    pub block_dispatch_cycles: u32,
}

/// How a warp scheduler picks among ready warps.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// Start after the warp that issued last (NVIDIA's observed behaviour).
    LooseRoundRobin,
    /// Keep issuing from the same warp while it is ready, else the oldest.
    GreedyThenOldest,
    /// Always the lowest-numbered ready warp.
    LowestNumbered,
}

/// Which instruction pairs one scheduler may issue together.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DualIssue {
    /// One instruction per cycle whatever `issue_width` says.
    None,
    /// Two consecutive instructions of one warp when the second does not
    /// depend on the first and units for both are free (Kepler, the notes'
    /// dual-issue example).
    Independent,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scheduler {
    pub schedulers_per_sm: u32,
    pub issue_width: u32,
    pub dual_issue: DualIssue,
    pub policy: Policy,
    /// Whether a warp's next instruction waits until its previous one has
    /// finished dispatching (the notes' model, Kepler to Pascal), or may
    /// issue the next cycle to another, free pipe (Volta on).
    pub dispatch_blocks_warp: bool,
    /// Cycles between two issues of one scheduler: 1, or 2 where the
    /// scheduler runs at half the processor clock (Tesla, Fermi).
    #[serde(default = "one")]
    pub issue_interval: u32,
    /// The order a warp's instructions issue in (default `ptx`).
    #[serde(default)]
    pub instruction_order: InstructionOrder,
}

/// The order in which a warp issues a basic block's instructions.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum InstructionOrder {
    /// As written in the PTX (the notes' examples: the program is the
    /// machine code).
    #[default]
    Ptx,
    /// As ptxas schedules it (`ir::schedule`: loads hoisted ahead of their
    /// uses, independent chains interleaved).
    Compiler,
}

/// How global accesses coalesce into memory transactions.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Coalescing {
    /// The distinct 32-byte sectors of the warp's lanes, through the caches
    /// (Fermi on).
    #[default]
    Sectors,
    /// CC 1.0/1.1 (G80): per half-warp, one transaction when thread k
    /// accesses word k of an aligned segment, else one 32-byte transaction
    /// per active thread; no caches.
    HalfWarpStrict,
    /// CC 1.2/1.3 (GT200): per half-warp, the segment (32, 64 or 128 bytes)
    /// of the lowest active thread, halved while only one half is used,
    /// repeated until every thread is served; any order; no caches.
    HalfWarpSegments,
}

/// What an L1 miss fetches.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum L1Fill {
    /// The missing sectors (Maxwell on: sectored L1).
    #[default]
    Sector,
    /// The whole line (Fermi).
    Line,
}

/// Units per SM. Fractions per scheduler are allowed (2 FP64 units on an
/// SM of 4 schedulers dispatch a warp over 64 cycles).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Units {
    pub int: f64,
    pub fp32: f64,
    pub fp64: f64,
    pub fp16: f64,
    pub sfu: f64,
    pub ls: f64,
    pub control: f64,
    pub tensor: f64,
    /// Groups of classes whose instructions run on the same units (an
    /// instruction of one keeps the units busy for all): before Volta,
    /// integer and FP32 instructions share the CUDA cores.
    #[serde(default)]
    pub same_pipe: Vec<Vec<String>>,
    /// Issue slots a PTX 32-bit integer multiply takes (`mul.lo`/`mul.hi`,
    /// `mad.lo`/`mad.hi` on 32-bit types) where the PTX model prices it:
    /// 1, or 4 on CC 1.x, which has no 32-bit multiplier (16 cycles a
    /// warp against 4 for an add). SASS costs count the real instructions.
    #[serde(default = "one")]
    pub int_mul32_issues: u32,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Latencies {
    pub int: u32,
    pub fp32: u32,
    pub fp64: u32,
    pub fp16: u32,
    pub sfu: u32,
    pub control: u32,
    pub tensor: u32,
    /// Shared memory load to use, without bank conflicts.
    pub shared: u32,
    /// Constant cache hit (`ld.const`, `ld.param`).
    pub constant: u32,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    /// When set, every global and local access takes exactly this many
    /// cycles (the notes' assumed `L_M`): no caches, no DRAM queue.
    #[serde(default)]
    pub fixed_latency: Option<u32>,
    /// L1 when the SM's shared memory takes its largest carveout.
    pub l1_kib: u32,
    /// The L1/shared memory the two share (CC 7.0 on): a launch's L1 is
    /// what its shared memory carveout leaves, at least `l1_kib`; 0: the
    /// L1 is `l1_kib` whatever the launch.
    #[serde(default)]
    pub l1_shared_unified_kib: u32,
    pub l1_ways: u32,
    pub l1_latency: u32,
    /// Whether global loads allocate in L1 (Kepler sends them to L2).
    pub l1_caches_global: bool,
    pub l2_kib: u32,
    pub l2_ways: u32,
    pub l2_latency: u32,
    pub dram_latency: u32,
    pub dram_bandwidth_gbs: f64,
    pub line_bytes: u32,
    pub sector_bytes: u32,
    pub shared_banks: u32,
    pub shared_bank_bytes: u32,
    /// Bytes one bank delivers per pass: the bank's width, twice
    /// `shared_bank_bytes` on Kepler (64-bit banks addressed by 32-bit
    /// words: words i and i + 32 of a 64-word row share a pass).
    #[serde(default)]
    pub shared_bank_width_bytes: u32,
    /// Shared accesses are served a half-warp at a time (CC 1.x).
    #[serde(default)]
    pub shared_half_warp: bool,
    /// 128-bit shared accesses are served a quarter-warp at a time, each
    /// quarter taking one pass more than its bank-conflict degree (CC 2.x).
    #[serde(default)]
    pub shared_wide_quarter_warps: bool,
    /// How a warp's global accesses become memory transactions.
    #[serde(default)]
    pub coalescing: Coalescing,
    /// What an L1 miss fetches: the missing sectors, or the whole line
    /// (Fermi's 128-byte lines).
    #[serde(default)]
    pub l1_fill: L1Fill,
    /// Cycles the banks take per pass (wavefront) of a shared access: 1,
    /// or 2 where a bank serves one access every two cycles (Fermi and
    /// earlier).
    #[serde(default = "one")]
    pub shared_cycles_per_pass: u32,
    /// Sector misses an SM may have outstanding (its MSHRs); 0: no limit.
    #[serde(default)]
    pub l1_mshrs: u32,
    /// Global stores allocate their line in the L1 without fetching it
    /// (wholly written sectors become valid; partly written ones once all
    /// their bytes are written), as the H100 measured here does (Accel-Sim
    /// configures every L1 from Volta on so, but a TITAN V's does not keep
    /// a thread's stores); otherwise a store only updates sectors the L1
    /// holds.
    #[serde(default)]
    pub l1_store_allocate: bool,
    /// Bytes per cycle one SM's port to the L2 moves (requests out, data
    /// back); 0: no limit.
    #[serde(default)]
    pub sm_l2_bytes_per_cycle: f64,
    /// Independent L2 slices (addresses interleaved over them by line).
    #[serde(default = "one")]
    pub l2_slices: u32,
    /// Bytes per cycle one L2 slice serves; 0: no limit.
    #[serde(default)]
    pub l2_slice_bytes_per_cycle: f64,
    /// Cycles an L2 slice takes per lane of an atomic (read-modify-write
    /// units serve one address per cycle).
    #[serde(default = "one_f64")]
    pub l2_atomic_cycles: f64,
    /// Sectors an L2 read miss fetches from DRAM: the aligned group of
    /// this many around each missing sector (1: only the sectors asked
    /// for; 2: 64-byte fetches, as the H100 measured here does for sparse
    /// reads).
    #[serde(default = "one")]
    pub l2_fetch_sectors: u32,
    /// Slice cycles a partly written sector takes beyond its transfer (a
    /// read-modify-write of the sector in the slice; 0: none). The H100
    /// measured here takes about 4 per sector of its naive transposes'
    /// scattered 4- and 8-byte stores.
    #[serde(default)]
    pub l2_partial_write_cycles: f64,
    /// Whether the L2 reads a partly written sector from DRAM to merge it
    /// before writing it back (the H100 measured here does: one DRAM
    /// sector read per partly written sector).
    #[serde(default)]
    pub dram_partial_write_fill: bool,
    /// Fraction of DRAM time lost to refresh (tRFC / tREFI).
    #[serde(default)]
    pub dram_refresh_fraction: f64,
    /// Fraction of DRAM bandwidth taken by in-band ECC (check bits moved
    /// with the data, where ECC is enabled on memory without side-band
    /// ECC).
    #[serde(default)]
    pub dram_ecc_fraction: f64,
    /// Independent DRAM channels, each turning its bus around between
    /// reads and writes.
    #[serde(default = "one")]
    pub dram_channels: u32,
    /// Nanoseconds a channel loses turning its bus from reads to writes
    /// and back (write-to-read plus read-to-write turnaround).
    #[serde(default)]
    pub dram_turnaround_ns: f64,
    /// Writes a channel drains per turnaround (its write queue's batch).
    #[serde(default = "write_batch")]
    pub dram_write_batch: u32,
    /// Line-sized requests a channel's controller queues (its FR-FCFS
    /// scheduler's queue): a write arriving when the channel is further
    /// behind than that is held, and its sender with it.
    #[serde(default = "dram_queue")]
    pub dram_queue: u32,
    /// Bytes of consecutive addresses one channel holds before the next.
    #[serde(default = "interleave")]
    pub dram_interleave_bytes: u32,
    /// Whether higher address bits are hashed into the channel (Fermi on),
    /// or channels take the interleaving units in turn (CC 1.x).
    #[serde(default)]
    pub dram_hashed: bool,
    /// Banks per channel, each with one open row (0: no bank model, every
    /// access served at the channel's bandwidth whatever its row).
    #[serde(default)]
    pub dram_banks: u32,
    /// Bytes of a channel's address space one row (page) of a bank holds.
    #[serde(default = "row_bytes")]
    pub dram_row_bytes: u32,
    /// Nanoseconds between two activations of one bank (tRC: a row opened,
    /// read or written, and closed).
    #[serde(default)]
    pub dram_row_cycle_ns: f64,
    /// Nanoseconds between two activations of one channel (tRRD, or a
    /// quarter of tFAW where that is longer).
    #[serde(default)]
    pub dram_activate_ns: f64,
}

fn row_bytes() -> u32 {
    2048
}

fn dram_queue() -> u32 {
    64
}

fn one() -> u32 {
    1
}

fn one_f64() -> f64 {
    1.0
}

fn write_batch() -> u32 {
    32
}

fn interleave() -> u32 {
    256
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OccupancyLimits {
    pub max_warps_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub max_threads_per_block: u32,
    pub regs_per_sm: u32,
    pub max_regs_per_thread: u32,
    pub reg_alloc_unit: u32,
    pub shared_per_sm: u32,
    pub shared_per_block: u32,
    pub shared_alloc_unit: u32,
    pub reserved_shared_per_block: u32,
}

/// A functional-unit class: the index of its latency and unit count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnitClass {
    Int = 0,
    Fp32,
    Fp64,
    Fp16,
    Sfu,
    Ls,
    Control,
    Tensor,
}

impl UnitClass {
    pub const ALL: [UnitClass; 8] = [
        UnitClass::Int,
        UnitClass::Fp32,
        UnitClass::Fp64,
        UnitClass::Fp16,
        UnitClass::Sfu,
        UnitClass::Ls,
        UnitClass::Control,
        UnitClass::Tensor,
    ];

    pub fn name(self) -> &'static str {
        match self {
            UnitClass::Int => "int",
            UnitClass::Fp32 => "fp32",
            UnitClass::Fp64 => "fp64",
            UnitClass::Fp16 => "fp16",
            UnitClass::Sfu => "sfu",
            UnitClass::Ls => "ls",
            UnitClass::Control => "control",
            UnitClass::Tensor => "tensor",
        }
    }
}

impl Units {
    /// Per class, the index of the units it books: its own, or the first
    /// class of its `same_pipe` group.
    pub fn pipes(&self) -> [u8; 8] {
        let mut pipe = [0u8; 8];
        for c in UnitClass::ALL {
            pipe[c as usize] = c as u8;
        }
        for group in &self.same_pipe {
            let members: Vec<UnitClass> = group
                .iter()
                .filter_map(|n| UnitClass::ALL.into_iter().find(|c| c.name() == n))
                .collect();
            if let Some(first) = members.first() {
                for c in &members {
                    pipe[*c as usize] = *first as u8;
                }
            }
        }
        pipe
    }

    pub fn of(&self, c: UnitClass) -> f64 {
        match c {
            UnitClass::Int => self.int,
            UnitClass::Fp32 => self.fp32,
            UnitClass::Fp64 => self.fp64,
            UnitClass::Fp16 => self.fp16,
            UnitClass::Sfu => self.sfu,
            UnitClass::Ls => self.ls,
            UnitClass::Control => self.control,
            UnitClass::Tensor => self.tensor,
        }
    }
}

impl Latencies {
    pub fn of(&self, c: UnitClass) -> u32 {
        match c {
            UnitClass::Int => self.int,
            UnitClass::Fp32 => self.fp32,
            UnitClass::Fp64 => self.fp64,
            UnitClass::Fp16 => self.fp16,
            UnitClass::Sfu => self.sfu,
            // A load's latency comes from the memory model.
            UnitClass::Ls => self.shared,
            UnitClass::Control => self.control,
            UnitClass::Tensor => self.tensor,
        }
    }
}

/// Why a preset was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchError {
    pub source: String,
    pub message: String,
}

impl fmt::Display for ArchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.source, self.message)
    }
}

impl std::error::Error for ArchError {}

/// The built-in presets, by name, as shipped (TOML text).
pub const PRESETS: &[(&str, &str)] = &[
    ("sm_10", include_str!("presets/sm_10.toml")),
    ("sm_13", include_str!("presets/sm_13.toml")),
    ("sm_20", include_str!("presets/sm_20.toml")),
    ("sm_30", include_str!("presets/sm_30.toml")),
    ("sm_35", include_str!("presets/sm_35.toml")),
    ("sm_52", include_str!("presets/sm_52.toml")),
    ("sm_60", include_str!("presets/sm_60.toml")),
    ("sm_61", include_str!("presets/sm_61.toml")),
    ("sm_70", include_str!("presets/sm_70.toml")),
    ("sm_75", include_str!("presets/sm_75.toml")),
    ("sm_80", include_str!("presets/sm_80.toml")),
    ("sm_86", include_str!("presets/sm_86.toml")),
    ("sm_89", include_str!("presets/sm_89.toml")),
    ("sm_90", include_str!("presets/sm_90.toml")),
    // Boards: a chip's preset with the board's clocks and sizes.
    ("v100-pcie", include_str!("presets/v100-pcie.toml")),
    ("k20c", include_str!("presets/k20c.toml")),
    ("k20c-ecc-off", include_str!("presets/k20c-ecc-off.toml")),
    ("k20x", include_str!("presets/k20x.toml")),
    ("k40-ecc-off", include_str!("presets/k40-ecc-off.toml")),
    ("p100-pcie", include_str!("presets/p100-pcie.toml")),
    ("rtx2080ti", include_str!("presets/rtx2080ti.toml")),
    ("a100-mig7g40", include_str!("presets/a100-mig7g40.toml")),
    ("h100-pcie", include_str!("presets/h100-pcie.toml")),
    ("gtx480-oc", include_str!("presets/gtx480-oc.toml")),
    ("gtx580", include_str!("presets/gtx580.toml")),
    ("m2090", include_str!("presets/m2090.toml")),
    ("gtx660", include_str!("presets/gtx660.toml")),
    ("titanv", include_str!("presets/titanv.toml")),
    ("h200", include_str!("presets/h200.toml")),
    ("a100-80gb", include_str!("presets/a100-80gb.toml")),
];

impl Arch {
    /// A built-in preset by name (`sm_80`).
    pub fn builtin(name: &str) -> Result<Arch, ArchError> {
        match PRESETS.iter().find(|(n, _)| *n == name) {
            Some((n, text)) => Arch::from_toml(n, text),
            None => Err(ArchError {
                source: name.to_string(),
                message: format!(
                    "unknown architecture; built-in presets: {}",
                    PRESETS.iter().map(|p| p.0).collect::<Vec<_>>().join(" ")
                ),
            }),
        }
    }

    /// The TOML text of a built-in preset (to copy and edit).
    pub fn builtin_text(name: &str) -> Option<&'static str> {
        PRESETS.iter().find(|(n, _)| *n == name).map(|p| p.1)
    }

    /// Parses and checks a preset; `source` names it in errors. A preset
    /// may start from a built-in one (`base = "sm_70"`) and give only what
    /// differs (a board of a chip: its clocks, SM count, memory): its
    /// tables' keys replace the base's.
    pub fn from_toml(source: &str, text: &str) -> Result<Arch, ArchError> {
        let err = |message: String| ArchError {
            source: source.to_string(),
            message,
        };
        let table: toml::Table = toml::from_str(text).map_err(|e| err(e.to_string()))?;
        let arch: Arch = if table.contains_key("base") {
            toml::Value::Table(Arch::resolve(table, 0).map_err(err)?)
                .try_into()
                .map_err(|e: toml::de::Error| err(e.to_string()))?
        } else {
            // Straight from the text, so that errors carry its lines.
            toml::from_str(text).map_err(|e| err(e.to_string()))?
        };
        arch.check().map_err(|message| ArchError {
            source: source.to_string(),
            message,
        })?;
        Ok(arch)
    }

    /// `table` with its `base` (a built-in preset, itself perhaps a board
    /// of another) under it: the base's tables with this one's keys
    /// replacing theirs.
    fn resolve(mut table: toml::Table, depth: u32) -> Result<toml::Table, String> {
        let Some(base) = table.remove("base") else {
            return Ok(table);
        };
        let base = base
            .as_str()
            .ok_or("base must be the name of a built-in preset")?;
        if depth > 4 {
            return Err(format!("base {base}: bases nest too deep"));
        }
        let text = Arch::builtin_text(base)
            .ok_or_else(|| format!("base: unknown built-in preset {base:?}"))?;
        let under: toml::Table = toml::from_str(text).map_err(|e| format!("base {base}: {e}"))?;
        let mut merged = Arch::resolve(under, depth + 1)?;
        for (key, value) in table {
            match (merged.get_mut(&key), value) {
                (Some(toml::Value::Table(into)), toml::Value::Table(from)) => into.extend(from),
                (_, value) => {
                    merged.insert(key, value);
                }
            }
        }
        Ok(merged)
    }

    fn check(&self) -> Result<(), String> {
        let positive = |what: &str, v: f64| {
            if v > 0.0 && v.is_finite() {
                Ok(())
            } else {
                Err(format!("{what} must be positive (is {v})"))
            }
        };
        positive("chip.sm_count", self.chip.sm_count as f64)?;
        positive("chip.clock_mhz", self.chip.clock_mhz)?;
        positive(
            "scheduler.schedulers_per_sm",
            self.scheduler.schedulers_per_sm as f64,
        )?;
        if !(1..=2).contains(&self.scheduler.issue_width) {
            return Err("scheduler.issue_width must be 1 or 2".into());
        }
        for c in UnitClass::ALL {
            positive(&format!("units.{}", c.name()), self.units.of(c))?;
        }
        let mut grouped = Vec::new();
        for name in self.units.same_pipe.iter().flatten() {
            if !UnitClass::ALL.iter().any(|c| c.name() == name) {
                return Err(format!(
                    "units.same_pipe: `{name}` is not a unit class (int, fp32, fp64, fp16, sfu, ls, control, tensor)"
                ));
            }
            if grouped.contains(&name) {
                return Err(format!("units.same_pipe: `{name}` is in two groups"));
            }
            grouped.push(name);
        }
        let m = &self.memory;
        for (what, v) in [
            ("memory.l1_ways", m.l1_ways),
            ("memory.l2_ways", m.l2_ways),
            ("memory.shared_banks", m.shared_banks),
            ("memory.shared_bank_bytes", m.shared_bank_bytes),
        ] {
            positive(what, v as f64)?;
        }
        positive("memory.dram_bandwidth_gbs", m.dram_bandwidth_gbs)?;
        if !(m.l2_partial_write_cycles >= 0.0 && m.l2_partial_write_cycles.is_finite()) {
            return Err(format!(
                "memory.l2_partial_write_cycles must be finite and at least 0 (is {})",
                m.l2_partial_write_cycles
            ));
        }
        for (what, v) in [
            (
                "memory.shared_cycles_per_pass",
                m.shared_cycles_per_pass as f64,
            ),
            ("memory.l2_slices", m.l2_slices as f64),
            (
                "scheduler.issue_interval",
                self.scheduler.issue_interval as f64,
            ),
            ("memory.l2_atomic_cycles", m.l2_atomic_cycles),
            ("memory.l2_fetch_sectors", m.l2_fetch_sectors as f64),
            ("memory.dram_channels", m.dram_channels as f64),
            ("memory.dram_write_batch", m.dram_write_batch as f64),
            ("memory.dram_queue", m.dram_queue as f64),
            (
                "memory.dram_interleave_bytes",
                m.dram_interleave_bytes as f64,
            ),
            ("memory.dram_row_bytes", m.dram_row_bytes as f64),
        ] {
            positive(what, v)?;
        }
        for (what, v) in [
            ("memory.sm_l2_bytes_per_cycle", m.sm_l2_bytes_per_cycle),
            (
                "memory.l2_slice_bytes_per_cycle",
                m.l2_slice_bytes_per_cycle,
            ),
            ("memory.dram_turnaround_ns", m.dram_turnaround_ns),
            ("memory.dram_row_cycle_ns", m.dram_row_cycle_ns),
            ("memory.dram_activate_ns", m.dram_activate_ns),
        ] {
            if !(v >= 0.0 && v.is_finite()) {
                return Err(format!("{what} must be 0 or more (is {v})"));
            }
        }
        for (what, v) in [
            ("memory.dram_refresh_fraction", m.dram_refresh_fraction),
            ("memory.dram_ecc_fraction", m.dram_ecc_fraction),
        ] {
            if !(0.0..0.9).contains(&v) {
                return Err(format!("{what} must be in [0, 0.9) (is {v})"));
            }
        }
        if m.shared_bank_width_bytes != 0
            && (m.shared_bank_width_bytes % m.shared_bank_bytes != 0
                || !(m.shared_bank_width_bytes / m.shared_bank_bytes).is_power_of_two())
        {
            return Err(
                "memory.shared_bank_width_bytes must be a power-of-two multiple of memory.shared_bank_bytes (or 0)"
                    .into(),
            );
        }
        if m.coalescing != Coalescing::Sectors && (m.l1_kib != 0 || m.l2_kib != 0) {
            return Err("memory.coalescing: the half-warp rules are for GPUs without data caches (l1_kib = l2_kib = 0)".into());
        }
        if !m.dram_interleave_bytes.is_power_of_two() {
            return Err("memory.dram_interleave_bytes must be a power of two".into());
        }
        if m.line_bytes / m.sector_bytes.max(1) > super::cache::MAX_SECTORS as u32 {
            return Err(format!(
                "memory.line_bytes / memory.sector_bytes must be at most {}",
                super::cache::MAX_SECTORS
            ));
        }
        if !m.line_bytes.is_power_of_two()
            || !m.sector_bytes.is_power_of_two()
            || m.sector_bytes > m.line_bytes
        {
            return Err(
                "memory.line_bytes and memory.sector_bytes must be powers of two, sector <= line"
                    .into(),
            );
        }
        if !m.l2_fetch_sectors.is_power_of_two()
            || m.l2_fetch_sectors * m.sector_bytes > m.line_bytes
        {
            return Err(
                "memory.l2_fetch_sectors must be a power of two, at most a line's sectors".into(),
            );
        }
        let o = &self.occupancy;
        for (what, v) in [
            ("occupancy.max_warps_per_sm", o.max_warps_per_sm),
            ("occupancy.max_blocks_per_sm", o.max_blocks_per_sm),
            ("occupancy.max_threads_per_block", o.max_threads_per_block),
            ("occupancy.regs_per_sm", o.regs_per_sm),
            ("occupancy.reg_alloc_unit", o.reg_alloc_unit),
            ("occupancy.shared_alloc_unit", o.shared_alloc_unit),
        ] {
            positive(what, v as f64)?;
        }
        // The cycle model keeps a scheduler's warps, and an SM's
        // schedulers, in bit sets of 64 and 32.
        let schedulers = self.scheduler.schedulers_per_sm;
        if schedulers > 32 || o.max_warps_per_sm.div_ceil(schedulers) > 64 {
            return Err(format!(
                "the cycle model holds at most 32 warp schedulers per SM and 64 warps per scheduler (scheduler.schedulers_per_sm = {schedulers}, occupancy.max_warps_per_sm = {})",
                o.max_warps_per_sm
            ));
        }
        self.cc()?;
        Ok(())
    }

    /// (major, minor) of the compute capability.
    pub fn cc(&self) -> Result<(u32, u32), String> {
        let bad = || {
            format!(
                "compute_capability must be \"major.minor\" (is {:?})",
                self.compute_capability
            )
        };
        let (a, b) = self.compute_capability.split_once('.').ok_or_else(bad)?;
        Ok((a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?))
    }

    /// Whether ptxas's sm_80 SASS (the sidecars', and what `warpjit sass`
    /// makes: ptxas 12.9 emits nothing older) stands for this GPU's machine
    /// code well enough for `--costs auto`: from Fermi on (CC 2.0, the
    /// load/store ISA later generations extend), not for the Tesla
    /// generation, whose ISA takes shared-memory operands in arithmetic,
    /// has no wide loads, and multiplies 32-bit integers in several
    /// instructions. On the fidelity table the PTX model fits Tesla better
    /// (37.8% against 41.0% MAPE over its 22 rows) and sm_80's SASS fits
    /// Fermi better (25.7% against 28.6%; no difference from Kepler on).
    pub fn sm80_sass_applies(&self) -> bool {
        self.cc().is_ok_and(|(major, _)| major >= 2)
    }

    /// The occupancy rules' view of this preset: NVIDIA's rules for its
    /// compute capability, with the preset's limits.
    pub fn limits(&self) -> GpuLimits {
        let (major, minor) = self.cc().unwrap_or((8, 0));
        let base = super::occupancy::BUILTIN
            .iter()
            .find(|g| g.major == major && g.minor == minor)
            .copied()
            .unwrap_or_else(|| GpuLimits::builtin("sm_80").expect("sm_80 is built in"));
        let o = &self.occupancy;
        GpuLimits {
            major,
            minor,
            max_threads_per_block: o.max_threads_per_block,
            max_threads_per_sm: o.max_warps_per_sm * 32,
            regs_per_sm: o.regs_per_sm,
            shared_per_sm: o.shared_per_sm,
            shared_per_block_optin: o.shared_per_block,
            reserved_shared_per_block: o.reserved_shared_per_block,
            max_blocks_per_sm: o.max_blocks_per_sm,
            ..base
        }
    }

    /// Units of `class` available to one scheduler.
    pub fn units_per_scheduler(&self, class: UnitClass) -> f64 {
        self.units.of(class) / self.scheduler.schedulers_per_sm as f64
    }

    /// Cycles one scheduler takes to dispatch a warp's 32 threads to `class`.
    pub fn dispatch_cycles(&self, class: UnitClass) -> u32 {
        (32.0 / self.units_per_scheduler(class)).ceil().max(1.0) as u32
    }
}

#[cfg(test)]
#[path = "arch_tests.rs"]
mod tests;
