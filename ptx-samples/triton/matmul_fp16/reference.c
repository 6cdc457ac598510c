/* CPU reference for matmul_fp16: C (64x64, fp16) = A (64x128, fp16) x B (128x64, fp16), row-major,
 * accumulated in f32 and rounded to fp16 (round to nearest even) at the end.
 * Inputs are multiples of 1/64 in [-1, 1] (exact in fp16), so every product and partial sum is
 * exact in f32 whatever the summation order: the f32 result is exact and the fp16 rounding is
 * the only rounding. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define M 64
#define N 64
#define K 128

static uint32_t rng = 0xC0FFEE11u;
static uint32_t xorshift32(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* IEEE binary32 -> binary16, round to nearest even. */
static uint16_t f32_to_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    if (a >= 0x7f800000u) return (uint16_t)(sign | (a > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520 rounds to infinity */
    if (a < 0x38800000u) {                                     /* below 2^-14: subnormal half */
        float af;
        memcpy(&af, &a, 4);
        return (uint16_t)(sign | (uint32_t)nearbyintf(af * 16777216.0f));
    }
    uint32_t h = ((((a >> 23) - 127 + 15) << 10) | ((a & 0x7fffffu) >> 13));
    uint32_t rem = a & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;
    return (uint16_t)(sign | h);
}

static void write_file(const char *path, const void *data, size_t bytes) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, bytes, f) != bytes) { perror(path); exit(1); }
    fclose(f);
}

int main(void) {
    static float a[M][K], b[K][N];
    static uint16_t ah[M][K], bh[K][N], ch[M][N];
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++) {
            a[i][k] = (float)((int)(xorshift32() % 129u) - 64) / 64.0f;
            ah[i][k] = f32_to_f16(a[i][k]);
        }
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++) {
            b[k][j] = (float)((int)(xorshift32() % 129u) - 64) / 64.0f;
            bh[k][j] = f32_to_f16(b[k][j]);
        }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0.0f;
            for (int k = 0; k < K; k++) acc += a[i][k] * b[k][j];
            ch[i][j] = f32_to_f16(acc);
        }
    write_file("a.bin", ah, sizeof ah);
    write_file("b.bin", bh, sizeof bh);
    write_file("c.expected.bin", ch, sizeof ch);
    return 0;
}
