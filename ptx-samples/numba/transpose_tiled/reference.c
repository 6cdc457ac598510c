/* CPU reference for numba transpose_tiled: src is 70x45 f32 (row-major), dst = src^T is 45x70.
 * A pure copy, so the result is bit-exact. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 70
#define COLS 45

static uint32_t rng = 0x7F4A7C15u;
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
    static float src[ROWS][COLS], dst[COLS][ROWS];
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++)
            src[r][c] = (float)r * 1000.0f + (float)c + (float)(xorshift32() % 1024u) / 1024.0f;
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) dst[c][r] = src[r][c];
    write_file("src.bin", src, sizeof src);
    write_file("dst.expected.bin", dst, sizeof dst);
    return 0;
}
