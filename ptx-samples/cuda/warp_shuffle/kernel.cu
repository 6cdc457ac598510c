// Warp shuffles on 32- and 64-bit data: __shfl_sync / _up / _down / _xor with
// the full warp and with sub-warp widths (8, 16 and a runtime width), lanes
// whose source is out of range (they get their own value back), per-lane
// source/delta operands, and the usual scan / butterfly-reduction idioms.
// Every lane writes one value per test: out[test * n + tid].

#define FULL_MASK 0xffffffffu

enum { NI = 16, NF = 5, ND = 5, NL = 4 };

__global__ void warp_shuffle_kernel(const int* __restrict__ iv,
                                    const float* __restrict__ fv,
                                    const double* __restrict__ dv,
                                    const long long* __restrict__ lv,
                                    int w,                 // runtime sub-warp width
                                    int n,
                                    int* __restrict__ iout,
                                    float* __restrict__ fout,
                                    double* __restrict__ dout,
                                    long long* __restrict__ lout)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    // n is a multiple of 32 so whole warps are active for every shuffle.

    int x = iv[tid];
    int r[NI];
    r[0] = __shfl_sync(FULL_MASK, x, (lane * 7 + 3) & 31);
    r[1] = __shfl_sync(FULL_MASK, x, lane * 3 + 1, 8);
    r[2] = __shfl_up_sync(FULL_MASK, x, 3);
    r[3] = __shfl_up_sync(FULL_MASK, x, 5, 16);
    r[4] = __shfl_down_sync(FULL_MASK, x, 4);
    r[5] = __shfl_down_sync(FULL_MASK, x, 3, 8);
    r[6] = __shfl_xor_sync(FULL_MASK, x, 5);
    r[7] = __shfl_xor_sync(FULL_MASK, x, 17, 16);   // upper half reads the lower half; lower half keeps its own
    r[8] = __shfl_sync(FULL_MASK, x, 0);            // broadcast

    int scan = x;                                   // inclusive prefix sum
    #pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        int y = __shfl_up_sync(FULL_MASK, scan, off);
        if (lane >= off) scan += y;
    }
    r[9] = scan;

    int sum = x;                                    // butterfly all-reduce
    #pragma unroll
    for (int m = 16; m > 0; m >>= 1) sum += __shfl_xor_sync(FULL_MASK, sum, m);
    r[10] = sum;

    r[11] = __shfl_down_sync(FULL_MASK, x, lane & 7);      // per-lane delta
    r[12] = __shfl_sync(FULL_MASK, x, 31 - lane, w);       // runtime width
    r[13] = __shfl_up_sync(FULL_MASK, x, 1, w);
    r[14] = __shfl_sync(FULL_MASK, x, lane + 35);          // source lane taken modulo 32
    r[15] = __shfl_xor_sync(FULL_MASK, x, 1, w);
    #pragma unroll
    for (int k = 0; k < NI; k++) iout[k * n + tid] = r[k];

    float f = fv[tid];
    fout[0 * n + tid] = __shfl_sync(FULL_MASK, f, 31 - lane);
    fout[1 * n + tid] = __shfl_down_sync(FULL_MASK, f, 2, 16);
    fout[2 * n + tid] = __shfl_xor_sync(FULL_MASK, f, 8);
    float fm = f, fs = f;
    #pragma unroll
    for (int m = 16; m > 0; m >>= 1) {
        fm = fmaxf(fm, __shfl_xor_sync(FULL_MASK, fm, m));
        fs += __shfl_xor_sync(FULL_MASK, fs, m);
    }
    fout[3 * n + tid] = fm;
    fout[4 * n + tid] = fs;

    double d = dv[tid];
    dout[0 * n + tid] = __shfl_sync(FULL_MASK, d, (lane + 5) & 31);
    dout[1 * n + tid] = __shfl_up_sync(FULL_MASK, d, 2, 8);
    dout[2 * n + tid] = __shfl_down_sync(FULL_MASK, d, 16);
    dout[3 * n + tid] = __shfl_xor_sync(FULL_MASK, d, 3);
    double ds = d;
    #pragma unroll
    for (int m = 1; m < 32; m <<= 1) ds += __shfl_xor_sync(FULL_MASK, ds, m);
    dout[4 * n + tid] = ds;

    long long l = lv[tid];
    lout[0 * n + tid] = __shfl_sync(FULL_MASK, l, lane ^ 31);
    lout[1 * n + tid] = __shfl_down_sync(FULL_MASK, l, 1);
    lout[2 * n + tid] = __shfl_xor_sync(FULL_MASK, l, 2, 4);
    lout[3 * n + tid] = __shfl_up_sync(FULL_MASK, l, 7);
}
