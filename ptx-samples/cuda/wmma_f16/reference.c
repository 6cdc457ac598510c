/* CPU reference for wmma_f16: per configuration, D = alpha*(A*B + C) + C on
 * 32x32 matrices of small integers (every sum is exact in f16 and f32), C
 * from memory or 1 where the kernel fills it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define S 32

static void write_file(const char *name, const void *p, size_t bytes)
{
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

int main(void)
{
    static float A[S * S], B[S * S], C[S * S], out[5][S * S];
    static _Float16 Ah[S * S], At[S * S], Bh[S * S], Bt[S * S], Ch[S * S];
    for (int r = 0; r < S; r++)
        for (int c = 0; c < S; c++) {
            A[r * S + c] = (float)((r * 3 + c * 5) % 7 - 3);
            B[r * S + c] = (float)((r * 2 + c * 7 + 1) % 7 - 3);
            C[r * S + c] = (float)((r + 3 * c) % 9 - 4);
        }
    for (int r = 0; r < S; r++)
        for (int c = 0; c < S; c++) {
            Ah[r * S + c] = (_Float16)A[r * S + c];
            At[c * S + r] = (_Float16)A[r * S + c];
            Bh[r * S + c] = (_Float16)B[r * S + c];
            Bt[c * S + r] = (_Float16)B[r * S + c];
            Ch[c * S + r] = (_Float16)C[r * S + c];
        }
    /* alpha, C loaded (else 1), D stored column-major */
    const float alpha[5] = {0.5f, 2.0f, 1.0f, 0.25f, 1.0f};
    const int load_c[5] = {1, 1, 0, 1, 1};
    const int d_col[5] = {0, 0, 1, 0, 0};
    for (int g = 0; g < 5; g++)
        for (int r = 0; r < S; r++)
            for (int c = 0; c < S; c++) {
                float cv = load_c[g] ? C[r * S + c] : 1.0f;
                float sum = cv;
                for (int k = 0; k < S; k++)
                    sum += A[r * S + k] * B[k * S + c];
                float d = alpha[g] * sum + cv;
                if (d_col[g])
                    out[g][c * S + r] = d;
                else
                    out[g][r * S + c] = d;
            }
    write_file("A.bin", Ah, sizeof Ah);
    write_file("A_t.bin", At, sizeof At);
    write_file("B.bin", Bh, sizeof Bh);
    write_file("B_t.bin", Bt, sizeof Bt);
    write_file("C.bin", C, sizeof C);
    write_file("Ch.bin", Ch, sizeof Ch);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
