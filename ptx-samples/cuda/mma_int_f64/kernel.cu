// Warp-level mma.sync (inline PTX) with integer, single-bit and f64
// operands, and movmatrix. One warp per block; blockIdx.x picks the form.
// Each lane loads its fragment elements from row-major global matrices at
// the positions the PTX ISA's fragment figures give (section 9.7.14.5) and
// stores its D elements the same way.
//
// A: 16 x 256 bytes, B: 256 x 8 bytes (row-major; each form reads the
// bytes as s8, u8, s4/u4 (low nibble) or b1 (low bit)); C: 16 x 8 s32.
// out: 16 x 8 s32 per integer form; outd: 8 x 8 f64; outm: 8 x 8 b16.

#define KA 256

__device__ unsigned elem_bits(unsigned char x, int w) {
    return w == 8 ? x : (w == 4 ? (x & 0xFu) : (x & 1u));
}

// Register r of A's fragment (m rows, p = 32 / w elements per register):
// element i of the register sits at row groupID (+8 for odd registers of
// the m16 shapes), column threadID_in_group * p + i (+4p for the second
// pair of registers, or the second register of an m8 shape).
__device__ unsigned load_a(const unsigned char* A, int m, int w, int r) {
    int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3, p = 32 / w;
    int row = (m == 16 && (r & 1)) ? g + 8 : g;
    int pair = (m == 16) ? (r >> 1) : r;
    unsigned v = 0;
    for (int i = 0; i < p; i++) {
        int col = t * p + i + 4 * p * pair;
        v |= elem_bits(A[row * KA + col], w) << (w * i);
    }
    return v;
}

// Register r of B's fragment: column groupID, rows threadID_in_group * p + i
// (+4p for the second register).
__device__ unsigned load_b(const unsigned char* B, int w, int r) {
    int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3, p = 32 / w;
    unsigned v = 0;
    for (int i = 0; i < p; i++) {
        int row = t * p + i + 4 * p * r;
        v |= elem_bits(B[row * 8 + g], w) << (w * i);
    }
    return v;
}

// Accumulator element c_i: row groupID (+8 for i >= 2), column
// threadID_in_group * 2 + (i & 1).
__device__ int acc_index(int i) {
    int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    return (g + (i >= 2 ? 8 : 0)) * 8 + t * 2 + (i & 1);
}

#define MMA16(SHAPE_TYPES, W)                                                          \
    {                                                                                   \
        unsigned a0 = load_a(A, 16, W, 0), a1 = load_a(A, 16, W, 1);                    \
        unsigned a2 = load_a(A, 16, W, 2), a3 = load_a(A, 16, W, 3);                    \
        unsigned b0 = load_b(B, W, 0), b1 = load_b(B, W, 1);                            \
        asm volatile("mma.sync.aligned." SHAPE_TYPES                                    \
                     " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"       \
                     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                   \
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1),            \
                       "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));                     \
        rows = 16;                                                                      \
    }

#define MMA16_HALF(SHAPE_TYPES, W)                                                     \
    {                                                                                   \
        unsigned a0 = load_a(A, 16, W, 0), a1 = load_a(A, 16, W, 1);                    \
        unsigned b0 = load_b(B, W, 0);                                                  \
        asm volatile("mma.sync.aligned." SHAPE_TYPES                                    \
                     " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"                   \
                     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                   \
                     : "r"(a0), "r"(a1), "r"(b0),                                       \
                       "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));                     \
        rows = 16;                                                                      \
    }

#define MMA8(SHAPE_TYPES, W)                                                           \
    {                                                                                   \
        unsigned a0 = load_a(A, 8, W, 0), b0 = load_b(B, W, 0);                         \
        asm volatile("mma.sync.aligned." SHAPE_TYPES " {%0,%1}, {%2}, {%3}, {%4,%5};"   \
                     : "=r"(d[0]), "=r"(d[1])                                           \
                     : "r"(a0), "r"(b0), "r"(c[0]), "r"(c[1]));                         \
        rows = 8;                                                                       \
    }

extern "C" __global__ void mma_int_f64_kernel(const unsigned char* A, const unsigned char* B,
                                              const int* C, const double* Ad,
                                              const double* Bd, const double* Cd,
                                              const unsigned short* M, int* out,
                                              double* outd, unsigned short* outm) {
    int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    int form = blockIdx.x;
    int c[4], d[4] = {0, 0, 0, 0}, rows = 0;
    for (int i = 0; i < 4; i++) c[i] = C[acc_index(i)];
    switch (form) {
    case 0: MMA16("m16n8k32.row.col.satfinite.s32.s8.u8.s32", 8) break;
    case 1: MMA16_HALF("m16n8k16.row.col.s32.s8.s8.s32", 8) break;
    case 2: MMA8("m8n8k16.row.col.s32.u8.s8.s32", 8) break;
    case 3: MMA16("m16n8k64.row.col.satfinite.s32.s4.u4.s32", 4) break;
    case 4: MMA16_HALF("m16n8k32.row.col.s32.u4.s4.s32", 4) break;
    case 5: MMA8("m8n8k32.row.col.satfinite.s32.s4.s4.s32", 4) break;
    case 6: MMA16("m16n8k256.row.col.s32.b1.b1.s32.xor.popc", 1) break;
    case 7: MMA16_HALF("m16n8k128.row.col.s32.b1.b1.s32.and.popc", 1) break;
    case 8: MMA8("m8n8k128.row.col.s32.b1.b1.s32.xor.popc", 1) break;
    case 9: MMA16("m16n8k32.row.col.s32.u8.u8.s32", 8) break;
    case 10: {
        // f64 m8n8k4: a (groupID, threadID_in_group), b (threadID_in_group,
        // groupID), c0/c1 (groupID, 2 threadID_in_group + i).
        double a = Ad[g * 4 + t], b = Bd[t * 8 + g];
        double c0 = Cd[g * 8 + 2 * t], c1 = Cd[g * 8 + 2 * t + 1], d0, d1;
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                     : "=d"(d0), "=d"(d1)
                     : "d"(a), "d"(b), "d"(c0), "d"(c1));
        outd[g * 8 + 2 * t] = d0;
        outd[g * 8 + 2 * t + 1] = d1;
        return;
    }
    case 11: {
        // movmatrix: lane holds (groupID, 2 threadID_in_group + i) of an 8x8
        // b16 matrix; afterwards the same elements of its transpose.
        unsigned x = M[g * 8 + 2 * t] | ((unsigned)M[g * 8 + 2 * t + 1] << 16), y;
        asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(y) : "r"(x));
        outm[g * 8 + 2 * t] = (unsigned short)y;
        outm[g * 8 + 2 * t + 1] = (unsigned short)(y >> 16);
        return;
    }
    }
    int* o = out + form * 128;
    for (int i = 0; i < (rows == 16 ? 4 : 2); i++) o[acc_index(i)] = d[i];
}
