/* CPU reference for texture_fetch, written from the CUDA Programming Guide's
   "Texture Fetching" appendix:
   - nearest-point sampling: tex(x, y) = T[floor(x), floor(y)];
   - linear filtering: xB = x - 0.5, yB = y - 0.5, i = floor(xB),
     j = floor(yB), alpha = frac(xB), beta = frac(yB), each weight held in
     9-bit fixed point with 8 fraction bits (round(frac * 256) / 256), and
     tex = (1-a)(1-b)T[i,j] + a(1-b)T[i+1,j] + (1-a)b T[i,j+1] + ab T[i+1,j+1];
   - normalized coordinates are scaled by the size; wrap replaces x by
     frac(x), mirror by frac(x) or 1 - frac(x) as floor(x) is even or odd;
   - a texel index outside the image is clamped to the edge (clamp), taken
     modulo the size (wrap), reflected (mirror), or reads the border colour
     (border);
   - tex1Dfetch reads zero outside the buffer; u8 texels read as normalized
     floats are v / 255.
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

/* Coordinate in texels: normalized ones scaled after wrap/mirror. */
static float coord(float c, int n, int mode, int norm) {
    if (!norm) return c;
    float f = floorf(c);
    if (mode == WRAP) c = c - f;
    if (mode == MIRROR) c = (fmodf(f, 2.0f) == 0.0f) ? c - f : 1.0f - (c - f);
    return c * (float)n;
}

static float weight9(float frac) { return roundf(frac * 256.0f) / 256.0f; }

static float sample(float x, float y, int linear, int mode, int norm) {
    x = coord(x, W, mode, norm);
    y = coord(y, H, mode, norm);
    if (!linear) return texel((int)floorf(x), (int)floorf(y), mode);
    float xb = x - 0.5f, yb = y - 0.5f;
    int i = (int)floorf(xb), j = (int)floorf(yb);
    float a = weight9(xb - floorf(xb)), b = weight9(yb - floorf(yb));
    float r = 0.0f;
    r += (1.0f - a) * (1.0f - b) * texel(i, j, mode);
    r += a * (1.0f - b) * texel(i + 1, j, mode);
    r += (1.0f - a) * b * texel(i, j + 1, mode);
    r += a * b * texel(i + 1, j + 1, mode);
    return r;
}

static float rgba_texel(int x, int y, int c) {
    x = address(x, RW, CLAMP);
    y = address(y, RH, CLAMP);
    return (float)rgba[y][x][c] / 255.0f;
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
        float x = px * 0.5f - 0.5f, y = py - 0.5f;
        int ii = (int)floorf(x), jj = (int)floorf(y);
        float a = weight9(x - floorf(x)), b = weight9(y - floorf(y));
        for (int c = 0; c < 4; c++) {
            float r = 0.0f;
            r += (1.0f - a) * (1.0f - b) * rgba_texel(ii, jj, c);
            r += a * (1.0f - b) * rgba_texel(ii + 1, jj, c);
            r += (1.0f - a) * b * rgba_texel(ii, jj + 1, c);
            r += a * b * rgba_texel(ii + 1, jj + 1, c);
            out4[i][c] = r;
        }
    }
    write_file("img.bin", img, sizeof img);
    write_file("lin.bin", lin, sizeof lin);
    write_file("rgba.bin", rgba, sizeof rgba);
    write_file("out.expected.bin", out, sizeof out);
    write_file("out4.expected.bin", out4, sizeof out4);
    return 0;
}
