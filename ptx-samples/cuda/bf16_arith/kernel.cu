// bfloat16 arithmetic and conversions with cuda_bf16.h (plus one fp16 conversion).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// __hfma/__hfma2 on bf16 need sm_80; older targets fall back to fp32 fma + one rounding.
__device__ __forceinline__ __nv_bfloat16 bf_fma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c)
{
#if __CUDA_ARCH__ >= 800
    return __hfma(a, b, c);
#else
    return __float2bfloat16(fmaf(__bfloat162float(a), __bfloat162float(b), __bfloat162float(c)));
#endif
}

__device__ __forceinline__ __nv_bfloat162 bf2_fma(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c)
{
#if __CUDA_ARCH__ >= 800
    return __hfma2(a, b, c);
#else
    return __halves2bfloat162(bf_fma(__low2bfloat16(a), __low2bfloat16(b), __low2bfloat16(c)),
                              bf_fma(__high2bfloat16(a), __high2bfloat16(b), __high2bfloat16(c)));
#endif
}

extern "C" __global__ void bf16_arith(const float* __restrict__ cx,      // conversion inputs
                                      const float* __restrict__ x,       // arithmetic inputs,
                                      const float* __restrict__ y,       //   |v| in [0.5, 4)
                                      const float* __restrict__ z,
                                      __nv_bfloat16* __restrict__ conv,  // [n][4] rn rz rd ru
                                      float* __restrict__ back,          // [n] float(rn(cx))
                                      __nv_bfloat16* __restrict__ scal,  // [n][6]
                                      __nv_bfloat162* __restrict__ vec,  // [n/2][4]
                                      int* __restrict__ cmp,             // [n]
                                      float* __restrict__ dot,           // [n/8]
                                      __half* __restrict__ h_rz,         // [n]
                                      int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;

    float c = cx[i];
    __nv_bfloat16 r = __float2bfloat16_rn(c);
    conv[4 * i + 0] = r;
    conv[4 * i + 1] = __float2bfloat16_rz(c);
    conv[4 * i + 2] = __float2bfloat16_rd(c);
    conv[4 * i + 3] = __float2bfloat16_ru(c);
    back[i] = __bfloat162float(r);
    h_rz[i] = __float2half_rz(c);

    __nv_bfloat16 a = __float2bfloat16(x[i]);
    __nv_bfloat16 b = __float2bfloat16(y[i]);
    __nv_bfloat16 d = __float2bfloat16(z[i]);
    scal[6 * i + 0] = a + b;
    scal[6 * i + 1] = __hsub(a, b);
    scal[6 * i + 2] = a * b;
    scal[6 * i + 3] = bf_fma(a, b, d);
    scal[6 * i + 4] = -a;
    scal[6 * i + 5] = __hmax(a, b);
    cmp[i] = (a < b ? 1 : 0) | (__heq(a, b) ? 2 : 0) | (__hge(a, d) ? 4 : 0) | (__hisnan(r) ? 8 : 0);

    if (2 * i + 1 < n) {
        __nv_bfloat162 va = __floats2bfloat162_rn(x[2 * i], x[2 * i + 1]);
        __nv_bfloat162 vb = __floats2bfloat162_rn(y[2 * i], y[2 * i + 1]);
        __nv_bfloat162 vd = __floats2bfloat162_rn(z[2 * i], z[2 * i + 1]);
        vec[4 * i + 0] = __hadd2(va, vb);
        vec[4 * i + 1] = __hmul2(va, vb);
        vec[4 * i + 2] = bf2_fma(va, vb, vd);
        vec[4 * i + 3] = __hmax2(va, __float2bfloat162_rn(0.0f));   // ReLU
    }

    if (8 * i + 7 < n) {
        float acc = 0.0f;
        for (int k = 0; k < 8; k++) {
            __nv_bfloat16 p = __float2bfloat16(x[8 * i + k]);
            __nv_bfloat16 q = __float2bfloat16(y[8 * i + k]);
            acc = fmaf(__bfloat162float(p), __bfloat162float(q), acc);
        }
        dot[i] = acc;
    }
}
