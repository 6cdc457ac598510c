/* CPU reference for matmul_tiled: C = A * B, row-major float, M=96 N=80 K=64.
 * The tiled kernel still accumulates k = 0..K-1 in order and CUDA contracts
 * `acc += a * b` into a fused multiply-add, so the reference
 * accumulates with fmaf in the same k order; results are bit-identical. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define M 96
#define N 80
#define K 64

static uint32_t rng = 0x5eed1234u;
static uint32_t xorshift32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}
static float frand(void) /* uniform in [-1, 1) */
{
    return (float)(xorshift32() >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

static void write_file(const char *name, const void *p, size_t bytes)
{
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

int main(void)
{
    static float A[M * K], B[K * N], C[M * N];
    for (int i = 0; i < M * K; i++) A[i] = frand();
    for (int i = 0; i < K * N; i++) B[i] = frand();

    for (int r = 0; r < M; r++)
        for (int c = 0; c < N; c++) {
            float sum = 0.0f;
            for (int k = 0; k < K; k++)
                sum = fmaf(A[r * K + k], B[k * N + c], sum);
            C[r * N + c] = sum;
        }

    write_file("A.bin", A, sizeof A);
    write_file("B.bin", B, sizeof B);
    write_file("C.expected.bin", C, sizeof C);
    return 0;
}
