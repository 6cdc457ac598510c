//! The command line's timing options (`warpjit run ... --timing ARCH`) and
//! how their report is printed.

use std::path::PathBuf;

use anyhow::{Context, Result};
use std::sync::Arc;

use warpjit::runtime::{Costs, TimingOptions};
use warpjit::sass;
use warpjit::timing::{diagram, regs, Arch, TimingReport};

#[derive(clap::Args, Default)]
pub struct TimingArgs {
    /// Time the launch with the cycle model of a built-in preset (sm_35 sm_52 sm_60 sm_61 sm_70 sm_75 sm_80 sm_86 sm_89 sm_90).
    #[arg(long, value_name = "ARCH")]
    pub timing: Option<String>,
    /// Time the launch with a preset file (see `warpjit preset`).
    #[arg(long, value_name = "PATH", conflicts_with = "timing")]
    pub arch_file: Option<PathBuf>,
    /// Registers per thread for occupancy (default: estimated from the PTX).
    #[arg(long, value_name = "N")]
    pub regs: Option<u32>,
    /// Take registers per thread from a `ptxas -v` log.
    #[arg(long, value_name = "PATH", conflicts_with = "regs")]
    pub ptxas_log: Option<PathBuf>,
    /// Print the timing report as JSON on stdout (after any printf output).
    #[arg(long)]
    pub json: bool,
    /// Simulate only the first N waves of CTAs and extrapolate.
    #[arg(long, value_name = "N")]
    pub sample_waves: Option<u32>,
    /// Draw an execution diagram of these warps: CTA:WARP[,CTA:WARP...] (CTA is the linear block index).
    #[arg(long, value_name = "LIST")]
    pub diagram: Option<String>,
    /// The diagram's cycle window: FROM:TO.
    #[arg(long, value_name = "FROM:TO")]
    pub diagram_window: Option<String>,
    /// Also write the diagram as a self-contained HTML/SVG page.
    #[arg(long, value_name = "PATH")]
    pub diagram_html: Option<PathBuf>,
    /// Issue costs: `sass` (ptxas's instructions per PTX line: ptxas and nvdisasm, else the sidecar FILE.ptx.sass.json), `ptx` (the PTX's), `auto` (SASS where available, from Fermi on: for the Tesla generation the PTX model).
    #[arg(long, value_enum, default_value_t = CostArg::Auto)]
    pub costs: CostArg,
    /// Start with the launch's input files in the L2, as a GPU's copy engines leave data just copied to the device (default: a cold L2).
    #[arg(long)]
    pub inputs_in_l2: bool,
}

/// `--costs`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum CostArg {
    #[default]
    Auto,
    Sass,
    Ptx,
}

fn pair(s: &str, what: &str) -> Result<(u64, u64)> {
    let (a, b) = s
        .split_once(':')
        .with_context(|| format!("{what}: expected A:B, got `{s}`"))?;
    Ok((
        a.trim().parse().with_context(|| format!("{what}: `{a}`"))?,
        b.trim().parse().with_context(|| format!("{what}: `{b}`"))?,
    ))
}

