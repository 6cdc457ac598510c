// The library side of the two-file link sample: definitions kernel.cu
// declares `extern`, and a module-local `twist` of its own.

// As in kernel.cu: NVRTC emits it as a `.weak` definition.
__device__ __noinline__ inline int twice(int x) { return 2 * x; }

__device__ int bias = 7;
__device__ unsigned int hits;

__device__ __noinline__ float scale(float x) { return 2.0f * x + 0.5f; }

// Module-local (`static`), with C linkage: NVRTC keeps the variable's name
// `calls`, which kernel.cu also uses for a `static` variable of its own (the
// linker renames one), and gives `twist` a file-unique mangled name.
extern "C" {
static __device__ int calls;
static __device__ __noinline__ int twist(int x) { atomicAdd(&calls, 2); return x + 100; }
}

__device__ __noinline__ int util_twist(int x) { return twist(x) + twice(x); }
