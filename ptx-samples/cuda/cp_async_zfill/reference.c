/* CPU reference for cp_async_zfill: BLOCKS blocks of 128 threads over N
   floats. Block b's quad tile holds in[b*512 + 4t .. +4] for each thread t
   whose quad lies inside N, zeros for the others; its one tile holds
   in[b*128 + t] where that index is below N and not a multiple of 3, zero
   otherwise. out[b*640 + s] = quad[(s + 148) % 512] for s < 512, and
   out[b*640 + 512 + t] = one[(t + 5) % 128]. */
#include <stdio.h>
#include <stdlib.h>

#define BLOCKS 2
#define THREADS 128
#define N 1001

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static float in[N], out[BLOCKS * 5 * THREADS];
    for (int i = 0; i < N; i++) in[i] = (float)(i % 97) + 0.5f;
    for (int b = 0; b < BLOCKS; b++) {
        float quad[4 * THREADS], one[THREADS];
        for (int t = 0; t < THREADS; t++) {
            int i = b * 4 * THREADS + 4 * t;
            for (int k = 0; k < 4; k++) quad[4 * t + k] = i + 4 > N ? 0.0f : in[i + k];
            int j = b * THREADS + t;
            one[t] = (j % 3 != 0 && j < N) ? in[j] : 0.0f;
        }
        float *o = out + b * 5 * THREADS;
        for (int s = 0; s < 4 * THREADS; s++) o[s] = quad[(s + 4 * 37) % (4 * THREADS)];
        for (int t = 0; t < THREADS; t++) o[4 * THREADS + t] = one[(t + 5) % THREADS];
    }
    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
