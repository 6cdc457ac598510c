//! The command line's timing options (`warpjit run ... --timing ARCH`) and
//! how their report is printed.

use std::path::PathBuf;

use anyhow::{Context, Result};
use warpjit::runtime::TimingOptions;
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
    /// The timing options, or `None` when the launch is not timed.
    pub fn options(&self, kernel: &str) -> Result<Option<TimingOptions>> {
        let arch = match (&self.timing, &self.arch_file) {
            (Some(name), _) => Arch::builtin(name)?,
            (None, Some(path)) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                Arch::from_toml(&path.display().to_string(), &text)?
            }
            (None, None) => return Ok(None),
        };
        let mut t = TimingOptions::new(arch);
        t.sample_waves = self.sample_waves;
        if let Some(n) = self.regs {
            t.regs = Some((n, "--regs".into()));
        }
        if let Some(path) = &self.ptxas_log {
            let log = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let n = regs::from_ptxas_log(&log, kernel).with_context(|| {
                format!(
                    "{} has no `Used N registers` line for {kernel}",
                    path.display()
                )
            })?;
            t.regs = Some((n, "ptxas log".into()));
        }
        if let Some(list) = &self.diagram {
            for item in list.split(',') {
                let (cta, warp) = pair(item, "--diagram")?;
                t.diagram_warps.push((cta, warp as u32));
            }
        }
        if let Some(w) = &self.diagram_window {
            t.window = pair(w, "--diagram-window")?;
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
        if self.diagram.is_some() {
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
