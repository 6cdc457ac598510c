// Hopper-era hints real kernels carry, around one computation: programmatic
// dependent launch (griddepcontrol.wait and .launch_dependents, what
// cudaGridDependencySynchronize and cudaTriggerProgrammaticLaunchCompletion
// become; NVRTC does not declare those, so inline asm), setmaxnreg (register reallocation between
// warpgroups, as CUTLASS's warp-specialized kernels do), an L2 cache policy
// from createpolicy given to loads, stores and reductions with
// .L2::cache_hint; and __fns, the n-th set bit of a mask (fns.b32).


extern "C" __global__ void hopper_hints(const unsigned* in, unsigned* out, unsigned* found, int n)
{
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    unsigned long long policy;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned v;
        asm volatile("ld.global.L2::cache_hint.b32 %0, [%1], %2;" : "=r"(v) : "l"(in + i), "l"(policy));
        unsigned r = __fns(v, (unsigned)(i & 31), (i % 9) - 4);
        asm volatile("st.global.L2::cache_hint.b32 [%0], %1, %2;" ::"l"(out + i), "r"(r), "l"(policy)
                     : "memory");
        if (r != 0xffffffffu) {
            unsigned one = 1;
            asm volatile("red.global.add.L2::cache_hint.u32 [%0], %1, %2;" ::"l"(found), "r"(one),
                         "l"(policy)
                         : "memory");
        }
    }
    asm volatile("griddepcontrol.launch_dependents;");
}
