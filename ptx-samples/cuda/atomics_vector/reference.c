/* CPU reference for atomics_vector, from the PTX ISA's vector atom/red: each
   element of the vector is an independent atomic on its own element of
   memory (the old values go to d's elements in order); .add rounds to
   nearest even (every sum here is exact: integer or short binary fractions
   in f32 and small integers in f16/bf16), .min/.max take the smaller or
   larger value. The kernel's thread i updates its own vectors once and the
   shared vector i % 8 with additions, minima and maxima, whose result does
   not depend on the order. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 256
#define SLOTS 8

static uint32_t rng = 0xA70A1C5u;
static uint32_t next(void) {
    uint32_t x = rng;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    return rng = x;
}

/* f16 bits of a value f16 holds exactly (small integers and halves here). */
static uint16_t f16_bits(float v) {
    if (v == 0) return signbit(v) ? 0x8000 : 0;
    uint16_t sign = v < 0 ? 0x8000 : 0;
    float m = fabsf(v);
    int e;
    float fr = frexpf(m, &e); /* m = fr * 2^e, fr in [0.5, 1) */
    uint32_t mant = (uint32_t)(fr * 2048.0f);  /* 11 significant bits */
    return sign | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)(mant & 0x3ff);
}
static float f16_value(uint16_t h) {
    int e = (h >> 10) & 0x1f;
    float m = (float)(h & 0x3ff);
    float v = e == 0 ? ldexpf(m, -24) : ldexpf(1024.0f + m, e - 25);
    return (h & 0x8000) ? -v : v;
}
static uint16_t bf16_bits(float v) {
    uint32_t u;
    memcpy(&u, &v, 4);
    return (uint16_t)(u >> 16);
}
static float bf16_value(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float v;
    memcpy(&v, &u, 4);
    return v;
}

static uint16_t f16_add(uint16_t a, uint16_t b) { return f16_bits(f16_value(a) + f16_value(b)); }
static uint16_t f16_min(uint16_t a, uint16_t b) { return f16_value(b) < f16_value(a) ? b : a; }
static uint16_t bf16_min(uint16_t a, uint16_t b) { return bf16_value(b) < bf16_value(a) ? b : a; }
static uint16_t bf16_max(uint16_t a, uint16_t b) { return bf16_value(b) > bf16_value(a) ? b : a; }

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

static int small(void) { return (int)(next() % 17) - 8; } /* -8..8 */

