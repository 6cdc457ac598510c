/* CPU reference for softmax: 48 rows x 200 columns f32, out[r][c] = exp(x[r][c]-max_r) / sum_r.
 * Computed in double; the kernel uses ex2.approx-based exp and a different summation order. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 48
#define COLS 200

static uint32_t rng = 0x2545F491u;
static uint32_t xorshift32(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}
static float uniform(float lo, float hi) { return lo + (hi - lo) * (float)(xorshift32() >> 8) * (1.0f / 16777216.0f); }

static void write_file(const char *path, const void *data, size_t bytes) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, bytes, f) != bytes) { perror(path); exit(1); }
    fclose(f);
}

int main(void) {
    static float x[ROWS][COLS], out[ROWS][COLS];
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) x[r][c] = uniform(-8.0f, 8.0f);
    for (int r = 0; r < ROWS; r++) {
        double m = -INFINITY, s = 0.0;
        for (int c = 0; c < COLS; c++) m = fmax(m, x[r][c]);
        for (int c = 0; c < COLS; c++) s += exp((double)x[r][c] - m);
        for (int c = 0; c < COLS; c++) out[r][c] = (float)(exp((double)x[r][c] - m) / s);
    }
    write_file("input.bin", x, sizeof x);
    write_file("output.expected.bin", out, sizeof out);
    return 0;
}
