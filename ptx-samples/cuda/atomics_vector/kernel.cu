// Vector atomics (PTX ISA 8.1, sm_90, global memory only): CUDA 12's
// atomicAdd(float2*, float2) and atomicAdd(float4*, float4), which NVRTC
// compiles for compute_90 to atom.global.v2/v4.f32.add (red when the result
// is unused), and the f16/bf16 vector forms CUDA has no intrinsic for as
// inline PTX: atom/red .v2/.v4/.v8 of .f16/.bf16 and .v2/.v4 of
// .f16x2/.bf16x2 with .add, .min and .max. Each element is its own atomic.
// Deterministic: an atomic whose old values are kept updates the thread's
// own vector; the shared vectors many threads update only receive
// integer-valued sums (exact in any order) or minima and maxima.
#include <cuda_fp16.h>
#include <cuda/std/cstdint>
using cuda::std::uint16_t;
using cuda::std::uint32_t;

static __device__ void atom_v8_f16_add(uint16_t *p, const uint16_t *b, uint16_t *old) {
    asm volatile(
        "atom.global.v8.f16.add.noftz {%0, %1, %2, %3, %4, %5, %6, %7}, [%8], "
        "{%9, %10, %11, %12, %13, %14, %15, %16};"
        : "=h"(old[0]), "=h"(old[1]), "=h"(old[2]), "=h"(old[3]), "=h"(old[4]), "=h"(old[5]),
          "=h"(old[6]), "=h"(old[7])
        : "l"(p), "h"(b[0]), "h"(b[1]), "h"(b[2]), "h"(b[3]), "h"(b[4]), "h"(b[5]), "h"(b[6]),
          "h"(b[7])
        : "memory");
}

static __device__ void atom_v2_bf16_max(uint16_t *p, uint16_t b0, uint16_t b1, uint16_t *old) {
    asm volatile("atom.global.v2.bf16.max.noftz {%0, %1}, [%2], {%3, %4};"
                 : "=h"(old[0]), "=h"(old[1])
                 : "l"(p), "h"(b0), "h"(b1)
                 : "memory");
}

static __device__ void atom_v4_f16x2_min(uint32_t *p, const uint32_t *b, uint32_t *old) {
    asm volatile("atom.global.v4.f16x2.min.noftz {%0, %1, %2, %3}, [%4], {%5, %6, %7, %8};"
                 : "=r"(old[0]), "=r"(old[1]), "=r"(old[2]), "=r"(old[3])
                 : "l"(p), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3])
                 : "memory");
}

static __device__ void red_v4_bf16x2_max(uint32_t *p, const uint32_t *b) {
    asm volatile("red.global.v4.bf16x2.max.noftz [%0], {%1, %2, %3, %4};"
                 :
                 : "l"(p), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3])
                 : "memory");
}

static __device__ void red_v2_f16x2_add(uint32_t *p, uint32_t b0, uint32_t b1) {
    asm volatile("red.global.v2.f16x2.add.noftz [%0], {%1, %2};" : : "l"(p), "r"(b0), "r"(b1) : "memory");
}

static __device__ void red_v8_bf16_min(uint16_t *p, const uint16_t *b) {
    asm volatile("red.global.v8.bf16.min.noftz [%0], {%1, %2, %3, %4, %5, %6, %7, %8};"
                 :
                 : "l"(p), "h"(b[0]), "h"(b[1]), "h"(b[2]), "h"(b[3]), "h"(b[4]), "h"(b[5]),
                   "h"(b[6]), "h"(b[7])
                 : "memory");
}

// f16 and bf16 bits of a small integer k (|k| <= 64).
static __device__ uint16_t f16_of(int k) { return __half_as_ushort(__int2half_rn(k)); }
static __device__ uint16_t bf16_of(int k) { return (uint16_t)(__float_as_uint((float)k) >> 16); }

// Every thread owns 64 bytes of `own` (as f32, f16 and packed halves) and
// 16 bytes of `owned_old`-style outputs; `shared_*` vectors are updated by
// many threads.
extern "C" __global__ void atomics_vector(float *own_f32, float *old_f32, uint16_t *own_h,
                                          uint16_t *old_h, uint32_t *own_x, uint32_t *old_x,
                                          float *shared_f32, uint32_t *shared_x,
                                          uint16_t *shared_h, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int s = i % 8;
    // f32: the thread's own float4 and float2 (old values kept), then the
    // shared ones (integer-valued additions, results unused).
    float4 o4 = atomicAdd((float4 *)(own_f32 + 8 * i),
                          make_float4(0.5f * i, -1.25f, 3.0f, i & 7));
    float2 o2 = atomicAdd((float2 *)(own_f32 + 8 * i + 4), make_float2(1e-3f * i, -i));
    float *of = old_f32 + 6 * i;
    of[0] = o4.x; of[1] = o4.y; of[2] = o4.z; of[3] = o4.w; of[4] = o2.x; of[5] = o2.y;
    atomicAdd((float4 *)(shared_f32 + 4 * s), make_float4(1.0f, i % 5, -(i % 3), 2.0f));
    atomicAdd((float2 *)(shared_f32 + 32 + 2 * s), make_float2(i % 11, 0.25f));

    // Halves: the thread's own v8.f16 add and v2.bf16 max, packed v4.f16x2 min.
    uint16_t b8[8], oh[8], ob[2];
    for (int k = 0; k < 8; k++) b8[k] = f16_of(k - 3 + (i & 3));
    atom_v8_f16_add(own_h + 16 * i, b8, oh);
    atom_v2_bf16_max(own_h + 16 * i + 8, bf16_of(i % 9 - 4), bf16_of(4 - i % 7), ob);
    for (int k = 0; k < 8; k++) old_h[10 * i + k] = oh[k];
    old_h[10 * i + 8] = ob[0];
    old_h[10 * i + 9] = ob[1];
    uint32_t bx[4], ox[4];
    for (int k = 0; k < 4; k++)
        bx[k] = (uint32_t)f16_of(k - i % 5) | (uint32_t)f16_of(i % 6 - k) << 16;
    atom_v4_f16x2_min(own_x + 4 * i, bx, ox);
    for (int k = 0; k < 4; k++) old_x[4 * i + k] = ox[k];

    // Shared packed and half vectors: max, add (integer-valued), min.
    for (int k = 0; k < 4; k++)
        bx[k] = (uint32_t)bf16_of((i * (k + 1)) % 13 - 6) | (uint32_t)bf16_of(i % (k + 2)) << 16;
    red_v4_bf16x2_max(shared_x + 4 * s, bx);
    red_v2_f16x2_add(shared_x + 32 + 2 * s, (uint32_t)f16_of(1) | (uint32_t)f16_of(i % 3) << 16,
                     (uint32_t)f16_of(-(i % 4)));
    for (int k = 0; k < 8; k++) b8[k] = bf16_of((i + 3 * k) % 17 - 8);
    red_v8_bf16_min(shared_h + 8 * s, b8);
}
