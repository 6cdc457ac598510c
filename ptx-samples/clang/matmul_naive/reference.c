/* CPU reference for clang matmul_naive: C = A * B with A 48x37, B 37x40 (row-major f32).
 * The kernel accumulates acc = fma(A[r][k], B[k][c], acc) for k = 0..K-1 in order (clang
 * contracts acc + a * b), and so does this reference with fmaf: the result is bit-exact. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint32_t rng = 0x3C6EF372u;
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

#define M 48
#define N 40
#define K 37

static float randf(void) { return (float)((double)(xorshift32() >> 8) / 16777216.0 * 2.0 - 1.0); }

int main(void) {
    static float A[M][K], B[K][N], C[M][N];
    for (int r = 0; r < M; r++)
        for (int k = 0; k < K; k++) A[r][k] = randf();
    for (int k = 0; k < K; k++)
        for (int c = 0; c < N; c++) B[k][c] = randf();
    for (int r = 0; r < M; r++)
        for (int c = 0; c < N; c++) {
            float acc = 0.0f;
            for (int k = 0; k < K; k++) acc = fmaf(A[r][k], B[k][c], acc);
            C[r][c] = acc;
        }
    write_file("A.bin", A, sizeof A);
    write_file("B.bin", B, sizeof B);
    write_file("C.expected.bin", C, sizeof C);
    return 0;
}
