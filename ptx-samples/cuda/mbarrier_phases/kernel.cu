// The mbarrier instructions themselves (PTX ISA 9.7.13.15, sm_90), written as
// inline PTX: init, arrive (with a count, returning the state), pending_count,
// test_wait and try_wait on a state and on a phase parity, arrive.expect_tx /
// expect_tx / complete_tx (a phase held open until 1024 bytes are accounted for),
// arrive_drop (a warp leaves the barrier for later phases), arrive.noComplete, and
// inval. Every recorded value is independent of the order in which warps arrive:
// counts of threads, the answers of waits, and data moved under the barrier's
// protection.
#include <cuda/std/cstdint>
using cuda::std::uint32_t;
using cuda::std::uint64_t;

static __device__ uint32_t smem(const void *p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
static __device__ uint64_t arrive(uint64_t *bar, uint32_t count) {
    uint64_t state;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1], %2;"
                 : "=l"(state) : "r"(smem(bar)), "r"(count) : "memory");
    return state;
}
static __device__ uint32_t pending(uint64_t state) {
    uint32_t n;
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(n) : "l"(state));
    return n;
}
static __device__ bool test_wait(uint64_t *bar, uint64_t state) {
    uint32_t ok;
    asm volatile("{ .reg .pred p; mbarrier.test_wait.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok) : "r"(smem(bar)), "l"(state) : "memory");
    return ok;
}
static __device__ bool try_wait_parity(uint64_t *bar, uint32_t parity) {
    uint32_t ok;
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2, 1000; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok) : "r"(smem(bar)), "r"(parity) : "memory");
    return ok;
}
static __device__ void wait_parity(uint64_t *bar, uint32_t parity) {
    while (!try_wait_parity(bar, parity)) {
    }
}

#define THREADS 96

extern "C" __global__ void mbarrier_phases(const uint32_t *in, uint32_t *out, uint32_t *per_thread) {
    __shared__ uint64_t bar, bar2;
    __shared__ uint32_t data[256];
    __shared__ uint32_t sum_pending, early_done, late_done;
    const uint32_t t = threadIdx.x;
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(&bar)), "r"(THREADS) : "memory");
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(&bar2)), "r"(11) : "memory");
        sum_pending = 0;
        early_done = 0;
        late_done = 0;
    }
    __syncthreads();

    // Phase 0: everyone arrives once; each state's pending count is within
    // the phase's 96 arrivals.
    uint64_t s0 = arrive(&bar, 1);
    atomicAdd(&sum_pending, pending(s0) <= THREADS ? 1u : 0u);
    while (!test_wait(&bar, s0)) {
    }
    __syncthreads();

    // Phase 1: thread 0 arrives expecting 1024 bytes; warps 1 and 2 then copy
    // 1024 bytes into shared memory, each thread reporting its 16 with
    // complete_tx. The phase cannot complete before the last byte is reported.
    if (t == 0) {
        uint64_t s;
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;"
                     : "=l"(s) : "r"(smem(&bar)), "r"(1024) : "memory");
    } else {
        arrive(&bar, 1);
    }
    if (t >= 32) {
        for (int k = 0; k < 4; ++k) data[(t - 32) * 4 + k] = in[blockIdx.x * 256 + (t - 32) * 4 + k] * 3u;
        asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], %1;" :: "r"(smem(&bar)), "r"(16) : "memory");
    }
    wait_parity(&bar, 1);
    uint32_t v = data[(t * 7) % 256] + data[255 - t];

    // Phase 2: warp 2 arrives and drops out; phases 2 and 3 complete with
    // warps 0 and 1 alone (64 arrivals expected from phase 3 on).
    if (t >= 64) {
        uint64_t s;
        asm volatile("mbarrier.arrive_drop.shared::cta.b64 %0, [%1];" : "=l"(s) : "r"(smem(&bar)) : "memory");
    } else {
        arrive(&bar, 1);
        wait_parity(&bar, 0);
        // Phase 3: the even threads arrive twice over (a count of 2).
        if (t % 2 == 0) arrive(&bar, 2);
        wait_parity(&bar, 1);
        atomicAdd(&late_done, 1u);
    }

    // bar2 (11 expected): thread 0 arrives with 10 without completing; the
    // phase is still open until thread 95 adds the last.
    if (t == 0) {
        uint64_t s;
        asm volatile("mbarrier.arrive.noComplete.shared::cta.b64 %0, [%1], %2;"
                     : "=l"(s) : "r"(smem(&bar2)), "r"(10) : "memory");
        atomicAdd(&early_done, test_wait(&bar2, s) ? 1u : 0u);
    }
    __syncthreads();
    if (t == 95) {
        uint64_t s = arrive(&bar2, 1);
        atomicAdd(&early_done, test_wait(&bar2, s) ? 10u : 0u);
    }
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(smem(&bar)) : "memory");
        asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(smem(&bar2)) : "memory");
        out[blockIdx.x * 4 + 0] = sum_pending;
        out[blockIdx.x * 4 + 1] = early_done;
        out[blockIdx.x * 4 + 2] = late_done;
        out[blockIdx.x * 4 + 3] = (uint32_t)(bar == 0) + 2u * (uint32_t)(bar2 == 0);
    }
    per_thread[blockIdx.x * THREADS + t] = v;
}
