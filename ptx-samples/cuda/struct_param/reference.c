// CPU reference for struct_param: 600 floats transformed with
// {scale = 1.5f, offset = -7, bias = 0.25, flags = (short)0x8007}
// (negate, halve, clamp to [-100, 100], and +1000 because flags < 0).
// params.bin holds the struct as the kernel sees it: 24 bytes, zero padding.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 600

struct TransformParams {
    float scale;
    int32_t offset;
    double bias;
    int16_t flags;
};
_Static_assert(sizeof(struct TransformParams) == 24, "layout");

static uint32_t rng = 0xA5A5F00Du;
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
    struct TransformParams p;
    memset(&p, 0, sizeof p);
    p.scale = 1.5f;
    p.offset = -7;
    p.bias = 0.25;
    p.flags = (int16_t)0x8007;

    static float in[N];
    static double out[N];
    for (int i = 0; i < N; i++)
        in[i] = frand(-200.0f, 200.0f);
    for (int i = 0; i < N; i++) {
        float prod = in[i] * p.scale;           /* single-precision multiply */
        double v = (double)prod + p.bias;
        v += (double)(p.offset + i);
        if (p.flags & 1) v = -v;
        if (p.flags & 2) v *= 0.5;
        if (p.flags & 4) v = fmin(fmax(v, -100.0), 100.0);
        if (p.flags < 0) v += 1000.0;
        out[i] = v;
    }
    write_file("params.bin", &p, sizeof p);
    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