impl TimingArgs {
    /// The timing options, or `None` when the launch is not timed; `ptx`
    /// and `text` are the module's file and text (for its SASS).
    /// `grid` and `block` are the launch's (the diagram's warps must exist).
    pub fn options(
        &self,
        kernel: &str,
        ptx: &std::path::Path,
        text: &str,
        grid: [u32; 3],
        block: [u32; 3],
    ) -> Result<Option<TimingOptions>> {
        if self.timing.is_none() && self.arch_file.is_none() {
            let given = [
                ("--regs", self.regs.is_some()),
                ("--ptxas-log", self.ptxas_log.is_some()),
                ("--json", self.json),
                ("--sample-waves", self.sample_waves.is_some()),
                ("--diagram", self.diagram.is_some()),
                ("--diagram-window", self.diagram_window.is_some()),
                ("--diagram-html", self.diagram_html.is_some()),
                ("--inputs-in-l2", self.inputs_in_l2),
            ];
            if let Some((name, _)) = given.iter().find(|(_, on)| *on) {
                anyhow::bail!(
                    "{name} applies to timed launches: it needs --timing ARCH or --arch-file PATH"
                );
            }
        }
        if (self.diagram_window.is_some() || self.diagram_html.is_some()) && self.diagram.is_none()
        {
            anyhow::bail!("--diagram-window and --diagram-html need --diagram CTA:WARP,...");
        }
        let arch = match (&self.timing, &self.arch_file) {
            (Some(name), _) => Arch::builtin(name)?,
            (None, Some(path)) => {
                let text = crate::read_source(path)?;
                Arch::from_toml(&path.display().to_string(), &text)?
            }
            (None, None) => return Ok(None),
        };
        let mut t = TimingOptions::new(arch);
        let mode = match self.costs {
            CostArg::Auto => sass::CostMode::Auto,
            CostArg::Sass => sass::CostMode::Sass,
            CostArg::Ptx => sass::CostMode::Ptx,
        };
        t.costs = if mode == sass::CostMode::Auto && !t.arch.sm80_sass_applies() {
            Costs::Ptx(format!(
                "auto: sm_80's SASS does not stand for CC {}'s machine code",
                t.arch.compute_capability
            ))
        } else {
            let found = sass::resolve(Some(ptx), text, mode)?;
            match found.table {
                Some(table) => Costs::Sass(Arc::new(table)),
                None => Costs::Ptx(found.note),
            }
        };
        t.sample_waves = self.sample_waves;
        t.uploads_in_l2 = self.inputs_in_l2;
        if let Some(n) = self.regs {
            t.regs = Some((n, "--regs".into()));
        }
        if let Some(path) = &self.ptxas_log {
            let log = crate::read_source(path)?;
            let n = regs::from_ptxas_log(&log, kernel).with_context(|| {
                format!(
                    "{} has no `Used N registers` line for {kernel}",
                    path.display()
                )
            })?;
            t.regs = Some((n, "ptxas log".into()));
        }
        if let Some(list) = &self.diagram {
            let ctas = grid.iter().map(|&d| d as u64).product::<u64>();
            let warps = block
                .iter()
                .map(|&d| d as u64)
                .product::<u64>()
                .div_ceil(32);
            for item in list.split(',') {
                let (cta, warp) = pair(item, "--diagram")?;
                if cta >= ctas {
                    anyhow::bail!(
                        "--diagram {item}: the grid has {ctas} CTAs (linear indices 0 to {})",
                        ctas.saturating_sub(1)
                    );
                }
                if warp >= warps {
                    anyhow::bail!(
                        "--diagram {item}: a block of the launch has {warps} warps (0 to {})",
                        warps.saturating_sub(1)
                    );
                }
                t.diagram_warps.push((cta, warp as u32));
            }
        }
        if let Some(w) = &self.diagram_window {
            t.window = pair(w, "--diagram-window")?;
            if t.window.0 > t.window.1 {
                anyhow::bail!("--diagram-window {w}: the window is empty (FROM is above TO)");
            }
        }
        Ok(Some(t))
    }

    /// Prints the report (text on stderr, or JSON on stdout) and the diagram.
    pub fn print(&self, report: &TimingReport, source_line: &dyn Fn(u32) -> String) -> Result<()> {
        if self.json {
            println!("{}", serde_json::to_string_pretty(&report.to_json())?);
        } else {
            eprint!("{}", report.to_text(source_line));
        }
        if let Some(list) = &self.diagram {
            if report.events.is_empty() {
                let window = match &self.diagram_window {
                    Some(w) => format!(" in the cycle window {w}"),
                    None => String::new(),
                };
                anyhow::bail!(
                    "--diagram {list}: no instruction of these warps issued{window} (the launch ran {} cycles{})",
                    report.cycles,
                    if report.estimated_cycles != report.cycles { ", sampled" } else { "" }
                );
            }
            eprint!("{}", diagram::text(&report.events));
            if let Some(path) = &self.diagram_html {
                let title = format!("warpjit execution diagram ({})", report.arch);
                std::fs::write(path, diagram::html(&title, &report.events))
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
        }
        Ok(())
    }
}

/// `warpjit sass FILE...`: each file's SASS summary (and its sidecar with
/// `write`); exit status 1 when a file could not be compiled.
pub fn sass(files: &[PathBuf], write: bool, disasm: bool) -> Result<std::process::ExitCode> {
    let tools = sass::tools::discover().map_err(anyhow::Error::msg)?;
    let mut failed = 0;
    for path in files {
        let text = crate::read_source(path)?;
        let name = path.display().to_string();
        if disasm {
            let source = warpjit::front::SourceFile::new(name.clone(), text);
            let module = warpjit::front::parse(&source).map_err(|d| anyhow::anyhow!("{d}"))?;
            match sass::compile(&source, &module, &tools) {
                Ok(c) => print!("{}", c.disassembly),
                Err(e) => {
                    failed += 1;
                    println!("{name}: skipped: {e}");
                }
            }
            continue;
        }
        match sass::generate(&name, &text, &tools) {
            Ok(table) => {
                let kernels: Vec<String> = table
                    .kernels
                    .iter()
                    .map(|(k, v)| match v.regs {
                        Some(r) => format!("{k} ({r} registers)"),
                        None => k.clone(),
                    })
                    .collect();
                println!(
                    "{name}: SASS {} (ptxas {}), {} instructions ({} unattributed) on {} PTX lines; {}",
                    table.arch,
                    table.ptxas,
                    table.instructions,
                    table.unattributed,
                    table.lines.len(),
                    kernels.join(", ")
                );
                if write {
                    let out = sass::sidecar_path(path);
                    std::fs::write(&out, sass::sidecar::to_json(&table))
                        .with_context(|| format!("cannot write {}", out.display()))?;
                }
            }
            Err(e) => {
                failed += 1;
                println!("{name}: skipped: {e}");
            }
        }
    }
    Ok(if failed == 0 {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    })
}
