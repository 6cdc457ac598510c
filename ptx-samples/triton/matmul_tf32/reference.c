/* CPU reference for matmul_tf32: C (48x40, f32) = A (48x72, f32) x B (72x40, f32), row-major.
 * The kernel multiplies on TF32 tensor cores (10-bit mantissa inputs). The inputs are multiples
 * of 1/64 in [-1, 1], exact in TF32, so the TF32 conversion loses nothing and every product and
 * partial sum is exact in f32: the result is exact whatever the summation order. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define M 48
#define N 40
#define K 72

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
    static float a[M][K], b[K][N], c[M][N];
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++) a[i][k] = (float)((int)(xorshift32() % 129u) - 64) / 64.0f;
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++) b[k][j] = (float)((int)(xorshift32() % 129u) - 64) / 64.0f;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0.0f;
            for (int k = 0; k < K; k++) acc += a[i][k] * b[k][j];
            c[i][j] = acc;
        }
    write_file("a.bin", a, sizeof a);
    write_file("b.bin", b, sizeof b);
    write_file("c.expected.bin", c, sizeof c);
    return 0;
}
