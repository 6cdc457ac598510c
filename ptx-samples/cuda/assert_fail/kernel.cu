// Histogram-bin scatter with a device-side bounds assertion. Exactly one input
// (element 101 = block 1, thread 37 with 64 threads per block) holds an invalid
// bin index, so that thread's assert fails and the launch reports it.
__device__ int bin_of(int key, int nbins)
{
    return key % nbins;
}

__global__ void scatter_checked(const int* __restrict__ bins,
                                const float* __restrict__ values,
                                float* __restrict__ out,
                                int nbins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int b = bins[i];
    assert(b >= 0 && b < nbins);
    out[i] = values[i] * (float)(bin_of(b, nbins) + 1);
}
