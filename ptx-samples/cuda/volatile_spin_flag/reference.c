// CPU reference for volatile_spin_flag (last-block-done reduction): the
// per-block grid-stride partial sums, their total, exactly one block that saw
// itself last, and the ticket counter reset to 0.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 20000
#define BLOCK 128
#define GRID 32

static uint32_t rng = 0x7E57AB1Eu;
static uint32_t xorshift32(void) {
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5;
    return rng;
}

static void write_file(const char* name, const void* p, size_t bytes) {
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static int32_t in[N];
    for (int i = 0; i < N; i++) in[i] = (int32_t)(xorshift32() % 2001u) - 1000;
    write_file("in.bin", in, sizeof in);

    int32_t partials[GRID] = {0};
    int32_t total = 0;
    for (int i = 0; i < N; i++) {
        int b = (i / BLOCK) % GRID;   // grid-stride: element i belongs to block (i / BLOCK) mod GRID
        partials[b] += in[i];
        total += in[i];
    }
    uint32_t last_blocks = 1, retirement = 0;
    write_file("partials.expected.bin", partials, sizeof partials);
    write_file("total.expected.bin", &total, sizeof total);
    write_file("last_blocks.expected.bin", &last_blocks, sizeof last_blocks);
    write_file("retirement.expected.bin", &retirement, sizeof retirement);
    return 0;
}
