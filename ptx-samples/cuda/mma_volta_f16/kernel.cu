// Volta's warp-level mma.sync.aligned.m8n8k4 with f16 A and B (inline PTX),
// in every layout (A and B each .row or .col) and accumulator pairing that
// ptxas accepts (D and C f32 and f32, f16 and f16, f32 and f16; an f16 D
// with an f32 C it refuses): 12 forms, one warp per block, blockIdx.x picks
// the form (bits 0-1: A and B layouts, bits 2-3: the D/C types).
//
// A warp computes four independent 8x8x4 products, one per quad-pair
// (lanes 4q..4q+3 and 4q+16..4q+19). The matrices are row-major in global
// memory, four of each: A[q] 8 x 4, B[q] 4 x 8, C[q] 8 x 8 (f32 in C, the
// same values as f16 in C16). Each lane loads its fragment elements at the
// positions the PTX ISA's m8n8k4 figures give (section 9.7.15.5.1) and
// stores its D elements the same way, as f32, to out[form][q][row][col].

// f16 element positions for lane `lane`: l = lane % 4, up = 4 for the high
// group (lanes 16-31).
__device__ int lane_q() { return ((threadIdx.x & 31) % 16) / 4; }
__device__ int lane_l() { return threadIdx.x & 3; }
__device__ int lane_up() { return (threadIdx.x & 31) < 16 ? 0 : 4; }

// Element i (0..3) of A: .row: row l + up, column i; .col: row i + up,
// column l.
__device__ unsigned short a_elem(const unsigned short* A, bool row, int i) {
    int q = lane_q(), l = lane_l(), up = lane_up();
    int r = row ? l + up : i + up, c = row ? i : l;
    return A[q * 32 + r * 4 + c];
}

// Element i (0..3) of B: .row: row l, column i + up; .col: row i, column
// l + up.
__device__ unsigned short b_elem(const unsigned short* B, bool row, int i) {
    int q = lane_q(), l = lane_l(), up = lane_up();
    int r = row ? l : i, c = row ? i + up : l + up;
    return B[q * 32 + r * 8 + c];
}

__device__ unsigned pack(unsigned short lo, unsigned short hi) {
    return (unsigned)lo | ((unsigned)hi << 16);
}

// Accumulator element i (0..7): f16: row l + up, column i; f32: row
// (lane & 1) + (i & 2) + up, column (i & 4) + (lane & 2) + (i & 1).
__device__ int acc_index(bool f16, int i) {
    int lane = threadIdx.x & 31, q = lane_q(), up = lane_up();
    int r = f16 ? lane_l() + up : (lane & 1) + (i & 2) + up;
    int c = f16 ? i : (i & 4) + (lane & 2) + (i & 1);
    return q * 64 + r * 8 + c;
}

__device__ float h2f(unsigned short h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}

#define LAYOUT(AL, BL) "mma.sync.aligned.m8n8k4." AL "." BL "."

// D f32, C f32.
#define MMA_FF(AL, BL)                                                                      \
    asm volatile(LAYOUT(AL, BL) "f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9},"       \
                 " {%10,%11}, {%12,%13,%14,%15,%16,%17,%18,%19};"                           \
                 : "=f"(df[0]), "=f"(df[1]), "=f"(df[2]), "=f"(df[3]), "=f"(df[4]),          \
                   "=f"(df[5]), "=f"(df[6]), "=f"(df[7])                                     \
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "f"(cf[0]), "f"(cf[1]),       \
                   "f"(cf[2]), "f"(cf[3]), "f"(cf[4]), "f"(cf[5]), "f"(cf[6]), "f"(cf[7]))
// D f16, C f16.
#define MMA_HH(AL, BL)                                                                      \
    asm volatile(LAYOUT(AL, BL) "f16.f16.f16.f16 {%0,%1,%2,%3}, {%4,%5}, {%6,%7},"          \
                 " {%8,%9,%10,%11};"                                                        \
                 : "=r"(dh[0]), "=r"(dh[1]), "=r"(dh[2]), "=r"(dh[3])                        \
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(ch[0]), "r"(ch[1]),       \
                   "r"(ch[2]), "r"(ch[3]))
// D f32, C f16.
#define MMA_FH(AL, BL)                                                                      \
    asm volatile(LAYOUT(AL, BL) "f32.f16.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9},"       \
                 " {%10,%11}, {%12,%13,%14,%15};"                                           \
                 : "=f"(df[0]), "=f"(df[1]), "=f"(df[2]), "=f"(df[3]), "=f"(df[4]),          \
                   "=f"(df[5]), "=f"(df[6]), "=f"(df[7])                                     \
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(ch[0]), "r"(ch[1]),       \
                   "r"(ch[2]), "r"(ch[3]))
#define LAYOUTS(M)                                                                          \
    switch (form & 3) {                                                                     \
    case 0: M("row", "row"); break;                                                         \
    case 1: M("row", "col"); break;                                                         \
    case 2: M("col", "row"); break;                                                         \
    default: M("col", "col"); break;                                                        \
    }

extern "C" __global__ void mma_volta_f16_kernel(const unsigned short* A, const unsigned short* B,
                                                const float* C, const unsigned short* C16,
                                                float* out) {
    int form = blockIdx.x;
    bool a_row = (form & 2) == 0, b_row = (form & 1) == 0;
    int types = form >> 2;  // 0: D f32 C f32, 1: f16 f16, 2: f32 f16
    bool d_f16 = types == 1;
    unsigned a[2], b[2], ch[4], dh[4];
    float cf[8], df[8];
    for (int r = 0; r < 2; r++) {
        a[r] = pack(a_elem(A, a_row, 2 * r), a_elem(A, a_row, 2 * r + 1));
        b[r] = pack(b_elem(B, b_row, 2 * r), b_elem(B, b_row, 2 * r + 1));
    }
    for (int r = 0; r < 4; r++)
        ch[r] = pack(C16[acc_index(true, 2 * r)], C16[acc_index(true, 2 * r + 1)]);
    for (int i = 0; i < 8; i++) cf[i] = C[acc_index(false, i)];
    switch (types) {
    case 0: LAYOUTS(MMA_FF); break;
    case 1: LAYOUTS(MMA_HH); break;
    default: LAYOUTS(MMA_FH); break;
    }
    float* o = out + form * 256;
    for (int i = 0; i < 8; i++) {
        float v = d_f16 ? h2f((unsigned short)(dh[i / 2] >> (16 * (i % 2)))) : df[i];
        o[acc_index(d_f16, i)] = v;
    }
}
