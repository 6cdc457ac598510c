// warpSize, which NVRTC emits as PTX's predefined identifier WARP_SZ: each thread
// writes its warp and lane numbers computed from it (a division and a remainder by
// warpSize, which the compiler cannot fold since WARP_SZ is a run-time constant),
// and the number of warps of its block.
extern "C" __global__ void warp_size_kernel(int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int warp = threadIdx.x / warpSize;
        int lane = threadIdx.x % warpSize;
        int warps = (blockDim.x + warpSize - 1) / warpSize;
        out[i] = lane + 100 * warp + 10000 * warps + 1000000 * warpSize;
    }
}
