// Fidelity kernels: each reproduces the setup of a published GPU measurement
// (ptx-samples/fidelity/published.toml). Written here from the algorithms the
// publications describe; none is copied from a benchmark's code.
//
// Shared memory: every kernel here takes its shared memory dynamically
// (`extern __shared__`, sized by the launch's shared_bytes) and none declares
// a static `__shared__` array. warpjit lays out all the function-scope
// `.shared` variables of a module side by side and counts their sum as every
// kernel's static shared memory (occupancy), so one kernel's static array
// would lower the occupancy of all the others on the model.

// ---------------------------------------------------------------------------
// Stream kernels (the BabelStream setup): one element per thread, arrays of
// doubles whose length is a multiple of the block size, so no bounds check.

extern "C" __global__ void stream_copy_f64(const double* a, double* c) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i];
}

extern "C" __global__ void stream_scale_f64(double* b, const double* c, double q) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    b[i] = q * c[i];
}

extern "C" __global__ void stream_add_f64(const double* a, const double* b, double* c) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];
}

extern "C" __global__ void stream_triad_f64(double* a, const double* b, const double* c, double q) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = b[i] + q * c[i];
}

// Dot product: each thread sums a grid-stride slice of a[i]*b[i]; the block
// reduces its threads' sums in shared memory (a halving tree) and writes one
// partial sum per block. blockDim.x must be a power of two, at most 1024;
// dynamic shared memory: blockDim.x doubles.
extern "C" __global__ void stream_dot_f64(const double* a, const double* b, double* partial,
                                          unsigned long long n) {
    extern __shared__ double sums[];
    double s = 0.0;
    for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)blockDim.x * gridDim.x) {
        s += a[i] * b[i];
    }
    sums[threadIdx.x] = s;
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        __syncthreads();
        if (threadIdx.x < half) {
            sums[threadIdx.x] += sums[threadIdx.x + half];
        }
    }
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = sums[0];
    }
}

// ---------------------------------------------------------------------------
// gpu-benches stream kernels (D. Ernst): one element per thread with a bounds
// guard (the grid is n / blockDim + 1 blocks). Occupancy is pinned by the
// launch's dynamic shared memory (runs.toml: shared_bytes = "occupancy:2");
// the kernels do not touch it.

extern "C" __global__ void gpubench_scale_f64(double* a, const double* __restrict__ b,
                                              unsigned long long n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    a[i] = b[i] * 1.2;
}

// A pure read stream: the store needs b[i] == 123, which never holds.
extern "C" __global__ void gpubench_read_f64(double* a, const double* __restrict__ b,
                                             unsigned long long n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double v = b[i];
    if (v == 123.0) a[i] = v;
}

// ---------------------------------------------------------------------------
// gpu-benches cache bandwidth (sum over a small buffer that every block
// reads): each thread of a 256-thread block adds the elements
// threadIdx.x, threadIdx.x + 256, ... of the N doubles of b, `iters` times
// (scaling its sum between passes); `zero` is 0 at run time, so the loads
// cannot be hoisted out of the pass loop. The store never happens.

template <int N>
__device__ void cache_sum(double* a, const double* __restrict__ b, int iters, int zero) {
    constexpr int kBlock = 256;
    constexpr int kUnroll = N / kBlock >= 64 ? 32 : N / kBlock;
    double s = 0.0;
    const double* p = b + threadIdx.x;
    for (int it = 0; it < iters; ++it) {
        p += zero;
#pragma unroll kUnroll
        for (int i = 0; i < N; i += kBlock) {
            s += p[i];
        }
        s *= 1.3;
    }
    if (s == 1233.0) a[threadIdx.x] += s;
}

// 3072 doubles = 24 kB (fits in L1), 125952 doubles = 984 kB (L2).
extern "C" __global__ void gpubench_cache_sum_f64_24kb(double* a, const double* __restrict__ b,
                                                       int iters, int zero) {
    cache_sum<3072>(a, b, iters, zero);
}

extern "C" __global__ void gpubench_cache_sum_f64_984kb(double* a, const double* __restrict__ b,
                                                        int iters, int zero) {
    cache_sum<125952>(a, b, iters, zero);
}

// ---------------------------------------------------------------------------
// gpu-benches pointer chase (latency). The chain: `len` elements 64 bytes
// apart (element e is the 8-byte word chain[8 * e]), each holding the
// address of the next, in one pseudo-random cycle through all of them.
// pchase_init builds it on the device: position k of a pseudo-random order of
// the elements points to position k + 1 (the last to the first).

