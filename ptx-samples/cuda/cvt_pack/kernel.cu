// cvt.pack.sat (PTX ISA 6.5, sm_72 and later), which CUDA has no intrinsic
// for, as inline PTX (cvt.pack.sat.{u16,s16}.s32 d, a, b and
// cvt.pack.sat.{u8,s8,u4,s4}.s32.b32 d, a, b, c): two s32 values clamped to u16/s16/u8/s8/u4/s4 and
// packed (a above b), the 8- and 4-bit forms with c's low bits above the
// pair; and the usual chain that packs four s32 values into four s8 lanes
// (the result of one conversion is the c of the next).
#include <cuda/std/cstdint>
using cuda::std::int32_t;
using cuda::std::uint32_t;

#define PACK2(name, type)                                                          \
    static __device__ uint32_t name(int32_t a, int32_t b) {                        \
        uint32_t d;                                                                \
        asm("cvt.pack.sat." type ".s32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));     \
        return d;                                                                  \
    }
#define PACK3(name, type)                                                            \
    static __device__ uint32_t name(int32_t a, int32_t b, uint32_t c) {              \
        uint32_t d;                                                                  \
        asm("cvt.pack.sat." type ".s32.b32 %0, %1, %2, %3;"                          \
            : "=r"(d)                                                                \
            : "r"(a), "r"(b), "r"(c));                                               \
        return d;                                                                    \
    }

PACK2(pack_u16, "u16")
PACK2(pack_s16, "s16")
PACK3(pack_u8, "u8")
PACK3(pack_s8, "s8")
PACK3(pack_u4, "u4")
PACK3(pack_s4, "s4")

extern "C" __global__ void cvt_pack(const int32_t *a, const int32_t *b, const uint32_t *c,
                                    uint32_t *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int32_t x = a[i], y = b[i];
    uint32_t z = c[i];
    uint32_t *o = out + 8 * i;
    o[0] = pack_u16(x, y);
    o[1] = pack_s16(x, y);
    o[2] = pack_u8(x, y, z);
    o[3] = pack_s8(x, y, z);
    o[4] = pack_u4(x, y, z);
    o[5] = pack_s4(x, y, z);
    // Four lanes: x, y in the low half, y - x and x + 1 above them.
    o[6] = pack_s8(x, y, pack_s8(y - x, x + 1, 0));
    o[7] = pack_u8(y, x, pack_u8(x >> 4, y >> 4, 0));
}
