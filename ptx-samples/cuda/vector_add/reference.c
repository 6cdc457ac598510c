// CPU reference for vector_add: c[i] = a[i] + b[i], n = 1000.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000

static uint32_t rng = 0x12345678u;
static uint32_t xorshift32(void)
{
    uint32_t x = rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng = x;
}

/* uniform float in [lo, hi) */
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
    static float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = frand(-100.0f, 100.0f);
        b[i] = frand(-1.0f, 1.0f);
    }
    for (int i = 0; i < N; i++)
        c[i] = a[i] + b[i];
    write_file("a.bin", a, sizeof a);
    write_file("b.bin", b, sizeof b);
    write_file("c.expected.bin", c, sizeof c);
    return 0;
}
