// CPU reference for warp_divergent_shfl: evaluates each branch's shuffles over
// the lanes of its member mask (CUDA Programming Guide warp shuffle semantics).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 128
#define NOUT 12

static uint32_t rng = 0x51ED270Bu;
static uint32_t xorshift32(void) {
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5;
    return rng;
}

static void write_file(const char* name, const void* p, size_t bytes) {
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static int32_t v[N];
    for (int i = 0; i < N; i++) {
        int w = i / 32;
        int32_t x = (int32_t)(xorshift32() % 2001u) - 1000;
        if (w == 1 && x > 0) x = -x;            // no positive lane
        if (w == 1 && x == 0) x = -1;
        if (w == 2 && x <= 0) x = 1 - x;        // all lanes positive
        v[i] = x;
    }
    write_file("v.bin", v, sizeof v);

    static int32_t out[NOUT * N];
    for (int base = 0; base < N; base += 32) {
        const int32_t* x = v + base;
        uint32_t pos = 0;
        int32_t pos_total = 0, pos_max = -2147483647 - 1, odd_sum = 0;
        for (int l = 0; l < 32; l++) {
            if (x[l] > 0) { pos |= 1u << l; pos_total += x[l]; if (x[l] > pos_max) pos_max = x[l]; }
            if (l & 1) odd_sum += x[l];
        }
        // masks of the re-ballot loop: M[it] = lanes whose count (lane&3)+1 exceeds it
        uint32_t M[5];
        for (int it = 0; it < 5; it++) {
            M[it] = 0;
            for (int l = 0; l < 32; l++) if (it < (l & 3) + 1) M[it] |= 1u << l;
        }
        for (int lane = 0; lane < 32; lane++) {
            int32_t r[NOUT];
            if (lane < 16) {
                r[0] = (int32_t)0x0000FFFFu;
                r[1] = (lane % 16) + 1 < 16 ? x[lane + 1] : x[lane];
                r[2] = x[15 - lane];
            } else {
                uint32_t b = 0;
                for (int l = 16; l < 32; l++) if (x[l] > 0) b |= 1u << l;
                r[0] = (int32_t)b;
                r[1] = (lane % 16) >= 2 ? x[lane - 2] : x[lane];
                r[2] = x[lane ^ 8];
            }
            if (lane & 1) { r[3] = x[1]; r[4] = odd_sum; }
            else { r[3] = 0; r[4] = 0; }
            if (x[lane] > 0) {
                r[5] = x[__builtin_ctz(pos)];
                r[6] = pos_total;
                r[7] = pos_max;
                uint32_t lt = lane == 0 ? 0u : (0xFFFFFFFFu >> (32 - lane));
                r[8] = __builtin_popcount(pos & lt);
            } else {
                r[5] = r[6] = r[7] = 0;
                r[8] = -1;
            }
            int count = (lane & 3) + 1;
            int32_t acc = 0;
            uint32_t seen = 0;
            for (int it = 0; it < count; it++) {
                seen ^= M[it];
                acc += x[lane ^ 4] + it;
            }
            r[9] = acc;
            r[10] = (int32_t)seen;
            r[11] = (int32_t)M[count];
            for (int k = 0; k < NOUT; k++) out[k * N + base + lane] = r[k];
        }
    }
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
