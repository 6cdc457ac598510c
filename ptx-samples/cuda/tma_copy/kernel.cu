// Hopper's tensor memory accelerator as libcu++ drives it: each block
// loads one 32x8 box of a 100x40 float tensor into shared memory with
// cuda::ptx::cp_async_bulk_tensor (cp.async.bulk.tensor.2d.shared::cluster
// .global.tile.mbarrier::complete_tx::bytes) and a cuda::barrier whose
// transaction count the box's bytes complete; the tensor maps use the
// 128-byte swizzle, so a box row's 16-byte chunk j sits at chunk j ^ (row
// % 8), which the kernel undoes to find element (r, c). Boxes on the right
// and bottom edges reach past the tensor: those elements arrive as zeros.
// Each element becomes 2 * v + (sum of its box row) + c, written back in
// place, and the box goes to the output tensor with the tensor store
// (cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group), which
// writes only the in-bounds elements.
#include <cuda/barrier>
#include <cuda/ptx>
#pragma nv_diag_suppress static_var_with_dynamic_init
namespace ptx = cuda::ptx;

// The driver's CUtensorMap: 128 opaque bytes, 64-byte aligned.
struct alignas(64) TensorMap {
    unsigned char bytes[128];
};

constexpr int BOX_W = 32;  // floats: 128 bytes, the swizzle span
constexpr int BOX_H = 8;

// Byte offset of element (r, c) of the box in 128B-swizzled shared memory.
__device__ int swizzled(int r, int c)
{
    int byte = r * BOX_W * 4 + c * 4;
    int chunk = (byte >> 4) & 7;
    return (byte & ~0x70) | ((chunk ^ (r & 7)) << 4);
}

// `in` and `out` are the tensors the maps describe (the copies go through
// the maps only).
extern "C" __global__ void tma_copy(const float* in, float* out,
                                    const __grid_constant__ TensorMap in_map,
                                    const __grid_constant__ TensorMap out_map)
{
    __shared__ alignas(1024) float tile[BOX_H * BOX_W];
    __shared__ float row_sum[BOX_H];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    const int x0 = blockIdx.x * BOX_W;
    const int y0 = blockIdx.y * BOX_H;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
    }
    __syncthreads();
    cuda::barrier<cuda::thread_scope_block>::arrival_token token;
    if (threadIdx.x == 0) {
        const int32_t coords[2] = {x0, y0};
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, &in_map, coords,
                                  cuda::device::barrier_native_handle(bar));
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));

    const char* base = reinterpret_cast<const char*>(tile);
    if (threadIdx.x < BOX_H) {
        float s = 0.0f;
        for (int c = 0; c < BOX_W; ++c) {
            s += *reinterpret_cast<const float*>(base + swizzled(threadIdx.x, c));
        }
        row_sum[threadIdx.x] = s;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < BOX_H * BOX_W; i += blockDim.x) {
        const int r = i / BOX_W, c = i % BOX_W;
        float* p = reinterpret_cast<float*>(reinterpret_cast<char*>(tile) + swizzled(r, c));
        *p = 2.0f * *p + row_sum[r] + (float)c;
    }
    ptx::fence_proxy_async(ptx::space_shared);
    __syncthreads();
    if (threadIdx.x == 0) {
        const int32_t coords[2] = {x0, y0};
        ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &out_map, coords, tile);
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
    }
}
