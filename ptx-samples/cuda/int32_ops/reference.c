// CPU reference for int32_ops: 250 (a, b, c) triples, 42 results each.
// Every operation is written from the CUDA documentation of the operator or
// intrinsic, using unsigned / 64-bit arithmetic where C would overflow.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 250
#define NOPS 42

static uint32_t rng = 0x2545F491u;
static uint32_t xorshift32(void)
{
    uint32_t x = rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng = x;
}

static void write_file(const char* name, const void* p, size_t n)
{
    FILE* f = fopen(name, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { perror(name); exit(1); }
    fclose(f);
}

/* arithmetic right shift (gcc already does this for signed >>, made explicit) */
static int32_t sar32(int32_t v, unsigned s)
{
    return v < 0 ? (int32_t)~(~(uint32_t)v >> s) : (int32_t)((uint32_t)v >> s);
}

static uint32_t popc32(uint32_t v) { uint32_t n = 0; while (v) { n += v & 1; v >>= 1; } return n; }
static uint32_t clz32(uint32_t v) { uint32_t n = 0; for (int k = 31; k >= 0 && !((v >> k) & 1); k--) n++; return n; }
static uint32_t brev32(uint32_t v) { uint32_t r = 0; for (int k = 0; k < 32; k++) r |= ((v >> k) & 1u) << (31 - k); return r; }
static uint32_t ffs32(uint32_t v) { for (int k = 0; k < 32; k++) if ((v >> k) & 1) return k + 1; return 0; }

/* __byte_perm(x, y, s): result byte k = byte number (s >> 4k) & 7 of the
   eight bytes {y:x} (x holds bytes 0..3). Selectors here never set bit 3. */
static uint32_t byte_perm(uint32_t x, uint32_t y, uint32_t s)
{
    uint64_t v = (uint64_t)y << 32 | x;
    uint32_t r = 0;
    for (int k = 0; k < 4; k++) {
        unsigned sel = (s >> (4 * k)) & 7;
        r |= (uint32_t)((v >> (8 * sel)) & 0xff) << (8 * k);
    }
    return r;
}

/* funnel shifts on the 64-bit value hi:lo */
static uint32_t funnel_l(uint32_t lo, uint32_t hi, unsigned s) { uint64_t v = (uint64_t)hi << 32 | lo; return (uint32_t)((v << s) >> 32); }
static uint32_t funnel_r(uint32_t lo, uint32_t hi, unsigned s) { uint64_t v = (uint64_t)hi << 32 | lo; return (uint32_t)(v >> s); }

static int32_t sext24(uint32_t v) { return (v & 0x800000u) ? (int32_t)(v | 0xff000000u) : (int32_t)(v & 0xffffffu); }

static void compute(int32_t a, int32_t b, uint32_t c, uint32_t* o)
{
    uint32_t ua = (uint32_t)a, ub = (uint32_t)b, sh = c & 31;
    o[0] = ua * ub;
    o[1] = (uint32_t)(((int64_t)a * (int64_t)b) >> 32);
    o[2] = (uint32_t)(((uint64_t)ua * ub) >> 32);
    o[3] = (uint32_t)(a / b); /* C99: truncation toward zero, as in CUDA */
    o[4] = (uint32_t)(a % b);
    o[5] = ua / ub;
    o[6] = ua % ub;
    o[7] = (uint32_t)sar32(a, sh);
    o[8] = ua >> sh;
    o[9] = ua << sh;
    o[10] = ua & ub;
    o[11] = ua | ub;
    o[12] = ua ^ ub;
    o[13] = ~ua;
    o[14] = popc32(ua);
    o[15] = clz32(ua);
    o[16] = brev32(ua);
    o[17] = byte_perm(ua, ub, c & 0x7777);
    o[18] = byte_perm(ua, 0, 0x0123);
    o[19] = funnel_l(ua, ub, c & 31);
    o[20] = funnel_r(ua, ub, c & 31);
    o[21] = funnel_l(ua, ub, (c & 63) > 32 ? 32 : (c & 63));
    o[22] = funnel_r(ua, ub, (c & 63) > 32 ? 32 : (c & 63));
    o[23] = (uint32_t)(a < b ? a : b);
    o[24] = (uint32_t)(a > b ? a : b);
    o[25] = ua < ub ? ua : ub;
    o[26] = ua > ub ? ua : ub;
    o[27] = a < 0 ? 0u - ua : ua;                /* abs(INT_MIN) wraps to INT_MIN */
    o[28] = (a < b ? ub - ua : ua - ub) + c;     /* |a - b| + c, modulo 2^32 */
    o[29] = (ua < ub ? ub - ua : ua - ub) + c;
    o[30] = (uint32_t)((int64_t)sext24(ua) * (int64_t)sext24(ub));
    o[31] = (ua & 0xffffffu) * (ub & 0xffffffu);
    o[32] = ffs32(ua);
    {
        uint32_t pos = c & 15, len = 1 + ((c >> 4) & 15);
        uint64_t field = (ua >> pos) & ((1ull << len) - 1);
        o[33] = (uint32_t)field;
        /* sign-extend the len-bit field */
        o[34] = (field >> (len - 1)) & 1 ? (uint32_t)(field | ~((1ull << len) - 1)) : (uint32_t)field;
    }
    {
        uint32_t r = 1 + (c >> 8) % 31;
        o[35] = (ua << r) | (ua >> (32 - r));
    }
    o[36] = (uint32_t)(int32_t)(((int64_t)a + b) >> 1);      /* floor((a+b)/2) */
    o[37] = (uint32_t)(int32_t)(((int64_t)a + b + 1) >> 1);  /* floor((a+b+1)/2) */
    o[38] = (uint32_t)(((uint64_t)ua + ub) >> 1);
    o[39] = (uint32_t)(((uint64_t)ua + ub + 1) >> 1);
    o[40] = (uint32_t)(int32_t)(int16_t)(ua & 0xffff);
    o[41] = (uint32_t)((int32_t)(int8_t)(ub & 0xff) + (int32_t)((c >> 3) & 0xff));
}

static const int32_t specials[] = {
    0, -1, 1, INT32_MAX, INT32_MIN, (int32_t)0x80000001, 0x10000, 0x7fff, -0x8000,
    0x00800000, 0x00ffffff, (int32_t)0xff800000u, 7, -7, 0x55555555, (int32_t)0xaaaaaaaau,
};
#define NSPEC ((int)(sizeof specials / sizeof specials[0]))

int main(void)
{
    static int32_t a[N], b[N];
    static uint32_t c[N], out[N * NOPS];
    for (int i = 0; i < N; i++) {
        uint32_t r1 = xorshift32(), r2 = xorshift32();
        switch (i % 5) {
        case 0: a[i] = (int32_t)r1; b[i] = (int32_t)r2; break;
        case 1: a[i] = (int32_t)(r1 % 201) - 100; b[i] = (int32_t)(r2 % 201) - 100; break;
        case 2: a[i] = (int32_t)r1; b[i] = (int32_t)(r2 % 31) - 15; break;
        case 3: a[i] = specials[(i / 5) % NSPEC]; b[i] = specials[(i / 5 + 3 + (r2 & 3)) % NSPEC]; break;
        default: a[i] = (int32_t)(r1 >> (r2 % 32)) * ((r2 >> 5) & 1 ? -1 : 1);
                 b[i] = (int32_t)(r2 >> (r1 % 32)) * ((r1 >> 5) & 1 ? -1 : 1); break;
        }
        if (b[i] == 0)
            b[i] = (i & 1) ? 3 : -5;
        if (a[i] == INT32_MIN && b[i] == -1)
            b[i] = 2;
        c[i] = xorshift32();
    }
    for (int i = 0; i < N; i++)
        compute(a[i], b[i], c[i], out + i * NOPS);
    write_file("a.bin", a, sizeof a);
    write_file("b.bin", b, sizeof b);
    write_file("c.bin", c, sizeof c);
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
