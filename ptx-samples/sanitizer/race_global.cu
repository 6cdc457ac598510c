// Racecheck of global memory within a block: kernels with a race between
// threads of one block through global memory (no barrier between a write
// and another thread's access), and the same kernels made correct.

// In-place inclusive scan of each block's slice of `a`, with the barrier
// between the read and the write missing (Hillis-Steele needs both).
extern "C" __global__ void gscan_missing_barrier(int *a)
{
    int *s = a + blockIdx.x * blockDim.x;
    int t = threadIdx.x;
    for (int d = 1; d < blockDim.x; d *= 2) {
        int v = t >= d ? s[t - d] : 0;
        s[t] += v;
        __syncthreads();
    }
}

// Each thread stores its value, then reads its right neighbour's in the
// block without waiting for it.
extern "C" __global__ void gneighbour_missing_barrier(const float *in, float *tmp, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        tmp[i] = in[i] * 2.0f;
    int j = threadIdx.x + 1 < blockDim.x && i + 1 < n ? i + 1 : i;
    if (i < n)
        out[i] = tmp[i] + tmp[j];
}

// A counter in global memory incremented with a plain read-modify-write
// by every thread of the block (atomicAdd was needed).
extern "C" __global__ void gcounter_plain_increment(int *counter)
{
    if (threadIdx.x % 32 == 0)
        *counter = *counter + 1;
}

// The scan done right: a barrier between the read and the write.
extern "C" __global__ void gscan_ok(int *a)
{
    int *s = a + blockIdx.x * blockDim.x;
    int t = threadIdx.x;
    for (int d = 1; d < blockDim.x; d *= 2) {
        int v = t >= d ? s[t - d] : 0;
        __syncthreads();
        s[t] += v;
        __syncthreads();
    }
}

// The neighbour exchange done right (the neighbour in the block).
extern "C" __global__ void gneighbour_ok(const float *in, float *tmp, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        tmp[i] = in[i] * 2.0f;
    __syncthreads();
    int j = threadIdx.x + 1 < blockDim.x && i + 1 < n ? i + 1 : i;
    if (i < n)
        out[i] = tmp[i] + tmp[j];
}

// Every block writes the same word (a race between blocks, which
// racecheck does not compare) and one thread per block reads it back
// after a barrier: no report.
extern "C" __global__ void gblocks_share_a_word(int *word, int *out)
{
    if (threadIdx.x == 0)
        *word = 7;
    __syncthreads();
    if (threadIdx.x == 1)
        out[blockIdx.x] = *word;
}
