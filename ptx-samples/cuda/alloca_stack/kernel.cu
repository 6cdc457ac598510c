// The thread's stack (PTX ISA 7.3, sm_52: alloca, stacksave, stackrestore),
// what clang emits for variable-length arrays and __builtin_alloca; NVRTC
// has neither, so they are inline PTX here. Each thread sorts windows of
// its own length (1 to 61 words, three rounds of growing windows, each
// round's memory given back with stackrestore), and a __noinline__
// function with a local array and an allocation of its own runs between
// the allocation and its use, so its frame must lie above the caller's
// allocations. Out per thread: per round the window's minimum, median,
// maximum and sum, then the function's result and whether the stack
// pointer came back (1).
#include <cuda/std/cstdint>
using cuda::std::uint32_t;
using cuda::std::uint64_t;

static __device__ __forceinline__ uint32_t *stack_alloc(uint64_t bytes) {
    uint64_t p;
    asm volatile("{\n\t"
                 ".reg .u64 t;\n\t"
                 "alloca.u64 t, %1, 16;\n\t"
                 "cvta.local.u64 %0, t;\n\t"
                 "}"
                 : "=l"(p)
                 : "l"(bytes)
                 : "memory");
    return reinterpret_cast<uint32_t *>(p);
}

static __device__ __forceinline__ uint64_t stack_save() {
    uint64_t s;
    asm volatile("stacksave.u64 %0;" : "=l"(s) : : "memory");
    return s;
}

static __device__ __forceinline__ void stack_restore(uint64_t s) {
    asm volatile("stackrestore.u64 %0;" : : "l"(s) : "memory");
}

// A local array indexed at run time (so it stays in local memory) and an
// allocation of its own: both in this function's frame, above the
// caller's allocations.
static __device__ __noinline__ uint32_t mix(const uint32_t *w, uint32_t n, uint32_t seed) {
    uint32_t tmp[16];
    for (int k = 0; k < 16; k++) tmp[k] = seed * (k + 1);
    uint32_t *scratch = stack_alloc(4 * 16);
    for (int k = 0; k < 16; k++) scratch[k] = tmp[(seed + k) & 15] ^ w[k % n];
    uint32_t h = 0;
    for (int k = 0; k < 16; k++) h = h * 31u + scratch[k];
    return h;
}

extern "C" __global__ void alloca_stack(const uint32_t *in, uint32_t *out, int n_in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t *o = out + 14 * i;
    uint64_t start = stack_save();
    uint32_t base_len = 1 + (i * 7) % 61;
    for (int round = 0; round < 3; round++) {
        uint32_t len = base_len + round;
        uint64_t saved = stack_save();
        uint32_t *w = stack_alloc(4ull * len);
        for (uint32_t k = 0; k < len; k++) w[k] = in[(i + 3 * k + round) % n_in];
        // Insertion sort of the window.
        for (uint32_t k = 1; k < len; k++) {
            uint32_t v = w[k];
            uint32_t j = k;
            while (j > 0 && w[j - 1] > v) {
                w[j] = w[j - 1];
                j--;
            }
            w[j] = v;
        }
        uint32_t sum = 0;
        for (uint32_t k = 0; k < len; k++) sum += w[k];
        o[4 * round + 0] = w[0];
        o[4 * round + 1] = w[len / 2];
        o[4 * round + 2] = w[len - 1];
        o[4 * round + 3] = sum;
        stack_restore(saved);
    }
    uint32_t len = base_len;
    uint32_t *w = stack_alloc(4ull * len);
    for (uint32_t k = 0; k < len; k++) w[k] = in[(i + k) % n_in] + k;
    uint32_t h = mix(w, len, i);
    // The caller's allocation is intact after the call.
    for (uint32_t k = 0; k < len; k++) h += w[k] * (k + 1);
    o[12] = h;
    stack_restore(start);
    o[13] = stack_save() == start;
}
