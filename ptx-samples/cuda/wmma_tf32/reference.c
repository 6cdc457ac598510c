/* CPU reference for wmma_tf32: D = tf32(A)*tf32(B) + C on 32x32 matrices,
 * tf32(x) rounding f32 to 10 mantissa bits, to nearest with ties away from
 * zero (cvt.rna.tf32.f32). The products are exact in double; the sums are
 * taken in double and rounded once to f32, so the tolerance covers the
 * tensor cores' unspecified internal rounding (a few f32 ulps). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S 32

static void write_file(const char *name, const void *p, size_t bytes)
{
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

static float tf32(float x) /* finite inputs */
{
    uint32_t u;
    memcpy(&u, &x, 4);
    u = (u + 0x1000u) & 0xFFFFE000u;
    memcpy(&x, &u, 4);
    return x;
}

static uint32_t rng = 0x7f4a7c15u;
static float frand(void) /* uniform in [-1, 1), 23 significant bits */
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return (float)(rng >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

int main(void)
{
    static float A[S * S], At[S * S], B[S * S], Bt[S * S], C[S * S], out[2][S * S];
    for (int i = 0; i < S * S; i++) {
        A[i] = frand();
        B[i] = frand();
        C[i] = frand();
    }
    for (int r = 0; r < S; r++)
        for (int c = 0; c < S; c++) {
            At[c * S + r] = A[r * S + c];
            Bt[c * S + r] = B[r * S + c];
        }
    for (int g = 0; g < 2; g++)
        for (int r = 0; r < S; r++)
            for (int c = 0; c < S; c++) {
                double sum = 0.0;
                for (int k = 0; k < S; k++)
                    sum += (double)tf32(A[r * S + k]) * (double)tf32(B[k * S + c]);
                out[g][r * S + c] = (float)(sum + (g == 0 ? C[r * S + c] : 0.5));
            }
    write_file("A.bin", A, sizeof A);
    write_file("A_t.bin", At, sizeof At);
    write_file("B.bin", B, sizeof B);
    write_file("B_t.bin", Bt, sizeof Bt);
    write_file("C.bin", C, sizeof C);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
