// CPU reference for warp_reduce_block. Integer sums are exact. The float
// per-block sums are computed in the same association order as the kernel
// (per-thread grid-stride sums, then shuffle-down trees), so they should match
// to the last bit; tolerances still allow a little slack. The grand float
// total is accumulated by atomics in an unspecified block order.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 12000
#define BLOCK 256
#define GRID 16
#define NWARPS (BLOCK / 32)

static uint32_t rng = 0xFEEDBEEFu;
static uint32_t xorshift32(void) {
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5;
    return rng;
}

static void write_file(const char* name, const void* p, size_t bytes) {
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

// Lane 0 of: for offset 16..1: v[l] += (l + offset < 32) ? v[l + offset] : v[l]
static float warp_sum_f(const float* in) {
    float v[32], t[32];
    for (int l = 0; l < 32; l++) v[l] = in[l];
    for (int off = 16; off > 0; off >>= 1) {
        for (int l = 0; l < 32; l++) t[l] = (l + off < 32) ? v[l + off] : v[l];
        for (int l = 0; l < 32; l++) v[l] = v[l] + t[l];
    }
    return v[0];
}

int main(void) {
    static int32_t in_i[N];
    static float in_f[N];
    for (int i = 0; i < N; i++) {
        in_i[i] = (int32_t)(xorshift32() % 20001u) - 10000;
        in_f[i] = (float)((double)xorshift32() / 4294967296.0 * 2.0 - 1.0);
    }
    write_file("in_i.bin", in_i, sizeof in_i);
    write_file("in_f.bin", in_f, sizeof in_f);

    int32_t block_i[GRID];
    float block_f[GRID];
    int32_t total_i = 0;
    double total_f = 0.0;
    for (int b = 0; b < GRID; b++) {
        float thread_f[BLOCK];
        int64_t bi = 0;
        for (int t = 0; t < BLOCK; t++) {
            float acc = 0.0f;
            for (int i = b * BLOCK + t; i < N; i += BLOCK * GRID) {
                acc = acc + in_f[i];
                bi += in_i[i];
            }
            thread_f[t] = acc;
        }
        float partial[32] = {0};
        for (int w = 0; w < NWARPS; w++) partial[w] = warp_sum_f(thread_f + 32 * w);
        block_f[b] = warp_sum_f(partial);
        block_i[b] = (int32_t)bi;
        total_i += (int32_t)bi;
        total_f += block_f[b];
    }
    float total_f32 = (float)total_f;
    write_file("block_i.expected.bin", block_i, sizeof block_i);
    write_file("block_f.expected.bin", block_f, sizeof block_f);
    write_file("total_i.expected.bin", &total_i, sizeof total_i);
    write_file("total_f.expected.bin", &total_f32, sizeof total_f32);
    return 0;
}
