// Device-side malloc/free, for warpjit's device heap (tests/device_heap.rs).

// Each thread allocates n ints, fills them, sums them and frees them;
// out[t] is the sum, or -1 where malloc returned NULL.
extern "C" __global__ void per_thread(long long *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int *p = (int *)malloc(n * sizeof(int));
    if (p == nullptr) {
        out[t] = -1;
        return;
    }
    for (int i = 0; i < n; i++) p[i] = t * i;
    long long s = 0;
    for (int i = 0; i < n; i++) s += p[i];
    out[t] = s;
    free(p);
}

// Thread 0 of each block allocates a block-sized array that outlives the
// launch; its threads fill it; ptrs[b] keeps it for `collect`.
extern "C" __global__ void keep(int **ptrs) {
    __shared__ int *p;
    if (threadIdx.x == 0) {
        p = (int *)malloc(blockDim.x * sizeof(int));
        ptrs[blockIdx.x] = p;
    }
    __syncthreads();
    if (p != nullptr) p[threadIdx.x] = blockIdx.x * 1000 + threadIdx.x;
}

// A later launch reads what `keep` left, then frees it.
extern "C" __global__ void collect(int **ptrs, int *sums, int n) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= gridDim.x * blockDim.x) return;
    int *p = ptrs[b];
    if (p == nullptr) {
        sums[b] = -1;
        return;
    }
    int s = 0;
    for (int i = 0; i < n; i++) s += p[i];
    sums[b] = s;
    free(p);
}

// Each thread asks for `bytes`; got[t] says whether it got them. Nothing
// is freed, so the heap runs out.
extern "C" __global__ void exhaust(int *got, unsigned long long bytes) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    got[t] = malloc(bytes) != nullptr;
}

// Frees a pointer malloc never returned.
extern "C" __global__ void bad_free(int *data) {
    free(data + 1);
}
