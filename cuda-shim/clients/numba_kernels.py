"""numba-cuda kernels on warpjit's libcuda.so.1 (run by cuda-shim/clients/run.sh):
a vector add, a shared-memory block reduction and a histogram with
cuda.atomic.add, compiled by numba-cuda with NVVM from PyPI (no nvJitLink),
each checked against NumPy."""
import warnings

import numpy as np
from numba import cuda, float32, int32

warnings.simplefilter("ignore")


@cuda.jit
def vadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit
def block_sum(x, out):
    tile = cuda.shared.array(256, dtype=float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    tile[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    s = 128
    while s > 0:
        if t < s:
            tile[t] += tile[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = tile[0]


@cuda.jit
def histogram(values, bins):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.add(bins, values[i] % bins.size, int32(1))


def main() -> None:
    n = 10000
    a = np.arange(n, dtype=np.float32)
    b = 3 * a
    c = np.zeros_like(a)
    vadd[(n + 255) // 256, 256](a, b, c)
    assert np.array_equal(c, a + b), "vadd"

    x = (np.arange(n, dtype=np.float32) % 7) * 0.5
    blocks = (n + 255) // 256
    partial = np.zeros(blocks, dtype=np.float32)
    block_sum[blocks, 256](x, partial)
    want = np.add.reduce(np.pad(x, (0, blocks * 256 - n)).reshape(blocks, 256), axis=1)
    assert np.allclose(partial, want, rtol=1e-6), "block_sum"

    values = (np.arange(n, dtype=np.int32) * 7919) % 1000
    bins = np.zeros(16, dtype=np.int32)
    histogram[(n + 255) // 256, 256](values, bins)
    assert np.array_equal(bins, np.bincount(values % 16, minlength=16)), "histogram"
    print("numba-cuda on warpjit: vadd, shared-memory reduction, atomic histogram OK")


if __name__ == "__main__":
    main()