int main(void) {
    static float own_f32[N * 8], old_f32[N * 6], shared_f32[48];
    static uint16_t own_h[N * 16], old_h[N * 10], shared_h[64];
    static uint32_t own_x[N * 4], old_x[N * 4], shared_x[48];
    for (int i = 0; i < N * 8; i++) own_f32[i] = (float)((int)(next() % 2001) - 1000) / 8.0f;
    for (int i = 0; i < N * 16; i++) own_h[i] = (i % 16 < 8) ? f16_bits(small() * 0.5f) : bf16_bits((float)small());
    for (int i = 0; i < N * 4; i++) own_x[i] = f16_bits((float)small()) | (uint32_t)f16_bits((float)small()) << 16;
    for (int i = 0; i < 48; i++) shared_f32[i] = (float)small();
    for (int i = 0; i < 32; i++) shared_x[i] = bf16_bits((float)small()) | (uint32_t)bf16_bits((float)small()) << 16;
    for (int i = 32; i < 48; i++) shared_x[i] = f16_bits((float)small()) | (uint32_t)f16_bits((float)small()) << 16;
    for (int i = 0; i < 64; i++) shared_h[i] = bf16_bits((float)small());
    write_file("own_f32.in.bin", own_f32, sizeof own_f32);
    write_file("own_h.in.bin", own_h, sizeof own_h);
    write_file("own_x.in.bin", own_x, sizeof own_x);
    write_file("shared_f32.in.bin", shared_f32, sizeof shared_f32);
    write_file("shared_x.in.bin", shared_x, sizeof shared_x);
    write_file("shared_h.in.bin", shared_h, sizeof shared_h);

    for (int i = 0; i < N; i++) {
        int s = i % 8;
        /* f32: own float4 and float2, old values kept. */
        float b4[4] = {0.5f * (float)i, -1.25f, 3.0f, (float)(i & 7)};
        float b2[2] = {1e-3f * (float)i, (float)-i};
        for (int k = 0; k < 4; k++) { old_f32[6 * i + k] = own_f32[8 * i + k]; own_f32[8 * i + k] += b4[k]; }
        for (int k = 0; k < 2; k++) { old_f32[6 * i + 4 + k] = own_f32[8 * i + 4 + k]; own_f32[8 * i + 4 + k] += b2[k]; }
        float s4[4] = {1.0f, (float)(i % 5), (float)-(i % 3), 2.0f};
        for (int k = 0; k < 4; k++) shared_f32[4 * s + k] += s4[k];
        shared_f32[32 + 2 * s] += (float)(i % 11);
        shared_f32[32 + 2 * s + 1] += 0.25f;

        /* Own halves: v8.f16 add, v2.bf16 max, v4.f16x2 min. */
        for (int k = 0; k < 8; k++) {
            uint16_t *p = &own_h[16 * i + k];
            old_h[10 * i + k] = *p;
            *p = f16_add(*p, f16_bits((float)(k - 3 + (i & 3))));
        }
        uint16_t bb[2] = {bf16_bits((float)(i % 9 - 4)), bf16_bits((float)(4 - i % 7))};
        for (int k = 0; k < 2; k++) {
            uint16_t *p = &own_h[16 * i + 8 + k];
            old_h[10 * i + 8 + k] = *p;
            *p = bf16_max(*p, bb[k]);
        }
        for (int k = 0; k < 4; k++) {
            uint32_t *p = &own_x[4 * i + k];
            uint16_t lo = f16_bits((float)(k - i % 5)), hi = f16_bits((float)(i % 6 - k));
            old_x[4 * i + k] = *p;
            *p = f16_min((uint16_t)*p, lo) | (uint32_t)f16_min((uint16_t)(*p >> 16), hi) << 16;
        }

        /* Shared: v4.bf16x2 max, v2.f16x2 add, v8.bf16 min. */
        for (int k = 0; k < 4; k++) {
            uint32_t *p = &shared_x[4 * s + k];
            uint16_t lo = bf16_bits((float)((i * (k + 1)) % 13 - 6)), hi = bf16_bits((float)(i % (k + 2)));
            *p = bf16_max((uint16_t)*p, lo) | (uint32_t)bf16_max((uint16_t)(*p >> 16), hi) << 16;
        }
        uint16_t add[4] = {f16_bits(1.0f), f16_bits((float)(i % 3)), f16_bits((float)-(i % 4)), f16_bits(0.0f)};
        for (int k = 0; k < 2; k++) {
            uint32_t *p = &shared_x[32 + 2 * s + k];
            *p = f16_add((uint16_t)*p, add[2 * k]) | (uint32_t)f16_add((uint16_t)(*p >> 16), add[2 * k + 1]) << 16;
        }
        for (int k = 0; k < 8; k++) {
            uint16_t *p = &shared_h[8 * s + k];
            *p = bf16_min(*p, bf16_bits((float)((i + 3 * k) % 17 - 8)));
        }
    }
    write_file("own_f32.expected.bin", own_f32, sizeof own_f32);
    write_file("old_f32.expected.bin", old_f32, sizeof old_f32);
    write_file("own_h.expected.bin", own_h, sizeof own_h);
    write_file("old_h.expected.bin", old_h, sizeof old_h);
    write_file("own_x.expected.bin", own_x, sizeof own_x);
    write_file("old_x.expected.bin", old_x, sizeof old_x);
    write_file("shared_f32.expected.bin", shared_f32, sizeof shared_f32);
    write_file("shared_x.expected.bin", shared_x, sizeof shared_x);
    write_file("shared_h.expected.bin", shared_h, sizeof shared_h);
    return 0;
}
