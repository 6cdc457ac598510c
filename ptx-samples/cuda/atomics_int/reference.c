// CPU reference for atomics_int: applies the same atomic operations serially.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>

#define N 2048
#define BLOCK 256
#define NBLOCKS (N / BLOCK)
#define INC_BINS 100u
#define DEC_BINS 50u
#define SLOTS 64

static uint32_t rng = 0x1234567u;
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
    static int32_t sdata[N];
    static uint32_t udata[N];
    for (int i = 0; i < N; i++) {
        sdata[i] = (int32_t)(xorshift32() % 2001u) - 1000;
        udata[i] = xorshift32();
    }
    write_file("sdata.bin", sdata, sizeof sdata);
    write_file("udata.bin", udata, sizeof udata);

    int32_t iacc[8] = {0, 0, INT_MAX, INT_MIN, -1, 0, 0x12345678, 0};
    uint32_t uacc[12] = {0, 5, 0xFFFFFFFFu, 0, 0xFFFFFFFFu, 0, 0, 0, 10, 0xDEADBEEFu, 0, 0};
    uint64_t acc64[8] = {0, ~0ull, 0, ~0ull, 0, 0, 0xFFFF0000FFFF0000ull, 0};
    int64_t sacc64[2] = {LLONG_MAX, LLONG_MIN};
    write_file("iacc.in.bin", iacc, sizeof iacc);
    write_file("uacc.in.bin", uacc, sizeof uacc);
    write_file("acc64.in.bin", acc64, sizeof acc64);
    write_file("sacc64.in.bin", sacc64, sizeof sacc64);

    static uint32_t inc_hist[INC_BINS], dec_hist[DEC_BINS], ticket_mark[N];
    static int32_t cas_flags[SLOTS];
    static uint32_t cas_wins[SLOTS];
    static uint64_t cas64[SLOTS];
    static uint32_t block_stats[2 * NBLOCKS];

    for (int tid = 0; tid < N; tid++) {
        int32_t d = sdata[tid];
        uint32_t u = udata[tid];
        iacc[0] += d;
        iacc[1] -= d;
        if (d < iacc[2]) iacc[2] = d;
        if (d > iacc[3]) iacc[3] = d;
        if (d > 900) iacc[4] &= ~(1 << (tid % 29));
        if (d < -900) iacc[5] |= 1 << (tid % 31);
        iacc[6] = (int32_t)((uint32_t)iacc[6] ^ (uint32_t)d);
        if (d < 0) iacc[7] += 1;

        uacc[0] += u;
        uacc[1] -= u & 0xFFFFu;
        if (u < uacc[2]) uacc[2] = u;
        if (u > uacc[3]) uacc[3] = u;
        if ((u & 0x3Fu) == 7u) uacc[4] &= ~(1u << (u >> 27));
        if ((u & 0x3Fu) == 9u) uacc[5] |= 1u << (u >> 27);
        uacc[6] ^= u;
        // atomicInc: ((old >= limit) ? 0 : old + 1)
        uint32_t old = uacc[7];
        uacc[7] = (old >= INC_BINS - 1u) ? 0u : old + 1u;
        inc_hist[old]++;
        // atomicDec: (((old == 0) || (old > limit)) ? limit : old - 1)
        old = uacc[8];
        uacc[8] = (old == 0u || old > DEC_BINS - 1u) ? DEC_BINS - 1u : old - 1u;
        dec_hist[old]++;
        old = uacc[9];
        uacc[9] = 0xC0FFEEu;
        if (old == 0xDEADBEEFu) uacc[10]++;
        old = uacc[11]++;
        ticket_mark[old]++;

        uint64_t v = ((uint64_t)u << 32) | (uint32_t)d;
        acc64[0] += ((uint64_t)u << 16) | (uint64_t)tid;
        if (v < acc64[1]) acc64[1] = v;
        if (v > acc64[2]) acc64[2] = v;
        if ((u & 0x3Fu) == 11u) acc64[3] &= ~(1ull << (u >> 26));
        if ((u & 0x3Fu) == 13u) acc64[4] |= 1ull << (u >> 26);
        acc64[5] ^= v;
        uint64_t old64 = acc64[6];
        acc64[6] = 0x1122334455667788ull;
        if (old64 == 0xFFFF0000FFFF0000ull) acc64[7]++;

        int64_t s = (int64_t)d * 1000003LL * (int64_t)(tid + 1);
        if (s < sacc64[0]) sacc64[0] = s;
        if (s > sacc64[1]) sacc64[1] = s;

        int slot = tid & (SLOTS - 1);
        if (cas_flags[slot] == 0) { cas_flags[slot] = slot + 1; cas_wins[slot]++; }
        if (cas64[slot] == 0) cas64[slot] = 0xABCD000000000000ull | (uint64_t)slot;

        int b = tid / BLOCK;
        if (d < 0) block_stats[2 * b]++;
        if (u > block_stats[2 * b + 1]) block_stats[2 * b + 1] = u;
    }

    write_file("iacc.expected.bin", iacc, sizeof iacc);
    write_file("uacc.expected.bin", uacc, sizeof uacc);
    write_file("acc64.expected.bin", acc64, sizeof acc64);
    write_file("sacc64.expected.bin", sacc64, sizeof sacc64);
    write_file("inc_hist.expected.bin", inc_hist, sizeof inc_hist);
    write_file("dec_hist.expected.bin", dec_hist, sizeof dec_hist);
    write_file("ticket_mark.expected.bin", ticket_mark, sizeof ticket_mark);
    write_file("cas_flags.expected.bin", cas_flags, sizeof cas_flags);
    write_file("cas_wins.expected.bin", cas_wins, sizeof cas_wins);
    write_file("cas64.expected.bin", cas64, sizeof cas64);
    write_file("block_stats.expected.bin", block_stats, sizeof block_stats);
    return 0;
}
