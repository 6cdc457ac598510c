// nvcuda::wmma with tf32 multiplicands (m16n16k8) and f32 accumulators: a
// 32x32x32 GEMM D = A*B + C per block of one warp, the fragments' f32
// elements rounded to tf32 with wmma::__float_to_tf32 (cvt.rna.tf32.f32)
// after loading. blockIdx.x 0: A row-, B column-major; 1: A column-, B
// row-major with C filled with 0.5.
#include <mma.h>
using namespace nvcuda;

#define S 32

template <typename L> struct is_row { static const bool value = false; };
template <> struct is_row<wmma::row_major> { static const bool value = true; };

template <typename LA, typename LB>
__device__ void gemm(const float *A, const float *B, const float *C, float *D, bool load_c)
{
    const bool a_row = is_row<LA>::value;
    for (int i = 0; i < S; i += 16)
        for (int j = 0; j < S; j += 16) {
            wmma::fragment<wmma::accumulator, 16, 16, 8, float> d;
            if (load_c)
                wmma::load_matrix_sync(d, C + i * S + j, S, wmma::mem_row_major);
            else
                wmma::fill_fragment(d, 0.5f);
            for (int k = 0; k < S; k += 8) {
                wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, LA> a;
                wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, LB> b;
                wmma::load_matrix_sync(a, a_row ? A + i * S + k : A + k * S + i, S);
                wmma::load_matrix_sync(b, a_row ? B + j * S + k : B + k * S + j, S);
                for (int e = 0; e < a.num_elements; e++)
                    a.x[e] = wmma::__float_to_tf32(a.x[e]);
                for (int e = 0; e < b.num_elements; e++)
                    b.x[e] = wmma::__float_to_tf32(b.x[e]);
                wmma::mma_sync(d, a, b, d);
            }
            wmma::store_matrix_sync(D + i * S + j, d, S, wmma::mem_row_major);
        }
}

// A, B: S x S floats; A_t, B_t the same column-major. out: 2 results.
extern "C" __global__ void wmma_tf32_kernel(const float *A, const float *A_t, const float *B,
                                            const float *B_t, const float *C, float *out)
{
    float *o = out + blockIdx.x * S * S;
    if (blockIdx.x == 0)
        gemm<wmma::row_major, wmma::col_major>(A, B_t, C, o, true);
    else
        gemm<wmma::col_major, wmma::row_major>(A_t, B, C, o, false);
}
