/* CPU reference for cvt_tf32, from the PTX ISA's cvt to .tf32: the f32's
   mantissa rounded to tf32's 10 bits (13 low bits cleared) with .rna (nearest,
   ties away from zero), .rn (nearest, ties to even) or .rz (toward zero); the
   exponent range is f32's, so a carry out of the mantissa increments the
   exponent (to infinity past the largest finite value). .satfinite: a result
   or input of infinite magnitude becomes the largest finite tf32 value
   0x7f7fe000 with its sign; .relu: a negative result (-0 too) becomes +0.
   NaN inputs give the canonical NaN 0x7fffffff, except plain .rna, which
   passes a NaN's bits through (warpjit's documented choices; the ISA leaves
   the NaN's bits open). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 2048
#define OUTS 6

enum { RNA, RN, RZ };

static uint32_t rng = 0x7F32ABCDu;
static uint32_t next(void) {
    uint32_t x = rng;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    return rng = x;
}

static uint32_t pick(void) {
    static const uint32_t edge[] = {
        0x00000000, 0x80000000, 0x3f800000, 0x3f801000, 0x3f803000, 0x3f800fff, 0x3f801001,
        0x3fffefff, 0x3ffff000, 0x7f7fffff, 0xff7fffff, 0x7f7fe000, 0x7f7ff000, 0x7f7fefff,
        0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x7fa01000,
        0x00000001, 0x00001000, 0x00003000, 0x80001fff, 0x007fffff, 0x807ff000};
    uint32_t r = next();
    uint32_t x = next();
    switch (r % 4) {
    case 0: return edge[(r >> 8) % (sizeof edge / sizeof edge[0])];
    case 1: return (x & ~0x1fffu) | 0x1000u; /* a tie */
    case 2: return (x & ~0x1fffu) | ((r >> 3) & 1 ? 0x0fffu : 0x1001u); /* just off a tie */
    default: return x;
    }
}

static uint32_t tf32(uint32_t a, int mode, int satfinite, int relu) {
    uint32_t sign = a & 0x80000000u, mag = a & 0x7fffffffu;
    if (mag > 0x7f800000u) return 0x7fffffffu;
    if (mag != 0x7f800000u) {
        uint32_t low = mag & 0x1fffu, kept = mag - low;
        int up = 0;
        if (mode == RNA) up = low >= 0x1000u;
        if (mode == RN) up = low > 0x1000u || (low == 0x1000u && (kept & 0x2000u));
        mag = kept + (up ? 0x2000u : 0);
    }
    if (satfinite && mag == 0x7f800000u) mag = 0x7f7fe000u;
    if (relu && sign) return 0;
    return sign | mag;
}

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static uint32_t in[N], out[N * OUTS];
    for (int i = 0; i < N; i++) in[i] = pick();
    for (int i = 0; i < N; i++) {
        uint32_t x = in[i], *o = out + OUTS * i;
        int nan = (x & 0x7fffffffu) > 0x7f800000u;
        o[0] = nan ? x : tf32(x, RNA, 0, 0);
        o[1] = tf32(x, RNA, 1, 0);
        o[2] = tf32(x, RN, 0, 0);
        o[3] = tf32(x, RZ, 0, 0);
        o[4] = tf32(x, RN, 0, 1);
        o[5] = tf32(x, RZ, 0, 1);
    }
    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
