//! The device runtime: device memory, loaded modules, and launches.
//!
//! A [`Device`] owns the global-memory arena ([`memory`]), the modules
//! loaded into it (parsed, lowered and verified at load time, their globals
//! placed in the arena with initializers and relocations applied), and runs
//! launches: CTAs in parallel on all cores (rayon), each CTA's warps by the
//! interpreter, faults turned into [`Error::Launch`] naming kernel, block,
//! thread and PTX line, printf output collected in a deterministic order.

pub mod arena;
pub mod args;
mod checked;
mod cluster;
mod compiled;
mod cooperative;
pub mod heap;
pub mod ipc;
pub mod kernel_names;
pub mod memory;
mod merged;
mod options;
pub mod printf;
pub mod texarg;
pub mod texture;
pub mod timed;
pub mod tmaparg;
mod uploads;
pub use cluster::{shape as cluster_shape, ClusterLaunch};
pub(crate) use merged::{cta_id, Merged};
pub use options::{parse_seconds, watchdog_time_from_env, Engine, Options, WATCHDOG_SECONDS_ENV};
pub use timed::{Costs, TimingOptions};

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use cranelift_codegen::entity::EntityRef;
use rayon::prelude::*;

use crate::error::{Error, LaunchError};
use crate::front::{self, Diagnostics, SourceFile};
use crate::interp::{self, FaultKind, LaunchCtx};
use crate::ir::{self, FuncId, ParamSlot, RelocTarget};
use crate::jit;
use memory::{GlobalMemory, FUNC_BASE, SHARED_WINDOW};

/// Largest block, grid and shared-memory sizes (those of compute capability 9.0).
pub const MAX_THREADS_PER_BLOCK: u32 = 1024;
pub const MAX_BLOCK_DIM: [u32; 3] = [1024, 1024, 64];
pub const MAX_GRID_DIM: [u32; 3] = [(1 << 31) - 1, 65535, 65535];
pub const MAX_SHARED_PER_BLOCK: u32 = 227 * 1024;
pub const MAX_PARAM_BYTES: u32 = 32764;

/// A module loaded into a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModuleId(usize);

struct LoadedModule {
    source: SourceFile,
    /// Never mutated after loading: compiled code points into its ops.
    ir: ir::Module,
    global_addrs: Vec<u64>,
    /// Compiled on the first JIT launch, then reused.
    compiled: OnceLock<Result<jit::CompiledModule, String>>,
    /// The build of launches with racecheck or initcheck (`jit::compile_checked`).
    compiled_checked: OnceLock<Result<jit::CompiledModule, String>>,
    /// What timed launches use, per instruction order (PTX, compiler),
    /// built on the first such launch.
    timed: [OnceLock<timed::TimedBuild>; 2],
    /// Per function: the registers warps must start with at zero.
    zeroed_regs: Vec<Vec<ir::Reg>>,
    /// The module reads `%reserved_smem_offset_*` (`LaunchCtx::reserved_shared`).
    reserved_shared: bool,
    /// Some function has constructs warpjit does not execute
    /// ([`ir::Function::unsupported`]); launches check what they reach.
    refusing: bool,
}

/// A typed kernel argument (see [`Device::launch_with`]).
#[derive(Clone, Debug, PartialEq)]
pub enum KernelArg {
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    F16(half::f16),
    F32(f32),
    F64(f64),
    /// A device pointer.
    Ptr(u64),
    /// A by-value aggregate (a struct), as raw bytes.
    Bytes(Vec<u8>),
}

impl KernelArg {
    /// The argument's bytes as the parameter buffer holds them.
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            KernelArg::U8(v) => v.to_le_bytes().to_vec(),
            KernelArg::U16(v) => v.to_le_bytes().to_vec(),
            KernelArg::U32(v) => v.to_le_bytes().to_vec(),
            KernelArg::U64(v) | KernelArg::Ptr(v) => v.to_le_bytes().to_vec(),
            KernelArg::I8(v) => v.to_le_bytes().to_vec(),
            KernelArg::I16(v) => v.to_le_bytes().to_vec(),
            KernelArg::I32(v) => v.to_le_bytes().to_vec(),
            KernelArg::I64(v) => v.to_le_bytes().to_vec(),
            KernelArg::F16(v) => v.to_le_bytes().to_vec(),
            KernelArg::F32(v) => v.to_le_bytes().to_vec(),
            KernelArg::F64(v) => v.to_le_bytes().to_vec(),
            KernelArg::Bytes(b) => b.clone(),
        }
    }
}

