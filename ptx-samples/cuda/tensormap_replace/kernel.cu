// A tensor map rewritten on the device (sm_90a): each block's thread 0
// copies the __grid_constant__ map (u32 16x4 over `a`, box 4x2) into shared
// memory and replaces every field with libcu++'s cuda::ptx::tensormap_replace_*
// (tensormap.replace.tile.<field>.shared::cta.b1024.{b32,b64}): the address
// becomes `b`, the rank 2 (encoded as 1), the dimensions 8x6 with a 32-byte
// row stride, the box 8x3 with element strides 2 and 1, the element type
// .f32 (7) with the NaN fill, no swizzle, no interleave. It publishes the
// map to its own global slot with tensormap.cp_fenceproxy, acquires it with
// fence.proxy.tensormap::generic, and loads one box through it
// (cp.async.bulk.tensor.2d, cuda::barrier transaction count) at a
// per-block corner that reaches past the tensor's edges, where elements
// arrive as NaN. Threads 0..11 write the 12 elements out.
#include <cuda/barrier>
#include <cuda/ptx>
#pragma nv_diag_suppress static_var_with_dynamic_init
namespace ptx = cuda::ptx;

// The driver's CUtensorMap: 128 opaque bytes, 64-byte aligned.
struct alignas(64) TensorMap {
    unsigned char bytes[128];
};

constexpr int BOX = 12;  // 4 columns (8 with stride 2) x 3 rows

extern "C" __global__ void tensormap_replace(const unsigned* a, const float* b,
                                             TensorMap* maps, unsigned* out,
                                             const __grid_constant__ TensorMap a_map)
{
    __shared__ alignas(128) TensorMap desc;
    __shared__ alignas(128) unsigned tile[BOX];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    TensorMap* mine = &maps[blockIdx.x];
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        for (int i = 0; i < 128; ++i) {
            desc.bytes[i] = a_map.bytes[i];
        }
        ptx::tensormap_replace_global_address(ptx::space_shared, &desc, (unsigned long long)b);
        ptx::tensormap_replace_rank(ptx::space_shared, &desc, 1u);
        ptx::tensormap_replace_global_dim(ptx::space_shared, &desc, ptx::n32_t<0>(), 8u);
        ptx::tensormap_replace_global_dim(ptx::space_shared, &desc, ptx::n32_t<1>(), 6u);
        ptx::tensormap_replace_global_stride(ptx::space_shared, &desc, ptx::n32_t<0>(),
                                             (unsigned long long)(8 * sizeof(float)));
        ptx::tensormap_replace_box_dim(ptx::space_shared, &desc, ptx::n32_t<0>(), 8u);
        ptx::tensormap_replace_box_dim(ptx::space_shared, &desc, ptx::n32_t<1>(), 3u);
        ptx::tensormap_replace_element_stride(ptx::space_shared, &desc, ptx::n32_t<0>(), 2u);
        ptx::tensormap_replace_element_stride(ptx::space_shared, &desc, ptx::n32_t<1>(), 1u);
        ptx::tensormap_replace_elemtype(ptx::space_shared, &desc, ptx::n32_t<7>());
        ptx::tensormap_replace_fill_mode(ptx::space_shared, &desc, ptx::n32_t<1>());
        ptx::tensormap_replace_swizzle_mode(ptx::space_shared, &desc, ptx::n32_t<0>());
        ptx::tensormap_replace_interleave_layout(ptx::space_shared, &desc, ptx::n32_t<0>());
        ptx::tensormap_cp_fenceproxy(ptx::sem_release, ptx::scope_gpu, mine, &desc,
                                     ptx::n32_t<128>());
        ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_gpu, mine,
                                           ptx::n32_t<128>());
    }
    __syncthreads();
    cuda::barrier<cuda::thread_scope_block>::arrival_token token;
    if (threadIdx.x == 0) {
        const int32_t coords[2] = {(int)(blockIdx.x % 3) * 3 - 2, (int)(blockIdx.x / 3) * 4 - 1};
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, mine, coords,
                                  cuda::device::barrier_native_handle(bar));
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));
    if (threadIdx.x < BOX) {
        out[blockIdx.x * BOX + threadIdx.x] = tile[threadIdx.x];
    }
}
