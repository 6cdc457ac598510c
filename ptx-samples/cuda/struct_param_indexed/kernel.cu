// A struct passed by value and indexed with run-time indices: NVRTC takes the
// parameter's address (mov.b64 %rd, param) and loads through a register
// (ld.param [%rd+off]), since the index is not known at compile time.
struct Table {
    int n;
    float coef[64];
    int idx[64];
};

extern "C" __global__ void struct_param_indexed(const Table t, const int *sel, float *out, int m) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) {
        int k = sel[i] % t.n;
        out[i] = t.coef[k] * (float)t.idx[(k * 7) % t.n];
    }
}
