/* CPU reference for bulk_reduce (PTX ISA cp.reduce.async.bulk: each
   destination element becomes op(old, source element); .inc gives
   old >= src ? 0 : old + 1; f16/bf16 sums and min/max in their formats).
   Four CTAs reduce into the same accumulators; every value is a small
   integer (or a multiple of 1/4), so the sums are exact in any order.
   In clusters of two, CTA b's 64 words 100 (b + 1) + i are added to its
   neighbour's words i. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 256
#define M 64
#define BLOCKS 4

struct Accumulators {
    uint32_t u32[N];
    float f32[N];
    double f64[N];
    int64_t s64[N];
    uint32_t inc[N];
    uint64_t b64[N];
    uint16_t f16[N];
    uint16_t bf16[N];
};

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

/* Integers of magnitude below 2048 are exact in f16 and bf16's 8-bit
   significand holds those below 256: conversions of exact values. */
static uint16_t f16_of(float v) {
    if (v == 0.0f) return signbit(v) ? 0x8000 : 0;
    uint32_t b; memcpy(&b, &v, 4);
    uint32_t sign = (b >> 16) & 0x8000, exp = ((b >> 23) & 0xff) - 127 + 15, man = (b >> 13) & 0x3ff;
    return (uint16_t)(sign | (exp << 10) | man);
}
static float f16_val(uint16_t h) {
    if ((h & 0x7fff) == 0) return (h & 0x8000) ? -0.0f : 0.0f;
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = ((h >> 10) & 0x1f) - 15 + 127, man = (uint32_t)(h & 0x3ff) << 13;
    uint32_t b = sign | (exp << 23) | man; float v; memcpy(&v, &b, 4); return v;
}
static uint16_t bf16_of(float v) { uint32_t b; memcpy(&b, &v, 4); return (uint16_t)(b >> 16); }
static float bf16_val(uint16_t h) { uint32_t b = (uint32_t)h << 16; float v; memcpy(&v, &b, 4); return v; }

int main(void) {
    static struct Accumulators acc;
    for (int i = 0; i < N; i++) {
        acc.u32[i] = 7u * i;
        acc.f32[i] = (float)(i % 5);
        acc.f64[i] = -(double)i;
        acc.s64[i] = (int64_t)(i % 7) * 1000000000LL;
        acc.inc[i] = (uint32_t)(i % 11);
        acc.b64[i] = 0x0123456789abcdefULL + (uint64_t)i;
        acc.f16[i] = f16_of((float)(i % 4));
        acc.bf16[i] = bf16_of((float)(i % 13) - 6.0f);
    }
    write_file("acc.bin", &acc, sizeof acc);
    for (int b = 0; b < BLOCKS; b++)
        for (int i = 0; i < N; i++) {
            acc.u32[i] += 1000u * b + i;
            acc.f32[i] += (float)(i % 17 - 8) * 0.5f * (float)(b + 1);
            acc.f64[i] += (double)(i * (b + 3)) * 0.25;
            int64_t s = (int64_t)(i * 37 % 101 - 50) * (b + 1) * 1000000000LL;
            if (s < acc.s64[i]) acc.s64[i] = s;
            uint32_t lim = 5 + (i % 3);
            acc.inc[i] = acc.inc[i] >= lim ? 0 : acc.inc[i] + 1;
            acc.b64[i] ^= 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 7 * b);
            acc.f16[i] = f16_of(f16_val(acc.f16[i]) + (float)((i + b) % 9) - 3.0f);
            float m = (float)((i * 5 + b * 11) % 23) - 11.0f;
            if (m > bf16_val(acc.bf16[i])) acc.bf16[i] = bf16_of(m);
        }
    write_file("acc.expected.bin", &acc, sizeof acc);
    static uint32_t pair[BLOCKS * M];
    for (int b = 0; b < BLOCKS; b++)
        for (int i = 0; i < M; i++) pair[b * M + i] = (uint32_t)i + 100u * ((b ^ 1) + 1) + (uint32_t)i;
    write_file("pair.expected.bin", pair, sizeof pair);
    return 0;
}
