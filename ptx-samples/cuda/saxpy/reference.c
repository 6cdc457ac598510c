// CPU reference for saxpy: y = a*x + y over n = 5000 elements, a = 2.5.
// NVRTC contracts a*x[i] + y[i] into a single fused multiply-add (it does so
// by default, --fmad=true), so the reference uses fmaf to get the same rounding.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 5000
#define A 2.5f

static uint32_t rng = 0xC0FFEE11u;
static uint32_t xorshift32(void)
{
    uint32_t x = rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng = x;
}

static float frand(float lo, float hi)
{
    return lo + (hi - lo) * (float)(xorshift32() >> 8) * (1.0f / 16777216.0f);
}

static void write_file(const char* name, const void* p, size_t n)
{
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void)
{
    static float x[N], y[N], out[N];
    for (int i = 0; i < N; i++) {
        x[i] = frand(-10.0f, 10.0f);
        y[i] = frand(-10.0f, 10.0f);
    }
    for (int i = 0; i < N; i++)
        out[i] = fmaf(A, x[i], y[i]);
    write_file("x.bin", x, sizeof x);
    write_file("y.bin", y, sizeof y);
    write_file("y.expected.bin", out, sizeof out);
    return 0;
}
