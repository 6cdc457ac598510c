// Classic shared-memory tree reduction (one partial sum per block).
// Each thread first adds two elements while loading ("first add during load"),
// then the block halves the active range each step with __syncthreads().
// The same kernel reduces an int32 array (exact) and a float array.

#define BLOCK_SIZE 256

extern "C" __global__ void reduce_sum_block(const int *__restrict__ in_i,
                                            const float *__restrict__ in_f,
                                            int *__restrict__ block_sums_i,
                                            float *__restrict__ block_sums_f,
                                            unsigned int n)
{
    __shared__ int   s_i[BLOCK_SIZE];
    __shared__ float s_f[BLOCK_SIZE];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;

    int   vi = 0;
    float vf = 0.0f;
    if (i < n) {
        vi = in_i[i];
        vf = in_f[i];
    }
    if (i + blockDim.x < n) {
        vi += in_i[i + blockDim.x];
        vf += in_f[i + blockDim.x];
    }
    s_i[tid] = vi;
    s_f[tid] = vf;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            s_i[tid] += s_i[tid + s];
            s_f[tid] += s_f[tid + s];
        }
        __syncthreads();
    }

    if (tid == 0) {
        block_sums_i[blockIdx.x] = s_i[0];
        block_sums_f[blockIdx.x] = s_f[0];
    }
}
