// CPU reference for cas_loop: the operations the CAS loops implement, applied serially.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 2048
#define BUCKETS 32

static uint32_t rng = 0xBADC0FFEu;
static uint32_t xorshift32(void) {
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5;
    return rng;
}

static void write_file(const char* name, const void* p, size_t bytes) {
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static float vals[N];
    static int32_t ivals[N], bucket_of[N];
    int32_t limits[BUCKETS];
    for (int i = 0; i < N; i++) {
        vals[i] = (float)((int32_t)(xorshift32() % 2000001u) - 1000000) * 1e-4f;
        ivals[i] = (int32_t)(xorshift32() % 2001u) - 1000;
        bucket_of[i] = (int32_t)(xorshift32() % BUCKETS);
    }
    for (int b = 0; b < BUCKETS; b++) limits[b] = 20 + (int32_t)(xorshift32() % 81u);
    write_file("vals.bin", vals, sizeof vals);
    write_file("ivals.bin", ivals, sizeof ivals);
    write_file("bucket_of.bin", bucket_of, sizeof bucket_of);
    write_file("limits.bin", limits, sizeof limits);

    float gmax[16];
    double gmin[8];
    for (int g = 0; g < 16; g++) gmax[g] = -INFINITY;
    for (int g = 0; g < 8; g++) gmin[g] = INFINITY;
    write_file("gmax.in.bin", gmax, sizeof gmax);
    write_file("gmin.in.bin", gmin, sizeof gmin);

    double dsum = 0.0;  // sum of multiples of 1/1024 with small magnitude: exact
    int32_t fill[BUCKETS] = {0}, granted[BUCKETS] = {0};
    uint16_t cnt16[BUCKETS] = {0};
    for (int i = 0; i < N; i++) {
        float v = vals[i];
        int g = (i * 7) & 15;
        if (v > gmax[g]) gmax[g] = v;
        double d = (double)ivals[i] * (1.0 / 1024.0);
        double m = d - (double)(i & 3);
        if (m < gmin[i & 7]) gmin[i & 7] = m;
        dsum += d;
        int b = bucket_of[i];
        int inc = 1 + (b & 1);
        if (fill[b] + inc <= limits[b]) { fill[b] += inc; granted[b]++; }
        cnt16[b]++;
    }
    write_file("gmax.expected.bin", gmax, sizeof gmax);
    write_file("gmin.expected.bin", gmin, sizeof gmin);
    write_file("dsum.expected.bin", &dsum, sizeof dsum);
    write_file("fill.expected.bin", fill, sizeof fill);
    write_file("granted.expected.bin", granted, sizeof granted);
    write_file("cnt16.expected.bin", cnt16, sizeof cnt16);
    return 0;
}
