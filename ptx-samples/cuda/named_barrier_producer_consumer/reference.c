// CPU reference for named_barrier_producer_consumer: replays the producer /
// consumer rounds, the block-wide barrier reductions and the warp exchange.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define GRID 4
#define BLOCK 128
#define ROUNDS 4
#define PROD 64
#define CONS 64

static uint32_t rng = 0xA5A5F00Du;
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
    static int32_t tiles[GRID * ROUNDS * PROD], vals[GRID * BLOCK];
    for (int i = 0; i < GRID * ROUNDS * PROD; i++) tiles[i] = (int32_t)(xorshift32() % 2001u) - 1000;
    for (int i = 0; i < GRID * BLOCK; i++) {
        int b = i / BLOCK;
        int32_t x = (int32_t)(xorshift32() % 2001u) - 1000;
        if (b == 1 && x > 990) x -= 100;          // no lane above 990
        if (b == 2 && x <= -900) x = -x;          // every lane above -900
        if (b == 3 && (i % BLOCK) == 77) x = 995; // at least one above 990
        vals[i] = x;
    }
    write_file("tiles.bin", tiles, sizeof tiles);
    write_file("vals.bin", vals, sizeof vals);

    static int32_t consumed[GRID * CONS], stats[GRID * 4], warp_out[GRID * BLOCK];
    for (int b = 0; b < GRID; b++) {
        const int32_t* my = tiles + b * ROUNDS * PROD;
        int count_acc = 0;
        for (int c = 0; c < CONS; c++) {
            int32_t acc = 0;
            for (int r = 0; r < ROUNDS; r++) acc += my[r * PROD + ((c * 5 + r) & (PROD - 1))] * (r + 1);
            consumed[b * CONS + c] = acc;
            if (acc & 1) count_acc++;
        }
        const int32_t* v = vals + b * BLOCK;
        int count = 0, all = 1, any = 0;
        for (int t = 0; t < BLOCK; t++) {
            if (v[t] > 0) count++;
            if (!(v[t] > -900)) all = 0;
            if (v[t] > 990) any = 1;
        }
        stats[b * 4 + 0] = count;
        stats[b * 4 + 1] = all;
        stats[b * 4 + 2] = any;
        stats[b * 4 + 3] = count_acc;

        int32_t w1[BLOCK], w2[BLOCK];
        for (int t = 0; t < BLOCK; t++) w1[t] = v[t ^ 1] + 2 * v[t ^ 2];
        for (int t = 0; t < BLOCK; t++) w2[t] = w1[t] + w1[(t & ~31) | (((t & 31) + 7) & 31)];
        for (int t = 0; t < BLOCK; t++) {
            int32_t w = w2[t];
            if (t & 1) w += -w2[(t & ~31) | (((t & 31) + 2) & 31)];
            warp_out[b * BLOCK + t] = w;
        }
    }
    write_file("consumed.expected.bin", consumed, sizeof consumed);
    write_file("stats.expected.bin", stats, sizeof stats);
    write_file("warp_out.expected.bin", warp_out, sizeof warp_out);
    return 0;
}
