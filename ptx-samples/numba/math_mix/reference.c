/* CPU reference for numba math_mix, 3000 elements, x in [-4, 4], y in [-9, 9] (f64):
 *   out64[i] = exp(-x*x) * sqrt(|y|) + sin(x)                    in double (glibc);
 *   out32[i] = the same formula on xf = (float)x, yf = (float)y: xf*xf is rounded to float as on
 *              the GPU (f32 multiply), the rest is evaluated in double and rounded once.
 * The GPU uses libdevice: __nv_exp / __nv_sin (<= 1-2 ulp) and may contract the multiply-add into
 * an fma; __nv_expf / __nv_sinf are <= 2 ulp, sqrt is correctly rounded in both precisions.
 * With |out| < 4.1, sample.json allows abs 1e-14 + rel 1e-14 for out64 and abs 4e-6 + rel 2e-6
 * for out32 (a few f32 ulps at magnitude 4). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 3000

static uint32_t rng = 0x2545F491u;
static uint32_t xorshift32(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* Uniform in [lo, hi) with 53 random bits. */
static double randd(double lo, double hi) {
    uint64_t m = ((uint64_t)xorshift32() << 21) ^ (uint64_t)(xorshift32() >> 11);
    return lo + (hi - lo) * ((double)(m & ((1ull << 53) - 1)) / 9007199254740992.0);
}

static void write_file(const char *path, const void *data, size_t bytes) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, bytes, f) != bytes) { perror(path); exit(1); }
    fclose(f);
}

int main(void) {
    static double x[N], y[N], out64[N];
    static float out32[N];
    for (int i = 0; i < N; i++) {
        x[i] = randd(-4.0, 4.0);
        y[i] = randd(-9.0, 9.0);
    }
    /* Edge values: zeros of both signs, exact squares, small arguments. */
    x[0] = 0.0;   y[0] = 0.0;
    x[1] = -0.0;  y[1] = -0.0;
    x[2] = 1.0;   y[2] = 4.0;
    x[3] = -2.0;  y[3] = -9.0;
    x[4] = 1e-8;  y[4] = 1e-300;
    for (int i = 0; i < N; i++) {
        double a = x[i], b = y[i];
        out64[i] = exp(-a * a) * sqrt(fabs(b)) + sin(a);
        float af = (float)a, bf = (float)b;
        float sq = af * af;
        out32[i] = (float)(exp(-(double)sq) * sqrt(fabs((double)bf)) + sin((double)af));
    }
    write_file("x.bin", x, sizeof x);
    write_file("y.bin", y, sizeof y);
    write_file("out64.expected.bin", out64, sizeof out64);
    write_file("out32.expected.bin", out32, sizeof out32);
    return 0;
}
