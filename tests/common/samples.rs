//! Running a corpus sample through the library API and checking it against
//! its CPU reference (shared by the sample tests and, later, the JIT's).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use warpjit::front::DiagnosticKind;
use warpjit::runtime::{args, Device, Engine, LaunchConfig, Options, TimingOptions};
use warpjit::Error;

/// How one PTX file of a sample fared.
#[derive(Debug)]
pub enum Outcome {
    Pass,
    /// The module uses instructions warpjit does not implement yet (listed).
    Unsupported(Vec<String>),
    Fail(String),
}

pub struct Sample {
    pub dir: PathBuf,
    pub spec: serde_json::Value,
}

impl Sample {
    pub fn load(dir: &Path) -> Sample {
        let spec =
            serde_json::from_str(&super::read(&dir.join("sample.json"))).expect("sample.json");
        Sample {
            dir: dir.to_path_buf(),
            spec,
        }
    }

    /// Every corpus sample whose name contains `filter` (all without one),
    /// in path order.
    pub fn matching(filter: Option<&str>) -> Vec<Sample> {
        super::sample_dirs()
            .iter()
            .map(|d| Sample::load(d))
            .filter(|s| filter.is_none_or(|f| s.name().contains(f)))
            .collect()
    }

    pub fn name(&self) -> String {
        let root = super::repo_root().join("ptx-samples");
        self.dir
            .strip_prefix(root)
            .unwrap_or(&self.dir)
            .display()
            .to_string()
    }

    pub fn ptx_files(&self) -> Vec<PathBuf> {
        self.spec["ptx"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| self.dir.join(p.as_str().unwrap()))
            .collect()
    }

