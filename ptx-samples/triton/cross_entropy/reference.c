/* CPU reference for cross_entropy: logits 64x500 f32, labels int64 (every 7th row -100 = ignored).
 * lse[r] = log(sum_c exp(x[r][c])) (computed in double after subtracting the max),
 * loss[r] = lse[r] - x[r][label[r]], or 0 for ignored rows. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 64
#define VOCAB 500

static uint32_t rng = 0xCE11CE11u;
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
    static float x[ROWS][VOCAB], loss[ROWS], lse[ROWS];
    static int64_t labels[ROWS];
    for (int r = 0; r < ROWS; r++) {
        float shift = uniform(-20.0f, 20.0f);
        for (int c = 0; c < VOCAB; c++) x[r][c] = shift + uniform(-6.0f, 6.0f);
        labels[r] = (r % 7 == 3) ? -100 : (int64_t)(xorshift32() % VOCAB);
    }
    for (int r = 0; r < ROWS; r++) {
        double m = -INFINITY, s = 0.0;
        for (int c = 0; c < VOCAB; c++) m = fmax(m, x[r][c]);
        for (int c = 0; c < VOCAB; c++) s += exp((double)x[r][c] - m);
        double l = log(s) + m;
        lse[r] = (float)l;
        loss[r] = labels[r] == -100 ? 0.0f : (float)(l - x[r][labels[r]]);
    }
    write_file("logits.bin", x, sizeof x);
    write_file("labels.bin", labels, sizeof labels);
    write_file("loss.expected.bin", loss, sizeof loss);
    write_file("lse.expected.bin", lse, sizeof lse);
    return 0;
}
