/* CPU reference for texture_cube, written from the CUDA Programming
   Guide's "Cubemap Textures" section and "Texture Fetching" appendix:
   - a direction (x, y, z) selects the face of its component of largest
     magnitude ma (ties: z before y before x, as Direct3D specifies; the
     directions here have no ties): +x face 0, -x 1, +y 2, -y 3, +z 4,
     -z 5; the face is addressed at s = (sc / |ma| + 1) / 2,
     t = (tc / |ma| + 1) / 2 with (sc, tc) = (-z, -y) on face 0, (z, -y)
     on 1, (x, z) on 2, (x, -z) on 3, (x, -y) on 4, (-x, -y) on 5;
   - (s, t) are normalized coordinates: texel coordinates s * W, t * W;
   - point sampling reads texel (floor(X), floor(Y)); linear filtering
     takes xB = X - 0.5, i = floor(xB), alpha = frac(xB) held in 9-bit
     fixed point (A = floor(alpha * 256 + 1/2)), the four corner weights
     the products rounded to 8 fraction bits (ties to even), summed in
     f32 over the corners (i, j), (i+1, j), (i, j+1), (i+1, j+1) (the
     rule texture_fetch's reference gives, measured on an H100 for 2D);
   - tld4.r reads the red channel of the four texels linear filtering
     would use: (i, j+1), (i+1, j+1), (i+1, j), (i, j);
   - a layered cubemap's cubemap l is layers 6l..6l+5 (l clamped);
   - every texel of a dense array is resident (the sparse-texture flag);
   - a texel offset is added to the texel indices (PTX ISA tex, operand
     e); .f16x2 results pack channels (r, g) and (b, a), r and b low, as
     f16 (exact here: the texels are multiples of 1/2 below 64); a missing
     channel reads 0, alpha 1;
   - surfCubemapread/write address face f as layer f of a layered 2D
     surface (byte x coordinates).
   It writes the input files and the expected outputs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 256
#define W 8
#define LAYERS 3

static float cube[6][W][W], layered[LAYERS * 6][W][W], img[W][W], faces_in[6][W][W];

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

static void dir_at(int i, float d[3]) {
    int face = i % 6;
    float ma = 0.5f + (float)(i % 5) * 0.375f;
    float u = (-0.71875f + (float)((i * 7) % 23) * 0.0625f) * ma;
    float v = (-0.65625f + (float)((i * 5) % 21) * 0.0625f) * ma;
    float s = (face & 1) ? -ma : ma;
    if (face < 2) { d[0] = s; d[1] = u; d[2] = v; }
    else if (face < 4) { d[0] = u; d[1] = s; d[2] = v; }
    else { d[0] = u; d[1] = v; d[2] = s; }
}

/* The face and its texel coordinates (X, Y) for a direction. */
static int face_of(const float d[3], float *X, float *Y) {
    float ax = fabsf(d[0]), ay = fabsf(d[1]), az = fabsf(d[2]), ma, sc, tc;
    int face;
    if (az >= ax && az >= ay) {
        ma = az; face = signbit(d[2]) ? 5 : 4;
        sc = signbit(d[2]) ? -d[0] : d[0]; tc = -d[1];
    } else if (ay >= ax) {
        ma = ay; face = signbit(d[1]) ? 3 : 2;
        sc = d[0]; tc = signbit(d[1]) ? -d[2] : d[2];
    } else {
        ma = ax; face = signbit(d[0]) ? 1 : 0;
        sc = signbit(d[0]) ? d[2] : -d[2]; tc = -d[1];
    }
    float s = (sc / ma + 1.0f) * 0.5f, t = (tc / ma + 1.0f) * 0.5f;
    *X = s * (float)W;
    *Y = t * (float)W;
    return face;
}

static int clampi(int i) { return i < 0 ? 0 : i >= W ? W - 1 : i; }

static float texel(float (*tex)[W][W], int layer, int x, int y) {
    return tex[layer][clampi(y)][clampi(x)];
}

