// Compiled by clang without the CUDA SDK (-nocudainc -nocudalib): the few CUDA declarations
// the kernel needs come from clang itself (builtin variables, __syncthreads, __nvvm_* builtins).
#include <__clang_cuda_builtin_vars.h> // threadIdx, blockIdx, blockDim, gridDim
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

// y = a * x + y (single-precision BLAS saxpy); clang contracts a * x[i] + y[i] into fma.rn.f32.
extern "C" __global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
