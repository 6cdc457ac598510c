/* CPU reference for grid_constant: Params {int n; float scale; float
   table[16]; int offsets[4];} (88 bytes, the kernel parameter's bytes);
   out[i] = table[(i + offsets[i % 4]) % 16] * scale for i < n (one f32
   multiply); flags: the parameter's address is a grid constant and (as the
   ISA says, the .param window lying inside the .global one) global; the
   output pointer is global and not a grid constant. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000

struct Params {
    int32_t n;
    float scale;
    float table[16];
    int32_t offsets[4];
};

static void write_file(const char *path, const void *data, size_t bytes) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, bytes, f) != bytes) { perror(path); exit(1); }
    fclose(f);
}

int main(void) {
    static struct Params p;
    static float out[N];
    uint32_t flags[4] = {1, 1, 0, 1};
    p.n = N;
    p.scale = 1.5f;
    for (int j = 0; j < 16; j++) p.table[j] = (float)(j * j) - 7.25f;
    p.offsets[0] = 3;
    p.offsets[1] = -5;
    p.offsets[2] = 11;
    p.offsets[3] = 0;
    for (int i = 0; i < N; i++) {
        int k = (i + p.offsets[i & 3]) & 15;
        out[i] = p.table[k] * p.scale;
    }
    write_file("params.bin", &p, sizeof p);
    write_file("out.expected.bin", out, sizeof out);
    write_file("flags.expected.bin", flags, sizeof flags);
    return 0;
}
