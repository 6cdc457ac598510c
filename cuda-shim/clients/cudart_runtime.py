"""NVIDIA's runtime API (cudart 12.9, through cuda.bindings.runtime) on
warpjit's libcuda.so.1 (run by cuda-shim/clients/run.sh): device count and
properties, cudaMalloc/cudaMemcpy/cudaMemset/cudaFree, a stream and events,
a captured graph replayed, a graph built node by node (cloned), page-locked and managed memory, a pitched 2D
copy, a stream waiting on another's event, cudaDeviceReset, and a saxpy compiled by NVRTC to PTX, loaded with cudaLibraryLoadData and
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
# A stream capture of a memset and a copy, replayed as a graph.
check(rt.cudaStreamBeginCapture(stream, rt.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal))
check(rt.cudaMemsetAsync(dx, 0, x.nbytes, stream))
check(rt.cudaMemcpyAsync(dy, dx, x.nbytes, rt.cudaMemcpyKind.cudaMemcpyDeviceToDevice, stream))
graph = check(rt.cudaStreamEndCapture(stream))
exec_ = check(rt.cudaGraphInstantiate(graph, 0))
check(rt.cudaGraphLaunch(exec_, stream))
check(rt.cudaStreamSynchronize(stream))
check(rt.cudaMemcpy(out.ctypes.data, dy, out.nbytes, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost))
assert not out.any(), out[:8]
check(rt.cudaGraphExecDestroy(exec_))
check(rt.cudaGraphDestroy(graph))
# A graph built node by node through cudart: a host-to-device copy and a
# memset, then the kernel (a driver kernel node), then a copy back; cloned.
graph = check(rt.cudaGraphCreate(0))
up = rt.cudaMemcpy3DParms()
up.srcPtr = rt.make_cudaPitchedPtr(x.ctypes.data, x.nbytes, n, 1)
up.dstPtr = rt.make_cudaPitchedPtr(dx, x.nbytes, n, 1)
up.extent = rt.make_cudaExtent(x.nbytes, 1, 1)
up.kind = rt.cudaMemcpyKind.cudaMemcpyHostToDevice
copy_node = check(rt.cudaGraphAddMemcpyNode(graph, None, 0, up))
fill = rt.cudaMemsetParams()
fill.dst, fill.value, fill.pitch, fill.elementSize, fill.width, fill.height = dy, 0x3F800000, 0, 4, n, 1
fill_node = check(rt.cudaGraphAddMemsetNode(graph, None, 0, fill))
kp = cu.CUDA_KERNEL_NODE_PARAMS()
kp.func = function
kp.gridDimX, kp.gridDimY, kp.gridDimZ = (n + 127) // 128, 1, 1
kp.blockDimX, kp.blockDimY, kp.blockDimZ = 128, 1, 1
kp.sharedMemBytes = 0
kp.kernelParams = args.ctypes.data
kernel_node = check(cu.cuGraphAddKernelNode(graph, [fill_node, copy_node], 2, kp))
down = rt.cudaMemcpy3DParms()
down.srcPtr = rt.make_cudaPitchedPtr(dy, out.nbytes, n, 1)
down.dstPtr = rt.make_cudaPitchedPtr(out.ctypes.data, out.nbytes, n, 1)
down.extent = rt.make_cudaExtent(out.nbytes, 1, 1)
down.kind = rt.cudaMemcpyKind.cudaMemcpyDeviceToHost
check(rt.cudaGraphAddMemcpyNode(graph, [kernel_node], 1, down))
nodes, count = check(rt.cudaGraphGetNodes(graph))
assert count == 4, count
for g in (graph, check(rt.cudaGraphClone(graph))):
    out[:] = 0
    exec_ = check(rt.cudaGraphInstantiate(g, 0))
    check(rt.cudaGraphLaunch(exec_, stream))
    check(rt.cudaStreamSynchronize(stream))
    assert np.array_equal(out, 2 * x + 1), out[:8]
    check(rt.cudaGraphExecDestroy(exec_))
    check(rt.cudaGraphDestroy(g))

# Page-locked and managed memory, a pitched 2D copy, one stream waiting on
# another's event.
pinned = check(rt.cudaMallocHost(x.nbytes))
np.ctypeslib.as_array((np.ctypeslib.ctypes.c_float * n).from_address(pinned))[:] = x
check(rt.cudaMemcpy(dx, pinned, x.nbytes, rt.cudaMemcpyKind.cudaMemcpyHostToDevice))
check(rt.cudaMemcpy(back.ctypes.data, dx, x.nbytes, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost))
assert np.array_equal(back, x)
check(rt.cudaFreeHost(pinned))
managed = check(rt.cudaMallocManaged(x.nbytes, 1))
check(rt.cudaMemcpy(managed, dx, x.nbytes, rt.cudaMemcpyKind.cudaMemcpyDeviceToDevice))
check(rt.cudaDeviceSynchronize())
assert np.array_equal(np.ctypeslib.as_array((np.ctypeslib.ctypes.c_float * n).from_address(managed)), x)
check(rt.cudaFree(managed))
rows, cols = 16, 100
img = np.arange(rows * cols, dtype=np.uint8).reshape(rows, cols)
pitched, pitch = check(rt.cudaMallocPitch(cols, rows))
assert pitch >= cols
check(rt.cudaMemcpy2D(pitched, pitch, img.ctypes.data, cols, cols, rows, rt.cudaMemcpyKind.cudaMemcpyHostToDevice))
img2 = np.zeros_like(img)
check(rt.cudaMemcpy2D(img2.ctypes.data, cols, pitched, pitch, cols, rows, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost))
assert np.array_equal(img, img2)
check(rt.cudaFree(pitched))
other = check(rt.cudaStreamCreateWithFlags(rt.cudaStreamNonBlocking))
done = check(rt.cudaEventCreateWithFlags(rt.cudaEventDisableTiming))
check(rt.cudaMemsetAsync(dy, 0, x.nbytes, stream))
check(rt.cudaEventRecord(done, stream))
check(rt.cudaStreamWaitEvent(other, done, 0))
check(rt.cudaMemcpyAsync(dy, dx, x.nbytes, rt.cudaMemcpyKind.cudaMemcpyDeviceToDevice, other))
check(rt.cudaStreamSynchronize(other))
check(rt.cudaMemcpy(out.ctypes.data, dy, out.nbytes, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost))
assert np.array_equal(out, x)
check(rt.cudaEventDestroy(done))
check(rt.cudaStreamDestroy(other))

for e in (start, stop):
    check(rt.cudaEventDestroy(e))
check(rt.cudaStreamDestroy(stream))
check(rt.cudaLibraryUnload(library))
check(rt.cudaFree(dx))
check(rt.cudaFree(dy))
check(rt.cudaDeviceSynchronize())
# After a reset the runtime sets the device up again.
check(rt.cudaDeviceReset())
dz = check(rt.cudaMalloc(64))
check(rt.cudaMemset(dz, 7, 64))
small = np.zeros(64, dtype=np.uint8)
check(rt.cudaMemcpy(small.ctypes.data, dz, 64, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost))
assert (small == 7).all()
check(rt.cudaFree(dz))
print(f"cuda.bindings.runtime (cudart) on warpjit: memory, streams, events, graphs (captured, built), saxpy OK ({name})")
