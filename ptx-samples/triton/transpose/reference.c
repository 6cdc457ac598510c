/* CPU reference for transpose: in is 96x80 f32 (row-major), out is 80x96 with out[n][m] = in[m][n]. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M 96
#define N 80

static uint32_t rng = 0x0DDBA11u;
static uint32_t xorshift32(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void write_file(const char *path, const void *data, size_t bytes) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, bytes, f) != bytes) { perror(path); exit(1); }
    fclose(f);
}

int main(void) {
    static float in[M][N], out[N][M];
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            /* arbitrary finite bit patterns: any float value must move unchanged */
            uint32_t bits = xorshift32();
            if (((bits >> 23) & 0xffu) == 0xffu) bits &= ~0x00800000u;
            memcpy(&in[m][n], &bits, 4);
        }
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) out[n][m] = in[m][n];
    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
