/* CPU reference for numba reduce_shared: x has 5083 int32 values in [-1000, 1000]; block b of 128
 * threads sums x[128*b .. 128*b+127] (missing tail elements count as 0); 40 blocks. Integer sums
 * are exact whatever the order. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TPB 128
#define BLOCKS 40
#define N (TPB * BLOCKS - 37)

static uint32_t rng = 0x9E3779B9u;
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

int main(void) {
    static int32_t x[N], partial[BLOCKS];
    for (int i = 0; i < N; i++) x[i] = (int32_t)(xorshift32() % 2001u) - 1000;
    for (int b = 0; b < BLOCKS; b++) {
        int32_t s = 0;
        for (int t = 0; t < TPB; t++) {
            int i = b * TPB + t;
            if (i < N) s += x[i];
        }
        partial[b] = s;
    }
    write_file("x.bin", x, sizeof x);
    write_file("partial.expected.bin", partial, sizeof partial);
    return 0;
}
