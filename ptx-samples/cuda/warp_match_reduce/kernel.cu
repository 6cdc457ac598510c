// Warp match and warp reduce intrinsics on data with repeated values.
// __match_any_sync / __match_all_sync need sm_70; __reduce_*_sync (redux.sync)
// need sm_80, so older targets fall back to shuffles over the lanes of the mask.
// Also the warp-aggregated "histogram by key" pattern: lanes with equal keys
// form a group, reduce within the group, and the group leader does one atomic.
// Per-lane outputs out[k * n + tid].

#define FULL_MASK 0xffffffffu

namespace warp {

__device__ __forceinline__ unsigned int lanemask_lt()
{
    unsigned int m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}

#if __CUDA_ARCH__ >= 800
__device__ __forceinline__ unsigned int add(unsigned int mask, unsigned int v) { return __reduce_add_sync(mask, v); }
__device__ __forceinline__ int add(unsigned int mask, int v) { return __reduce_add_sync(mask, v); }
__device__ __forceinline__ unsigned int min(unsigned int mask, unsigned int v) { return __reduce_min_sync(mask, v); }
__device__ __forceinline__ int min(unsigned int mask, int v) { return __reduce_min_sync(mask, v); }
__device__ __forceinline__ unsigned int max(unsigned int mask, unsigned int v) { return __reduce_max_sync(mask, v); }
__device__ __forceinline__ int max(unsigned int mask, int v) { return __reduce_max_sync(mask, v); }
__device__ __forceinline__ unsigned int bit_and(unsigned int mask, unsigned int v) { return __reduce_and_sync(mask, v); }
__device__ __forceinline__ unsigned int bit_or(unsigned int mask, unsigned int v) { return __reduce_or_sync(mask, v); }
__device__ __forceinline__ unsigned int bit_xor(unsigned int mask, unsigned int v) { return __reduce_xor_sync(mask, v); }
#else
// Fallback: every lane of `mask` walks the set bits of `mask` and reads each
// member once; all members execute the same shuffles with the same mask.
template <typename T, typename Op>
__device__ __forceinline__ T reduce_generic(unsigned int mask, T v, Op op)
{
    unsigned int rest = mask;
    int src = __ffs(rest) - 1;
    T acc = __shfl_sync(mask, v, src);
    rest &= rest - 1;
    #pragma unroll 1
    while (rest) {
        src = __ffs(rest) - 1;
        acc = op(acc, __shfl_sync(mask, v, src));
        rest &= rest - 1;
    }
    return acc;
}
struct OpAdd { template <typename T> __device__ T operator()(T a, T b) const { return a + b; } };
struct OpMin { template <typename T> __device__ T operator()(T a, T b) const { return b < a ? b : a; } };
struct OpMax { template <typename T> __device__ T operator()(T a, T b) const { return b > a ? b : a; } };
struct OpAnd { __device__ unsigned int operator()(unsigned int a, unsigned int b) const { return a & b; } };
struct OpOr  { __device__ unsigned int operator()(unsigned int a, unsigned int b) const { return a | b; } };
struct OpXor { __device__ unsigned int operator()(unsigned int a, unsigned int b) const { return a ^ b; } };
__device__ __forceinline__ unsigned int add(unsigned int mask, unsigned int v) { return reduce_generic(mask, v, OpAdd()); }
__device__ __forceinline__ int add(unsigned int mask, int v) { return reduce_generic(mask, v, OpAdd()); }
__device__ __forceinline__ unsigned int min(unsigned int mask, unsigned int v) { return reduce_generic(mask, v, OpMin()); }
__device__ __forceinline__ int min(unsigned int mask, int v) { return reduce_generic(mask, v, OpMin()); }
__device__ __forceinline__ unsigned int max(unsigned int mask, unsigned int v) { return reduce_generic(mask, v, OpMax()); }
__device__ __forceinline__ int max(unsigned int mask, int v) { return reduce_generic(mask, v, OpMax()); }
__device__ __forceinline__ unsigned int bit_and(unsigned int mask, unsigned int v) { return reduce_generic(mask, v, OpAnd()); }
__device__ __forceinline__ unsigned int bit_or(unsigned int mask, unsigned int v) { return reduce_generic(mask, v, OpOr()); }
__device__ __forceinline__ unsigned int bit_xor(unsigned int mask, unsigned int v) { return reduce_generic(mask, v, OpXor()); }
#endif

} // namespace warp

enum { NOUT = 18 };

__global__ void warp_match_reduce_kernel(const int* __restrict__ keys,
                                         const int* __restrict__ svals,
                                         const unsigned int* __restrict__ uvals,
                                         const float* __restrict__ fkeys,
                                         int n,
                                         unsigned int* __restrict__ out,
                                         int* __restrict__ key_totals)   // 8 keys
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    // n is a multiple of 32: every warp is full.

    const int key = keys[tid];
    const int s = svals[tid];
    const unsigned int u = uvals[tid];
    const float fk = fkeys[tid];

    unsigned int r[NOUT];
    const unsigned int group = __match_any_sync(FULL_MASK, key);
    int all_same;
    r[0] = group;
    r[1] = __match_all_sync(FULL_MASK, key, &all_same);
    r[2] = (unsigned int)all_same;
    const unsigned long long key64 = ((unsigned long long)key << 40) | (unsigned long long)(u & 1u);
    r[3] = __match_any_sync(FULL_MASK, key64);
    r[4] = __match_any_sync(FULL_MASK, fk);          // compares bit patterns: -0.0f != +0.0f

    r[5] = warp::add(FULL_MASK, u);
    r[6] = (unsigned int)warp::min(FULL_MASK, s);
    r[7] = (unsigned int)warp::max(FULL_MASK, s);
    r[8] = warp::min(FULL_MASK, u);
    r[9] = warp::max(FULL_MASK, u);
    r[10] = warp::bit_and(FULL_MASK, u);
    r[11] = warp::bit_or(FULL_MASK, u);
    r[12] = warp::bit_xor(FULL_MASK, u);
    r[13] = (unsigned int)warp::add(FULL_MASK, s);

    // Per-key groups: reduce among the lanes that share this lane's key.
    const int group_sum = warp::add(group, s);
    r[14] = (unsigned int)group_sum;
    r[15] = (unsigned int)warp::max(group, s);
    const int leader = __ffs(group) - 1;
    r[16] = (unsigned int)(lane == leader);
    r[17] = (unsigned int)__popc(group & warp::lanemask_lt());
    if (lane == leader) atomicAdd(&key_totals[key], group_sum);

    #pragma unroll
    for (int k = 0; k < NOUT; k++) out[k * n + tid] = r[k];
}
