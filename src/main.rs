//! The `warpjit` command line.
//!
//! `warpjit check FILE.ptx...` parses (later: lowers and verifies) modules and
//! prints their kernels; exit status 0 when every file is clean, 1 otherwise.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use warpjit::front::{self, ast, SourceFile};

#[derive(Parser)]
#[command(
    name = "warpjit",
    version,
    about = "Run, validate and time NVIDIA PTX kernels on a CPU"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse PTX files and list their kernels; exit 1 if any file has errors.
    Check {
        /// PTX files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print the module back as PTX instead of the summary.
        #[arg(long, value_enum)]
        emit: Option<Emit>,
        /// Print only errors.
        #[arg(long, short)]
        quiet: bool,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Emit {
    /// The parsed module printed back as PTX.
    Ptx,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Check { files, emit, quiet } => {
            let mut failed = 0usize;
            for path in &files {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                let source = SourceFile::new(path.display().to_string(), text);
                match front::parse(&source) {
                    Ok(module) => match emit {
                        Some(Emit::Ptx) => print!("{}", front::print::module_to_string(&module)),
                        None if !quiet => print_summary(&source, &module),
                        None => {}
                    },
                    Err(diags) => {
                        failed += 1;
                        eprintln!("{diags}");
                    }
                }
            }
            if files.len() > 1 && !quiet {
                println!("{} of {} files clean", files.len() - failed, files.len());
            }
            Ok(if failed == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
    }
}

fn print_summary(source: &SourceFile, module: &ast::Module) {
    println!(
        "{}: PTX {}.{}, target {}, {}-bit addresses",
        source.name(),
        module.version.0,
        module.version.1,
        module.target.arch,
        module.address_size
    );
    for f in module.kernels() {
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| {
                let dims: String = p
                    .dims
                    .iter()
                    .map(|d| format!("[{}]", d.unwrap_or(0)))
                    .collect();
                let ptr = if p.ptr.is_some() { " (pointer)" } else { "" };
                format!(".{} {}{dims}{ptr}", p.ty, p.name)
            })
            .collect();
        println!("  kernel {}({})", f.name, params.join(", "));
    }
    let funcs = module
        .functions()
        .filter(|f| f.kind == ast::FunctionKind::Func)
        .count();
    let vars = module.variables().count();
    println!("  {funcs} device functions, {vars} module-scope variables");
}
