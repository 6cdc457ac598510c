/* CPU reference for struct_param_indexed: a Table {int n; float coef[64]; int idx[64];}
   (516 bytes, as the kernel parameter's bytes), 1000 selectors, and
   out[i] = coef[k] * (float)idx[(k * 7) % n] with k = sel[i] % n (one f32 multiply). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define M 1000

struct Table {
    int32_t n;
    float coef[64];
    int32_t idx[64];
};

static uint32_t rng = 0x2468ACE1u;
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

int main(void) {
    static struct Table t;
    static int32_t sel[M];
    static float out[M];
    t.n = 61;
    for (int j = 0; j < 64; j++) {
        t.coef[j] = (float)(xorshift32() % 2000) / 16.0f - 60.0f;
        t.idx[j] = (int32_t)(xorshift32() % 1000) - 500;
    }
    for (int i = 0; i < M; i++) sel[i] = (int32_t)(xorshift32() % 100000);
    for (int i = 0; i < M; i++) {
        int k = sel[i] % t.n;
        out[i] = t.coef[k] * (float)t.idx[(k * 7) % t.n];
    }
    write_file("table.bin", &t, sizeof t);
    write_file("sel.bin", sel, sizeof sel);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
