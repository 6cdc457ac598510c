// cp.async with its ignore-src predicate (PTX ISA 9.7.9.25.3.1): when the
// predicate is true the source is not read and cp-size zero bytes are
// written. No CUDA header emits the operand (cuda_pipeline_primitives.h's
// zero fill is a src-size), so inline asm does: each thread of a block
// copies 16 bytes (cp.async.cg, `p`) of a ragged tensor of N floats into a
// shared tile, the quads past the end ignored and zero-filled; then 4 bytes
// (cp.async.ca, `!q`) of every element not a multiple of 3, the others
// ignored. The tiles are filled with -1 first, so a zero is a zero fill.
// Every thread then writes other threads' slots to out.
#define THREADS 128

extern "C" __global__ void cp_async_zfill(const float *in, int n, float *out) {
    __shared__ __align__(16) float quad[4 * THREADS];
    __shared__ __align__(16) float one[THREADS];
    int t = threadIdx.x;
    for (int k = 0; k < 4; k++) quad[4 * t + k] = -1.0f;
    one[t] = -1.0f;
    __syncthreads();

    int i = blockIdx.x * 4 * THREADS + 4 * t;
    int skip = i + 4 > n;
    // An ignored source may be any address; a real one keeps the sample
    // valid for any reading of the ISA.
    const float *src = skip ? in : in + i;
    unsigned dst = (unsigned)__cvta_generic_to_shared(&quad[4 * t]);
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\t"
        "cp.async.cg.shared.global [%0], [%1], 16, p;\n\t}"
        :
        : "r"(dst), "l"(src), "r"(skip)
        : "memory");

    int j = blockIdx.x * THREADS + t;
    int keep = j % 3 != 0 && j < n;
    const float *src1 = keep ? in + j : in;
    unsigned dst1 = (unsigned)__cvta_generic_to_shared(&one[t]);
    asm volatile(
        "{\n\t.reg .pred q;\n\tsetp.ne.b32 q, %2, 0;\n\t"
        "cp.async.ca.shared.global [%0], [%1], 4, !q;\n\t}"
        :
        : "r"(dst1), "l"(src1), "r"(keep)
        : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    __syncthreads();

    float *o = out + blockIdx.x * 5 * THREADS;
    for (int k = 0; k < 4; k++) o[4 * t + k] = quad[(4 * t + k + 4 * 37) % (4 * THREADS)];
    o[4 * THREADS + t] = one[(t + 5) % THREADS];
}
