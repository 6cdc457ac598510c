// Kernels with memory-access bugs for warpjit's memcheck
// (tests/sanitizer_memcheck.rs asserts the exact report of each).
// Regenerate bugs_memcheck.ptx: python3 ptx-samples/gen/gen_sanitizer.py

// Reverses an array, but indexes from `n` instead of `n - 1`: thread 0
// reads one element past the end of `in`.
extern "C" __global__ void reverse_off_by_one(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[n - i];
}

// A vector sum launched on a grid rounded up to whole blocks, without the
// `i < n` guard: the threads of the last block past `n` read both inputs
// out of bounds.
extern "C" __global__ void vector_add_missing_guard(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];
    (void)n;
}

// A three-point stencil with no boundary handling: thread 0 reads in[-1],
// four bytes before the start of the allocation.
extern "C" __global__ void stencil_no_boundary(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}

// A gather whose index array uses -1 for "missing", and the kernel forgets
// to test for it.
extern "C" __global__ void gather_unchecked_sentinel(const float* values, const int* idx, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = values[idx[i]];
}

// A histogram of values in [0, 1] into `bins` buckets: x == 1.0 lands in
// bucket `bins`, one past the end of the counts.
extern "C" __global__ void histogram_bin_past_end(const float* x, unsigned* counts, int n, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int b = (int)(x[i] * bins);
        atomicAdd(&counts[b], 1u);
    }
}

// A 2D image kernel on a grid rounded up in both dimensions that tests
// only the column: the rows past the image's height are read and written.
extern "C" __global__ void image_missing_row_guard(const float* img, float* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w) out[y * w + x] = 1.0f - img[y * w + x];
    (void)h;
}

// A copy vectorised through float4 on a sub-range starting at `offset`
// floats: with an offset that is not a multiple of 4, every float4 load is
// misaligned.
extern "C" __global__ void float4_copy_misaligned(const float* in, float* out, int offset, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = reinterpret_cast<const float4*>(in + offset)[i];
        reinterpret_cast<float4*>(out)[i] = v;
    }
}

// Parses 3-byte records by casting the byte pointer to int*: the second
// record's int starts at byte 3.
extern "C" __global__ void packed_records_misaligned(const unsigned char* rec, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = *reinterpret_cast<const int*>(rec + 3 * i) & 0xffffff;
}

// A block-wide reverse through dynamic shared memory that needs
// 2 * blockDim.x floats (value and key), launched with room for one.
extern "C" __global__ void dynamic_shared_undersized(const float* in, float* out) {
    extern __shared__ float buf[];
    unsigned t = threadIdx.x, n = blockDim.x;
    buf[t] = in[blockIdx.x * n + t];
    buf[n + t] = (float)t;
    __syncthreads();
    out[blockIdx.x * n + t] = buf[n - 1 - t] + buf[2 * n - 1 - t];
}

// A 1D stencil through a shared tile with a halo of one on each side,
// declared with the block's size, forgetting the halo: the last thread's
// cell (and its right halo) are written past the end of the tile.
#define HALO_BLOCK 64
extern "C" __global__ void halo_tile_too_small(const float* in, float* out, int n) {
    __shared__ float tile[HALO_BLOCK];
    int i = blockIdx.x * HALO_BLOCK + threadIdx.x;
    unsigned t = threadIdx.x;
    tile[t + 1] = in[i];
    if (t == 0) tile[0] = i > 0 ? in[i - 1] : 0.0f;
    if (t == HALO_BLOCK - 1) tile[HALO_BLOCK + 1] = i + 1 < n ? in[i + 1] : 0.0f;
    __syncthreads();
    out[i] = tile[t] + tile[t + 1] + tile[t + 2];
}

// Counts the digits of each value in a per-thread local array of 8 digit
// slots, but values have up to 9 digits: the ninth is stored past the
// array (and past the thread's local frame).
extern "C" __global__ void local_digits_overflow(const unsigned* in, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned digits[8];
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

// Writes doubles into a buffer the host sized for floats
// (n * sizeof(float) bytes): the second half of the threads write past it.
extern "C" __global__ void double_into_float_buffer(const float* in, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (double)in[i] * 0.5;
}
