/* CPU reference for fp_special_values (x86-64 SSE: IEEE binary32 arithmetic,
 * no FTZ/DAZ). Directed rounding is done with fesetround around volatile
 * operands. min/max are written out with the CUDA/C fminf semantics (a NaN
 * operand yields the other operand); the inputs never pair -0.0 with +0.0 for
 * min/max, so the sign-of-zero tie (not specified by C) never arises. */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 256

enum { R_ADD, R_SUB, R_MUL, R_FMA, R_DIV, R_SQRT, R_FMIN, R_FMAX, R_ABS, R_COPYSIGN,
       R_ADD_RZ, R_MUL_RD, R_FMA_RU, R_COUNT };

static uint32_t rng = 0x5EC1A1u;
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
static uint32_t canon(float r) { return isnan(r) ? 0x7fffffffu : fbits(r); }

static float fmin_ref(float a, float b) {
    if (isnan(a)) return b;
    if (isnan(b)) return a;
    return a < b ? a : b;
}
static float fmax_ref(float a, float b) {
    if (isnan(a)) return b;
    if (isnan(b)) return a;
    return a > b ? a : b;
}

static float add_rz(float a, float b) {
    volatile float x = a, y = b, r;
    fesetround(FE_TOWARDZERO); r = x + y; fesetround(FE_TONEAREST);
    return r;
}
static float mul_rd(float a, float b) {
    volatile float x = a, y = b, r;
    fesetround(FE_DOWNWARD); r = x * y; fesetround(FE_TONEAREST);
    return r;
}
static float fma_ru(float a, float b, float c) {
    volatile float x = a, y = b, z = c, r;
    fesetround(FE_UPWARD); r = fmaf(x, y, z); fesetround(FE_TONEAREST);
    return r;
}

static const uint32_t specials[] = {
    0x00000000u, 0x80000000u,             /* +0, -0 */
    0x7f800000u, 0xff800000u,             /* +inf, -inf */
    0x7fc00000u, 0xffc00000u, 0x7fc12345u,/* quiet NaNs (+, -, payload) */
    0x00000001u, 0x807fffffu,             /* min subnormal, -max subnormal */
    0x00800000u,                          /* min normal */
    0x7f7fffffu, 0xff7fffffu,             /* +-FLT_MAX */
    0x3f800000u, 0xbfc00000u, 0x3f800001u,/* 1.0, -1.5, 1+ulp */
};
#define NS (int)(sizeof specials / sizeof specials[0])

static float a[N], b[N], c[N];
static uint32_t res[N * R_COUNT], flags[N];

static int zero_sign_clash(float x, float y) {
    return x == 0.0f && y == 0.0f && signbit(x) != signbit(y);
}

static float random_float(void) {
    uint32_t u = xorshift32();
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) u |= 0x00400000u; /* quiet NaNs only */
    return bitsf(u);
}

int main(void) {
    int i = 0;
    for (int p = 0; p < NS; p++)
        for (int q = 0; q < NS; q++, i++) {
            a[i] = bitsf(specials[p]);
            b[i] = bitsf(specials[q]);
        }
    for (; i < N; i++) {
        a[i] = random_float();
        b[i] = (i % 3 == 0) ? bitsf(specials[xorshift32() % NS]) : random_float();
    }
    for (i = 0; i < N; i++) {
        do {
            c[i] = (i % 2) ? bitsf(specials[xorshift32() % NS]) : random_float();
        } while (zero_sign_clash(a[i], c[i]));
    }

    for (i = 0; i < N; i++) {
        float x = a[i], y = b[i], z = c[i];
        uint32_t* r = res + i * R_COUNT;
        r[R_ADD] = canon(x + y);
        r[R_SUB] = canon(x - y);
        r[R_MUL] = canon(x * y);
        r[R_FMA] = canon(fmaf(x, y, z));
        r[R_DIV] = canon(x / y);
        r[R_SQRT] = canon(sqrtf(x));
        r[R_FMIN] = canon(fmin_ref(x, z));
        r[R_FMAX] = canon(fmax_ref(x, z));
        r[R_ABS] = canon(bitsf(fbits(x) & 0x7fffffffu));
        r[R_COPYSIGN] = canon(bitsf((fbits(z) & 0x7fffffffu) | (fbits(y) & 0x80000000u)));
        r[R_ADD_RZ] = canon(add_rz(x, y));
        r[R_MUL_RD] = canon(mul_rd(x, y));
        r[R_FMA_RU] = canon(fma_ru(x, y, z));
        uint32_t f = 0;
        f |= (uint32_t)(x <  y) << 0;
        f |= (uint32_t)(x <= y) << 1;
        f |= (uint32_t)(x == y) << 2;
        f |= (uint32_t)(x != y) << 3;
        f |= (uint32_t)(x >  y) << 4;
        f |= (uint32_t)(x >= y) << 5;
        f |= (uint32_t)(isnan(x) != 0) << 6;
        f |= (uint32_t)(isinf(x) != 0) << 7;
        f |= (uint32_t)(isfinite(x) != 0) << 8;
        f |= (fbits(x) >> 31) << 9;
        f |= (fbits(y) >> 31) << 10;
        f |= (uint32_t)(isnan(x + y) != 0) << 11;
        flags[i] = f;
    }
    write_bin("a.bin", a, sizeof a);
    write_bin("b.bin", b, sizeof b);
    write_bin("c.bin", c, sizeof c);
    write_bin("res.expected.bin", res, sizeof res);
    write_bin("flags.expected.bin", flags, sizeof flags);
    return 0;
}
