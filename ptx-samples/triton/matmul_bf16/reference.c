/* CPU reference for matmul_bf16: C (128x64, f32) = A (128x96, bf16) x B (96x64, bf16), row-major.
 * Inputs are multiples of 1/32 in [-1, 1] (exact in bf16), so every product and every partial
 * sum is exact in f32 whatever the summation order: the result is exact. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M 128
#define N 64
#define K 96

static uint32_t rng = 0xB16B00B5u;
static uint32_t xorshift32(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* IEEE binary32 -> bfloat16, round to nearest even (finite inputs). */
static uint16_t f32_to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

static void write_file(const char *path, const void *data, size_t bytes) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, bytes, f) != bytes) { perror(path); exit(1); }
    fclose(f);
}

int main(void) {
    static float a[M][K], b[K][N], c[M][N];
    static uint16_t ah[M][K], bh[K][N];
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++) {
            a[i][k] = (float)((int)(xorshift32() % 65u) - 32) / 32.0f;
            ah[i][k] = f32_to_bf16(a[i][k]);
        }
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++) {
            b[k][j] = (float)((int)(xorshift32() % 65u) - 32) / 32.0f;
            bh[k][j] = f32_to_bf16(b[k][j]);
        }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0.0f;
            for (int k = 0; k < K; k++) acc += a[i][k] * b[k][j];
            c[i][j] = acc;
        }
    write_file("a.bin", ah, sizeof ah);
    write_file("b.bin", bh, sizeof bh);
    write_file("c.expected.bin", c, sizeof c);
    return 0;
}
