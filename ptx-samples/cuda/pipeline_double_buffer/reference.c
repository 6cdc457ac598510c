/* CPU reference for pipeline_double_buffer: BLOCKS blocks of 128 threads; thread
   i of block b adds, for each chunk c of its block's 8 chunks of 128 floats,
   chunk[c][(5 * i) % 128] * (weights[b * 128 + i] + c). Inputs are small
   integers, so every sum is exact. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCKS 5
#define THREADS 128
#define CHUNK 128
#define CHUNKS 8

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static float in[BLOCKS * CHUNKS * CHUNK], out[BLOCKS * THREADS];
    static int32_t weights[BLOCKS * THREADS];
    for (int i = 0; i < BLOCKS * CHUNKS * CHUNK; i++) in[i] = (float)((i * 11) % 17 - 8);
    for (int i = 0; i < BLOCKS * THREADS; i++) weights[i] = (i * 3) % 7 - 2;
    for (int b = 0; b < BLOCKS; b++)
        for (int i = 0; i < THREADS; i++) {
            float acc = 0.f;
            for (int c = 0; c < CHUNKS; c++)
                acc += in[(b * CHUNKS + c) * CHUNK + (i * 5) % CHUNK] * (float)(weights[b * THREADS + i] + c);
            out[b * THREADS + i] = acc;
        }
    write_file("in.bin", in, sizeof in);
    write_file("weights.bin", weights, sizeof weights);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
