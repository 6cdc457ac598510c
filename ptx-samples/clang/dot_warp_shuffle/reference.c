/* CPU reference for clang dot_warp_shuffle: result = sum a[i] * b[i] over 10000 int32 pairs in
 * [-100, 100]. |result| < 10^8, no overflow; integer sums are exact whatever the order. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint32_t rng = 0x0BADF00Du;
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

#define N 10000

int main(void) {
    static int32_t a[N], b[N];
    int32_t result = 0;
    for (int i = 0; i < N; i++) a[i] = (int32_t)(xorshift32() % 201u) - 100;
    for (int i = 0; i < N; i++) b[i] = (int32_t)(xorshift32() % 201u) - 100;
    for (int i = 0; i < N; i++) result += a[i] * b[i];
    write_file("a.bin", a, sizeof a);
    write_file("b.bin", b, sizeof b);
    write_file("result.expected.bin", &result, sizeof result);
    return 0;
}
