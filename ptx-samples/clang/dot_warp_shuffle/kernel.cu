// Compiled by clang without the CUDA SDK (-nocudainc -nocudalib): the few CUDA declarations
// the kernel needs come from clang itself (builtin variables, __syncthreads, __nvvm_* builtins).
#include <__clang_cuda_builtin_vars.h> // threadIdx, blockIdx, blockDim, gridDim
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

__device__ inline int __shfl_down_sync(unsigned mask, int v, unsigned delta) {
    return __nvvm_shfl_sync_down_i32(mask, v, delta, 0x1f);
}
__device__ inline int atomicAdd(int* address, int val) { return __nvvm_atom_add_gen_i(address, val); }

// Integer dot product: a grid-stride loop per thread, a warp reduction with shuffles, and one
// atomicAdd per warp into *result.
extern "C" __global__ void dot_warp_shuffle(const int* a, const int* b, int* result, int n) {
    int sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += a[i] * b[i];
    for (int offset = 16; offset > 0; offset >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(result, sum);
}
