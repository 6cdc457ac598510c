/* CPU reference for clang saxpy: y = a * x + y, n = 10000, a = -1.75. clang contracts the
 * multiply-add into one fma.rn.f32, so the reference uses fmaf and the result is exact. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint32_t rng = 0xA511E9B3u;
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

#define N 10000

static float randf(void) { return (float)((double)(xorshift32() >> 8) / 16777216.0 * 20.0 - 10.0); }

int main(void) {
    static float x[N], y[N], out[N];
    const float a = -1.75f;
    for (int i = 0; i < N; i++) x[i] = randf();
    for (int i = 0; i < N; i++) y[i] = randf();
    for (int i = 0; i < N; i++) out[i] = fmaf(a, x[i], y[i]);
    write_file("x.bin", x, sizeof x);
    write_file("y.bin", y, sizeof y);
    write_file("y.expected.bin", out, sizeof out);
    return 0;
}
