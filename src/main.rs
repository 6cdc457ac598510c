//! The `warpjit` command line.
//!
//! `warpjit check FILE.ptx...` parses, lowers and verifies modules and prints
//! their kernels; exit status 0 when every file is clean, 1 otherwise.
//! `warpjit run FILE.ptx ...` launches a kernel with real arguments and memory.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use warpjit::front::{self, ast, SourceFile};

mod timing_cli;

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
    /// Parse, lower, verify and JIT-compile PTX files and list their kernels; exit 1 if any file has errors.
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
    /// Launch a kernel: `warpjit run k.ptx --grid 4 --block 256 --arg in:a.bin --arg out:4096:c.bin --arg u32:1024`.
    Run(Box<RunArgs>),
    /// Compile PTX files with ptxas and disassemble them with nvdisasm: SASS per PTX line for `--costs sass`.
    Sass {
        /// PTX files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Write each file's table beside it (`FILE.ptx.sass.json`), as the corpus commits them.
        #[arg(long)]
        write: bool,
        /// Print the disassembly (`nvdisasm -c -g`: SASS with the PTX line of each group) instead.
        #[arg(long, conflicts_with = "write")]
        disasm: bool,
    },
    /// Print a built-in timing preset (TOML) to copy and edit for `--arch-file`.
    Preset {
        /// sm_35 sm_52 sm_60 sm_61 sm_70 sm_75 sm_80 sm_86 sm_89 sm_90.
        name: String,
    },
    /// Occupancy calculator: resident blocks and warps per SM and what limits them.
    Occupancy {
        /// Architecture: sm_35 sm_52 sm_60 sm_61 sm_70 sm_75 sm_80 sm_86 sm_89 sm_90.
        #[arg(long)]
        arch: String,
        /// Threads per block.
        #[arg(long)]
        block: u32,
        /// Registers per thread (from `ptxas -v`).
        #[arg(long)]
        regs: u32,
        /// Static shared memory per block, in bytes.
        #[arg(long, default_value_t = 0)]
        shared: u32,
        /// Dynamic shared memory per block, in bytes.
        #[arg(long, default_value_t = 0)]
        dynamic_shared: u32,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(clap::Args)]
struct RunArgs {
    /// The PTX module.
    file: PathBuf,
    /// A cooperative launch: every block resident at once, so blocks may
    /// wait for each other (cooperative groups' `this_grid().sync()`); a
    /// grid larger than an sm_80 device holds at once (108 SMs times the
    /// kernel's occupancy) is refused. Untimed runs only.
    #[arg(long, conflicts_with_all = ["timing", "arch_file"])]
    cooperative: bool,
    /// Thread-block clusters of X[,Y[,Z]] CTAs (sm_90 and later: the
    /// module's `.target`): the grid must be a whole number of clusters of
    /// at most 8 CTAs (16 with --non-portable-cluster). Untimed runs only.
    #[arg(long, value_parser = parse_dim3, conflicts_with_all = ["timing", "arch_file", "cooperative"])]
    cluster: Option<[u32; 3]>,
    /// Allow clusters of up to 16 CTAs (CUDA's non-portable cluster size).
    #[arg(long, requires = "cluster")]
    non_portable_cluster: bool,
    /// The kernel: its PTX name, its C++ name (`MatrixMulCUDA<32>`) or a
    /// base name only one kernel has (`MatrixMulCUDA`); may be left out
    /// when the module has one.
    #[arg(long)]
    kernel: Option<String>,
    /// Grid size: X[,Y[,Z]].
    #[arg(long, value_parser = parse_dim3)]
    grid: [u32; 3],
    /// Block size: X[,Y[,Z]].
    #[arg(long, value_parser = parse_dim3)]
    block: [u32; 3],
    /// Dynamic shared memory per block, in bytes.
    #[arg(long, default_value_t = 0)]
    shared: u32,
    /// A kernel argument, once per parameter in order: TYPE:VALUE, in:PATH,
    /// out:BYTES:PATH, inout:PATH_IN:PATH_OUT or bytes:PATH.
    #[arg(long = "arg", value_name = "SPEC")]
    args: Vec<String>,
    /// Fill a module-scope variable from a file before the launch: NAME=PATH.
    #[arg(long = "global", value_name = "NAME=PATH")]
    globals: Vec<String>,
    /// Write a module-scope variable to a file after the launch: NAME=PATH.
    #[arg(long = "global-out", value_name = "NAME=PATH")]
    globals_out: Vec<String>,
    /// The execution engine.
    #[arg(long, value_enum, default_value_t = Engine::Jit)]
    engine: Engine,
    /// Stop the kernel after this many warp-instructions.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    watchdog_instructions: Option<u64>,
    /// Stop the kernel after this many seconds (default: WARPJIT_WATCHDOG_SECONDS, else 60).
    #[arg(long, value_name = "SECONDS", value_parser = warpjit::runtime::parse_seconds)]
    watchdog_seconds: Option<std::time::Duration>,
    /// Bytes of printf output the launch may produce (CUDA's printf FIFO);
    /// what overflows is dropped, with a warning.
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 20)]
    printf_buffer: u64,
    /// Print launch statistics to stderr.
    #[arg(long)]
    stats: bool,
    /// Run the sanitizer's checks: memcheck, racecheck, initcheck,
    /// synccheck or all (comma-separated or repeated). The launch runs on
    /// the interpreter; reports go to stderr, and any report makes the exit
    /// status 1.
    #[arg(long = "check", value_name = "CHECKS", value_parser = warpjit::sanitizer::Checks::parse)]
    checks: Vec<warpjit::sanitizer::Checks>,
    #[command(flatten)]
    timing: timing_cli::TimingArgs,
}

