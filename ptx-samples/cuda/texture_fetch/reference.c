/* CPU reference for texture_fetch, written from the CUDA Programming Guide's
   "Texture Fetching" appendix:
   - nearest-point sampling: tex(x, y) = T[floor(x), floor(y)];
   - linear filtering: xB = x - 0.5, yB = y - 0.5, i = floor(xB),
     j = floor(yB), alpha = frac(xB), beta = frac(yB), each weight held in
     9-bit fixed point with 8 fraction bits (A = floor(frac * 256 + 1/2)),
     tex = sum of W T over the corners, W the products (256-A)(256-B),
     A(256-B), (256-A)B, AB rounded to 8 fraction bits (ties to even), as an
     H100 was measured to do (ptx-samples/hw/h100-gpucheck.json);
   - normalized coordinates are scaled by the size, and wrap and mirror act
     on the texel indices (as the H100 does);
   - a texel index outside the image is clamped to the edge (clamp), taken
     modulo the size (wrap), reflected (mirror), or reads the border colour
     (border);
   - tex1Dfetch reads zero outside the buffer; u8 texels read as normalized
     floats are filtered as 16-bit unorm values v * 257: the sum of W T16 /
     256 rounds to a 16-bit unorm u, read as u / 65535.0f (the H100's).
   It writes the textures' input files and the expected outputs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 256
#define W 13
#define H 8
#define LIN 200
#define RW 8
#define RH 8

enum { CLAMP, WRAP, MIRROR, BORDER };

static float img[H][W], lin[LIN], border_colour = 0.5f;
static uint8_t rgba[RH][RW][4];

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

/* A texel index under an address mode; -1 for a border texel. */
static int address(int i, int n, int mode) {
    switch (mode) {
    case CLAMP: return i < 0 ? 0 : i >= n ? n - 1 : i;
    case WRAP: return ((i % n) + n) % n;
    case MIRROR: {
        int p = ((i % (2 * n)) + 2 * n) % (2 * n);
        return p >= n ? 2 * n - 1 - p : p;
    }
    default: return i < 0 || i >= n ? -1 : i;
    }
}

static float texel(int x, int y, int mode) {
    int i = address(x, W, mode), j = address(y, H, mode);
    if (i < 0 || j < 0) return border_colour;
    return img[j][i];
}

/* Coordinate in texels: normalized ones scaled by the size. */
static float coord(float c, int n, int norm) { return norm ? c * (float)n : c; }

/* The 9-bit weight 0..256 of frac(xb), rounded to nearest, ties up. */
static int weight9(double frac) { return (int)floor(frac * 256.0 + 0.5); }

/* w / 256 rounded to nearest, ties to even. */
static long rne8(long w) {
    long q = w >> 8, r = w & 255;
    return r > 128 || (r == 128 && (q & 1)) ? q + 1 : q;
}

/* The four corner weights (units 1/256) of fractions a, b (units 1/256). */
static void weights(int a, int b, long w[4]) {
    w[0] = rne8((long)(256 - a) * (256 - b));
    w[1] = rne8((long)a * (256 - b));
    w[2] = rne8((long)(256 - a) * b);
    w[3] = rne8((long)a * b);
}

static float sample(float x, float y, int linear, int mode, int norm) {
    x = coord(x, W, norm);
    y = coord(y, H, norm);
    if (!linear) return texel((int)floorf(x), (int)floorf(y), mode);
    double xb = (double)x - 0.5, yb = (double)y - 0.5;
    int i = (int)floor(xb), j = (int)floor(yb);
    long w[4];
    weights(weight9(xb - floor(xb)), weight9(yb - floor(yb)), w);
    float r = 0.0f;
    r += (float)w[0] / 256.0f * texel(i, j, mode);
    r += (float)w[1] / 256.0f * texel(i + 1, j, mode);
    r += (float)w[2] / 256.0f * texel(i, j + 1, mode);
    r += (float)w[3] / 256.0f * texel(i + 1, j + 1, mode);
    return r;
}

static long rgba_texel16(int x, int y, int c) {
    x = address(x, RW, CLAMP);
    y = address(y, RH, CLAMP);
    return (long)rgba[y][x][c] * 257;
}

int main(void) {
    static float out[7][N], out4[N][4];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) img[y][x] = (float)((x * 37 + y * 101) % 97) * 0.25f - 5.0f;
    for (int i = 0; i < LIN; i++) lin[i] = (float)(i * 13 % 51) - 17.5f;
    for (int y = 0; y < RH; y++)
        for (int x = 0; x < RW; x++)
            for (int c = 0; c < 4; c++) rgba[y][x][c] = (uint8_t)((x * 29 + y * 53 + c * 71) % 256);
    for (int i = 0; i < N; i++) {
        float px = -3.0f + (float)i * 0.0859375f, py = -2.0f + (float)(i * 7 % N) * 0.046875f;
        float qx = -1.25f + (float)i * 0.013671875f, qy = -0.6f + (float)(i * 11 % N) * 0.009765625f;
        int k = i - 8;
        out[0][i] = k >= 0 && k < LIN ? lin[k] : 0.0f;
        out[1][i] = sample(px, py, 0, CLAMP, 0);
        out[2][i] = sample(px, py, 1, CLAMP, 0);
        out[3][i] = sample(px, py, 1, BORDER, 0);
        out[4][i] = sample(qx, qy, 1, WRAP, 1);
        out[5][i] = sample(qx, qy, 0, MIRROR, 1);
        out[6][i] = sample(qx, qy, 1, MIRROR, 1);
        /* The u8x4 texture, linear, clamp, normalized-float reads. */
        double x = (double)(px * 0.5f) - 0.5, y = (double)py - 0.5;
        int ii = (int)floor(x), jj = (int)floor(y);
        long w[4];
        weights(weight9(x - floor(x)), weight9(y - floor(y)), w);
        for (int c = 0; c < 4; c++) {
            long s = w[0] * rgba_texel16(ii, jj, c) + w[1] * rgba_texel16(ii + 1, jj, c) +
                     w[2] * rgba_texel16(ii, jj + 1, c) + w[3] * rgba_texel16(ii + 1, jj + 1, c);
            out4[i][c] = (float)((s + 128) >> 8) / 65535.0f;
        }
    }
    write_file("img.bin", img, sizeof img);
    write_file("lin.bin", lin, sizeof lin);
    write_file("rgba.bin", rgba, sizeof rgba);
    write_file("out.expected.bin", out, sizeof out);
    write_file("out4.expected.bin", out4, sizeof out4);
    return 0;
}
