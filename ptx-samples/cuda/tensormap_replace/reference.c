/* CPU reference for tensormap_replace: block i loads the box of the
   replaced map (8 columns x 6 rows of floats in b, rows 8 floats apart)
   at column cx = (i % 3) * 3 - 2, row cy = (i / 3) * 4 - 1: columns cx,
   cx + 2, cx + 4, cx + 6 of rows cy .. cy + 2, in that order (columns
   fastest); elements outside the tensor are the NaN fill 0x7fffffff. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCKS 6

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static uint32_t a[64], out[BLOCKS * 12];
    static float b[48];
    for (int i = 0; i < 64; i++) a[i] = 7000 + i;
    for (int i = 0; i < 48; i++) b[i] = 100.0f + (float)i * 0.25f;
    for (int blk = 0; blk < BLOCKS; blk++) {
        int cx = (blk % 3) * 3 - 2, cy = (blk / 3) * 4 - 1, n = 0;
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 4; k++) {
                int row = cy + r, col = cx + 2 * k;
                uint32_t v = 0x7fffffffu;
                if (row >= 0 && row < 6 && col >= 0 && col < 8) memcpy(&v, &b[row * 8 + col], 4);
                out[blk * 12 + n++] = v;
            }
    }
    write_file("a.bin", a, sizeof a);
    write_file("b.bin", b, sizeof b);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
