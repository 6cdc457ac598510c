// CPU reference for shared_many_kernels: reverse5 over 4 blocks of 12,000
// floats: out[b][i] = 6 * in[b][CHUNK - 1 - i] (an exact product: the inputs
// are small integers and halves), n[b] = 12,000.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHUNK 12000
#define BLOCKS 4

static void write_file(const char* name, const void* p, size_t n)
{
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void)
{
    static float in[BLOCKS * CHUNK], out[BLOCKS * CHUNK];
    uint32_t n[BLOCKS];
    for (int i = 0; i < BLOCKS * CHUNK; i++) in[i] = (float)((i * 7919) % 1000) * 0.5f - 100.0f;
    for (int b = 0; b < BLOCKS; b++) {
        for (int i = 0; i < CHUNK; i++) out[b * CHUNK + i] = 6.0f * in[b * CHUNK + CHUNK - 1 - i];
        n[b] = CHUNK;
    }
    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    write_file("n.expected.bin", n, sizeof n);
    return 0;
}
