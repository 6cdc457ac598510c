// A block-wide barrier after an early return: the threads past the end of
// the array return, the others stage their element in shared memory, wait
// at __syncthreads() and write the block's valid elements reversed. From
// Volta on a barrier counts only the threads that have not exited, so the
// last, partly filled block completes it without its returned threads (its
// last warp arrives with 8 of its 32 lanes). numba-cuda's doc examples and
// many hand-written kernels do this.
extern "C" __global__ void early_return_barrier(const int* in, int* out, int n) {
    __shared__ int tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    tile[threadIdx.x] = in[i];
    __syncthreads();
    int valid = min((int)blockDim.x, n - (int)(blockIdx.x * blockDim.x));
    out[i] = tile[valid - 1 - threadIdx.x] * 3 + 1;
}
