/* CPU reference for alloca_stack: the same windows sorted on the CPU, and
   the same mix; the stack pointer always comes back (1). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N_IN 4096
#define N 1024
#define OUTS 14

static uint32_t rng = 0xA110CA7Eu;
static uint32_t next(void) {
    uint32_t x = rng;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    return rng = x;
}

static int cmp(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t mix(const uint32_t *w, uint32_t n, uint32_t seed) {
    uint32_t tmp[16], scratch[16], h = 0;
    for (int k = 0; k < 16; k++) tmp[k] = seed * (uint32_t)(k + 1);
    for (int k = 0; k < 16; k++) scratch[k] = tmp[(seed + k) & 15] ^ w[k % n];
    for (int k = 0; k < 16; k++) h = h * 31u + scratch[k];
    return h;
}

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static uint32_t in[N_IN], out[N * OUTS], w[64];
    for (int k = 0; k < N_IN; k++) in[k] = next() % 5 == 0 ? next() % 16 : next();
    for (int i = 0; i < N; i++) {
        uint32_t *o = out + OUTS * i;
        uint32_t base_len = 1 + (uint32_t)(i * 7) % 61;
        for (int round = 0; round < 3; round++) {
            uint32_t len = base_len + round, sum = 0;
            for (uint32_t k = 0; k < len; k++) w[k] = in[(i + 3 * k + round) % N_IN];
            qsort(w, len, 4, cmp);
            for (uint32_t k = 0; k < len; k++) sum += w[k];
            o[4 * round + 0] = w[0];
            o[4 * round + 1] = w[len / 2];
            o[4 * round + 2] = w[len - 1];
            o[4 * round + 3] = sum;
        }
        uint32_t len = base_len;
        for (uint32_t k = 0; k < len; k++) w[k] = in[(i + k) % N_IN] + k;
        uint32_t h = mix(w, len, (uint32_t)i);
        for (uint32_t k = 0; k < len; k++) h += w[k] * (k + 1);
        o[12] = h;
        o[13] = 1;
    }
    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
