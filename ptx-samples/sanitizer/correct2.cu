// Correct kernels, mostly the fixed versions of bugs_*.cu: warpjit's
// sanitizer must report nothing for them with every check on
// (tests/sanitizer_correct.rs checks their results too).
// Regenerate correct2.ptx: python3 ptx-samples/gen/gen_sanitizer.py

// vector_add_missing_guard, fixed.
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

// reverse_off_by_one, fixed.
extern "C" __global__ void reverse(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[n - 1 - i];
}

// A three-point stencil through a shared tile with both halos, clamped at
// the array's ends (stencil_no_boundary, halo_tile_too_small,
// stencil_tile_missing_barrier and stencil_halo_not_loaded, fixed).
#define SB 64
extern "C" __global__ void stencil_shared(const float* in, float* out, int n) {
    __shared__ float tile[SB + 2];
    unsigned t = threadIdx.x;
    int i = blockIdx.x * SB + t;
    tile[t + 1] = i < n ? in[i] : 0.0f;
    if (t == 0) tile[0] = i > 0 ? in[i - 1] : 0.0f;
    if (t == SB - 1) tile[SB + 1] = i + 1 < n ? in[i + 1] : 0.0f;
    __syncthreads();
    if (i < n) out[i] = tile[t] + tile[t + 1] + tile[t + 2];
}

// gather_unchecked_sentinel, fixed.
extern "C" __global__ void gather(const float* values, const int* idx, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int j = idx[i];
        out[i] = j >= 0 ? values[j] : 0.0f;
    }
}

// A histogram of values in [0, 1]: per-block bins in shared memory, zeroed,
// updated with atomics, then added to the global counts the host zeroed
// (histogram_bin_past_end, histogram_plain_increment and
// histogram_counts_not_zeroed, fixed).
extern "C" __global__ void histogram(const float* x, unsigned* counts, int n, int bins) {
    __shared__ unsigned local[32];
    unsigned t = threadIdx.x;
    if (t < (unsigned)bins) local[t] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) {
        int b = min((int)(x[i] * bins), bins - 1);
        atomicAdd(&local[b], 1u);
    }
    __syncthreads();
    if (t < (unsigned)bins) atomicAdd(&counts[t], local[t]);
}

// An inclusive Hillis-Steele scan with both barriers
// (scan_missing_read_barrier, fixed).
extern "C" __global__ void scan_inclusive(const int* in, int* out) {
    __shared__ int s[128];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * 128 + t];
    __syncthreads();
    for (unsigned d = 1; d < 128; d <<= 1) {
        int v = t >= d ? s[t - d] : 0;
        __syncthreads();
        s[t] += v;
        __syncthreads();
    }
    out[blockIdx.x * 128 + t] = s[t];
}

// A tiled matrix product with both barriers
// (matmul_missing_trailing_barrier, fixed).
#define MT 16
extern "C" __global__ void matmul_tiled(const float* a, const float* b, float* c, int n) {
    __shared__ float as[MT][MT];
    __shared__ float bs[MT][MT];
    int row = blockIdx.y * MT + threadIdx.y;
    int col = blockIdx.x * MT + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += MT) {
        as[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
        bs[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < MT; k++) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
        __syncthreads();
    }
    c[row * n + col] = acc;
}

// A block sum: shuffles within each warp, the warps' partial sums through
// shared memory, then the first warp sums them; a partial last block
// contributes zeros (warp_reduce_without_syncwarp,
// reduce_partial_block_unset_tail and shuffle_inside_bounds_guard, fixed).
extern "C" __global__ void block_sum(const float* in, float* out, int n) {
    __shared__ float partial[32];
    unsigned t = threadIdx.x, lane = t & 31, warp = t >> 5;
    int i = blockIdx.x * blockDim.x + t;
    float v = i < n ? in[i] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (blockDim.x >> 5) ? partial[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        if (lane == 0) out[blockIdx.x] = v;
    }
}

