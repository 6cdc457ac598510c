// A CUDA program compiled by clang's CUDA mode (clang++ -x cuda) against
// NVIDIA's runtime from PyPI, its device code embedded as PTX in a fatbin
// (cuda-shim/tools/fatbinary), run on warpjit's libcuda.so.1 by
// cuda-shim/clients/clang_cuda.sh. Kernels launched with <<<...>>>: a
// saxpy, a templated shared-memory block reduction, a kernel reading a
// __constant__ array set with cudaMemcpyToSymbol and writing a __device__
// counter read back with cudaMemcpyFromSymbol; each result checked on the
// host.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

template <int BLOCK>
__global__ void block_sums(const int *in, int *out, int n) {
  __shared__ int part[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  part[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = part[0];
}

__constant__ float weights[4];
__device__ unsigned int calls;

__global__ void weigh(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = weights[i % 4] * x[i];
    atomicAdd(&calls, 1u);
  }
}

#define CHECK(e)                                                              \
  do {                                                                        \
    cudaError_t err = (e);                                                    \
    if (err != cudaSuccess) {                                                 \
      printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err));     \
      return 1;                                                               \
    }                                                                         \
  } while (0)

int main() {
  const int n = 1000;
  static float x[n], y[n];
  static int v[n], sums[8];
  for (int i = 0; i < n; i++) { x[i] = i; y[i] = 1; v[i] = i % 7; }
  float *dx, *dy;
  int *dv, *dsums;
  CHECK(cudaMalloc(&dx, sizeof x));
  CHECK(cudaMalloc(&dy, sizeof y));
  CHECK(cudaMalloc(&dv, sizeof v));
  CHECK(cudaMalloc(&dsums, sizeof sums));
  CHECK(cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y, sizeof y, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dv, v, sizeof v, cudaMemcpyHostToDevice));
  saxpy<<<(n + 127) / 128, 128>>>(2.0f, dx, dy, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++)
    if (y[i] != 2.0f * i + 1) { printf("saxpy: y[%d] = %g\n", i, y[i]); return 1; }
  block_sums<128><<<8, 128>>>(dv, dsums, n);
  CHECK(cudaMemcpy(sums, dsums, sizeof sums, cudaMemcpyDeviceToHost));
  for (int b = 0; b < 8; b++) {
    int want = 0;
    for (int i = b * 128; i < (b + 1) * 128 && i < n; i++) want += v[i];
    if (sums[b] != want) { printf("block_sums: %d: %d, want %d\n", b, sums[b], want); return 1; }
  }
  const float w[4] = {0.5f, 1.0f, 2.0f, 4.0f};
  unsigned int zero = 0, count = 0;
  CHECK(cudaMemcpyToSymbol(weights, w, sizeof w));
  CHECK(cudaMemcpyToSymbol(calls, &zero, sizeof zero));
  weigh<<<(n + 255) / 256, 256>>>(dx, dy, n);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpyFromSymbol(&count, calls, sizeof count));
  for (int i = 0; i < n; i++)
    if (y[i] != w[i % 4] * i) { printf("weigh: y[%d] = %g\n", i, y[i]); return 1; }
  if (count != n) { printf("weigh: %u calls, want %d\n", count, n); return 1; }
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  printf("clang CUDA program on warpjit (%s): saxpy, block_sums<128>, __constant__/__device__ symbols OK\n", p.name);
  return 0;
}
