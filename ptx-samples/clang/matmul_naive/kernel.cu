// Compiled by clang without the CUDA SDK (-nocudainc -nocudalib): the few CUDA declarations
// the kernel needs come from clang itself (builtin variables, __syncthreads, __nvvm_* builtins).
#include <__clang_cuda_builtin_vars.h> // threadIdx, blockIdx, blockDim, gridDim
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

// Naive f32 matrix multiply C = A * B (row-major, A is MxK, B is KxN), one thread per element of C.
// The k loop accumulates in order; clang contracts acc + a * b into fma.rn.f32.
__global__ void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
