// Double-precision arithmetic: IEEE-exact operations (add, sub, mul, fma, div,
// sqrt, reciprocal), a degree-8 Horner polynomial, and a few conversions.
// Each thread writes NOPS doubles to out[i*NOPS ..].
#define NOPS 15
#define DEGREE 8

extern "C" __global__ void f64_arith(const double* __restrict__ a_in,
                                     const double* __restrict__ b_in,
                                     const double* __restrict__ c_in,
                                     const double* __restrict__ coef,
                                     double* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double a = a_in[i], b = b_in[i], c = c_in[i];
    double* o = out + (size_t)i * NOPS;

    o[0] = a + b;
    o[1] = a - b;
    o[2] = a * b;
    o[3] = fma(a, b, c);
    o[4] = a / b;
    o[5] = sqrt(fabs(a));
    o[6] = 1.0 / b;

    // Horner evaluation of sum coef[k] * t^k
    double t = a * 0.125;
    double p = coef[DEGREE];
    for (int k = DEGREE - 1; k >= 0; k--)
        p = p * t + coef[k];
    o[7] = p;

    o[8] = a * c + b;          // contracted to a fused multiply-add (NVRTC default --fmad=true)
    o[9] = fmin(a, b);
    o[10] = fmax(a, b);
    o[11] = (double)(float)a;  // round to single precision
    o[12] = (double)(int)a;    // truncation toward zero
    o[13] = floor(a);
    o[14] = rint(a);           // round half to even
}
