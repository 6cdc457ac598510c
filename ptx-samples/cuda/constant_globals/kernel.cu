// Module-scope variables: a __constant__ table with an initializer, a
// __constant__ table the host fills with cudaMemcpyToSymbol, and __device__
// globals (with initializers) that the kernel updates with atomics and the
// host reads back with cudaMemcpyFromSymbol.
__constant__ float c_coeffs[8] = {0.5f, 1.0f, 1.5f, 2.0f, -0.25f, 3.0f, -1.0f, 0.125f};
__constant__ int c_lut[64];                 // filled by the host

__device__ unsigned int d_positive = 1000;  // counts lookups with a positive entry, starting at 1000
__device__ int d_max = -1;                  // largest lookup value seen
__device__ unsigned long long d_sum = 0;    // sum of the low 16 bits of the inputs

extern "C" __global__ void constant_lookup(const unsigned int* __restrict__ in,
                                           float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned int v = in[i];
    float coeff = c_coeffs[v & 7];
    int entry = c_lut[(v >> 3) & 63];
    out[i] = coeff * (float)entry;
    if (entry > 0)
        atomicAdd(&d_positive, 1u);
    atomicMax(&d_max, entry);
    atomicAdd(&d_sum, (unsigned long long)(v & 0xffff));
}
