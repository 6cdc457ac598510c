// Work-efficient (Blelloch) exclusive scan of one block's chunk in shared memory,
// after GPU Gems 3 ch. 39. Each block of THREADS threads scans 2*THREADS
// elements independently: up-sweep (reduce), clear the last element, down-sweep.
// The chunk total is written to block_sums (input to a second-level scan).
// Shared indices are padded (CONFLICT_FREE_OFFSET) to avoid bank conflicts.

#define THREADS 128
#define ELEMS (2 * THREADS)
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(i) ((i) >> LOG_NUM_BANKS)

__global__ void blelloch_scan_block(const int *in, int *out, int *block_sums, int n)
{
    __shared__ int temp[ELEMS + (ELEMS >> LOG_NUM_BANKS)];

    const int tid = threadIdx.x;
    const int base = blockIdx.x * ELEMS;

    int ai = tid;
    int bi = tid + THREADS;
    int bankOffsetA = CONFLICT_FREE_OFFSET(ai);
    int bankOffsetB = CONFLICT_FREE_OFFSET(bi);
    temp[ai + bankOffsetA] = (base + ai < n) ? in[base + ai] : 0;
    temp[bi + bankOffsetB] = (base + bi < n) ? in[base + bi] : 0;

    // Up-sweep: build partial sums in place.
    int offset = 1;
    for (int d = ELEMS >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            int a = offset * (2 * tid + 1) - 1;
            int b = offset * (2 * tid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            temp[b] += temp[a];
        }
        offset *= 2;
    }

    // Save the total and clear the root.
    if (tid == 0) {
        int last = ELEMS - 1 + CONFLICT_FREE_OFFSET(ELEMS - 1);
        block_sums[blockIdx.x] = temp[last];
        temp[last] = 0;
    }

    // Down-sweep: traverse back down, swapping and accumulating.
    for (int d = 1; d < ELEMS; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (tid < d) {
            int a = offset * (2 * tid + 1) - 1;
            int b = offset * (2 * tid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            int t = temp[a];
            temp[a] = temp[b];
            temp[b] += t;
        }
    }
    __syncthreads();

    if (base + ai < n) out[base + ai] = temp[ai + bankOffsetA];
    if (base + bi < n) out[base + bi] = temp[bi + bankOffsetB];
}