fn parse_dim3(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{s}`: expected X[,Y[,Z]]"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .trim()
            .parse()
            .map_err(|_| format!("`{p}` is not a positive integer"))?;
    }
    Ok(d)
}

/// Largest PTX file `check`, `run` and `sass` read.
const MAX_SOURCE_BYTES: u64 = 256 << 20;

/// Reads a file of at most `limit` bytes, refusing what is not a regular
/// file (a device, a pipe, a directory) before reading it.
fn read_limited(path: &std::path::Path, limit: u64) -> Result<Vec<u8>> {
    use std::io::Read;
    let cannot = || format!("cannot read {}", path.display());
    let meta = std::fs::metadata(path).with_context(cannot)?;
    if !meta.is_file() {
        anyhow::bail!("cannot read {}: not a regular file", path.display());
    }
    let too_large = |n: u64| {
        anyhow::anyhow!(
            "cannot read {}: {n} bytes is above the limit of {limit} bytes",
            path.display()
        )
    };
    if meta.len() > limit {
        return Err(too_large(meta.len()));
    }
    let mut data = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path)
        .and_then(|f| f.take(limit + 1).read_to_end(&mut data))
        .with_context(cannot)?;
    if data.len() as u64 > limit {
        return Err(too_large(data.len() as u64));
    }
    Ok(data)
}

/// Reads a text file (at most [`MAX_SOURCE_BYTES`]).
fn read_source(path: &std::path::Path) -> Result<String> {
    let data = read_limited(path, MAX_SOURCE_BYTES)?;
    utf8_source(path, data).map_err(anyhow::Error::msg)
}

/// A file's bytes as text, or an error naming the line and column of the
/// first byte that is not UTF-8.
fn utf8_source(path: &std::path::Path, data: Vec<u8>) -> std::result::Result<String, String> {
    String::from_utf8(data).map_err(|e| {
        // Name the line and column (in bytes) of the first bad byte.
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        let start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        format!(
            "{}:{line}:{}: error: the file is not UTF-8 text (byte {:#04x})",
            path.display(),
            at - start + 1,
            bytes[at]
        )
    })
}

fn name_path(s: &str) -> Result<(&str, PathBuf)> {
    let (n, p) = s
        .split_once('=')
        .ok_or_else(|| anyhow::anyhow!("`{s}`: expected NAME=PATH"))?;
    Ok((n, PathBuf::from(p)))
}

fn run_kernel(a: RunArgs) -> Result<ExitCode> {
    use warpjit::runtime::{args, Device, LaunchConfig, Options};
    let text = match utf8_source(&a.file, read_limited(&a.file, MAX_SOURCE_BYTES)?) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("{e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let mut options = Options {
        engine: match a.engine {
            Engine::Interp => warpjit::runtime::Engine::Interp,
            Engine::Jit => warpjit::runtime::Engine::Jit,
        },
        printf_buffer_bytes: a.printf_buffer,
        checks: a
            .checks
            .iter()
            .fold(Default::default(), |all, c| all.union(*c)),
        ..Options::default()
    };
    if let Some(n) = a.watchdog_instructions {
        options.watchdog_instructions = n;
    }
    let from_env = || warpjit::runtime::watchdog_time_from_env().map_err(anyhow::Error::msg);
    if let Some(t) = a.watchdog_seconds.map_or_else(from_env, |t| Ok(Some(t)))? {
        options.watchdog_time = Some(t);
    }
    let mut dev = Device::new(options);
    let m = match dev.load_ptx(&a.file.display().to_string(), &text) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let kernel = dev.find_kernel(m, a.kernel.as_deref())?;
    let specs = a
        .args
        .iter()
        .map(|s| args::parse_arg(s))
        .collect::<std::result::Result<Vec<_>, String>>()
        .map_err(anyhow::Error::msg)?;
    let here = std::path::Path::new(".");
    let prepared = args::prepare(&mut dev, m, kernel, &specs, here, here)?;
    for g in &a.globals {
        let (name, path) = name_path(g)?;
        let (addr, size) = dev.global(m, name)?;
        let data = read_limited(&path, size)?;
        if data.len() as u64 != size {
            anyhow::bail!(
                "--global {name}: the variable is {size} bytes, {} is {} bytes",
                path.display(),
                data.len()
            );
        }
        dev.write(addr, &data)?;
    }
    let mut globals_out = Vec::new();
    for g in &a.globals_out {
        let (name, path) = name_path(g)?;
        globals_out.push((dev.global(m, name)?, path));
    }
    let cfg = LaunchConfig {
        grid: a.grid,
        block: a.block,
        shared_bytes: a.shared,
    };
    let kernel_name = dev.ir(m).functions[kernel].name.clone();
    let timing = a
        .timing
        .options(&kernel_name, &a.file, &text, cfg.grid, cfg.block)?;
    let result = match &timing {
        None if a.cooperative => {
            let arch = warpjit::timing::Arch::builtin("sm_80").map_err(anyhow::Error::msg)?;
            let ir = dev.ir(m);
            let input = warpjit::timing::occupancy::OccupancyInput {
                block_threads: cfg.block.iter().product(),
                regs_per_thread: warpjit::timing::regs::estimate(ir, kernel),
                static_shared: ir.static_shared_of(kernel),
                dynamic_shared: cfg.shared_bytes,
            };
            let per_sm = warpjit::timing::occupancy::occupancy(&arch.limits(), &input)
                .active_blocks_per_sm as u64;
            let resident = per_sm * arch.chip.sm_count as u64;
            dev.launch_cooperative(m, kernel, cfg, &prepared.params, resident)
                .map(|r| (r, None))
        }
        None if a.cluster.is_some() => {
            let cluster = warpjit::runtime::ClusterLaunch {
                dims: a.cluster.unwrap(),
                non_portable: a.non_portable_cluster,
            };
            dev.launch_cluster(m, kernel, cfg, &prepared.params, cluster)
                .map(|r| (r, None))
        }
        Some(t) => dev
            .launch_timed(m, kernel, cfg, &prepared.params, t)
            .map(|(r, t)| (r, Some(t))),
        None => dev
            .launch(m, kernel, cfg, &prepared.params)
            .map(|r| (r, None)),
    };
    let reports = dev.take_reports();
    if dev.checks().any() {
        for r in &reports {
            eprint!("{r}");
        }
        eprintln!("{}", warpjit::sanitizer::summary(reports.len()));
    }
    let status = |ok: bool| {
        if ok && reports.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    };
    match result {
        Ok((report, timed)) => {
            print!("{}", report.printf);
            if report.printf_dropped > 0 {
                eprintln!(
                    "warpjit: the printf buffer ({} bytes, --printf-buffer) is full: the output of {} printf calls was dropped",
                    a.printf_buffer, report.printf_dropped
                );
            }
            args::write_outputs(&dev, &prepared)?;
            for ((addr, size), path) in globals_out {
                let mut buf = vec![0u8; size as usize];
                dev.read(addr, &mut buf)?;
                std::fs::write(&path, &buf)
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            if a.stats {
                let secs = report.elapsed.as_secs_f64();
                eprintln!(
                    "warpjit: {} warp-instructions ({} thread-instructions) in {:.3} ms, {:.1} M thread-instructions/s ({:?} engine)",
                    report.warp_instructions,
                    report.thread_instructions,
                    secs * 1e3,
                    report.thread_instructions as f64 / secs.max(1e-9) / 1e6,
                    a.engine
                );
                if a.engine == Engine::Jit {
                    eprintln!(
                        "warpjit: JIT compile time {:.3} ms",
                        report.compile_time.as_secs_f64() * 1e3
                    );
                }
            }
            if let Some(t) = timed {
                let source = SourceFile::new(a.file.display().to_string(), text.clone());
                a.timing
                    .print(&t, &|line| source.line_text(line as usize).to_string())?;
            }
            Ok(status(true))
        }
        Err(e) => {
            eprintln!("error: {e}");
            Ok(status(false))
        }
    }
}

/// The execution engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Engine {
    /// The reference interpreter.
    Interp,
    /// The Cranelift JIT.
    Jit,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Emit {
    /// The parsed module printed back as PTX.
    Ptx,
    /// The lowered micro-op IR in its text form.
    Ir,
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
        Command::Run(a) => run_kernel(*a),
        Command::Sass {
            files,
            write,
            disasm,
        } => timing_cli::sass(&files, write, disasm),
        Command::Preset { name } => match warpjit::timing::arch::Arch::builtin_text(&name) {
            Some(text) => {
                print!("{text}");
                Ok(ExitCode::SUCCESS)
            }
            None => Err(warpjit::timing::Arch::builtin(&name).unwrap_err().into()),
        },
        Command::Occupancy {
            arch,
            block,
            regs,
            shared,
            dynamic_shared,
            json,
        } => {
            use warpjit::timing::occupancy::{occupancy, GpuLimits, OccupancyInput, BUILTIN};
            let board = || {
                warpjit::timing::Arch::builtin(&arch)
                    .ok()
                    .map(|a| a.limits())
            };
            let Some(g) = GpuLimits::builtin(&arch).or_else(board) else {
                let names: Vec<&str> = BUILTIN.iter().map(|g| g.name).collect();
                anyhow::bail!("unknown architecture `{arch}`; known: {}", names.join(" "));
            };
            if block == 0 || block > g.max_threads_per_block {
                anyhow::bail!(
                    "--block {block}: a block has 1 to {} threads on {arch}",
                    g.max_threads_per_block
                );
            }
            let input = OccupancyInput {
                block_threads: block,
                regs_per_thread: regs,
                static_shared: shared,
                dynamic_shared,
            };
            let o = occupancy(&g, &input);
            let limiters: Vec<String> = o.limiters.iter().map(|l| l.to_string()).collect();
            if json {
                let v = serde_json::json!({
                    "arch": arch,
                    "active_blocks_per_sm": o.active_blocks_per_sm,
                    "active_warps_per_sm": o.active_warps_per_sm,
                    "occupancy": o.occupancy_percent as f64 / 100.0,
                    "limiter": limiters.first().cloned().unwrap_or_default(),
                    "limiters": limiters,
                    "limits": {"warps": o.limit_warps, "registers": o.limit_registers, "shared_memory": o.limit_shared, "blocks": o.limit_blocks},
                });
                println!("{}", serde_json::to_string_pretty(&v)?);
            } else {
                println!(
                    "{arch}: {} blocks/SM, {} warps/SM, occupancy {}%",
                    o.active_blocks_per_sm, o.active_warps_per_sm, o.occupancy_percent
                );
                println!("limited by: {}", limiters.join(", "));
                println!(
                    "per-resource block limits: warps {}, registers {}, shared memory {}, blocks {}",
                    o.limit_warps, o.limit_registers, o.limit_shared, o.limit_blocks
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Check { files, emit, quiet } => {
            let mut failed = 0usize;
            for path in &files {
                let text = match utf8_source(path, read_limited(path, MAX_SOURCE_BYTES)?) {
                    Ok(text) => text,
                    Err(e) => {
                        failed += 1;
                        eprintln!("{e}");
                        continue;
                    }
                };
                let source = SourceFile::new(path.display().to_string(), text);
                let module = match front::parse(&source) {
                    Ok(module) => module,
                    Err(diags) => {
                        failed += 1;
                        eprintln!("{diags}");
                        continue;
                    }
                };
                let lowered = match warpjit::ir::lower::run(&module, &source) {
                    Ok(ir) => ir,
                    Err(diags) => {
                        failed += 1;
                        eprintln!("{diags}");
                        print_refused_kernels(&module, &source);
                        continue;
                    }
                };
                // Compiling proves the JIT takes the module too.
                let addrs = vec![0; lowered.globals.len()];
                if let Err(e) = warpjit::jit::compile(&lowered, &addrs) {
                    failed += 1;
                    eprintln!("{}: {e}", source.name());
                    continue;
                }
                match emit {
                    Some(Emit::Ptx) => print!("{}", front::print::module_to_string(&module)),
                    Some(Emit::Ir) => print!("{}", warpjit::ir::text::module_to_string(&lowered)),
                    None if !quiet => print_summary(&source, &module),
                    None => {}
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

/// When a module's only errors are constructs warpjit does not execute,
/// it still loads and its other kernels run: say which kernels are refused.
fn print_refused_kernels(module: &ast::Module, source: &SourceFile) {
    let Ok(ir) = warpjit::ir::lower::run_deferring(module, source) else {
        return;
    };
    let kernels: Vec<(&str, bool)> = ir
        .kernels()
        .map(|(id, f)| (f.name.as_str(), !ir.unsupported_in(id).is_empty()))
        .collect();
    let refused: Vec<&str> = kernels.iter().filter(|k| k.1).map(|k| k.0).collect();
    eprintln!(
        "{}: {} of {} kernels cannot run (their launches are refused): {}",
        source.name(),
        refused.len(),
        kernels.len(),
        refused.join(", ")
    );
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
        if let Some((cxx, _)) = warpjit::runtime::kernel_names::demangle(&f.name) {
            println!("    C++: {cxx}");
        }
    }
    let funcs = module
        .functions()
        .filter(|f| f.kind == ast::FunctionKind::Func)
        .count();
    let vars = module.variables().count();
    println!("  {funcs} device functions, {vars} module-scope variables");
}
