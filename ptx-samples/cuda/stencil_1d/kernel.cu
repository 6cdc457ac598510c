// 1D weighted stencil of radius 3 with a shared-memory tile plus halo.
// Each block stages BLOCK_SIZE + 2*RADIUS inputs in shared memory: every thread
// loads its own element, the first RADIUS threads also load the left and right
// halos. Elements outside [0, n) count as zero. Weights live in constant memory
// (set by the host with cudaMemcpyToSymbol).

#define RADIUS 3
#define BLOCK_SIZE 256

__constant__ int c_weights[2 * RADIUS + 1];

extern "C" __global__ void stencil_1d(const int *in, int *out, int n)
{
    __shared__ int temp[BLOCK_SIZE + 2 * RADIUS];

    int gindex = blockIdx.x * blockDim.x + threadIdx.x;
    int lindex = threadIdx.x + RADIUS;

    temp[lindex] = gindex < n ? in[gindex] : 0;
    if (threadIdx.x < RADIUS) {
        int left = gindex - RADIUS;
        int right = gindex + BLOCK_SIZE;
        temp[lindex - RADIUS] = (left >= 0 && left < n) ? in[left] : 0;
        temp[lindex + BLOCK_SIZE] = right < n ? in[right] : 0;
    }
    __syncthreads();

    if (gindex < n) {
        int result = 0;
#pragma unroll
        for (int offset = -RADIUS; offset <= RADIUS; offset++)
            result += c_weights[offset + RADIUS] * temp[lindex + offset];
        out[gindex] = result;
    }
}
