//! The fidelity runs (`ptx-samples/fidelity/runs.toml`) on the timing
//! model, and the model's value for each published measurement
//! (`ptx-samples/fidelity/published.toml`); formats in
//! `ptx-samples/fidelity/README.md`. Used by `benches/fidelity.rs` and the
//! timing tests.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;

use serde::Deserialize;
use warpjit::runtime::{
    args, Costs, Device, KernelArg, LaunchConfig, ModuleId, Options, TimingOptions,
};
use warpjit::timing::occupancy::{occupancy, OccupancyInput};
use warpjit::timing::{Arch, TimingReport};

pub fn dir() -> PathBuf {
    super::repo_root().join("ptx-samples/fidelity")
}

#[derive(Deserialize)]
struct RunsFile {
    run: Vec<Run>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Run {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub ptx: String,
    #[serde(default)]
    pub buffers: Vec<Buffer>,
    pub launch: Vec<Launch>,
    #[serde(default)]
    pub read: Vec<Read>,
    /// `"skip"`: the calibration kit's CPU self-test does not run it (too
    /// large or slow there); the model ignores it.
    #[serde(default)]
    pub selftest: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Buffer {
    pub name: String,
    pub bytes: Size,
    #[serde(default = "zero")]
    pub fill: String,
}

fn zero() -> String {
    "zero".into()
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Launch {
    pub kernel: String,
    pub grid: [Dim; 3],
    pub block: [u32; 3],
    #[serde(default)]
    pub shared_bytes: Shared,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub timed: bool,
    /// For a timed launch: how many times the model runs it first, keeping
    /// its L2 (the steady state of a kernel launched back to back).
    #[serde(default)]
    pub warmup: u32,
    /// An untimed launch that the model runs anyway (its time not
    /// counted), leaving its L2 to the next timed launch, as a GPU's L2
    /// keeps what an initialising kernel wrote.
    #[serde(default)]
    pub warms_l2: bool,
}

/// A grid extent: a number, or `"K*sm"`.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Dim {
    N(u32),
    Text(String),
}

/// A buffer's size in bytes: a number, or `"K*sm"`.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Size {
    N(u64),
    Text(String),
}

/// A launch's dynamic shared memory: bytes, or `"occupancy:K"` (enough that
/// at most K blocks fit on one SM of the GPU).
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Shared {
    N(u32),
    Text(String),
}

impl Default for Shared {
    fn default() -> Shared {
        Shared::N(0)
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Read {
    pub name: String,
    pub buffer: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub index: u64,
}

#[derive(Deserialize)]
struct PublishedFile {
    row: Vec<Row>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Row {
    pub id: String,
    pub gpu: String,
    pub preset: String,
    pub category: String,
    #[serde(default)]
    pub quantity: String,
    pub value: f64,
    pub unit: String,
    #[serde(default)]
    pub run: Option<String>,
    pub metric: Metric,
    #[serde(default)]
    pub source: String,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub clock_mhz: Option<f64>,
    #[serde(default)]
    pub setup: String,
    #[serde(default)]
    pub notes: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Metric {
    Bandwidth {
        bytes: Amount,
    },
    /// In `unit`, else the row's unit.
    Time {
        unit: Option<String>,
    },
    /// Per second, scaled by the prefix of `unit` (else the row's unit).
    Rate {
        count: Amount,
        unit: Option<String>,
    },
    Read {
        name: String,
        scale: Option<f64>,
    },
    Ratio {
        of: String,
        to: String,
    },
}

pub fn runs() -> Vec<Run> {
    let text = super::read(&dir().join("runs.toml"));
    let f: RunsFile = toml::from_str(&text).unwrap_or_else(|e| panic!("runs.toml: {e}"));
    f.run
}

pub fn rows() -> Vec<Row> {
    let path = dir().join("published.toml");
    if !path.exists() {
        return Vec::new();
    }
    let f: PublishedFile =
        toml::from_str(&super::read(&path)).unwrap_or_else(|e| panic!("published.toml: {e}"));
    f.row
}

/// What a run gave on the model.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The preset's SM count (for `"K*sm"` amounts).
    pub sms: u32,
    /// Sum of the timed launches' estimated times.
    pub seconds: f64,
    pub cycles: u64,
    pub reads: HashMap<String, f64>,
    pub reports: Vec<TimingReport>,
}

/// A device that runs runs one after the other (each run's PTX loaded
/// once), and the last run's buffers, to read back.
pub struct Session {
    pub dev: Device,
    modules: HashMap<String, ModuleId>,
    /// Per module: the issue costs of timed launches (its committed SASS
    /// sidecar, unless `WARPJIT_FIDELITY_COSTS=ptx`; the PTX model without
    /// one).
    costs: HashMap<String, Costs>,
    /// The last run's buffers: name to (device address, bytes).
    pub bufs: HashMap<String, (u64, u64)>,
}

impl Session {
    /// A device of `arena_bytes` of global memory.
    pub fn new(arena_bytes: u64) -> Session {
        Session {
            dev: Device::new(Options {
                arena_bytes,
                // A timed run of a large stream takes tens of seconds on a
                // loaded two-core machine: past the default limit.
                watchdog_time: Some(std::time::Duration::from_secs(3600)),
                ..Options::default()
            }),
            modules: HashMap::new(),
            costs: HashMap::new(),
            bufs: HashMap::new(),
        }
    }

    /// Runs `run` untimed (JIT, the timed launches too), with `arch`'s SM
    /// count and shared memory for `K*sm` and `occupancy:K`, after freeing
    /// the previous run's buffers.
    pub fn run(&mut self, run: &Run, arch: &Arch) -> Result<(), String> {
        self.execute(run, arch, None).map(|_| ())
    }

    /// The bytes of buffer `name`.
    pub fn bytes(&self, name: &str) -> Vec<u8> {
        let &(addr, len) = self
            .bufs
            .get(name)
            .unwrap_or_else(|| panic!("no buffer {name}"));
        let mut b = vec![0u8; len as usize];
        self.dev.read(addr, &mut b).unwrap();
        b
    }

    pub fn u32s(&self, name: &str) -> Vec<u32> {
        self.bytes(name)
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    pub fn f32s(&self, name: &str) -> Vec<f32> {
        self.u32s(name).into_iter().map(f32::from_bits).collect()
    }

    pub fn u64s(&self, name: &str) -> Vec<u64> {
        self.bytes(name)
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    pub fn f64s(&self, name: &str) -> Vec<f64> {
        self.u64s(name).into_iter().map(f64::from_bits).collect()
    }
}

/// `"K*sm"`: K times `sms`.
fn per_sm(t: &str, sms: u32) -> Option<u64> {
    t.strip_suffix("*sm")
        .and_then(|k| k.trim().parse::<u64>().ok())
        .map(|k| k * sms as u64)
}

fn extent(d: &Dim, sms: u32) -> Result<u32, String> {
    match d {
        Dim::N(n) => Ok(*n),
        Dim::Text(t) => per_sm(t, sms)
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| format!("grid extent {t:?}: a number or \"K*sm\"")),
    }
}

/// A buffer's size in bytes on a GPU of `sms` SMs.
pub fn buffer_bytes(b: &Buffer, sms: u32) -> Result<u64, String> {
    match &b.bytes {
        Size::N(n) => Ok(*n),
        Size::Text(t) => per_sm(t, sms)
            .ok_or_else(|| format!("buffer {}: bytes {t:?}: a number or \"K*sm\"", b.name)),
    }
}

/// The dynamic shared memory such that at most `k` blocks fit on one SM of
/// `arch` (`shared_bytes = "occupancy:K"`): each block's allocation (the
/// kernel's static shared memory, the dynamic part and the memory the system
/// reserves per block, rounded up to the allocation unit) is the smallest
/// above a (K+1)-th of the SM's shared memory. Checked against the
/// occupancy rules (`warpjit::timing::occupancy`): shared memory must
/// allow exactly K blocks.
pub fn occupancy_shared(
    arch: &Arch,
    k: u32,
    block_threads: u32,
    static_shared: u32,
) -> Result<u32, String> {
    let o = &arch.occupancy;
    if k == 0 {
        return Err("occupancy:0: K must be at least 1".into());
    }
    let unit = o.shared_alloc_unit.max(1) as u64;
    let per_block = (o.shared_per_sm as u64 / (k as u64 + 1) + 1).div_ceil(unit) * unit;
    let fixed = o.reserved_shared_per_block as u64 + static_shared as u64;
    let dynamic = per_block.saturating_sub(fixed);
    if dynamic + static_shared as u64 > o.shared_per_block as u64 {
        return Err(format!(
            "occupancy:{k} on {}: {} bytes of shared memory per block exceed the {} a block may have",
            arch.name,
            dynamic + static_shared as u64,
            o.shared_per_block
        ));
    }
    // More than the default per-block limit needs the kernel's opt-in,
    // which a timed launch assumes (as the driver requires it).
    let mut limits = arch.limits();
    if dynamic + static_shared as u64 > limits.shared_per_block as u64 {
        limits.shared_per_block = limits.shared_per_block.max(limits.shared_per_block_optin);
    }
    let occ = occupancy(
        &limits,
        &OccupancyInput {
            block_threads,
            regs_per_thread: 0,
            static_shared,
            dynamic_shared: dynamic as u32,
        },
    );
    if occ.limit_shared != k {
        return Err(format!(
            "occupancy:{k} on {}: {dynamic} bytes of dynamic shared memory per block let {} blocks fit by the occupancy rules, not {k}{}",
            arch.name,
            occ.limit_shared,
            ""
        ));
    }
    Ok(dynamic as u32)
}

fn shared_bytes(l: &Launch, arch: &Arch, static_shared: u32) -> Result<u32, String> {
    match &l.shared_bytes {
        Shared::N(n) => Ok(*n),
        Shared::Text(t) => {
            let k = t
                .strip_prefix("occupancy:")
                .and_then(|k| k.trim().parse::<u32>().ok())
                .ok_or_else(|| format!("shared_bytes {t:?}: a number or \"occupancy:K\""))?;
            occupancy_shared(arch, k, l.block.iter().product(), static_shared)
        }
    }
}

/// Fills `bytes` bytes at `addr` as `fill` says (`zero`: nothing to do, new
/// allocations are zeroed), in pieces of at most 16 MiB.
fn fill(dev: &Device, addr: u64, bytes: u64, fill: &str) -> Result<(), String> {
    const PIECE: u64 = 16 << 20;
    let pattern: Vec<u8> = match fill.split_once(':') {
        None if fill == "zero" => return Ok(()),
        Some(("iota", "u32")) => {
            if bytes % 4 != 0 {
                return Err(format!("fill {fill}: {bytes} bytes are not whole u32s"));
            }
            let mut at = 0;
            while at < bytes {
                let n = PIECE.min(bytes - at);
                let first = (at / 4) as u32;
                let v: Vec<u8> = (first..first + (n / 4) as u32)
                    .flat_map(|i| i.to_le_bytes())
                    .collect();
                dev.write(addr + at, &v).map_err(|e| e.to_string())?;
                at += n;
            }
            return Ok(());
        }
        Some(("u8", x)) => vec![x.parse::<u8>().map_err(|e| format!("{fill}: {e}"))?],
        Some(("u32", x)) => x
            .parse::<u32>()
            .map_err(|e| format!("{fill}: {e}"))?
            .to_le_bytes()
            .to_vec(),
        Some(("u64", x)) => x
            .parse::<u64>()
            .map_err(|e| format!("{fill}: {e}"))?
            .to_le_bytes()
            .to_vec(),
        Some(("f32", x)) => x
            .parse::<f32>()
            .map_err(|e| format!("{fill}: {e}"))?
            .to_le_bytes()
            .to_vec(),
        Some(("f64", x)) => x
            .parse::<f64>()
            .map_err(|e| format!("{fill}: {e}"))?
            .to_le_bytes()
            .to_vec(),
        _ => return Err(format!("fill {fill:?}: zero, TYPE:VALUE or iota:u32")),
    };
    if pattern.iter().all(|&b| b == 0) {
        return Ok(());
    }
    if bytes % pattern.len() as u64 != 0 {
        return Err(format!("fill {fill}: {bytes} bytes are not whole elements"));
    }
    let piece_len = PIECE.min(bytes) / pattern.len() as u64 * pattern.len() as u64;
    let piece: Vec<u8> = pattern
        .iter()
        .copied()
        .cycle()
        .take(piece_len as usize)
        .collect();
    let mut at = 0;
    while at < bytes {
        let n = piece_len.min(bytes - at) as usize;
        dev.write(addr + at, &piece[..n])
            .map_err(|e| e.to_string())?;
        at += n as u64;
    }
    Ok(())
}

/// Runs `run` on the timing model of `arch`; `regs` registers per thread
/// (estimated from the IR when `None`).
pub fn run_on(run: &Run, arch: &Arch, regs: Option<u32>) -> Result<Outcome, String> {
    Session::new(arena_for(run, arch)?).execute(run, arch, Some(regs))
}

/// Times `run` on `arch` as the hardware calibration kit measures it: the
/// whole run repeated back to back (a warm-up pass, then the timed
/// passes), so that each timed launch starts from the L2 its previous
/// repetition left. Modelled as one warm-up of each timed launch, the L2
/// carried from launch to launch.
pub fn run_steady(run: &Run, arch: &Arch, regs: Option<u32>) -> Result<Outcome, String> {
    let mut steady = run.clone();
    for l in steady.launch.iter_mut().filter(|l| l.timed) {
        l.warmup = l.warmup.max(1);
    }
    run_on(&steady, arch, regs)
}

/// Runs `run` untimed on a device of its own (see `Session::run`).
pub fn run_untimed(run: &Run, arch: &Arch) -> Result<Session, String> {
    let mut s = Session::new(arena_for(run, arch)?);
    s.run(run, arch)?;
    Ok(s)
}

/// Global memory enough for `run`'s buffers.
pub fn arena_for(run: &Run, arch: &Arch) -> Result<u64, String> {
    let mut total = 0;
    for b in &run.buffers {
        total += buffer_bytes(b, arch.chip.sm_count)?.div_ceil(256) * 256 + 256;
    }
    Ok((total + (64 << 20)).next_power_of_two())
}

impl Session {
    /// `timing`: `Some(regs)` to time the timed launches on `arch`.
    fn execute(
        &mut self,
        run: &Run,
        arch: &Arch,
        timing: Option<Option<u32>>,
    ) -> Result<Outcome, String> {
        let sms = arch.chip.sm_count;
        for (_, (addr, _)) in self.bufs.drain() {
            self.dev.free(addr).map_err(|e| e.to_string())?;
        }
        let dev = &mut self.dev;
        let m = match self.modules.get(&run.ptx) {
            Some(&m) => m,
            None => {
                let path = dir().join(&run.ptx);
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                let m = dev
                    .load_ptx(&run.ptx, &text)
                    .map_err(|e| format!("{}: {e}", run.ptx))?;
                self.modules.insert(run.ptx.clone(), m);
                let ptx_only = std::env::var("WARPJIT_FIDELITY_COSTS").is_ok_and(|v| v == "ptx");
                let costs = match warpjit::sass::read_sidecar(&path, &text) {
                    Ok(table) if !ptx_only => Costs::Sass(std::sync::Arc::new(table)),
                    Ok(_) => Costs::Ptx("WARPJIT_FIDELITY_COSTS=ptx".into()),
                    Err(e) => Costs::Ptx(e),
                };
                self.costs.insert(run.ptx.clone(), costs);
                m
            }
        };
        let bufs = &mut self.bufs;
        for b in &run.buffers {
            if bufs.contains_key(&b.name) {
                return Err(format!("buffer {} defined twice", b.name));
            }
            let bytes = buffer_bytes(b, sms)?;
            let addr = dev.alloc(bytes).map_err(|e| format!("{}: {e}", b.name))?;
            fill(dev, addr, bytes, &b.fill).map_err(|e| format!("buffer {}: {e}", b.name))?;
            bufs.insert(b.name.clone(), (addr, bytes));
        }
        let mut out = Outcome {
            sms,
            seconds: 0.0,
            cycles: 0,
            reads: HashMap::new(),
            reports: Vec::new(),
        };
        // The last launch left its L2 to the next (`Launch::warms_l2`).
        let mut warmed = false;
        for l in &run.launch {
            let k = dev
                .kernel(m, Some(&l.kernel))
                .map_err(|e| format!("{}: {e}", l.kernel))?;
            let static_shared = dev.ir(m).static_shared_of(k);
            let mut kargs = Vec::new();
            for a in &l.args {
                kargs.push(arg(a, bufs, sms)?);
            }
            let params = dev.params(m, k, &kargs).map_err(|e| e.to_string())?;
            let cfg = LaunchConfig {
                grid: [
                    extent(&l.grid[0], sms)?,
                    extent(&l.grid[1], sms)?,
                    extent(&l.grid[2], sms)?,
                ],
                block: l.block,
                shared_bytes: shared_bytes(l, arch, static_shared)
                    .map_err(|e| format!("{}: {e}", l.kernel))?,
            };
            match timing {
                Some(regs) if l.timed || l.warms_l2 => {
                    let mut t = TimingOptions::new(arch.clone());
                    t.regs = regs.map(|n| (n, "run".to_string()));
                    // As `--costs auto`: the sidecar where sm_80's SASS
                    // stands for the preset's machine code.
                    match self.costs.get(&run.ptx) {
                        Some(c) if arch.sm80_sass_applies() => t.costs = c.clone(),
                        Some(_) => t.costs = Costs::Ptx("auto: Tesla's ISA".into()),
                        None => {}
                    }
                    // Warm-up launches, and a launch that warms the L2,
                    // leave their L2 to the measured one.
                    t.keep_l2 = l.warmup > 0 || l.warms_l2 || warmed;
                    warmed = l.warms_l2;
                    for _ in 0..l.warmup {
                        dev.launch_timed(m, k, cfg, &params, &t)
                            .map_err(|e| format!("{}: {e}", l.kernel))?;
                    }
                    let (_, report) = dev
                        .launch_timed(m, k, cfg, &params, &t)
                        .map_err(|e| format!("{}: {e}", l.kernel))?;
                    if l.timed {
                        out.seconds += report.time_us() * 1e-6;
                        out.cycles += report.estimated_cycles;
                        out.reports.push(report);
                    }
                }
                _ => {
                    dev.launch(m, k, cfg, &params)
                        .map_err(|e| format!("{}: {e}", l.kernel))?;
                }
            }
        }
        for r in &run.read {
            let &(addr, bytes) = bufs
                .get(&r.buffer)
                .ok_or_else(|| format!("read {}: no buffer {}", r.name, r.buffer))?;
            let size = match r.ty.as_str() {
                "u32" | "s32" | "f32" => 4,
                "u64" | "s64" | "f64" => 8,
                t => return Err(format!("read {}: type {t}", r.name)),
            };
            if (r.index + 1) * size > bytes {
                return Err(format!(
                    "read {}: index {} past the buffer",
                    r.name, r.index
                ));
            }
            let mut b = vec![0u8; size as usize];
            dev.read(addr + r.index * size, &mut b)
                .map_err(|e| e.to_string())?;
            let v = match r.ty.as_str() {
                "u32" => u32::from_le_bytes(b[..4].try_into().unwrap()) as f64,
                "s32" => i32::from_le_bytes(b[..4].try_into().unwrap()) as f64,
                "f32" => f32::from_le_bytes(b[..4].try_into().unwrap()) as f64,
                "u64" => u64::from_le_bytes(b[..8].try_into().unwrap()) as f64,
                "s64" => i64::from_le_bytes(b[..8].try_into().unwrap()) as f64,
                _ => f64::from_le_bytes(b[..8].try_into().unwrap()),
            };
            out.reads.insert(r.name.clone(), v);
        }
        Ok(out)
    }
}

/// A launch argument of runs.toml (`buf:NAME[+BYTES]` or a scalar) as a kernel argument.
pub fn arg(a: &str, bufs: &HashMap<String, (u64, u64)>, sms: u32) -> Result<KernelArg, String> {
    if let Some(rest) = a.strip_prefix("buf:") {
        let (name, off) = match rest.split_once('+') {
            Some((n, o)) => (n, o.parse::<u64>().map_err(|e| format!("{a}: {e}"))?),
            None => (rest, 0),
        };
        let &(addr, _) = bufs
            .get(name)
            .ok_or_else(|| format!("{a}: no such buffer"))?;
        return Ok(KernelArg::Ptr(addr + off));
    }
    let text = match a.split_once(':') {
        Some((ty, v)) if v.ends_with("*sm") => {
            let k: u64 = v[..v.len() - 3].parse().map_err(|e| format!("{a}: {e}"))?;
            format!("{ty}:{}", k * sms as u64)
        }
        _ => a.to_string(),
    };
    match args::parse_arg(&text)? {
        args::ArgSpec::Scalar { bytes, .. } => Ok(KernelArg::Bytes(bytes)),
        _ => Err(format!("{a}: a run's arguments are buf:NAME or scalars")),
    }
}

/// The model's value of `row` from its run's outcome (not for ratios).
/// A count of bytes or operations: a number, or `"K*sm"` (K per SM of the
/// preset, for runs sized per SM).
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Amount {
    N(f64),
    Text(String),
}

impl Amount {
    pub fn eval(&self, sms: u32) -> Result<f64, String> {
        match self {
            Amount::N(n) => Ok(*n),
            Amount::Text(t) => t
                .strip_suffix("*sm")
                .and_then(|k| k.parse::<f64>().ok())
                .map(|k| k * sms as f64)
                .ok_or_else(|| format!("amount {t:?}: a number or \"K*sm\"")),
        }
    }
}

pub fn value(row: &Row, o: &Outcome) -> Result<f64, String> {
    Ok(match &row.metric {
        Metric::Bandwidth { bytes } => bytes.eval(o.sms)? / o.seconds / 1e9,
        Metric::Time { unit } => match unit.as_deref().unwrap_or(&row.unit) {
            "ms" => o.seconds * 1e3,
            "us" => o.seconds * 1e6,
            "s" => o.seconds,
            "cycles" => o.cycles as f64,
            u => return Err(format!("{}: time unit {u}", row.id)),
        },
        Metric::Rate { count, unit } => {
            let unit = unit.as_deref().unwrap_or(&row.unit);
            let scale = match unit.split('/').next().unwrap_or("") {
                u if u.starts_with('T') => 1e12,
                u if u.starts_with('G') => 1e9,
                u if u.starts_with('M') => 1e6,
                _ => 1.0,
            };
            count.eval(o.sms)? / o.seconds / scale
        }
        Metric::Read { name, scale } => {
            let v = o
                .reads
                .get(name)
                .ok_or_else(|| format!("{}: the run reads no {name}", row.id))?;
            v / scale.unwrap_or(1.0)
        }
        Metric::Ratio { .. } => return Err(format!("{}: a ratio has no run", row.id)),
    })
}

// ---- Helpers of the tests that run the runs -------------------------------------

/// The runs of runs.toml by name.
pub fn runs_by_name() -> HashMap<String, Run> {
    runs().into_iter().map(|r| (r.name.clone(), r)).collect()
}

/// A built-in preset.
pub fn arch(name: &str) -> Arch {
    Arch::builtin(name).unwrap()
}

/// Runs `name` untimed in `s`, as runs.toml has it, on a GPU like sm_80.
pub fn run_full(s: &mut Session, name: &str) {
    let run = runs_by_name()
        .remove(name)
        .unwrap_or_else(|| panic!("no run {name}"));
    s.run(&run, &arch("sm_80"))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
}

/// Little-endian bytes of doubles.
pub fn f64_bytes(v: impl IntoIterator<Item = f64>) -> Vec<u8> {
    v.into_iter().flat_map(f64::to_le_bytes).collect()
}

/// Little-endian bytes of floats.
pub fn f32_bytes(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(f32::to_le_bytes).collect()
}

/// The fidelity module on a fresh device, for the smaller problems.
pub struct Small {
    pub dev: Device,
    m: ModuleId,
}

impl Small {
    pub fn new() -> Small {
        let text = super::read(&dir().join("kernels.compute_80.ptx"));
        let mut dev = Device::new(Options {
            arena_bytes: 256 << 20,
            ..Options::default()
        });
        let m = dev.load_ptx("kernels.compute_80.ptx", &text).unwrap();
        Small { dev, m }
    }

    pub fn buf(&mut self, data: &[u8]) -> u64 {
        let a = self.dev.alloc(data.len() as u64).unwrap();
        self.dev.write(a, data).unwrap();
        a
    }

    pub fn zeros(&mut self, bytes: u64) -> u64 {
        self.dev.alloc(bytes).unwrap()
    }

    pub fn launch(
        &mut self,
        kernel: &str,
        grid: [u32; 3],
        block: [u32; 3],
        shared: u32,
        args: &[KernelArg],
    ) {
        let k = self.dev.kernel(self.m, Some(kernel)).unwrap();
        let params = self.dev.params(self.m, k, args).unwrap();
        let cfg = LaunchConfig {
            grid,
            block,
            shared_bytes: shared,
        };
        self.dev
            .launch(self.m, k, cfg, &params)
            .unwrap_or_else(|e| panic!("{kernel}: {e}"));
    }

    pub fn read(&self, addr: u64, bytes: usize) -> Vec<u8> {
        let mut b = vec![0u8; bytes];
        self.dev.read(addr, &mut b).unwrap();
        b
    }

    pub fn f64s(&self, addr: u64, n: usize) -> Vec<f64> {
        self.read(addr, 8 * n)
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    pub fn f32s(&self, addr: u64, n: usize) -> Vec<f32> {
        self.read(addr, 4 * n)
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    pub fn u64s(&self, addr: u64, n: usize) -> Vec<u64> {
        self.read(addr, 8 * n)
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
}
