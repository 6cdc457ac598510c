/* CPU reference for math_f32: the functions are evaluated in double precision
 * with the C library and rounded once to float (correctly rounded in practice),
 * so the tolerances only need to cover CUDA's documented ULP bounds. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000

static uint32_t rng = 0x1234567u;
static uint32_t xorshift32(void) {
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5; return rng;
}
/* uniform in [0, 1) with 24 random bits */
static double unif(void) { return (double)(xorshift32() >> 8) / 16777216.0; }
static float uniform(float lo, float hi) { return (float)(lo + (hi - lo) * unif()); }

static void write_f32(const char* name, const float* p, int n) {
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, sizeof(float), n, f) != (size_t)n) { perror(name); exit(1); }
    fclose(f);
}

static float xe[N], xp[N], xt[N], num[N], den[N], pb[N], pe[N];
static float r_exp[N], r_log[N], r_sin[N], r_cos[N], r_sqrt[N], r_rsqrt[N], r_fdiv[N],
             r_pow[N], r_tanh[N], r_exp2[N], r_log2[N];

int main(void) {
    for (int i = 0; i < N; i++) {
        xe[i] = uniform(-20.0f, 20.0f);
        xp[i] = (float)pow(10.0, -6.0 + 12.0 * unif());    /* log-uniform 1e-6 .. 1e6 */
        xt[i] = uniform(-50.0f, 50.0f);
        num[i] = uniform(-100.0f, 100.0f);
        float d = (float)pow(10.0, -2.0 + 4.0 * unif());   /* 0.01 .. 100 */
        den[i] = (xorshift32() & 1) ? -d : d;
        pb[i] = uniform(0.1f, 10.0f);
        pe[i] = uniform(-8.0f, 8.0f);
    }
    /* a few hand-picked values */
    xe[0] = 0.0f;  xe[1] = 1.0f;  xe[2] = -1.0f; xe[3] = 10.0f;
    xp[0] = 1.0f;  xp[1] = 4.0f;  xp[2] = 2.0f;  xp[3] = 0.5f; xp[4] = 1.0f + 0x1p-20f; xp[5] = 1024.0f;
    xt[0] = 0.0f;  xt[1] = 3.14159274f; xt[2] = 1.57079637f; xt[3] = -6.28318548f; xt[4] = 31.4159279f;
    pb[0] = 2.0f;  pe[0] = 10.0f; pb[1] = 9.0f; pe[1] = 0.5f; pb[2] = 1.0f; pe[2] = 7.25f;

    for (int i = 0; i < N; i++) {
        double e = xe[i], p = xp[i], t = xt[i];
        r_exp[i] = (float)exp(e);
        r_log[i] = (float)log(p);
        r_sin[i] = (float)sin(t);
        r_cos[i] = (float)cos(t);
        r_sqrt[i] = sqrtf(xp[i]);                    /* IEEE, correctly rounded */
        r_rsqrt[i] = (float)(1.0 / sqrt(p));
        r_fdiv[i] = (float)((double)num[i] / (double)den[i]);
        r_pow[i] = (float)pow((double)pb[i], (double)pe[i]);
        r_tanh[i] = (float)tanh((double)(0.25f * xe[i]));   /* 0.25f*x is exact */
        r_exp2[i] = (float)exp2(e);
        r_log2[i] = (float)log2(p);
    }
    write_f32("xe.bin", xe, N);   write_f32("xp.bin", xp, N);   write_f32("xt.bin", xt, N);
    write_f32("num.bin", num, N); write_f32("den.bin", den, N);
    write_f32("pb.bin", pb, N);   write_f32("pe.bin", pe, N);
    write_f32("exp.expected.bin", r_exp, N);
    write_f32("log.expected.bin", r_log, N);
    write_f32("sin.expected.bin", r_sin, N);
    write_f32("cos.expected.bin", r_cos, N);
    write_f32("sqrt.expected.bin", r_sqrt, N);
    write_f32("rsqrt.expected.bin", r_rsqrt, N);
    write_f32("fdiv.expected.bin", r_fdiv, N);
    write_f32("pow.expected.bin", r_pow, N);
    write_f32("tanh.expected.bin", r_tanh, N);
    write_f32("exp2.expected.bin", r_exp2, N);
    write_f32("log2.expected.bin", r_log2, N);
    return 0;
}
