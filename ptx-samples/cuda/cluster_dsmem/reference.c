/* CPU reference for cluster_dsmem: 4 blocks of 128 threads in clusters of
   2. in[g] is a pseudo-random int; halo[g] = in[g] + 2 * in[m], m the
   mirrored index (127 - t) in the other block of the cluster; hist holds
   each cluster's 64-bin histogram of in[] % 64; info the cluster shape per
   block; elected, per warp, marks the lowest lane with an odd in[] (100 +
   its lane), the other odd lanes (the leader's lane + 1: elect.sync
   returns the elected lane's id in every lane) and the even ones (0). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 128
#define BLOCKS 4
#define CLUSTER 2
#define BINS 64
#define TOTAL (N * BLOCKS)

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static int32_t in[TOTAL], halo[TOTAL];
    static uint32_t hist[BLOCKS / CLUSTER * BINS], info[BLOCKS * 8], elected[TOTAL];
    uint32_t x = 12345;
    for (int g = 0; g < TOTAL; g++) {
        x = x * 1103515245u + 12345u;
        in[g] = (int32_t)(x >> 8) - (1 << 22);
    }
    for (int b = 0; b < BLOCKS; b++) {
        int other = b ^ 1;
        for (int t = 0; t < N; t++)
            halo[b * N + t] = in[b * N + t] + 2 * in[other * N + (N - 1 - t)];
    }
    for (int g = 0; g < TOTAL; g++) {
        int cluster = g / N / CLUSTER;
        hist[cluster * BINS + ((uint32_t)in[g]) % BINS]++;
    }
    for (int b = 0; b < BLOCKS; b++) {
        uint32_t *o = info + b * 8;
        uint32_t rank = b % CLUSTER;
        o[0] = rank;
        o[1] = CLUSTER;
        o[2] = CLUSTER;
        o[3] = rank;
        o[4] = b / CLUSTER;
        o[5] = BLOCKS / CLUSTER;
        o[6] = 1;
        o[7] = rank * N + 1000 * (N * CLUSTER);
    }
    for (int w = 0; w < TOTAL / 32; w++) {
        int leader = -1;
        for (int l = 0; l < 32; l++) {
            int g = w * 32 + l;
            if (!(in[g] & 1)) {
                elected[g] = 0;
            } else if (leader < 0) {
                leader = l;
                elected[g] = 100 + l;
            } else {
                elected[g] = leader + 1;
            }
        }
    }
    write_file("in.bin", in, sizeof in);
    write_file("halo.expected.bin", halo, sizeof halo);
    write_file("hist.expected.bin", hist, sizeof hist);
    write_file("info.expected.bin", info, sizeof info);
    write_file("elected.expected.bin", elected, sizeof elected);
    return 0;
}
