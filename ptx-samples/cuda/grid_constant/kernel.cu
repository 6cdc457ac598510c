// A __grid_constant__ struct parameter whose address is taken: NVRTC keeps
// it in the parameter space and makes a generic pointer to it with
// cvta.param, which a non-inlined device function reads through (the
// pattern of CUTLASS's kernel Params and of TMA descriptors). Thread 0
// also asks which space that pointer and the output pointer are in.
struct Params {
    int n;
    float scale;
    float table[16];
    int offsets[4];
};

__device__ __noinline__ float lookup(const Params* p, int i)
{
    int k = (i + p->offsets[i & 3]) & 15;
    return p->table[k] * p->scale;
}

extern "C" __global__ void grid_constant(const __grid_constant__ Params p, float* out, unsigned* flags)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) {
        out[i] = lookup(&p, i);
    }
    if (i == 0) {
        flags[0] = __isGridConstant(&p);
        flags[1] = __isGlobal(&p);
        flags[2] = __isGridConstant(out);
        flags[3] = __isGlobal(out);
    }
}
