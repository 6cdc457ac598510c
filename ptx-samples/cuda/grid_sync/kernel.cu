// Cooperative groups' grid-wide sync (needs a cooperative launch: all blocks
// resident at once). Three phases over a global array, each reading what
// other blocks wrote in the phase before: every thread writes its index, the
// grid syncs, every thread adds its right neighbour's value (wrapping around
// the whole grid), the grid syncs, and block 0 sums everything by grid-stride
// loops with a block reduction. this_grid().sync() reads the workspace the
// driver passes in %envreg1/%envreg2, arrives with atom.add.release.gpu and
// spins on ld.acquire.gpu.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void grid_sync(int *a, int *b, long long *total, int n) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    const int i = (int)grid.thread_rank();
    const int threads = (int)grid.size();
    for (int k = i; k < n; k += threads) a[k] = k * 3 + 1;
    grid.sync();
    for (int k = i; k < n; k += threads) b[k] = a[k] + a[(k + 1) % n];
    grid.sync();
    __shared__ long long partial[256];
    if (blockIdx.x == 0) {
        long long s = 0;
        for (int k = threadIdx.x; k < n; k += blockDim.x) s += b[k];
        partial[threadIdx.x] = s;
        block.sync();
        for (int w = blockDim.x / 2; w > 0; w /= 2) {
            if (threadIdx.x < w) partial[threadIdx.x] += partial[threadIdx.x + w];
            block.sync();
        }
        if (threadIdx.x == 0) *total = partial[0] + (long long)grid.num_blocks() * 1000000;
    }
}
