// Double-precision CUDA math library, written as a templated element-wise kernel
// over a small struct of outputs (C++ linkage: the entry name is mangled).
struct MathOutF64 {
    double* exp_;
    double* log_;
    double* sin_;
    double* cos_;
    double* sqrt_;
    double* rsqrt_;
    double* pow_;
    double* tanh_;
    double* div_;
};

__device__ __forceinline__ void eval_all(const MathOutF64& o, int i,
                                         double e, double p, double t, double a, double b)
{
    o.exp_[i]   = exp(e);
    o.log_[i]   = log(p);
    o.sin_[i]   = sin(t);
    o.cos_[i]   = cos(t);
    o.sqrt_[i]  = sqrt(p);
    o.rsqrt_[i] = rsqrt(p);
    o.pow_[i]   = pow(a, 0.125 * e);
    o.tanh_[i]  = tanh(0.25 * e);
    o.div_[i]   = t / b;
}

__global__ void math_f64(const double* __restrict__ xe,   // [-200, 200]
                         const double* __restrict__ xp,   // positive, 1e-30 .. 1e30
                         const double* __restrict__ xt,   // [-100, 100]
                         const double* __restrict__ pa,   // [0.05, 20]
                         const double* __restrict__ db,   // +-[1e-3, 1e3]
                         double* exp_out, double* log_out, double* sin_out, double* cos_out,
                         double* sqrt_out, double* rsqrt_out, double* pow_out, double* tanh_out,
                         double* div_out, int n)
{
    MathOutF64 o{exp_out, log_out, sin_out, cos_out, sqrt_out, rsqrt_out, pow_out, tanh_out, div_out};
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        eval_all(o, i, xe[i], xp[i], xt[i], pa[i], db[i]);
}
