/* CPU reference for cvt_pack, from the PTX ISA's description of
   cvt.pack.sat.convertType.abType{.cType} d, a, b{, c}: a and b are clamped to
   convertType's range (both bounds: .sat), tb's low `size` bits form d's lowest
   bits and ta's the next `size`; a 16-bit type fills d, a narrower one leaves
   d's bits from 2*size up to c's low bits. Inputs mix the types' edges with
   random words. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024
#define OUTS 8

static uint32_t rng = 0x5EED1234u;
static uint32_t next(void) {
    uint32_t x = rng;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    return rng = x;
}
static int32_t pick(void) {
    static const int32_t edge[] = {0, 1, -1, 7, 8, -8, -9, 15, 16, 127, 128, -128, -129, 255, 256,
                                   32767, 32768, -32768, -32769, 65535, 65536,
                                   2147483647, (int32_t)0x80000000u, 100, -100};
    uint32_t r = next();
    switch (r % 4) {
    case 0: return edge[(r >> 8) % (sizeof edge / sizeof edge[0])];
    case 1: return (int32_t)(next() % 600) - 300;
    case 2: return (int32_t)(next() % 140000) - 70000;
    default: return (int32_t)next();
    }
}

static uint32_t pack(int bits, int is_signed, int32_t a, int32_t b, uint32_t c) {
    int64_t lo = is_signed ? -(1LL << (bits - 1)) : 0;
    int64_t hi = is_signed ? (1LL << (bits - 1)) - 1 : (1LL << bits) - 1;
    int64_t ta = a < lo ? lo : a > hi ? hi : a;
    int64_t tb = b < lo ? lo : b > hi ? hi : b;
    uint32_t d = 0;
    for (int i = 0; i < bits; i++) {
        d |= (uint32_t)((tb >> i) & 1) << i;
        d |= (uint32_t)((ta >> i) & 1) << (i + bits);
    }
    if (bits < 16)
        for (int i = 2 * bits; i < 32; i++) d |= ((c >> (i - 2 * bits)) & 1u) << i;
    return d;
}

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static int32_t a[N], b[N];
    static uint32_t c[N], out[N * OUTS];
    for (int i = 0; i < N; i++) {
        a[i] = pick();
        b[i] = pick();
        c[i] = next();
    }
    for (int i = 0; i < N; i++) {
        int32_t x = a[i], y = b[i];
        uint32_t z = c[i], *o = out + OUTS * i;
        o[0] = pack(16, 0, x, y, 0);
        o[1] = pack(16, 1, x, y, 0);
        o[2] = pack(8, 0, x, y, z);
        o[3] = pack(8, 1, x, y, z);
        o[4] = pack(4, 0, x, y, z);
        o[5] = pack(4, 1, x, y, z);
        o[6] = pack(8, 1, x, y, pack(8, 1, (int32_t)((uint32_t)y - (uint32_t)x), (int32_t)((uint32_t)x + 1u), 0));
        o[7] = pack(8, 0, y, x, pack(8, 0, x >> 4, y >> 4, 0));
    }
    write_file("a.bin", a, sizeof a);
    write_file("b.bin", b, sizeof b);
    write_file("c.bin", c, sizeof c);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
