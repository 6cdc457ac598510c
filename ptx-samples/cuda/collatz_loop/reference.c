// CPU reference for collatz_loop: 512 start values in [1, 100000].
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 512

static uint32_t rng = 0x31415926u;
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
    static uint32_t start[N], steps[N];
    static uint64_t peak[N];
    for (int i = 0; i < N; i++)
        start[i] = 1 + xorshift32() % 100000;
    /* well-known cases: 1 (no steps), 27 (111 steps, peak 9232), 77031 (350 steps) */
    start[0] = 1;
    start[1] = 27;
    start[2] = 77031;
    start[3] = 2;
    start[100] = 65536;

    for (int i = 0; i < N; i++) {
        uint64_t x = start[i], hi = x;
        uint32_t c = 0;
        while (x != 1) {
            if (x % 2 == 0) x /= 2;
            else x = 3 * x + 1;
            if (x > hi) hi = x;
            c++;
        }
        steps[i] = c;
        peak[i] = hi;
    }
    if (steps[1] != 111 || peak[1] != 9232 || steps[2] != 350) {
        fprintf(stderr, "self-check failed\n");
        return 1;
    }
    write_file("start.bin", start, sizeof start);
    write_file("steps.expected.bin", steps, sizeof steps);
    write_file("peak.expected.bin", peak, sizeof peak);
    return 0;
}
