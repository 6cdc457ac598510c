// Correct kernels: warpjit's sanitizer must report nothing for them with
// every check on (tests/sanitizer.rs).
// Regenerate correct.ptx: python3 ptx-samples/gen/gen_sanitizer.py

// A tree reduction with its barriers (128 threads per block).
extern "C" __global__ void reduce(const float* in, float* out) {
    __shared__ float s[128];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * 128 + t];
    __syncthreads();
    for (unsigned k = 64; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// A tiled transpose through a padded shared tile: blocks of 32 x 8
// threads, each moving a 32 x 32 tile.
#define TILE 32
extern "C" __global__ void transpose(const float* in, float* out, int w, int h) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 8)
        if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 8)
        if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Neighbours exchanged through shared memory with the __syncwarp().
extern "C" __global__ void warp_neighbor(const int* in, int* out) {
    __shared__ int s[32];
    unsigned t = threadIdx.x;
    s[t] = in[t];
    __syncwarp();
    out[t] = s[(t + 1) % 32];
}

// A warp sum by shuffles with the full member mask, then one atomic per warp.
extern "C" __global__ void warp_sum(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

// One thread writes a value for the block; after the barrier all read it.
extern "C" __global__ void broadcast(const int* in, int* out) {
    __shared__ int v;
    if (threadIdx.x == 0) v = in[blockIdx.x];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = v + threadIdx.x;
}
