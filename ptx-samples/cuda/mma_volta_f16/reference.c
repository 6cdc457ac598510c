/* CPU reference for mma_volta_f16: for each of the 12 forms (every A/B
 * layout and D/C type pairing ptxas accepts), D[q] = A[q] * B[q] + C[q] for the four
 * quad-pairs' matrices q = 0..3 (A 8 x 4, B 4 x 8, C and D 8 x 8), as
 * plain matrix products. A and B hold multiples of 1/2 in [-3, 3], C
 * multiples of 1/4 below 16 in magnitude, so every result is exact in
 * f16 and f32 and the same for every form. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void write_file(const char *name, const void *p, size_t bytes)
{
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

static uint32_t rng = 0x9e3779b9u;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

int main(void)
{
    static double A[4 * 32], B[4 * 32], C[4 * 64];
    static _Float16 Ah[4 * 32], Bh[4 * 32], C16[4 * 64];
    static float Cf[4 * 64], out[12 * 256];
    for (int i = 0; i < 4 * 32; i++) {
        A[i] = ((int)(next() % 13) - 6) * 0.5;
        B[i] = ((int)(next() % 13) - 6) * 0.5;
        Ah[i] = (_Float16)A[i];
        Bh[i] = (_Float16)B[i];
    }
    for (int i = 0; i < 4 * 64; i++) {
        C[i] = ((int)(next() % 127) - 63) * 0.25;
        Cf[i] = (float)C[i];
        C16[i] = (_Float16)C[i];
    }
    for (int form = 0; form < 12; form++)
        for (int q = 0; q < 4; q++)
            for (int r = 0; r < 8; r++)
                for (int c = 0; c < 8; c++) {
                    double s = C[q * 64 + r * 8 + c];
                    for (int k = 0; k < 4; k++)
                        s += A[q * 32 + r * 4 + k] * B[q * 32 + k * 8 + c];
                    out[form * 256 + q * 64 + r * 8 + c] = (float)s;
                }
    write_file("A.bin", Ah, sizeof Ah);
    write_file("B.bin", Bh, sizeof Bh);
    write_file("C.bin", Cf, sizeof Cf);
    write_file("C16.bin", C16, sizeof C16);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
