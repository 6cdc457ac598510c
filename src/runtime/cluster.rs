//! Cluster launches (sm_90; `warpjit run --cluster`, `cuLaunchKernelEx`'s
//! CLUSTER_DIMENSION attribute, or a kernel's `.reqnctapercluster`): the
//! grid is cut into clusters of CTAs that run together, their rounds
//! interleaved on one host thread ([`interp::run_cluster`]), so that they
//! share their shared memory and `barrier.cluster`; clusters run in
//! parallel on rayon as CTAs of other launches do. A launch without
//! clusters is one of 1x1x1 clusters, as on hardware.

use rayon::prelude::*;
use std::sync::atomic::Ordering;

use super::{cta_id, Device, Error, LaunchConfig, LaunchCtx, LaunchReport, Merged, ModuleId};
use crate::interp::{self, FaultKind, MAX_RANKS};
use crate::ir::{self, FuncId};

/// The cluster shape a launch asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClusterLaunch {
    /// CTAs per cluster in each dimension.
    pub dims: [u32; 3],
    /// Clusters of up to 16 CTAs (CUDA's non-portable cluster size,
    /// `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED`), else 8.
    pub non_portable: bool,
}

/// The portable limit on CTAs per cluster.
pub const PORTABLE_RANKS: u64 = 8;

/// The cluster shape of a launch of `f` and whether it is explicit
/// (`%is_explicit_cluster`): the launch's, else the kernel's
/// `.reqnctapercluster`, else 1x1x1. Refused: clusters in a module for a
/// target before sm_90, a cluster of more CTAs than allowed, a grid not a
/// whole number of clusters, a launch shape other than the kernel's.
pub fn shape(
    m: &ir::Module,
    f: &ir::Function,
    cfg: &LaunchConfig,
    launch: Option<ClusterLaunch>,
) -> Result<([u32; 3], bool), Error> {
    let bad = |m: String| Err(Error::InvalidCluster(m));
    let dims = match (launch.map(|l| l.dims), f.reqnctapercluster) {
        (Some(l), Some(r)) if l != r => {
            return bad(format!(
            "kernel `{}` declares .reqnctapercluster {r:?}; the launch asks for clusters of {l:?}",
            f.name
        ))
        }
        (Some(d), _) | (None, Some(d)) => d,
        (None, None) if f.explicit_cluster => {
            return bad(format!(
                "kernel `{}` declares .explicitcluster: it must be launched with a cluster shape",
                f.name
            ))
        }
        (None, None) => return Ok(([1, 1, 1], false)),
    };
    if m.target_version().is_none_or(|v| v < 90) {
        return Err(Error::ClustersUnsupported(format!(
            "the module targets {}",
            m.target
        )));
    }
    let size: u64 = dims.iter().map(|&d| d as u64).product();
    let max = if launch.is_some_and(|l| l.non_portable) {
        MAX_RANKS
    } else {
        PORTABLE_RANKS
    };
    if dims.contains(&0) || size > max {
        return bad(format!(
            "a cluster of {dims:?} CTAs: clusters hold 1 to {max} CTAs"
        ));
    }
    if (0..3).any(|d| cfg.grid[d] % dims[d] != 0) {
        return bad(format!(
            "the grid {:?} is not a whole number of clusters of {dims:?}",
            cfg.grid
        ));
    }
    Ok((dims, true))
}

impl Device {
    /// Launches `kernel` in clusters of `cluster.dims` CTAs (see
    /// [`shape`] for what is refused).
    pub fn launch_cluster(
        &self,
        m: ModuleId,
        kernel: FuncId,
        cfg: LaunchConfig,
        params: &[u8],
        cluster: ClusterLaunch,
    ) -> Result<LaunchReport, Error> {
        self.launch_in(m, kernel, cfg, params, None, Some(cluster))
    }

    /// Runs every cluster of the launch, clusters in parallel.
    pub(super) fn run_clusters(&self, ctx: &LaunchCtx) -> Merged {
        let [gx, gy, gz] = ctx.grid;
        let [cx, cy, cz] = ctx.cluster;
        let (nx, ny, nz) = (gx / cx, gy / cy, gz / cz);
        let clusters = nx as u64 * ny as u64 * nz as u64;
        let ranks = (cx * cy * cz) as usize;
        let run = |c: u64| {
            let mut merged = Merged::default();
            let base = cta_id(c, nx, ny);
            let ids: Vec<[u32; 3]> = (0..ranks as u32)
                .map(|r| {
                    let local = [r % cx, (r / cx) % cy, r / (cx * cy)];
                    [
                        base[0] * cx + local[0],
                        base[1] * cy + local[1],
                        base[2] * cz + local[2],
                    ]
                })
                .collect();
            let linear =
                |id: [u32; 3]| id[0] as u64 + gx as u64 * (id[1] as u64 + gy as u64 * id[2] as u64);
            let first = ids.iter().map(|&id| linear(id)).min().unwrap_or(0);
            if ctx.cancel.load(Ordering::Relaxed) < first {
                return merged;
            }
            for (id, r) in ids.iter().zip(interp::run_cluster(ctx, &ids)) {
                let i = linear(*id);
                if r.as_ref().is_err_and(|f| f.kind != FaultKind::Cancelled) {
                    ctx.cancel.fetch_min(i, Ordering::Relaxed);
                }
                merged.add(i, r);
            }
            merged
        };
        if self.options.sequential {
            (0..clusters)
                .map(run)
                .fold(Merged::default(), Merged::merge)
        } else {
            (0..clusters)
                .into_par_iter()
                .map(run)
                .reduce(Merged::default, Merged::merge)
        }
    }
}
