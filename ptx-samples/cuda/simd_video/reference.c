/* CPU reference for simd_video, written from the PTX ISA's definitions of the video
   instructions (§9.7.16) and the CUDA math API's definitions of the SIMD intrinsics,
   corrected where an H100 computes otherwise (ptx-samples/hw/h100-gpucheck.json: the
   hardware wins; each correction says what the ISA would give).
   Writes in.bin (a[], b[], c[] of N words each) and out.expected.bin (K words per
   thread, in the order of kernel.cu). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 384
#define K 59

typedef __int128 wide;
enum { WORD = -1, B0 = 0, B1, B2, B3, H0, H1 };

static void write_file(const char *name, const void *p, size_t bytes) {
    FILE *f = fopen(name, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { perror(name); exit(1); }
    fclose(f);
}

/* The low `bits` of v, sign- or zero-extended. */
static int64_t ext(uint32_t v, int bits, int sgn) {
    uint64_t m = (1ull << bits) - 1, x = v & m;
    if (sgn && (x >> (bits - 1))) return (int64_t)x - (int64_t)(1ull << bits);
    return (int64_t)x;
}

/* partSelectSignExtend: sel is WORD, B0..B3 or H0..H1. */
static int64_t part(uint32_t x, int sgn, int sel) {
    if (sel == WORD) return ext(x, 32, sgn);
    if (sel >= H0) return ext(x >> (16 * (sel - H0)), 16, sgn);
    return ext(x >> (8 * sel), 8, sgn);
}

static wide clampw(wide v, wide lo, wide hi) { return v < lo ? lo : v > hi ? hi : v; }

static wide sat_to(wide v, int bits, int sgn) {
    if (sgn) return clampw(v, -((wide)1 << (bits - 1)), ((wide)1 << (bits - 1)) - 1);
    return clampw(v, 0, ((wide)1 << bits) - 1);
}

/* Scalar video instruction: op is '+', '-', 'd' (absdiff), 'm' (min), 'M' (max),
   '<' (shl), '>' (shr), or 'c' (vset with comparison cmp); op2 is 0, '+', 'm', 'M';
   dsel is WORD (no merge) or a part; wrap selects .wrap for shifts. */
static uint32_t scalar(int op, const char *cmp, int ds, int as, int bs, int sat, int asel,
                       int bsel, int op2, int dsel, int wrap, uint32_t a, uint32_t b,
                       uint32_t c) {
    wide ta = part(a, as, asel), tb = part(b, bs, bsel), t = 0;
    int n = wrap ? (int)(tb & 31) : (tb > 32 ? 32 : (int)tb);
    switch (op) {
    case '+': t = ta + tb; break;
    case '-': t = ta - tb; break;
    case 'd': t = ta > tb ? ta - tb : tb - ta; break;
    case 'm': t = ta < tb ? ta : tb; break;
    case 'M': t = ta > tb ? ta : tb; break;
    case '<': /* H100: the shifted value wraps to the ISA's 34-bit intermediate */
        t = ta * ((wide)1 << n);
        t &= ((wide)1 << 34) - 1;
        if (t >> 33) t -= (wide)1 << 34;
        break;
    case '>': t = ta >= 0 ? ta >> n : -((-ta - 1) >> n) - 1; break;
    case 'c':
        if (cmp[0] == 'e') t = ta == tb;
        else if (cmp[0] == 'n') t = ta != tb;
        else if (cmp[0] == 'l' && cmp[1] == 't') t = ta < tb;
        else if (cmp[0] == 'l') t = ta <= tb;
        else if (cmp[1] == 't') t = ta > tb;
        else t = ta >= tb;
        ds = as || bs; /* H100: vset's c is signed (vset.s32.s32.gt.max), the ISA has no dtype */
        break;
    }
    if (sat && dsel != WORD && op != '<' && op != '>') {
        /* H100, .sat with a data merge: not the ISA's clamp to the part's range but
           the unsigned minimum of the 32-bit result and the part's maximum, and for
           d.h1 the upper half of that (0). */
        int bits = dsel >= H0 ? 16 : 8;
        uint32_t max = ds ? (1u << (bits - 1)) - 1 : (1u << bits) - 1, v = (uint32_t)t;
        t = v < max ? v : max;
        if (dsel == H1) t >>= 16;
    } else if (sat) {
        /* the destination type's 32-bit range; H100: also for shifts with a merge */
        t = sat_to(t, 32, ds);
    }
    wide tc = part(c, ds, WORD);
    if (op2 == '+') t = t + tc;
    if (op2 == 'm') t = t < tc ? t : tc;
    if (op2 == 'M') t = t > tc ? t : tc;
    uint32_t r = (uint32_t)t;
    if (dsel >= H0) {
        int sh = 16 * (dsel - H0);
        r = ((r & 0xffffu) << sh) | (c & ~(0xffffu << sh));
    } else if (dsel != WORD) {
        int sh = 8 * dsel;
        r = ((r & 0xffu) << sh) | (c & ~(0xffu << sh));
    }
    return r;
}

