/* CPU reference for histogram_atomic: count of each byte value 0..255 in the
 * input. The final counts do not depend on the order of the atomic adds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 40000

static uint32_t rng = 0x0badf00du;
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
    static uint8_t data[N];
    uint32_t hist[256] = {0};

    /* skewed data: a quarter of the bytes hit a few hot bins (contended
     * atomics), the rest are uniform; some bins stay empty */
    for (int i = 0; i < N; i++) {
        uint32_t r = xorshift32();
        if ((r & 3) == 0)
            data[i] = (uint8_t)(0x41 + ((r >> 8) % 4)); /* 'A'..'D' */
        else
            data[i] = (uint8_t)((r >> 8) % 240);         /* 240..255 never */
    }
    for (int i = 0; i < N; i++) hist[data[i]]++;

    write_file("data.bin", data, sizeof data);
    write_file("hist.expected.bin", hist, sizeof hist);
    return 0;
}
