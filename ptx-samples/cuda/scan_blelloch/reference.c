/* CPU reference for scan_blelloch: each chunk of 256 int32 values is scanned
 * independently with a sequential exclusive prefix sum; the chunk total goes to
 * block_sums. Elements past n count as 0 (they only affect block totals, which
 * they do not change). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHUNK 256
#define GRID 32
#define N 8000 /* 31.25 chunks: the last block is partial */

static uint32_t rng = 0x9e3779b9u;
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
    static int32_t in[N], out[N];
    int32_t sums[GRID];

    for (int i = 0; i < N; i++)
        in[i] = (int32_t)(xorshift32() % 20001u) - 10000;

    for (int b = 0; b < GRID; b++) {
        int32_t acc = 0;
        for (int k = 0; k < CHUNK; k++) {
            int i = b * CHUNK + k;
            if (i >= N) break;
            out[i] = acc;
            acc += in[i];
        }
        sums[b] = acc;
    }

    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    write_file("block_sums.expected.bin", sums, sizeof sums);
    return 0;
}
