// Half-precision arithmetic with cuda_fp16.h: scalar __half and packed __half2
// operations plus conversions. All operations are correctly rounded
// (round-to-nearest-even) IEEE binary16 operations, subnormals included.
#include <cuda_fp16.h>

__global__ void f16_arith(const __half* __restrict__ a, const __half* __restrict__ b,
                          const __half* __restrict__ c,
                          const __half2* __restrict__ p, const __half2* __restrict__ q,
                          const __half2* __restrict__ r,
                          const float* __restrict__ f,
                          __half* __restrict__ out_h, __half2* __restrict__ out_h2,
                          float* __restrict__ out_f, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    __half ha = a[i], hb = b[i], hc = c[i];
    out_h[6 * i + 0] = __hadd(ha, hb);
    out_h[6 * i + 1] = __hsub(ha, hb);
    out_h[6 * i + 2] = __hmul(ha, hb);
    out_h[6 * i + 3] = __hfma(ha, hb, hc);
    out_h[6 * i + 4] = __float2half_rn(f[i]);
    out_h[6 * i + 5] = __hneg(ha);

    __half2 hp = p[i], hq = q[i], hr = r[i];
    out_h2[3 * i + 0] = __hadd2(hp, hq);
    out_h2[3 * i + 1] = __hmul2(hp, hq);
    out_h2[3 * i + 2] = __hfma2(hp, hq, hr);

    out_f[2 * i + 0] = __half2float(ha);
    out_f[2 * i + 1] = __low2float(hp) + __high2float(hq);
}
