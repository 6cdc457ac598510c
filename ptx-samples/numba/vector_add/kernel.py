"""Element-wise f32 vector add, as in the first example of Numba's CUDA documentation."""
from numba import cuda


@cuda.jit
def vector_add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


SAMPLE = {
    "fn": vector_add,
    # C-contiguous 1D arrays, the type Numba infers for cuda.to_device(np.ndarray) arguments.
    "sig": "void(float32[::1], float32[::1], float32[::1])",
    "cc": (8, 0),
}
