/* CPU reference for barrier_memcpy_async: BLOCKS blocks of 256 threads, each
   summing its TILES tiles of 256 floats: for tile t, thread i adds
   in[t][255 - i] * (t + 1) and then 0.5 * in[t][i]. Inputs are small integers,
   so every sum is exact. The arrival counts: rounds 0 and 1 see 128 and 256
   arrivals; thread 255 drops out in round 2, so the others see 383 and 510;
   thread 255's slots for rounds 2 and 3 keep the -1 the output started with. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCKS 6
#define TILE 256
#define TILES 4
#define ROUNDS 4

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static float in[BLOCKS * TILES * TILE], out[BLOCKS * TILE];
    static int32_t seen[BLOCKS * 128 * ROUNDS];
    for (int i = 0; i < BLOCKS * TILES * TILE; i++) in[i] = (float)((i * 7) % 13 - 6);
    for (int b = 0; b < BLOCKS; b++) {
        for (int i = 0; i < TILE; i++) {
            float acc = 0.f;
            for (int t = 0; t < TILES; t++) {
                const float *tile = in + (b * TILES + t) * TILE;
                acc += tile[TILE - 1 - i] * (float)(t + 1);
                acc += 0.5f * tile[i];
            }
            out[b * TILE + i] = acc;
        }
        for (int i = 0; i < 128; i++) {
            int32_t *s = seen + (b * 128 + i) * ROUNDS;
            s[0] = 128;
            s[1] = 256;
            s[2] = i == 127 ? -1 : 383;
            s[3] = i == 127 ? -1 : 510;
        }
    }
    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    write_file("seen.expected.bin", seen, sizeof seen);
    /* the output buffer for `seen` starts as all -1 */
    for (int i = 0; i < BLOCKS * 128 * ROUNDS; i++) seen[i] = -1;
    write_file("seen.init.bin", seen, sizeof seen);
    return 0;
}
