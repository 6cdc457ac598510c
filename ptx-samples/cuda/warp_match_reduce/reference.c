// CPU reference for warp_match_reduce: per warp, compares keys (bit patterns)
// across the 32 lanes and reduces over the full warp or over each key group.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 256
#define NOUT 18
#define NKEYS 8

static uint32_t rng = 0x0DDBA11u;
static uint32_t xorshift32(void) {
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5;
    return rng;
}

static void write_file(const char* name, const void* p, size_t bytes) {
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

static uint32_t fbits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

int main(void) {
    static int32_t keys[N], svals[N];
    static uint32_t uvals[N];
    static float fkeys[N];
    const uint32_t fkey_bits[5] = {0x00000000u /* +0 */, 0x80000000u /* -0 */, 0x3FC00000u /* 1.5 */,
                                   0xC0100000u /* -2.25 */, 0x7FC00000u /* NaN */};
    for (int i = 0; i < N; i++) {
        int w = i / 32;
        int32_t k = (int32_t)(xorshift32() % 8u);
        if (w == 0) k = (int32_t)(xorshift32() % 6u);
        if (w == 2) k = 3;                       // whole warp agrees
        if (w == 5) k = (int32_t)(xorshift32() % 2u);
        keys[i] = k;
        svals[i] = (int32_t)(xorshift32() % 2001u) - 1000;
        uint32_t u = xorshift32();
        if (w == 4) u = 0xF0F0F0F0u | (u & 0x0F0F0F0Fu & xorshift32() & xorshift32());
        if (w == 6) u &= 0xFFFFu;
        uvals[i] = u;
        uint32_t fb = fkey_bits[xorshift32() % 5u];
        memcpy(&fkeys[i], &fb, 4);
    }
    write_file("keys.bin", keys, sizeof keys);
    write_file("svals.bin", svals, sizeof svals);
    write_file("uvals.bin", uvals, sizeof uvals);
    write_file("fkeys.bin", fkeys, sizeof fkeys);

    static uint32_t out[NOUT * N];
    int32_t key_totals[NKEYS] = {0};
    for (int base = 0; base < N; base += 32) {
        const int32_t* k = keys + base;
        const int32_t* s = svals + base;
        const uint32_t* u = uvals + base;
        const float* f = fkeys + base;

        int all_same = 1;
        for (int l = 1; l < 32; l++) if (k[l] != k[0]) all_same = 0;
        uint32_t uadd = 0, umin = 0xFFFFFFFFu, umax = 0, uand = 0xFFFFFFFFu, uor = 0, uxor = 0;
        int32_t smin = s[0], smax = s[0];
        uint32_t sadd = 0;   // wrapping signed add, done in unsigned arithmetic
        for (int l = 0; l < 32; l++) {
            uadd += u[l];
            if (u[l] < umin) umin = u[l];
            if (u[l] > umax) umax = u[l];
            uand &= u[l]; uor |= u[l]; uxor ^= u[l];
            if (s[l] < smin) smin = s[l];
            if (s[l] > smax) smax = s[l];
            sadd += (uint32_t)s[l];
        }
        for (int lane = 0; lane < 32; lane++) {
            int t = base + lane;
            uint32_t group = 0, g64 = 0, gf = 0;
            int32_t gsum = 0, gmax = -2147483647 - 1;
            for (int l = 0; l < 32; l++) {
                if (k[l] == k[lane]) { group |= 1u << l; gsum += s[l]; if (s[l] > gmax) gmax = s[l]; }
                if (k[l] == k[lane] && (u[l] & 1u) == (u[lane] & 1u)) g64 |= 1u << l;
                if (fbits(f[l]) == fbits(f[lane])) gf |= 1u << l;
            }
            int leader = __builtin_ctz(group);
            uint32_t lt = lane == 0 ? 0u : (0xFFFFFFFFu >> (32 - lane));
            uint32_t r[NOUT];
            r[0] = group;
            r[1] = all_same ? 0xFFFFFFFFu : 0u;
            r[2] = (uint32_t)all_same;
            r[3] = g64;
            r[4] = gf;
            r[5] = uadd;
            r[6] = (uint32_t)smin;
            r[7] = (uint32_t)smax;
            r[8] = umin;
            r[9] = umax;
            r[10] = uand;
            r[11] = uor;
            r[12] = uxor;
            r[13] = sadd;
            r[14] = (uint32_t)gsum;
            r[15] = (uint32_t)gmax;
            r[16] = (uint32_t)(lane == leader);
            r[17] = (uint32_t)__builtin_popcount(group & lt);
            for (int q = 0; q < NOUT; q++) out[q * N + t] = r[q];
            if (lane == leader) key_totals[k[lane]] += gsum;
        }
    }
    write_file("out.expected.bin", out, sizeof out);
    write_file("key_totals.expected.bin", key_totals, sizeof key_totals);
    return 0;
}
