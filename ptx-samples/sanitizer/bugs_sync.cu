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

// A producer warp and two consumer warps meet at named barrier 1: the
// consumers count all three warps (96 threads), the producer only itself
// and one consumer (64). The barrier's thread counts differ within one
// round.
extern "C" __global__ void named_barrier_counts_differ(const int* in, int* out) {
    __shared__ int buf[64];
    unsigned t = threadIdx.x;
    if (t < 32) {
        buf[t] = in[t];
        buf[t + 32] = in[t + 32];
        asm volatile("bar.sync 1, 64;" ::: "memory");
    } else {
        asm volatile("bar.sync 1, 96;" ::: "memory");
        out[t - 32] = buf[t - 32];
    }
}

// Each half-warp broadcasts its leader's value with its own half as the
// member mask, but without the width of 16: the upper half reads lane 0,
// which its mask leaves out (the fix: __shfl_sync(half, v, 0, 16)).
extern "C" __global__ void half_warp_broadcast_without_width(const int* in, int* out) {
    unsigned lane = threadIdx.x & 31;
    unsigned half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    int v = in[threadIdx.x];
    out[threadIdx.x] = __shfl_sync(half, v, 0);
}

// Stages a tile of `n` floats with 16-byte cp.async copies, zero-filling
// past the end, but passes the bytes left in the whole array as the source
// size instead of at most 16.
extern "C" __global__ void cp_async_src_size_not_clamped(const float* in, float* out, int n) {
    __shared__ __align__(16) float tile[128];
    int first = threadIdx.x * 4;
    int left = (n - first) * 4;
    unsigned src_size = left < 0 ? 0 : left;
    unsigned dst = (unsigned)__cvta_generic_to_shared(&tile[first]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(in + first),
                 "r"(src_size)
                 : "memory");
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    out[threadIdx.x] = tile[first] + tile[first + 1] + tile[first + 2] + tile[first + 3];
}
