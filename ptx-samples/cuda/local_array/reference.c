// CPU reference for local_array: 256 threads, each sorting 16 ints ascending
// and reporting the truncated mean of the two middle values.
// Rows include random values, many duplicates, already sorted, reverse sorted.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 256
#define K 16

static uint32_t rng = 0x600DF00Du;
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

static int cmp_int(const void* a, const void* b)
{
    int32_t x = *(const int32_t*)a, y = *(const int32_t*)b;
    return (x > y) - (x < y);
}

int main(void)
{
    static int32_t in[N * K], out[N * K], median[N];
    for (int i = 0; i < N; i++) {
        int32_t* row = in + i * K;
        for (int k = 0; k < K; k++) {
            switch (i % 4) {
            case 0: row[k] = (int32_t)(xorshift32() % 2000001) - 1000000; break;
            case 1: row[k] = (int32_t)(xorshift32() % 5) - 2; break;        /* duplicates */
            case 2: row[k] = k * 3 - 20 + i; break;                          /* sorted */
            default: row[k] = (K - k) * 7 - (int32_t)(xorshift32() % 3); break; /* ~reversed */
            }
        }
    }
    for (int i = 0; i < N; i++) {
        int32_t v[K];
        for (int k = 0; k < K; k++) v[k] = in[i * K + k];
        qsort(v, K, sizeof v[0], cmp_int);   /* a different sort: same result */
        for (int k = 0; k < K; k++) out[i * K + k] = v[k];
        median[i] = (v[K / 2 - 1] + v[K / 2]) / 2;  /* C division truncates like CUDA */
    }
    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    write_file("median.expected.bin", median, sizeof median);
    return 0;
}
