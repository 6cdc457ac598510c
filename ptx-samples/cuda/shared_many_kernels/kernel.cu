// Six kernels, each with its own 48,000-byte __shared__ array (what one
// kernel may declare statically), and a device function with a __shared__
// counter that three of them call. A GPU gives each kernel its own shared
// memory layout, so the module's kernels together may declare more than a
// block can have (6 x 48,000 = 288,000 bytes > 227 KiB); each kernel alone
// fits. The sample runs `reverse5`: each block reverses its 12,000-float
// chunk through shared memory and counts its elements with the helper's
// shared counter. (Libraries with many kernels, such as CUB's and Thrust's
// sorts, do the same.)

#define CHUNK 12000

__device__ unsigned counted(unsigned add) {
    __shared__ unsigned count;
    if (threadIdx.x == 0) count = 0;
    __syncthreads();
    atomicAdd(&count, add);
    __syncthreads();
    return count;
}

#define REVERSE(NAME, SCALE, COUNT)                                              \
    extern "C" __global__ void NAME(const float* in, float* out, unsigned* n) {  \
        __shared__ float buf[CHUNK];                                              \
        const float* src = in + blockIdx.x * CHUNK;                               \
        for (int i = threadIdx.x; i < CHUNK; i += blockDim.x) buf[i] = src[i];    \
        __syncthreads();                                                          \
        float* dst = out + blockIdx.x * CHUNK;                                    \
        unsigned mine = 0;                                                        \
        for (int i = threadIdx.x; i < CHUNK; i += blockDim.x) {                   \
            dst[i] = SCALE * buf[CHUNK - 1 - i];                                  \
            mine++;                                                               \
        }                                                                         \
        if (COUNT) {                                                              \
            unsigned total = counted(mine);                                       \
            if (threadIdx.x == 0) n[blockIdx.x] = total;                          \
        }                                                                         \
    }

REVERSE(reverse0, 1.0f, 0)
REVERSE(reverse1, 2.0f, 1)
REVERSE(reverse2, 3.0f, 0)
REVERSE(reverse3, 4.0f, 1)
REVERSE(reverse4, 5.0f, 0)
REVERSE(reverse5, 6.0f, 1)
