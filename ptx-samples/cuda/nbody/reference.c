/* CPU reference for nbody: softened gravitational acceleration (G = 1),
 *   a_i = sum_j m_j (p_j - p_i) / (|p_j - p_i|^2 + eps2)^(3/2),
 * computed in double precision (the j = i term is zero). The GPU computes in
 * float with rsqrtf (rsqrt.approx, <= 2 ulp) and a 500-term float sum, so the
 * comparison needs a tolerance; see sample.json. The reference prints the
 * largest per-component sum of |terms| (the scale of the summation error). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 500
#define EPS2 0.01f

static uint32_t rng = 0xbb67ae85u;
static uint32_t xorshift32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}
static float frand01(void) { return (float)(xorshift32() >> 8) / 16777216.0f; }

static void write_file(const char *name, const void *p, size_t bytes)
{
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

int main(void)
{
    static float pos[N * 4];  /* float4: x y z mass */
    static float acc[N * 3];  /* float3 */
    double max_abs_sum = 0.0, max_acc = 0.0;

    for (int i = 0; i < N; i++) {
        pos[4 * i + 0] = frand01() * 2.0f - 1.0f;
        pos[4 * i + 1] = frand01() * 2.0f - 1.0f;
        pos[4 * i + 2] = frand01() * 2.0f - 1.0f;
        pos[4 * i + 3] = 0.5f + frand01();
    }

    for (int i = 0; i < N; i++) {
        double a[3] = {0, 0, 0}, abs_sum[3] = {0, 0, 0};
        for (int j = 0; j < N; j++) {
            double r[3];
            for (int c = 0; c < 3; c++) r[c] = (double)pos[4 * j + c] - (double)pos[4 * i + c];
            double d2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + (double)EPS2;
            double s = (double)pos[4 * j + 3] / (d2 * sqrt(d2));
            for (int c = 0; c < 3; c++) {
                a[c] += r[c] * s;
                abs_sum[c] += fabs(r[c] * s);
            }
        }
        for (int c = 0; c < 3; c++) {
            acc[3 * i + c] = (float)a[c];
            if (abs_sum[c] > max_abs_sum) max_abs_sum = abs_sum[c];
            if (fabs(a[c]) > max_acc) max_acc = fabs(a[c]);
        }
    }
    printf("nbody: max sum|term| = %g, max |a| = %g\n", max_abs_sum, max_acc);

    write_file("pos.bin", pos, sizeof pos);
    write_file("accel.expected.bin", acc, sizeof acc);
    return 0;
}
