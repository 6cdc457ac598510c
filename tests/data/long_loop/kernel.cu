// A loop each thread runs for more steps than a compiled region takes
// between two questions to the watchdog (2^23), with a dynamically indexed
// local array, so that the loop stores to local memory
// (tests/jit_regions.rs).
extern "C" __global__ void long_loop(unsigned *out, unsigned n)
{
    unsigned a[8];
    for (int k = 0; k < 8; ++k)
        a[k] = threadIdx.x + k;
    unsigned x = threadIdx.x;
    for (unsigned i = 0; i < n; ++i) {
        x = x * 1664525u + 1013904223u;
        a[x >> 29] += i;
    }
    unsigned s = x;
    for (int k = 0; k < 8; ++k)
        s ^= a[k] * (k + 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
