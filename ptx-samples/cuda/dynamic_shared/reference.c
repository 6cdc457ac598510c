/* CPU reference for dynamic_shared: per chunk of B=128 elements,
 *   out_rev[b*B + t] = in_f[b*B + (B-1-t)] + (float)in_i[b*B + t]   (one float add)
 *   block_sums[b]    = sum of in_i over the chunk (small ints, exact). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define B 128
#define GRID 8
#define N (B * GRID)

static uint32_t rng = 0x3c6ef372u;
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
    static float in_f[N], out_rev[N];
    static int32_t in_i[N];
    int32_t sums[GRID];

    for (int k = 0; k < N; k++) {
        in_f[k] = (float)(xorshift32() >> 8) / 16777216.0f * 100.0f - 50.0f;
        in_i[k] = (int32_t)(xorshift32() % 100001u) - 50000;
    }

    for (int b = 0; b < GRID; b++) {
        int32_t s = 0;
        for (int t = 0; t < B; t++) {
            out_rev[b * B + t] = in_f[b * B + (B - 1 - t)] + (float)in_i[b * B + t];
            s += in_i[b * B + t];
        }
        sums[b] = s;
    }

    write_file("in_f.bin", in_f, sizeof in_f);
    write_file("in_i.bin", in_i, sizeof in_i);
    write_file("out_rev.expected.bin", out_rev, sizeof out_rev);
    write_file("block_sums.expected.bin", sums, sizeof sums);
    return 0;
}
