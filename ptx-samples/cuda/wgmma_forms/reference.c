/* CPU reference for wgmma_forms: per form, D (64 x 16) = sa * A * sb * B
 * (+ C unless scale-d is 0) as a plain matrix product, sa and sb the
 * forms' imm-scale-a/-b (+-1). Floating-point inputs are drawn from {0,
 * +-0.5, +-1, +-1.5, +-2, +-3} and C from multiples of 1/4 below 50 in
 * magnitude, so every result is exact in f32 and f16; 8-bit integers are
 * drawn over their full ranges, C near INT32_MAX in some rows for the
 * .satfinite form (clamped) and the plain u8 form (wrapped). */
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

static uint32_t rng = 0x6b43a9b5u;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

enum ty { F16, TF32, E4M3, E5M2, S8, U8 };

static uint8_t fp8(double v, int mbits, int bias)
{
    uint8_t sign = v < 0 ? 0x80 : 0;
    if (v < 0) v = -v;
    if (v == 0) return sign;
    int e = 0;
    while (v >= 2) { v /= 2; e++; }
    while (v < 1) { v *= 2; e--; }
    return sign | (uint8_t)((e + bias) << mbits) | (uint8_t)((v - 1) * (1 << mbits));
}

static int bytes_of(enum ty t) { return t == F16 ? 2 : t == TF32 ? 4 : 1; }

/* Stores value v of type t at p (little-endian). */
static void put(unsigned char *p, enum ty t, double v)
{
    if (t == F16) { _Float16 h = (_Float16)v; memcpy(p, &h, 2); }
    else if (t == TF32) { float f = (float)v; memcpy(p, &f, 4); }
    else if (t == E4M3) *p = fp8(v, 3, 7);
    else if (t == E5M2) *p = fp8(v, 2, 15);
    else *p = (uint8_t)(int)v;
}

struct form { enum ty a, b; int acc; /* 0 f32, 1 f16, 2 s32 */ int sa, sb, scale_d, sat; };
static const struct form forms[8] = {
    {F16, F16, 0, 1, 1, 1, 0},   {F16, F16, 1, 1, -1, 1, 0},  {TF32, TF32, 0, 1, 1, 1, 0},
    {TF32, TF32, 0, -1, 1, 0, 0}, {E4M3, E5M2, 0, 1, 1, 1, 0}, {E5M2, E4M3, 1, 1, 1, 1, 0},
    {S8, U8, 2, 1, 1, 1, 1},     {U8, U8, 2, 1, 1, 1, 0},
};

int main(void)
{
    static const double set[11] = {0, 0.5, -0.5, 1, -1, 1.5, -1.5, 2, -2, 3, -3};
    static unsigned char A[8 * 2048], B[8 * 512];
    static uint32_t C[8 * 1024], out[8 * 1024];
    static double VA[64][32], VB[32][16], VC[64][16];
    for (int f = 0; f < 8; f++) {
        const struct form *F = &forms[f];
        int k = 32 / bytes_of(F->a);
        for (int m = 0; m < 64; m++)
            for (int kk = 0; kk < k; kk++) {
                double v = F->a == S8 ? (double)(int8_t)next()
                         : F->a == U8 ? (double)(uint8_t)next() : set[next() % 11];
                VA[m][kk] = v;
                put(A + f * 2048 + m * 32 + kk * bytes_of(F->a), F->a, v);
            }
        for (int n = 0; n < 16; n++)
            for (int kk = 0; kk < k; kk++) {
                double v = F->b == U8 ? (double)(uint8_t)next() : set[next() % 11];
                VB[kk][n] = v;
                put(B + f * 512 + n * 32 + kk * bytes_of(F->b), F->b, v);
            }
        for (int m = 0; m < 64; m++)
            for (int n = 0; n < 16; n++) {
                uint32_t *cp = &C[f * 1024 + m * 16 + n];
                if (F->acc == 2) {
                    int32_t v = (int32_t)(next() % 20001) - 10000;
                    if (m % 16 < 4) v = INT32_MAX - (int32_t)(next() % 1000000);
                    VC[m][n] = v;
                    *cp = (uint32_t)v;
                } else {
                    double v = (double)((int)(next() % 401) - 200) / 4.0;
                    VC[m][n] = v;
                    if (F->acc == 1) { _Float16 h = (_Float16)v; uint16_t b; memcpy(&b, &h, 2); *cp = b; }
                    else { float x = (float)v; memcpy(cp, &x, 4); }
                }
            }
        for (int m = 0; m < 64; m++)
            for (int n = 0; n < 16; n++) {
                uint32_t *op = &out[f * 1024 + m * 16 + n];
                if (F->acc == 2) {
                    int64_t s = F->scale_d ? (int64_t)VC[m][n] : 0;
                    for (int kk = 0; kk < k; kk++) s += (int64_t)VA[m][kk] * (int64_t)VB[kk][n];
                    if (F->sat) s = s > INT32_MAX ? INT32_MAX : (s < INT32_MIN ? INT32_MIN : s);
                    *op = (uint32_t)(uint64_t)s;
                } else {
                    double s = F->scale_d ? VC[m][n] : 0;
                    for (int kk = 0; kk < k; kk++) s += F->sa * VA[m][kk] * F->sb * VB[kk][n];
                    if (F->acc == 1) { _Float16 h = (_Float16)s; uint16_t b; memcpy(&b, &h, 2); *op = b; }
                    else { float x = (float)s; memcpy(op, &x, 4); }
                }
            }
    }
    write_file("A.bin", A, sizeof A);
    write_file("B.bin", B, sizeof B);
    write_file("C.bin", C, sizeof C);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
