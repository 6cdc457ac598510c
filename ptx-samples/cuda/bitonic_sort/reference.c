/* CPU reference for bitonic_sort: each 1024-key chunk sorted ascending
 * (unsigned 32-bit comparison) with qsort. Chunks: random full-range keys,
 * keys with many duplicates, a descending run, and a nearly-constant chunk
 * with extreme values. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHUNK 1024
#define BLOCKS 4

static uint32_t rng = 0x6a09e667u;
static uint32_t xorshift32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void write_file(const char *name, const void *p, size_t bytes)
{
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

int main(void)
{
    static uint32_t keys[BLOCKS * CHUNK], sorted[BLOCKS * CHUNK];

    for (int i = 0; i < CHUNK; i++) keys[i] = xorshift32();                       /* full range */
    for (int i = 0; i < CHUNK; i++) keys[CHUNK + i] = xorshift32() % 1000u;       /* duplicates */
    for (int i = 0; i < CHUNK; i++) keys[2 * CHUNK + i] = 0x80000000u + 7u * (uint32_t)(CHUNK - i); /* descending */
    for (int i = 0; i < CHUNK; i++) keys[3 * CHUNK + i] = 42u;                    /* nearly constant */
    keys[3 * CHUNK + 5] = 0xffffffffu;
    keys[3 * CHUNK + 700] = 0u;
    keys[3 * CHUNK + 1023] = 0x80000000u;
    keys[3 * CHUNK + 0] = 0x7fffffffu;

    for (int i = 0; i < BLOCKS * CHUNK; i++) sorted[i] = keys[i];
    for (int b = 0; b < BLOCKS; b++) qsort(sorted + b * CHUNK, CHUNK, sizeof(uint32_t), cmp_u32);

    write_file("keys.bin", keys, sizeof keys);
    write_file("sorted.expected.bin", sorted, sizeof sorted);
    return 0;
}
