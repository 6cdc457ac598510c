// Kernels that read memory never written, for warpjit's initcheck
// (tests/sanitizer_init_sync.rs asserts the exact report of each).
// Regenerate bugs_init.ptx: python3 ptx-samples/gen/gen_sanitizer.py

// A global histogram whose counts the host allocated but never zeroed:
// the first atomicAdd reads a count nobody wrote.
extern "C" __global__ void histogram_counts_not_zeroed(const unsigned char* data, unsigned* counts, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counts[data[i] & 15], 1u);
}

// Accumulates into an output the host allocated but never zeroed
// (`out += a * x`, as in a gradient or a residual update).
extern "C" __global__ void accumulate_into_unset_output(const float* x, float a, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += a * x[i];
}

// A block sum through a shared accumulator that no thread zeroes before
// the atomics add to it.
extern "C" __global__ void shared_sum_not_zeroed(const float* in, float* out) {
    __shared__ float sum;
    unsigned t = threadIdx.x;
    atomicAdd(&sum, in[blockIdx.x * blockDim.x + t]);
    __syncthreads();
    if (t == 0) out[blockIdx.x] = sum;
}

// A 1D stencil that loads the interior of its shared tile but not the
// halo cells: the first and last threads read a halo never written.
extern "C" __global__ void stencil_halo_not_loaded(const float* in, float* out) {
    __shared__ float tile[66];
    unsigned t = threadIdx.x;
    int i = blockIdx.x * 64 + t;
    tile[t + 1] = in[i];
    __syncthreads();
    out[i] = tile[t] - 2.0f * tile[t + 1] + tile[t + 2];
}

// A block reduction whose loads are guarded by `i < n` but whose tree
// reads all 128 slots: in a partial last block the slots past `n` were
// never written.
extern "C" __global__ void reduce_partial_block_unset_tail(const float* in, float* out, int n) {
    __shared__ float s[128];
    unsigned t = threadIdx.x;
    int i = blockIdx.x * 128 + t;
    if (i < n) s[t] = in[i];
    __syncthreads();
    for (unsigned k = 64; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// Row sums of a pitched matrix whose rows the host filled for `w`
// columns only; the kernel sums `pitch` columns, reading the padding.
extern "C" __global__ void row_sum_reads_padding(const float* m, float* sums, int w, int pitch, int h) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= h) return;
    float s = 0.0f;
    for (int c = 0; c < pitch; c++) s += m[r * pitch + c];
    sums[r] = s;
    (void)w;
}

// A dot product; the host copied one element fewer of `y` than it
// allocated (n - 1 floats), so the last product reads an unset element.
extern "C" __global__ void dot_product(const float* x, const float* y, float* result, int n) {
    __shared__ float partial[64];
    unsigned t = threadIdx.x;
    float s = 0.0f;
    for (int i = blockIdx.x * 64 + t; i < n; i += gridDim.x * 64) s += x[i] * y[i];
    partial[t] = s;
    __syncthreads();
    for (unsigned k = 32; k > 0; k >>= 1) {
        if (t < k) partial[t] += partial[t + k];
        __syncthreads();
    }
    if (t == 0) atomicAdd(result, partial[0]);
}

// Each thread takes scratch space from the device heap and accumulates
// into it without clearing it first.
extern "C" __global__ void device_malloc_not_cleared(const int* in, int* out, int n) {
    unsigned t = threadIdx.x;
    int* scratch = (int*)malloc(4 * sizeof(int));
    if (scratch == nullptr) return;
    for (int k = 0; k < n; k++) scratch[k & 3] += in[t * n + k];
    out[t] = scratch[0] + scratch[1] + scratch[2] + scratch[3];
    free(scratch);
}
