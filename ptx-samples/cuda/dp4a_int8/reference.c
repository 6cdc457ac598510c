/* CPU reference for dp4a_int8: byte/halfword extraction, products summed in
 * 64-bit and wrapped to 32 bits (dp4a/dp2a accumulate modulo 2^32).
 * dp2a.lo: c + a.h0*b.b0 + a.h1*b.b1; dp2a.hi: c + a.h0*b.b2 + a.h1*b.b3. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 256
#define K4 16

static uint32_t rng = 0xD94A1234u;
static uint32_t xorshift32(void) {
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5; return rng;
}
static void write_bin(const char* name, const void* p, size_t size) {
    FILE* fp = fopen(name, "wb");
    if (!fp || fwrite(p, 1, size, fp) != size) { perror(name); exit(1); }
    fclose(fp);
}

static int64_t sbyte(uint32_t v, int k) { return (int8_t)(uint8_t)(v >> (8 * k)); }
static int64_t ubyte(uint32_t v, int k) { return (uint8_t)(v >> (8 * k)); }
static int64_t shalf(uint32_t v, int k) { return (int16_t)(uint16_t)(v >> (16 * k)); }
static int64_t uhalf(uint32_t v, int k) { return (uint16_t)(v >> (16 * k)); }

static uint32_t dp4a_s(uint32_t a, uint32_t b, uint32_t c) {
    int64_t s = (int32_t)c;
    for (int k = 0; k < 4; k++) s += sbyte(a, k) * sbyte(b, k);
    return (uint32_t)s;
}
static uint32_t dp4a_u(uint32_t a, uint32_t b, uint32_t c) {
    int64_t s = c;
    for (int k = 0; k < 4; k++) s += ubyte(a, k) * ubyte(b, k);
    return (uint32_t)s;
}
static uint32_t dp2a_s(uint32_t a, uint32_t b, uint32_t c, int hi) {
    int64_t s = (int32_t)c + shalf(a, 0) * sbyte(b, 2 * hi) + shalf(a, 1) * sbyte(b, 2 * hi + 1);
    return (uint32_t)s;
}
static uint32_t dp2a_u(uint32_t a, uint32_t b, uint32_t c, int hi) {
    int64_t s = (int64_t)c + uhalf(a, 0) * ubyte(b, 2 * hi) + uhalf(a, 1) * ubyte(b, 2 * hi + 1);
    return (uint32_t)s;
}

static uint32_t A[ROWS * K4], X[K4], bias[ROWS], Y[ROWS];
static uint32_t sa[ROWS], sb[ROWS], sc[ROWS], s_out[ROWS * 3], u_out[ROWS * 3];

int main(void) {
    for (int i = 0; i < ROWS * K4; i++) A[i] = xorshift32();
    for (int k = 0; k < K4; k++) X[k] = xorshift32();
    for (int i = 0; i < ROWS; i++) bias[i] = (uint32_t)((int32_t)(xorshift32() % 200001) - 100000);
    for (int i = 0; i < ROWS; i++) {
        sa[i] = xorshift32(); sb[i] = xorshift32();
        uint32_t r = xorshift32();
        /* mostly small accumulators, some near the wrap-around points */
        sc[i] = (i % 4 == 0) ? r : (i % 4 == 1) ? 0x7FFFFF00u + (r & 0x1FF)
              : (i % 4 == 2) ? 0xFFFFFF00u + (r & 0x1FF) : (uint32_t)((int32_t)(r % 20001) - 10000);
    }
    /* extreme packed values */
    sa[0] = 0x80808080u; sb[0] = 0x80808080u; sc[0] = 0;
    sa[1] = 0x7F7F7F7Fu; sb[1] = 0x80808080u; sc[1] = 0;
    sa[2] = 0xFFFFFFFFu; sb[2] = 0xFFFFFFFFu; sc[2] = 0xFFFFFFFFu;
    sa[3] = 0x80007FFFu; sb[3] = 0x7F80807Fu; sc[3] = 0x7FFFFFFFu;

    for (int i = 0; i < ROWS; i++) {
        uint32_t acc = bias[i];
        for (int k = 0; k < K4; k++) acc = dp4a_s(A[i * K4 + k], X[k], acc);
        Y[i] = acc;
        s_out[3 * i + 0] = dp4a_s(sa[i], sb[i], sc[i]);
        s_out[3 * i + 1] = dp2a_s(sa[i], sb[i], sc[i], 0);
        s_out[3 * i + 2] = dp2a_s(sa[i], sb[i], sc[i], 1);
        u_out[3 * i + 0] = dp4a_u(sa[i], sb[i], sc[i]);
        u_out[3 * i + 1] = dp2a_u(sa[i], sb[i], sc[i], 0);
        u_out[3 * i + 2] = dp2a_u(sa[i], sb[i], sc[i], 1);
    }
    write_bin("A.bin", A, sizeof A);
    write_bin("x.bin", X, sizeof X);
    write_bin("bias.bin", bias, sizeof bias);
    write_bin("sa.bin", sa, sizeof sa);
    write_bin("sb.bin", sb, sizeof sb);
    write_bin("sc.bin", sc, sizeof sc);
    write_bin("y.expected.bin", Y, sizeof Y);
    write_bin("s_out.expected.bin", s_out, sizeof s_out);
    write_bin("u_out.expected.bin", u_out, sizeof u_out);
    return 0;
}
