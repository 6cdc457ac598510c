// In-block bitonic sort of SORT_N unsigned keys in shared memory.
// Each block sorts its own SORT_N-element chunk ascending; SORT_N/2 threads,
// each thread owning one compare-exchange per stage (the pair i, i^j with
// i < i^j), with a barrier between stages.

#define SORT_N 1024

__device__ __forceinline__ void compare_swap(unsigned int &a, unsigned int &b, bool ascending)
{
    if ((a > b) == ascending) {
        unsigned int t = a;
        a = b;
        b = t;
    }
}

extern "C" __global__ void bitonic_sort_block(const unsigned int *keys_in, unsigned int *keys_out)
{
    __shared__ unsigned int s[SORT_N];

    const unsigned int tid = threadIdx.x;
    const unsigned int base = blockIdx.x * SORT_N;

    // blockDim.x == SORT_N / 2: every thread loads two keys.
    s[tid] = keys_in[base + tid];
    s[tid + SORT_N / 2] = keys_in[base + tid + SORT_N / 2];
    __syncthreads();

    for (unsigned int k = 2; k <= SORT_N; k <<= 1) {
        for (unsigned int j = k >> 1; j > 0; j >>= 1) {
            // Map thread -> lower index of its pair: insert a 0 bit at position log2(j).
            unsigned int i = 2 * tid - (tid & (j - 1));
            unsigned int ixj = i | j;
            bool ascending = (i & k) == 0;
            compare_swap(s[i], s[ixj], ascending);
            __syncthreads();
        }
    }

    keys_out[base + tid] = s[tid];
    keys_out[base + tid + SORT_N / 2] = s[tid + SORT_N / 2];
}
