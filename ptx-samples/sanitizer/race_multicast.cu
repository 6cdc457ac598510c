// Racecheck and initcheck with multicast bulk copies (sm_90a; cuda::ptx):
// a copy with .multicast::cluster writes into the shared memory of every
// CTA of its mask and completes on each one's mbarrier, so its writes are
// checked in the CTA they land in, ordered by that CTA's mbarrier
// (tests/sanitizer_race_cluster.rs).
#include <cooperative_groups.h>
#include <cuda/ptx>
namespace ptx = cuda::ptx;
namespace cg = cooperative_groups;

constexpr int TILE = 256;
constexpr int CLUSTER = 2;

// Correct: each CTA of a cluster of two loads half of the cluster's tile
// into both CTAs, and every thread waits for its own CTA's mbarrier
// before reading the whole tile.
extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1) multicast_ok(const int* in, int* out) {
    __shared__ alignas(128) int tile[TILE];
    __shared__ alignas(8) uint64_t bar;
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    cluster.sync();
    if (threadIdx.x == 0) {
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                       sizeof(tile));
        const int half = TILE / CLUSTER;
        ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, tile + rank * half,
                           in + (blockIdx.x / CLUSTER) * TILE + rank * half, sizeof(int) * half,
                           &bar, (uint16_t)0x3);
    }
    while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
    }
    out[blockIdx.x * TILE + threadIdx.x] = tile[TILE - 1 - threadIdx.x];
    cluster.sync();
}

// Bug: thread 0 reads the tile before waiting on the mbarrier (the other
// threads wait), so its read races with the copies' writes.
extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1) multicast_early(const int* in, int* out) {
    __shared__ alignas(128) int tile[TILE];
    __shared__ alignas(8) uint64_t bar;
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
        for (int i = 0; i < TILE; i++) tile[i] = 0;
    }
    cluster.sync();
    if (threadIdx.x == 0) {
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                       sizeof(tile));
        const int half = TILE / CLUSTER;
        ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, tile + rank * half,
                           in + (blockIdx.x / CLUSTER) * TILE + rank * half, sizeof(int) * half,
                           &bar, (uint16_t)0x3);
        out[blockIdx.x * TILE] = tile[TILE - 1];
    } else {
        while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
        }
        out[blockIdx.x * TILE + threadIdx.x] = tile[TILE - 1 - threadIdx.x];
    }
    cluster.sync();
}
