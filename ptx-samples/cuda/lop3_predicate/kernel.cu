// lop3 with a predicate output (PTX ISA 8.2: lop3.BoolOp.b32 d|p, a, b, c,
// immLut, q with .BoolOp .or or .and), which CUDA has no intrinsic for, as
// inline PTX: d = F(a, b, c) from the truth table immLut, p = (d != 0)
// BoolOp q. Eight truth tables (constants, and/or/xor of three, majority,
// a multiplexer, nor), each in four forms: .or and .and with q, and with
// !q writing d to the sink `_`. Out: the eight d words, then one word of
// the 32 predicates (four bits per table).
#include <cuda/std/cstdint>
using cuda::std::uint32_t;

template <int LUT>
static __device__ uint32_t lop3_preds(uint32_t a, uint32_t b, uint32_t c, uint32_t q,
                                      uint32_t *d) {
    uint32_t bits;
    asm("{\n\t"
        ".reg .pred q, p0, p1, p2, p3;\n\t"
        ".reg .b32 t0, t1;\n\t"
        "setp.ne.u32 q, %5, 0;\n\t"
        "lop3.or.b32 %0|p0, %2, %3, %4, %6, q;\n\t"
        "lop3.and.b32 t0|p1, %2, %3, %4, %6, q;\n\t"
        "lop3.or.b32 _|p2, %2, %3, %4, %6, !q;\n\t"
        "lop3.and.b32 _|p3, %2, %3, %4, %6, !q;\n\t"
        "selp.b32 %1, 1, 0, p0;\n\t"
        "selp.b32 t1, 2, 0, p1;\n\t"
        "or.b32 %1, %1, t1;\n\t"
        "selp.b32 t1, 4, 0, p2;\n\t"
        "or.b32 %1, %1, t1;\n\t"
        "selp.b32 t1, 8, 0, p3;\n\t"
        "or.b32 %1, %1, t1;\n\t"
        "}"
        : "=r"(*d), "=r"(bits)
        : "r"(a), "r"(b), "r"(c), "r"(q), "n"(LUT));
    return bits;
}

extern "C" __global__ void lop3_predicate(const uint32_t *a, const uint32_t *b,
                                          const uint32_t *c, const uint32_t *q,
                                          uint32_t *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t x = a[i], y = b[i], z = c[i], w = q[i];
    uint32_t *o = out + 9 * i;
    uint32_t p = 0;
    p |= lop3_preds<0x00>(x, y, z, w, &o[0]) << 0;
    p |= lop3_preds<0xFF>(x, y, z, w, &o[1]) << 4;
    p |= lop3_preds<0x80>(x, y, z, w, &o[2]) << 8;
    p |= lop3_preds<0xFE>(x, y, z, w, &o[3]) << 12;
    p |= lop3_preds<0x96>(x, y, z, w, &o[4]) << 16;
    p |= lop3_preds<0xE8>(x, y, z, w, &o[5]) << 20;
    p |= lop3_preds<0xCA>(x, y, z, w, &o[6]) << 24;
    p |= lop3_preds<0x01>(x, y, z, w, &o[7]) << 28;
    o[8] = p;
}
