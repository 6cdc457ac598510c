// CPU reference for f64_arith: 300 elements, 15 double results each.
// All operations are correctly rounded IEEE double operations, done in the
// same order as the kernel, so results are bit-identical:
//  - fma(a,b,c) and a*c + b use C fma() (NVRTC contracts a*c + b into one fma);
//  - the Horner step p*t + coef[k] is also contracted: p = fma(p, t, coef[k]);
//  - gcc -std=c11 does not contract, and x86-64 uses SSE2 doubles.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 300
#define NOPS 15
#define DEGREE 8

static uint32_t rng = 0x51ED2701u;
static uint32_t xorshift32(void)
{
    uint32_t x = rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng = x;
}
/* uniform double in [lo, hi) with 53 random bits */
static double drand(double lo, double hi)
{
    uint64_t r = ((uint64_t)xorshift32() << 32 | xorshift32()) >> 11;
    return lo + (hi - lo) * ((double)r * 0x1p-53);
}

static void write_file(const char* name, const void* p, size_t n)
{
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void)
{
    static double a[N], b[N], c[N], coef[DEGREE + 1], out[N * NOPS];
    const double specials[] = {-0.0, 0.0, 1e-310, -3e-320, INFINITY, -INFINITY, NAN, 1e300, -1e-300, 0.5};
    const int nspec = (int)(sizeof specials / sizeof specials[0]);

    for (int k = 0; k <= DEGREE; k++) {
        double f = 1.0;
        for (int j = 2; j <= k; j++) f *= j;
        coef[k] = (1.0 / f) * drand(0.9, 1.1) * ((k & 1) ? -1.0 : 1.0);
    }
    for (int i = 0; i < N; i++) {
        /* a: finite, nonzero, |a| < 2^31 (for the (int) conversion);
           some exact halves to exercise rint's ties-to-even */
        if (i % 7 == 3)
            a[i] = (double)((int)(xorshift32() % 2001) - 1000) + 0.5;
        else
            a[i] = drand(-1000.0, 1000.0);
        if (a[i] == 0.0) a[i] = 1.0;
        b[i] = drand(-50.0, 50.0);
        c[i] = drand(-1e4, 1e4);
        if (i % 10 == 9) b[i] = specials[(i / 10) % nspec];
        if (i % 10 == 4) c[i] = specials[(i / 10 + 4) % nspec];
    }
    for (int i = 0; i < N; i++) {
        double* o = out + i * NOPS;
        double x = a[i], y = b[i], z = c[i];
        o[0] = x + y;
        o[1] = x - y;
        o[2] = x * y;
        o[3] = fma(x, y, z);
        o[4] = x / y;
        o[5] = sqrt(fabs(x));
        o[6] = 1.0 / y;
        double t = x * 0.125, p = coef[DEGREE];
        for (int k = DEGREE - 1; k >= 0; k--)
            p = fma(p, t, coef[k]);
        o[7] = p;
        o[8] = fma(x, z, y);
        o[9] = fmin(x, y);   /* a is never zero, so no +0/-0 ambiguity */
        o[10] = fmax(x, y);
        o[11] = (double)(float)x;
        o[12] = (double)(int)x;
        o[13] = floor(x);
        o[14] = rint(x);     /* default rounding mode: nearest even */
    }
    write_file("a.bin", a, sizeof a);
    write_file("b.bin", b, sizeof b);
    write_file("c.bin", c, sizeof c);
    write_file("coef.bin", coef, sizeof coef);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
