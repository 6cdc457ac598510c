// Block-wide sum reduction, the modern pattern: grid-stride accumulation per
// thread, __shfl_down_sync tree inside each warp, one partial per warp in
// shared memory, the first warp reduces the partials, and one global atomicAdd
// per block into the grand total.

#define FULL_MASK 0xffffffffu

template <typename T>
__device__ __forceinline__ T warpReduceSum(T v)
{
    #pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

template <unsigned int BLOCK_SIZE, typename T>
__device__ T blockReduceSum(T v)
{
    static_assert(BLOCK_SIZE % 32 == 0, "whole warps only");
    constexpr unsigned int NUM_WARPS = BLOCK_SIZE / 32;
    __shared__ T warp_sums[NUM_WARPS];
    const unsigned int lane = threadIdx.x & 31;
    const unsigned int wid = threadIdx.x >> 5;

    v = warpReduceSum(v);
    if (lane == 0) warp_sums[wid] = v;
    __syncthreads();

    v = (threadIdx.x < NUM_WARPS) ? warp_sums[lane] : T(0);
    if (wid == 0) v = warpReduceSum(v);
    return v;   // valid in thread 0
}

template <unsigned int BLOCK_SIZE>
__global__ void __launch_bounds__(BLOCK_SIZE)
reduce_sum(const int* __restrict__ in_i, const float* __restrict__ in_f, int n,
           int* __restrict__ block_i, float* __restrict__ block_f,
           int* total_i, float* total_f)
{
    int acc_i = 0;
    float acc_f = 0.0f;
    for (int i = blockIdx.x * BLOCK_SIZE + threadIdx.x; i < n; i += BLOCK_SIZE * gridDim.x) {
        acc_i += in_i[i];
        acc_f += in_f[i];
    }
    acc_i = blockReduceSum<BLOCK_SIZE>(acc_i);
    __syncthreads();   // the shared partials are reused by the second reduction
    acc_f = blockReduceSum<BLOCK_SIZE>(acc_f);
    if (threadIdx.x == 0) {
        block_i[blockIdx.x] = acc_i;
        block_f[blockIdx.x] = acc_f;
        atomicAdd(total_i, acc_i);
        atomicAdd(total_f, acc_f);
    }
}

template __global__ void reduce_sum<256>(const int*, const float*, int, int*, float*, int*, float*);
