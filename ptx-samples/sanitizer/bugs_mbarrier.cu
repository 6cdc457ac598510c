// Kernels with shared-memory races around mbarriers, for warpjit's racecheck
// (tests/sanitizer_mbarrier.rs asserts the exact reports of each), and one
// correct producer/consumer loop that must make none. Compiled for
// compute_90 (bulk copies, try_wait).
// Regenerate bugs_mbarrier.ptx: python3 ptx-samples/gen/gen_sanitizer.py
#include <cuda/barrier>
#include <cuda/std/cstdint>
#pragma nv_diag_suppress static_var_with_dynamic_init
using cuda::std::uint32_t;
using cuda::std::uint64_t;

static __device__ uint32_t smem(const void *p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
static __device__ void init(uint64_t *bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(bar)), "r"(count) : "memory");
}
static __device__ void arrive(uint64_t *bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(bar)) : "memory");
}
static __device__ void wait_parity(uint64_t *bar, uint32_t parity) {
    uint32_t ok = 0;
    while (!ok) {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(ok) : "r"(smem(bar)), "r"(parity) : "memory");
    }
}

// Thread 0 brings a 256-int tile into shared memory with a bulk copy
// (cuda::memcpy_async with a cuda::barrier: cp.async.bulk completing on the
// mbarrier); every thread arrives, but reads its element between the
// arrival and the wait, before the copy is known to have landed.
extern "C" __global__ void bulk_read_before_wait(const int *in, int *out) {
    __shared__ alignas(128) int tile[256];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    unsigned t = threadIdx.x;
    if (t == 0) init(&bar, blockDim.x);
    __syncthreads();
    if (t == 0) {
        cuda::memcpy_async(tile, in + blockIdx.x * 256, cuda::aligned_size_t<16>(sizeof(int) * 256), bar);
    }
    auto token = bar.arrive();
    int early = tile[t];  // bug: the wait comes after
    bar.wait(cuda::std::move(token));
    out[blockIdx.x * 256 + t] = early + tile[(t + 1) % 256];
}

// A producer warp fills data[] and arrives on `full`; a consumer warp waits
// for the phase and reads. The producer updates its element once more
// after arriving: that write is not ordered before the consumer's read.
extern "C" __global__ void write_after_arrive(const uint32_t *in, uint32_t *out) {
    __shared__ uint64_t full;
    __shared__ uint32_t data[32];
    unsigned t = threadIdx.x, lane = t % 32;
    if (t == 0) init(&full, 32);
    __syncthreads();
    if (t < 32) {
        data[lane] = in[blockIdx.x * 32 + lane];
        arrive(&full);
        data[lane] += 1;  // bug: after the arrival, in the phase the consumer waits for
    } else {
        wait_parity(&full, 0);
        out[blockIdx.x * 32 + lane] = data[lane];
    }
}

// A producer warp (warp 1) fills data[] and arrives on `full`; the
// consumer warp (warp 0) waits for the phase with the wrong parity: the
// first phase has parity 0, and a parity-1 wait on a fresh mbarrier
// succeeds at once (it reports the phase before the first complete), so the
// consumer reads data[] while the producer writes it.
extern "C" __global__ void wait_wrong_parity(const uint32_t *in, uint32_t *out) {
    __shared__ uint64_t full;
    __shared__ uint32_t data[32];
    unsigned t = threadIdx.x, lane = t % 32;
    if (t == 0) init(&full, 32);
    __syncthreads();
    if (t >= 32) {
        data[lane] = in[blockIdx.x * 32 + lane];
        arrive(&full);
    } else {
        wait_parity(&full, 1);  // bug: the first phase's parity is 0
        out[blockIdx.x * 32 + lane] = data[lane];
    }
}

// Correct: round after round, a producer warp (warp 1) fills data[] and
// arrives on `full`; the consumer warp (warp 0) waits on `full` for the
// round's parity, reads, and arrives on `empty`, which the producer waits on
// before refilling. No race.
extern "C" __global__ void rounds_right_parity(const uint32_t *in, uint32_t *out, int n) {
    __shared__ uint64_t full, empty;
    __shared__ uint32_t data[32];
    unsigned t = threadIdx.x, lane = t % 32;
    if (t == 0) {
        init(&full, 32);
        init(&empty, 32);
    }
    __syncthreads();
    uint32_t acc = 0;
#pragma unroll 1
    for (int r = 0; r < n; ++r) {
        if (t >= 32) {
            if (r > 0) wait_parity(&empty, (r - 1) & 1);
            data[lane] = in[(blockIdx.x * n + r) * 32 + lane];
            arrive(&full);
        } else {
            wait_parity(&full, r & 1);
            acc += data[lane];
            arrive(&empty);
        }
    }
    if (t < 32) out[blockIdx.x * 32 + lane] = acc;
}