/// A launch's grid and block.
#[derive(Clone, Copy, Debug)]
pub struct LaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
}

/// What a successful launch reports.
#[derive(Clone, Debug, Default)]
pub struct LaunchReport {
    /// Device printf output, ordered by block, then thread, then call order.
    pub printf: String,
    /// printf calls whose output was dropped: the launch's printf buffer
    /// ([`Options::printf_buffer_bytes`]) was full.
    pub printf_dropped: u64,
    pub warp_instructions: u64,
    /// Instructions times the lanes active when each issued.
    pub thread_instructions: u64,
    /// Wall time of the launch (excluding compilation).
    pub elapsed: Duration,
    /// Time spent compiling the module for this launch, and for a timed
    /// one building its instruction table (zero when both were cached; the
    /// interpreter compiles nothing).
    pub compile_time: Duration,
}

pub struct Device {
    memory: GlobalMemory,
    modules: Vec<LoadedModule>,
    options: Options,
    /// The timing model's L2 as the last timed launch that kept it left it
    /// (`TimingOptions::keep_l2`), with its preset's name.
    timing_l2: std::sync::Mutex<Option<(String, crate::timing::Cache)>>,
    uploads: uploads::Uploads,
    /// The grid workspace of cooperative launches (`cooperative.rs`), once
    /// a module that reads `%envreg`s is loaded.
    grid_workspace: Option<u64>,
    /// The device heap, once a module that calls `malloc` or `free` is
    /// loaded.
    heap: Option<heap::DeviceHeap>,
    /// The sanitizer's reports not yet taken.
    reports: std::sync::Mutex<Vec<crate::sanitizer::Report>>,
    /// Memory shared with other processes (`ipc.rs`).
    ipc: ipc::Ipc,
    /// Arrays, texture and surface objects (`texture.rs`).
    textures: texture::Textures,
}

