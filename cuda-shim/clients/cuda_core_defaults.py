"""cuda.core with its defaults on warpjit: NVRTC compiles to "cubin" (the
interposer hands out PTX), the linker (nvJitLink, the interposer's) links
two relocatable programs, kernels run, results are checked with NumPy."""
import numpy as np
from cuda.core import (Device, Program, ProgramOptions, LaunchConfig, launch, Linker,
                       LinkerOptions, LegacyPinnedMemoryResource)
dev = Device(); dev.set_current(); s = dev.create_stream()
arch = "sm_" + dev.arch
pinned = LegacyPinnedMemoryResource()

def host_array(n, dtype):
    b = pinned.allocate(n * np.dtype(dtype).itemsize, stream=s)
    return b, np.from_dlpack(b).view(dtype)

# 1. Program.compile("cubin"), the default object kind.
src = r'''extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }'''
k = Program(src, "c++", ProgramOptions(arch=arch)).compile("cubin").get_kernel("saxpy")
n = 1000
hx, x = host_array(n, np.float32); hy, y = host_array(n, np.float32)
x[:] = np.arange(n); y[:] = 1
dx = dev.allocate(hx.size, stream=s); dy = dev.allocate(hy.size, stream=s)
dx.copy_from(hx, stream=s); dy.copy_from(hy, stream=s)
launch(s, LaunchConfig(grid=(n + 127) // 128, block=128), k, np.float32(2), dx, dy, np.int32(n))
hy.copy_from(dy, stream=s); s.sync()
assert np.array_equal(y, 2 * np.arange(n, dtype=np.float32) + 1), y[:8]

# 2. Separate compilation: two relocatable programs linked by the Linker.
lib = r'''__device__ float twice(float v) { return 2.0f * v; }'''
main = r'''extern __device__ float twice(float v);
extern "C" __global__ void apply(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = twice(y[i]) + 1.0f; }'''
opts = ProgramOptions(arch=arch, relocatable_device_code=True)
a = Program(lib, "c++", opts).compile("ptx")
b = Program(main, "c++", opts).compile("ptx")
linked = Linker(a, b, options=LinkerOptions(arch=arch)).link("cubin")
k2 = linked.get_kernel("apply")
launch(s, LaunchConfig(grid=(n + 127) // 128, block=128), k2, dy, np.int32(n))
hy.copy_from(dy, stream=s); s.sync()
assert np.array_equal(y, 2 * (2 * np.arange(n, dtype=np.float32) + 1) + 1), y[:8]
print(f"cuda.core defaults on warpjit: compile('cubin') and Linker.link('cubin') OK ({dev.name})")
