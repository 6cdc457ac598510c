// Shuffles under divergence with partial member masks (cooperative_groups.h is
// not available to NVRTC here, so this is the hand-written equivalent):
//  - a lane < 16 branch that takes its mask from __activemask(),
//  - the upper half with an explicit 0xFFFF0000 mask and width 16,
//  - odd lanes only (broadcast from the leader, xor butterfly over odd partners),
//  - a data-dependent group (ballot before the branch) with leader broadcast,
//    a gather loop over the group's lanes, __syncwarp(mask) and ranks,
//  - a loop whose trip count differs per lane, re-balloting the mask each turn.
// Per-lane outputs out[k * n + tid].

#define FULL_MASK 0xffffffffu
#define NOUT 12

extern "C" __global__ void warp_divergent_shfl(const int* __restrict__ v, int n,
                                               int* __restrict__ out)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    // n is a multiple of 32: whole warps.
    const int x = v[tid];
    int r[NOUT];

    if (lane < 16) {
        const unsigned int m = __activemask();
        r[0] = (int)m;
        r[1] = __shfl_down_sync(m, x, 1, 16);       // lane 15 keeps its own value
        r[2] = __shfl_sync(m, x, 15 - lane);
    } else {
        const unsigned int m = 0xFFFF0000u;
        r[0] = (int)__ballot_sync(m, x > 0);
        r[1] = __shfl_up_sync(m, x, 2, 16);         // lanes 16 and 17 keep their own value
        r[2] = __shfl_xor_sync(m, x, 8);
    }

    if (lane & 1) {
        const unsigned int odd = 0xAAAAAAAAu;
        r[3] = __shfl_sync(odd, x, __ffs(odd) - 1);  // broadcast from lane 1
        int s = x;
        #pragma unroll
        for (int k = 2; k < 32; k <<= 1) s += __shfl_xor_sync(odd, s, k);
        r[4] = s;                                     // sum over the odd lanes
    } else {
        r[3] = 0;
        r[4] = 0;
    }

    // Data-dependent group: the mask comes from a ballot taken before diverging.
    const unsigned int pos = __ballot_sync(FULL_MASK, x > 0);
    if (x > 0) {
        const int leader = __ffs(pos) - 1;
        r[5] = __shfl_sync(pos, x, leader);
        int maxv = x, total = 0;
        #pragma unroll 1
        for (unsigned int rest = pos; rest; rest &= rest - 1) {
            const int y = __shfl_sync(pos, x, __ffs(rest) - 1);
            total += y;
            maxv = max(maxv, y);
        }
        __syncwarp(pos);
        r[6] = total;
        r[7] = maxv;
        r[8] = __popc(pos & ((1u << lane) - 1u));
    } else {
        r[5] = r[6] = r[7] = 0;
        r[8] = -1;
    }

    // Per-lane trip counts 1..4; lane ^ 4 has the same count, so it is always a member.
    const int count = (lane & 3) + 1;
    unsigned int m = FULL_MASK;
    unsigned int seen = 0;
    int acc = 0;
    #pragma unroll 1
    for (int it = 0;; ++it) {
        m = __ballot_sync(m, it < count);
        if (it >= count) break;
        seen ^= m;
        acc += __shfl_xor_sync(m, x + it, 4);
    }
    r[9] = acc;
    r[10] = (int)seen;
    r[11] = (int)m;                 // mask of the ballot that ended this lane's loop

    #pragma unroll
    for (int k = 0; k < NOUT; k++) out[k * n + tid] = r[k];
}
