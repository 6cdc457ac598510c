// Fidelity kernels: each reproduces the setup of a published GPU measurement
// (ptx-samples/fidelity/published.toml). Written here from the algorithms the
// publications describe; none is copied from a benchmark's code.

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
// partial sum per block. blockDim.x must be a power of two, at most 1024.
extern "C" __global__ void stream_dot_f64(const double* a, const double* b, double* partial,
                                          unsigned long long n) {
    __shared__ double sums[1024];
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
