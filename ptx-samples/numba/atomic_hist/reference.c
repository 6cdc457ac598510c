/* CPU reference for numba atomic_hist: 20000 int32 values in [-50000, 50000) counted into 97 bins,
 * bin = value mod 97 with Python's modulo (result in [0, 97) also for negative values).
 * Counts are order-independent, so the atomics give exact results. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 20000
#define NBINS 97

static uint32_t rng = 0xC0FFEE11u;
static uint32_t xorshift32(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void write_file(const char *path, const void *data, size_t bytes) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, bytes, f) != bytes) { perror(path); exit(1); }
    fclose(f);
}

/* Python's floor modulo: the result has the sign of the divisor (here positive). */
static int32_t py_mod(int32_t v, int32_t n) {
    int32_t r = v % n; /* C truncates toward zero */
    return r < 0 ? r + n : r;
}

int main(void) {
    static int32_t values[N], bins[NBINS];
    for (int i = 0; i < N; i++) values[i] = (int32_t)(xorshift32() % 100000u) - 50000;
    /* A few edge values: multiples of 97 of both signs, and -1. */
    values[0] = -97;
    values[1] = 97;
    values[2] = -1;
    values[3] = 0;
    values[N - 1] = -49955; /* = -515 * 97 */
    for (int i = 0; i < N; i++) bins[py_mod(values[i], NBINS)]++;
    write_file("values.bin", values, sizeof values);
    write_file("bins.expected.bin", bins, sizeof bins);
    return 0;
}
