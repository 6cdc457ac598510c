// Packed half-precision comparisons: cuda_fp16.h's __hgt2/__heq2/__hltu2/__hne2
// (PTX `set.<cmp>.f16x2.f16x2`: 1.0 or 0.0 per half) and __hgt2_mask/__hequ2_mask
// (`set.<cmp>.u32.f16x2`: 0xffff or 0 per half), the bf16 forms (__hgt2, __hleu2,
// __hge2_mask, __hneu2_mask on __nv_bfloat162), and the scalar __hgt on a half.
// Inputs include NaN, signed zeros, infinities and equal pairs.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

static __device__ unsigned bits(__half2 h) { return *reinterpret_cast<unsigned *>(&h); }
static __device__ unsigned bits(__nv_bfloat162 h) { return *reinterpret_cast<unsigned *>(&h); }

extern "C" __global__ void half_compare(const __half2 *a, const __half2 *b,
                                        const __nv_bfloat162 *c, const __nv_bfloat162 *d,
                                        unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half2 x = a[i], y = b[i];
    __nv_bfloat162 u = c[i], v = d[i];
    unsigned *o = out + 12 * i;
    o[0] = bits(__hgt2(x, y));
    o[1] = bits(__heq2(x, y));
    o[2] = bits(__hltu2(x, y));
    o[3] = bits(__hne2(x, y));
    o[4] = __hgt2_mask(x, y);
    o[5] = __hequ2_mask(x, y);
    o[6] = bits(__hgt2(u, v));
    o[7] = bits(__hleu2(u, v));
    o[8] = __hge2_mask(u, v);
    o[9] = __hneu2_mask(u, v);
    o[10] = __hgt(__low2half(x), __low2half(y)) ? 7u : 3u;
    o[11] = __hle(__high2half(x), __high2half(y)) ? 5u : 9u;
}
