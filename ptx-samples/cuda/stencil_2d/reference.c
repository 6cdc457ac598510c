/* CPU reference for stencil_2d: one Jacobi sweep of -lap(u) = f on a 70x50
 * grid (row-major, nx columns, ny rows). Interior:
 *   unew = 0.25 * ((((up + down) + left) + right) + h2 * f)
 * evaluated in float in that order; CUDA contracts `sum + h2 * f` into one
 * fma, which the reference writes as fmaf. Boundary cells are copied.
 * Bit-identical to a correct GPU run. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 70
#define NY 50
#define H2 0.0025f

static uint32_t rng = 0xdeadbeefu;
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
    static float u[NY * NX], f[NY * NX], unew[NY * NX];
    for (int k = 0; k < NX * NY; k++) u[k] = frand01();
    for (int k = 0; k < NX * NY; k++) f[k] = frand01() * 20.0f - 10.0f;

    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            int k = j * NX + i;
            if (i == 0 || j == 0 || i == NX - 1 || j == NY - 1) {
                unew[k] = u[k];
            } else {
                float sum = u[k - NX] + u[k + NX] + u[k - 1] + u[k + 1];
                unew[k] = 0.25f * fmaf(H2, f[k], sum);
            }
        }

    write_file("u.bin", u, sizeof u);
    write_file("f.bin", f, sizeof f);
    write_file("unew.expected.bin", unew, sizeof unew);
    return 0;
}
