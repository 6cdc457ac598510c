// Compiled by clang without the CUDA SDK (-nocudainc -nocudalib): the few CUDA declarations
// the kernel needs come from clang itself (builtin variables, __syncthreads, __nvvm_* builtins).
#include <__clang_cuda_builtin_vars.h> // threadIdx, blockIdx, blockDim, gridDim
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

// Inclusive prefix sum of each block's elements (Hillis-Steele, double-buffered in dynamic shared
// memory of 2 * blockDim.x ints); the last thread also writes the block total, for a second pass.
__global__ void __attribute__((launch_bounds(256)))
prefix_sum_block(const int* in, int* out, int* block_sums, int n) {
    extern __shared__ int temp[];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    int pout = 0, pin = 1;
    temp[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        int v = temp[pin * blockDim.x + tid];
        if (tid >= offset)
            v += temp[pin * blockDim.x + tid - offset];
        temp[pout * blockDim.x + tid] = v;
        __syncthreads();
    }
    int total = temp[pout * blockDim.x + tid];
    if (i < n)
        out[i] = total;
    if (tid == blockDim.x - 1)
        block_sums[blockIdx.x] = total;
}