// A bijection of [0, 2^bits): rounds of adding a constant, multiplying by an
// odd constant and xor-ing in the high half, each invertible modulo 2^bits.
__device__ unsigned chase_mix(unsigned x, unsigned bits) {
    const unsigned mask = bits >= 32 ? 0xffffffffu : (1u << bits) - 1u;
    const unsigned shift = (bits + 1) / 2;
    x = ((x + 0x3c6ef372u) * 0x2545f491u) & mask;
    x ^= x >> shift;
    x = ((x + 0x1b873593u) * 0x6c8e9cf5u) & mask;
    x ^= x >> shift;
    x = ((x + 0x7f4a7c15u) * 0x4cf5ad43u) & mask;
    x ^= x >> shift;
    return x;
}

// The element at position k: chase_mix walked until it lands below len (a
// bijection of [0, len) since chase_mix is one of [0, 2^bits), 2^bits >= len).
__device__ unsigned chase_element(unsigned k, unsigned len, unsigned bits) {
    unsigned e = chase_mix(k, bits);
    while (e >= len) e = chase_mix(e, bits);
    return e;
}

extern "C" __global__ void pchase_init(unsigned long long* chain, unsigned len) {
    const unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= len) return;
    const unsigned bits = len > 1 ? 32 - __clz(len - 1) : 0;
    const unsigned from = chase_element(k, len, bits);
    const unsigned to = chase_element(k + 1 == len ? 0 : k + 1, len, bits);
    chain[8ull * from] = reinterpret_cast<unsigned long long>(chain + 8ull * to);
}

// Every thread follows the chain from chain[0]: `warm` dependent loads first
// (the caches fill as in the benchmark's untimed warm-up launch), then `steps`
// (a multiple of 32, 32 per unrolled round) between two clock64() reads;
// thread 0 stores the cycles in out[0]. The final pointer is stored only if
// it is null (never), so the chase is not dead code.
extern "C" __global__ void pchase(const unsigned long long* chain, unsigned long long* out,
                                  long long warm, long long steps) {
    const unsigned long long* p = chain;
    for (long long n = 0; n < warm; ++n) {
        p = reinterpret_cast<const unsigned long long*>(*p);
    }
    const long long start = clock64();
#pragma unroll 1
    for (long long n = 0; n < steps; n += 32) {
#pragma unroll
        for (int u = 0; u < 32; ++u) {
            p = reinterpret_cast<const unsigned long long*>(*p);
        }
    }
    const long long stop = clock64();
    if (threadIdx.x == 0) out[0] = stop - start;
    if (p == nullptr) out[1] = 1;
}

// ---------------------------------------------------------------------------
// mixbench-cuda "ro" (E. Konstantinidis): 256-thread blocks, each thread
// loads 8 elements 256 apart (then again 3 more times, a grid's worth
// further), applies ITERS dependent multiply-adds v = v * v + seed to each,
// and combines them pairwise into a sum that is stored only if it equals -1
// (never). Flops counted per element: 1 + 2 * ITERS.

template <typename T, int ITERS>
__device__ void mixbench_ro(T seed, T* data) {
    constexpr int kBlock = 256, kPerThread = 8, kFusion = 4;
    const int base = blockIdx.x * kBlock * kPerThread + threadIdx.x;
    const int grid_span = gridDim.x * kBlock * kPerThread;
    for (int f = 0; f < kFusion; ++f) {
        T v[kPerThread];
#pragma unroll
        for (int e = 0; e < kPerThread; ++e) {
            v[e] = data[base + e * kBlock + f * grid_span];
            for (int it = 0; it < ITERS; ++it) {
                v[e] = v[e] * v[e] + seed;
            }
        }
        T sum = T(0);
#pragma unroll
        for (int e = 0; e < kPerThread; e += 2) {
            sum += v[e] * v[e + 1];
        }
        if (sum == T(-1)) data[base + f * grid_span] = sum;
    }
}

extern "C" __global__ void mixbench_ro_f32_i0(float seed, float* data) {
    mixbench_ro<float, 0>(seed, data);
}
extern "C" __global__ void mixbench_ro_f32_i192(float seed, float* data) {
    mixbench_ro<float, 192>(seed, data);
}
extern "C" __global__ void mixbench_ro_f32_i256(float seed, float* data) {
    mixbench_ro<float, 256>(seed, data);
}
extern "C" __global__ void mixbench_ro_f64_i192(double seed, double* data) {
    mixbench_ro<double, 192>(seed, data);
}
extern "C" __global__ void mixbench_ro_f64_i256(double seed, double* data) {
    mixbench_ro<double, 256>(seed, data);
}

// ---------------------------------------------------------------------------
// gpumembench shmembench (E. Konstantinidis): each thread owns six values in
// shared memory (slots tid + m * blockDim.x, m = 0..5) and swaps them around,
// `iterations` times: (0,1) (2,3) (4,5), a block fence, (1,2) (3,4), a block
// fence; each swap is two shared loads and two shared stores. The thread then
// stores the sum of its six values (invariant: 6 * tid + 15 per component).
// Dynamic shared memory: 6 * blockDim.x * sizeof(T).

