// CPU reference for int64_ops: 200 (a, b, c) triples of 64-bit integers,
// 34 results each. High halves of products use gcc's __int128.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 200
#define NOPS 34

static uint32_t rng = 0x9E3779B9u;
static uint32_t xorshift32(void)
{
    uint32_t x = rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng = x;
}
static uint64_t rand64(void) { uint64_t hi = xorshift32(); return hi << 32 | xorshift32(); }

static void write_file(const char* name, const void* p, size_t n)
{
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

static int64_t sar64(int64_t v, unsigned s)
{
    return v < 0 ? (int64_t)~(~(uint64_t)v >> s) : (int64_t)((uint64_t)v >> s);
}
static uint64_t popc64(uint64_t v) { uint64_t n = 0; while (v) { n += v & 1; v >>= 1; } return n; }
static uint64_t clz64(uint64_t v) { uint64_t n = 0; for (int k = 63; k >= 0 && !((v >> k) & 1); k--) n++; return n; }
static uint64_t brev64(uint64_t v) { uint64_t r = 0; for (int k = 0; k < 64; k++) r |= ((v >> k) & 1u) << (63 - k); return r; }
static uint64_t ffs64(uint64_t v) { for (int k = 0; k < 64; k++) if ((v >> k) & 1) return k + 1; return 0; }

static void compute(int64_t a, int64_t b, uint64_t c, uint64_t* o)
{
    typedef __int128 i128;
    typedef unsigned __int128 u128;
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    unsigned sh = (unsigned)(c & 63);
    o[0] = ua * ub;
    o[1] = (uint64_t)(int64_t)(((i128)a * (i128)b) >> 64);
    o[2] = (uint64_t)(((u128)ua * ub) >> 64);
    o[3] = (uint64_t)(a / b);
    o[4] = (uint64_t)(a % b);
    o[5] = ua / ub;
    o[6] = ua % ub;
    o[7] = (uint64_t)sar64(a, sh);
    o[8] = ua >> sh;
    o[9] = ua << sh;
    o[10] = ua & ub;
    o[11] = ua | ub;
    o[12] = ua ^ ub;
    o[13] = ~ua;
    o[14] = popc64(ua);
    o[15] = clz64(ua);
    o[16] = brev64(ua);
    o[17] = ffs64(ua);
    o[18] = (uint64_t)(a < b ? a : b);
    o[19] = (uint64_t)(a > b ? a : b);
    o[20] = ua < ub ? ua : ub;
    o[21] = ua > ub ? ua : ub;
    o[22] = a < 0 ? 0 - ua : ua;
    {
        unsigned r = 1 + (unsigned)((c >> 8) % 63);
        o[23] = (ua << r) | (ua >> (64 - r));
    }
    {
        unsigned pos = (unsigned)(c & 31), len = 1 + (unsigned)((c >> 5) & 31);
        o[24] = (ua >> pos) & ((1ull << len) - 1);
    }
    o[25] = ua + ub;
    o[26] = ua - ub;
    o[27] = (uint64_t)(int64_t)(int32_t)(uint32_t)ua;
    o[28] = (uint64_t)(uint32_t)ub * (uint32_t)c;
    o[29] = (uint64_t)((int64_t)(int32_t)(uint32_t)ua * (int64_t)(int32_t)(uint32_t)ub);
    o[30] = ua * 1000003u + ub;
    o[31] = ua / 10u;
    o[32] = (uint64_t)(a / 7);
    o[33] = (uint64_t)(a % 1000);
}

static const int64_t specials[] = {
    0, -1, 1, INT64_MAX, INT64_MIN, INT64_MIN + 1, 0x100000000ll, 0xffffffffll, -0x100000000ll,
    0x7fffffffll, -0x80000000ll, 1000, -999, 0x5555555555555555ll, (int64_t)0xaaaaaaaaaaaaaaaaull, 7,
};
#define NSPEC ((int)(sizeof specials / sizeof specials[0]))

int main(void)
{
    static int64_t a[N], b[N];
    static uint64_t c[N], out[N * NOPS];
    for (int i = 0; i < N; i++) {
        uint64_t r1 = rand64(), r2 = rand64();
        switch (i % 5) {
        case 0: a[i] = (int64_t)r1; b[i] = (int64_t)r2; break;
        /* both operands small: takes the 32-bit fast path of 64-bit division */
        case 1: a[i] = (int64_t)(r1 % 100001); b[i] = (int64_t)(r2 % 1000) + 1; break;
        case 2: a[i] = (int64_t)r1; b[i] = (int64_t)(r2 % 61) - 30; break;
        case 3: a[i] = specials[(i / 5) % NSPEC]; b[i] = specials[(i / 5 + 3 + (r2 & 3)) % NSPEC]; break;
        default: a[i] = (int64_t)(r1 >> (r2 % 64)) * ((r2 >> 6) & 1 ? -1 : 1);
                 b[i] = (int64_t)(r2 >> (r1 % 64)) * ((r1 >> 6) & 1 ? -1 : 1); break;
        }
        if (b[i] == 0)
            b[i] = (i & 1) ? 3 : -5;
        if (a[i] == INT64_MIN && b[i] == -1)
            b[i] = 2;
        c[i] = rand64();
    }
    for (int i = 0; i < N; i++)
        compute(a[i], b[i], c[i], out + i * NOPS);
    write_file("a.bin", a, sizeof a);
    write_file("b.bin", b, sizeof b);
    write_file("c.bin", c, sizeof c);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
