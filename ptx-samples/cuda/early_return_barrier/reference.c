// CPU reference for early_return_barrier: n = 1000 ints in blocks of 256
// (the last block holds 232); each block's valid elements reversed,
// out[i] = 3 * in[block's mirror of i] + 1.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000
#define BLOCK 256

static void write_file(const char* name, const void* p, size_t n)
{
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void)
{
    int32_t in[N], out[N];
    for (int i = 0; i < N; i++) in[i] = (i * 37) % 1009 - 500;
    for (int i = 0; i < N; i++) {
        int b = i / BLOCK, t = i % BLOCK;
        int valid = N - b * BLOCK < BLOCK ? N - b * BLOCK : BLOCK;
        out[i] = in[b * BLOCK + valid - 1 - t] * 3 + 1;
    }
    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
