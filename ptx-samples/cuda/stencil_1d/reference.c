/* CPU reference for stencil_1d: out[i] = sum_{j=-3..3} w[j+3] * in[i+j],
 * with in[k] = 0 outside [0, n). Small integers: no overflow, exact. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4051 /* 16 blocks of 256, last one partial */
#define R 3

static uint32_t rng = 0x13579bdfu;
static uint32_t xorshift32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void write_file(const char *name, const void *p, size_t bytes)
{
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

int main(void)
{
    static int32_t in[N], out[N];
    int32_t w[2 * R + 1] = {-1, 3, -7, 12, 5, -2, 1}; /* asymmetric: catches mirrored offsets */

    for (int i = 0; i < N; i++)
        in[i] = (int32_t)(xorshift32() % 2001u) - 1000;

    for (int i = 0; i < N; i++) {
        int32_t acc = 0;
        for (int j = -R; j <= R; j++) {
            int k = i + j;
            int32_t v = (k >= 0 && k < N) ? in[k] : 0;
            acc += w[j + R] * v;
        }
        out[i] = acc;
    }

    write_file("weights.bin", w, sizeof w);
    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
