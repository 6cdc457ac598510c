// Hopper's wgmma.mma_async (inline PTX, sm_90a), one warpgroup (128
// threads) per block, blockIdx.x picks the form: A in registers or in shared
// memory, f16 (k16), tf32 (k8), e4m3/e5m2 (k32) and s8/u8 (k32) inputs,
// f32, f16 and s32 accumulators, N = 16.
//
// Inputs per form: A 64 x 32 bytes (row m holds K little-endian elements),
// B 16 x 32 bytes (B transposed: row n holds column n's K elements), C 64 x
// 16 raw 32-bit accumulator bits (f16 forms: the low half). Shared memory
// holds A and B K-major without swizzle: 8-row core matrices of 16-byte
// rows, the two 16-byte halves of a row 128 bytes apart (LBO), 8-row groups
// 256 bytes apart (SBO). The PTX ISA (section 9.7.15) gives the register
// layouts: A's four registers in warp w hold rows 16w + groupID (+8 for odd
// registers), elements at columns p * threadID_in_group + i (+4p for
// registers 2 and 3), p elements per register; D's 8-column block j holds
// rows 16w + groupID (+8), columns 8j + 2 threadID_in_group (+1).

typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

__device__ uint64_t desc(const void* smem) {
    uint32_t addr = (uint32_t)__cvta_generic_to_shared(smem);
    return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(128 >> 4) << 16) |
           ((uint64_t)(256 >> 4) << 32);
}

__device__ int canon(int row, int byte) { return (row / 8) * 256 + (row % 8) * 16 + (byte / 16) * 128 + byte % 16; }

#define FENCE_IN asm volatile("fence.proxy.async.shared::cta;\n wgmma.fence.sync.aligned;" ::: "memory")
#define FENCE_OUT asm volatile("wgmma.commit_group.sync.aligned;\n wgmma.wait_group.sync.aligned 0;" ::: "memory")

#define D8 "{%0,%1,%2,%3,%4,%5,%6,%7}"
#define D8_OUT "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7])
#define D4 "{%0,%1,%2,%3}"
#define D4_OUT "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])

extern "C" __global__ void __launch_bounds__(128) wgmma_forms_kernel(
    const unsigned char* A, const unsigned char* B, const uint32_t* C, uint32_t* out) {
    __shared__ __align__(1024) unsigned char sa[2048];
    __shared__ __align__(1024) unsigned char sb[512];
    static const int elem_bytes[8] = {2, 2, 4, 4, 1, 1, 1, 1};
    int form = blockIdx.x, tid = threadIdx.x;
    int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
    const unsigned char* a = A + form * 2048;
    const unsigned char* b = B + form * 512;
    const uint32_t* c = C + form * 1024;
    for (int i = tid; i < 2048; i += 128) sa[canon(i / 32, i % 32)] = a[i];
    for (int i = tid; i < 512; i += 128) sb[canon(i / 32, i % 32)] = b[i];
    __syncthreads();
    int eb = elem_bytes[form], p = 4 / eb;
    uint32_t ar[4];
    for (int r = 0; r < 4; r++) {
        int row = 16 * warp + g + 8 * (r % 2);
        int col = p * t + 4 * p * (r / 2);
        const unsigned char* at = a + row * 32 + col * eb;
        ar[r] = at[0] | (at[1] << 8) | (at[2] << 16) | ((uint32_t)at[3] << 24);
    }
    bool f16acc = form == 1 || form == 5;
    uint32_t d[8];
    for (int j = 0; j < 2; j++)
        for (int q = 0; q < 4; q++) {
            if (f16acc) {
                if (q >= 2) continue;
                int at = (16 * warp + g + 8 * q) * 16 + 8 * j + 2 * t;
                d[2 * j + q] = (c[at] & 0xFFFF) | (c[at + 1] << 16);
            } else {
                d[4 * j + q] = c[(16 * warp + g + 8 * (q / 2)) * 16 + 8 * j + 2 * t + q % 2];
            }
        }
    uint64_t da = desc(sa), db = desc(sb);
    FENCE_IN;
    // scale-d is a predicate: set from the last input operand.
#define WG(BODY, SCALE_OPERAND) "{\n .reg .pred sd;\n setp.ne.b32 sd, " SCALE_OPERAND ", 0;\n " BODY "\n}"
    switch (form) {
    case 0:
        asm volatile(WG("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 " D8 ", {%8,%9,%10,%11}, %12, sd, 1, 1, 0;", "%13")
                     : D8_OUT : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db), "r"(1));
        break;
    case 1:
        asm volatile(WG("wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16 " D4 ", %4, %5, sd, 1, -1, 0, 0;", "%6")
                     : D4_OUT : "l"(da), "l"(db), "r"(1));
        break;
    case 2:
        asm volatile(WG("wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 " D8 ", %8, %9, sd, 1, 1;", "%10")
                     : D8_OUT : "l"(da), "l"(db), "r"(1));
        break;
    case 3:
        asm volatile(WG("wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 " D8 ", {%8,%9,%10,%11}, %12, sd, -1, 1;", "%13")
                     : D8_OUT : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db), "r"(0));
        break;
    case 4:
        asm volatile(WG("wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e5m2 " D8 ", {%8,%9,%10,%11}, %12, sd, 1, 1;", "%13")
                     : D8_OUT : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db), "r"(1));
        break;
    case 5:
        asm volatile(WG("wgmma.mma_async.sync.aligned.m64n16k32.f16.e5m2.e4m3 " D4 ", %4, %5, sd, 1, 1;", "%6")
                     : D4_OUT : "l"(da), "l"(db), "r"(1));
        break;
    case 6:
        asm volatile(WG("wgmma.mma_async.sync.aligned.m64n16k32.satfinite.s32.s8.u8 " D8 ", %8, %9, sd;", "%10")
                     : D8_OUT : "l"(da), "l"(db), "r"(1));
        break;
    default:
        asm volatile(WG("wgmma.mma_async.sync.aligned.m64n16k32.s32.u8.u8 " D8 ", {%8,%9,%10,%11}, %12, sd;", "%13")
                     : D8_OUT : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db), "r"(1));
        break;
    }
    FENCE_OUT;
    uint32_t* o = out + form * 1024;
    for (int j = 0; j < 2; j++)
        for (int q = 0; q < 4; q++) {
            if (f16acc) {
                if (q >= 2) continue;
                int at = (16 * warp + g + 8 * q) * 16 + 8 * j + 2 * t;
                o[at] = d[2 * j + q] & 0xFFFF;
                o[at + 1] = d[2 * j + q] >> 16;
            } else {
                o[(16 * warp + g + 8 * (q / 2)) * 16 + 8 * j + 2 * t + q % 2] = d[4 * j + q];
            }
        }
}
