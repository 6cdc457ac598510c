// Bulk reductions without a tensor map (sm_90), as cuda::ptx writes them:
// each CTA reduces arrays of its shared memory element-wise into global
// accumulators with cp.reduce.async.bulk.global.shared::cta.bulk_group
// (add of u32, f32, f64 and f16 (.noftz), min of s64, max of bf16, inc of
// u32, xor of b64), every CTA into the same ones; and in clusters of two,
// each CTA reduces 64 u32 into its neighbour's shared memory with
// cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx
// ::bytes.add.u32, completing on the neighbour's mbarrier, which waits
// for it and writes the sums out. The values are small integers, so every
// order of the CTAs' reductions gives the same sums.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cooperative_groups.h>
#include <cuda/ptx>
namespace ptx = cuda::ptx;
namespace cg = cooperative_groups;

constexpr int N = 256;
constexpr int M = 64;

struct Accumulators {
    unsigned u32[N];
    float f32[N];
    double f64[N];
    long long s64[N];
    unsigned inc[N];
    unsigned long long b64[N];
    __half f16[N];
    __nv_bfloat16 bf16[N];
};

extern "C" __global__ void __cluster_dims__(2, 1, 1) bulk_reduce(Accumulators* acc, unsigned* pair_out)
{
    __shared__ alignas(16) unsigned s_u32[N];
    __shared__ alignas(16) float s_f32[N];
    __shared__ alignas(16) double s_f64[N];
    __shared__ alignas(16) long long s_s64[N];
    __shared__ alignas(16) unsigned s_inc[N];
    __shared__ alignas(16) unsigned long long s_b64[N];
    __shared__ alignas(16) __half s_f16[N];
    __shared__ alignas(16) __nv_bfloat16 s_bf16[N];
    __shared__ alignas(16) unsigned s_mine[M];
    __shared__ alignas(16) unsigned s_sum[M];
    __shared__ alignas(8) uint64_t bar;
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();
    const int b = blockIdx.x;
    for (int i = threadIdx.x; i < N; i += blockDim.x) {
        s_u32[i] = 1000u * b + i;
        s_f32[i] = (float)(i % 17 - 8) * 0.5f * (float)(b + 1);
        s_f64[i] = (double)(i * (b + 3)) * 0.25;
        s_s64[i] = (long long)(i * 37 % 101 - 50) * (b + 1) * 1000000000LL;
        s_inc[i] = 5 + (i % 3);
        s_b64[i] = 0x9e3779b97f4a7c15ULL * (unsigned long long)(i + 7 * b);
        s_f16[i] = __float2half((float)((i + b) % 9) - 3.0f);
        s_bf16[i] = __float2bfloat16((float)((i * 5 + b * 11) % 23) - 11.0f);
    }
    for (int i = threadIdx.x; i < M; i += blockDim.x) {
        s_mine[i] = 100u * (b + 1) + i;
        s_sum[i] = i;
    }
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    // The threads' shared-memory writes, visible to the copies.
    ptx::fence_proxy_async(ptx::space_shared);
    cluster.sync();
    if (threadIdx.x == 0) {
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_add, acc->u32, s_u32, sizeof(s_u32));
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_add, acc->f32, s_f32, sizeof(s_f32));
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_add, acc->f64, s_f64, sizeof(s_f64));
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_min, (int64_t*)acc->s64, (const int64_t*)s_s64, sizeof(s_s64));
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_inc, acc->inc, s_inc, sizeof(s_inc));
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_xor_op, acc->b64, s_b64, sizeof(s_b64));
        // libcu++ declares the f16 and bf16 forms only where its half types
        // are enabled (not under NVRTC here): its asm strings, inline.
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [%0], [%1], %2;"
                     :
                     : "l"(acc->f16), "r"((unsigned)__cvta_generic_to_shared(s_f16)), "r"((unsigned)sizeof(s_f16))
                     : "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.max.bf16 [%0], [%1], %2;"
                     :
                     : "l"(acc->bf16), "r"((unsigned)__cvta_generic_to_shared(s_bf16)), "r"((unsigned)sizeof(s_bf16))
                     : "memory");
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
        // Into the neighbour's shared memory, completing on its mbarrier;
        // this CTA's own expects the neighbour's 256 bytes.
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(s_mine));
        const unsigned peer = rank ^ 1;
        unsigned* dst = cluster.map_shared_rank(s_sum, peer);
        uint64_t* peer_bar = cluster.map_shared_rank(&bar, peer);
        ptx::cp_reduce_async_bulk(ptx::space_cluster, ptx::space_shared, ptx::op_add, dst, s_mine, sizeof(s_mine), peer_bar);
    }
    while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
    }
    for (int i = threadIdx.x; i < M; i += blockDim.x) {
        pair_out[b * M + i] = s_sum[i];
    }
    cluster.sync();
}
