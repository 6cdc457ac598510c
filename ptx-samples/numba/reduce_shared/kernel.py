"""Per-block int32 sum: each block loads TPB elements into a shared array and halves the
active range each step, with cuda.syncthreads() between steps; thread 0 writes the block sum."""
from numba import cuda, int32

TPB = 128


@cuda.jit
def reduce_shared(x, partial):
    sm = cuda.shared.array(TPB, dtype=int32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < x.size:
        sm[tid] = x[i]
    else:
        sm[tid] = 0
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if tid < s:
            sm[tid] += sm[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = sm[0]


SAMPLE = {
    "fn": reduce_shared,
    "sig": "void(int32[::1], int32[::1])",
    "cc": (8, 0),
    "lineinfo": True,
}
