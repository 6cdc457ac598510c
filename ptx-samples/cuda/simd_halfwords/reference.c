/* CPU reference for simd_halfwords: for each pair of 32-bit words, each
   16-bit half computed on its own: wrapping add/sub, signed and unsigned
   saturating add/sub, signed and unsigned min/max, absolute differences
   (|x - y| of the signed or unsigned halves, modulo 2^16), and min/max of
   the signed halves clamped at 0 (relu). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 512
#define OUTS 16

static uint32_t rng = 0xC0FFEE11u;
static uint32_t next(void) {
    uint32_t x = rng;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    return rng = x;
}
static uint16_t pick(void) {
    static const uint16_t edge[] = {0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff, 0x7ffe, 0x4000};
    uint32_t r = next();
    return r % 3 == 0 ? edge[(r >> 8) % 8] : (uint16_t)next();
}

static int32_t sat(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static uint32_t per_half(uint32_t a, uint32_t b, int op) {
    uint32_t d = 0;
    for (int h = 0; h < 2; h++) {
        uint32_t ua = (a >> (16 * h)) & 0xffff, ub = (b >> (16 * h)) & 0xffff;
        int32_t sa = (int16_t)ua, sb = (int16_t)ub;
        int32_t r;
        switch (op) {
        case 0: r = (int32_t)(ua + ub); break;
        case 1: r = (int32_t)(ua - ub); break;
        case 2: r = sat(sa + sb, -32768, 32767); break;
        case 3: r = sat((int32_t)(ua + ub), 0, 65535); break;
        case 4: r = sat(sa - sb, -32768, 32767); break;
        case 5: r = sat((int32_t)ua - (int32_t)ub, 0, 65535); break;
        case 6: r = sa < sb ? sa : sb; break;
        case 7: r = sa > sb ? sa : sb; break;
        case 8: r = (int32_t)(ua < ub ? ua : ub); break;
        case 9: r = (int32_t)(ua > ub ? ua : ub); break;
        case 10: r = sa > sb ? sa - sb : sb - sa; break;
        case 11: r = (int32_t)(ua > ub ? ua - ub : ub - ua); break;
        case 12: r = sa < sb ? sa : sb; if (r < 0) r = 0; break;
        case 13: r = sa > sb ? sa : sb; if (r < 0) r = 0; break;
        case 14: r = (int32_t)(ub - ua); break;
        default: r = sa + sb; break;
        }
        d |= ((uint32_t)r & 0xffff) << (16 * h);
    }
    return d;
}

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static uint32_t a[N], b[N], out[N * OUTS];
    for (int i = 0; i < N; i++) {
        a[i] = (uint32_t)pick() | (uint32_t)pick() << 16;
        b[i] = (uint32_t)pick() | (uint32_t)pick() << 16;
    }
    for (int i = 0; i < N; i++)
        for (int k = 0; k < OUTS; k++) out[i * OUTS + k] = per_half(a[i], b[i], k);
    write_file("a.bin", a, sizeof a);
    write_file("b.bin", b, sizeof b);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
