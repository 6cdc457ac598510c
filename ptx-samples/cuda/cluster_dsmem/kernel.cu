// Thread-block clusters (sm_90): two blocks per cluster (__cluster_dims__),
// each block's shared memory read and written by its neighbour through
// cooperative groups' this_cluster().map_shared_rank (mapa, generic
// loads, stores and atomics on the other CTA's shared memory), with
// cluster.sync() (barrier.cluster.arrive/wait) between the phases.
//  1. halo: every block stages N ints in shared memory; each thread adds
//     the neighbour block's element at the mirrored index.
//  2. histogram: the 64 bins are spread over the cluster (bin b in rank
//     b % 2); every thread adds its value's bin with an atomic on the
//     owning block's shared memory; each block writes its bins.
//  3. elect.sync among the lanes with an odd input: the leader records
//     100 + its lane, the others the leader's lane + 1.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define N 128
#define BINS 64

extern "C" __global__ void __cluster_dims__(2, 1, 1)
    cluster_dsmem(const int *in, int *halo, unsigned *hist, unsigned *info, unsigned *elected)
{
    __shared__ int stage[N];
    __shared__ unsigned bins[BINS / 2];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    unsigned t = threadIdx.x;
    unsigned gid = blockIdx.x * N + t;
    stage[t] = in[gid];
    if (t < BINS / 2)
        bins[t] = 0;
    cluster.sync();

    // 1. halo exchange through the neighbour's shared memory.
    unsigned other = rank ^ 1;
    int *remote = cluster.map_shared_rank(stage, other);
    halo[gid] = stage[t] + 2 * remote[N - 1 - t];

    // 2. distributed histogram.
    unsigned bin = ((unsigned)in[gid]) % BINS;
    unsigned *owner = cluster.map_shared_rank(bins, bin % 2);
    atomicAdd(&owner[bin / 2], 1u);
    cluster.sync();
    unsigned cluster_id = blockIdx.x / 2;
    if (t < BINS / 2)
        hist[cluster_id * BINS + 2 * t + rank] = bins[t];

    // The cluster's shape as cooperative groups and the special registers see it.
    if (t == 0) {
        unsigned *o = info + blockIdx.x * 8;
        o[0] = rank;
        o[1] = cluster.num_blocks();
        o[2] = cluster.dim_blocks().x;
        o[3] = cluster.block_index().x;
        unsigned cid, nc, isx;
        asm("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
        asm("mov.u32 %0, %%nclusterid.x;" : "=r"(nc));
        asm("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }" : "=r"(isx));
        o[4] = cid;
        o[5] = nc;
        o[6] = isx;
        o[7] = cluster.thread_rank() + 1000 * cluster.num_threads();
    }

    // 3. elect.sync: in each warp, the lanes with an odd value of in[] take part.
    if (in[gid] & 1) {
        unsigned lane, is_leader;
        unsigned mask = __activemask();
        asm volatile("{ .reg .pred p; elect.sync %0|p, %2; selp.u32 %1, 1, 0, p; }"
                     : "=r"(lane), "=r"(is_leader)
                     : "r"(mask));
        elected[gid] = is_leader ? 100 + lane : lane + 1;
    } else {
        elected[gid] = 0;
    }
    cluster.sync();
}
