// CPU reference for mandelbrot: 64x48 pixels, max 256 iterations, view
// x in [-2.25, 0.75), y in [-1.21875, 1.21875) with dyadic (exact) parameters.
// Plain float arithmetic in the kernel's order: gcc -std=c11 does not contract
// a*b+c into fma (-ffp-contract=off in ISO mode) and x86-64 evaluates float in
// float (FLT_EVAL_METHOD 0), matching the kernel compiled with --fmad=false.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define W 64
#define H 48
#define MAX_ITER 256

static void write_file(const char* name, const void* p, size_t n)
{
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void)
{
    const float x0 = -2.25f, y0 = -1.21875f, dx = 0.046875f, dy = 0.05078125f;
    static uint32_t iters[W * H];
    for (int py = 0; py < H; py++)
        for (int px = 0; px < W; px++) {
            volatile float t; /* keep each rounding step explicit */
            t = (float)px * dx;
            float cx = x0 + t;
            t = (float)py * dy;
            float cy = y0 + t;
            float x = 0.0f, y = 0.0f;
            int it = 0;
            while (it < MAX_ITER) {
                float x2 = x * x, y2 = y * y;
                if (x2 + y2 > 4.0f)
                    break;
                float xy = x * y;
                y = (xy + xy) + cy;
                x = (x2 - y2) + cx;
                it++;
            }
            iters[py * W + px] = (uint32_t)it;
        }
    write_file("iters.expected.bin", iters, sizeof iters);
    return 0;
}
