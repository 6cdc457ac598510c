/* CPU reference for fp8_convert, from PTX ISA's cvt description: f32 or
   f16 to e4m3 (bias 7, no infinities, 0x7f NaN) or e5m2 (bias 15) with
   round-to-nearest-even and .satfinite (beyond the largest finite value,
   infinities included: that value with its sign; NaN: 0x7f), .relu
   (negatives and -0 to +0); the value from a goes to the high byte.
   Back to f16 exactly (a NaN of either format as f16's canonical 0x7fff,
   as an H100 gives it; another e5m2 value is f16's high byte). 512 pairs: edge values, then random ones. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 512

static uint32_t rng = 0x5EED1234u;
static uint32_t xorshift32(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void write_file(const char *path, const void *data, size_t bytes) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, bytes, f) != bytes) { perror(path); exit(1); }
    fclose(f);
}

/* e4m3: mbits 3, bias 7, max code 0x7e; e5m2: 2, 15, 0x7b. */
static uint8_t to_f8(double v, int e5m2, int relu) {
    int mbits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
    int maxc = e5m2 ? 0x7b : 0x7e;
    if (isnan(v)) return 0x7f;
    if (relu && (v < 0 || (v == 0 && signbit(v)))) return 0;
    uint8_t sign = signbit(v) ? 0x80 : 0;
    double a = fabs(v);
    if (a == 0) return sign;
    if (isinf(a)) return sign | maxc;
    int e;
    frexp(a, &e); /* a = m * 2^e, m in [0.5, 1): exponent e - 1 */
    e -= 1;
    if (e < 1 - bias) e = 1 - bias;
    if (e > 2 * bias) return sign | maxc;
    double q = nearbyint(ldexp(a, mbits - e)); /* ties to even */
    long code = ((long)(e + bias) << mbits) + (long)q - (1L << mbits);
    if (code > maxc) code = maxc;
    return sign | (uint8_t)code;
}

static double f8_value(uint8_t b, int e5m2) {
    int mbits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
    int ebits = e5m2 ? 5 : 4;
    int exp = (b >> mbits) & ((1 << ebits) - 1), man = b & ((1 << mbits) - 1);
    double s = (b & 0x80) ? -1 : 1;
    if (!e5m2 && exp == 15 && man == 7) return NAN;
    if (e5m2 && exp == 31) return man ? NAN : s * INFINITY;
    if (exp == 0) return s * ldexp(man, 1 - bias - mbits);
    return s * ldexp((1 << mbits) + man, exp - bias - mbits);
}

/* A value exactly representable in f16 (all fp8 values are) as f16 bits. */
static uint16_t f16_bits(double v) {
    uint16_t s = signbit(v) ? 0x8000 : 0;
    double a = fabs(v);
    if (a == 0) return s;
    if (isinf(a)) return s | 0x7c00;
    int e;
    frexp(a, &e);
    e -= 1;
    if (e < -14) return s | (uint16_t)ldexp(a, 24); /* subnormal */
    return s | (uint16_t)((e + 15) << 10) | (uint16_t)(ldexp(a, 10 - e) - 1024);
}

static uint16_t f8_to_f16(uint8_t b, int e5m2, int relu) {
    double v = f8_value(b, e5m2);
    if (isnan(v)) return 0x7fff; /* either format (an H100 widens e5m2 NaN so too) */
    if (relu && (v < 0 || b == 0x80)) return 0;
    if (e5m2) return (uint16_t)(b << 8);
    return f16_bits(v);
}

/* f32 to f16, round to nearest even (for the f16x2 input). */
static uint16_t f32_to_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000;
    if ((x & 0x7fffffff) > 0x7f800000) return 0x7fff;
    float a = fabsf(f);
    if (isinf(a) || a >= 65520.0f) return sign | 0x7c00;
    if (a < ldexpf(1, -14)) return sign | (uint16_t)nearbyint(ldexp(a, 24));
    int e;
    frexp(a, &e);
    e -= 1;
    long m = (long)nearbyint(ldexp(a, 10 - e));
    return sign | (uint16_t)(((long)(e + 15) << 10) + m - 1024);
}

static double f16_value(uint16_t h) {
    int exp = (h >> 10) & 31, man = h & 1023;
    double s = (h & 0x8000) ? -1 : 1;
    if (exp == 31) return man ? NAN : s * INFINITY;
    if (exp == 0) return s * ldexp(man, -24);
    return s * ldexp(1024 + man, exp - 25);
}

int main(void) {
    static float in[2 * N];
    static uint32_t out[6 * N];
    const float edges[] = {
        0.0f, -0.0f, 1.0f, -2.0f, 1.0625f, 1.1875f, 1.07f, 448.0f, 464.0f, 480.0f, 500.0f,
        -1e30f, INFINITY, -INFINITY, NAN, 57344.0f, 61440.0f, 65536.0f, 0x1p-9f, 0x1p-10f,
        0x1.8p-10f, 7.5f * 0x1p-9f, 0x1p-16f, 0x1p-17f, 1.5f * 0x1p-17f, 3.0f, -3.0f,
        0.1f, -0.3f, 240.0f, 248.0f, 1e-8f, 65504.0f, 65520.0f,
    };
    int ne = (int)(sizeof edges / sizeof edges[0]);
    for (int i = 0; i < 2 * N; i++) {
        if (i < 2 * ne * 2) {
            in[i] = edges[(i / 2 + (i & 1) * 7) % ne];
        } else {
            uint32_t r = xorshift32();
            float f = ldexpf((float)(r & 0xffff) / 65536.0f + 0.5f, (int)((r >> 16) % 48) - 24);
            in[i] = (r >> 31) ? -f : f;
        }
    }
    for (int i = 0; i < N; i++) {
        float x = in[2 * i], y = in[2 * i + 1];
        uint8_t e4x = to_f8(x, 0, 0), e4y = to_f8(y, 0, 0);
        uint8_t e5x = to_f8(x, 1, 0), e5y = to_f8(y, 1, 0);
        /* float2 {x, y}: x is the low element, so y goes to the high byte. */
        uint16_t e4 = (uint16_t)(e4y << 8 | e4x), e5 = (uint16_t)(e5y << 8 | e5x);
        uint16_t hx = f32_to_f16(x), hy = f32_to_f16(y);
        uint8_t e4hx = to_f8(f16_value(hx), 0, 0), e4hy = to_f8(f16_value(hy), 0, 0);
        uint16_t relu = (uint16_t)(to_f8(x, 1, 1) << 8 | to_f8(y, 1, 1));
        uint32_t back = (uint32_t)f8_to_f16(e4y, 0, 1) << 16 | f8_to_f16(e4x, 0, 1);
        out[6 * i + 0] = e4;
        out[6 * i + 1] = e5;
        out[6 * i + 2] = (uint32_t)f8_to_f16(e4y, 0, 0) << 16 | f8_to_f16(e4x, 0, 0);
        out[6 * i + 3] = (uint32_t)f8_to_f16(e5y, 1, 0) << 16 | f8_to_f16(e5x, 1, 0);
        out[6 * i + 4] = (uint32_t)(e4hy << 8 | e4hx) << 16 | relu;
        out[6 * i + 5] = back;
    }
    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
