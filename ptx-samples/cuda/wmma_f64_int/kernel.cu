// nvcuda::wmma beyond f16: a 32x32 GEMM D = A*B + C per block of one warp,
// by blockIdx.x: 0 f64 m8n8k4 (A row-, B column-major), 1 s8 m16n16k16
// (row/col, C filled with 7), 2 u8 m32n8k16 (row/row), 3 s8 m8n32k16
// (col/col, D stored column-major); the integer D scaled by 3 element by
// element.
#include <mma.h>
using namespace nvcuda;

#define S 32

template <typename L> struct is_row { static const bool value = false; };
template <> struct is_row<wmma::row_major> { static const bool value = true; };

template <int TM, int TN, int TK, typename T, typename LA, typename LB>
__device__ void igemm(const T *A, const T *A_t, const T *B, const T *B_t, const int *C, int *D,
                      bool load_c, wmma::layout_t d_layout)
{
    for (int i = 0; i < S; i += TM)
        for (int j = 0; j < S; j += TN) {
            wmma::fragment<wmma::accumulator, TM, TN, TK, int> d;
            if (load_c)
                wmma::load_matrix_sync(d, C + i * S + j, S, wmma::mem_row_major);
            else
                wmma::fill_fragment(d, 7);
            for (int k = 0; k < S; k += TK) {
                wmma::fragment<wmma::matrix_a, TM, TN, TK, T, LA> a;
                wmma::fragment<wmma::matrix_b, TM, TN, TK, T, LB> b;
                wmma::load_matrix_sync(a, is_row<LA>::value ? A + i * S + k : A_t + k * S + i, S);
                wmma::load_matrix_sync(b, is_row<LB>::value ? B + k * S + j : B_t + j * S + k, S);
                wmma::mma_sync(d, a, b, d);
            }
            for (int e = 0; e < d.num_elements; e++)
                d.x[e] *= 3;
            int *dp = d_layout == wmma::mem_row_major ? D + i * S + j : D + j * S + i;
            wmma::store_matrix_sync(dp, d, S, d_layout);
        }
}

// Ad, Bd: S x S doubles (Bd_t column-major); Cd: doubles; As/Bs: signed
// bytes, Au/Bu: unsigned bytes (the _t arrays column-major); C: ints.
extern "C" __global__ void wmma_f64_int_kernel(const double *Ad, const double *Bd_t,
                                               const double *Cd, const signed char *As,
                                               const signed char *As_t, const signed char *Bs,
                                               const signed char *Bs_t, const unsigned char *Au,
                                               const unsigned char *Bu, const int *C,
                                               double *outd, int *out)
{
    int *o = out + (blockIdx.x - 1) * S * S;
    switch (blockIdx.x) {
    case 0:
        for (int i = 0; i < S; i += 8)
            for (int j = 0; j < S; j += 8) {
                wmma::fragment<wmma::accumulator, 8, 8, 4, double> d;
                wmma::load_matrix_sync(d, Cd + i * S + j, S, wmma::mem_row_major);
                for (int k = 0; k < S; k += 4) {
                    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> a;
                    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> b;
                    wmma::load_matrix_sync(a, Ad + i * S + k, S);
                    wmma::load_matrix_sync(b, Bd_t + j * S + k, S);
                    wmma::mma_sync(d, a, b, d);
                }
                wmma::store_matrix_sync(outd + i * S + j, d, S, wmma::mem_row_major);
            }
        break;
    case 1:
        igemm<16, 16, 16, signed char, wmma::row_major, wmma::col_major>(
            As, As_t, Bs, Bs_t, C, o, false, wmma::mem_row_major);
        break;
    case 2:
        igemm<32, 8, 16, unsigned char, wmma::row_major, wmma::row_major>(
            Au, Au, Bu, Bu, C, o, true, wmma::mem_row_major);
        break;
    case 3:
        igemm<8, 32, 16, signed char, wmma::col_major, wmma::col_major>(
            As, As_t, Bs, Bs_t, C, o, true, wmma::mem_col_major);
        break;
    }
}
