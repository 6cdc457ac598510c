/* CPU reference for bf16_arith. bf16 values are kept as their 16-bit patterns;
 * rounding from float is done on the bit pattern (round-to-nearest-even and the
 * directed modes). The arithmetic inputs have |v| in [0.5, 4), so bf16 a+b, a-b,
 * a*b and a*b+c are exact in float and a single rounding to bf16 gives the
 * correctly rounded result (what the bf16 instructions produce). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 256

static uint32_t rng = 0x0BF16BF1u;
static uint32_t xorshift32(void) {
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5; return rng;
}
static void write_bin(const char* name, const void* p, size_t size) {
    FILE* fp = fopen(name, "wb");
    if (!fp || fwrite(p, 1, size, fp) != size) { perror(name); exit(1); }
    fclose(fp);
}
static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

enum { RN, RZ, RD, RU };
static uint16_t f2bf(float f, int mode) {
    uint32_t u = fbits(f);
    if (isnan(f)) return 0x7FFF;
    uint16_t hi = (uint16_t)(u >> 16);
    uint32_t rem = u & 0xFFFF;
    int neg = (u >> 31) != 0;
    switch (mode) {
    case RN: if (rem > 0x8000 || (rem == 0x8000 && (hi & 1))) hi++; break;
    case RZ: break;
    case RD: if (rem && neg) hi++; break;
    case RU: if (rem && !neg) hi++; break;
    }
    return hi;
}
static float bf2f(uint16_t h) { return bitsf((uint32_t)h << 16); }
static uint16_t bf_neg(uint16_t h) { return h ^ 0x8000; }

/* float -> IEEE half, round toward zero */
static uint16_t f2h_rz(float f) {
    if (isnan(f)) return 0x7FFF;
    uint16_t sign = (fbits(f) >> 31) ? 0x8000 : 0;
    double a = fabs((double)f);
    if (isinf(f)) return sign | 0x7C00;
    if (a >= 65536.0) return sign | 0x7BFF;          /* finite overflow: largest finite */
    if (a < 0x1p-14) return sign | (uint16_t)floor(a * 0x1p24);   /* subnormal or zero */
    int e;
    double m = frexp(a, &e);                         /* a = m * 2^e, m in [0.5, 1) */
    uint32_t mant = (uint32_t)floor(m * 2048.0);     /* 11 bits incl. the implicit one */
    if (e - 1 > 15) return sign | 0x7BFF;
    return sign | (uint16_t)(((e - 1 + 15) << 10) | (mant & 0x3FF));
}

static float cx[N], x[N], y[N], z[N];
static uint16_t r_conv[N * 4], r_scal[N * 6], r_vec[N * 4], r_hrz[N];
static float r_back[N], r_dot[N / 8];
static int32_t r_cmp[N];

static float arith_input(void) {
    float m = 0.5f + 3.5f * (float)(xorshift32() >> 8) / 16777216.0f;  /* [0.5, 4) */
    return (xorshift32() & 1) ? -m : m;
}

int main(void) {
    const float spec[] = {
        NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 3.40282347e38f, -3.40282347e38f,
        1e-40f, -1e-40f, 0x1.0101p-130f, 1.00390625f, 1.01171875f, -1.00390625f, -1.01171875f,
        1.0f, -1.0f, 65504.0f, 65519.0f, 65520.0f, 1e5f, -1e5f, 6e-8f, -6e-8f, 1e-8f, 3e-5f,
        0.1f, -0.1f, 3.14159265f, 0x1.00fffep0f, 0x1.010002p0f, 3.3961e38f, 3.3962e38f,
    };
    const int ns = sizeof spec / sizeof spec[0];
    for (int i = 0; i < N; i++) {
        if (i < ns) cx[i] = spec[i];
        else {
            /* random float, random exponent in [-40, 40], full mantissa */
            uint32_t u = xorshift32();
            int e = (int)(xorshift32() % 81) - 40;
            cx[i] = ldexpf(1.0f + (float)(u & 0x7FFFFF) * 0x1p-23f, e) * ((u >> 31) ? -1.0f : 1.0f);
        }
        x[i] = arith_input(); y[i] = arith_input(); z[i] = arith_input();
    }
    x[3] = 1.5f; y[3] = 1.5f;   /* equality case for the comparison flags */

    for (int i = 0; i < N; i++) {
        for (int m = 0; m < 4; m++) r_conv[4 * i + m] = f2bf(cx[i], m);
        r_back[i] = bf2f(r_conv[4 * i + 0]);
        r_hrz[i] = f2h_rz(cx[i]);
        uint16_t a = f2bf(x[i], RN), b = f2bf(y[i], RN), d = f2bf(z[i], RN);
        float fa = bf2f(a), fb = bf2f(b), fd = bf2f(d);
        r_scal[6 * i + 0] = f2bf(fa + fb, RN);
        r_scal[6 * i + 1] = f2bf(fa - fb, RN);
        r_scal[6 * i + 2] = f2bf(fa * fb, RN);
        r_scal[6 * i + 3] = f2bf(fmaf(fa, fb, fd), RN);
        r_scal[6 * i + 4] = bf_neg(a);
        r_scal[6 * i + 5] = fa >= fb ? a : b;
        r_cmp[i] = (fa < fb ? 1 : 0) | (fa == fb ? 2 : 0) | (fa >= fd ? 4 : 0) |
                   (isnan(r_back[i]) ? 8 : 0);
    }
    for (int i = 0; i < N / 2; i++) {
        for (int l = 0; l < 2; l++) {
            int j = 2 * i + l;
            uint16_t a = f2bf(x[j], RN), b = f2bf(y[j], RN), d = f2bf(z[j], RN);
            float fa = bf2f(a), fb = bf2f(b), fd = bf2f(d);
            r_vec[8 * i + 0 + l] = f2bf(fa + fb, RN);
            r_vec[8 * i + 2 + l] = f2bf(fa * fb, RN);
            r_vec[8 * i + 4 + l] = f2bf(fmaf(fa, fb, fd), RN);
            r_vec[8 * i + 6 + l] = fa > 0.0f ? a : 0;
        }
    }
    for (int i = 0; i < N / 8; i++) {
        float acc = 0.0f;
        for (int k = 0; k < 8; k++)
            acc = fmaf(bf2f(f2bf(x[8 * i + k], RN)), bf2f(f2bf(y[8 * i + k], RN)), acc);
        r_dot[i] = acc;
    }
    write_bin("cx.bin", cx, sizeof cx);
    write_bin("x.bin", x, sizeof x);
    write_bin("y.bin", y, sizeof y);
    write_bin("z.bin", z, sizeof z);
    write_bin("conv.expected.bin", r_conv, sizeof r_conv);
    write_bin("back.expected.bin", r_back, sizeof r_back);
    write_bin("scal.expected.bin", r_scal, sizeof r_scal);
    write_bin("vec.expected.bin", r_vec, sizeof r_vec);
    write_bin("cmp.expected.bin", r_cmp, sizeof r_cmp);
    write_bin("dot.expected.bin", r_dot, sizeof r_dot);
    write_bin("h_rz.expected.bin", r_hrz, sizeof r_hrz);
    return 0;
}