extern __shared__ float4 shmem_swap_area[];

__device__ float4 operator+(float4 a, float4 b) {
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

template <typename T>
__device__ T shmem_value(int i);
template <>
__device__ float shmem_value<float>(int i) {
    return float(i);
}
template <>
__device__ float4 shmem_value<float4>(int i) {
    return make_float4(float(i), float(i), float(i), float(i));
}

template <typename T>
__device__ void shmem_swap(T* x, T* y) {
    const T t = *y;
    *y = *x;
    *x = t;
}

template <typename T>
__device__ void shmem_swaps(T* out, int iterations) {
    T* slot[6];
    const int tid = threadIdx.x;
    for (int m = 0; m < 6; ++m) {
        slot[m] = reinterpret_cast<T*>(shmem_swap_area) + tid + m * blockDim.x;
        *slot[m] = shmem_value<T>(tid + m);
    }
    __threadfence_block();
#pragma unroll 32
    for (int it = 0; it < iterations; ++it) {
        shmem_swap(slot[0], slot[1]);
        shmem_swap(slot[2], slot[3]);
        shmem_swap(slot[4], slot[5]);
        __threadfence_block();
        shmem_swap(slot[1], slot[2]);
        shmem_swap(slot[3], slot[4]);
        __threadfence_block();
    }
    out[blockIdx.x * blockDim.x + tid] =
        *slot[0] + *slot[1] + *slot[2] + *slot[3] + *slot[4] + *slot[5];
}

extern "C" __global__ void shmem_swap_f32(float* out, int iterations) {
    shmem_swaps<float>(out, iterations);
}

extern "C" __global__ void shmem_swap_f32x4(float4* out, int iterations) {
    shmem_swaps<float4>(out, iterations);
}

// ---------------------------------------------------------------------------
// Mark Harris's seven reduction kernels ("Optimizing Parallel Reduction in
// CUDA"): sum of ints. Each block reduces its part of `in` in shared memory
// (dynamic: blockDim.x ints) and thread 0 writes the block's sum to
// out[blockIdx.x]; the host relaunches the kernel on the partial sums until
// one is left. Block sizes are powers of two.

extern __shared__ int harris_area[];

// 1: interleaved addressing; the active threads are those whose index is a
// multiple of 2 * d (a divergent branch on a modulo).
extern "C" __global__ void harris_reduce1(const int* in, int* out) {
    int* s = harris_area;
    const unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned d = 1; d < blockDim.x; d *= 2) {
        if (t % (2 * d) == 0) s[t] += s[t + d];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// 2: interleaved addressing with a strided index: the first threads are the
// active ones (no divergence), at shared addresses 2 * d apart (bank
// conflicts).
extern "C" __global__ void harris_reduce2(const int* in, int* out) {
    int* s = harris_area;
    const unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned d = 1; d < blockDim.x; d *= 2) {
        const unsigned at = 2 * d * t;
        if (at < blockDim.x) s[at] += s[at + d];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// 3: sequential addressing: the lower half adds the upper half, halving.
extern "C" __global__ void harris_reduce3(const int* in, int* out) {
    int* s = harris_area;
    const unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned d = blockDim.x / 2; d > 0; d >>= 1) {
        if (t < d) s[t] += s[t + d];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// 4: as 3, with the first add during the load: a block covers 2 * blockDim.x
// elements (half the blocks).
extern "C" __global__ void harris_reduce4(const int* in, int* out) {
    int* s = harris_area;
    const unsigned t = threadIdx.x;
    const unsigned i = blockIdx.x * (2 * blockDim.x) + t;
    s[t] = in[i] + in[i + blockDim.x];
    __syncthreads();
    for (unsigned d = blockDim.x / 2; d > 0; d >>= 1) {
        if (t < d) s[t] += s[t + d];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// The last warp's six steps without __syncthreads (warp-synchronous, on a
// volatile pointer; __syncwarp between steps, which Volta and later need).
// Steps above the block size are skipped (B: the block size when known at
// compile time, else 64 or more).
template <unsigned B>
__device__ void harris_last_warp(volatile int* s, unsigned t) {
    if (B >= 64) s[t] += s[t + 32];
    __syncwarp();
    if (B >= 32) s[t] += s[t + 16];
    __syncwarp();
    if (B >= 16) s[t] += s[t + 8];
    __syncwarp();
    if (B >= 8) s[t] += s[t + 4];
    __syncwarp();
    if (B >= 4) s[t] += s[t + 2];
    __syncwarp();
    if (B >= 2) s[t] += s[t + 1];
}

// 5: as 4, with the loop stopping at 64 and the last warp unrolled
// (blockDim.x >= 64).
extern "C" __global__ void harris_reduce5(const int* in, int* out) {
    int* s = harris_area;
    const unsigned t = threadIdx.x;
    const unsigned i = blockIdx.x * (2 * blockDim.x) + t;
    s[t] = in[i] + in[i + blockDim.x];
    __syncthreads();
    for (unsigned d = blockDim.x / 2; d > 32; d >>= 1) {
        if (t < d) s[t] += s[t + d];
        __syncthreads();
    }
    if (t < 32) harris_last_warp<64>(s, t);
    if (t == 0) out[blockIdx.x] = s[0];
}

// The block's tree with the block size B a template parameter: every step
// unrolled, those above B compiled away.
template <unsigned B>
__device__ void harris_block_tree(int* s, unsigned t) {
    if (B >= 1024) {
        if (t < 512) s[t] += s[t + 512];
        __syncthreads();
    }
    if (B >= 512) {
        if (t < 256) s[t] += s[t + 256];
        __syncthreads();
    }
    if (B >= 256) {
        if (t < 128) s[t] += s[t + 128];
        __syncthreads();
    }
    if (B >= 128) {
        if (t < 64) s[t] += s[t + 64];
        __syncthreads();
    }
    if (t < 32) harris_last_warp<B>(s, t);
}

// 6: as 5, completely unrolled (block size B known at compile time).
template <unsigned B>
__device__ void harris_reduce6(const int* in, int* out) {
    int* s = harris_area;
    const unsigned t = threadIdx.x;
    const unsigned i = blockIdx.x * (2 * B) + t;
    s[t] = in[i] + in[i + B];
    __syncthreads();
    harris_block_tree<B>(s, t);
    if (t == 0) out[blockIdx.x] = s[0];
}

// 7: as 6, with many elements per thread: each thread first adds pairs
// (i, i + B) over a grid-stride loop (n: a multiple of 2 * B * gridDim.x).
template <unsigned B>
__device__ void harris_reduce7(const int* in, int* out, unsigned n) {
    int* s = harris_area;
    const unsigned t = threadIdx.x;
    const unsigned step = 2 * B * gridDim.x;
    int sum = 0;
    for (unsigned i = blockIdx.x * (2 * B) + t; i < n; i += step) {
        sum += in[i] + in[i + B];
    }
    s[t] = sum;
    __syncthreads();
    harris_block_tree<B>(s, t);
    if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void harris_reduce6_b128(const int* in, int* out) {
    harris_reduce6<128>(in, out);
}
extern "C" __global__ void harris_reduce6_b64(const int* in, int* out) {
    harris_reduce6<64>(in, out);
}
extern "C" __global__ void harris_reduce7_b128(const int* in, int* out, unsigned n) {
    harris_reduce7<128>(in, out, n);
}
extern "C" __global__ void harris_reduce7_b64(const int* in, int* out, unsigned n) {
    harris_reduce7<64>(in, out, n);
}

// ---------------------------------------------------------------------------
// The CUDA SDK matrixMul kernel's algorithm: C = A * B for square row-major
// matrices of width w (a multiple of 32); a 32 x 32 block computes one 32 x 32
// tile of C, one element per thread, stepping through k a tile at a time:
// load a tile of A and of B into shared memory, sync, 32 multiply-adds from
// shared memory, sync. Dynamic shared memory: 2 * 32 * 32 floats.

extern __shared__ float matmul_area[];

extern "C" __global__ void sdk_matmul_f32_bs32(float* c, const float* a, const float* b, int w) {
    constexpr int kTile = 32;
    float(*as)[kTile] = reinterpret_cast<float(*)[kTile]>(matmul_area);
    float(*bs)[kTile] = reinterpret_cast<float(*)[kTile]>(matmul_area + kTile * kTile);
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kTile + ty;
    const int col = blockIdx.x * kTile + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < w; k0 += kTile) {
        as[ty][tx] = a[row * w + k0 + tx];
        bs[ty][tx] = b[(k0 + ty) * w + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < kTile; ++k) {
            acc += as[ty][k] * bs[k][tx];
        }
        __syncthreads();
    }
    c[row * w + col] = acc;
}

// ---------------------------------------------------------------------------
// Matrix transpose family (Ruetsch & Micikevicius, "Optimizing Matrix
// Transpose in CUDA", and Harris's "An Efficient Matrix Transpose in CUDA
// C/C++"): a float matrix of gridDim.x * TILE columns and gridDim.y * TILE
// rows, row-major, out-of-place; a block of TILE x ROWS threads handles one
// TILE x TILE tile, each thread TILE / ROWS elements, ROWS rows apart.
// Two configurations: 32 x 32 tiles with 32 x 8 threads (4 elements a thread;
// the kernels without a suffix) and the CUDA Samples' 16 x 16 tiles with
// 16 x 16 threads (one element a thread; suffix _t16). Dynamic shared memory:
// the tile, TILE x PITCH floats (PITCH = TILE + 1 for the padded kernels).

extern __shared__ float transpose_tile[];

constexpr int kTile = 32, kRows = 8;

// The block's tile column and row (cartesian: blockIdx.x, blockIdx.y).
struct TileAt {
    int x, y;
};

__device__ TileAt tile_cartesian() {
    return {int(blockIdx.x), int(blockIdx.y)};
}

// Diagonal reordering (partition camping): blockIdx.y numbers the diagonals
// of tiles and blockIdx.x the position along one, so that consecutive blocks
// walk a diagonal. Square grids map by (x + y) mod gridDim.x; others go
// through the linear block number.
__device__ TileAt tile_diagonal(int width, int height) {
    if (width == height) {
        return {int((blockIdx.x + blockIdx.y) % gridDim.x), int(blockIdx.x)};
    }
    const unsigned linear = blockIdx.y * gridDim.x + blockIdx.x;
    const int row = linear % gridDim.y;
    return {int((linear / gridDim.y + row) % gridDim.x), row};
}

// out = in, with the transpose's indexing (the bandwidth to aim for).
template <int TILE, int ROWS>
__device__ void transpose_copy(float* out, const float* in) {
    const int w = gridDim.x * TILE;
    const int x = blockIdx.x * TILE + threadIdx.x;
    const int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        out[(y + j) * w + x] = in[(y + j) * w + x];
    }
}

// out = in through a shared tile (the cost of the staging alone). GUARD: the
// CUDA Samples' version checks the indices against the matrix (always true
// here).
template <int TILE, int ROWS, bool GUARD>
__device__ void transpose_copy_shared(float* out, const float* in) {
    const int w = gridDim.x * TILE, h = gridDim.y * TILE;
    const int x = blockIdx.x * TILE + threadIdx.x;
    const int y = blockIdx.y * TILE + threadIdx.y;
    const bool inside = !GUARD || (x < w && y < h);
    for (int j = 0; j < TILE; j += ROWS) {
        if (inside) transpose_tile[(threadIdx.y + j) * TILE + threadIdx.x] = in[(y + j) * w + x];
    }
    __syncthreads();
    for (int j = 0; j < TILE; j += ROWS) {
        if (inside) out[(y + j) * w + x] = transpose_tile[(threadIdx.y + j) * TILE + threadIdx.x];
    }
}

// out = in^T directly: coalesced reads, writes a column apart (strided).
template <int TILE, int ROWS>
__device__ void transpose_naive(float* out, const float* in) {
    const int w = gridDim.x * TILE, h = gridDim.y * TILE;
    const int x = blockIdx.x * TILE + threadIdx.x;
    const int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        out[x * h + (y + j)] = in[(y + j) * w + x];
    }
}

// The tiled kernels: the tile `from` of in is read row by row (coalesced)
// into shared memory; after a barrier the tile `to` of out is written row by
// row (coalesced). TRANSPOSE_TILE: out's row r of the tile takes the tile's
// column r (a column read of the tile: with PITCH = TILE all its elements in
// one bank when TILE is 32, conflict-free with PITCH = TILE + 1), else its
// row r. TO_TRANSPOSED: `to` is the tile at the transposed position (in's
// tile (x, y) -> out's tile (y, x)), else the same position.
//   full transpose:   TRANSPOSE_TILE, TO_TRANSPOSED
//   fine-grained:     TRANSPOSE_TILE only (transposes inside the tile, writes
//                     the tile where a copy would)
//   coarse-grained:   TO_TRANSPOSED only (moves whole tiles, untransposed)
template <int TILE, int ROWS, int PITCH, bool TRANSPOSE_TILE, bool TO_TRANSPOSED>
__device__ void transpose_tiled(float* out, const float* in, TileAt from) {
    const int w = gridDim.x * TILE, h = gridDim.y * TILE;
    const int in_x = from.x * TILE + threadIdx.x;
    const int in_y = from.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        transpose_tile[(threadIdx.y + j) * PITCH + threadIdx.x] = in[(in_y + j) * w + in_x];
    }
    __syncthreads();
    // out has h columns when transposed, else w.
    const int out_w = TO_TRANSPOSED ? h : w;
    const int out_x = (TO_TRANSPOSED ? from.y : from.x) * TILE + threadIdx.x;
    const int out_y = (TO_TRANSPOSED ? from.x : from.y) * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) {
        const int at = TRANSPOSE_TILE ? threadIdx.x * PITCH + threadIdx.y + j
                                      : (threadIdx.y + j) * PITCH + threadIdx.x;
        out[(out_y + j) * out_w + out_x] = transpose_tile[at];
    }
}

// 32 x 32 tiles, 32 x 8 threads.
extern "C" __global__ void transpose_copy_f32(float* out, const float* in) {
    transpose_copy<kTile, kRows>(out, in);
}

extern "C" __global__ void transpose_copy_shared_f32(float* out, const float* in) {
    transpose_copy_shared<kTile, kRows, false>(out, in);
}

extern "C" __global__ void transpose_naive_f32(float* out, const float* in) {
    transpose_naive<kTile, kRows>(out, in);
}

extern "C" __global__ void transpose_coalesced_f32(float* out, const float* in) {
    transpose_tiled<kTile, kRows, kTile, true, true>(out, in, tile_cartesian());
}

extern "C" __global__ void transpose_nobankconflicts_f32(float* out, const float* in) {
    transpose_tiled<kTile, kRows, kTile + 1, true, true>(out, in, tile_cartesian());
}

extern "C" __global__ void transpose_finegrained_f32(float* out, const float* in) {
    transpose_tiled<kTile, kRows, kTile + 1, true, false>(out, in, tile_cartesian());
}

extern "C" __global__ void transpose_coarsegrained_f32(float* out, const float* in) {
    transpose_tiled<kTile, kRows, kTile + 1, false, true>(out, in, tile_cartesian());
}

extern "C" __global__ void transpose_diagonal_f32(float* out, const float* in) {
    transpose_tiled<kTile, kRows, kTile + 1, true, true>(
        out, in, tile_diagonal(gridDim.x * kTile, gridDim.y * kTile));
}

// 16 x 16 tiles, 16 x 16 threads (the CUDA Samples' configuration before
// 2025); the shared-memory copy guarded as the sample's is.
constexpr int kTile16 = 16;

extern "C" __global__ void transpose_copy_f32_t16(float* out, const float* in) {
    transpose_copy<kTile16, kTile16>(out, in);
}

extern "C" __global__ void transpose_copy_shared_f32_t16(float* out, const float* in) {
    transpose_copy_shared<kTile16, kTile16, true>(out, in);
}

extern "C" __global__ void transpose_naive_f32_t16(float* out, const float* in) {
    transpose_naive<kTile16, kTile16>(out, in);
}

extern "C" __global__ void transpose_coalesced_f32_t16(float* out, const float* in) {
    transpose_tiled<kTile16, kTile16, kTile16, true, true>(out, in, tile_cartesian());
}

extern "C" __global__ void transpose_nobankconflicts_f32_t16(float* out, const float* in) {
    transpose_tiled<kTile16, kTile16, kTile16 + 1, true, true>(out, in, tile_cartesian());
}

extern "C" __global__ void transpose_finegrained_f32_t16(float* out, const float* in) {
    transpose_tiled<kTile16, kTile16, kTile16 + 1, true, false>(out, in, tile_cartesian());
}

extern "C" __global__ void transpose_coarsegrained_f32_t16(float* out, const float* in) {
    transpose_tiled<kTile16, kTile16, kTile16 + 1, false, true>(out, in, tile_cartesian());
}

extern "C" __global__ void transpose_diagonal_f32_t16(float* out, const float* in) {
    transpose_tiled<kTile16, kTile16, kTile16 + 1, true, true>(
        out, in, tile_diagonal(gridDim.x * kTile16, gridDim.y * kTile16));
}

// ---------------------------------------------------------------------------
// Global memory access patterns (the setup of Harris's "How to Access Global
// Memory Efficiently in CUDA C/C++ Kernels"): thread i copies element i * s
// (stride) or i + o (offset) of in to out.

extern "C" __global__ void stride_copy_f32(float* out, const float* in, int s) {
    const int i = (blockIdx.x * blockDim.x + threadIdx.x) * s;
    out[i] = in[i];
}

extern "C" __global__ void offset_copy_f32(float* out, const float* in, int o) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x + o;
    out[i] = in[i];
}

// ---------------------------------------------------------------------------
// The device-to-device copy of CUDA Samples' bandwidthTest (cudaMemcpy
// DeviceToDevice, which runs the driver's own copy kernel): modelled as a
// plain streaming copy, 16 bytes (one uint4) per thread, guarded.

extern "C" __global__ void copy_u32x4(uint4* out, const uint4* in, unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

// ---------------------------------------------------------------------------
// Accel-Sim GPU microbenchmarks (after Jia et al., "Dissecting the NVIDIA
// Volta GPU Architecture via Microbenchmarking"): one thread (or a few)
// timing a dependent chain with clock64(); out[0] gets the cycles, the
// chain's end goes to a sink so that nothing is dead code.

// A global load with an explicit cache operator (inline PTX): OP 0 .ca
// (cache in L1 and L2), 1 .cg (L2 only), 2 .cv (volatile: fetch again).
template <int OP>
__device__ unsigned long long load_cached(unsigned long long addr) {
    unsigned long long v;
    if (OP == 0) {
        asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(addr) : "memory");
    } else if (OP == 1) {
        asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(addr) : "memory");
    } else {
        asm volatile("ld.global.cv.u64 %0, [%1];" : "=l"(v) : "l"(addr) : "memory");
    }
    return v;
}

