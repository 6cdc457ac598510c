/* CPU reference for fast_math: exact functions in double precision, rounded to
 * float. The tolerances in sample.json cover the fast intrinsics' error bounds. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 2048
#define PI_F 3.14159265f

static uint32_t rng = 0xC0FFEEu;
static uint32_t xorshift32(void) {
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5; return rng;
}
static double unif(void) { return (double)(xorshift32() >> 8) / 16777216.0; }
static float uniform(float lo, float hi) { return (float)(lo + (hi - lo) * unif()); }

static void write_f32(const char* name, const float* p, int n) {
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, sizeof(float), n, f) != (size_t)n) { perror(name); exit(1); }
    fclose(f);
}

static float x[N], ang[N], pos[N], den[N];
static float r_exp[N], r_sin[N], r_log[N], r_div[N], r_sig[N];

int main(void) {
    for (int i = 0; i < N; i++) {
        x[i] = uniform(-8.0f, 8.0f);
        ang[i] = uniform(-3.14159f, 3.14159f);
        pos[i] = (float)pow(10.0, -3.0 + 6.0 * unif());
        float d = (float)pow(10.0, -2.0 + 4.0 * unif());
        den[i] = (xorshift32() & 1) ? -d : d;
    }
    x[0] = 0.0f; x[1] = 1.0f; x[2] = -8.0f; x[3] = 8.0f;
    ang[0] = 0.0f; ang[1] = 1.5707964f; ang[2] = -1.5707964f; ang[3] = 3.14159f;
    pos[0] = 1.0f; pos[1] = 0.5f; pos[2] = 2.0f; pos[3] = 1000.0f;

    for (int i = 0; i < N; i++) {
        r_exp[i] = (float)exp((double)x[i]);
        r_sin[i] = (float)sin((double)ang[i]);
        r_log[i] = (float)log((double)pos[i]);
        r_div[i] = (float)((double)x[i] / (double)den[i]);
        r_sig[i] = (float)(1.0 / (1.0 + exp(-(double)x[i])));
    }
    write_f32("x.bin", x, N); write_f32("ang.bin", ang, N);
    write_f32("pos.bin", pos, N); write_f32("den.bin", den, N);
    write_f32("exp.expected.bin", r_exp, N);
    write_f32("sin.expected.bin", r_sin, N);
    write_f32("log.expected.bin", r_log, N);
    write_f32("div.expected.bin", r_div, N);
    write_f32("sigmoid.expected.bin", r_sig, N);
    return 0;
}
