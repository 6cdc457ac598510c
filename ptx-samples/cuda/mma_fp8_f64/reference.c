/* CPU reference for mma_fp8_f64: D = A*B + C as plain matrix products.
 * fp8 values are drawn from {0, +-0.5, +-1, +-1.5, +-2, +-3} and encoded
 * as e4m3 (exponent bias 7, 3 mantissa bits) and as e5m2 (bias 15, 2
 * mantissa bits); C holds multiples of 1/4 below 64 in magnitude, so every
 * result is exact in f32 and in f16. Forms: m16n8k32 e4m3 x e4m3, e5m2 x
 * e4m3, e4m3 x e5m2, m16n8k16 e5m2 x e5m2 (first 16 columns of A, rows of
 * B) with f32 accumulators; m16n8k32 e4m3 x e4m3 with f16 accumulators;
 * f64 m16n8k4, k8, k16 (multiples of 1/8, exact). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void write_file(const char *name, const void *p, size_t bytes)
{
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

static uint32_t rng = 0x2545f491u;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* sign, exponent and mantissa fields of a value m * 2^e with 1 <= m < 2. */
static uint8_t encode(double v, int mbits, int bias)
{
    uint8_t sign = v < 0 ? 0x80 : 0;
    if (v < 0) v = -v;
    if (v == 0) return sign;
    int e = 0;
    while (v >= 2) { v /= 2; e++; }
    while (v < 1) { v *= 2; e--; }
    int man = (int)((v - 1) * (1 << mbits));
    return sign | (uint8_t)((e + bias) << mbits) | (uint8_t)man;
}

int main(void)
{
    static const double set[11] = {0, 0.5, -0.5, 1, -1, 1.5, -1.5, 2, -2, 3, -3};
    static double VA[16 * 32], VB[32 * 8];
    static uint8_t A4[16 * 32], A5[16 * 32], B4[32 * 8], B5[32 * 8];
    static float C[16 * 8], out[4 * 128];
    static _Float16 C16[16 * 8], out16[16 * 8];
    static double Ad[16 * 16], Bd[16 * 8], Cd[16 * 8], outd[3 * 128];
    for (int i = 0; i < 16 * 32; i++) {
        VA[i] = set[next() % 11];
        A4[i] = encode(VA[i], 3, 7);
        A5[i] = encode(VA[i], 2, 15);
    }
    for (int i = 0; i < 32 * 8; i++) {
        VB[i] = set[next() % 11];
        B4[i] = encode(VB[i], 3, 7);
        B5[i] = encode(VB[i], 2, 15);
    }
    for (int i = 0; i < 16 * 8; i++) {
        C[i] = (float)((int)(next() % 401) - 200) / 4.0f;
        C16[i] = (_Float16)C[i];
        Cd[i] = (double)((int)(next() % 201) - 100) / 8.0;
        Bd[i] = (double)((int)(next() % 61) - 30) / 8.0;
    }
    for (int i = 0; i < 16 * 16; i++) Ad[i] = (double)((int)(next() % 61) - 30) / 8.0;
    static const int ks[4] = {32, 32, 32, 16};
    for (int f = 0; f < 4; f++)
        for (int r = 0; r < 16; r++)
            for (int c = 0; c < 8; c++) {
                double s = C[r * 8 + c];
                for (int k = 0; k < ks[f]; k++) s += VA[r * 32 + k] * VB[k * 8 + c];
                out[f * 128 + r * 8 + c] = (float)s;
                if (f == 0) out16[r * 8 + c] = (_Float16)s;
            }
    static const int kd[3] = {4, 8, 16};
    for (int f = 0; f < 3; f++)
        for (int r = 0; r < 16; r++)
            for (int c = 0; c < 8; c++) {
                double s = Cd[r * 8 + c];
                for (int k = 0; k < kd[f]; k++) s += Ad[r * 16 + k] * Bd[k * 8 + c];
                outd[f * 128 + r * 8 + c] = s;
            }
    /* out16's f32 C equals C16 exactly (multiples of 1/4 below 64). */
    write_file("A4.bin", A4, sizeof A4);
    write_file("A5.bin", A5, sizeof A5);
    write_file("B4.bin", B4, sizeof B4);
    write_file("B5.bin", B5, sizeof B5);
    write_file("C.bin", C, sizeof C);
    write_file("C16.bin", C16, sizeof C16);
    write_file("Ad.bin", Ad, sizeof Ad);
    write_file("Bd.bin", Bd, sizeof Bd);
    write_file("Cd.bin", Cd, sizeof Cd);
    write_file("out.expected.bin", out, sizeof out);
    write_file("out16.expected.bin", out16, sizeof out16);
    write_file("outd.expected.bin", outd, sizeof outd);
    return 0;
}
