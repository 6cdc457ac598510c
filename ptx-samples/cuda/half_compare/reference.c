/* CPU reference for half_compare: 256 pairs of __half2 and of __nv_bfloat162.
   Halves and bfloat16s are decoded to double exactly; each comparison follows
   IEEE 754 (ordered comparisons false with a NaN, the unordered `u` forms true;
   -0 == +0). Results per the PTX ISA's `set` (9.7.7.1): 1.0 in the destination's
   format per half (f16 0x3c00, bf16 0x3f80) or 0xffff per half for a .u32
   destination, 0 for false. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 256
#define OUTS 12

static uint32_t rng = 0x5EEDC0DEu;
static uint32_t next(void) {
    uint32_t x = rng;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    return rng = x;
}

static double half_value(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 31) v = m ? NAN : INFINITY;
    else if (e == 0) v = ldexp(m, -24);
    else v = ldexp(1024 + m, e - 25);
    return (h & 0x8000) ? -v : v;
}

static double bf16_value(uint16_t h) {
    int e = (h >> 7) & 255, m = h & 127;
    double v;
    if (e == 255) v = m ? NAN : INFINITY;
    else if (e == 0) v = ldexp(m, -133);
    else v = ldexp(128 + m, e - 134);
    return (h & 0x8000) ? -v : v;
}

/* Special values mixed into the random ones: NaN, +-0, +-inf, 1, -1. */
static uint16_t pick_half(void) {
    static const uint16_t special[] = {0x7e00, 0x0000, 0x8000, 0x7c00, 0xfc00, 0x3c00, 0xbc00};
    uint32_t r = next();
    if (r % 4 == 0) return special[(r >> 8) % 7];
    return (uint16_t)(next() & 0xffff);
}
static uint16_t pick_bf16(void) {
    static const uint16_t special[] = {0x7fc0, 0x0000, 0x8000, 0x7f80, 0xff80, 0x3f80, 0xbf80};
    uint32_t r = next();
    if (r % 4 == 0) return special[(r >> 8) % 7];
    return (uint16_t)(next() & 0xffff);
}

enum { GT, EQ, LTU, NE, EQU, LEU, GE, NEU, LE };
static int cmp(int op, double a, double b) {
    int un = isnan(a) || isnan(b);
    switch (op) {
    case GT: return !un && a > b;
    case EQ: return !un && a == b;
    case LTU: return un || a < b;
    case NE: return !un && a != b;
    case EQU: return un || a == b;
    case LEU: return un || a <= b;
    case GE: return !un && a >= b;
    case NEU: return un || a != b;
    case LE: return !un && a <= b;
    }
    abort();
}

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static uint16_t a[2 * N], b[2 * N], c[2 * N], d[2 * N];
    static uint32_t out[N * OUTS];
    for (int i = 0; i < 2 * N; i++) {
        a[i] = pick_half();
        /* every eighth pair equal, to exercise eq/ne/ge/le on equal values */
        b[i] = (i % 8 == 3) ? a[i] : pick_half();
        c[i] = pick_bf16();
        d[i] = (i % 8 == 5) ? c[i] : pick_bf16();
    }
    for (int i = 0; i < N; i++) {
        uint32_t *o = out + OUTS * i;
        double xl = half_value(a[2 * i]), xh = half_value(a[2 * i + 1]);
        double yl = half_value(b[2 * i]), yh = half_value(b[2 * i + 1]);
        double ul = bf16_value(c[2 * i]), uh = bf16_value(c[2 * i + 1]);
        double vl = bf16_value(d[2 * i]), vh = bf16_value(d[2 * i + 1]);
#define PACK(lo, hi, one) ((uint32_t)((lo) ? (one) : 0) | (uint32_t)((hi) ? (one) : 0) << 16)
        o[0] = PACK(cmp(GT, xl, yl), cmp(GT, xh, yh), 0x3c00);
        o[1] = PACK(cmp(EQ, xl, yl), cmp(EQ, xh, yh), 0x3c00);
        o[2] = PACK(cmp(LTU, xl, yl), cmp(LTU, xh, yh), 0x3c00);
        o[3] = PACK(cmp(NE, xl, yl), cmp(NE, xh, yh), 0x3c00);
        o[4] = PACK(cmp(GT, xl, yl), cmp(GT, xh, yh), 0xffff);
        o[5] = PACK(cmp(EQU, xl, yl), cmp(EQU, xh, yh), 0xffff);
        o[6] = PACK(cmp(GT, ul, vl), cmp(GT, uh, vh), 0x3f80);
        o[7] = PACK(cmp(LEU, ul, vl), cmp(LEU, uh, vh), 0x3f80);
        o[8] = PACK(cmp(GE, ul, vl), cmp(GE, uh, vh), 0xffff);
        o[9] = PACK(cmp(NEU, ul, vl), cmp(NEU, uh, vh), 0xffff);
        o[10] = cmp(GT, xl, yl) ? 7 : 3;
        o[11] = cmp(LE, xh, yh) ? 5 : 9;
    }
    write_file("a.bin", a, sizeof a);
    write_file("b.bin", b, sizeof b);
    write_file("c.bin", c, sizeof c);
    write_file("d.bin", d, sizeof d);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
