/* CPU reference for numba vector_add: c[i] = a[i] + b[i] for 5000 f32 elements (one f32 add, exact). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 5000

static uint32_t rng = 0x1234ABCDu;
static uint32_t xorshift32(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* Uniform in [-100, 100), with a full 24-bit mantissa of randomness. */
static float randf(void) { return (float)((double)(xorshift32() >> 8) / 16777216.0 * 200.0 - 100.0); }

static void write_file(const char *path, const void *data, size_t bytes) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, bytes, f) != bytes) { perror(path); exit(1); }
    fclose(f);
}

int main(void) {
    static float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) a[i] = randf();
    for (int i = 0; i < N; i++) b[i] = randf();
    for (int i = 0; i < N; i++) c[i] = a[i] + b[i];
    write_file("a.bin", a, sizeof a);
    write_file("b.bin", b, sizeof b);
    write_file("c.expected.bin", c, sizeof c);
    return 0;
}
