// Per-thread insertion sort of 16 ints held in a thread-local array. The
// array is indexed with run-time indices, so it lives in local memory.
#define K 16

__global__ void sort16(const int* __restrict__ in, int* __restrict__ out,
                       int* __restrict__ median, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    int vals[K];
    for (int k = 0; k < K; k++)
        vals[k] = in[i * K + k];

    #pragma unroll 1
    for (int k = 1; k < K; k++) {
        int key = vals[k];
        int j = k - 1;
        while (j >= 0 && vals[j] > key) {
            vals[j + 1] = vals[j];
            j--;
        }
        vals[j + 1] = key;
    }

    for (int k = 0; k < K; k++)
        out[i * K + k] = vals[k];
    median[i] = (vals[K / 2 - 1] + vals[K / 2]) / 2;
}
