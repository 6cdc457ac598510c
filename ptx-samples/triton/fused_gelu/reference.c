/* CPU reference for fused_gelu: y = x + bias[col] (f32 add, exact as on the GPU), then in double:
 *   gelu_erf  = 0.5*y*(1 + erf(y/sqrt(2)))
 *   gelu_tanh = 0.5*y*(1 + tanh(sqrt(2/pi)*(y + 0.044715*y^3)))
 *   silu      = y / (1 + exp(-y))
 * x is 40x100 f32 in [-6, 6], bias in [-1, 1]. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 40
#define COLS 100

static uint32_t rng = 0x6E1AF00Du;
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
    static float x[ROWS][COLS], bias[COLS], ge[ROWS][COLS], gt[ROWS][COLS], si[ROWS][COLS];
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) x[r][c] = uniform(-6.0f, 6.0f);
    for (int c = 0; c < COLS; c++) bias[c] = uniform(-1.0f, 1.0f);
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) {
            double y = (double)(x[r][c] + bias[c]);
            ge[r][c] = (float)(0.5 * y * (1.0 + erf(y * 0.7071067811865476)));
            gt[r][c] = (float)(0.5 * y * (1.0 + tanh(0.7978845608028654 * (y + 0.044715 * y * y * y))));
            si[r][c] = (float)(y / (1.0 + exp(-y)));
        }
    write_file("x.bin", x, sizeof x);
    write_file("bias.bin", bias, sizeof bias);
    write_file("gelu_erf.expected.bin", ge, sizeof ge);
    write_file("gelu_tanh.expected.bin", gt, sizeof gt);
    write_file("silu.expected.bin", si, sizeof si);
    return 0;
}
