/* CPU reference for wmma_bf16: D = scale*(A*B + C) per configuration, 32x32
 * matrices of small integers (exact in bf16 and every sum exact in f32). */
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

static uint16_t bf16(float x) /* exact for these small integers */
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return (uint16_t)(u >> 16);
}

int main(void)
{
    static float A[S * S], B[S * S], C[S * S], out[3][S * S];
    static uint16_t Ab[S * S], Bb[S * S], Bt[S * S];
    for (int r = 0; r < S; r++)
        for (int c = 0; c < S; c++) {
            A[r * S + c] = (float)((r * 5 + c * 3) % 11 - 5);
            B[r * S + c] = (float)((r * 7 + c * 2 + 3) % 9 - 4);
            C[r * S + c] = (float)((r * 3 + c) % 13 - 6);
        }
    for (int r = 0; r < S; r++)
        for (int c = 0; c < S; c++) {
            Ab[r * S + c] = bf16(A[r * S + c]);
            Bb[r * S + c] = bf16(B[r * S + c]);
            Bt[c * S + r] = bf16(B[r * S + c]);
        }
    const float scale[3] = {1.0f, 1.0f, 0.5f};
    const int load_c[3] = {1, 0, 1};
    for (int g = 0; g < 3; g++)
        for (int r = 0; r < S; r++)
            for (int c = 0; c < S; c++) {
                float sum = load_c[g] ? C[r * S + c] : 1.0f;
                for (int k = 0; k < S; k++)
                    sum += A[r * S + k] * B[k * S + c];
                out[g][r * S + c] = sum * scale[g];
            }
    write_file("A.bin", Ab, sizeof Ab);
    write_file("B.bin", Bb, sizeof Bb);
    write_file("B_t.bin", Bt, sizeof Bt);
    write_file("C.bin", C, sizeof C);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
