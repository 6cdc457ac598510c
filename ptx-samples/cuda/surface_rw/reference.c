/* CPU reference for surface_rw: a W x H f32 image blurred by a 3x3 box
   (neighbours outside clamped to the edge, the nine values summed row by
   row, left to right, then divided by 9) and stored transposed (H wide,
   W high); and a W x H RGBA8 image where each texel takes its right
   neighbour's channels rotated (g, b, a, r), zeros past the right edge. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define W 24
#define H 10

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

static int clampi(int v, int n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

int main(void) {
    static float src[H][W], dst[W][H];
    static uint8_t rgba[H][W][4], rgba_out[H][W][4];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            src[y][x] = (float)((x * 17 + y * 29) % 41) * 0.5f - 7.0f;
            for (int c = 0; c < 4; c++) rgba[y][x][c] = (uint8_t)((x * 31 + y * 7 + c * 67 + 3) % 256);
        }
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float s = 0.0f;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) s += src[clampi(y + dy, H)][clampi(x + dx, W)];
            dst[x][y] = s / 9.0f;
            for (int c = 0; c < 4; c++)
                rgba_out[y][x][c] = x + 1 < W ? rgba[y][x + 1][(c + 1) % 4] : 0;
        }
    write_file("src.bin", src, sizeof src);
    write_file("rgba.bin", rgba, sizeof rgba);
    write_file("dst.expected.bin", dst, sizeof dst);
    write_file("rgba_out.expected.bin", rgba_out, sizeof rgba_out);
    return 0;
}
