"""CuPy (cupy-cuda12x, on NVIDIA's cudart 12.9 and NVRTC) on warpjit's
libcuda.so.1 (run by cuda-shim/clients/run.sh), each result checked with
NumPy: creation and copies, elementwise arithmetic and math functions,
broadcasting, reductions, scans, slicing, boolean and fancy indexing, type
conversion, sorting (Thrust), histograms, an ElementwiseKernel, a
ReductionKernel and a RawKernel, streams and events. Not tried: cuBLAS
(`matmul`, `dot`), cuFFT and cuRAND's host API, which ship machine code
only.
Needs CUPY_COMPILE_WITH_PTX=1 (CuPy's kernels as PTX: NVRTC's CUBINs are
SASS); run.sh runs it with CUPY_ACCELERATORS="" (CuPy's own reduction and
scan kernels) and with CUPY_ACCELERATORS=cub (CUB's, from the PTX in
CuPy's fatbin)."""
import os

import numpy as np

assert os.environ.get("CUPY_COMPILE_WITH_PTX") == "1", "set CUPY_COMPILE_WITH_PTX=1"
import cupy as cp  # noqa: E402

checks = []


def check(name, got, want, **kw):
    got = cp.asnumpy(got) if isinstance(got, cp.ndarray) else got
    np.testing.assert_allclose(got, want, **kw)
    checks.append(name)


assert cp.cuda.runtime.getDeviceCount() == 1
name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
assert name.startswith("warpjit"), name

check("arange().sum()", cp.arange(10).sum(), 45)
h = np.linspace(-3, 3, 1000, dtype=np.float32)
d = cp.asarray(h)
check("round trip", d, h)
check("a + b, a * b", d + 2 * d, h + 2 * h, rtol=1e-6)
check("sin, exp, sqrt", cp.sin(d) + cp.exp(d / 3) + cp.sqrt(cp.abs(d)),
      np.sin(h) + np.exp(h / 3) + np.sqrt(np.abs(h)), rtol=1e-5, atol=1e-6)
m = cp.arange(12, dtype=cp.float64).reshape(3, 4)
hm = np.arange(12, dtype=np.float64).reshape(3, 4)
check("broadcasting", m * cp.arange(4), hm * np.arange(4))
check("sum over an axis", m.sum(axis=0), hm.sum(axis=0))
check("max, min, mean", cp.stack([d.max(), d.min(), d.mean()]), [h.max(), h.min(), h.mean()], rtol=1e-5, atol=1e-6)
check("argmax", int(cp.argmax(d)), int(np.argmax(h)))
check("slicing", m[1:, ::2], hm[1:, ::2])
check("transpose copy", cp.ascontiguousarray(m.T), hm.T)
idx = cp.array([3, 0, 2])
check("fancy indexing", d[idx], h[[3, 0, 2]])
check("where", cp.where(d > 0, d, 0), np.where(h > 0, h, 0))
check("astype", (d * 10).astype(cp.int32), (h * 10).astype(np.int32))
check("cumsum", cp.cumsum(cp.arange(100)), np.cumsum(np.arange(100)))
z = cp.zeros(5, dtype=cp.float32)
z[2] = 7
check("setitem", z, [0, 0, 7, 0, 0])

check("full, eye", cp.full((2, 3), 7.5) + cp.eye(2, 3), np.full((2, 3), 7.5) + np.eye(2, 3))
check("linspace", cp.linspace(0, 1, 11), np.linspace(0, 1, 11))
check("concatenate", cp.concatenate([d[:3], d[-3:]]), np.concatenate([h[:3], h[-3:]]))
check("flip, roll", cp.roll(cp.flip(d[:10]), 3), np.roll(np.flip(h[:10]), 3))
check("tril", cp.tril(cp.ones((4, 4))), np.tril(np.ones((4, 4))))
check("clip", cp.clip(d, -1, 1), np.clip(h, -1, 1))
check("float16", cp.asarray(h.astype(np.float16)) * 2, h.astype(np.float16) * 2)
check("complex abs", cp.abs(cp.asarray(h[:8]) * 1j + 1), np.abs(h[:8] * 1j + 1), rtol=1e-6)
check("outer", cp.outer(d[:3], d[:4]), np.outer(h[:3], h[:4]))
check("isclose", cp.isclose(d, d + 1e-9), np.isclose(h, h + 1e-9))
check("prod", cp.prod(cp.arange(1, 11, dtype=cp.float64)), np.prod(np.arange(1, 11, dtype=np.float64)))
check("std, var", cp.stack([d.std(), d.var()]), [h.std(), h.var()], rtol=1e-5)
check("any, all", cp.stack([(d > 2.99).any(), (d > -4).all()]), [True, True])
check("argmin", int(cp.argmin(d)), int(np.argmin(h)))
check("einsum", cp.einsum("ij->j", m), np.einsum("ij->j", hm))
check("cumprod", cp.cumprod(cp.arange(1, 8)), np.cumprod(np.arange(1, 8)))
check("diff", cp.diff(d[:10]), np.diff(h[:10]), rtol=1e-6)
check("boolean mask", d[d > 2.5], h[h > 2.5])
check("nonzero", cp.nonzero(d > 2.9)[0], np.nonzero(h > 2.9)[0])
check("take", cp.take(d, cp.asarray([5, 1])), np.take(h, [5, 1]))
check("searchsorted", cp.searchsorted(d, cp.asarray([0.0, 1.0], dtype=cp.float32)),
      np.searchsorted(h, np.array([0.0, 1.0], dtype=np.float32)))
check("bincount", cp.bincount(cp.asarray([0, 1, 1, 3, 3, 3])), np.bincount([0, 1, 1, 3, 3, 3]))
check("histogram", cp.histogram(d, bins=10)[0], np.histogram(h, bins=10)[0])
# Sorting: CuPy's Thrust sorts, from the PTX in its own fatbin (CUB's
# radix and merge sorts: hundreds of kernels in one module).
check("sort", cp.sort(d[::-1]), np.sort(h[::-1]))
check("argsort", cp.argsort(cp.asarray([3, 1, 2])), np.argsort([3, 1, 2]))
check("unique", cp.unique(cp.asarray([3, 1, 2, 3, 1])), np.unique([3, 1, 2, 3, 1]))
check("partition", cp.partition(cp.asarray([5, 1, 4, 2, 3]), 2)[2], 3)
check("median", cp.median(d), np.median(h))
check("random (shape)", cp.random.default_rng(1).random(4).shape, (4,))

squared_diff = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = (x - y) * (x - y)", "squared_diff")
check("ElementwiseKernel", squared_diff(d, cp.float32(1)), (h - 1) ** 2, rtol=1e-5)
l2 = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
check("ReductionKernel", l2(d), np.sqrt((h.astype(np.float64) ** 2).sum()), rtol=1e-4)
saxpy = cp.RawKernel(r'''
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }''', "saxpy")
y = cp.ones_like(d)
saxpy(((d.size + 127) // 128,), (128,), (cp.float32(2), d, y, cp.int32(d.size)))
check("RawKernel", y, 2 * h + 1, rtol=1e-6)

stream = cp.cuda.Stream(non_blocking=True)
with stream:
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    s = (d * d).sum()
    stop.record()
stream.synchronize()
assert cp.cuda.get_elapsed_time(start, stop) >= 0
check("on a stream", s, (h * h).sum(), rtol=1e-5)
accel = os.environ.get("CUPY_ACCELERATORS", "(default)")
print(f"CuPy on warpjit ({name}, CUPY_ACCELERATORS={accel!r}): {len(checks)} checks OK: " + ", ".join(checks))
