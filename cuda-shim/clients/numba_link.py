"""numba-cuda linking on warpjit's libcuda.so.1 (run by cuda-shim/clients/run.sh):
a kernel calling a CUDA C++ device function declared with
`cuda.declare_device` and given as `link=[helpers.cu]` (numba compiles it
with NVRTC and links the two PTX modules through cuLink*), and an fp16
kernel; each checked against NumPy."""
import os
import tempfile
import warnings

import numpy as np
from numba import cuda

warnings.simplefilter("ignore")

HELPERS = 'extern "C" __device__ int mul_add3(int* out, int a, int b) { *out = a * b + 3; return 0; }\n'
tmp = tempfile.mkdtemp()
helpers = os.path.join(tmp, "helpers.cu")
with open(helpers, "w") as f:
    f.write(HELPERS)

mul_add3 = cuda.declare_device("mul_add3", "int32(int32, int32)")


@cuda.jit(link=[helpers])
def linked(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = mul_add3(a[i], b[i])


@cuda.jit
def fp16(x, y):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = x[i] * x[i] + x[i]


a = np.arange(100, dtype=np.int32)
b = np.arange(100, dtype=np.int32) * 2
out = np.zeros(100, dtype=np.int32)
linked[1, 128](a, b, out)
assert (out == a * b + 3).all(), out
print("numba link=[helpers.cu] with cuda.declare_device: ok")

x = np.arange(64).astype(np.float16)
y = np.zeros_like(x)
fp16[1, 64](x, y)
assert (y == x * x + x).all(), y
print("numba fp16 kernel: ok")
