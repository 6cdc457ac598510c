// The kernel of the two-file link sample: it calls a device function and
// reads a device variable that only util.cu defines (`extern`), and has a
// module-local (`static`) variable whose name util.cu uses for another one.

// In both files, as a header would put it: NVRTC emits an inline function in
// each file that uses it as a `.weak` definition (the linker keeps one).
__device__ __noinline__ inline int twice(int x) { return 2 * x; }

extern __device__ float scale(float x);  // util.cu
extern __device__ int bias;             // util.cu, initialized there to 7
extern __device__ unsigned int hits;    // util.cu; the host reads it back
extern __device__ int util_twist(int x); // util.cu: calls util.cu's own `twist`

// Module-local (`static`), with C linkage: NVRTC keeps the variable's name
// `calls`, which util.cu also uses for a `static` variable of its own (the
// linker renames one), and gives `twist` a file-unique mangled name.
extern "C" {
static __device__ int calls;
static __device__ __noinline__ int twist(int x) { atomicAdd(&calls, 1); return x * 3; }
}

extern "C" __global__ void link_kernel(const float* in, float* out, int* iout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = scale(in[i]) + (float)bias;
        iout[i] = twist(i) + util_twist(i) + twice(i);
        atomicAdd(&hits, 1u);
    }
}
