// CPU reference for warp_shuffle: simulates each warp's shuffles with the
// semantics of the CUDA C Programming Guide (warp shuffle functions):
//  - __shfl_sync(v, src, width): value of lane (lane/width)*width + src%width
//  - __shfl_up_sync(v, d, width): lane - d, unless lane%width < d (own value)
//  - __shfl_down_sync(v, d, width): lane + d, unless lane%width + d >= width (own value)
//  - __shfl_xor_sync(v, m, width): lane ^ m, unless that lane lies in a later
//    group of width lanes (own value); earlier groups are readable.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 256
#define NI 16
#define NF 5
#define ND 5
#define NL 4
#define W 4   /* the runtime width argument */

static uint32_t rng = 0x2545F491u;
static uint32_t xorshift32(void) {
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5;
    return rng;
}

static void write_file(const char* name, const void* p, size_t bytes) {
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

// Source lane for each kind of shuffle (lane itself when out of range).
static int src_idx(int lane, int src, int width) { return (lane / width) * width + (src % width); }
static int src_up(int lane, int d, int width) { return (lane % width) >= d ? lane - d : lane; }
static int src_down(int lane, int d, int width) { return (lane % width) + d < width ? lane + d : lane; }
static int src_xor(int lane, int m, int width) {
    int j = lane ^ m;
    int group_end = (lane / width + 1) * width;   // first lane of the next group
    return (j < group_end && j < 32) ? j : lane;
}

int main(void) {
    static int32_t iv[N];
    static float fv[N];
    static double dv[N];
    static int64_t lv[N];
    for (int i = 0; i < N; i++) {
        iv[i] = (int32_t)(xorshift32() % 2000001u) - 1000000;
        fv[i] = (float)((int32_t)(xorshift32() % 20001u) - 10000) * 0.001f + 0.0001f * (float)(i % 7);
        dv[i] = ((double)xorshift32() / 4294967296.0 - 0.5) * 1000.0;
        lv[i] = (int64_t)(((uint64_t)xorshift32() << 32) | xorshift32());
    }
    write_file("iv.bin", iv, sizeof iv);
    write_file("fv.bin", fv, sizeof fv);
    write_file("dv.bin", dv, sizeof dv);
    write_file("lv.bin", lv, sizeof lv);

    static int32_t iout[NI * N];
    static float fout[NF * N];
    static double dout[ND * N];
    static int64_t lout[NL * N];

    for (int base = 0; base < N; base += 32) {
        const int32_t* x = iv + base;
        const float* f = fv + base;
        const double* d = dv + base;
        const int64_t* l = lv + base;

        // int scan and butterfly, simulated warp-wide step by step
        int32_t scan[32], sum[32], tmp[32];
        for (int k = 0; k < 32; k++) { scan[k] = x[k]; sum[k] = x[k]; }
        for (int off = 1; off < 32; off <<= 1) {
            for (int k = 0; k < 32; k++) tmp[k] = scan[src_up(k, off, 32)];
            for (int k = 0; k < 32; k++) if (k >= off) scan[k] += tmp[k];
        }
        for (int m = 16; m > 0; m >>= 1) {
            for (int k = 0; k < 32; k++) tmp[k] = sum[src_xor(k, m, 32)];
            for (int k = 0; k < 32; k++) sum[k] += tmp[k];
        }
        float fm[32], fs[32], ftmp[32], ftmp2[32];
        for (int k = 0; k < 32; k++) { fm[k] = f[k]; fs[k] = f[k]; }
        for (int m = 16; m > 0; m >>= 1) {
            for (int k = 0; k < 32; k++) { ftmp[k] = fm[src_xor(k, m, 32)]; ftmp2[k] = fs[src_xor(k, m, 32)]; }
            for (int k = 0; k < 32; k++) { fm[k] = fmaxf(fm[k], ftmp[k]); fs[k] = fs[k] + ftmp2[k]; }
        }
        double ds[32], dtmp[32];
        for (int k = 0; k < 32; k++) ds[k] = d[k];
        for (int m = 1; m < 32; m <<= 1) {
            for (int k = 0; k < 32; k++) dtmp[k] = ds[src_xor(k, m, 32)];
            for (int k = 0; k < 32; k++) ds[k] = ds[k] + dtmp[k];
        }

        for (int lane = 0; lane < 32; lane++) {
            int t = base + lane;
            int32_t* r = iout;
            r[0 * N + t] = x[src_idx(lane, (lane * 7 + 3) & 31, 32)];
            r[1 * N + t] = x[src_idx(lane, lane * 3 + 1, 8)];
            r[2 * N + t] = x[src_up(lane, 3, 32)];
            r[3 * N + t] = x[src_up(lane, 5, 16)];
            r[4 * N + t] = x[src_down(lane, 4, 32)];
            r[5 * N + t] = x[src_down(lane, 3, 8)];
            r[6 * N + t] = x[src_xor(lane, 5, 32)];
            r[7 * N + t] = x[src_xor(lane, 17, 16)];
            r[8 * N + t] = x[src_idx(lane, 0, 32)];
            r[9 * N + t] = scan[lane];
            r[10 * N + t] = sum[lane];
            r[11 * N + t] = x[src_down(lane, lane & 7, 32)];
            r[12 * N + t] = x[src_idx(lane, 31 - lane, W)];
            r[13 * N + t] = x[src_up(lane, 1, W)];
            r[14 * N + t] = x[src_idx(lane, lane + 35, 32)];
            r[15 * N + t] = x[src_xor(lane, 1, W)];

            fout[0 * N + t] = f[src_idx(lane, 31 - lane, 32)];
            fout[1 * N + t] = f[src_down(lane, 2, 16)];
            fout[2 * N + t] = f[src_xor(lane, 8, 32)];
            fout[3 * N + t] = fm[lane];
            fout[4 * N + t] = fs[lane];

            dout[0 * N + t] = d[src_idx(lane, (lane + 5) & 31, 32)];
            dout[1 * N + t] = d[src_up(lane, 2, 8)];
            dout[2 * N + t] = d[src_down(lane, 16, 32)];
            dout[3 * N + t] = d[src_xor(lane, 3, 32)];
            dout[4 * N + t] = ds[lane];

            lout[0 * N + t] = l[src_idx(lane, lane ^ 31, 32)];
            lout[1 * N + t] = l[src_down(lane, 1, 32)];
            lout[2 * N + t] = l[src_xor(lane, 2, 4)];
            lout[3 * N + t] = l[src_up(lane, 7, 32)];
        }
    }
    write_file("iout.expected.bin", iout, sizeof iout);
    write_file("fout.expected.bin", fout, sizeof fout);
    write_file("dout.expected.bin", dout, sizeof dout);
    write_file("lout.expected.bin", lout, sizeof lout);
    return 0;
}
