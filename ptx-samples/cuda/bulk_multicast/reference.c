/* CPU reference for bulk_multicast (PTX ISA cp.async.bulk: with
   .multicast::cluster the source is copied to the same CTA-relative offset
   in the shared memory of every CTA of ctaMask, and the mbarrier signal
   goes to the same offset in each). CTA rank r of cluster c copies ints
   [256 r, 256 r + 256) of the cluster's tile to all four CTAs, so every
   CTA of cluster c holds tile c whole and writes tile[i] * (r + 1).
   The tensor copies read `in` as a 64x32 tensor (x fastest): CTA rank r
   of cluster c loads the 32x8 box at (32 (r % 2), 16 c + 8 (r / 2)) into
   slot r (256 ints, the box row by row) of every CTA of c, which writes
   its four slots minus its rank. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TILE 1024
#define CLUSTER 4
#define BLOCKS 8

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static int32_t in[BLOCKS / CLUSTER * TILE], out[BLOCKS * TILE], out2[BLOCKS * TILE];
    for (int i = 0; i < BLOCKS / CLUSTER * TILE; i++) in[i] = (int32_t)((i * 2654435761u) >> 12) - 500000;
    for (int b = 0; b < BLOCKS; b++)
        for (int i = 0; i < TILE; i++)
            out[b * TILE + i] = in[(b / CLUSTER) * TILE + i] * (b % CLUSTER + 1);
    for (int b = 0; b < BLOCKS; b++) {
        int c = b / CLUSTER, rank = b % CLUSTER;
        for (int slot = 0; slot < CLUSTER; slot++)
            for (int y = 0; y < 8; y++)
                for (int x = 0; x < 32; x++) {
                    int gx = 32 * (slot % 2) + x, gy = 16 * c + 8 * (slot / 2) + y;
                    out2[b * TILE + slot * 256 + y * 32 + x] = in[gy * 64 + gx] - rank;
                }
    }
    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    write_file("out2.expected.bin", out2, sizeof out2);
    return 0;
}
