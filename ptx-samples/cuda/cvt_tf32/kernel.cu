// f32 to tf32 conversions as inline PTX (wmma::__float_to_tf32 emits only the
// first): cvt.rna.tf32.f32 (sm_80), cvt.rna.satfinite.tf32.f32 (PTX 8.1),
// cvt.rn/.rz{.relu}.tf32.f32 (PTX 7.8, sm_90), on values with rounding ties,
// carries into the exponent, the largest finite values, infinities, NaNs and
// subnormals. The result is a .b32: an f32 with its 13 low bits cleared.
#include <cuda/std/cstdint>
using cuda::std::uint32_t;

#define TF32(name, form)                                     \
    static __device__ uint32_t name(float x) {               \
        uint32_t d;                                          \
        asm(form " %0, %1;" : "=r"(d) : "f"(x));             \
        return d;                                            \
    }

TF32(rna, "cvt.rna.tf32.f32")
TF32(rna_satfinite, "cvt.rna.satfinite.tf32.f32")
TF32(rn, "cvt.rn.tf32.f32")
TF32(rz, "cvt.rz.tf32.f32")
TF32(rn_relu, "cvt.rn.relu.tf32.f32")
TF32(rz_relu, "cvt.rz.relu.tf32.f32")

extern "C" __global__ void cvt_tf32(const float *in, uint32_t *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    uint32_t *o = out + 6 * i;
    o[0] = rna(x);
    o[1] = rna_satfinite(x);
    o[2] = rn(x);
    o[3] = rz(x);
    o[4] = rn_relu(x);
    o[5] = rz_relu(x);
}
