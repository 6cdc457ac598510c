// Kernels that misuse device-heap blocks (device-side malloc/free), for
// warpjit's memcheck (tests/sanitizer_heap_local.rs asserts the exact
// report of each), and one that uses them correctly (no report).
// Regenerate bugs_heap.ptx: python3 ptx-samples/gen/gen_sanitizer.py

// Each thread takes two blocks of n ints and fills the first with a loop
// that runs one element too far: the last store lands past the first
// block (in a GPU's heap, in the padding or the next block).
extern "C" __global__ void heap_overrun_next_block(const int* in, int* out, int n) {
    unsigned t = threadIdx.x;
    int* a = (int*)malloc(n * sizeof(int));
    int* b = (int*)malloc(n * sizeof(int));
    if (a == nullptr || b == nullptr) return;
    for (int i = 0; i < n; i++) b[i] = 0;
    for (int i = 0; i <= n; i++) a[i] = in[t * n + (i % n)];
    int s = 0;
    for (int i = 0; i < n; i++) s += a[i] + b[i];
    out[t] = s;
    free(a);
    free(b);
}

// A per-thread list node freed before its last use: the sum reads the
// block after free().
extern "C" __global__ void heap_use_after_free(const int* in, int* out, int n) {
    unsigned t = threadIdx.x;
    int* node = (int*)malloc(n * sizeof(int));
    if (node == nullptr) return;
    for (int i = 0; i < n; i++) node[i] = in[t * n + i];
    free(node);
    volatile int* stale = node;
    int s = 0;
    for (int i = 0; i < n; i++) s += stale[i];
    out[t] = s;
}

// Two cleanup paths both free the same scratch block.
extern "C" __global__ void heap_double_free(const int* in, int* out, int n) {
    unsigned t = threadIdx.x;
    int* scratch = (int*)malloc(n * sizeof(int));
    if (scratch == nullptr) return;
    int s = 0;
    for (int i = 0; i < n; i++) {
        scratch[i] = in[t * n + i];
        s += scratch[i];
    }
    out[t] = s;
    if (s >= 0) free(scratch);
    free(scratch);
}

// Frees a pointer advanced past the block's header field instead of the
// block's start.
extern "C" __global__ void heap_free_interior(int* out, int n) {
    unsigned t = threadIdx.x;
    int* block = (int*)malloc((n + 1) * sizeof(int));
    if (block == nullptr) return;
    block[0] = n;
    int* items = block + 1;
    for (int i = 0; i < n; i++) items[i] = (int)t + i;
    out[t] = items[n - 1];
    free(items);
}

// Correct: each thread's block holds exactly what it writes and reads,
// and is freed once, after its last use.
extern "C" __global__ void heap_blocks_used_properly(const int* in, int* out, int n) {
    unsigned t = threadIdx.x;
    int* a = (int*)malloc(n * sizeof(int));
    int* b = (int*)malloc(n * sizeof(int));
    if (a == nullptr || b == nullptr) return;
    for (int i = 0; i < n; i++) {
        a[i] = in[t * n + i];
        b[i] = 2 * a[i];
    }
    int s = 0;
    for (int i = 0; i < n; i++) s += a[i] + b[i];
    free(a);
    free(b);
    out[t] = s;
}
