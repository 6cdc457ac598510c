/* CPU reference for layer_norm: 32 rows x 300 columns f32, eps = 1e-5 (biased variance).
 * mean = sum(x)/N, var = sum((x-mean)^2)/N, rstd = 1/sqrt(var+eps), y = (x-mean)*rstd*w + b.
 * Computed in double. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define M 32
#define N 300

static uint32_t rng = 0x9E3779B9u;
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
    static float x[M][N], y[M][N], w[N], b[N], mean_out[M], rstd_out[M];
    for (int r = 0; r < M; r++) {
        float shift = uniform(-1.0f, 1.0f), scale = uniform(0.25f, 3.0f);
        for (int c = 0; c < N; c++) x[r][c] = shift + scale * uniform(-1.0f, 1.0f);
    }
    for (int c = 0; c < N; c++) w[c] = uniform(0.5f, 1.5f);
    for (int c = 0; c < N; c++) b[c] = uniform(-0.5f, 0.5f);
    for (int r = 0; r < M; r++) {
        double mean = 0.0, var = 0.0;
        for (int c = 0; c < N; c++) mean += x[r][c];
        mean /= N;
        for (int c = 0; c < N; c++) var += (x[r][c] - mean) * (x[r][c] - mean);
        var /= N;
        double rstd = 1.0 / sqrt(var + 1e-5);
        mean_out[r] = (float)mean;
        rstd_out[r] = (float)rstd;
        for (int c = 0; c < N; c++) y[r][c] = (float)((x[r][c] - mean) * rstd * w[c] + b[c]);
    }
    write_file("x.bin", x, sizeof x);
    write_file("w.bin", w, sizeof w);
    write_file("b.bin", b, sizeof b);
    write_file("y.expected.bin", y, sizeof y);
    write_file("mean.expected.bin", mean_out, sizeof mean_out);
    write_file("rstd.expected.bin", rstd_out, sizeof rstd_out);
    return 0;
}