/* vmad: na/nb/nc negate a, b, c; po is plus one; shift is 0, 7 or 15.
   H100, unlike the ISA: the selected and extended sources are 32-bit values multiplied
   as signed ones, c is sign-extended whatever the types, and .sat of an unsigned final
   result takes the sum as an unsigned 64-bit value (a negative one gives U32_MAX). */
static uint32_t vmad(int as, int bs, int asel, int bsel, int na, int nb, int nc, int po,
                     int sat, int shift, uint32_t a, uint32_t b, uint32_t c) {
    int signed_final = as || bs || (na ^ nb) || nc;
    int32_t xa = (int32_t)(uint32_t)part(a, as, asel), xb = (int32_t)(uint32_t)part(b, bs, bsel);
    wide prod = (wide)xa * (wide)xb;
    wide cc = (wide)(int32_t)c;
    if (na ^ nb) prod = -prod;
    if (nc) cc = -cc;
    wide t = prod + cc + (po ? 1 : 0);
    if (shift) t = t >= 0 ? t >> shift : -((-t - 1) >> shift) - 1;
    if (sat && signed_final) t = sat_to(t, 32, 1);
    else if (sat) t = t < 0 ? (wide)UINT32_MAX : sat_to(t, 32, 0);
    return (uint32_t)t;
}

/* SIMD video instruction over `lanes` elements (2 half-words or 4 bytes): asel/bsel
   are selector strings as written after `.h`/`.b` ("" for the defaults), mask the
   destination mask digits ("" for all), add the .add reduction. */
static uint32_t simd(int op, const char *cmp, int lanes, int ds, int as, int bs, int sat,
                     const char *asel, const char *bsel, const char *mask, int add,
                     uint32_t a, uint32_t b, uint32_t c) {
    int w = 32 / lanes;
    uint64_t pool = ((uint64_t)b << 32) | a;
    uint32_t d = add ? c : 0;
    for (int i = 0; i < lanes; i++) {
        int ka = asel[0] ? asel[lanes - 1 - i] - '0' : i;
        int kb = bsel[0] ? bsel[lanes - 1 - i] - '0' : lanes + i;
        int64_t va = ext((uint32_t)(pool >> (w * ka)), w, as);
        int64_t vb = ext((uint32_t)(pool >> (w * kb)), w, bs), t = 0;
        switch (op) {
        case '+': t = va + vb; break;
        case '-': t = va - vb; break;
        case 'a': t = va + vb >= 0 ? (va + vb + 1) / 2 : -((-(va + vb) + 1) / 2); break;
        case 'd': t = va > vb ? va - vb : vb - va; break;
        case 'm': t = va < vb ? va : vb; break;
        case 'M': t = va > vb ? va : vb; break;
        case 'c':
            if (cmp[0] == 'e') t = va == vb;
            else if (cmp[0] == 'n') t = va != vb;
            else if (cmp[0] == 'l' && cmp[1] == 't') t = va < vb;
            else if (cmp[0] == 'l') t = va <= vb;
            else if (cmp[1] == 't') t = va > vb;
            else t = va >= vb;
            break;
        }
        if (sat) t = (int64_t)sat_to(t, w, ds);
        int on = 1;
        if (mask[0]) {
            on = 0;
            for (const char *m = mask; *m; m++) on |= (*m - '0') == i;
        }
        uint32_t lane = (uint32_t)((1ull << w) - 1);
        if (add) {
            if (on) d += (uint32_t)t;
        } else {
            uint32_t v = on ? (uint32_t)t : c >> (w * i);
            d |= (v & lane) << (w * i);
        }
    }
    return d;
}

