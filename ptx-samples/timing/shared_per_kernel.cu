// Two kernels in one module: NVRTC declares each kernel's __shared__ arrays
// at module scope, but a block of each kernel has only its own (ptxas lays
// shared memory out per kernel). The timing model's occupancy must charge
// `uses_shared` 48 KiB per block and `no_shared` nothing.

extern "C" __global__ void uses_shared(float* out) {
    __shared__ float tile[12288];
    tile[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}

__device__ __noinline__ float helper_tile(int i) {
    __shared__ float small[256];
    small[i] = i;
    __syncthreads();
    return small[255 - i];
}

extern "C" __global__ void calls_helper(float* out) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = helper_tile(threadIdx.x);
}

extern "C" __global__ void no_shared(float* out) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = 2.0f * threadIdx.x;
}