// Thread 0 links the len words of chain into one cycle of consecutive
// addresses (word i holds the address of word i + 1, the last that of the
// first), loads the head, and after a barrier of the whole block takes
// `steps` dependent loads between two clock64() reads; the other threads
// only join the barrier. out[0]: cycles, out[1]: where the chase ended.
template <int OP>
__device__ void accelsim_chase(unsigned long long* chain, unsigned long long* out, unsigned len,
                               unsigned steps) {
    unsigned long long p = 0;
    if (threadIdx.x == 0) {
        for (unsigned i = 0; i + 1 < len; ++i) {
            chain[i] = reinterpret_cast<unsigned long long>(chain + i + 1);
        }
        chain[len - 1] = reinterpret_cast<unsigned long long>(chain);
        p = load_cached<OP>(reinterpret_cast<unsigned long long>(chain));
    }
    __syncthreads();
    if (threadIdx.x != 0) return;
    const long long start = clock64();
    for (unsigned n = 0; n < steps; ++n) {
        p = load_cached<OP>(p);
    }
    const long long stop = clock64();
    out[0] = stop - start;
    out[1] = p;
}

extern "C" __global__ void accelsim_chase_ca(unsigned long long* chain, unsigned long long* out,
                                             unsigned len, unsigned steps) {
    accelsim_chase<0>(chain, out, len, steps);
}