static float point(float (*tex)[W][W], int layer, float X, float Y) {
    return texel(tex, layer, (int)floorf(X), (int)floorf(Y));
}

static void weight(float x, int *i, int *a) {
    float xb = x - 0.5f;
    *i = (int)floorf(xb);
    *a = (int)floor((double)(xb - floorf(xb)) * 256.0 + 0.5);
}

static int round8_even(int p) {
    int q = p >> 8, r = p & 255;
    return (r > 128 || (r == 128 && (q & 1))) ? q + 1 : q;
}

static float linear(float (*tex)[W][W], int layer, float X, float Y) {
    int i, j, a, b;
    weight(X, &i, &a);
    weight(Y, &j, &b);
    float sum = 0.0f;
    for (int c = 0; c < 4; c++) {
        int dx = c & 1, dy = c >> 1;
        int w = round8_even((dx ? a : 256 - a) * (dy ? b : 256 - b));
        sum += (float)w / 256.0f * texel(tex, layer, i + dx, j + dy);
    }
    return sum;
}

int main(void) {
    for (int f = 0; f < 6; f++)
        for (int y = 0; y < W; y++)
            for (int x = 0; x < W; x++) {
                cube[f][y][x] = (float)((f * 37 + y * 11 + x * 5) % 64) * 0.25f - 4.0f;
                faces_in[f][y][x] = (float)(f * 64 + y * 8 + x) * 0.5f;
                for (int l = 0; l < LAYERS; l++)
                    layered[l * 6 + f][y][x] = cube[f][y][x] + 20.0f * (float)l;
            }
    for (int y = 0; y < W; y++)
        for (int x = 0; x < W; x++) img[y][x] = (float)(y * 8 + x) + 0.5f;
    write_file("cube.bin", cube, sizeof cube);
    write_file("layered.bin", layered, sizeof layered);
    write_file("img.bin", img, sizeof img);
    write_file("faces_in.bin", faces_in, sizeof faces_in);

    static float out[8 * N], gather[N][4], faces[6][W][W];
    for (int i = 0; i < N; i++) {
        float d[3], X, Y;
        dir_at(i, d);
        int f = face_of(d, &X, &Y);
        out[0 * N + i] = point(cube, f, X, Y);
        out[1 * N + i] = linear(cube, f, X, Y);
        out[2 * N + i] = linear(cube, f, X, Y);
        out[3 * N + i] = linear(layered, (i % 3) * 6 + f, X, Y);
        float ix = d[0] * 4.0f + 4.0f, iy = d[1] * 4.0f + 4.0f;
        out[4 * N + i] = img[clampi((int)floorf(iy))][clampi((int)floorf(ix))];
        out[5 * N + i] = 1.0f;
        /* The offset (-1, 2) moves the texel index; f16x2: red (low half
           of the first register) plus alpha (1.0, high half of the second). */
        out[6 * N + i] = img[clampi((int)floorf(iy) + 2)][clampi((int)floorf(ix) - 1)];
        out[7 * N + i] = out[4 * N + i] + 1.0f;
        int gi, gj, ga, gb;
        weight(X, &gi, &ga);
        weight(Y, &gj, &gb);
        gather[i][0] = texel(cube, f, gi, gj + 1);
        gather[i][1] = texel(cube, f, gi + 1, gj + 1);
        gather[i][2] = texel(cube, f, gi + 1, gj);
        gather[i][3] = texel(cube, f, gi, gj);
    }
    for (int f = 0; f < 6; f++)
        for (int y = 0; y < W; y++)
            for (int x = 0; x < W; x++)
                faces[f][y][x] = faces_in[5 - f][y][7 - x] + 100.0f * (float)f;
    write_file("out.expected.bin", out, sizeof out);
    write_file("gather.expected.bin", gather, sizeof gather);
    write_file("faces.expected.bin", faces, sizeof faces);
    return 0;
}
