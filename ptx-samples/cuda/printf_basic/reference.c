/* CPU reference for printf_basic: replays the kernel's control flow in the
 * canonical order (block, then thread, then call order) and formats every line
 * with C's printf, which CUDA's device printf follows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define GRID 2
#define BLOCK 48
#define BASE 777
#define SCALE 0.1f
#define BIG 1234567890123LL

int main(void) {
    FILE* out = fopen("stdout.expected.txt", "w");
    if (!out) { perror("stdout.expected.txt"); return 1; }
    const int base = BASE;
    const float scale = SCALE;
    const long long big = BIG;
    for (int bid = 0; bid < GRID; bid++) {
        for (int tid = 0; tid < BLOCK; tid++) {
            int gid = bid * BLOCK + tid;
            if (gid == 0)
                fprintf(out, "header: %s %c%c %.3s|%10s|%-10s|%%\n", "warpjit", 'o', 'k', "abcdef", "right", "left");
            if (tid % 16 == 5) {
                int v = base - gid * 37;
                const char* tag = (tid < 16) ? "low" : (tid < 32) ? "mid" : "high";
                fprintf(out, "[%d:%2d] d=%d i=%i u=%u x=%x X=%X o=%o c=%c s=%s\n",
                        bid, tid, v, v * 3, (unsigned)v, (unsigned)v, (unsigned)(v * 1000),
                        (unsigned)gid, 'A' + tid % 26, tag);
                float f = scale * (float)gid;
                float g = f / 3.0f;
                double r = sqrt((double)(gid + 1));
                fprintf(out, "  f=%f w=[%-8.3f] e=%e E=%.2E g=%g G=%G r=%.10f p=%5.1f%%\n",
                        f, -g, f, g * 1000.0f, r, r * 1e-7, r, g);
            } else if (bid == 1 && tid == 40) {
                short h = (short)(-1234 - base);
                unsigned short hu = (unsigned short)(65000 + base % 100);
                long l = -(long)big / 3;
                unsigned long lu = (unsigned long)big * 5ul;
                fprintf(out, "  ll=%lld llu=%llu llx=%llx l=%ld lu=%lu hd=%hd hu=%hu\n",
                        -big, (unsigned long long)big * 3ull, (unsigned long long)big, l, lu, h, hu);
                fprintf(out, "  |%5d|%-5d|%05d|%08x|%#x|%#o|%+d|% d|%+.3e|%10.4g|\n",
                        base, base, -base, 0xBEEFu + base, 255u, 8u, base, base, -1.5e-5, 2.0 / 3.0);
            }
        }
    }
    fclose(out);
    return 0;
}
