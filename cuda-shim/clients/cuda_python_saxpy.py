"""A cuda-python (cuda.bindings) driver-API program on warpjit's libcuda.so.1
(run by cuda-shim/clients/run.sh): NVRTC compiles a saxpy to PTX, then
cuInit, cuCtxCreate, cuModuleLoadData, cuMemAlloc, cuMemcpyHtoD,
cuLaunchKernel and cuMemcpyDtoH run it; the result is checked with NumPy."""
import numpy as np
from cuda.bindings import driver as cu, nvrtc

def check(r):
    err = r[0]
    if err != cu.CUresult.CUDA_SUCCESS and err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"error {err}")
    return r[1:] if len(r) > 2 else (r[1] if len(r) == 2 else None)

src = b'''extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }'''
prog = check(nvrtc.nvrtcCreateProgram(src, b"saxpy.cu", 0, [], []))
check(nvrtc.nvrtcCompileProgram(prog, 1, [b"--gpu-architecture=compute_80"]))
size = check(nvrtc.nvrtcGetPTXSize(prog))
ptx = b" " * size
check(nvrtc.nvrtcGetPTX(prog, ptx))
check(cu.cuInit(0))
dev = check(cu.cuDeviceGet(0))
ctx = check(cu.cuCtxCreate(0, dev))
mod = check(cu.cuModuleLoadData(ptx))
fn = check(cu.cuModuleGetFunction(mod, b"saxpy"))
n = 1000
x = np.arange(n, dtype=np.float32); y = np.ones(n, dtype=np.float32)
dx = check(cu.cuMemAlloc(x.nbytes)); dy = check(cu.cuMemAlloc(y.nbytes))
check(cu.cuMemcpyHtoD(dx, x.ctypes.data, x.nbytes)); check(cu.cuMemcpyHtoD(dy, y.ctypes.data, y.nbytes))
a = np.array([2.0], dtype=np.float32); nn = np.array([n], dtype=np.int32)
pdx = np.array([int(dx)], dtype=np.uint64); pdy = np.array([int(dy)], dtype=np.uint64)
args = np.array([arg.ctypes.data for arg in [a, pdx, pdy, nn]], dtype=np.uint64)
check(cu.cuLaunchKernel(fn, (n + 127) // 128, 1, 1, 128, 1, 1, 0, 0, args.ctypes.data, 0))
out = np.zeros(n, dtype=np.float32)
check(cu.cuMemcpyDtoH(out.ctypes.data, dy, out.nbytes))
assert np.array_equal(out, 2 * x + 1), out[:8]
name = check(cu.cuDeviceGetName(64, dev)).split(b"\0")[0].decode()
print(f"cuda-python on warpjit: saxpy OK ({name})")