    /// The sample runs in thread-block clusters: a launch-time `"cluster"`
    /// shape, or a kernel that declares one (`.reqnctapercluster`). Timed
    /// launches have no clusters.
    #[allow(dead_code)]
    pub fn clustered(&self) -> bool {
        !self.spec["cluster"].is_null()
            || self
                .ptx_files()
                .iter()
                .any(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains(".reqnctapercluster")))
    }

    fn strings(&self, key: &str) -> Vec<String> {
        self.spec[key]
            .as_array()
            .into_iter()
            .flatten()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    }

    fn dim3(&self, key: &str) -> [u32; 3] {
        let v: Vec<u32> = self.spec[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as u32)
            .collect();
        [v[0], v[1], v[2]]
    }

    /// Runs one PTX file of the sample and checks everything it expects.
    /// Runs the sample on `engine` and checks it against its references;
    /// also returns everything the run produced, for comparing engines.
    pub fn run(&self, ptx: &Path, engine: Engine) -> (Outcome, Observed) {
        self.run_with(ptx, engine, None)
    }

    /// As [`Sample::run`], timed by the cycle model when `timing` is given
    /// (its report lands in `Observed::timing`).
    pub fn run_with(
        &self,
        ptx: &Path,
        engine: Engine,
        timing: Option<&TimingOptions>,
    ) -> (Outcome, Observed) {
        let out_dir = std::env::temp_dir().join(format!(
            "warpjit-sample-{}-{}-{engine:?}-{}",
            std::process::id(),
            self.name().replace('/', "-"),
            timing.is_some()
        ));
        let mut observed = Observed::default();
        let result = self.run_in(ptx, &out_dir, engine, timing, &mut observed);
        let _ = std::fs::remove_dir_all(&out_dir);
        match result {
            Ok(o) => (o, observed),
            Err(e) => (Outcome::Fail(e), observed),
        }
    }

    fn run_in(
        &self,
        ptx: &Path,
        out_dir: &Path,
        engine: Engine,
        timing: Option<&TimingOptions>,
        observed: &mut Observed,
    ) -> Result<Outcome, String> {
        let mut dev = Device::new(Options {
            arena_bytes: 256 << 20,
            engine,
            // CTAs in grid order, so float atomics across CTAs sum in the
            // same order on both engines.
            sequential: true,
            ..Options::default()
        });
        let text = super::read(ptx);
        let m = match dev.load_ptx(&ptx.display().to_string(), &text) {
            Ok(m) => m,
            Err(Error::Module(d))
                if d.items
                    .iter()
                    .all(|i| i.kind == DiagnosticKind::Unsupported) =>
            {
                let mut what: Vec<String> = d.items.iter().map(|i| i.message.clone()).collect();
                what.sort();
                what.dedup();
                return Ok(Outcome::Unsupported(what));
            }
            Err(e) => return Err(format!("load: {e}")),
        };
        let kernel = dev
            .kernel(m, self.spec["kernel"].as_str())
            .map_err(|e| e.to_string())?;
        // A kernel that reaches a construct warpjit does not execute loads
        // with its module; its launches are refused.
        if let Some(d) = dev.unsupported(m, kernel) {
            let mut what: Vec<String> = d.items.iter().map(|i| i.message.clone()).collect();
            what.sort();
            what.dedup();
            return Ok(Outcome::Unsupported(what));
        }
        let specs = self
            .strings("args")
            .iter()
            .map(|s| args::parse_arg(s))
            .collect::<Result<Vec<_>, _>>()?;
        std::fs::create_dir_all(out_dir).map_err(|e| e.to_string())?;
        let prepared = args::prepare(&mut dev, m, kernel, &specs, &self.dir, out_dir)
            .map_err(|e| e.to_string())?;
        for g in self.strings("globals") {
            let (name, path) = g.split_once('=').unwrap();
            let (addr, size) = dev.global(m, name).map_err(|e| e.to_string())?;
            let data = std::fs::read(self.dir.join(path)).map_err(|e| e.to_string())?;
            if data.len() as u64 != size {
                return Err(format!(
                    "global {name} is {size} bytes, {path} is {}",
                    data.len()
                ));
            }
            dev.write(addr, &data).map_err(|e| e.to_string())?;
        }
        let cfg = LaunchConfig {
            grid: self.dim3("grid"),
            block: self.dim3("block"),
            shared_bytes: self.spec["shared_bytes"].as_u64().unwrap_or(0) as u32,
        };
        let result = match timing {
            Some(t) => dev
                .launch_timed(m, kernel, cfg, &prepared.params, t)
                .map(|(r, t)| {
                    observed.timing = Some(t);
                    r
                }),
            // "cooperative": all blocks resident at once (grid-wide sync).
            None if self.spec["cooperative"].as_bool() == Some(true) => {
                dev.launch_cooperative(m, kernel, cfg, &prepared.params, u64::MAX)
            }
            // "cluster": [x, y, z], a launch in thread-block clusters.
            None if !self.spec["cluster"].is_null() => {
                let cluster = warpjit::runtime::ClusterLaunch {
                    dims: self.dim3("cluster"),
                    non_portable: false,
                };
                dev.launch_cluster(m, kernel, cfg, &prepared.params, cluster)
            }
            None => dev.launch(m, kernel, cfg, &prepared.params),
        };
        if let Err(e) = &result {
            observed.error = Some(e.to_string());
        }
        if let Some(expect) = self.spec.get("expect_error").filter(|v| !v.is_null()) {
            let kind = expect["kind"].as_str().unwrap();
            let contains = expect["contains"].as_str().unwrap_or("");
            return match result {
                Ok(_) => Err(format!("expected a `{kind}` error, the launch succeeded")),
                Err(Error::Launch(e))
                    if e.kind.name() == kind && e.to_string().contains(contains) =>
                {
                    Ok(Outcome::Pass)
                }
                Err(e) => Err(format!(
                    "expected a `{kind}` error containing `{contains}`, got: {e}"
                )),
            };
        }
        let report = result.map_err(|e| e.to_string())?;
        observed.elapsed = report.elapsed;
        args::write_outputs(&dev, &prepared).map_err(|e| e.to_string())?;
        for g in self.strings("globals_out") {
            let (name, path) = g.split_once('=').unwrap();
            let (addr, size) = dev.global(m, name).map_err(|e| e.to_string())?;
            let mut buf = vec![0u8; size as usize];
            dev.read(addr, &mut buf).map_err(|e| e.to_string())?;
            std::fs::write(out_dir.join(path), &buf).map_err(|e| e.to_string())?;
        }
        let mut problems = Vec::new();
        for e in self.spec["expect"].as_array().into_iter().flatten() {
            let got = std::fs::read(out_dir.join(e["file"].as_str().unwrap()))
                .map_err(|e| e.to_string())?;
            let want = std::fs::read(self.dir.join(e["reference"].as_str().unwrap()))
                .map_err(|e| e.to_string())?;
            observed
                .outputs
                .push((e["file"].as_str().unwrap().to_string(), got.clone()));
            if let Err(p) = compare(
                e["type"].as_str().unwrap(),
                &got,
                &want,
                e["abs_tol"].as_f64().unwrap_or(0.0),
                e["rel_tol"].as_f64().unwrap_or(0.0),
            ) {
                problems.push(format!("{}: {p}", e["file"].as_str().unwrap()));
            }
        }
        observed.printf = report.printf.clone();
        if let Some(stdout) = self.spec["stdout"].as_str() {
            let want = super::read(&self.dir.join(stdout));
            if report.printf != want {
                problems.push(format!(
                    "printf output differs:\n--- got\n{}--- want\n{want}",
                    report.printf
                ));
            }
        }
        if problems.is_empty() {
            Ok(Outcome::Pass)
        } else {
            Err(problems.join("\n"))
        }
    }
}

