// Kernels that misuse barriers and warp-synchronous operations, for
// warpjit's synccheck (tests/sanitizer_init_sync.rs asserts the exact report
// of each).
// Regenerate bugs_sync.ptx: python3 ptx-samples/gen/gen_sanitizer.py

// Half-warp tiles exchanging through shared memory synchronise with the
// mask of the lower half in both halves: the upper lanes execute a
// __syncwarp whose mask leaves them out.
extern "C" __global__ void half_warp_syncwarp_wrong_mask(const int* in, int* out) {
    __shared__ int s[32];
    unsigned lane = threadIdx.x & 31;
    s[lane] = in[threadIdx.x];
    __syncwarp(0x0000ffffu);
    out[threadIdx.x] = s[lane ^ 15];
}

// A warp sum by shuffles inside the bounds guard: in the last warp only
// the lanes below `n` execute the shuffles, yet the mask names the whole
// warp.
extern "C" __global__ void shuffle_inside_bounds_guard(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = in[i];
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        if ((threadIdx.x & 31) == 0) out[i / 32] = v;
    }
}

// A data-dependent loop around a ballot with the full mask: lanes leave
// the loop after different trip counts, and the later ballots name lanes
// that already left.
extern "C" __global__ void ballot_in_data_dependent_loop(const int* work, unsigned* out) {
    unsigned t = threadIdx.x;
    int left = work[t];
    unsigned rounds = 0;
    while (left > 0) {
        unsigned busy = __ballot_sync(0xffffffffu, left > 1);
        rounds += __popc(busy);
        left--;
    }
    out[t] = rounds;
}

// Groups equal keys with __match_any_sync, but only for the lanes whose
// key is valid, still naming the whole warp.
extern "C" __global__ void match_any_in_divergent_branch(const int* keys, unsigned* out) {
    unsigned t = threadIdx.x;
    int k = keys[t];
    unsigned peers = 0;
    if (k >= 0) peers = __match_any_sync(0xffffffffu, k);
    out[t] = peers;
}

// Takes the active mask before a branch and uses it for a reduction
// inside the branch, where fewer lanes are active.
extern "C" __global__ void reduce_add_with_stale_active_mask(const int* in, int* out) {
    unsigned t = threadIdx.x;
    unsigned mask = __activemask();
    int v = in[t];
    int sum = 0;
    if (v != 0) sum = __reduce_add_sync(mask, v);
    out[t] = sum;
}

// A named barrier meant for the two consumer warps (64 threads) that the
// producer warp also waits on: 96 threads arrive at a barrier of 64.
extern "C" __global__ void named_barrier_count_too_small(const int* in, int* out) {
    __shared__ int buf[64];
    unsigned t = threadIdx.x;
    if (t < 32) {
        buf[t] = in[t];
        buf[t + 32] = in[t + 32];
    }
    __barrier_sync_count(1, 64);
    if (t >= 32) out[t - 32] = buf[t - 32];
}

// A block barrier inside a branch that only the even lanes take.
extern "C" __global__ void syncthreads_in_lane_divergent_branch(const int* in, int* out) {
    __shared__ int s[64];
    unsigned t = threadIdx.x;
    s[t] = in[t];
    if ((t & 1) == 0) {
        __syncthreads();
        out[t] = s[t ^ 2];
    }
}

// A barrier inside a branch on the warp index: the first warp waits at one
// __syncthreads, the others at another.
extern "C" __global__ void syncthreads_in_warp_divergent_branches(const int* in, int* out) {
    __shared__ int s[64];
    unsigned t = threadIdx.x;
    s[t] = in[t];
    if (t < 32) {
        __syncthreads();
        out[t] = s[63 - t];
    } else {
        s[t] += 1;
        __syncthreads();
        out[t] = s[63 - t];
    }
}
