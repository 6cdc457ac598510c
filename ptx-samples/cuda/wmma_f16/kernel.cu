// nvcuda::wmma with f16 multiplicands: a 32x32x32 GEMM D = alpha*(A*B + C) + C
// per block (one warp), tile by tile, for five configurations picked by
// blockIdx.x: the shapes 16x16x16, 32x8x16 and 8x32x16, row- and
// column-major A and B, f32 and f16 accumulators (also f16 C with f32 D),
// C loaded from memory or filled, fragments scaled element by element,
// operands read from global or shared memory.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

#define S 32

template <typename L> struct is_row { static const bool value = false; };
template <> struct is_row<wmma::row_major> { static const bool value = true; };

template <int TM, int TN, int TK, typename LA, typename LB, typename CT, typename DT>
__device__ void gemm(const half *A, const half *B, const CT *C, DT *D, bool load_c,
                     wmma::layout_t c_layout, wmma::layout_t d_layout, float alpha)
{
    bool a_row = is_row<LA>::value;
    bool b_row = is_row<LB>::value;
    for (int i = 0; i < S; i += TM)
        for (int j = 0; j < S; j += TN) {
            wmma::fragment<wmma::accumulator, TM, TN, TK, CT> c;
            if (load_c) {
                const CT *cp = c_layout == wmma::mem_row_major ? C + i * S + j : C + j * S + i;
                wmma::load_matrix_sync(c, cp, S, c_layout);
            } else {
                wmma::fill_fragment(c, (CT)1.0f);
            }
            wmma::fragment<wmma::accumulator, TM, TN, TK, DT> d;
            wmma::fill_fragment(d, (DT)0.0f);
            for (int k = 0; k < S; k += TK) {
                wmma::fragment<wmma::matrix_a, TM, TN, TK, half, LA> a;
                wmma::fragment<wmma::matrix_b, TM, TN, TK, half, LB> b;
                wmma::load_matrix_sync(a, a_row ? A + i * S + k : A + k * S + i, S);
                wmma::load_matrix_sync(b, b_row ? B + k * S + j : B + j * S + k, S);
                // The first step accumulates onto C (possibly of another
                // type than D), the others onto D.
                if (k == 0)
                    wmma::mma_sync(d, a, b, c);
                else
                    wmma::mma_sync(d, a, b, d);
            }
            // out = alpha * (A*B + C) + C, element by element (accumulator
            // fragments of one shape hold the same elements whatever their
            // type).
            wmma::fragment<wmma::accumulator, TM, TN, TK, DT> out;
            for (int e = 0; e < d.num_elements; e++)
                out.x[e] = (DT)((float)d.x[e] * alpha + (float)c.x[e]);
            DT *dp = d_layout == wmma::mem_row_major ? D + i * S + j : D + j * S + i;
            wmma::store_matrix_sync(dp, out, S, d_layout);
        }
}

// A, B: S x S half, row-major (A_t, B_t: the same matrices column-major);
// C: S x S float, row-major; Ch: the same in half, column-major.
// out: 5 results of S x S floats, row-major.
extern "C" __global__ void wmma_f16_kernel(const half *A, const half *A_t, const half *B,
                                           const half *B_t, const float *C, const half *Ch,
                                           float *out)
{
    __shared__ half sa[S * S], sb[S * S];
    __shared__ half sd[S * S];
    float *o = out + blockIdx.x * S * S;
    int lane = threadIdx.x;
    switch (blockIdx.x) {
    case 0:
        gemm<16, 16, 16, wmma::row_major, wmma::col_major, float, float>(
            A, B_t, C, o, true, wmma::mem_row_major, wmma::mem_row_major, 0.5f);
        break;
    case 1:
        // Operands from shared memory, f16 accumulators, D stored to shared
        // memory column-major.
        for (int e = lane; e < S * S; e += 32) {
            sa[e] = A_t[e];
            sb[e] = B[e];
        }
        __syncwarp();
        gemm<16, 16, 16, wmma::col_major, wmma::row_major, half, half>(
            sa, sb, Ch, sd, true, wmma::mem_col_major, wmma::mem_col_major, 2.0f);
        __syncwarp();
        for (int e = lane; e < S * S; e += 32)
            o[(e % S) * S + e / S] = __half2float(sd[e]);
        break;
    case 2:
        gemm<32, 8, 16, wmma::row_major, wmma::row_major, float, float>(
            A, B, C, o, false, wmma::mem_row_major, wmma::mem_col_major, 1.0f);
        break;
    case 3:
        gemm<8, 32, 16, wmma::col_major, wmma::col_major, half, half>(
            A_t, B_t, Ch, sd, true, wmma::mem_col_major, wmma::mem_row_major, 0.25f);
        __syncwarp();
        for (int e = lane; e < S * S; e += 32)
            o[e] = __half2float(sd[e]);
        break;
    case 4:
        // f16 C, f32 D.
        gemm<16, 16, 16, wmma::row_major, wmma::row_major, half, float>(
            A, B, Ch, o, true, wmma::mem_col_major, wmma::mem_row_major, 1.0f);
        break;
    }
}
