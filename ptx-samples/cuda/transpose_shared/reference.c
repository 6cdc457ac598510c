/* CPU reference for transpose_shared: out (width x height) = transpose of
 * in (height x width), both row-major float. Pure data movement: exact. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WIDTH 70
#define HEIGHT 100

static uint32_t rng = 0x2545f491u;
static uint32_t xorshift32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void write_file(const char *name, const void *p, size_t bytes)
{
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

int main(void)
{
    static float in[HEIGHT * WIDTH], out[WIDTH * HEIGHT];
    /* value encodes its position (row*1000 + col) plus a random fraction */
    for (int r = 0; r < HEIGHT; r++)
        for (int c = 0; c < WIDTH; c++)
            in[r * WIDTH + c] = (float)(r * 1000 + c) + (float)(xorshift32() >> 24) / 256.0f;

    for (int r = 0; r < HEIGHT; r++)
        for (int c = 0; c < WIDTH; c++)
            out[c * HEIGHT + r] = in[r * WIDTH + c];

    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
