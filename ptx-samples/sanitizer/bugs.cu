// Kernels with known bugs for warpjit's sanitizer tests (tests/sanitizer.rs).
// Each comment says what the sanitizer must report.
// Regenerate bugs.ptx: python3 ptx-samples/gen/gen_sanitizer.py

// racecheck: a tree reduction missing the __syncthreads() in its loop.
// Launched with 128 threads: between warps (k = 64 then k = 32) and
// within warp 0 (k <= 16) a read of s[t + k] races with another thread's
// write of it in the previous step.
extern "C" __global__ void reduce_missing_sync(const float* in, float* out) {
    __shared__ float s[128];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * 128 + t];
    __syncthreads();
    for (unsigned k = 64; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        // missing: __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// racecheck (intra-warp): each lane reads its neighbour's word without a
// __syncwarp() after the writes (a hazard under Volta's independent thread
// scheduling).
extern "C" __global__ void warp_neighbor_missing_syncwarp(const int* in, int* out) {
    __shared__ int s[32];
    unsigned t = threadIdx.x;
    s[t] = in[t];
    // missing: __syncwarp();
    out[t] = s[(t + 1) % 32];
}

// memcheck: `i <= n` reads and writes one element past both arrays.
extern "C" __global__ void copy_off_by_one(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = 2.0f * in[i];
}

// memcheck: a loop over `<= n` in one thread reads one element past the end.
extern "C" __global__ void sum_off_by_one(const int* in, int* out, int n) {
    int s = 0;
    for (int i = 0; i <= n; i++) s += in[i];
    out[0] = s;
}

// memcheck (use after free, via the host) and initcheck (a buffer never
// written): a plain scale; the bug is in how the host calls it.
extern "C" __global__ void scale(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 3.0f * in[i];
}

// initcheck (shared): only the first half of the tile is loaded, and
// thread t reads tile[63 - t].
extern "C" __global__ void half_loaded_tile(const float* in, float* out) {
    __shared__ float tile[64];
    unsigned t = threadIdx.x;
    if (t < 32) tile[t] = in[t];
    __syncthreads();
    out[t] = tile[63 - t];
}

// synccheck: a barrier thread count that is not a multiple of 32.
extern "C" __global__ void barrier_count_not_warp_multiple(int* out) {
    asm volatile("bar.sync 1, 48;");
    out[threadIdx.x] = threadIdx.x;
}

// synccheck: all 32 lanes execute a shuffle whose member mask names 16.
extern "C" __global__ void shuffle_mask_misses_lanes(const int* in, int* out) {
    int v = in[threadIdx.x];
    out[threadIdx.x] = __shfl_sync(0x0000ffffu, v, 0);
}

// racecheck (WAW): lane 0 of every warp writes the same shared flag with
// no barrier between the writes.
extern "C" __global__ void flag_written_by_every_warp(int* out) {
    __shared__ int flag;
    if ((threadIdx.x & 31) == 0) flag = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = flag;
}

// synccheck: a ballot naming the whole warp inside a branch that only
// half of the warp takes.
extern "C" __global__ void ballot_in_divergent_branch(const int* in, unsigned* out) {
    unsigned t = threadIdx.x;
    if (t < 16) out[t] = __ballot_sync(0xffffffffu, in[t] > 0);
}
