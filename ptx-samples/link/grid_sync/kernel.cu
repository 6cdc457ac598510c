// A grid-wide barrier through the CUDA device runtime, called as numba-cuda
// and cooperative_groups.h call it (NVRTC declares these functions itself):
// with -rdc they are `.extern .func` calls that only libcudadevrt.a (GPU
// machine code) defines.
extern "C" __global__ void grid_sync_kernel(int* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    data[i] = 1;
    unsigned long long grid = cudaCGGetIntrinsicHandle(cudaCGScopeGrid);
    cudaCGSynchronizeGrid(grid, 0);
    data[i] += data[(i + 1) % n];
}
