/* CPU reference for integer_division_edge: C99 integer division has the same
 * semantics as CUDA's (truncation toward zero, remainder takes the dividend's
 * sign), so the reference simply evaluates the same expressions. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 512

static uint32_t rng = 0xD1D1D1D1u;
static uint32_t xorshift32(void) {
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5; return rng;
}
static uint64_t rand64(void) { uint64_t hi = xorshift32(); return (hi << 32) | xorshift32(); }
static void write_bin(const char* name, const void* p, size_t size) {
    FILE* fp = fopen(name, "wb");
    if (!fp || fwrite(p, 1, size, fp) != size) { perror(name); exit(1); }
    fclose(fp);
}

static int32_t a32[N], b32[N];
static int64_t a64[N], b64[N];
static int32_t s32[N * 10];
static uint32_t u32[N * 10];
static int64_t s64[N * 8];
static uint64_t u64[N * 8];

static int32_t pick32(int divisor) {
    uint32_t r = xorshift32();
    switch (xorshift32() % 6) {
    case 0: return (int32_t)(r % 201) - 100;                       /* small, both signs */
    case 1: return (int32_t)r;                                     /* full range */
    case 2: return divisor ? (int32_t)(r % 17) - 8 : -(int32_t)(r % 100000);
    case 3: { const int32_t e[] = {INT32_MIN, INT32_MAX, -1, 1, INT32_MIN + 1, 7, -7, 16, -16, 1000000};
              return e[r % 10]; }
    case 4: return (int32_t)(r % 2000001) - 1000000;
    default: return -(int32_t)(r >> 1);                             /* negative */
    }
}
static int64_t pick64(int divisor) {
    uint64_t r = rand64();
    switch (xorshift32() % 6) {
    case 0: return (int64_t)(r % 201) - 100;
    case 1: return (int64_t)r;
    case 2: return (int64_t)(int32_t)(uint32_t)r;                   /* fits in 32 bits */
    case 3: { const int64_t e[] = {INT64_MIN, INT64_MAX, -1, 1, INT64_MIN + 1, 1000, -13,
                                   1000000007LL, (int64_t)0x8000000000000005ull, 4294967296LL,
                                   -4294967297LL, (int64_t)UINT32_MAX};
              return e[r % 12]; }
    case 4: return divisor ? (int64_t)(r % 2000001) - 1000000 : (int64_t)(r >> 20);
    default: return -(int64_t)(r >> 1);
    }
}

int main(void) {
    for (int i = 0; i < N; i++) {
        a32[i] = pick32(0);
        do b32[i] = pick32(1); while (b32[i] == 0);
        if (a32[i] == INT32_MIN && b32[i] == -1) a32[i] = INT32_MIN + 1;
        a64[i] = pick64(0);
        do b64[i] = pick64(1); while (b64[i] == 0);
        if (a64[i] == INT64_MIN && b64[i] == -1) a64[i] = INT64_MIN + 1;
    }
    for (int i = 0; i < N; i++) {
        int32_t a = a32[i], b = b32[i];
        int32_t* r = s32 + 10 * i;
        r[0] = a / b;        r[1] = a % b;
        r[2] = a / 7;        r[3] = a % 7;
        r[4] = a / -5;       r[5] = a % -5;
        r[6] = a / 16;       r[7] = a % 16;
        r[8] = a / 1000000;  r[9] = a % 3;

        uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
        uint32_t* q = u32 + 10 * i;
        q[0] = ua / ub;      q[1] = ua % ub;
        q[2] = ua / 10u;     q[3] = ua % 10u;
        q[4] = ua / 3u;      q[5] = ua % 3u;
        q[6] = ua / 4096u;   q[7] = ua % 4096u;
        q[8] = ua / 641u;    q[9] = ua / 2147483649u;

        int64_t c = a64[i], d = b64[i];
        int64_t* s = s64 + 8 * i;
        s[0] = c / d;        s[1] = c % d;
        s[2] = c / 1000;     s[3] = c % 1000;
        s[4] = c / -13;      s[5] = c % -13;
        s[6] = c / (1LL << 20);
        s[7] = c % 1000000007LL;

        uint64_t uc = (uint64_t)c, ud = (uint64_t)d;
        uint64_t* t = u64 + 8 * i;
        t[0] = uc / ud;      t[1] = uc % ud;
        t[2] = uc / 10u;     t[3] = uc % 10u;
        t[4] = uc / 1000000007ull;
        t[5] = uc % 1000000007ull;
        t[6] = uc / 3ull;
        t[7] = uc / 0x8000000000000005ull;
    }
    write_bin("a32.bin", a32, sizeof a32);
    write_bin("b32.bin", b32, sizeof b32);
    write_bin("a64.bin", a64, sizeof a64);
    write_bin("b64.bin", b64, sizeof b64);
    write_bin("s32.expected.bin", s32, sizeof s32);
    write_bin("u32.expected.bin", u32, sizeof u32);
    write_bin("s64.expected.bin", s64, sizeof s64);
    write_bin("u64.expected.bin", u64, sizeof u64);
    return 0;
}
