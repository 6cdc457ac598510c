// Floating-point warp reductions (PTX ISA 8.6, sm_100a:
// redux.sync.{min,max}{.abs}{.NaN}.f32), which CUDA has no intrinsic for,
// as inline PTX: over the whole warp, over each half-warp and over the
// even and the odd lanes. Without .NaN NaNs are left out (all NaN gives the
// canonical NaN 0x7fffffff), with it any NaN gives the canonical NaN;
// +0 > -0; .abs reduces the magnitudes. Out per lane: ten f32 words.
#include <cuda/std/cstdint>
using cuda::std::uint32_t;

#define REDUX(name, ops)                                                         \
    static __device__ __forceinline__ float name(float v, uint32_t mask) {       \
        float d;                                                                 \
        asm volatile("redux.sync." ops ".f32 %0, %1, %2;" : "=f"(d) : "f"(v), "r"(mask)); \
        return d;                                                                \
    }

REDUX(rmin, "min")
REDUX(rmax, "max")
REDUX(rmin_abs, "min.abs")
REDUX(rmax_abs, "max.abs")
REDUX(rmin_nan, "min.NaN")
REDUX(rmax_nan, "max.NaN")
REDUX(rmin_abs_nan, "min.abs.NaN")
REDUX(rmax_abs_nan, "max.abs.NaN")

extern "C" __global__ void redux_f32(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;  // n is a multiple of 32: whole warps
    uint32_t lane = threadIdx.x % 32;
    float v = in[i];
    uint32_t half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    uint32_t parity = lane % 2 ? 0xaaaaaaaau : 0x55555555u;
    float *o = out + 10 * i;
    o[0] = rmin(v, 0xffffffffu);
    o[1] = rmax(v, 0xffffffffu);
    o[2] = rmin_abs(v, 0xffffffffu);
    o[3] = rmax_abs(v, 0xffffffffu);
    o[4] = rmin_nan(v, 0xffffffffu);
    o[5] = rmax_nan(v, 0xffffffffu);
    o[6] = rmin_abs_nan(v, 0xffffffffu);
    o[7] = rmax_abs_nan(v, 0xffffffffu);
    o[8] = rmin(v, half);
    o[9] = rmax_abs_nan(v, parity);
}