extern "C" __global__ void accelsim_chase_cg(unsigned long long* chain, unsigned long long* out,
                                             unsigned len, unsigned steps) {
    accelsim_chase<1>(chain, out, len, steps);
}

// The DRAM chase's chain, built by a grid-stride loop: word i holds the
// address of word (i + step) mod n, so `step` threads starting at words
// 0 .. step-1 each follow their own chain, together touching `step`
// consecutive words per step.
extern "C" __global__ void accelsim_chain_init(unsigned long long* chain, unsigned n,
                                               unsigned step) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        const unsigned next = i + step < n ? i + step : i + step - n;
        chain[i] = reinterpret_cast<unsigned long long>(chain + next);
    }
}

// blockDim.x threads (4: 4 x 8 bytes = one 32-byte sector per step), thread t
// starting at word t: the head with ld.global.cv, a barrier, then the
// dependent .cv loads of words t + 4, t + 8, ... below `words`
// ((words - 4) / 4 of them) between two clock64() reads. out[0]: thread 0's
// cycles, out[1 + t]: where thread t's chase ended.
extern "C" __global__ void accelsim_chase_cv(unsigned long long* chain, unsigned long long* out,
                                             unsigned words) {
    const unsigned t = threadIdx.x;
    unsigned long long p = load_cached<2>(reinterpret_cast<unsigned long long>(chain + t));
    __syncthreads();
    const long long start = clock64();
    for (unsigned i = t; i < words - blockDim.x; i += blockDim.x) {
        p = load_cached<2>(p);
    }
    const long long stop = clock64();
    if (t == 0) out[0] = stop - start;
    out[1 + t] = p;
}

