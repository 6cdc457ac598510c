// CPU reference for f16_arith: 256 elements.
// binary16 values are handled as exact integers: every finite half is a
// multiple of 2^-24 (less than 2^40 units), so sums and products are computed
// exactly in __int128 (products in units of 2^-48) and then rounded once to
// binary16 with round-to-nearest-even, subnormals and overflow to infinity
// included. Inputs a, b, c, p, q, r are finite halves, so no NaN/inf
// arithmetic rules are needed; f (floats) includes inf, NaN, huge and tiny values.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 256

typedef __int128 i128;
typedef unsigned __int128 u128;

static uint32_t rng = 0x0DDBA11Fu;
static uint32_t xorshift32(void)
{
    uint32_t x = rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng = x;
}

static void write_file(const char* name, const void* p, size_t n)
{
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

/* finite half -> signed integer count of 2^-24 units */
static int64_t h_units(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    int64_t v = e == 0 ? m : (int64_t)(1024 + m) << (e - 1);
    return (h & 0x8000) ? -v : v;
}

/* round M * 2^-48 to binary16 (RNE); zero_neg gives the sign of an exact zero */
static uint16_t h_round(i128 M, int zero_neg)
{
    if (M == 0)
        return zero_neg ? 0x8000 : 0;
    uint16_t sign = M < 0 ? 0x8000 : 0;
    u128 mag = M < 0 ? (u128)(-M) : (u128)M;
    int p = 127;
    while (!((mag >> p) & 1)) p--;
    int s = p - 10 > 24 ? p - 10 : 24; /* quantum 2^(s-48); 2^-24 for subnormals */
    u128 q = mag >> s, rem = mag & (((u128)1 << s) - 1), half = (u128)1 << (s - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    if (s == 24)                       /* subnormal (or rounded up to 2^-14) */
        return sign | (uint16_t)q;
    if (q == 2048) { q = 1024; s++; }
    int biased = s - 23;               /* exponent 2^(s-38) + bias 15 */
    if (biased >= 31)
        return sign | 0x7c00;
    return sign | (uint16_t)(biased << 10) | (uint16_t)(q - 1024);
}

static uint16_t h_add(uint16_t a, uint16_t b)
{
    i128 M = ((i128)h_units(a) + h_units(b)) * ((i128)1 << 24);
    return h_round(M, (a & 0x8000) && (b & 0x8000));   /* -0 + -0 = -0, else +0 */
}
static uint16_t h_neg(uint16_t a) { return a ^ 0x8000; }
static uint16_t h_sub(uint16_t a, uint16_t b) { return h_add(a, h_neg(b)); }
static uint16_t h_mul(uint16_t a, uint16_t b)
{
    return h_round((i128)h_units(a) * h_units(b), ((a ^ b) & 0x8000) != 0);
}
static uint16_t h_fma(uint16_t a, uint16_t b, uint16_t c)
{
    i128 prod = (i128)h_units(a) * h_units(b);
    i128 M = prod + (i128)h_units(c) * ((i128)1 << 24);
    int prod_neg = ((a ^ b) & 0x8000) != 0;
    /* exact zero: -0 only when the product is a zero of sign - and c is -0 */
    int zero_neg = prod == 0 && h_units(c) == 0 && prod_neg && (c & 0x8000);
    return h_round(M, zero_neg);
}

static float h_to_f(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    float v;
    if (e == 31) v = m ? NAN : INFINITY;
    else v = ldexpf((float)(e == 0 ? m : 1024 + m), (e == 0 ? 1 : e) - 25);
    return (h & 0x8000) ? -v : v;
}

/* float -> half, round to nearest even (value handled exactly in double) */
static uint16_t f_to_h(float f)
{
    uint16_t sign = signbit(f) ? 0x8000 : 0;
    if (isnan(f)) return sign | 0x7e00;
    double x = fabs((double)f);
    if (x >= 65520.0) return sign | 0x7c00;      /* halfway above 65504 ties to inf */
    if (x < 0x1p-14) return sign | (uint16_t)rint(x * 0x1p24);   /* subnormal; 1024 = min normal */
    int e;
    frexp(x, &e);                                /* x in [2^(e-1), 2^e) */
    double q = rint(x * ldexp(1.0, 11 - e));     /* 11 significant bits, in [1024, 2048] */
    int E = e - 1;
    if (q == 2048.0) { q = 1024.0; E++; }
    if (E + 15 >= 31) return sign | 0x7c00;
    return sign | (uint16_t)((E + 15) << 10) | (uint16_t)(q - 1024.0);
}

/* random finite half: either any finite bit pattern, or a moderate magnitude */
static uint16_t rand_half(void)
{
    uint32_t r = xorshift32();
    uint16_t h;
    if (r & 1) {
        h = (uint16_t)(r >> 16);
        if (((h >> 10) & 31) == 31) h &= 0xbfff;   /* no inf/NaN */
    } else {
        int e = 15 + (int)((r >> 1) % 9) - 4;       /* 2^-4 .. 2^4 */
        h = (uint16_t)(((r >> 8) & 0x8000) | (e << 10) | ((r >> 16) & 1023));
    }
    return h;
}

int main(void)
{
    static uint16_t a[N], b[N], c[N], p[2 * N], q[2 * N], r[2 * N], out_h[6 * N], out_h2[6 * N];
    static float f[N], out_f[2 * N];
    static const uint16_t spec[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0xbc00, 0x3555, 0x0200};
    const int nspec = (int)(sizeof spec / sizeof spec[0]);

    for (int i = 0; i < N; i++) {
        a[i] = rand_half(); b[i] = rand_half(); c[i] = rand_half();
        if (i % 8 == 5) a[i] = spec[(i / 8) % nspec];
        if (i % 8 == 6) b[i] = spec[(i / 8 + 5) % nspec];
        if (i % 8 == 7) { c[i] = spec[(i / 8 + 1) % nspec]; b[i] = h_neg(a[i]); } /* cancellation */
    }
    for (int i = 0; i < 2 * N; i++) {
        p[i] = rand_half(); q[i] = rand_half(); r[i] = rand_half();
    }
    static const float fspec[] = {INFINITY, -INFINITY, NAN, 65504.0f, 65519.99f, 65520.0f, -65536.0f, 1e-8f,
                                  -1e-45f, 0x1p-24f, 0x1.8p-25f, 0x1p-25f, 0x1.001p-25f, 0.0f, -0.0f,
                                  1.0009765625f /* 1 + 2^-10 exact */, 1.00048828125f /* tie 1 + 2^-11 */,
                                  1.00146484375f /* tie 1 + 3*2^-11 */, 3e38f, 6.1e-5f};
    const int nf = (int)(sizeof fspec / sizeof fspec[0]);
    for (int i = 0; i < N; i++) {
        if (i % 4 == 3) {
            f[i] = fspec[(i / 4) % nf];
        } else {
            uint32_t bits = xorshift32();
            int e = 127 + (int)(xorshift32() % 44) - 28;   /* 2^-28 .. 2^15 */
            bits = (bits & 0x807fffffu) | ((uint32_t)e << 23);
            memcpy(&f[i], &bits, 4);
        }
    }

    for (int i = 0; i < N; i++) {
        out_h[6 * i + 0] = h_add(a[i], b[i]);
        out_h[6 * i + 1] = h_sub(a[i], b[i]);
        out_h[6 * i + 2] = h_mul(a[i], b[i]);
        out_h[6 * i + 3] = h_fma(a[i], b[i], c[i]);
        out_h[6 * i + 4] = f_to_h(f[i]);
        out_h[6 * i + 5] = h_neg(a[i]);
        for (int l = 0; l < 2; l++) {   /* lane 0 = low half = .x, first in memory */
            out_h2[6 * i + 0 + l] = h_add(p[2 * i + l], q[2 * i + l]);
            out_h2[6 * i + 2 + l] = h_mul(p[2 * i + l], q[2 * i + l]);
            out_h2[6 * i + 4 + l] = h_fma(p[2 * i + l], q[2 * i + l], r[2 * i + l]);
        }
        out_f[2 * i + 0] = h_to_f(a[i]);
        out_f[2 * i + 1] = h_to_f(p[2 * i]) + h_to_f(q[2 * i + 1]);
    }

    write_file("a.bin", a, sizeof a);
    write_file("b.bin", b, sizeof b);
    write_file("c.bin", c, sizeof c);
    write_file("p.bin", p, sizeof p);
    write_file("q.bin", q, sizeof q);
    write_file("r.bin", r, sizeof r);
    write_file("f.bin", f, sizeof f);
    write_file("out_h.expected.bin", out_h, sizeof out_h);
    write_file("out_h2.expected.bin", out_h2, sizeof out_h2);
    write_file("out_f.expected.bin", out_f, sizeof out_f);
    return 0;
}
