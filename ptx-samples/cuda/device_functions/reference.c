// CPU reference for device_functions: 128 pairs (a, b) with 0 <= a, b <= 10^6.
// iout per element: gcd(a, b), fib(a & 15), min(a, b, g), max(a, b, g),
// ((7 * 31 + g) * 31 + fib); fout: (float)(a + b + g) / 3.0f and
// x*x*0.5f + x for x = (b % 1000) * 0.25f (every step exact for these x).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 128

static uint32_t rng = 0x1234ABCDu;
static uint32_t xorshift32(void)
{
    uint32_t x = rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng = x;
}

static void write_file(const char* name, const void* p, size_t n)
{
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

static int32_t gcd_iter(int32_t a, int32_t b)
{
    while (b != 0) { int32_t t = a % b; a = b; b = t; }
    return a;
}

static int32_t fib_iter(int n)
{
    int32_t f0 = 0, f1 = 1;
    for (int k = 0; k < n; k++) { int32_t t = f0 + f1; f0 = f1; f1 = t; }
    return f0;
}

int main(void)
{
    static int32_t a[N], b[N], iout[5 * N];
    static float fout[2 * N];
    for (int i = 0; i < N; i++) {
        a[i] = (int32_t)(xorshift32() % 1000001);
        b[i] = (int32_t)(xorshift32() % 1000001);
        if (i % 4 == 1) {                       /* pairs with a large common factor */
            int32_t g = 1 + (int32_t)(xorshift32() % 997);
            a[i] = g * (1 + (int32_t)(xorshift32() % 1000));
            b[i] = g * (1 + (int32_t)(xorshift32() % 1000));
        }
    }
    a[0] = 832040; b[0] = 514229;   /* consecutive Fibonacci numbers: deepest recursion */
    a[1] = 0; b[1] = 0;
    a[2] = 12345; b[2] = 0;
    a[3] = 0; b[3] = 999999;
    a[5] = 77777; b[5] = 77777;
    a[6] = 15; b[6] = 999;           /* fib(15) */

    for (int i = 0; i < N; i++) {
        int32_t x = a[i], y = b[i];
        int32_t g = gcd_iter(x, y);
        int32_t f = fib_iter(x & 15);
        int32_t lo = x, hi = x;
        if (y < lo) lo = y;
        if (g < lo) lo = g;
        if (y > hi) hi = y;
        if (g > hi) hi = g;
        int32_t acc = (7 * 31 + g) * 31 + f;
        iout[5 * i + 0] = g;
        iout[5 * i + 1] = f;
        iout[5 * i + 2] = lo;
        iout[5 * i + 3] = hi;
        iout[5 * i + 4] = acc;
        fout[2 * i + 0] = (float)(x + y + g) / 3.0f;
        float t = (float)(y % 1000) * 0.25f;
        fout[2 * i + 1] = t * t * 0.5f + t;
    }
    write_file("a.bin", a, sizeof a);
    write_file("b.bin", b, sizeof b);
    write_file("iout.expected.bin", iout, sizeof iout);
    write_file("fout.expected.bin", fout, sizeof fout);
    return 0;
}
