/* CPU reference for vector_add: out[i] = x[i] + y[i] for 4112 f32 elements. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4112

static uint32_t rng = 0x12345678u;
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
    static float x[N], y[N], out[N];
    for (int i = 0; i < N; i++) x[i] = uniform(-100.0f, 100.0f);
    for (int i = 0; i < N; i++) y[i] = uniform(-100.0f, 100.0f);
    for (int i = 0; i < N; i++) out[i] = x[i] + y[i];
    write_file("x.bin", x, sizeof x);
    write_file("y.bin", y, sizeof y);
    write_file("output.expected.bin", out, sizeof out);
    return 0;
}
