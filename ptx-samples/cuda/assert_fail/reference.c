/* Inputs for assert_fail: bin indices in [0, NBINS) except element 101
 * (block 1, thread 37) which is out of range, so the assert in that thread fails.
 * Nothing else is checked: the launch must fail with an assert mentioning the
 * condition "b >= 0 && b < nbins". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 256
#define NBINS 10

static uint32_t rng = 0xBADC0DEu;
static uint32_t xorshift32(void) {
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5; return rng;
}

static void write_bin(const char* name, const void* p, size_t size) {
    FILE* fp = fopen(name, "wb");
    if (!fp || fwrite(p, 1, size, fp) != size) { perror(name); exit(1); }
    fclose(fp);
}

int main(void) {
    int32_t bins[N];
    float values[N];
    for (int i = 0; i < N; i++) {
        bins[i] = (int32_t)(xorshift32() % NBINS);
        values[i] = (float)(xorshift32() % 1000) * 0.25f;
    }
    bins[1 * 64 + 37] = NBINS + 3;   /* the one failing thread */
    write_bin("bins.bin", bins, sizeof bins);
    write_bin("values.bin", values, sizeof values);
    return 0;
}
