/* CPU reference for attention_small: causal softmax attention, 2 heads, 64 positions, head dim 32,
 * fp16 Q, K, V in [-1, 1]; O[h][i] = sum_{j<=i} softmax_j(Q[h][i].K[h][j] / sqrt(32)) V[h][j],
 * computed in double from the fp16 inputs, rounded to fp16 (nearest even). The kernel rounds the
 * probabilities to fp16 before the P.V product, hence the 1e-2-scale tolerance. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define H 2
#define S 64
#define D 32

static uint32_t rng = 0xA77E7710u;
static uint32_t xorshift32(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}
static float uniform(float lo, float hi) { return lo + (hi - lo) * (float)(xorshift32() >> 8) * (1.0f / 16777216.0f); }

/* IEEE binary32 -> binary16, round to nearest even. */
static uint16_t f32_to_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    if (a >= 0x7f800000u) return (uint16_t)(sign | (a > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
    if (a < 0x38800000u) {
        float af;
        memcpy(&af, &a, 4);
        return (uint16_t)(sign | (uint32_t)nearbyintf(af * 16777216.0f));
    }
    uint32_t h = ((((a >> 23) - 127 + 15) << 10) | ((a & 0x7fffffu) >> 13));
    uint32_t rem = a & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;
    return (uint16_t)(sign | h);
}
static float f16_to_f32(uint16_t h) {
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    float v = e == 0 ? ldexpf((float)m, -24) : ldexpf((float)(m | 0x400u), (int)e - 25);
    return (h & 0x8000u) ? -v : v; /* no inf/nan among the inputs */
}

static void write_file(const char *path, const void *data, size_t bytes) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, bytes, f) != bytes) { perror(path); exit(1); }
    fclose(f);
}

static uint16_t qh[H][S][D], kh[H][S][D], vh[H][S][D], oh[H][S][D];

static void fill(uint16_t t[H][S][D]) {
    for (int h = 0; h < H; h++)
        for (int i = 0; i < S; i++)
            for (int d = 0; d < D; d++) t[h][i][d] = f32_to_f16(uniform(-1.0f, 1.0f));
}

int main(void) {
    fill(qh);
    fill(kh);
    fill(vh);
    const double scale = 1.0 / sqrt((double)D);
    for (int h = 0; h < H; h++)
        for (int i = 0; i < S; i++) {
            double s[S], m = -INFINITY, l = 0.0;
            for (int j = 0; j <= i; j++) {
                double dot = 0.0;
                for (int d = 0; d < D; d++) dot += (double)f16_to_f32(qh[h][i][d]) * f16_to_f32(kh[h][j][d]);
                s[j] = dot * scale;
                if (s[j] > m) m = s[j];
            }
            for (int j = 0; j <= i; j++) {
                s[j] = exp(s[j] - m);
                l += s[j];
            }
            for (int d = 0; d < D; d++) {
                double o = 0.0;
                for (int j = 0; j <= i; j++) o += s[j] * f16_to_f32(vh[h][j][d]);
                oh[h][i][d] = f32_to_f16((float)(o / l));
            }
        }
    write_file("q.bin", qh, sizeof qh);
    write_file("k.bin", kh, sizeof kh);
    write_file("v.bin", vh, sizeof vh);
    write_file("out.expected.bin", oh, sizeof oh);
    return 0;
}
