/* Reference for tma_copy: a 100x40 float tensor (rows of 400 bytes), each
 * 32x8 box (out-of-bounds elements read as zero) becomes 2 * v + (sum of
 * its box row, in column order) + c; out-of-bounds results are not
 * stored, and the rest of the output stays zero. Writes in.bin and
 * out.expected.bin. */
#include <stdio.h>
#include <stdlib.h>

#define W 100
#define H 40
#define BW 32
#define BH 8

static float in[H][W], out[H][W];

int main(void)
{
    unsigned s = 12345u;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            s = s * 1664525u + 1013904223u;
            in[y][x] = (float)((int)(s >> 20) % 64 - 32) * 0.25f;
        }
    for (int by = 0; by < (H + BH - 1) / BH; ++by)
        for (int bx = 0; bx < (W + BW - 1) / BW; ++bx)
            for (int r = 0; r < BH; ++r) {
                int y = by * BH + r;
                float box[BW], sum = 0.0f;
                for (int c = 0; c < BW; ++c) {
                    int x = bx * BW + c;
                    box[c] = (y < H && x < W) ? in[y][x] : 0.0f;
                    sum += box[c];
                }
                for (int c = 0; c < BW; ++c) {
                    int x = bx * BW + c;
                    if (y < H && x < W)
                        out[y][x] = 2.0f * box[c] + sum + (float)c;
                }
            }
    FILE* f = fopen("in.bin", "wb");
    fwrite(in, sizeof in, 1, f);
    fclose(f);
    f = fopen("out.expected.bin", "wb");
    fwrite(out, sizeof out, 1, f);
    fclose(f);
    return 0;
}
