// Kernels for the memory model's regression tests (tests/timing_memory.rs):
// each isolates one mechanism a real GPU has and the model must show.

// A float copy where thread i reads element i and writes element i * stride
// (stride 1: coalesced; stride 32: every lane of a warp writes its own line).
extern "C" __global__ void scatter_store(const float* in, float* out, unsigned stride) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[(unsigned long long)i * stride] = in[i];
}

// Each thread streams `per_thread` doubles, `ilp` loads in flight at a time:
// the bytes in flight per SM are warps x 32 x 8 x ilp.
extern "C" __global__ void stream_ilp(const double* in, double* out, unsigned per_thread) {
    const unsigned n = gridDim.x * blockDim.x;
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    double s = 0.0;
    for (unsigned k = 0; k < per_thread; k += 8) {
        // All eight loads issue before any use, as ptxas would schedule
        // them (volatile inline PTX keeps NVVM from interleaving the adds).
        double v[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            const double* p = in + (unsigned long long)(k + j) * n + i;
            asm volatile("ld.global.f64 %0, [%1];" : "=d"(v[j]) : "l"(p));
        }
        s += ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
    }
    out[i] = s;
}

// Shared-memory reads with a stride between lanes: stride 1 is conflict-free,
// stride 32 makes every lane of a warp hit the same bank (32-way conflict).
extern "C" __global__ void shared_stride(float* out, unsigned stride, unsigned iters) {
    __shared__ float tile[32 * 33];
    for (unsigned k = threadIdx.x; k < 32 * 33; k += blockDim.x) {
        tile[k] = k;
    }
    __syncthreads();
    const unsigned lane = threadIdx.x % 32;
    unsigned at = (lane * stride) % (32 * 32);
    float acc = 0.0f;
    for (unsigned k = 0; k < iters; ++k) {
        acc += tile[at];
        at = (at + 1) % (32 * 32);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
