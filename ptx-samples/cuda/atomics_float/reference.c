// CPU reference for atomics_float. Every quantity the kernel accumulates is a
// small integer times a power of two, so plain serial sums give the exact result.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define BLOCK 256
#define NBLOCKS (N / BLOCK)

static uint32_t rng = 0xC0DEF00Du;
static uint32_t xorshift32(void) {
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5;
    return rng;
}

static void write_file(const char* name, const void* p, size_t bytes) {
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

// IEEE binary16 bits of an integer with |v| <= 2048 (exactly representable).
static uint16_t half_from_int(int v) {
    if (v == 0) return 0;
    uint16_t sign = v < 0 ? 0x8000 : 0;
    unsigned a = (unsigned)(v < 0 ? -v : v);
    int e = 31 - __builtin_clz(a);          // a = 1.m * 2^e
    unsigned mant = (a << (10 - e)) & 0x3FFu;
    return (uint16_t)(sign | ((unsigned)(e + 15) << 10) | mant);
}

int main(void) {
    static int32_t q[N];
    static uint32_t h2vals[N];
    static int a_of[N], b_of[N];
    for (int i = 0; i < N; i++) {
        q[i] = (int32_t)(xorshift32() % 1001u) - 500;
        a_of[i] = q[i] & 3;        // 0..3
        b_of[i] = q[i] % 3;        // -2..2 (C truncation, same as CUDA)
        h2vals[i] = (uint32_t)half_from_int(a_of[i]) | ((uint32_t)half_from_int(b_of[i]) << 16);
    }
    write_file("q.bin", q, sizeof q);
    write_file("h2vals.bin", h2vals, sizeof h2vals);
    float fexch_in[2] = {-1.0f, 0.0f};
    write_file("fexch.in.bin", fexch_in, sizeof fexch_in);

    // Integer accumulation, converted at the end: exact.
    int64_t sum_q = 0, bins_q[32] = {0}, blk_q[NBLOCKS] = {0};
    int64_t hx[16] = {0}, hy[16] = {0}, hs = 0;
    double dsum = 0.0;   // every partial sum is exactly representable
    for (int i = 0; i < N; i++) {
        sum_q += q[i];
        bins_q[i & 31] += q[i];
        blk_q[i / BLOCK] += q[i];
        dsum += (double)q[i] * 0x1p-20 + (double)i;
        hx[i & 15] += a_of[i];
        hy[i & 15] += b_of[i];
        if ((i & 3) == 0) hs += q[i] & 1;
    }

    float fsum[3];
    fsum[0] = (float)((double)sum_q * 0.125);
    fsum[1] = (float)N;
    fsum[2] = (float)((double)sum_q * 0.5);
    float fbins[32];
    for (int k = 0; k < 32; k++) fbins[k] = (float)((double)bins_q[k] * 0.25);
    static uint32_t ticket[N];
    for (int i = 0; i < N; i++) ticket[i] = 1;   // each old value 0..N-1 is returned once
    float block_sums[NBLOCKS];
    double dblock[NBLOCKS];
    for (int b = 0; b < NBLOCKS; b++) {
        block_sums[b] = (float)((double)blk_q[b] * 0.5);
        dblock[b] = (double)blk_q[b] * 0.0625;
    }
    float fexch[2] = {2.5f, 1.0f};
    uint16_t hbins[32];
    for (int k = 0; k < 16; k++) {
        hbins[2 * k] = half_from_int((int)hx[k]);
        hbins[2 * k + 1] = half_from_int((int)hy[k]);
    }
    uint16_t hsum[1] = {half_from_int((int)hs)};

    write_file("fsum.expected.bin", fsum, sizeof fsum);
    write_file("dsum.expected.bin", &dsum, sizeof dsum);
    write_file("fbins.expected.bin", fbins, sizeof fbins);
    write_file("ticket.expected.bin", ticket, sizeof ticket);
    write_file("block_sums.expected.bin", block_sums, sizeof block_sums);
    write_file("dblock.expected.bin", dblock, sizeof dblock);
    write_file("fexch.expected.bin", fexch, sizeof fexch);
    write_file("hbins.expected.bin", hbins, sizeof hbins);
    write_file("hsum.expected.bin", hsum, sizeof hsum);
    return 0;
}
