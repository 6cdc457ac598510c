"""Histogram of signed int32 values into bins.shape[0] bins with cuda.atomic.add, grid-stride loop.
The bin is values[i] % nbins with Python's modulo (the result takes the divisor's sign, so negative
values land in [0, nbins) too)."""
from numba import cuda


@cuda.jit
def atomic_hist(values, bins):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    nbins = bins.shape[0]
    for i in range(start, values.shape[0], stride):
        cuda.atomic.add(bins, values[i] % nbins, 1)


SAMPLE = {
    "fn": atomic_hist,
    "sig": "void(int32[::1], int32[::1])",
    "cc": (8, 0),
}
