// Warp votes: __ballot_sync / __all_sync / __any_sync / __activemask with the
// whole warp, inside divergent branches (odd / even lanes, nested), and in a
// partially filled last warp whose tail threads have already exited. Also the
// classic ballot + popc(lanemask_lt) warp compaction.
// Per-lane outputs: out[k * n + tid].

#define FULL_MASK 0xffffffffu
#define NOUT 14

__device__ __forceinline__ unsigned int lanemask_lt()
{
    unsigned int m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}

extern "C" __global__ void warp_vote_kernel(const int* __restrict__ v, int n,
                                            unsigned int* __restrict__ out,
                                            int* __restrict__ compact)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    const int warp = tid >> 5;

    // Which lanes of this warp will stay: taken before the tail exits.
    const unsigned int live = __ballot_sync(FULL_MASK, tid < n);
    if (tid >= n) return;

    const int x = v[tid];
    const unsigned int pos = __ballot_sync(live, x > 0);
    const int all_big = __all_sync(live, x > -900);
    const int any_huge = __any_sync(live, x > 990);

    unsigned int am, bdiv;
    int all_div, any_div;
    unsigned int nested = 0, am2 = 0;
    if (lane & 1) {
        const unsigned int odd = live & 0xAAAAAAAAu;
        am = __activemask();
        bdiv = __ballot_sync(odd, x > 0);
        all_div = __all_sync(odd, (x & 1) == 0);
        any_div = __any_sync(odd, x < -500);
        if (lane & 2) {
            const unsigned int q = live & 0x88888888u;
            am2 = __activemask();
            nested = __ballot_sync(q, x > 250);
        }
    } else {
        const unsigned int even = live & 0x55555555u;
        bdiv = __ballot_sync(even, x < 0);
        all_div = __all_sync(even, x < 1000);
        any_div = __any_sync(even, (x % 7) == 3);
        am = __activemask();
    }

    unsigned int r[NOUT];
    r[0] = pos;
    r[1] = (unsigned int)all_big;
    r[2] = (unsigned int)any_huge;
    r[3] = (unsigned int)__popc(pos);
    r[4] = am;
    r[5] = bdiv;
    r[6] = (unsigned int)all_div;
    r[7] = (unsigned int)any_div;
    r[8] = (unsigned int)__popc(bdiv);
    r[9] = (unsigned int)__popc(pos & lanemask_lt());
    r[10] = (unsigned int)__ffs(pos);
    r[11] = (unsigned int)__clz(pos);
    r[12] = nested;
    r[13] = am2;
    #pragma unroll
    for (int k = 0; k < NOUT; k++) out[k * n + tid] = r[k];

    // Warp-level stream compaction of the positive values.
    if (x > 0) compact[warp * 32 + r[9]] = x;
}
