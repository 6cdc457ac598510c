// Multicast bulk copies (sm_90a), as cuda::ptx writes them: in clusters of
// four CTAs, each CTA's thread 0 loads a quarter of its cluster's 4 KiB
// tile with one cp.async.bulk.shared::cluster.global.mbarrier::complete_tx
// ::bytes.multicast::cluster (ctaMask 0xf): the quarter lands at the same
// offset in the shared memory of all four CTAs, and each copy completes
// its bytes on the mbarrier at the same offset in each. Every CTA's
// mbarrier expects the whole tile; once its phase completes, the CTA
// writes the tile, scaled by its rank plus one, to the output. The same
// with tensor copies (cp.async.bulk.tensor.2d ... .multicast::cluster):
// each CTA's 32x8 box of a tensor map lands in every CTA.
#include <cooperative_groups.h>
#include <cuda/ptx>
#pragma nv_diag_suppress static_var_with_dynamic_init
namespace ptx = cuda::ptx;
namespace cg = cooperative_groups;

constexpr int TILE = 1024;
constexpr int CLUSTER = 4;
constexpr int BOX_W = 32;
constexpr int BOX_H = 8;

// The driver's CUtensorMap: 128 opaque bytes, 64-byte aligned.
struct alignas(64) TensorMap {
    unsigned char bytes[128];
};

// `map` describes `in` as a 64x32 s32 tensor (boxes of 32x8, no swizzle).
extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1) bulk_multicast(
    const int* in, int* out, int* out2, const __grid_constant__ TensorMap map)
{
    __shared__ alignas(128) int tile[TILE];
    __shared__ alignas(128) int boxes[CLUSTER * BOX_W * BOX_H];
    __shared__ alignas(8) uint64_t bar;
    __shared__ alignas(8) uint64_t bar2;
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::mbarrier_init(&bar2, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    // Every CTA's mbarrier is initialized before any copy completes on it.
    cluster.sync();
    if (threadIdx.x == 0) {
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                       sizeof(tile));
        const int part = TILE / CLUSTER;
        const int* src = in + (blockIdx.x / CLUSTER) * TILE + rank * part;
        ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, tile + rank * part, src,
                           sizeof(int) * part, &bar, (uint16_t)0xf);
        // The tensor form: the CTA's 32x8 box of its cluster's 64x16 half
        // of the tensor, multicast into slot `rank` of every CTA's boxes.
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar2,
                                       sizeof(boxes));
        const int32_t coords[2] = {BOX_W * (int)(rank % 2),
                                   16 * (int)(blockIdx.x / CLUSTER) + BOX_H * (int)(rank / 2)};
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global,
                                  boxes + rank * BOX_W * BOX_H, &map, coords, &bar2,
                                  (uint16_t)0xf);
    }
    while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
    }
    for (int i = threadIdx.x; i < TILE; i += blockDim.x) {
        out[blockIdx.x * TILE + i] = tile[i] * (int)(rank + 1);
    }
    while (!ptx::mbarrier_try_wait_parity(&bar2, 0)) {
    }
    for (int i = threadIdx.x; i < CLUSTER * BOX_W * BOX_H; i += blockDim.x) {
        out2[blockIdx.x * CLUSTER * BOX_W * BOX_H + i] = boxes[i] - (int)rank;
    }
    // No CTA exits while another may still write into its shared memory.
    cluster.sync();
}
