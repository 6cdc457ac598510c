//! The fidelity runs (`ptx-samples/fidelity/runs.toml`) on the timing
//! model, and the model's value for each published measurement
//! (`ptx-samples/fidelity/published.toml`); formats in
//! `ptx-samples/fidelity/README.md`. Used by `benches/fidelity.rs` and the
//! timing tests.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;

use serde::Deserialize;
use warpjit::runtime::{args, Device, KernelArg, LaunchConfig, Options, TimingOptions};
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
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Buffer {
    pub name: String,
    pub bytes: u64,
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
    pub shared_bytes: u32,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub timed: bool,
}

/// A grid extent: a number, or `"K*sm"`.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Dim {
    N(u32),
    Text(String),
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
        bytes: f64,
    },
    /// In `unit`, else the row's unit.
    Time {
        unit: Option<String>,
    },
    /// Per second, scaled by the prefix of `unit` (else the row's unit).
    Rate {
        count: f64,
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
    /// Sum of the timed launches' estimated times.
    pub seconds: f64,
    pub cycles: u64,
    pub reads: HashMap<String, f64>,
    pub reports: Vec<TimingReport>,
}

fn extent(d: &Dim, sms: u32) -> Result<u32, String> {
    match d {
        Dim::N(n) => Ok(*n),
        Dim::Text(t) => t
            .strip_suffix("*sm")
            .and_then(|k| k.parse::<u32>().ok())
            .map(|k| k * sms)
            .ok_or_else(|| format!("grid extent {t:?}: a number or \"K*sm\"")),
    }
}

/// The bytes a `fill` spec gives a buffer of `bytes` bytes.
fn fill_bytes(fill: &str, bytes: u64) -> Result<Option<Vec<u8>>, String> {
    let n = bytes as usize;
    let pattern: Vec<u8> = match fill.split_once(':') {
        None if fill == "zero" => return Ok(None),
        Some(("iota", "u32")) => {
            let mut v = Vec::with_capacity(n);
            for i in 0..n.div_ceil(4) as u32 {
                v.extend_from_slice(&i.to_le_bytes());
            }
            v.truncate(n);
            return Ok(Some(v));
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
        return Ok(None);
    }
    Ok(Some(pattern.iter().copied().cycle().take(n).collect()))
}

/// Runs `run` on the timing model of `arch`; `regs` registers per thread
/// (estimated from the IR when `None`).
pub fn run_on(run: &Run, arch: &Arch, regs: Option<u32>) -> Result<Outcome, String> {
    let sms = arch.chip.sm_count;
    let total: u64 = run
        .buffers
        .iter()
        .map(|b| b.bytes.div_ceil(256) * 256)
        .sum();
    let mut dev = Device::new(Options {
        arena_bytes: (total + (64 << 20)).next_power_of_two(),
        ..Options::default()
    });
    let path = dir().join(&run.ptx);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let m = dev
        .load_ptx(&run.ptx, &text)
        .map_err(|e| format!("{}: {e}", run.ptx))?;
    let mut bufs = HashMap::new();
    for b in &run.buffers {
        let addr = dev.alloc(b.bytes).map_err(|e| format!("{}: {e}", b.name))?;
        match fill_bytes(&b.fill, b.bytes)? {
            Some(data) => dev.write(addr, &data).map_err(|e| e.to_string())?,
            None => dev.memset(addr, 0, b.bytes).map_err(|e| e.to_string())?,
        }
        bufs.insert(b.name.clone(), (addr, b.bytes));
    }
    let mut out = Outcome {
        seconds: 0.0,
        cycles: 0,
        reads: HashMap::new(),
        reports: Vec::new(),
    };
    for l in &run.launch {
        let k = dev
            .kernel(m, Some(&l.kernel))
            .map_err(|e| format!("{}: {e}", l.kernel))?;
        let mut kargs = Vec::new();
        for a in &l.args {
            kargs.push(arg(a, &bufs, sms)?);
        }
        let params = dev.params(m, k, &kargs).map_err(|e| e.to_string())?;
        let cfg = LaunchConfig {
            grid: [
                extent(&l.grid[0], sms)?,
                extent(&l.grid[1], sms)?,
                extent(&l.grid[2], sms)?,
            ],
            block: l.block,
            shared_bytes: l.shared_bytes,
        };
        if l.timed {
            let mut t = TimingOptions::new(arch.clone());
            t.regs = regs.map(|n| (n, "run".to_string()));
            let (_, report) = dev
                .launch_timed(m, k, cfg, &params, &t)
                .map_err(|e| format!("{}: {e}", l.kernel))?;
            out.seconds += report.time_us() * 1e-6;
            out.cycles += report.estimated_cycles;
            out.reports.push(report);
        } else {
            dev.launch(m, k, cfg, &params)
                .map_err(|e| format!("{}: {e}", l.kernel))?;
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

fn arg(a: &str, bufs: &HashMap<String, (u64, u64)>, sms: u32) -> Result<KernelArg, String> {
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
pub fn value(row: &Row, o: &Outcome) -> Result<f64, String> {
    Ok(match &row.metric {
        Metric::Bandwidth { bytes } => bytes / o.seconds / 1e9,
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
            count / o.seconds / scale
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