/* The CUDA SIMD intrinsics, from the CUDA math API's descriptions. */
static uint32_t per(uint32_t a, uint32_t b, int lanes, int sgn, int64_t (*f)(int64_t, int64_t)) {
    int w = 32 / lanes;
    uint32_t d = 0, lane = (uint32_t)((1ull << w) - 1);
    for (int i = 0; i < lanes; i++) {
        int64_t x = ext(a >> (w * i), w, sgn), y = ext(b >> (w * i), w, sgn);
        d |= ((uint32_t)f(x, y) & lane) << (w * i);
    }
    return d;
}
static int64_t f_absdiff(int64_t x, int64_t y) { return x > y ? x - y : y - x; }
static int64_t f_add(int64_t x, int64_t y) { return x + y; }
static int64_t f_add_ss8(int64_t x, int64_t y) { return (int64_t)sat_to(x + y, 8, 1); }
static int64_t f_add_us8(int64_t x, int64_t y) { return (int64_t)sat_to(x + y, 8, 0); }
static int64_t f_sub_ss8(int64_t x, int64_t y) { return (int64_t)sat_to(x - y, 8, 1); }
static int64_t f_avg_u(int64_t x, int64_t y) { return (x + y + 1) >> 1; }
static int64_t f_max(int64_t x, int64_t y) { return x > y ? x : y; }
static int64_t f_min(int64_t x, int64_t y) { return x < y ? x : y; }
static int64_t f_gt(int64_t x, int64_t y) { return x > y; }
static uint32_t sad(uint32_t a, uint32_t b, int lanes, int sgn) {
    int w = 32 / lanes;
    uint32_t s = 0;
    for (int i = 0; i < lanes; i++)
        s += (uint32_t)f_absdiff(ext(a >> (w * i), w, sgn), ext(b >> (w * i), w, sgn));
    return s;
}

static const uint32_t EDGE[16] = {
    0x00000000u, 0xffffffffu, 0x7f7f7f7fu, 0x80808080u, 0xff00ff00u, 0x00ff00ffu,
    0x7fff8000u, 0x80007fffu, 0x7f80ff01u, 0x01ff807fu, 0x00010203u, 0xfffefdfcu,
    0x7fffffffu, 0x80000000u, 0x0000ffffu, 0x211f2007u,
};

static uint32_t rng = 0x9e3779b9u;
static uint32_t xorshift32(void) {
    rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5;
    return rng;
}

