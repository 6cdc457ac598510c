// CPU reference for grid3d_index: grid (3,2,2), block (8,4,2), array 20x7x3.
// Enumerates every thread of the launch and writes what it should store.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define GX 3
#define GY 2
#define GZ 2
#define BX 8
#define BY 4
#define BZ 2
#define NX 20
#define NY 7
#define NZ 3

static void write_file(const char* name, const void* p, size_t n)
{
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void)
{
    static uint32_t ids[NX * NY * NZ], dims[NX * NY * NZ], rank[NX * NY * NZ];
    static int written[NX * NY * NZ];
    for (uint32_t bz = 0; bz < GZ; bz++)
    for (uint32_t by = 0; by < GY; by++)
    for (uint32_t bx = 0; bx < GX; bx++)
    for (uint32_t tz = 0; tz < BZ; tz++)
    for (uint32_t ty = 0; ty < BY; ty++)
    for (uint32_t tx = 0; tx < BX; tx++) {
        uint32_t x = bx * BX + tx, y = by * BY + ty, z = bz * BZ + tz;
        if (x >= NX || y >= NY || z >= NZ)
            continue;
        uint32_t idx = (z * NY + y) * NX + x;
        if (written[idx]++) { fprintf(stderr, "element written twice\n"); return 1; }
        ids[idx] = tx | ty << 4 | tz << 8 | bx << 12 | by << 16 | bz << 20;
        dims[idx] = BX | BY << 4 | BZ << 8 | GX << 12 | GY << 16 | GZ << 20;
        uint32_t block_linear = (bz * GY + by) * GX + bx;
        uint32_t thread_linear = (tz * BY + ty) * BX + tx;
        rank[idx] = block_linear * (BX * BY * BZ) + thread_linear;
    }
    for (int i = 0; i < NX * NY * NZ; i++)
        if (!written[i]) { fprintf(stderr, "element %d not covered\n", i); return 1; }
    write_file("ids.expected.bin", ids, sizeof ids);
    write_file("dims.expected.bin", dims, sizeof dims);
    write_file("rank.expected.bin", rank, sizeof rank);
    return 0;
}