// Shared-memory latency: thread 0 fills the n 64-bit words of shared memory
// with s[i] = (i + 1) mod n, then takes `steps` dependent steps p = s[p]
// (a 64-bit index: each step is the load and the index-to-address
// arithmetic) between two clock64() reads. Dynamic shared memory: 8 n bytes.
extern "C" __global__ void accelsim_shared_lat(unsigned long long* out, unsigned n,
                                               unsigned steps) {
    extern __shared__ unsigned long long accel_words[];
    if (threadIdx.x != 0) return;
    for (unsigned i = 0; i < n; ++i) accel_words[i] = i + 1 < n ? i + 1 : 0;
    unsigned long long p = 0;
    const long long start = clock64();
    for (unsigned k = 0; k < steps; ++k) {
        p = accel_words[p];
    }
    const long long stop = clock64();
    out[0] = stop - start;
    out[1] = p;
}

// Shared-memory load throughput: n 32-bit words with s[i] = (i + stride) mod
// n, filled by the block; each thread starts at its index and takes `steps`
// dependent loads v = s[v] (a warp reads 32 consecutive words: no bank
// conflicts) between a barrier and clock64() and a barrier and clock64().
// clocks[t] and clocks[blockDim.x + t] get thread t's start and stop;
// thread 0 then writes out[0] = the latest stop - the earliest start.
// Dynamic shared memory: 4 n bytes.
extern "C" __global__ void accelsim_shared_bw(unsigned long long* clocks, unsigned long long* out,
                                              unsigned n, unsigned stride, unsigned steps) {
    extern __shared__ unsigned accel_u32[];
    const unsigned t = threadIdx.x;
    for (unsigned i = t; i < n; i += blockDim.x) accel_u32[i] = (i + stride) % n;
    unsigned v = t;
    __syncthreads();
    const long long start = clock64();
    for (unsigned k = 0; k < steps; ++k) {
        v = accel_u32[v];
    }
    __syncthreads();
    const long long stop = clock64();
    clocks[t] = start;
    clocks[blockDim.x + t] = stop;
    if (v == 0xffffffffu) out[1] = v;
    __syncthreads();
    if (t == 0) {
        unsigned long long first = clocks[0], last = clocks[blockDim.x];
        for (unsigned i = 1; i < blockDim.x; ++i) {
            first = min(first, clocks[i]);
            last = max(last, clocks[blockDim.x + i]);
        }
        out[0] = last - first;
    }
}

