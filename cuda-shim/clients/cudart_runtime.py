"""NVIDIA's runtime API (cudart 12.9, through cuda.bindings.runtime) on
warpjit's libcuda.so.1 (run by cuda-shim/clients/run.sh): device count and
properties, cudaMalloc/cudaMemcpy/cudaMemset/cudaFree, a stream and events,
and a saxpy compiled by NVRTC to PTX, loaded with cudaLibraryLoadData and
launched on the runtime's stream (cuda.bindings.runtime has no
cudaLaunchKernel, which takes a host function: the kernel handle is launched
with the driver's cuLaunchKernel, as CuPy does); results checked with
NumPy."""
import numpy as np
from cuda.bindings import driver as cu
from cuda.bindings import nvrtc
from cuda.bindings import runtime as rt


def check(r):
    err = r[0]
    ok = (rt.cudaError_t.cudaSuccess, nvrtc.nvrtcResult.NVRTC_SUCCESS, cu.CUresult.CUDA_SUCCESS)
    if err not in ok:
        raise RuntimeError(f"error {err}")
    return r[1:] if len(r) > 2 else (r[1] if len(r) == 2 else None)


count = check(rt.cudaGetDeviceCount())
assert count == 1, count
props = check(rt.cudaGetDeviceProperties(0))
name = props.name.split(b"\0")[0].decode()
assert name.startswith("warpjit"), name
assert props.warpSize == 32 and props.multiProcessorCount > 0, props
check(rt.cudaSetDevice(0))
assert check(rt.cudaGetDevice()) == 0
assert check(rt.cudaDriverGetVersion()) == 12090
free, total = check(rt.cudaMemGetInfo())
assert 0 < free <= total, (free, total)

# Memory: a round trip, a memset and a device-to-device copy.
n = 4096
x = np.arange(n, dtype=np.float32)
dx = check(rt.cudaMalloc(x.nbytes))
dy = check(rt.cudaMalloc(x.nbytes))
check(rt.cudaMemcpy(dx, x.ctypes.data, x.nbytes, rt.cudaMemcpyKind.cudaMemcpyHostToDevice))
check(rt.cudaMemcpy(dy, dx, x.nbytes, rt.cudaMemcpyKind.cudaMemcpyDeviceToDevice))
back = np.zeros_like(x)
check(rt.cudaMemcpy(back.ctypes.data, dy, x.nbytes, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost))
assert np.array_equal(back, x)
check(rt.cudaMemset(dy, 0, x.nbytes))
check(rt.cudaMemcpy(back.ctypes.data, dy, x.nbytes, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost))
assert not back.any()

# A kernel: NVRTC's PTX as a library, launched on a stream between events.
src = b'''extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }'''
prog = check(nvrtc.nvrtcCreateProgram(src, b"saxpy.cu", 0, [], []))
check(nvrtc.nvrtcCompileProgram(prog, 1, [b"--gpu-architecture=compute_80"]))
ptx = b" " * check(nvrtc.nvrtcGetPTXSize(prog))
check(nvrtc.nvrtcGetPTX(prog, ptx))
library = check(rt.cudaLibraryLoadData(ptx, None, None, 0, None, None, 0))
kernel = check(rt.cudaLibraryGetKernel(library, b"saxpy"))
y = np.ones(n, dtype=np.float32)
check(rt.cudaMemcpy(dy, y.ctypes.data, y.nbytes, rt.cudaMemcpyKind.cudaMemcpyHostToDevice))
stream = check(rt.cudaStreamCreate())
start, stop = check(rt.cudaEventCreate()), check(rt.cudaEventCreate())
check(rt.cudaEventRecord(start, stream))
a = np.array([2.0], dtype=np.float32)
nn = np.array([n], dtype=np.int32)
pdx = np.array([int(dx)], dtype=np.uint64)
pdy = np.array([int(dy)], dtype=np.uint64)
args = np.array([arg.ctypes.data for arg in [a, pdx, pdy, nn]], dtype=np.uint64)
function = cu.CUfunction(int(kernel))
check(cu.cuLaunchKernel(function, (n + 127) // 128, 1, 1, 128, 1, 1, 0, cu.CUstream(int(stream)), args.ctypes.data, 0))
check(rt.cudaEventRecord(stop, stream))
check(rt.cudaEventSynchronize(stop))
assert check(rt.cudaEventElapsedTime(start, stop)) >= 0
check(rt.cudaStreamSynchronize(stream))
out = np.zeros(n, dtype=np.float32)
check(rt.cudaMemcpyAsync(out.ctypes.data, dy, out.nbytes, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost, stream))
check(rt.cudaStreamSynchronize(stream))
assert np.array_equal(out, 2 * x + 1), out[:8]
check(rt.cudaGetLastError())
for e in (start, stop):
    check(rt.cudaEventDestroy(e))
check(rt.cudaStreamDestroy(stream))
check(rt.cudaLibraryUnload(library))
check(rt.cudaFree(dx))
check(rt.cudaFree(dy))
check(rt.cudaDeviceSynchronize())
print(f"cuda.bindings.runtime (cudart) on warpjit: memory, stream, events, saxpy OK ({name})")
