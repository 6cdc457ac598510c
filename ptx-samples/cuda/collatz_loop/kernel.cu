// Collatz (3n+1) sequences: a data-dependent while loop per thread. For each
// start value, count the steps to reach 1 and record the highest value seen
// (64-bit, since intermediate values exceed the start value by far).
__device__ __forceinline__ unsigned long long collatz_next(unsigned long long x)
{
    return (x & 1) ? 3 * x + 1 : x >> 1;
}

__global__ void collatz_steps(const unsigned int* __restrict__ start,
                              unsigned int* __restrict__ steps,
                              unsigned long long* __restrict__ peak, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long x = start[i];
    unsigned long long highest = x;
    unsigned int count = 0;
    while (x != 1) {
        x = collatz_next(x);
        highest = x > highest ? x : highest;
        ++count;
    }
    steps[i] = count;
    peak[i] = highest;
}