// Dependent fused multiply-add latency: r = a * b + r, 4 per round (inline
// PTX fma.rn, so the compiler keeps each one), `rounds` rounds (a multiple
// of 4) between a barrier and clock64() and a barrier and clock64(); a and b
// read from memory. out[0]: cycles; res[t]: r. The loop holds 4 rounds (16
// fma, as the compiler unrolls the benchmark's loop) and is kept rolled
// (#pragma unroll 1, which ptxas honours): SASS costs are attributed per PTX
// line, and a further unrolling by ptxas of a loop without memory
// instructions would charge each PTX fma with all its SASS copies.
extern "C" __global__ void accelsim_lat_fma_f32(const float* a, const float* b, float* res,
                                                unsigned long long* out, int rounds) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const float x = a[t], y = b[t];
    float r = 0.0f;
    __syncthreads();
    const long long start = clock64();
#pragma unroll 1
    for (int k = 0; k < rounds; k += 4) {
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            asm volatile(
                "fma.rn.f32 %0, %1, %2, %0;\n\t"
                "fma.rn.f32 %0, %1, %2, %0;\n\t"
                "fma.rn.f32 %0, %1, %2, %0;\n\t"
                "fma.rn.f32 %0, %1, %2, %0;"
                : "+f"(r)
                : "f"(x), "f"(y));
        }
    }
    __syncthreads();
    const long long stop = clock64();
    if (t == 0) out[0] = stop - start;
    res[t] = r;
}

