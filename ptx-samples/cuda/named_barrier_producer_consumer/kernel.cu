// Producer/consumer hand-off inside a block through named barriers (the
// CUTLASS-style bar.sync / bar.arrive pair on barriers 1 and 2, while
// __syncthreads keeps barrier 0), followed by the block-wide barrier
// reductions __syncthreads_count / _and / _or (bar.red.popc / and / or) and a
// warp-local shared-memory exchange ordered with __syncwarp.
//
// Warps 0-1 produce a 64-entry tile per round; warps 2-3 consume it.

#define PRODUCER_THREADS 64
#define CONSUMER_THREADS 64
#define BAR_FULL  1   // tile written, consumers may read
#define BAR_EMPTY 2   // tile read, producers may overwrite

__device__ __forceinline__ void named_barrier_sync(int id, int num_threads)
{
    asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(num_threads) : "memory");
}

__device__ __forceinline__ void named_barrier_arrive(int id, int num_threads)
{
    asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(num_threads) : "memory");
}

__global__ void producer_consumer(const int* __restrict__ tiles,   // gridDim.x * rounds * 64
                                  const int* __restrict__ vals,    // gridDim.x * blockDim.x
                                  int rounds,
                                  int* __restrict__ consumed,      // gridDim.x * 64
                                  int* __restrict__ stats,         // gridDim.x * 4
                                  int* __restrict__ warp_out)      // gridDim.x * blockDim.x
{
    __shared__ int tile[PRODUCER_THREADS];
    __shared__ int wbuf[128];
    const int t = threadIdx.x;
    const int lane = t & 31;
    const int nthreads = PRODUCER_THREADS + CONSUMER_THREADS;
    const bool producer = t < PRODUCER_THREADS;
    const int* my_tiles = tiles + blockIdx.x * rounds * PRODUCER_THREADS;

    int acc = 0;
    for (int r = 0; r < rounds; ++r) {
        if (producer) {
            if (r > 0) named_barrier_sync(BAR_EMPTY, nthreads);
            tile[t] = my_tiles[r * PRODUCER_THREADS + t] * (r + 1);
            named_barrier_arrive(BAR_FULL, nthreads);
        } else {
            const int c = t - PRODUCER_THREADS;
            named_barrier_sync(BAR_FULL, nthreads);
            acc += tile[(c * 5 + r) & (PRODUCER_THREADS - 1)];
            if (r + 1 < rounds) named_barrier_arrive(BAR_EMPTY, nthreads);
        }
    }
    if (!producer) consumed[blockIdx.x * CONSUMER_THREADS + (t - PRODUCER_THREADS)] = acc;

    const int v = vals[blockIdx.x * blockDim.x + t];
    const int count = __syncthreads_count(v > 0);
    const int all = __syncthreads_and(v > -900);
    const int any = __syncthreads_or(v > 990);
    const int count_acc = __syncthreads_count(!producer && (acc & 1));
    if (t == 0) {
        stats[blockIdx.x * 4 + 0] = count;
        stats[blockIdx.x * 4 + 1] = all ? 1 : 0;
        stats[blockIdx.x * 4 + 2] = any ? 1 : 0;
        stats[blockIdx.x * 4 + 3] = count_acc;
    }

    // Warp-local exchange through shared memory: only __syncwarp is needed.
    wbuf[t] = v;
    __syncwarp();
    int w = wbuf[t ^ 1] + 2 * wbuf[t ^ 2];
    __syncwarp();
    wbuf[t] = w;
    __syncwarp();
    w += wbuf[(t & ~31) | ((lane + 7) & 31)];
    __syncwarp();   // every read of wbuf is done before the odd lanes overwrite it
    if (lane & 1) {
        // odd lanes only: partial-mask __syncwarp
        wbuf[t] = -w;
        __syncwarp(0xAAAAAAAAu);
        w += wbuf[(t & ~31) | ((lane + 2) & 31)];
    }
    warp_out[blockIdx.x * blockDim.x + t] = w;
}
