/* CPU reference for lop3_predicate, from the PTX ISA's description of
   lop3.BoolOp.b32 d|p, a, b, c, immLut, q: bit i of d is bit
   (a_i << 2 | b_i << 1 | c_i) of immLut, and p = (d != 0) BoolOp q.
   Inputs are sparse words (so that d is often zero), the edges and random
   words; q is zero half of the time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024
#define OUTS 9

static uint32_t rng = 0x10B3C0DEu;
static uint32_t next(void) {
    uint32_t x = rng;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    return rng = x;
}
static uint32_t pick(void) {
    uint32_t r = next();
    switch (r % 4) {
    case 0: return 0;
    case 1: return 0xFFFFFFFFu;
    case 2: return 1u << (next() % 32);
    default: return next();
    }
}

static uint32_t lop3(uint32_t lut, uint32_t a, uint32_t b, uint32_t c) {
    uint32_t d = 0;
    for (int i = 0; i < 32; i++) {
        uint32_t k = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1);
        d |= ((lut >> k) & 1) << i;
    }
    return d;
}

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static const uint32_t luts[8] = {0x00, 0xFF, 0x80, 0xFE, 0x96, 0xE8, 0xCA, 0x01};
    static uint32_t a[N], b[N], c[N], q[N], out[N * OUTS];
    for (int i = 0; i < N; i++) {
        a[i] = pick();
        b[i] = pick();
        c[i] = pick();
        q[i] = next() % 2 ? next() : 0;
    }
    for (int i = 0; i < N; i++) {
        uint32_t *o = out + OUTS * i, p = 0;
        int qb = q[i] != 0;
        for (int k = 0; k < 8; k++) {
            uint32_t d = lop3(luts[k], a[i], b[i], c[i]);
            int nz = d != 0;
            o[k] = d;
            p |= (uint32_t)((nz || qb) | (nz && qb) << 1 | (nz || !qb) << 2 | (nz && !qb) << 3)
                 << (4 * k);
        }
        o[8] = p;
    }
    write_file("a.bin", a, sizeof a);
    write_file("b.bin", b, sizeof b);
    write_file("c.bin", c, sizeof c);
    write_file("q.bin", q, sizeof q);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