extern "C" __global__ void accelsim_lat_fma_f64(const double* a, const double* b, double* res,
                                                unsigned long long* out, int rounds) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const double x = a[t], y = b[t];
    double r = 0.0;
    __syncthreads();
    const long long start = clock64();
#pragma unroll 1
    for (int k = 0; k < rounds; k += 4) {
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            asm volatile(
                "fma.rn.f64 %0, %1, %2, %0;\n\t"
                "fma.rn.f64 %0, %1, %2, %0;\n\t"
                "fma.rn.f64 %0, %1, %2, %0;\n\t"
                "fma.rn.f64 %0, %1, %2, %0;"
                : "+d"(r)
                : "d"(x), "d"(y));
        }
    }
    __syncthreads();
    const long long stop = clock64();
    if (t == 0) out[0] = stop - start;
    res[t] = r;
}

// ---------------------------------------------------------------------------
// gpu-benches gpu-strides (D. Ernst): one block; thread t reads from
// a + (t mod 64) * stride, 8 floats per round at offsets 0, 4, ..., 28
// (multiplied in pairs into a running sum), so that a warp's load touches
// lane * stride * 4 bytes apart: L1-resident after the first round. One
// untimed round, then `loads` loads (loads / 8 rounds, not unrolled; the
// pointer moves by `zero`, 0 at run time, each round so that no load is
// hoisted) between a barrier and clock64() and a barrier and clock64().
// out[0]: the block's cycles; the sum is stored only if it is -1 (never).
extern "C" __global__ void gpubench_l1stride_f32(const float* a, float* sink,
                                                 unsigned long long* out, int stride, int loads,
                                                 int zero) {
    const float* p = a + (threadIdx.x % 64) * stride;
    float sum = 0.0f;
    sum += p[0] * p[4] + p[8] * p[12] + p[16] * p[20] + p[24] * p[28];
    __syncthreads();
    const long long start = clock64();
#pragma unroll 1
    for (int n = 0; n < loads; n += 8) {
        p += zero;
        sum += p[0] * p[4];
        sum += p[8] * p[12];
        sum += p[20] * p[16];
        sum += p[24] * p[28];
    }
    __syncthreads();
    const long long stop = clock64();
    if (threadIdx.x == 0) out[0] = stop - start;
    if (sum == -1.0f) sink[threadIdx.x] = sum;
}
