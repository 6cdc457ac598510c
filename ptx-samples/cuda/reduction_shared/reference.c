/* CPU reference for reduction_shared: per-block sums of an int32 array and a
 * float array, reduced in the same tree order as the block reduction
 * (pairwise first add, then halving strides), so the float sums are
 * bit-identical to a correct GPU run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 256
#define GRID 32
#define N 16284u /* last block is partial */

static uint32_t rng = 0x1234abcdu;
static uint32_t xorshift32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void write_file(const char *name, const void *p, size_t bytes)
{
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

int main(void)
{
    static int32_t in_i[N];
    static float in_f[N];
    int32_t sums_i[GRID];
    float sums_f[GRID];

    for (uint32_t k = 0; k < N; k++) {
        in_i[k] = (int32_t)(xorshift32() % 2001u) - 1000; /* [-1000, 1000] */
        /* float in [-4, 4) with 24 random bits */
        in_f[k] = ((float)(xorshift32() >> 8) / 16777216.0f) * 8.0f - 4.0f;
    }

    for (uint32_t b = 0; b < GRID; b++) {
        int32_t si[BLOCK];
        float sf[BLOCK];
        for (uint32_t t = 0; t < BLOCK; t++) {
            uint32_t i = b * (BLOCK * 2) + t;
            int32_t vi = 0;
            float vf = 0.0f;
            if (i < N) { vi = in_i[i]; vf = in_f[i]; }
            if (i + BLOCK < N) { vi += in_i[i + BLOCK]; vf += in_f[i + BLOCK]; }
            si[t] = vi;
            sf[t] = vf;
        }
        for (uint32_t s = BLOCK / 2; s > 0; s >>= 1)
            for (uint32_t t = 0; t < s; t++) {
                si[t] += si[t + s];
                sf[t] += sf[t + s];
            }
        sums_i[b] = si[0];
        sums_f[b] = sf[0];
    }

    write_file("in_i.bin", in_i, sizeof in_i);
    write_file("in_f.bin", in_f, sizeof in_f);
    write_file("block_sums_i.expected.bin", sums_i, sizeof sums_i);
    write_file("block_sums_f.expected.bin", sums_f, sizeof sums_f);
    return 0;
}
