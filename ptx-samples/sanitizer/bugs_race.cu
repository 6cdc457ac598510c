// Kernels with shared-memory races for warpjit's racecheck
// (tests/sanitizer_race.rs asserts the exact reports of each).
// Regenerate bugs_race.ptx: python3 ptx-samples/gen/gen_sanitizer.py

// An inclusive Hillis-Steele scan in place, with the barrier after the
// update but none between reading s[t - d] and writing s[t]: a thread
// overwrites s[t] while a thread of another warp may still read it. (The
// loops of this file are kept rolled, so that each access is one PTX
// instruction and each hazard one report.)
extern "C" __global__ void scan_missing_read_barrier(const int* in, int* out) {
    __shared__ int s[128];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * 128 + t];
    __syncthreads();
#pragma unroll 1
    for (unsigned d = 1; d < 128; d <<= 1) {
        int v = t >= d ? s[t - d] : 0;
        // missing: __syncthreads();
        s[t] += v;
        __syncthreads();
    }
    out[blockIdx.x * 128 + t] = s[t];
}

// A 1D stencil that loads its tile (with halos) and computes at once:
// without a barrier the last lane of a warp reads the element the next
// warp loads.
extern "C" __global__ void stencil_tile_missing_barrier(const float* in, float* out, int n) {
    __shared__ float tile[66];
    int i = blockIdx.x * 64 + threadIdx.x;
    unsigned t = threadIdx.x;
    tile[t + 1] = in[i];
    if (t == 0) tile[0] = i > 0 ? in[i - 1] : 0.0f;
    if (t == 63) tile[65] = i + 1 < n ? in[i + 1] : 0.0f;
    // missing: __syncthreads();
    out[i] = (tile[t] + tile[t + 1] + tile[t + 2]) / 3.0f;
}

// A tiled matrix product (16 x 16 tiles) with the barrier after loading
// each tile but not the one after using it: the next iteration's loads
// overwrite the tiles other warps still read.
#define MT 16
extern "C" __global__ void matmul_missing_trailing_barrier(const float* a, const float* b, float* c, int n) {
    __shared__ float as[MT][MT];
    __shared__ float bs[MT][MT];
    int row = blockIdx.y * MT + threadIdx.y;
    int col = blockIdx.x * MT + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += MT) {
        as[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
        bs[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
        __syncthreads();
#pragma unroll 1
        for (int k = 0; k < MT; k++) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
        // missing: __syncthreads();
    }
    c[row * n + col] = acc;
}

// A shared-memory histogram that increments its bins with a plain
// read-modify-write instead of atomicAdd.
extern "C" __global__ void histogram_plain_increment(const unsigned char* data, unsigned* bins, int n) {
    __shared__ unsigned local[16];
    unsigned t = threadIdx.x;
    if (t < 16) local[t] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + t;
    if (i < n) local[data[i] & 15]++;
    __syncthreads();
    if (t < 16) atomicAdd(&bins[t], local[t]);
}

// The last-warp unrolled reduction of pre-Volta CUDA code: it relies on
// the warp running in lockstep (through `volatile`) with no __syncwarp(),
// so lanes read partial sums other lanes are still writing.
extern "C" __global__ void warp_reduce_without_syncwarp(const float* in, float* out) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    if (t < 32) {
        volatile float* v = s;
        v[t] += v[t + 32];
        v[t] += v[t + 16];
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// Thread 0 computes a block-wide scale factor into shared memory; the
// others read it with no barrier between.
extern "C" __global__ void broadcast_missing_barrier(const float* in, float* out) {
    __shared__ float scale;
    unsigned t = threadIdx.x;
    if (t == 0) scale = 1.0f / in[blockIdx.x * blockDim.x];
    // missing: __syncthreads();
    out[blockIdx.x * blockDim.x + t] = in[blockIdx.x * blockDim.x + t] * scale;
}

// A 32 x 32 tile transpose (blocks of 32 x 32, one element per thread)
// that reads the tile back transposed without waiting for the other warps
// to fill it.
extern "C" __global__ void transpose_missing_barrier(const float* in, float* out, int w) {
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * w + x];
    // missing: __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    out[y * w + x] = tile[threadIdx.x][threadIdx.y];
}

// Odd-even transposition sort of 128 keys in shared memory, one pair per
// thread, without the barrier between the odd and the even phase.
extern "C" __global__ void odd_even_sort_missing_barrier(int* keys) {
    __shared__ int s[128];
    unsigned t = threadIdx.x;
    s[2 * t] = keys[2 * t];
    s[2 * t + 1] = keys[2 * t + 1];
    __syncthreads();
#pragma unroll 1
    for (int phase = 0; phase < 128; phase++) {
        unsigned i = 2 * t + (phase & 1);
        if (i + 1 < 128 && s[i] > s[i + 1]) {
            int tmp = s[i];
            s[i] = s[i + 1];
            s[i + 1] = tmp;
        }
        // missing: __syncthreads();
    }
    __syncthreads();
    keys[2 * t] = s[2 * t];
    keys[2 * t + 1] = s[2 * t + 1];
}

// A Jacobi smoothing step done in place in shared memory: a thread
// overwrites its cell while its neighbours still read it.
extern "C" __global__ void jacobi_in_place(const float* in, float* out, int iters) {
    __shared__ float u[64];
    unsigned t = threadIdx.x;
    u[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    for (int it = 0; it < iters; it++) {
        if (t > 0 && t < 63) u[t] = 0.5f * u[t] + 0.25f * (u[t - 1] + u[t + 1]);
        __syncthreads();
    }
    out[blockIdx.x * 64 + t] = u[t];
}

// A block-wide maximum kept in one shared word updated with a plain
// compare-and-store instead of atomicMax.
extern "C" __global__ void shared_max_plain_store(const int* in, int* out) {
    __shared__ int best;
    unsigned t = threadIdx.x;
    if (t == 0) best = in[blockIdx.x * blockDim.x];
    __syncthreads();
    int v = in[blockIdx.x * blockDim.x + t];
    if (v > best) best = v;
    __syncthreads();
    if (t == 0) out[blockIdx.x] = best;
}

// A work queue in shared memory whose tail is claimed with a plain
// read-then-increment instead of atomicAdd.
extern "C" __global__ void shared_queue_plain_tail(const int* in, int* out) {
    __shared__ int queue[64];
    __shared__ int tail;
    unsigned t = threadIdx.x;
    if (t == 0) tail = 0;
    __syncthreads();
    int v = in[blockIdx.x * 64 + t];
    if (v & 1) {
        int slot = tail;
        tail = slot + 1;
        queue[slot] = v;
    }
    __syncthreads();
    if (t == 0) {
        int s = 0;
        for (int k = 0; k < tail; k++) s += queue[k];
        out[blockIdx.x] = s;
    }
}