int main(void) {
    static uint32_t in[3 * N], out[N * K];
    for (int i = 0; i < N; i++) {
        if (i < 256) {
            in[i] = EDGE[i % 16];
            in[N + i] = EDGE[i / 16];
            in[2 * N + i] = EDGE[(i * 7 + 3) % 16];
        } else {
            in[i] = xorshift32();
            in[N + i] = xorshift32();
            in[2 * N + i] = xorshift32();
        }
    }
    write_file("in.bin", in, sizeof in);
    for (int i = 0; i < N; i++) {
        uint32_t a = in[i], b = in[N + i], c = in[2 * N + i], *o = out + i * K;
        o[0] = per(a, b, 4, 0, f_absdiff);
        o[1] = sad(a, b, 2, 0);
        o[2] = per(a, b, 4, 0, f_add);
        o[3] = per(a, b, 4, 1, f_add_ss8);
        o[4] = per(a, b, 4, 0, f_add_us8);
        o[5] = per(a, b, 4, 1, f_sub_ss8);
        o[6] = per(a, b, 2, 0, f_avg_u);
        o[7] = per(a, b, 4, 1, f_max);
        o[8] = per(a, b, 4, 0, f_min);
        o[9] = per(a, b, 4, 1, f_absdiff);
        o[10] = per(a, b, 4, 0, f_gt);
        o[11] = sad(a, b, 4, 1);
        /* scalar(op, cmp, ds, as, bs, sat, asel, bsel, op2, dsel, wrap, a, b, c) */
        o[12] = scalar('+', "", 1, 0, 1, 1, B1, H1, 0, WORD, 0, a, b, c);
        o[13] = scalar('-', "", 0, 1, 1, 0, WORD, WORD, 0, WORD, 0, a, b, c);
        o[14] = scalar('-', "", 1, 1, 1, 1, WORD, WORD, 0, WORD, 0, a, b, c);
        o[15] = scalar('d', "", 0, 0, 0, 0, WORD, WORD, '+', WORD, 0, a, b, c);
        o[16] = scalar('m', "", 1, 1, 1, 1, B3, B0, 'm', WORD, 0, a, b, c);
        o[17] = scalar('M', "", 0, 1, 0, 0, H0, WORD, 'M', WORD, 0, a, b, c);
        o[18] = scalar('+', "", 1, 1, 1, 1, B1, H1, 0, H1, 0, a, b, c);
        o[19] = scalar('-', "", 0, 0, 0, 1, B0, B3, 0, B2, 0, a, b, c);
        o[20] = scalar('+', "", 0, 0, 0, 0, WORD, WORD, 0, B3, 0, a, b, c);
        o[21] = scalar('<', "", 0, 0, 0, 0, WORD, B0, 0, WORD, 0, a, b, c);
        o[22] = scalar('<', "", 0, 0, 0, 1, WORD, B0, 0, WORD, 1, a, b, c);
        o[23] = scalar('>', "", 1, 1, 0, 1, H1, B3, 'M', WORD, 1, a, b, c);
        o[24] = scalar('>', "", 1, 1, 0, 0, WORD, B1, '+', WORD, 0, a, b, c);
        o[25] = scalar('<', "", 1, 1, 0, 1, B2, B0, 0, H0, 0, a, b, c);
        o[26] = scalar('c', "lt", 0, 1, 0, 0, WORD, WORD, 0, WORD, 0, a, b, c);
        o[27] = scalar('c', "ne", 0, 0, 0, 0, B1, H1, '+', WORD, 0, a, b, c);
        o[28] = scalar('c', "ge", 0, 1, 1, 0, B2, B2, 0, H0, 0, a, b, c);
        o[29] = scalar('c', "gt", 0, 1, 1, 0, H1, H0, 'M', WORD, 0, a, b, c);
        /* vmad(as, bs, asel, bsel, na, nb, nc, po, sat, shift, a, b, c) */
        o[30] = vmad(1, 1, WORD, WORD, 1, 0, 0, 0, 1, 0, a, b, c);
        o[31] = vmad(0, 0, WORD, WORD, 0, 0, 1, 0, 0, 0, a, b, c);
        o[32] = vmad(0, 1, WORD, WORD, 1, 1, 0, 0, 0, 0, a, b, c);
        o[33] = vmad(0, 0, H0, B2, 0, 0, 0, 1, 0, 7, a, b, c);
        o[34] = vmad(0, 0, H1, H0, 0, 0, 0, 0, 1, 15, a, b, c);
        o[35] = vmad(1, 0, H1, H0, 0, 1, 0, 0, 0, 15, a, b, c);
        o[36] = vmad(0, 0, WORD, WORD, 0, 0, 1, 0, 1, 0, a, b, c);
        /* simd(op, cmp, lanes, ds, as, bs, sat, asel, bsel, mask, add, a, b, c) */
        o[37] = simd('+', "", 2, 0, 0, 0, 1, "", "", "", 0, a, b, c);
        o[38] = simd('-', "", 2, 1, 1, 1, 1, "10", "32", "0", 0, a, b, c);
        o[39] = simd('a', "", 2, 1, 1, 1, 0, "31", "02", "1", 0, a, b, c);
        o[40] = simd('d', "", 2, 1, 1, 1, 0, "", "", "", 1, a, b, c);
        o[41] = simd('m', "", 2, 1, 0, 0, 0, "00", "22", "10", 1, a, b, c);
        o[42] = simd('M', "", 2, 0, 1, 1, 1, "", "", "", 0, a, b, c);
        o[43] = simd('c', "ne", 2, 0, 0, 0, 0, "", "", "", 1, a, b, c);
        o[44] = simd('c', "lt", 2, 0, 1, 0, 0, "21", "", "1", 0, a, b, c);
        o[45] = simd('+', "", 4, 1, 1, 1, 1, "", "", "", 0, a, b, c);
        o[46] = simd('-', "", 4, 1, 1, 1, 1, "3210", "7654", "0", 0, a, b, c);
        o[47] = simd('a', "", 4, 0, 0, 0, 0, "", "", "31", 0, a, b, c);
        o[48] = simd('a', "", 4, 1, 1, 1, 0, "", "", "", 0, a, b, c);
        o[49] = simd('d', "", 4, 0, 0, 0, 0, "", "", "", 0, a, b, c);
        o[50] = simd('d', "", 4, 1, 1, 1, 1, "", "", "", 0, a, b, c);
        o[51] = simd('m', "", 4, 1, 1, 1, 0, "7531", "0246", "20", 0, a, b, c);
        o[52] = simd('M', "", 4, 0, 0, 0, 0, "0123", "2222", "3210", 1, a, b, c);
        o[53] = simd('c', "lt", 4, 0, 1, 1, 0, "", "", "", 0, a, b, c);
        o[54] = simd('c', "ge", 4, 0, 0, 1, 0, "", "4444", "321", 1, a, b, c);
        o[55] = simd('-', "", 4, 0, 0, 0, 0, "", "", "", 1, a, b, c);
        o[56] = simd('+', "", 2, 1, 1, 1, 0, "", "", "", 0, a, b, c);
        o[57] = scalar('-', "", 1, 0, 0, 1, H0, H1, 0, B1, 0, a, b, c);
        o[58] = scalar('d', "", 1, 1, 1, 1, B0, B2, 0, H0, 0, a, b, c);
    }
    write_file("out.expected.bin", out, sizeof out);
    return 0;
}
