// CPU reference for divergent_branches: 500 values in [-1000, 1000],
// launched as 8 blocks of 64 threads (lane = threadIdx.x % 32 = i % 32 here
// since 64 is a multiple of 32).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 500
#define BLOCK 64

static uint32_t rng = 0xFEEDBEEFu;
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
    static int32_t data[N], out[N], path[N]; /* out/path zero where the thread exits early */
    for (int i = 0; i < N; i++)
        data[i] = (int32_t)(xorshift32() % 2001) - 1000;

    for (int i = 0; i < N; i++) {
        int v = data[i];
        int lane = (i % BLOCK) % 32;
        if (v < -900)
            continue;
        int result, p = 0;
        if (lane % 2 == 1) {
            p |= 1;
            if (v > 0) {
                p |= 2;
                result = 3 * v + lane;
            } else {
                p |= 4;
                if (v % 3 == 0) { p |= 8; result = -v / 3; }
                else result = v - lane;
            }
        } else {
            p |= 16;
            int acc = 0, iters = (int)((uint32_t)v & 7);   /* v & 7 on two's complement */
            for (int k = 0; k < iters; k++) {
                acc += k * v;
                if (acc > 1000) { p |= 32; break; }
            }
            result = acc;
            if (lane < 16) { p |= 64; result ^= 0x55; }
        }
        switch ((uint32_t)v % 4) {
        case 0: result += 1; break;
        case 1: result *= 2; break;
        case 2: result -= 7; break;
        default: p |= 128; break;
        }
        out[i] = result;
        path[i] = p;
    }
    write_file("data.bin", data, sizeof data);
    write_file("out.expected.bin", out, sizeof out);
    write_file("path.expected.bin", path, sizeof path);
    return 0;
}
