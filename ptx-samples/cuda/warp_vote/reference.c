// CPU reference for warp_vote: evaluates the votes per warp over the lanes
// named in each mask (the live lanes, then odd/even/nested subsets).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 244          /* last warp has 20 live lanes */
#define NTHREADS 256
#define NOUT 14

static uint32_t rng = 0x9E3779B9u;
static uint32_t xorshift32(void) {
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5;
    return rng;
}

static void write_file(const char* name, const void* p, size_t bytes) {
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

typedef int (*pred_fn)(int32_t);
static int p_pos(int32_t x) { return x > 0; }
static int p_big(int32_t x) { return x > -900; }
static int p_huge(int32_t x) { return x > 990; }
static int p_even(int32_t x) { return (x & 1) == 0; }
static int p_lt_m500(int32_t x) { return x < -500; }
static int p_neg(int32_t x) { return x < 0; }
static int p_lt1000(int32_t x) { return x < 1000; }
static int p_mod7(int32_t x) { return (x % 7) == 3; }
static int p_gt250(int32_t x) { return x > 250; }

static uint32_t ballot(const int32_t* x, uint32_t mask, pred_fn p) {
    uint32_t b = 0;
    for (int l = 0; l < 32; l++)
        if (((mask >> l) & 1u) && p(x[l])) b |= 1u << l;
    return b;
}
static uint32_t vote_all(const int32_t* x, uint32_t mask, pred_fn p) { return ballot(x, mask, p) == mask; }
static uint32_t vote_any(const int32_t* x, uint32_t mask, pred_fn p) { return ballot(x, mask, p) != 0; }

int main(void) {
    static int32_t v[NTHREADS];   // only the first N are written to the input file
    for (int i = 0; i < NTHREADS; i++) {
        int w = i / 32;
        int32_t x = (int32_t)(xorshift32() % 2001u) - 1000;
        if (w == 2) x = 1 + (int32_t)(xorshift32() % 1000u);            // all positive
        if (w == 3) x = 2 * ((int32_t)(xorshift32() % 801u) - 400);      // all even, > -900
        if (w == 5 && x <= -900) x = -x;                                 // all > -900
        v[i] = x;
    }
    write_file("v.bin", v, N * sizeof(int32_t));

    static uint32_t out[NOUT * N];
    static int32_t compact[NTHREADS];
    for (int base = 0; base < NTHREADS; base += 32) {
        const int32_t* x = v + base;
        uint32_t live = 0;
        for (int l = 0; l < 32; l++) if (base + l < N) live |= 1u << l;
        uint32_t odd = live & 0xAAAAAAAAu, even = live & 0x55555555u, q = live & 0x88888888u;
        uint32_t pos = ballot(x, live, p_pos);
        for (int lane = 0; lane < 32; lane++) {
            int tid = base + lane;
            if (tid >= N) continue;
            uint32_t r[NOUT];
            r[0] = pos;
            r[1] = vote_all(x, live, p_big);
            r[2] = vote_any(x, live, p_huge);
            r[3] = (uint32_t)__builtin_popcount(pos);
            if (lane & 1) {
                r[4] = odd;
                r[5] = ballot(x, odd, p_pos);
                r[6] = vote_all(x, odd, p_even);
                r[7] = vote_any(x, odd, p_lt_m500);
            } else {
                r[4] = even;
                r[5] = ballot(x, even, p_neg);
                r[6] = vote_all(x, even, p_lt1000);
                r[7] = vote_any(x, even, p_mod7);
            }
            r[8] = (uint32_t)__builtin_popcount(r[5]);
            uint32_t lt = (lane == 0) ? 0u : (0xFFFFFFFFu >> (32 - lane));
            r[9] = (uint32_t)__builtin_popcount(pos & lt);
            r[10] = pos ? (uint32_t)__builtin_ctz(pos) + 1u : 0u;
            r[11] = pos ? (uint32_t)__builtin_clz(pos) : 32u;
            if ((lane & 3) == 3) {
                r[12] = ballot(x, q, p_gt250);
                r[13] = q;
            } else {
                r[12] = 0;
                r[13] = 0;
            }
            for (int k = 0; k < NOUT; k++) out[k * N + tid] = r[k];
            if (x[lane] > 0) compact[base + r[9]] = x[lane];
        }
    }
    write_file("out.expected.bin", out, sizeof out);
    write_file("compact.expected.bin", compact, sizeof compact);
    return 0;
}