// Odd-even transposition sort with its barrier per phase
// (odd_even_sort_missing_barrier, fixed).
extern "C" __global__ void odd_even_sort(int* keys) {
    __shared__ int s[128];
    unsigned t = threadIdx.x;
    s[2 * t] = keys[2 * t];
    s[2 * t + 1] = keys[2 * t + 1];
    __syncthreads();
    for (int phase = 0; phase < 128; phase++) {
        unsigned i = 2 * t + (phase & 1);
        if (i + 1 < 128 && s[i] > s[i + 1]) {
            int tmp = s[i];
            s[i] = s[i + 1];
            s[i + 1] = tmp;
        }
        __syncthreads();
    }
    keys[2 * t] = s[2 * t];
    keys[2 * t + 1] = s[2 * t + 1];
}

// Jacobi smoothing with two buffers (jacobi_in_place, fixed).
extern "C" __global__ void jacobi_double_buffer(const float* in, float* out, int iters) {
    __shared__ float u[2][64];
    unsigned t = threadIdx.x;
    u[0][t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    int cur = 0;
    for (int it = 0; it < iters; it++) {
        float v = u[cur][t];
        if (t > 0 && t < 63) v = 0.5f * v + 0.25f * (u[cur][t - 1] + u[cur][t + 1]);
        u[cur ^ 1][t] = v;
        cur ^= 1;
        __syncthreads();
    }
    out[blockIdx.x * 64 + t] = u[cur][t];
}

// A float4 copy from an aligned start, with the tail copied by floats
// (float4_copy_misaligned, fixed).
extern "C" __global__ void float4_copy(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n4 = n / 4;
    if (i < n4) reinterpret_cast<float4*>(out)[i] = reinterpret_cast<const float4*>(in)[i];
    if (i < n - 4 * n4) out[4 * n4 + i] = in[4 * n4 + i];
}

// A block-wide reverse of (value, key) pairs through dynamic shared
// memory, launched with the 2 * blockDim.x floats it uses
// (dynamic_shared_undersized, fixed).
extern "C" __global__ void dynamic_shared_reverse(const float* in, float* out) {
    extern __shared__ float buf[];
    unsigned t = threadIdx.x, n = blockDim.x;
    buf[t] = in[blockIdx.x * n + t];
    buf[n + t] = (float)t;
    __syncthreads();
    out[blockIdx.x * n + t] = buf[n - 1 - t] + buf[2 * n - 1 - t];
}

// Threads past `n` return early; the others then take a ballot among
// themselves, with the member mask of the lanes in bounds taken by a
// full-mask ballot before the return (a returning lane has not exited
// until it runs the kernel's `ret`).
extern "C" __global__ void ballot_mask_before_early_return(const int* in, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned mask = __ballot_sync(0xffffffffu, i < n);
    if (i >= n) return;
    unsigned positive = __ballot_sync(mask, in[i] > 0);
    out[i] = __popc(positive);
}

// Shuffles among the lanes of a partial warp, with the member mask of the
// lanes in bounds taken by a ballot before the branch.
extern "C" __global__ void shuffle_with_ballot_mask(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned mask = __ballot_sync(0xffffffffu, i < n);
    if (i < n) {
        int v = in[i];
        int up = __shfl_down_sync(mask, v, 1);
        out[i] = (threadIdx.x & 31) + 1 < 32 && i + 1 < n ? up - v : 0;
    }
}

// Half-warp tiles exchanging through shared memory, each half with its own
// __syncwarp mask (half_warp_syncwarp_wrong_mask, fixed).
extern "C" __global__ void half_warp_exchange(const int* in, int* out) {
    __shared__ int s[64];
    unsigned t = threadIdx.x, lane = t & 31;
    unsigned half = 0x0000ffffu << (lane & 16);
    s[t] = in[t];
    __syncwarp(half);
    out[t] = s[t ^ 15];
}

// A producer warp fills a buffer and arrives at a named barrier that the
// two consumer warps wait at (64 + 32 = 96 threads counted); the other
// named barrier tells the producer the buffer is free again
// (named_barrier_count_too_small, fixed).
extern "C" __global__ void producer_consumer(const int* in, int* out, int rounds) {
    __shared__ int buf[64];
    unsigned t = threadIdx.x;
    for (int r = 0; r < rounds; r++) {
        if (t < 32) {
            buf[t] = in[r * 64 + t];
            buf[t + 32] = in[r * 64 + t + 32];
            __barrier_sync_count(1, 96);
            __barrier_sync_count(2, 96);
        } else {
            __barrier_sync_count(1, 96);
            out[r * 64 + t - 32] = 2 * buf[t - 32];
            __barrier_sync_count(2, 96);
        }
    }
}

// Per-thread digits in a local array large enough for any 32-bit value
// (local_digits_overflow, fixed).
extern "C" __global__ void local_digits(const unsigned* in, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned digits[10];
    unsigned v = in[i];
    int k = 0;
    do {
        digits[k++] = v % 10;
        v /= 10;
    } while (v != 0);
    unsigned s = 0;
    for (int j = 0; j < k; j++) s = s * 31 + digits[j];
    out[i] = s;
}

// A block maximum by atomicMax on a shared word the first thread set
// (shared_max_plain_store, fixed).
extern "C" __global__ void shared_max_atomic(const int* in, int* out) {
    __shared__ int best;
    unsigned t = threadIdx.x;
    if (t == 0) best = in[blockIdx.x * blockDim.x];
    __syncthreads();
    atomicMax(&best, in[blockIdx.x * blockDim.x + t]);
    __syncthreads();
    if (t == 0) out[blockIdx.x] = best;
}

// Stream compaction: each warp counts its odd values with a ballot, one
// lane per warp claims room with atomicAdd on a shared tail, and each lane
// writes at its rank (shared_queue_plain_tail, fixed).
extern "C" __global__ void compact_odd(const int* in, int* out, int* count) {
    __shared__ int queue[128];
    __shared__ int tail;
    unsigned t = threadIdx.x, lane = t & 31;
    if (t == 0) tail = 0;
    __syncthreads();
    int v = in[blockIdx.x * 128 + t];
    unsigned odd = __ballot_sync(0xffffffffu, v & 1);
    int base = 0;
    if (lane == 0) base = atomicAdd(&tail, __popc(odd));
    base = __shfl_sync(0xffffffffu, base, 0);
    if (v & 1) queue[base + __popc(odd & ((1u << lane) - 1))] = v;
    __syncthreads();
    int total = tail;
    if (t < (unsigned)total) out[blockIdx.x * 128 + t] = queue[t];
    if (t == 0) count[blockIdx.x] = total;
}

// The last block to finish adds up the per-block sums: a counter in a
// module variable (zero-initialised, so never unwritten), a fence and an
// atomic ticket that wraps back to 0 for the next launch.
__device__ unsigned blocks_done;
extern "C" __global__ void sum_last_block(const float* in, float* partial, float* total) {
    __shared__ float s[64];
    __shared__ bool last;
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    for (unsigned k = 32; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = s[0];
        __threadfence();
        last = atomicInc(&blocks_done, gridDim.x - 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && t == 0) {
        float sum = 0.0f;
        for (unsigned b = 0; b < gridDim.x; b++) sum += ((volatile float*)partial)[b];
        *total = sum;
    }
}

// Warp-specialised halves meeting at two different non-aligned barriers
// (__barrier_sync(0): barrier.sync without .aligned), which PTX allows;
// the fixed form of syncthreads_in_warp_divergent_branches.
extern "C" __global__ void warp_specialized_barrier(const int* in, int* out) {
    __shared__ int s[64];
    unsigned t = threadIdx.x;
    if (t < 32) {
        s[t] = 2 * in[t];
        __barrier_sync(0);
        out[t] = s[t + 32];
    } else {
        s[t] = in[t] + 1;
        __barrier_sync(0);
        out[t] = s[t - 32];
    }
}

// Each half-warp broadcasts its leader's value and exchanges with the lane
// 8 apart, with its own half as the member mask and a width of 16
// (half_warp_broadcast_without_width, fixed): every source lane is in the
// reading lane's half.
extern "C" __global__ void half_warp_broadcast(const int* in, int* out) {
    unsigned lane = threadIdx.x & 31;
    unsigned half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    int v = in[threadIdx.x];
    int leader = __shfl_sync(half, v, 0, 16);
    int partner = __shfl_xor_sync(half, v, 8, 16);
    out[threadIdx.x] = leader * 1000 + partner;
}
