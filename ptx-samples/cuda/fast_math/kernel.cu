// Element-wise activation / normalisation code compiled with --use_fast_math:
// expf, sinf, logf and '/' become the hardware approximations
// (ex2.approx.ftz, sin.approx.ftz, lg2.approx.ftz, div.full/approx.ftz).
extern "C" __global__ void fast_math(const float* __restrict__ x,    // [-8, 8]
                                     const float* __restrict__ ang,  // [-pi, pi]
                                     const float* __restrict__ pos,  // [1e-3, 1e3]
                                     const float* __restrict__ den,  // +-[0.01, 100]
                                     float* __restrict__ o_exp,
                                     float* __restrict__ o_sin,
                                     float* __restrict__ o_log,
                                     float* __restrict__ o_div,
                                     float* __restrict__ o_sigmoid,
                                     int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        o_exp[i] = expf(v);
        o_sin[i] = sinf(ang[i]);
        o_log[i] = logf(pos[i]);
        o_div[i] = v / den[i];
        o_sigmoid[i] = 1.0f / (1.0f + expf(-v));
    }
}
