/* CPU reference for clang prefix_sum_block: n = 2972 int32 values in [-100, 100], blocks of 256:
 * out[i] = sum of in[j] for j from the start of i's block through i (inclusive scan per block);
 * block_sums[b] = the sum over block b (elements past n count as 0). 12 blocks. Exact. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint32_t rng = 0xDEADBEEFu;
static uint32_t xorshift32(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void write_file(const char *path, const void *data, size_t bytes) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, bytes, f) != bytes) { perror(path); exit(1); }
    fclose(f);
}

#define BLOCK 256
#define BLOCKS 12
#define N (BLOCK * BLOCKS - 100)

int main(void) {
    static int32_t in[N], out[N], block_sums[BLOCKS];
    for (int i = 0; i < N; i++) in[i] = (int32_t)(xorshift32() % 201u) - 100;
    for (int b = 0; b < BLOCKS; b++) {
        int32_t s = 0;
        for (int t = 0; t < BLOCK; t++) {
            int i = b * BLOCK + t;
            if (i < N) {
                s += in[i];
                out[i] = s;
            }
        }
        block_sums[b] = s;
    }
    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    write_file("block_sums.expected.bin", block_sums, sizeof block_sums);
    return 0;
}
