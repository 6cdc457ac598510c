/* CPU reference for mbarrier_phases: BLOCKS blocks of 96 threads.
   Per block: out[0] = 96 (every phase-0 state's pending count is at most the
   96 arrivals expected); out[1] = 10 (the noComplete arrival leaves bar2's
   phase open: 0, the last arrival completes it: 10); out[2] = 64 (the threads
   of warps 0 and 1 all get through phases 2 and 3 after warp 2 dropped out);
   out[3] = 0: inval leaves both objects' words non-zero (the ISA leaves the
   contents undefined; an H100 does not clear them, ptx-samples/hw/h100-gpucheck.json).
   per_thread[t] = data[(7t) % 256] + data[255 - t] with data = 3 * in. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCKS 3
#define THREADS 96

static void write_file(const char *name, const void *p, size_t n) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

int main(void) {
    static uint32_t in[BLOCKS * 256], out[BLOCKS * 4], per_thread[BLOCKS * THREADS];
    for (int i = 0; i < BLOCKS * 256; i++) in[i] = (uint32_t)(i * 2654435761u) >> 8;
    for (int b = 0; b < BLOCKS; b++) {
        out[b * 4 + 0] = THREADS;
        out[b * 4 + 1] = 10;
        out[b * 4 + 2] = 64;
        out[b * 4 + 3] = 0;
        const uint32_t *d = in + b * 256;
        for (int t = 0; t < THREADS; t++)
            per_thread[b * THREADS + t] = 3u * d[(t * 7) % 256] + 3u * d[255 - t];
    }
    write_file("in.bin", in, sizeof in);
    write_file("out.expected.bin", out, sizeof out);
    write_file("per_thread.expected.bin", per_thread, sizeof per_thread);
    return 0;
}
