/* CPU reference for cg_large_tiles: BLOCKS blocks of 256 threads, in[] small
   integers. For thread t of a block (tiles of 64 and 128 consecutive threads):
   o[0] = (t / 64) * 1000 + t % 64; o[1] = sum of in over t's 64-tile;
   o[2] = max of in over t's 128-tile; o[3] = in of thread 41 of
   the same 64-tile; o[4] = 3 * in of thread 63 - t % 64 of the same 64-tile;
   o[5] = (t / 128) * 1000 + t % 128. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCKS 4
#define THREADS 256

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static int32_t in[BLOCKS * THREADS], out[BLOCKS * THREADS * 6];
    for (int i = 0; i < BLOCKS * THREADS; i++) in[i] = (int32_t)((i * 2654435761u) >> 20) % 2001 - 1000;
    for (int b = 0; b < BLOCKS; b++)
        for (int t = 0; t < THREADS; t++) {
            const int32_t *blk = in + b * THREADS;
            int32_t *o = out + (b * THREADS + t) * 6;
            int base64 = t / 64 * 64, base128 = t / 128 * 128;
            int32_t sum = 0, max = blk[base128];
            for (int k = 0; k < 64; k++) sum += blk[base64 + k];
            for (int k = 0; k < 128; k++) if (blk[base128 + k] > max) max = blk[base128 + k];
            o[0] = (t / 64) * 1000 + t % 64;
            o[1] = sum;
            o[2] = max;
            o[3] = blk[base64 + 41];
            o[4] = 3 * blk[base64 + 63 - t % 64];
            o[5] = (t / 128) * 1000 + t % 128;
        }
    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
