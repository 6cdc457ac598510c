// Global (and a little shared) integer atomics on int, unsigned int,
// unsigned long long and long long. Every result written by the kernel is
// independent of the order in which the atomics are performed.

#define NUM_INC_BINS 100u   // atomicInc wraps at 99
#define NUM_DEC_BINS 50u    // atomicDec wraps at 49
#define NUM_CAS_SLOTS 64

extern "C" __global__ void atomics_int(const int* __restrict__ sdata,
                                       const unsigned int* __restrict__ udata,
                                       int n,
                                       int* iacc,                    // 8 counters
                                       unsigned int* uacc,           // 12 counters
                                       unsigned long long* acc64,    // 8 counters
                                       long long* sacc64,            // 2 counters
                                       unsigned int* inc_hist,       // NUM_INC_BINS
                                       unsigned int* dec_hist,       // NUM_DEC_BINS
                                       unsigned int* ticket_mark,    // n
                                       int* cas_flags,               // NUM_CAS_SLOTS
                                       unsigned int* cas_wins,       // NUM_CAS_SLOTS
                                       unsigned long long* cas64,    // NUM_CAS_SLOTS
                                       unsigned int* block_stats)    // 2 per block
{
    __shared__ int s_neg;
    __shared__ unsigned int s_max;
    if (threadIdx.x == 0) {
        s_neg = 0;
        s_max = 0u;
    }
    __syncthreads();

    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) {
        int d = sdata[tid];
        unsigned int u = udata[tid];

        // ---- signed 32-bit ----
        atomicAdd(&iacc[0], d);
        atomicSub(&iacc[1], d);
        atomicMin(&iacc[2], d);
        atomicMax(&iacc[3], d);
        if (d > 900) atomicAnd(&iacc[4], ~(1 << (tid % 29)));
        if (d < -900) atomicOr(&iacc[5], 1 << (tid % 31));
        atomicXor(&iacc[6], d);
        if (d < 0) atomicAdd(&iacc[7], 1);

        // ---- unsigned 32-bit ----
        atomicAdd(&uacc[0], u);
        atomicSub(&uacc[1], u & 0xFFFFu);
        atomicMin(&uacc[2], u);
        atomicMax(&uacc[3], u);
        if ((u & 0x3Fu) == 7u) atomicAnd(&uacc[4], ~(1u << (u >> 27)));
        if ((u & 0x3Fu) == 9u) atomicOr(&uacc[5], 1u << (u >> 27));
        atomicXor(&uacc[6], u);

        unsigned int oldInc = atomicInc(&uacc[7], NUM_INC_BINS - 1u);
        atomicAdd(&inc_hist[oldInc], 1u);
        unsigned int oldDec = atomicDec(&uacc[8], NUM_DEC_BINS - 1u);
        atomicAdd(&dec_hist[oldDec], 1u);

        unsigned int oldExch = atomicExch(&uacc[9], 0xC0FFEEu);
        if (oldExch == 0xDEADBEEFu) atomicAdd(&uacc[10], 1u);

        unsigned int ticket = atomicAdd(&uacc[11], 1u);
        atomicAdd(&ticket_mark[ticket], 1u);

        // ---- 64-bit ----
        unsigned long long v = ((unsigned long long)u << 32) | (unsigned int)d;
        atomicAdd(&acc64[0], ((unsigned long long)u << 16) | (unsigned long long)tid);
        atomicMin(&acc64[1], v);
        atomicMax(&acc64[2], v);
        if ((u & 0x3Fu) == 11u) atomicAnd(&acc64[3], ~(1ull << (u >> 26)));
        if ((u & 0x3Fu) == 13u) atomicOr(&acc64[4], 1ull << (u >> 26));
        atomicXor(&acc64[5], v);
        unsigned long long old64 = atomicExch(&acc64[6], 0x1122334455667788ull);
        if (old64 == 0xFFFF0000FFFF0000ull) atomicAdd(&acc64[7], 1ull);

        long long s = (long long)d * 1000003LL * (long long)(tid + 1);
        atomicMin(&sacc64[0], s);
        atomicMax(&sacc64[1], s);

        // ---- compare-and-swap: exactly one winner per slot ----
        int slot = tid & (NUM_CAS_SLOTS - 1);
        int prev = atomicCAS(&cas_flags[slot], 0, slot + 1);
        if (prev == 0) atomicAdd(&cas_wins[slot], 1u);
        atomicCAS(&cas64[slot], 0ull, 0xABCD000000000000ull | (unsigned long long)slot);

        // ---- shared-memory atomics ----
        if (d < 0) atomicAdd(&s_neg, 1);
        atomicMax(&s_max, u);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        block_stats[2 * blockIdx.x] = (unsigned int)s_neg;
        block_stats[2 * blockIdx.x + 1] = s_max;
    }
}