/// Everything a run produced: output files' bytes, printf text, the error
/// (and the timing report of a timed run, which equality ignores).
#[derive(Debug, Default)]
pub struct Observed {
    pub outputs: Vec<(String, Vec<u8>)>,
    pub printf: String,
    pub error: Option<String>,
    pub timing: Option<warpjit::timing::TimingReport>,
    /// Wall time of the launch (compilation excluded).
    pub elapsed: std::time::Duration,
}

impl PartialEq for Observed {
    fn eq(&self, other: &Observed) -> bool {
        (&self.outputs, &self.printf, &self.error) == (&other.outputs, &other.printf, &other.error)
    }
}

fn float_of(ty: &str, b: &[u8]) -> f64 {
    match ty {
        "f16" => half::f16::from_le_bytes([b[0], b[1]]).to_f64(),
        "bf16" => half::bf16::from_le_bytes([b[0], b[1]]).to_f64(),
        "f32" => f32::from_le_bytes(b.try_into().unwrap()) as f64,
        _ => f64::from_le_bytes(b.try_into().unwrap()),
    }
}

/// Compares two arrays of `ty`: integers bit-exactly, floats within tolerance
/// (NaN matches NaN). Reports the first few mismatches.
pub fn compare(
    ty: &str,
    got: &[u8],
    want: &[u8],
    abs_tol: f64,
    rel_tol: f64,
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} bytes, expected {}", got.len(), want.len()));
    }
    let size = match ty {
        "u8" | "s8" => 1,
        "u16" | "s16" | "f16" | "bf16" => 2,
        "u32" | "s32" | "f32" => 4,
        _ => 8,
    };
    let float = matches!(ty, "f16" | "bf16" | "f32" | "f64");
    let mut bad = Vec::new();
    let mut count = 0;
    for (i, (g, w)) in got.chunks(size).zip(want.chunks(size)).enumerate() {
        let ok = if float {
            let (g, w) = (float_of(ty, g), float_of(ty, w));
            (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= abs_tol + rel_tol * w.abs()
        } else {
            g == w
        };
        if !ok {
            count += 1;
            if bad.len() < 5 {
                let show = |b: &[u8]| {
                    if float {
                        format!("{}", float_of(ty, b))
                    } else {
                        let mut v = [0u8; 8];
                        v[..b.len()].copy_from_slice(b);
                        format!("{:#x}", u64::from_le_bytes(v))
                    }
                };
                bad.push(format!("[{i}] got {} want {}", show(g), show(w)));
            }
        }
    }
    if count == 0 {
        Ok(())
    } else {
        Err(format!(
            "{count} of {} elements differ: {}",
            got.len() / size,
            bad.join(", ")
        ))
    }
}
