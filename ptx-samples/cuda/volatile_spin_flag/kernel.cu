// Single-pass sum with the "last block done" pattern of the CUDA
// threadFenceReduction sample: every block writes its partial sum, makes it
// visible with __threadfence(), takes a ticket with atomicInc, and the block
// that draws the last ticket adds up all partials (read through a volatile
// pointer) and resets the ticket counter for the next launch.
// No block ever waits for another block, so any block schedule works.

#define BLOCK_SIZE 128

__device__ unsigned int retirementCount = 0;

__device__ int blockSum(int v, int* sdata)
{
    const unsigned int tid = threadIdx.x;
    sdata[tid] = v;
    __syncthreads();
    for (unsigned int s = BLOCK_SIZE / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        volatile int* vs = sdata;
        for (unsigned int offset = 32; offset > 0; offset >>= 1) {
            int t = vs[tid] + vs[tid + offset];
            __syncwarp();
            vs[tid] = t;
            __threadfence_block();
            __syncwarp();
        }
    }
    __syncthreads();
    return sdata[0];
}

extern "C" __global__ void sum_single_pass(const int* __restrict__ in, int n,
                                           volatile int* partials,   // gridDim.x
                                           int* total,
                                           unsigned int* last_blocks)  // how many blocks saw themselves last
{
    __shared__ int sdata[BLOCK_SIZE];
    __shared__ bool amLast;

    int acc = 0;
    for (int i = blockIdx.x * BLOCK_SIZE + threadIdx.x; i < n; i += BLOCK_SIZE * gridDim.x)
        acc += in[i];
    const int bsum = blockSum(acc, sdata);

    if (threadIdx.x == 0) {
        partials[blockIdx.x] = bsum;
        // Make the partial visible to all blocks before taking the ticket.
        __threadfence();
        const unsigned int ticket = atomicInc(&retirementCount, gridDim.x);
        amLast = (ticket == gridDim.x - 1);
    }
    __syncthreads();

    if (amLast) {
        int s = 0;
        for (unsigned int b = threadIdx.x; b < gridDim.x; b += BLOCK_SIZE)
            s += partials[b];
        __syncthreads();   // sdata is reused
        const int grand = blockSum(s, sdata);
        if (threadIdx.x == 0) {
            *total = grand;
            atomicAdd(last_blocks, 1u);
            retirementCount = 0;
        }
    }
}
