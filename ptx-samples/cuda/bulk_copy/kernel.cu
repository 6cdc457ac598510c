// Hopper's bulk copies without a tensor map, as libcu++ writes them:
// cuda::memcpy_async of a 16-byte-aligned size into shared memory with a
// cuda::barrier becomes cp.async.bulk.shared::cluster.global with
// mbarrier::complete_tx::bytes (the barrier's expected transaction count
// set after the copy was issued); the result goes back with
// cuda::ptx's cp.async.bulk.global.shared::cta.bulk_group, its
// commit_group and wait_group.read, after fence.proxy.async.
#include <cuda/barrier>
#include <cuda/ptx>
#pragma nv_diag_suppress static_var_with_dynamic_init
namespace ptx = cuda::ptx;

constexpr int TILE = 1024;

extern "C" __global__ void bulk_copy(const int* in, int* out)
{
    __shared__ alignas(128) int tile[TILE];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
    }
    __syncthreads();
    // One thread issues the tile's copy (a bulk copy is one transfer);
    // every thread arrives and waits for the bytes.
    if (threadIdx.x == 0) {
        const int* src = in + blockIdx.x * TILE;
        cuda::memcpy_async(tile, src, cuda::aligned_size_t<16>(sizeof(int) * TILE), bar);
    }
    bar.arrive_and_wait();
    for (int i = threadIdx.x; i < TILE; i += blockDim.x) {
        tile[i] = tile[i] * 3 + (int)blockIdx.x;
    }
    ptx::fence_proxy_async(ptx::space_shared);
    __syncthreads();
    if (threadIdx.x == 0) {
        ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, out + blockIdx.x * TILE, tile,
                           sizeof(int) * TILE);
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
    }
}
