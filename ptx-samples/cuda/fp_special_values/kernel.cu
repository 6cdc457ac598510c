// IEEE single-precision special values (NaN, +-inf, -0.0, subnormals, FLT_MAX)
// through basic arithmetic, min/max, sign manipulation, directed-rounding
// intrinsics, comparisons and classification. Compiled without fast math:
// no flush-to-zero, IEEE division and square root.
//
// Results are stored as bit patterns; NaN results are canonicalised to
// 0x7fffffff in the kernel because the payload/sign of a generated NaN is not
// specified by IEEE (everything else is compared bit-exactly, -0.0 included).
__device__ __forceinline__ unsigned canon(float r)
{
    return isnan(r) ? 0x7fffffffu : __float_as_uint(r);
}

enum { R_ADD, R_SUB, R_MUL, R_FMA, R_DIV, R_SQRT, R_FMIN, R_FMAX, R_ABS, R_COPYSIGN,
       R_ADD_RZ, R_MUL_RD, R_FMA_RU, R_COUNT };

extern "C" __global__ void fp_special_values(const float* __restrict__ a_in,
                                             const float* __restrict__ b_in,
                                             const float* __restrict__ c_in,
                                             unsigned* __restrict__ res,     // [n][R_COUNT]
                                             unsigned* __restrict__ flags,   // [n]
                                             int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = a_in[i], b = b_in[i], c = c_in[i];
    unsigned* r = res + i * R_COUNT;

    r[R_ADD]      = canon(a + b);
    r[R_SUB]      = canon(a - b);
    r[R_MUL]      = canon(a * b);
    r[R_FMA]      = canon(fmaf(a, b, c));
    r[R_DIV]      = canon(a / b);
    r[R_SQRT]     = canon(sqrtf(a));
    r[R_FMIN]     = canon(fminf(a, c));
    r[R_FMAX]     = canon(fmaxf(a, c));
    r[R_ABS]      = canon(fabsf(a));
    r[R_COPYSIGN] = canon(copysignf(c, b));
    r[R_ADD_RZ]   = canon(__fadd_rz(a, b));
    r[R_MUL_RD]   = canon(__fmul_rd(a, b));
    r[R_FMA_RU]   = canon(__fmaf_ru(a, b, c));

    unsigned f = 0;
    f |= (a <  b) << 0;
    f |= (a <= b) << 1;
    f |= (a == b) << 2;
    f |= (a != b) << 3;
    f |= (a >  b) << 4;
    f |= (a >= b) << 5;
    f |= (isnan(a)    ? 1u : 0u) << 6;
    f |= (isinf(a)    ? 1u : 0u) << 7;
    f |= (isfinite(a) ? 1u : 0u) << 8;
    f |= (signbit(a)  ? 1u : 0u) << 9;
    f |= (signbit(b)  ? 1u : 0u) << 10;
    f |= (isnan(a + b) ? 1u : 0u) << 11;
    flags[i] = f;
}
