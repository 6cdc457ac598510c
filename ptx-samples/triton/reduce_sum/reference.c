/* CPU reference for reduce_sum: x is 100x333 f32; row_sums[r] = sum_c x[r][c]; total = sum of all.
 * Inputs are multiples of 1/64 in [-2, 2]: every partial sum (|s| < 2^17, granularity 2^-6) is
 * exact in f32, so the results are exact whatever the summation and atomic order. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 100
#define COLS 333

static uint32_t rng = 0x51ED270Bu;
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
    static float x[ROWS][COLS], sums[ROWS];
    float total = 0.0f;
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) x[r][c] = (float)((int)(xorshift32() % 257u) - 128) / 64.0f;
    for (int r = 0; r < ROWS; r++) {
        float s = 0.0f;
        for (int c = 0; c < COLS; c++) s += x[r][c];
        sums[r] = s;
        total += s;
    }
    write_file("x.bin", x, sizeof x);
    write_file("row_sums.expected.bin", sums, sizeof sums);
    write_file("total.expected.bin", &total, sizeof total);
    return 0;
}
