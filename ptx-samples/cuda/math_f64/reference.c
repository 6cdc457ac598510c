/* CPU reference for math_f64 (glibc's double functions are accurate to < 1 ulp;
 * sqrt and division are IEEE correctly rounded on both sides, so exact). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 768

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t xorshift64(void) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng;
}
static double unif(void) { return (double)(xorshift64() >> 11) * 0x1p-53; }
static double uniform(double lo, double hi) { return lo + (hi - lo) * unif(); }

static void write_f64(const char* name, const double* p, int n) {
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, sizeof(double), n, f) != (size_t)n) { perror(name); exit(1); }
    fclose(f);
}

static double xe[N], xp[N], xt[N], pa[N], db[N];
static double r_exp[N], r_log[N], r_sin[N], r_cos[N], r_sqrt[N], r_rsqrt[N], r_pow[N], r_tanh[N], r_div[N];

int main(void) {
    for (int i = 0; i < N; i++) {
        xe[i] = uniform(-200.0, 200.0);
        xp[i] = pow(10.0, uniform(-30.0, 30.0));
        xt[i] = uniform(-100.0, 100.0);
        pa[i] = uniform(0.05, 20.0);
        double d = pow(10.0, uniform(-3.0, 3.0));
        db[i] = (xorshift64() & 1) ? -d : d;
    }
    xe[0] = 0.0; xe[1] = 1.0; xe[2] = -1.0; xe[3] = 700.0; xe[4] = -700.0;
    xp[0] = 1.0; xp[1] = 4.0; xp[2] = 2.0; xp[3] = 1e-300; xp[4] = 1.0 + 0x1p-40;
    xt[0] = 0.0; xt[1] = 3.141592653589793; xt[2] = 1.5707963267948966; xt[3] = 1e-8;
    pa[0] = 2.0; pa[1] = 1.0;
    db[0] = 3.0; db[1] = -7.0;

    for (int i = 0; i < N; i++) {
        r_exp[i] = exp(xe[i]);
        r_log[i] = log(xp[i]);
        r_sin[i] = sin(xt[i]);
        r_cos[i] = cos(xt[i]);
        r_sqrt[i] = sqrt(xp[i]);
        /* 1/sqrt: two roundings (<= ~1.5 ulp); covered by the tolerance */
        r_rsqrt[i] = 1.0 / sqrt(xp[i]);
        r_pow[i] = pow(pa[i], 0.125 * xe[i]);      /* 0.125*x is exact */
        r_tanh[i] = tanh(0.25 * xe[i]);            /* 0.25*x is exact */
        r_div[i] = xt[i] / db[i];
    }
    write_f64("xe.bin", xe, N); write_f64("xp.bin", xp, N); write_f64("xt.bin", xt, N);
    write_f64("pa.bin", pa, N); write_f64("db.bin", db, N);
    write_f64("exp.expected.bin", r_exp, N);
    write_f64("log.expected.bin", r_log, N);
    write_f64("sin.expected.bin", r_sin, N);
    write_f64("cos.expected.bin", r_cos, N);
    write_f64("sqrt.expected.bin", r_sqrt, N);
    write_f64("rsqrt.expected.bin", r_rsqrt, N);
    write_f64("pow.expected.bin", r_pow, N);
    write_f64("tanh.expected.bin", r_tanh, N);
    write_f64("div.expected.bin", r_div, N);
    return 0;
}
