//! Cooperative launches (`cuLaunchCooperativeKernel`, `warpjit run
//! --cooperative`): every CTA of the grid is resident at once, so CTAs may
//! wait for each other, as cooperative groups' grid-wide sync does
//! (`this_grid().sync()`: an arrival counted with an atomic in the grid
//! workspace the driver passes in `%envreg1`/`%envreg2`, then a spin on it
//! with `ld.acquire.gpu`).
//!
//! The CTAs run on one host thread in rounds ([`interp::CtaRun::round`]):
//! each CTA's warps take a turn, CTA after CTA in grid order, until all
//! finish, so a warp spinning at the grid barrier yields (a polling load run
//! twice, `interp/mbarrier.rs`) and the CTAs it waits for get their turns.
//! The first fault stops the launch. A grid larger than the caller says can
//! be resident is refused, as CUDA refuses it
//! (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE).

use super::{cta_id, Device, Error, LaunchConfig, LaunchCtx, LaunchReport, Merged, ModuleId};
use crate::interp::{CtaRun, Fault};
use crate::ir::FuncId;

/// Bytes of the grid workspace (cooperative groups use the word at 4).
pub(super) const WORKSPACE_BYTES: u64 = 16;

impl Device {
    /// Launches `kernel` cooperatively: all `cfg.grid`'s CTAs resident at
    /// once, with a grid workspace for grid-wide sync (one per device,
    /// reserved when a module that reads `%envreg`s is loaded: concurrent
    /// cooperative launches on two streams would share it). `max_resident` is how
    /// many CTAs of this kernel the device can hold at once (its SMs times
    /// the occupancy); a larger grid is an error.
    pub fn launch_cooperative(
        &self,
        m: ModuleId,
        kernel: FuncId,
        cfg: LaunchConfig,
        params: &[u8],
        max_resident: u64,
    ) -> Result<LaunchReport, Error> {
        let [gx, gy, gz] = cfg.grid;
        let n = gx as u64 * gy as u64 * gz as u64;
        if n > max_resident {
            return Err(Error::CooperativeTooLarge {
                blocks: n,
                resident: max_resident,
            });
        }
        // Kernels that read no `%envreg` need no workspace (loading one
        // that does reserved it); the grid barrier's count starts at zero.
        let workspace = self.grid_workspace.unwrap_or(0);
        if workspace != 0 {
            self.memory
                .write_bytes(workspace, &[0; WORKSPACE_BYTES as usize])
                .map_err(|_| Error::InvalidArgument("grid workspace".into()))?;
        }
        self.launch_in(m, kernel, cfg, params, Some(workspace), None)
    }

    /// Runs all `n` CTAs of a cooperative launch in rounds.
    pub(super) fn run_cooperative(&self, ctx: &LaunchCtx, n: u64) -> Merged {
        let [gx, gy, _] = ctx.grid;
        let mut runs: Vec<Option<CtaRun>> = (0..n)
            .map(|i| Some(CtaRun::new(ctx, cta_id(i, gx, gy))))
            .collect();
        let mut merged = Merged::default();
        let mut live = n;
        while live > 0 {
            for (i, slot) in runs.iter_mut().enumerate() {
                let Some(run) = slot else {
                    continue;
                };
                let result = match run.round() {
                    Ok(false) => continue,
                    Ok(true) => Ok(()),
                    Err(f) => Err(f),
                };
                let failed = result.is_err();
                merged.add(i as u64, slot.take().unwrap().finish(result));
                live -= 1;
                if failed {
                    for other in runs.iter_mut().filter_map(Option::take) {
                        let _ = other.finish(Err(Fault::cancelled()));
                    }
                    return merged;
                }
            }
        }
        merged
    }
}
