// Kernels that read a thread's local memory (local arrays) before writing
// it, for warpjit's initcheck (tests/sanitizer_heap_local.rs asserts the
// exact report of each), and ones that write it fully first (no report).
// Regenerate bugs_local.ptx: python3 ptx-samples/gen/gen_sanitizer.py

// A per-thread histogram whose bins are never zeroed: the first `+=`
// reads a bin no store of the thread wrote.
extern "C" __global__ void local_histogram_not_zeroed(const int* in, int* out, int n) {
    unsigned t = threadIdx.x;
    int bins[16];
    for (int i = 0; i < n; i++) bins[in[t * n + i] & 15] += 1;
    int s = 0;
    for (int b = 0; b < 16; b++) s += b * bins[b];
    out[t] = s;
}

// A table filled for its first `n` entries only, then read at an index
// from the input: a thread whose index falls past `n` reads the unset tail.
extern "C" __global__ void local_table_partly_filled(const int* in, const int* idx, int* out, int n) {
    unsigned t = threadIdx.x;
    int table[16];
    for (int i = 0; i < n; i++) table[i] = in[i] * 3;
    out[t] = table[idx[t] & 15];
}

// A helper with its own local array, called twice: the second call reads
// an entry that only the first call (an earlier frame at the same place)
// wrote.
__device__ __noinline__ int pick(const int* in, int n, int k) {
    int buf[16];
    for (int i = 0; i < n; i++) buf[i] = in[i] + 1;
    return buf[k & 15];
}

extern "C" __global__ void local_frame_reused(const int* in, int* out, int n) {
    unsigned t = threadIdx.x;
    int first = pick(in, 16, t);
    int second = pick(in, n, t + 8);
    out[t] = first + second;
}

// Correct: the histogram zeroed first, and a table filled in full.
extern "C" __global__ void local_arrays_fully_written(const int* in, const int* idx, int* out, int n) {
    unsigned t = threadIdx.x;
    int bins[16];
    for (int b = 0; b < 16; b++) bins[b] = 0;
    for (int i = 0; i < n; i++) bins[in[t * n + i] & 15] += 1;
    int table[16];
    for (int i = 0; i < 16; i++) table[i] = in[i] * 3;
    int s = table[idx[t] & 15];
    for (int b = 0; b < 16; b++) s += b * bins[b];
    out[t] = s + pick(in, 16, t);
}
