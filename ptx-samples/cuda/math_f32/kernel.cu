// Single-precision CUDA math library: one output array per function so that
// each can be checked against its documented ULP bound.
extern "C" __global__ void math_f32(const float* __restrict__ xe,   // [-20, 20]
                                    const float* __restrict__ xp,   // positive, 1e-6 .. 1e6
                                    const float* __restrict__ xt,   // [-50, 50]
                                    const float* __restrict__ num,  // [-100, 100]
                                    const float* __restrict__ den,  // +-[0.01, 100]
                                    const float* __restrict__ pb,   // [0.1, 10]
                                    const float* __restrict__ pe,   // [-8, 8]
                                    float* __restrict__ o_exp,
                                    float* __restrict__ o_log,
                                    float* __restrict__ o_sin,
                                    float* __restrict__ o_cos,
                                    float* __restrict__ o_sqrt,
                                    float* __restrict__ o_rsqrt,
                                    float* __restrict__ o_fdiv,
                                    float* __restrict__ o_pow,
                                    float* __restrict__ o_tanh,
                                    float* __restrict__ o_exp2,
                                    float* __restrict__ o_log2,
                                    int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;

    float e = xe[i];
    float p = xp[i];
    float t = xt[i];

    o_exp[i]   = expf(e);
    o_log[i]   = logf(p);
    float s, c;
    s = sinf(t);
    c = cosf(t);
    o_sin[i]   = s;
    o_cos[i]   = c;
    o_sqrt[i]  = sqrtf(p);
    o_rsqrt[i] = rsqrtf(p);
    o_fdiv[i]  = __fdividef(num[i], den[i]);
    o_pow[i]   = powf(pb[i], pe[i]);
    o_tanh[i]  = tanhf(0.25f * e);
    o_exp2[i]  = exp2f(e);
    o_log2[i]  = log2f(p);
}
