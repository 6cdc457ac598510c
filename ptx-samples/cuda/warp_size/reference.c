/* CPU reference for warp_size: out[i] = lane + 100 * warp + 10000 * warps + 1000000 * 32
   for 1000 ints in blocks of 160 threads (warp = tid / 32, lane = tid % 32, 5 warps). */
#include <stdint.h>
#include <stdio.h>

#define N 1000
#define BLOCK 160

int main(void) {
    static int32_t out[N];
    for (int i = 0; i < N; i++) {
        int t = i % BLOCK;
        out[i] = t % 32 + 100 * (t / 32) + 10000 * ((BLOCK + 31) / 32) + 1000000 * 32;
    }
    FILE *f = fopen("out.expected.bin", "wb");
    if (!f || fwrite(out, 1, sizeof out, f) != sizeof out) { perror("out.expected.bin"); return 1; }
    fclose(f);
    return 0;
}
