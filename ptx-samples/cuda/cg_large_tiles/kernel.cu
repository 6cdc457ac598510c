// Cooperative groups' tiles larger than a warp (tiled_partition<64> and <128>
// of a block_tile_memory block): on sm_80 and later their synchronization and
// collectives use the CTA's reserved shared memory (%reserved_smem_offset_1).
// Each thread records its tile ranks, the sum over its 64-thread tile
// (cg::reduce), the maximum over its 128-thread tile, a value broadcast from
// another thread of the 64-thread tile (tile.shfl from thread 41), and a tile-synchronized
// exchange through shared memory.
// (A shfl whose source lane differs between the lanes of a warp waits within
// the warp under independent thread scheduling, which warpjit does not model.)
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

#define THREADS 256

extern "C" __global__ void cg_large_tiles(const int *in, int *out) {
    __shared__ cg::block_tile_memory<THREADS> scratch;
    __shared__ int exchange[THREADS];
    cg::thread_block block = cg::this_thread_block(scratch);
    auto t64 = cg::tiled_partition<64>(block);
    auto t128 = cg::tiled_partition<128>(block);
    const int gid = blockIdx.x * THREADS + threadIdx.x;
    const int v = in[gid];
    int *o = out + gid * 6;
    o[0] = (int)(t64.meta_group_rank() * 1000 + t64.thread_rank());
    o[1] = cg::reduce(t64, v, cg::plus<int>());
    o[2] = cg::reduce(t128, v, cg::greater<int>());
    o[3] = t64.shfl(v, 41);
    exchange[threadIdx.x] = v * 3;
    t64.sync();
    o[4] = exchange[(threadIdx.x / 64) * 64 + (63 - t64.thread_rank())];
    o[5] = (int)(t128.meta_group_rank() * 1000 + t128.thread_rank());
}
