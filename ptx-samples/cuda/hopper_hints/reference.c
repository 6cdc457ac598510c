/* CPU reference for hopper_hints: out[i] = fns(in[i], i % 32, i % 9 - 4)
   for 2000 random masks (some sparse), found = how many are not
   0xffffffff. fns as the PTX ISA's pseudo-code for fns.b32 states it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 2000

static uint32_t rng = 0x0BADCAFEu;
static uint32_t xorshift32(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static uint32_t fns(uint32_t mask, uint32_t base, int32_t offset) {
    uint32_t d = 0xffffffffu;
    if (offset == 0) {
        if (base < 32 && ((mask >> base) & 1)) d = base;
    } else {
        int pos = (int)base;
        int count = (offset < 0 ? -offset : offset) - 1;
        int inc = offset > 0 ? 1 : -1;
        while (pos >= 0 && pos < 32) {
            if ((mask >> pos) & 1) {
                if (count == 0) { d = (uint32_t)pos; break; }
                count--;
            }
            pos += inc;
        }
    }
    return d;
}

static void write_file(const char *path, const void *data, size_t bytes) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, bytes, f) != bytes) { perror(path); exit(1); }
    fclose(f);
}

int main(void) {
    static uint32_t in[N], out[N];
    uint32_t found = 0;
    for (int i = 0; i < N; i++) {
        uint32_t v = xorshift32();
        if (i % 3 == 0) v &= xorshift32() & xorshift32();
        if (i % 50 == 0) v = 0;
        in[i] = v;
    }
    for (int i = 0; i < N; i++) {
        out[i] = fns(in[i], (uint32_t)(i & 31), i % 9 - 4);
        if (out[i] != 0xffffffffu) found++;
    }
    uint32_t zero = 0;
    write_file("in.bin", in, sizeof in);
    write_file("found.init.bin", &zero, sizeof zero);
    write_file("out.expected.bin", out, sizeof out);
    write_file("found.expected.bin", &found, sizeof found);
    return 0;
}
