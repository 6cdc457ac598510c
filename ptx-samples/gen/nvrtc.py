"""Minimal ctypes binding to NVIDIA's NVRTC (libnvrtc.so.12 from the PyPI wheel
nvidia-cuda-nvrtc-cu12). Device code only; no GPU is needed."""
import ctypes
import glob
import os

_lib = None


def _find_libnvrtc():
    import nvidia  # namespace package installed by the nvidia-cuda-*-cu12 wheels

    for base in list(nvidia.__path__):
        hits = sorted(glob.glob(os.path.join(base, "cuda_nvrtc", "lib", "libnvrtc.so*")))
        for h in hits:
            if "builtins" not in h:
                return h
    raise RuntimeError("libnvrtc.so.12 not found: pip install -r ptx-samples/gen/requirements.txt")


def lib():
    global _lib
    if _lib is None:
        _lib = ctypes.CDLL(_find_libnvrtc())
    return _lib


def version():
    major, minor = ctypes.c_int(), ctypes.c_int()
    lib().nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    return f"{major.value}.{minor.value}"


class CompileError(Exception):
    pass


def compile_to_ptx(source: str, name: str, options: list[str]) -> str:
    """Compile CUDA C++ `source` to PTX text with the given NVRTC options."""
    L = lib()
    prog = ctypes.c_void_p()
    rc = L.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None, None)
    if rc != 0:
        raise CompileError(f"nvrtcCreateProgram failed: {rc}")
    try:
        opts = [o.encode() for o in options]
        arr = (ctypes.c_char_p * len(opts))(*opts)
        rc = L.nvrtcCompileProgram(prog, len(opts), arr)
        log_size = ctypes.c_size_t()
        L.nvrtcGetProgramLogSize(prog, ctypes.byref(log_size))
        log = ctypes.create_string_buffer(log_size.value)
        L.nvrtcGetProgramLog(prog, log)
        if rc != 0:
            raise CompileError(f"{name}: NVRTC error {rc}\n{log.value.decode(errors='replace')}")
        size = ctypes.c_size_t()
        L.nvrtcGetPTXSize(prog, ctypes.byref(size))
        buf = ctypes.create_string_buffer(size.value)
        L.nvrtcGetPTX(prog, buf)
        return buf.value.decode()
    finally:
        L.nvrtcDestroyProgram(ctypes.byref(prog))
