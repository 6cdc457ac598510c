/* CPU reference for wmma_f64_int: D = A*B + C on 32x32 matrices. f64:
 * multiples of 1/8 of magnitude below 4 (every product and sum exact);
 * integers: s8 over the full range, u8 over the full range, exact in s32;
 * the integer results scaled by 3; the last one stored column-major. */
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

static uint32_t rng = 0x1234abcdu;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

int main(void)
{
    static double Ad[S * S], Bd[S * S], Bdt[S * S], Cd[S * S], outd[S * S];
    static int8_t As[S * S], Ast[S * S], Bs[S * S], Bst[S * S];
    static uint8_t Au[S * S], Bu[S * S];
    static int32_t C[S * S], out[3][S * S];
    for (int i = 0; i < S * S; i++) {
        Ad[i] = (double)((int)(next() % 61) - 30) / 8.0;
        Bd[i] = (double)((int)(next() % 61) - 30) / 8.0;
        Cd[i] = (double)((int)(next() % 201) - 100) / 8.0;
        As[i] = (int8_t)next();
        Bs[i] = (int8_t)next();
        Au[i] = (uint8_t)next();
        Bu[i] = (uint8_t)next();
        C[i] = (int32_t)(next() % 200001) - 100000;
    }
    for (int r = 0; r < S; r++)
        for (int c = 0; c < S; c++) {
            Bdt[c * S + r] = Bd[r * S + c];
            Ast[c * S + r] = As[r * S + c];
            Bst[c * S + r] = Bs[r * S + c];
        }
    for (int r = 0; r < S; r++)
        for (int c = 0; c < S; c++) {
            double sd = Cd[r * S + c];
            int32_t s1 = 7, s2 = C[r * S + c], s3 = C[r * S + c];
            for (int k = 0; k < S; k++) {
                sd += Ad[r * S + k] * Bd[k * S + c];
                s1 += As[r * S + k] * Bs[k * S + c];
                s2 += Au[r * S + k] * Bu[k * S + c];
                s3 += As[r * S + k] * Bs[k * S + c];
            }
            outd[r * S + c] = sd;
            out[0][r * S + c] = 3 * s1;
            out[1][r * S + c] = 3 * s2;
            out[2][c * S + r] = 3 * s3;
        }
    write_file("Ad.bin", Ad, sizeof Ad);
    write_file("Bd_t.bin", Bdt, sizeof Bdt);
    write_file("Cd.bin", Cd, sizeof Cd);
    write_file("As.bin", As, sizeof As);
    write_file("As_t.bin", Ast, sizeof Ast);
    write_file("Bs.bin", Bs, sizeof Bs);
    write_file("Bs_t.bin", Bst, sizeof Bst);
    write_file("Au.bin", Au, sizeof Au);
    write_file("Bu.bin", Bu, sizeof Bu);
    write_file("C.bin", C, sizeof C);
    write_file("outd.expected.bin", outd, sizeof outd);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