impl Device {
    pub fn new(options: Options) -> Device {
        let mut memory = if options.unified_addresses {
            GlobalMemory::new_unified(options.arena_bytes)
        } else {
            GlobalMemory::new(options.arena_bytes)
        };
        memory.set_initcheck(options.checks.initcheck);
        memory.set_rounded(options.round_allocations && !options.checks.memcheck);
        Device {
            memory,
            modules: Vec::new(),
            options,
            timing_l2: std::sync::Mutex::new(None),
            uploads: uploads::Uploads::default(),
            heap: None,
            grid_workspace: None,
            reports: std::sync::Mutex::new(Vec::new()),
            ipc: ipc::Ipc::default(),
            textures: texture::Textures::default(),
        }
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    pub fn set_options(&mut self, options: Options) {
        self.options.watchdog_instructions = options.watchdog_instructions;
        self.options.watchdog_time = options.watchdog_time;
        self.options.stack_bytes = options.stack_bytes;
        self.options.printf_buffer_bytes = options.printf_buffer_bytes;
        self.set_checks(options.checks);
        if self.heap.is_none() {
            // Like CUDA, the heap's size is fixed once a kernel uses it.
            self.options.malloc_heap_bytes = options.malloc_heap_bytes;
        }
    }

    /// Whether device addresses of global memory are host pointers to
    /// the same bytes ([`Options::unified_addresses`]).
    pub fn unified_addresses(&self) -> bool {
        self.memory.unified()
    }

    /// The device heap, if a module that calls `malloc` or `free` was
    /// loaded.
    pub fn heap(&self) -> Option<&heap::DeviceHeap> {
        self.heap.as_ref()
    }

    /// Parses, lowers and verifies PTX text, and places its globals in device memory.
    pub fn load_ptx(&mut self, name: &str, text: &str) -> Result<ModuleId, Error> {
        let source = SourceFile::new(name, text);
        let ast = front::parse(&source).map_err(Error::Module)?;
        let mut ir = ir::lower::run_deferring(&ast, &source).map_err(Error::Module)?;
        if !self.options.share_register_slots {
            for f in ir.functions.values_mut() {
                f.slots = ir::slots::RegSlots::one_per_register(f);
            }
        }
        if self.heap.is_none() && ir::uses_device_heap(&ir) {
            let size = self.options.malloc_heap_bytes;
            let base = self.alloc(size.max(1)).map_err(|_| {
                Error::InvalidArgument(format!(
                    "module `{name}` calls malloc/free, and the {size}-byte device heap does not fit in device memory"
                ))
            })?;
            self.heap = Some(heap::DeviceHeap::new(base, size));
            self.set_heap_checked();
        }
        if self.grid_workspace.is_none() && ir::uses_envregs(&ir) {
            self.grid_workspace = Some(self.alloc(cooperative::WORKSPACE_BYTES)?);
        }
        let mut global_addrs = Vec::with_capacity(ir.globals.len());
        for (_, g) in ir.globals.iter() {
            let addr = self.alloc(g.size.max(1))?;
            global_addrs.push(addr);
        }
        for (id, g) in ir.globals.iter() {
            let mut bytes = g.init.clone();
            for r in &g.relocations {
                let target = match r.target {
                    RelocTarget::Global(t) => global_addrs[t.index()],
                    RelocTarget::Function(f) => FUNC_BASE + 16 * f.index() as u64,
                    RelocTarget::Shared(off) => SHARED_WINDOW + off as u64,
                };
                let v = target.wrapping_add(r.addend as u64).to_le_bytes();
                let at = r.offset as usize;
                bytes[at..at + r.width as usize].copy_from_slice(&v[..r.width as usize]);
            }
            self.memory
                .write_bytes(global_addrs[id.index()], &bytes)
                .map_err(|_| Error::InvalidArgument(format!("cannot place global `{}`", g.name)))?;
        }
        let zeroed_regs = ir
            .functions
            .values()
            .map(|f| {
                if f.is_kernel {
                    interp::registers_to_zero(f)
                } else {
                    Vec::new()
                }
            })
            .collect();
        let reserved_shared = ir::uses_reserved_shared(&ir);
        let refusing = ir.functions.values().any(|f| !f.unsupported.is_empty());
        self.modules.push(LoadedModule {
            source,
            ir,
            global_addrs,
            compiled: OnceLock::new(),
            compiled_checked: OnceLock::new(),
            timed: [OnceLock::new(), OnceLock::new()],
            zeroed_regs,
            reserved_shared,
            refusing,
        });
        Ok(ModuleId(self.modules.len() - 1))
    }

    /// Links several PTX inputs (name, text) into one module
    /// ([`front::link`]: `.extern` symbols resolved across inputs, local
    /// names kept apart) and loads it as `name`. Link errors name the input
    /// and line; the loaded module's locations are those of the linked PTX
    /// ([`front::link::link_ptx`] gives its text), whose `.loc` lines still
    /// name each input's own source files.
    pub fn load_linked(&mut self, name: &str, inputs: &[(&str, &str)]) -> Result<ModuleId, Error> {
        let text = front::link::link_ptx(inputs).map_err(Error::Link)?;
        self.load_ptx(name, &text)
    }

    /// Chooses the engine of later launches.
    pub fn set_engine(&mut self, engine: Engine) {
        self.options.engine = engine;
    }

    fn module(&self, m: ModuleId) -> &LoadedModule {
        &self.modules[m.0]
    }

    /// The lowered IR of a loaded module.
    pub fn ir(&self, m: ModuleId) -> &ir::Module {
        &self.module(m).ir
    }

    pub fn alloc(&mut self, size: u64) -> Result<u64, Error> {
        self.memory.alloc(size).ok_or(Error::OutOfMemory {
            requested: size,
            capacity: self.memory.capacity(),
        })
    }

    pub fn free(&mut self, addr: u64) -> Result<(), Error> {
        if self.memory.free(addr) {
            Ok(())
        } else {
            Err(Error::InvalidAddress { addr, len: 0 })
        }
    }

    /// A handle (`CUipcMemHandle`'s 64 bytes) another process opens with
    /// [`Device::ipc_open`] to share the allocation holding `addr`.
    pub fn ipc_export(&mut self, addr: u64) -> Result<[u8; ipc::HANDLE_BYTES], Error> {
        self.ipc.export(&self.memory, addr)
    }

    /// Maps another process's exported allocation; returns its address here
    /// and its size.
    pub fn ipc_open(&mut self, handle: &[u8; ipc::HANDLE_BYTES]) -> Result<(u64, u64), Error> {
        self.ipc.open(&mut self.memory, handle)
    }

    /// Whether `addr` was returned by [`Device::ipc_open`] (and is open).
    pub fn ipc_is_opened(&self, addr: u64) -> bool {
        self.ipc.is_opened(addr)
    }

    /// Closes a handle opened at `addr` by [`Device::ipc_open`].
    pub fn ipc_close(&mut self, addr: u64) -> Result<(), Error> {
        self.ipc.close(&mut self.memory, addr)
    }

    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), Error> {
        self.uploads.record(addr, data.len() as u64);
        self.memory
            .write_bytes(addr, data)
            .map_err(|_| Error::InvalidAddress {
                addr,
                len: data.len() as u64,
            })
    }

    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), Error> {
        let len = out.len() as u64;
        self.memory
            .read_bytes(addr, out)
            .map_err(|_| Error::InvalidAddress { addr, len })
    }

    pub fn memset(&self, addr: u64, byte: u8, len: u64) -> Result<(), Error> {
        self.uploads.record(addr, len);
        self.memory
            .memset(addr, byte, len)
            .map_err(|_| Error::InvalidAddress { addr, len })
    }

    /// The device address and size of a module-scope `.global` or `.const` variable.
    pub fn global(&self, m: ModuleId, name: &str) -> Result<(u64, u64), Error> {
        let lm = self.module(m);
        let id = lm.ir.global_by_name(name).ok_or_else(|| {
            let names: Vec<&str> = lm.ir.globals.values().map(|g| g.name.as_str()).collect();
            Error::InvalidArgument(format!(
                "no global `{name}` in {}; it has: {}",
                lm.source.name(),
                names.join(", ")
            ))
        })?;
        Ok((lm.global_addrs[id.index()], lm.ir.globals[id].size))
    }

    /// The parameter slots of a kernel (offsets and sizes in the parameter buffer).
    pub fn kernel_params(&self, m: ModuleId, k: FuncId) -> (&[ParamSlot], u32) {
        let f = &self.module(m).ir.functions[k];
        (&f.params, f.param_bytes)
    }

    /// Why `kernel` of module `m` cannot run (the constructs warpjit does
    /// not execute in it and the functions it may call, at their lines), or
    /// `None` when it can. Such a kernel loads with its module; its launches
    /// are refused with [`Error::Unsupported`].
    pub fn unsupported(&self, m: ModuleId, kernel: FuncId) -> Option<Diagnostics> {
        let lm = self.module(m);
        if !lm.refusing {
            return None;
        }
        let found = lm.ir.unsupported_in(kernel);
        (!found.is_empty()).then(|| Diagnostics::new(&lm.source, found))
    }

    /// Refuses a launch of a kernel that reaches an unsupported construct.
    fn check_runnable(&self, m: ModuleId, kernel: FuncId) -> Result<(), Error> {
        match self.unsupported(m, kernel) {
            None => Ok(()),
            Some(diagnostics) => Err(Error::Unsupported {
                kernel: self.module(m).ir.functions[kernel].name.clone(),
                diagnostics,
            }),
        }
    }

    fn check_config(
        &self,
        f: &ir::Function,
        cfg: &LaunchConfig,
        params: &[u8],
        shared_static: u32,
    ) -> Result<(), Error> {
        let bad = |m: String| Err(Error::InvalidArgument(m));
        for d in 0..3 {
            if cfg.block[d] == 0 || cfg.grid[d] == 0 {
                return bad(format!(
                    "grid {:?} and block {:?} must have no zero dimension",
                    cfg.grid, cfg.block
                ));
            }
            if cfg.block[d] > MAX_BLOCK_DIM[d] {
                return bad(format!(
                    "block dimension {} is {}, above the limit {}",
                    "xyz".as_bytes()[d] as char,
                    cfg.block[d],
                    MAX_BLOCK_DIM[d]
                ));
            }
            if cfg.grid[d] > MAX_GRID_DIM[d] {
                return bad(format!(
                    "grid dimension {} is {}, above the limit {}",
                    "xyz".as_bytes()[d] as char,
                    cfg.grid[d],
                    MAX_GRID_DIM[d]
                ));
            }
        }
        let threads = cfg.block.iter().map(|&x| x as u64).product::<u64>();
        if threads > MAX_THREADS_PER_BLOCK as u64 {
            return bad(format!(
                "a block of {threads} threads exceeds the limit of {MAX_THREADS_PER_BLOCK}"
            ));
        }
        for (what, lim) in [("reqntid", f.reqntid), ("maxntid", f.maxntid)] {
            if let Some(l) = lim {
                let ok = if what == "reqntid" {
                    l == cfg.block
                } else {
                    threads <= l.iter().map(|&x| x as u64).product()
                };
                if !ok {
                    return bad(format!(
                        "kernel `{}` declares .{what} {:?}; the launch uses a block of {:?}",
                        f.name, l, cfg.block
                    ));
                }
            }
        }
        if f.frame_size > self.options.stack_bytes {
            return bad(format!(
                "kernel `{}` needs {} bytes of local memory per thread; the stack limit is {} (Options::stack_bytes)",
                f.name, f.frame_size, self.options.stack_bytes
            ));
        }
        let shared = shared_static as u64 + cfg.shared_bytes as u64;
        if shared > MAX_SHARED_PER_BLOCK as u64 {
            return bad(format!("{shared} bytes of shared memory per block exceed the limit of {MAX_SHARED_PER_BLOCK}"));
        }
        if params.len() != f.param_bytes as usize {
            return bad(format!(
                "kernel `{}` takes {} bytes of parameters, got {}",
                f.name,
                f.param_bytes,
                params.len()
            ));
        }
        if f.param_bytes > MAX_PARAM_BYTES {
            return bad(format!(
                "{} bytes of kernel parameters exceed the limit of {MAX_PARAM_BYTES}",
                f.param_bytes
            ));
        }
        Ok(())
    }

    /// Builds the parameter buffer of `kernel` from typed arguments, checking
    /// their number and each one's size against the kernel's parameters.
    pub fn params(
        &self,
        m: ModuleId,
        kernel: FuncId,
        args: &[KernelArg],
    ) -> Result<Vec<u8>, Error> {
        let f = &self.module(m).ir.functions[kernel];
        if args.len() != f.params.len() {
            return Err(Error::InvalidArgument(format!(
                "kernel `{}` takes {} parameters, {} arguments given",
                f.name,
                f.params.len(),
                args.len()
            )));
        }
        let mut buf = vec![0u8; f.param_bytes as usize];
        for (slot, arg) in f.params.iter().zip(args) {
            let bytes = arg.to_bytes();
            if bytes.len() != slot.size as usize {
                return Err(Error::InvalidArgument(format!(
                    "parameter `{}` of kernel `{}` is {} bytes; {arg:?} is {} bytes",
                    slot.name,
                    f.name,
                    slot.size,
                    bytes.len()
                )));
            }
            buf[slot.offset as usize..slot.offset as usize + bytes.len()].copy_from_slice(&bytes);
        }
        Ok(buf)
    }

    /// Launches `kernel` with typed arguments.
    pub fn launch_with(
        &self,
        m: ModuleId,
        kernel: FuncId,
        cfg: LaunchConfig,
        args: &[KernelArg],
    ) -> Result<LaunchReport, Error> {
        let params = self.params(m, kernel, args)?;
        self.launch(m, kernel, cfg, &params)
    }

    /// Launches `kernel` over a grid with a prepared parameter buffer.
    pub fn launch(
        &self,
        m: ModuleId,
        kernel: FuncId,
        cfg: LaunchConfig,
        params: &[u8],
    ) -> Result<LaunchReport, Error> {
        self.launch_in(m, kernel, cfg, params, None, None)
    }

    /// A launch; with a grid workspace, a cooperative one
    /// (`cooperative.rs`).
    fn launch_in(
        &self,
        m: ModuleId,
        kernel: FuncId,
        cfg: LaunchConfig,
        params: &[u8],
        cooperative: Option<u64>,
        cluster: Option<ClusterLaunch>,
    ) -> Result<LaunchReport, Error> {
        self.check_runnable(m, kernel)?;
        let lm = self.module(m);
        let f = &lm.ir.functions[kernel];
        self.check_config(f, &cfg, params, lm.ir.shared_dynamic_offset)?;
        let (dims, explicit) = cluster::shape(&lm.ir, f, &cfg, cluster)?;
        if cooperative.is_some() && dims != [1, 1, 1] {
            return Err(Error::InvalidArgument(
                "a cooperative launch with clusters is not supported".into(),
            ));
        }
        // Racecheck and initcheck hook every access: a launch with them
        // runs the checked build, whose accesses call the hooks as the
        // interpreter does; synccheck's ops (barriers, warp-synchronous
        // ops) are the driver's, and memcheck needs no hook (see `checked`).
        let checks = self.options.checks;
        let san = checks.any().then(|| crate::sanitizer::Launch {
            checks,
            collector: Default::default(),
        });
        let (code, compile_time) = match checks.racecheck || checks.initcheck {
            true => self.compiled(
                &lm.ir,
                &lm.global_addrs,
                &lm.compiled_checked,
                jit::compile_checked,
            )?,
            false => self.code(lm)?,
        };
        let start = Instant::now();
        let budget = AtomicU64::new(self.options.watchdog_instructions);
        let cancel = AtomicU64::new(u64::MAX);
        let printf = interp::PrintfBuffer::new(self.options.printf_buffer_bytes);
        let mut ctx = self.launch_ctx(
            lm, kernel, &cfg, params, code, &budget, &cancel, &printf, start,
        );
        ctx.sanitizer = san.as_ref().filter(|_| checks.hooks());
        ctx.grid_workspace = cooperative.unwrap_or(0);
        ctx.cluster = dims;
        ctx.explicit_cluster = explicit;
        let [gx, gy, gz] = cfg.grid;
        let n = gx as u64 * gy as u64 * gz as u64;
        let results = if cooperative.is_some() {
            self.run_cooperative(&ctx, n)
        } else if dims != [1, 1, 1] {
            self.run_clusters(&ctx)
        } else {
            self.run_ctas(&ctx, 0..n)
        };
        if let Some(san) = san {
            self.record_checked(lm, f, &cfg, san, results.fault.as_ref());
        }
        let mut report = self.collect(lm, f, cfg.grid, results)?;
        report.printf_dropped = printf.dropped();
        report.elapsed = start.elapsed();
        report.compile_time = compile_time;
        Ok(report)
    }

    #[allow(clippy::too_many_arguments)]
    fn launch_ctx<'a>(
        &'a self,
        lm: &'a LoadedModule,
        kernel: FuncId,
        cfg: &LaunchConfig,
        params: &'a [u8],
        code: Option<&'a dyn crate::engine::abi::CompiledCode>,
        budget: &'a AtomicU64,
        cancel: &'a AtomicU64,
        printf: &'a interp::PrintfBuffer,
        start: Instant,
    ) -> LaunchCtx<'a> {
        LaunchCtx {
            module: &lm.ir,
            kernel,
            memory: &self.memory,
            params,
            global_addrs: &lm.global_addrs,
            grid: cfg.grid,
            block: cfg.block,
            dynamic_shared: cfg.shared_bytes,
            round_shared: self.options.round_allocations && !self.options.checks.memcheck,
            reserved_shared: lm.reserved_shared,
            grid_workspace: 0,
            cluster: [1, 1, 1],
            explicit_cluster: false,
            budget,
            // A limit too far in the future to represent is no limit.
            deadline: self
                .options
                .watchdog_time
                .and_then(|t| start.checked_add(t)),
            cancel,
            stack_limit: self.options.stack_bytes,
            start,
            code,
            zeroed_regs: &lm.zeroed_regs[kernel.index()],
            printf,
            heap: self.heap.as_ref(),
            sanitizer: None,
            textures: &self.textures,
        }
    }

    /// Runs the CTAs `range` (linear indices) of a launch: in parallel, or
    /// in order with `Options::sequential`.
    fn run_ctas(&self, ctx: &LaunchCtx, range: std::ops::Range<u64>) -> Merged {
        let [gx, gy, _] = ctx.grid;
        // CTAs run in chunks of consecutive ones (one CTA per chunk for
        // small grids), a chunk's results merged as they finish: nothing is
        // kept per CTA but its printf output, whatever the grid's size, and
        // a chunk stops at the first CTA after one that faulted.
        let len = range.end - range.start;
        let threads = rayon::current_num_threads() as u64;
        let chunk = (len / (threads * 64)).clamp(1, 4096);
        let run_chunk = |c: u64| {
            let mut merged = Merged::default();
            let lo = range.start + c * chunk;
            for i in lo..(lo + chunk).min(range.end) {
                if ctx.cancel.load(Ordering::Relaxed) < i {
                    break;
                }
                let r = interp::run_cta(ctx, cta_id(i, gx, gy));
                if r.as_ref().is_err_and(|f| f.kind != FaultKind::Cancelled) {
                    // CTAs after this one stop; those before it run on, and
                    // the lowest that faults is reported.
                    ctx.cancel.fetch_min(i, Ordering::Relaxed);
                }
                merged.add(i, r);
            }
            merged
        };
        let chunks = len.div_ceil(chunk);
        if self.options.sequential {
            (0..chunks)
                .map(run_chunk)
                .fold(Merged::default(), Merged::merge)
        } else {
            (0..chunks)
                .into_par_iter()
                .map(run_chunk)
                .reduce(Merged::default, Merged::merge)
        }
    }

    /// The report of merged CTA results, or the first fault in grid order.
    fn collect(
        &self,
        lm: &LoadedModule,
        f: &ir::Function,
        grid: [u32; 3],
        merged: Merged,
    ) -> Result<LaunchReport, Error> {
        if let Some((i, fault)) = merged.fault {
            let block = cta_id(i, grid[0], grid[1]);
            return Err(self.launch_error(lm, f, block, fault));
        }
        let mut report = LaunchReport {
            warp_instructions: merged.warp_instructions,
            thread_instructions: merged.thread_instructions,
            ..LaunchReport::default()
        };
        for (_, mut recs) in merged.printf {
            recs.sort_by_key(|r| r.thread);
            for rec in recs {
                report.printf.push_str(&rec.text);
            }
        }
        Ok(report)
    }

    fn launch_error(
        &self,
        lm: &LoadedModule,
        kernel: &ir::Function,
        block: [u32; 3],
        fault: interp::Fault,
    ) -> Error {
        let span = fault.span;
        let (location, source_line) = if span.start == 0 && span.end == 0 {
            (lm.source.name().to_string(), String::new())
        } else {
            let lc = lm.source.line_col(span.start as usize);
            (
                lm.source.location(span),
                lm.source.line_text(lc.line).to_string(),
            )
        };
        let source_location = fault.loc.map(|(file, line)| {
            let name = lm
                .ir
                .files
                .iter()
                .find(|f| f.0 == file)
                .map(|f| f.1.as_str())
                .unwrap_or("?");
            format!("{name}:{line}")
        });
        Error::Launch(Box::new(LaunchError {
            source_location,
            kind: fault.kind,
            message: fault.message,
            kernel: kernel.name.clone(),
            block,
            thread: fault.thread,
            location,
            source_line,
        }))
    }
}
