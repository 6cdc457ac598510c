/* CPU reference for redux_f32, from the PTX ISA's description of
   redux.sync.op{.abs}{.NaN}.f32: .abs reduces the magnitudes, +0.0 is
   greater than -0.0, with .NaN a NaN from any member gives the canonical
   NaN 0x7fffffff, without it NaNs are ignored and all-NaN members give the
   canonical NaN; otherwise the least or greatest member's bits. Warps of
   several kinds: random values of every magnitude, NaNs here and there,
   only signed zeros and subnormals, all NaN in the even lanes, ties. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024
#define OUTS 10
#define CANON 0x7fffffffu

static uint32_t rng = 0x4ED0CF32u;
static uint32_t next(void) {
    uint32_t x = rng;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    return rng = x;
}

static int is_nan(uint32_t x) { return (x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffffu); }

/* -0 < +0: order by sign-magnitude. */
static int less(uint32_t a, uint32_t b) {
    int64_t ka = a >> 31 ? -(int64_t)(a & 0x7fffffffu) - 1 : (int64_t)a;
    int64_t kb = b >> 31 ? -(int64_t)(b & 0x7fffffffu) - 1 : (int64_t)b;
    return ka < kb;
}

static uint32_t redux(const uint32_t *v, uint32_t mask, int max, int abs, int nan) {
    int have = 0;
    uint32_t best = 0;
    for (int l = 0; l < 32; l++) {
        if (!(mask >> l & 1)) continue;
        uint32_t x = abs ? v[l] & 0x7fffffffu : v[l];
        if (is_nan(x)) {
            if (nan) return CANON;
            continue;
        }
        if (!have || (max ? less(best, x) : less(x, best))) best = x;
        have = 1;
    }
    return have ? best : CANON;
}

static uint32_t pick(int kind, int lane) {
    static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u,
                                       0x007fffffu, 0x807fffffu, 0x7f800000u, 0xff800000u,
                                       0x3f800000u, 0xbf800000u, 0x7f7fffffu, 0xff7fffffu};
    static const uint32_t nans[] = {0x7fc00000u, 0xffc00001u, 0x7f800001u, 0xffa00000u};
    uint32_t r = next();
    switch (kind) {
    case 0: return r;                                  /* any bits, NaNs included */
    case 1: return r % 8 == 0 ? nans[r % 4] : (r & 0x8fffffffu);
    case 2: return special[r % 6];                     /* zeros and subnormals */
    case 3: return lane % 2 == 0 ? nans[r % 4] : special[r % 12];
    case 4: return special[(r % 3) * 2 + (r >> 8) % 2 * 6 % 12]; /* ties */
    default: return r % 32 == 0 ? nans[r % 4] : special[r % 12];
    }
}

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static uint32_t in[N], out[N * OUTS];
    for (int i = 0; i < N; i++) {
        int kind = (i / 32) % 6;
        in[i] = pick(kind, i % 32);
        /* A quarter of the warps of kind 0 and 1 lose their NaNs, so that
           plain min/max see values only. */
        if (kind < 2 && (i / 192) % 4 == 3 && is_nan(in[i])) in[i] = 0x40490fdbu;
    }
    for (int i = 0; i < N; i++) {
        const uint32_t *w = in + (i / 32) * 32;
        uint32_t lane = i % 32, *o = out + OUTS * i;
        uint32_t half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
        uint32_t parity = lane % 2 ? 0xaaaaaaaau : 0x55555555u;
        o[0] = redux(w, ~0u, 0, 0, 0);
        o[1] = redux(w, ~0u, 1, 0, 0);
        o[2] = redux(w, ~0u, 0, 1, 0);
        o[3] = redux(w, ~0u, 1, 1, 0);
        o[4] = redux(w, ~0u, 0, 0, 1);
        o[5] = redux(w, ~0u, 1, 0, 1);
        o[6] = redux(w, ~0u, 0, 1, 1);
        o[7] = redux(w, ~0u, 1, 1, 1);
        o[8] = redux(w, half, 0, 0, 0);
        o[9] = redux(w, parity, 1, 1, 1);
    }
    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
