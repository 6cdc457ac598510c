// Device printf from a few threads of two blocks, in divergent branches, with
// most conversion specifiers, flags, widths, precisions and length modifiers.
extern "C" __global__ void printf_basic(int base, float scale, long long big)
{
    int tid = threadIdx.x;
    int bid = blockIdx.x;
    int gid = bid * blockDim.x + tid;

    if (gid == 0)
        printf("header: %s %c%c %.3s|%10s|%-10s|%%\n", "warpjit", 'o', 'k', "abcdef", "right", "left");

    if (tid % 16 == 5) {
        int v = base - gid * 37;
        const char* tag = (tid < 16) ? "low" : (tid < 32) ? "mid" : "high";
        printf("[%d:%2d] d=%d i=%i u=%u x=%x X=%X o=%o c=%c s=%s\n",
               bid, tid, v, v * 3, (unsigned)v, (unsigned)v, (unsigned)(v * 1000),
               (unsigned)gid, 'A' + tid % 26, tag);
        float f = scale * (float)gid;
        float g = f / 3.0f;
        double r = sqrt((double)(gid + 1));
        printf("  f=%f w=[%-8.3f] e=%e E=%.2E g=%g G=%G r=%.10f p=%5.1f%%\n",
               f, -g, f, g * 1000.0f, r, r * 1e-7, r, g);
    } else if (bid == 1 && tid == 40) {
        short h = (short)(-1234 - base);
        unsigned short hu = (unsigned short)(65000 + base % 100);
        long l = -(long)big / 3;
        unsigned long lu = (unsigned long)big * 5ul;
        printf("  ll=%lld llu=%llu llx=%llx l=%ld lu=%lu hd=%hd hu=%hu\n",
               -big, (unsigned long long)big * 3ull, (unsigned long long)big, l, lu, h, hu);
        printf("  |%5d|%-5d|%05d|%08x|%#x|%#o|%+d|% d|%+.3e|%10.4g|\n",
               base, base, -base, 0xBEEFu + base, 255u, 8u, base, base, -1.5e-5, 2.0 / 3.0);
    }
}
