// Vectorized copies with grid-stride loops: float4 (16-byte), int2 (8-byte)
// and double2 (16-byte) elements, one vector load and one vector store per
// element. Components are swizzled on the way so that a wrong lane order in a
// vector access shows up in the output.

__device__ __forceinline__ float4 reverse4(float4 v) { return make_float4(v.w, v.z, v.y, v.x); }

__global__ void copy_vectorized(const float4 *src4, float4 *dst4, size_t n4,
                                const int2 *src2, int2 *dst2, size_t n2,
                                const double2 *srcd, double2 *dstd, size_t nd)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    const size_t start = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

    for (size_t i = start; i < n4; i += stride)
        dst4[i] = reverse4(src4[i]);

    for (size_t i = start; i < n2; i += stride) {
        int2 v = src2[i];
        dst2[i] = make_int2(v.y, v.x);
    }

    for (size_t i = start; i < nd; i += stride) {
        double2 v = srcd[i];
        dstd[i] = make_double2(v.y, v.x);
    }
}
