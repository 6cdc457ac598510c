/* CPU reference for bulk_copy: 8 tiles of 1024 ints; out[b*1024 + i] =
   in[b*1024 + i] * 3 + b (32-bit wrapping arithmetic). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCKS 8
#define TILE 1024

static uint32_t rng = 0x13579BDFu;
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
    static int32_t in[BLOCKS * TILE], out[BLOCKS * TILE];
    for (int i = 0; i < BLOCKS * TILE; i++) in[i] = (int32_t)xorshift32();
    for (int b = 0; b < BLOCKS; b++)
        for (int i = 0; i < TILE; i++)
            out[b * TILE + i] = (int32_t)((uint32_t)in[b * TILE + i] * 3u + (uint32_t)b);
    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
