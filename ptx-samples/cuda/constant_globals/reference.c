// CPU reference for constant_globals: 700 lookups.
// c_coeffs is the kernel's initialized __constant__ table; lut.bin fills c_lut
// (64 ints in [-1000, 1000]); the globals start at d_positive = 1000,
// d_max = -1, d_sum = 0 (their initializers). Atomic results are
// order-independent (count, max, integer sum).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 700

static uint32_t rng = 0x7F4A7C15u;
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

int main(void)
{
    static const float coeffs[8] = {0.5f, 1.0f, 1.5f, 2.0f, -0.25f, 3.0f, -1.0f, 0.125f};
    static int32_t lut[64];
    static uint32_t in[N];
    static float out[N];
    for (int k = 0; k < 64; k++)
        lut[k] = (int32_t)(xorshift32() % 2001) - 1000;
    for (int i = 0; i < N; i++)
        in[i] = xorshift32();

    uint32_t positive = 1000;
    int32_t maxv = -1;
    uint64_t sum = 0;
    for (int i = 0; i < N; i++) {
        uint32_t v = in[i];
        int32_t entry = lut[(v >> 3) & 63];
        out[i] = coeffs[v & 7] * (float)entry;
        if (entry > 0) positive++;
        if (entry > maxv) maxv = entry;
        sum += v & 0xffff;
    }
    write_file("lut.bin", lut, sizeof lut);
    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    write_file("positive.expected.bin", &positive, sizeof positive);
    write_file("max.expected.bin", &maxv, sizeof maxv);
    write_file("sum.expected.bin", &sum, sizeof sum);
    return 0;
}
