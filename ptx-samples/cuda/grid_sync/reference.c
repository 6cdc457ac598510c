/* CPU reference for grid_sync: a[k] = 3k + 1, b[k] = a[k] + a[(k + 1) % n],
   total = sum of b + blocks * 1000000, for n = 10000 over 12 blocks of 256. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 10000
#define BLOCKS 12

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static int32_t a[N], b[N];
    int64_t total = 0;
    for (int k = 0; k < N; k++) a[k] = 3 * k + 1;
    for (int k = 0; k < N; k++) {
        b[k] = a[k] + a[(k + 1) % N];
        total += b[k];
    }
    total += (int64_t)BLOCKS * 1000000;
    write_file("a.expected.bin", a, sizeof a);
    write_file("b.expected.bin", b, sizeof b);
    write_file("total.expected.bin", &total, sizeof total);
    return 0;
}
