//! A module's compiled code, built on a launch's first use: the plain
//! build, and the checked build of launches with racecheck or initcheck
//! (`jit::compile_checked`); none with the interpreter.

use std::sync::OnceLock;
use std::time::Duration;

use super::{Device, Engine, Error, LoadedModule};
use crate::{ir, jit};

/// How a module is compiled (`jit::compile` and its variants).
type Build = fn(&ir::Module, &[u64]) -> Result<jit::CompiledModule, jit::JitError>;

impl Device {
    /// The compiled code launches use (none with the interpreter), compiled
    /// on first use, and how long compiling took now.
    pub(super) fn code<'a>(
        &self,
        lm: &'a LoadedModule,
    ) -> Result<(Option<&'a dyn crate::engine::abi::CompiledCode>, Duration), Error> {
        self.compiled(&lm.ir, &lm.global_addrs, &lm.compiled, jit::compile)
    }

    /// `ir` compiled by `build` into `cell` on first use (the timing
    /// driver's build, a checked build: see `jit::compile_for`,
    /// `jit::compile_checked`); none with the interpreter.
    pub(super) fn compiled<'a>(
        &self,
        ir: &ir::Module,
        global_addrs: &[u64],
        cell: &'a OnceLock<Result<jit::CompiledModule, String>>,
        build: Build,
    ) -> Result<(Option<&'a dyn crate::engine::abi::CompiledCode>, Duration), Error> {
        let mut compile_time = Duration::ZERO;
        if self.options.engine == Engine::Interp {
            return Ok((None, compile_time));
        }
        let compiled = cell.get_or_init(|| {
            let c = build(ir, global_addrs).map_err(|e| e.to_string());
            if let Ok(c) = &c {
                compile_time = c.compile_time;
            }
            c
        });
        match compiled {
            Ok(c) => Ok((Some(c), compile_time)),
            Err(e) => Err(Error::Jit(e.clone())),
        }
    }
}
