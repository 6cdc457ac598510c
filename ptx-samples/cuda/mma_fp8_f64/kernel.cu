// Warp-level mma.sync (inline PTX) with fp8 operands (sm_89+) and the f64
// shapes of sm_90. One warp per block; blockIdx.x picks the form. Each lane
// loads its fragment elements from row-major global matrices at the
// positions the PTX ISA's fragment figures give (section 9.7.14.5) and
// stores its D elements the same way.
//
// fp8: A 16 x 32 and B 32 x 8 bytes, given twice: as e4m3 (A4, B4) and as
// e5m2 (A5, B5) encodings of the same values; C 16 x 8 (f32, and f16 in
// C16). f64: A 16 x 16, B 16 x 8, C 16 x 8.

// Register r of an 8-bit A fragment: four elements of row groupID (+8 for
// odd r), columns threadID_in_group * 4 + i (+16 for r >= 2).
__device__ unsigned load_a8(const unsigned char* A, int r) {
    int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    int row = g + ((r & 1) ? 8 : 0), col = t * 4 + ((r >= 2) ? 16 : 0);
    unsigned v = 0;
    for (int i = 0; i < 4; i++) v |= (unsigned)A[row * 32 + col + i] << (8 * i);
    return v;
}

// Register r of an 8-bit B fragment: column groupID, rows
// threadID_in_group * 4 + i (+16 for r = 1).
__device__ unsigned load_b8(const unsigned char* B, int r) {
    int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) v |= (unsigned)B[(t * 4 + i + 16 * r) * 8 + g] << (8 * i);
    return v;
}

// Accumulator element c_i (32- and 64-bit): row groupID (+8 for i >= 2),
// column threadID_in_group * 2 + (i & 1).
__device__ int acc_index(int i) {
    int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    return (g + (i >= 2 ? 8 : 0)) * 8 + t * 2 + (i & 1);
}

#define FP8_K32(TYPES, A, B)                                                            \
    {                                                                                    \
        unsigned a0 = load_a8(A, 0), a1 = load_a8(A, 1), a2 = load_a8(A, 2),             \
                 a3 = load_a8(A, 3), b0 = load_b8(B, 0), b1 = load_b8(B, 1);             \
        asm volatile("mma.sync.aligned.m16n8k32.row.col." TYPES                          \
                     " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"        \
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                    \
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1),             \
                       "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));                      \
    }

extern "C" __global__ void mma_fp8_f64_kernel(const unsigned char* A4, const unsigned char* A5,
                                              const unsigned char* B4, const unsigned char* B5,
                                              const float* C, const unsigned short* C16,
                                              const double* Ad, const double* Bd,
                                              const double* Cd, float* out,
                                              unsigned short* out16, double* outd) {
    int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    int form = blockIdx.x;
    float c[4], d[4];
    for (int i = 0; i < 4; i++) c[i] = C[acc_index(i)];
    if (form < 3) {
        if (form == 0) FP8_K32("f32.e4m3.e4m3.f32", A4, B4)
        else if (form == 1) FP8_K32("f32.e5m2.e4m3.f32", A5, B4)
        else FP8_K32("f32.e4m3.e5m2.f32", A4, B5)
        for (int i = 0; i < 4; i++) out[form * 128 + acc_index(i)] = d[i];
        return;
    }
    if (form == 3) {
        // m16n8k16: a0 (row groupID), a1 (+8), columns threadID_in_group * 4
        // + i; b0 rows threadID_in_group * 4 + i.
        unsigned a0 = load_a8(A5, 0), a1 = load_a8(A5, 1), b0 = load_b8(B5, 0);
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.e5m2.e5m2.f32"
                     " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                     : "r"(a0), "r"(a1), "r"(b0), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
        for (int i = 0; i < 4; i++) out[form * 128 + acc_index(i)] = d[i];
        return;
    }
    if (form == 4) {
        // f16 accumulators: c0 holds row groupID, columns 2 threadID_in_group
        // and +1 (low half first); c1 the same of row groupID + 8.
        unsigned c16[2], d16[2];
        for (int i = 0; i < 2; i++) {
            int at = (g + 8 * i) * 8 + 2 * t;
            c16[i] = C16[at] | ((unsigned)C16[at + 1] << 16);
        }
        unsigned a0 = load_a8(A4, 0), a1 = load_a8(A4, 1), a2 = load_a8(A4, 2),
                 a3 = load_a8(A4, 3), b0 = load_b8(B4, 0), b1 = load_b8(B4, 1);
        asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16"
                     " {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                     : "=r"(d16[0]), "=r"(d16[1])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c16[0]),
                       "r"(c16[1]));
        for (int i = 0; i < 2; i++) {
            int at = (g + 8 * i) * 8 + 2 * t;
            out16[at] = (unsigned short)d16[i];
            out16[at + 1] = (unsigned short)(d16[i] >> 16);
        }
        return;
    }
    // f64 m16n8k4/k8/k16: a_i at row groupID (+8 for odd i), column
    // threadID_in_group + 4 (i / 2); b_i at row threadID_in_group + 4 i,
    // column groupID.
    double a[8], b[4], cd[4], dd[4];
    for (int i = 0; i < 8; i++) a[i] = Ad[(g + 8 * (i & 1)) * 16 + t + 4 * (i >> 1)];
    for (int i = 0; i < 4; i++) b[i] = Bd[(t + 4 * i) * 8 + g];
    for (int i = 0; i < 4; i++) cd[i] = Cd[acc_index(i)];
    if (form == 5) {
        asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64"
                     " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                     : "=d"(dd[0]), "=d"(dd[1]), "=d"(dd[2]), "=d"(dd[3])
                     : "d"(a[0]), "d"(a[1]), "d"(b[0]), "d"(cd[0]), "d"(cd[1]), "d"(cd[2]),
                       "d"(cd[3]));
    } else if (form == 6) {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64"
                     " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                     : "=d"(dd[0]), "=d"(dd[1]), "=d"(dd[2]), "=d"(dd[3])
                     : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]),
                       "d"(cd[0]), "d"(cd[1]), "d"(cd[2]), "d"(cd[3]));
    } else {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64"
                     " {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15},"
                     " {%16,%17,%18,%19};"
                     : "=d"(dd[0]), "=d"(dd[1]), "=d"(dd[2]), "=d"(dd[3])
                     : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]),
                       "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]),
                       "d"(cd[0]), "d"(cd[1]), "d"(cd[2]), "d"(cd[3]));
    }
    for (int i = 0; i < 4; i++) outd[(form - 5) * 128 + acc_index(i)] = dd[i];
}
