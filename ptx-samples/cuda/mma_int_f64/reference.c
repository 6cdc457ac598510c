/* CPU reference for mma_int_f64: for each form, D = A*B + C as a plain
 * matrix product over the form's m x k slice of A (16 x 256 bytes) and
 * k x 8 slice of B (256 x 8 bytes), each byte read as the form's element
 * type (s8, u8, low nibble as s4/u4, low bit as b1); b1 forms add the
 * number of k where a XOR b (a AND b) is 1. Sums are exact in 64 bits,
 * then wrapped to s32 or, with .satfinite, clamped. C holds values near
 * INT32_MAX and INT32_MIN in some rows, so both wrapping and clamping
 * happen. f64: multiples of 1/8 (exact). movmatrix: the transpose. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define KA 256

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

enum ty { S8, U8, S4, U4, B1 };

static int64_t val(uint8_t x, enum ty t)
{
    switch (t) {
    case S8: return (int8_t)x;
    case U8: return x;
    case S4: return (x & 8) ? (int64_t)(x & 15) - 16 : (x & 15);
    case U4: return x & 15;
    default: return x & 1;
    }
}

struct form { int m, k; enum ty a, b; int sat, bitop; /* bitop: 0 none, 1 xor, 2 and */ };

static const struct form forms[10] = {
    {16, 32, S8, U8, 1, 0},  {16, 16, S8, S8, 0, 0},  {8, 16, U8, S8, 0, 0},
    {16, 64, S4, U4, 1, 0},  {16, 32, U4, S4, 0, 0},  {8, 32, S4, S4, 1, 0},
    {16, 256, B1, B1, 0, 1}, {16, 128, B1, B1, 0, 2}, {8, 128, B1, B1, 0, 1},
    {16, 32, U8, U8, 0, 0},
};

int main(void)
{
    static uint8_t A[16 * KA], B[KA * 8];
    static int32_t C[16 * 8], out[12 * 128];
    static double Ad[8 * 4], Bd[4 * 8], Cd[8 * 8], outd[8 * 8];
    static uint16_t M[64], outm[64];
    for (int i = 0; i < 16 * KA; i++) A[i] = (uint8_t)next();
    for (int i = 0; i < KA * 8; i++) B[i] = (uint8_t)next();
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 8; c++) {
            int32_t v = (int32_t)(next() % 20001) - 10000;
            if (r < 3) v = INT32_MAX - (int32_t)(next() % 300000);
            else if (r >= 13) v = INT32_MIN + (int32_t)(next() % 300000);
            C[r * 8 + c] = v;
        }
    for (int i = 0; i < 32; i++) {
        Ad[i] = (double)((int)(next() % 61) - 30) / 8.0;
        Bd[i] = (double)((int)(next() % 61) - 30) / 8.0;
    }
    for (int i = 0; i < 64; i++) {
        Cd[i] = (double)((int)(next() % 201) - 100) / 8.0;
        M[i] = (uint16_t)next();
    }
    for (int f = 0; f < 10; f++) {
        const struct form *F = &forms[f];
        for (int r = 0; r < F->m; r++)
            for (int c = 0; c < 8; c++) {
                int64_t s = C[r * 8 + c];
                for (int k = 0; k < F->k; k++) {
                    int64_t x = val(A[r * KA + k], F->a), y = val(B[k * 8 + c], F->b);
                    if (F->bitop == 1) s += x ^ y;
                    else if (F->bitop == 2) s += x & y;
                    else s += x * y;
                }
                if (F->sat) s = s > INT32_MAX ? INT32_MAX : (s < INT32_MIN ? INT32_MIN : s);
                out[f * 128 + r * 8 + c] = (int32_t)(uint32_t)(uint64_t)s;
            }
    }
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++) {
            double s = Cd[r * 8 + c];
            for (int k = 0; k < 4; k++) s += Ad[r * 4 + k] * Bd[k * 8 + c];
            outd[r * 8 + c] = s;
            outm[r * 8 + c] = M[c * 8 + r];
        }
    write_file("A.bin", A, sizeof A);
    write_file("B.bin", B, sizeof B);
    write_file("C.bin", C, sizeof C);
    write_file("Ad.bin", Ad, sizeof Ad);
    write_file("Bd.bin", Bd, sizeof Bd);
    write_file("Cd.bin", Cd, sizeof Cd);
    write_file("M.bin", M, sizeof M);
    write_file("out.expected.bin", out, sizeof out);
    write_file("outd.expected.bin", outd, sizeof outd);
    write_file("outm.expected.bin", outm, sizeof outm);
    return 0;
}
