// CUDA's half-word SIMD intrinsics, which NVRTC compiles for compute_90 to the
// packed 16-bit integer instructions add.u16x2 / min.s16x2 / min.u16x2 (PTX ISA
// 8.0) and for compute_80 to bit manipulation, and the packed forms CUDA has no
// intrinsic for (add.s16x2, min/max.relu.s16x2; PTX has no sub.u16x2) as inline PTX on
// sm_90 with the same computation in C++ before it. Inputs include the halves'
// edges (0x7fff, 0x8000, 0xffff, 0).
#include <cuda/std/cstdint>
using cuda::std::uint32_t;

static __device__ uint32_t relu_min(uint32_t a, uint32_t b) {
#if __CUDA_ARCH__ >= 900
    uint32_t d;
    asm("min.relu.s16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
#else
    uint32_t d = 0;
    for (int h = 0; h < 2; ++h) {
        int x = (short)(a >> (16 * h)), y = (short)(b >> (16 * h));
        int r = x < y ? x : y;
        d |= (uint32_t)(r < 0 ? 0 : r) << (16 * h);
    }
    return d;
#endif
}

static __device__ uint32_t relu_max(uint32_t a, uint32_t b) {
#if __CUDA_ARCH__ >= 900
    uint32_t d;
    asm("max.relu.s16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
#else
    uint32_t d = 0;
    for (int h = 0; h < 2; ++h) {
        int x = (short)(a >> (16 * h)), y = (short)(b >> (16 * h));
        int r = x > y ? x : y;
        d |= (uint32_t)(r < 0 ? 0 : r) << (16 * h);
    }
    return d;
#endif
}

static __device__ uint32_t add_s16x2(uint32_t a, uint32_t b) {
#if __CUDA_ARCH__ >= 900
    uint32_t d;
    asm("add.s16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
#else
    return __vadd2(a, b);
#endif
}

extern "C" __global__ void simd_halfwords(const uint32_t *a, const uint32_t *b, uint32_t *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t x = a[i], y = b[i];
    uint32_t *o = out + 16 * i;
    o[0] = __vadd2(x, y);
    o[1] = __vsub2(x, y);
    o[2] = __vaddss2(x, y);
    o[3] = __vaddus2(x, y);
    o[4] = __vsubss2(x, y);
    o[5] = __vsubus2(x, y);
    o[6] = __vmins2(x, y);
    o[7] = __vmaxs2(x, y);
    o[8] = __vminu2(x, y);
    o[9] = __vmaxu2(x, y);
    o[10] = __vabsdiffs2(x, y);
    o[11] = __vabsdiffu2(x, y);
    o[12] = relu_min(x, y);
    o[13] = relu_max(x, y);
    o[14] = __vsub2(y, x);
    o[15] = add_s16x2(x, y);
}
