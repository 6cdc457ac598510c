// 256-bin byte histogram with privatized per-block histograms in shared memory.
// Threads walk the input with a grid-stride loop and atomicAdd into the block's
// shared histogram; after a barrier, each block merges its non-zero bins into
// the global histogram with global atomicAdd.

#define NUM_BINS 256

__global__ void histogram256(const unsigned char *data, unsigned int n, unsigned int *hist)
{
    __shared__ unsigned int s_hist[NUM_BINS];

    for (unsigned int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
        s_hist[b] = 0;
    __syncthreads();

    unsigned int stride = blockDim.x * gridDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&s_hist[data[i]], 1u);
    __syncthreads();

    for (unsigned int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
        unsigned int count = s_hist[b];
        if (count != 0)
            atomicAdd(&hist[b], count);
    }
}
