/* CPU reference for conversions. CUDA/PTX semantics emulated here:
 *  - float->32-bit int: round per mode, NaN -> 0, clamp to the destination range;
 *  - double->64-bit int: truncate, clamp; NaN -> INT64_MIN (PTX ISA 9.0: NaN gives
 *    1 << (width-1) when the source is .f64 or the destination is 64-bit);
 *  - directed double->float / int->float rounding done from the round-to-nearest
 *    result plus a one-ulp nextafterf correction (no fesetround needed);
 *  - __saturatef: clamp to [0, 1], NaN -> 0. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 96

static uint32_t rng = 0xA5A5A5A5u;
static uint32_t xorshift32(void) {
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5; return rng;
}

static void write_bin(const char* name, const void* p, size_t size) {
    FILE* fp = fopen(name, "wb");
    if (!fp || fwrite(p, 1, size, fp) != size) { perror(name); exit(1); }
    fclose(fp);
}

enum { RN, RZ, RD, RU };

static int32_t f2i(float x, int mode) {
    if (isnan(x)) return 0;
    float r = mode == RN ? rintf(x) : mode == RZ ? truncf(x) : mode == RD ? floorf(x) : ceilf(x);
    if (r >= 2147483648.0f) return INT32_MAX;
    if (r < -2147483648.0f) return INT32_MIN;
    return (int32_t)r;
}

static uint32_t f2u_rn(float x) {
    if (isnan(x)) return 0;
    float r = rintf(x);
    if (r >= 4294967296.0f) return UINT32_MAX;
    if (r <= 0.0f) return 0;
    return (uint32_t)r;
}

static float d2f(double d, int mode) {
    float r = (float)d;                 /* round to nearest even */
    if (isnan(d) || mode == RN) return r;
    if (mode == RZ && fabs((double)r) > fabs(d)) r = nextafterf(r, 0.0f);
    if (mode == RD && (double)r > d) r = nextafterf(r, -INFINITY);
    if (mode == RU && (double)r < d) r = nextafterf(r, INFINITY);
    return r;
}

static int64_t d2ll_rz(double d) {
    if (isnan(d)) return INT64_MIN;
    double t = trunc(d);
    if (t >= 9223372036854775808.0) return INT64_MAX;
    if (t < -9223372036854775808.0) return INT64_MIN;
    return (int64_t)t;
}

static float saturate(float x) {
    if (isnan(x) || x <= 0.0f) return 0.0f;
    return x >= 1.0f ? 1.0f : x;
}

static float fin[N];
static double din[N];
static int32_t iin[N];
static int64_t llin[N];
static int32_t r_f2i[N * 4];
static uint32_t r_f2u[N];
static float r_d2f[N * 4], r_i2f[N * 4], r_fround[N * 5], r_sat[N];
static double r_ll2d[N];
static int64_t r_d2ll[N];

int main(void) {
    const float fspec[] = {
        0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 0.49999997f, -0.49999997f, 0.99999994f,
        -0.99999994f, 3.5f, -3.5f, 123.456f, -123.456f, 8388607.5f, -8388607.5f,
        1e10f, -1e10f, 2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f,
        4294967040.0f, 4294967296.0f, NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f,
        1e-40f, -1e-40f, 0.25f, 0.75f, 1.0f, -1.0f, 1.00000012f, 0.0001f, -0.6f, -0.4f,
    };
    const double dspec[] = {
        1.0 + 0x1p-24, -(1.0 + 0x1p-24), 1.0 + 0x1p-24 + 0x1p-50, 1.0 + 3 * 0x1p-24,
        1e39, -1e39, 3.4028235677973366e38, -3.4028235677973366e38, 3.4028235e38,
        1e-46, -1e-46, 1e-40, -1e-40, 0x1p-149, 0x1.8p-149, NAN, INFINITY, -INFINITY,
        0.0, -0.0, 0.1, -0.1, 1.0 / 3.0, -2.0 / 3.0, 16777217.0, -2.5, 2.5, 1e-300,
        9.3e18, -1e19, 9223372036854774784.0, -9223372036854775808.0, 123456789012.75,
        -98765432109.5, 0.9999999999, -0.9999999999,
    };
    const int32_t ispec[] = {
        16777217, -16777217, 16777219, -16777219, INT32_MAX, INT32_MIN, -2147483647,
        0, -1, 1, 33554435, -33554435, 16777216, 2147483584, 2147483583, 100000001,
    };
    const int64_t llspec[] = {
        (1LL << 53) + 1, (1LL << 53) + 3, -((1LL << 53) + 1), INT64_MAX, INT64_MIN,
        INT64_MIN + 1, 0, -1, (1LL << 62) + 1025, (1LL << 62) + 1024, 12345678901234567LL,
    };
    const int nf = sizeof fspec / sizeof fspec[0], nd = sizeof dspec / sizeof dspec[0];
    const int ni = sizeof ispec / sizeof ispec[0], nl = sizeof llspec / sizeof llspec[0];

    for (int i = 0; i < N; i++) {
        uint32_t a = xorshift32(), b = xorshift32();
        if (i < nf) fin[i] = fspec[i];
        else if (i % 2) fin[i] = (float)((int32_t)(a % 4001) - 2000) * 0.5f;   /* many exact .5 ties */
        else fin[i] = ((float)(a >> 8) / 16777216.0f - 0.5f) * 2e3f;
        if (i < nd) din[i] = dspec[i];
        else din[i] = ((double)a * 4294967296.0 + b) / 18446744073709551616.0 * 2e6 - 1e6;
        if (i < ni) iin[i] = ispec[i];
        else iin[i] = (int32_t)a;
        if (i < nl) llin[i] = llspec[i];
        else llin[i] = (int64_t)(((uint64_t)a << 32) | b);
    }
    for (int i = 0; i < N; i++) {
        for (int m = 0; m < 4; m++) {
            r_f2i[4 * i + m] = f2i(fin[i], m);
            r_d2f[4 * i + m] = d2f(din[i], m);
            r_i2f[4 * i + m] = d2f((double)iin[i], m);     /* int32 is exact in double */
        }
        r_f2u[i] = f2u_rn(fin[i]);
        r_ll2d[i] = (double)llin[i];                       /* round to nearest even */
        r_d2ll[i] = d2ll_rz(din[i]);
        r_fround[5 * i + 0] = truncf(fin[i]);
        r_fround[5 * i + 1] = roundf(fin[i]);
        r_fround[5 * i + 2] = rintf(fin[i]);
        r_fround[5 * i + 3] = floorf(fin[i]);
        r_fround[5 * i + 4] = ceilf(fin[i]);
        r_sat[i] = saturate(fin[i]);
    }
    write_bin("f.bin", fin, sizeof fin);
    write_bin("d.bin", din, sizeof din);
    write_bin("i.bin", iin, sizeof iin);
    write_bin("ll.bin", llin, sizeof llin);
    write_bin("f2i.expected.bin", r_f2i, sizeof r_f2i);
    write_bin("f2u.expected.bin", r_f2u, sizeof r_f2u);
    write_bin("d2f.expected.bin", r_d2f, sizeof r_d2f);
    write_bin("i2f.expected.bin", r_i2f, sizeof r_i2f);
    write_bin("ll2d.expected.bin", r_ll2d, sizeof r_ll2d);
    write_bin("d2ll.expected.bin", r_d2ll, sizeof r_d2ll);
    write_bin("fround.expected.bin", r_fround, sizeof r_fround);
    write_bin("sat.expected.bin", r_sat, sizeof r_sat);
    return 0;
}
