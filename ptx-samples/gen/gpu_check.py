#!/usr/bin/env python3
"""Run every ptx-samples launch on a real GPU and compare with the CPU references.

    python3 ptx-samples/gen/gpu_check.py [--json RESULTS.json] [--jobs N] [--dry-run] [FILTER...]

For each sample directory under ptx-samples/{cuda,triton,numba,clang}/ and each PTX
file in its sample.json "ptx" list, this loads the PTX with the CUDA driver API (ctypes,
libcuda.so.1), builds the arguments from "args" (format in ptx-samples/README.md), fills
"globals", launches, synchronizes, reads back every output and compares each "expect"
entry with its reference file by the README's rule (integers bit-exact; floats
|got-want| <= abs_tol + rel_tol*|want|, NaN matches NaN). "stdout" samples compare the
device printf output: exactly, or, since a GPU's printf order across threads is
unspecified, as a multiset of lines (a pass that records "order_differs");
"expect_error" samples must fail with the matching CUDA error. `tex:`/`surf:` arguments
become texture and surface objects over CUDA arrays or linear memory (gpu_objects.py;
a surface's `out=` contents are read back as an output); `tmap:` arguments become 128-byte
tensor maps made by cuTensorMapEncodeTiled over the device buffer of an earlier argument;
"cooperative": true launches
with cuLaunchCooperativeKernel, "cluster": [x, y, z] with cuLaunchKernelEx and a cluster
dimension.

Each (sample, ptx) runs in its own child process (this script with --child), so a
failed assert (which poisons the context), a crash or a hang cannot affect the others,
and the child's stdout is exactly the device printf output.

--dry-run needs no GPU: it parses each kernel's .param list from the PTX and checks
the argument buffers (count, sizes, files present), the globals and the expect entries.

FILTER words select samples whose "suite/name" contains any of them.

--libcuda PATH loads that driver library instead of libcuda.so.1: with warpjit's
(target/release/libcuda.so, WARPJIT_ARCH=sm_90 for the sm_90 samples) the whole GPU path
runs on the CPU. (--self-test needs no library at all: its children only pretend.)

Only the Python standard library and ctypes are used.
"""
import argparse
import base64
import ctypes
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import gpu_objects

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # ptx-samples/
SUITES = ["cuda", "triton", "numba", "clang"]

# ----------------------------------------------------------------------------------
# types

SCALAR_FMT = {
    "u8": "<B", "u16": "<H", "u32": "<I", "u64": "<Q",
    "s8": "<b", "s16": "<h", "s32": "<i", "s64": "<q",
    "b8": "<B", "b16": "<H", "b32": "<I", "b64": "<Q",
    "f16": "<e", "f32": "<f", "f64": "<d",
}
ELEM_SIZE = {"u8": 1, "s8": 1, "u16": 2, "s16": 2, "f16": 2, "bf16": 2,
             "u32": 4, "s32": 4, "f32": 4, "u64": 8, "s64": 8, "f64": 8}
FLOAT_TYPES = {"f16", "bf16", "f32", "f64"}
PTX_TYPE_SIZE = {"u8": 1, "s8": 1, "b8": 1, "u16": 2, "s16": 2, "b16": 2, "f16": 2,
                 "bf16": 2, "u32": 4, "s32": 4, "b32": 4, "f32": 4, "f16x2": 4,
                 "bf16x2": 4, "u64": 8, "s64": 8, "b64": 8, "f64": 8, "pred": 1}

# expect_error kind -> acceptable CUDA error codes
ERROR_KIND_CODES = {
    "assert": {710},                      # CUDA_ERROR_ASSERT
    "trap": {715, 719},                   # ILLEGAL_INSTRUCTION, LAUNCH_FAILED
    "illegal_address": {700},             # CUDA_ERROR_ILLEGAL_ADDRESS
    "misaligned": {716},                  # CUDA_ERROR_MISALIGNED_ADDRESS
    "barrier_deadlock": {702, 719},       # LAUNCH_TIMEOUT (or a timeout of this script)
    "watchdog": {702},
}


def scalar_bytes(ty, value):
    fmt = SCALAR_FMT[ty]
    if ty.startswith("f"):
        v = float(value)
    else:
        v = int(value, 0)
        bits = struct.calcsize(fmt) * 8
        # accept both signed and unsigned spellings of the value
        if ty[0] in "ub" and v < 0:
            v &= (1 << bits) - 1
        if ty[0] == "s" and v >= 1 << (bits - 1):
            v -= 1 << bits
    return struct.pack(fmt, v)


def decode(ty, data):
    """bytes -> list of Python numbers."""
    n = len(data) // ELEM_SIZE[ty]
    data = data[:n * ELEM_SIZE[ty]]
    if ty == "bf16":
        u = struct.unpack("<%dH" % n, data)
        return [struct.unpack("<f", struct.pack("<I", x << 16))[0] for x in u]
    fmt = {"u8": "B", "s8": "b", "u16": "H", "s16": "h", "f16": "e", "u32": "I",
           "s32": "i", "f32": "f", "u64": "Q", "s64": "q", "f64": "d"}[ty]
    return list(struct.unpack("<%d%s" % (n, fmt), data))


def fmt_num(ty, v):
    if ty in FLOAT_TYPES:
        if ty in ("f32", "f16", "bf16"):
            return "%r (0x%08x)" % (v, struct.unpack("<I", struct.pack("<f", v))[0]) if ty == "f32" \
                else repr(v)
        return "%r (0x%016x)" % (v, struct.unpack("<Q", struct.pack("<d", v))[0])
    return str(v)


def compare(ty, got, want, abs_tol, rel_tol, max_show=8):
    """Return dict: ok, n, mismatches (count), first [(index, got, want)]."""
    res = {"type": ty, "got_bytes": len(got), "want_bytes": len(want)}
    if len(got) != len(want):
        res.update(ok=False, mismatches=None, first=[],
                   note="size differs: got %d bytes, want %d" % (len(got), len(want)))
        return res
    es = ELEM_SIZE[ty]
    n = len(want) // es
    res["n"] = n
    bad = []
    count = 0
    if ty not in FLOAT_TYPES:
        if got == want:
            res.update(ok=True, mismatches=0, first=[])
            return res
        g = decode(ty, got)
        w = decode(ty, want)
        for i in range(n):
            if g[i] != w[i]:
                count += 1
                if len(bad) < max_show:
                    bad.append([i, g[i], w[i]])
    else:
        g = decode(ty, got)
        w = decode(ty, want)
        maxerr = 0.0
        for i in range(n):
            a, b = g[i], w[i]
            if a == b or (math.isnan(a) and math.isnan(b)):
                continue
            d = abs(a - b)
            if d <= abs_tol + rel_tol * abs(b):
                if d == d and d > maxerr and not math.isinf(d):
                    maxerr = d
                continue
            count += 1
            if len(bad) < max_show:
                bad.append([i, fmt_num(ty, a), fmt_num(ty, b)])
        # also report the largest relative error among mismatches
        if count:
            worst = 0.0
            for i in range(n):
                a, b = g[i], w[i]
                if a == b or (math.isnan(a) and math.isnan(b)):
                    continue
                if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
                    worst = float("inf")
                    continue
                r = abs(a - b) / max(abs(b), 1e-300)
                worst = max(worst, r)
            res["max_rel_err"] = worst
    res.update(ok=(count == 0), mismatches=count, first=bad)
    return res


# ----------------------------------------------------------------------------------
# PTX parsing (for --dry-run and checks)

def parse_entry_params(ptx, kernel):
    m = re.search(r"\.entry\s+" + re.escape(kernel) + r"\s*\((.*?)\)", ptx, re.S)
    if not m:
        return None
    params = []
    for p in m.group(1).split(","):
        p = p.strip()
        if not p:
            continue
        toks = p.split()
        # .param [.align N] .TYPE [.ptr .space .align N] NAME[ [N] ]
        ty = None
        for t in toks[1:]:
            if t.startswith(".") and t[1:] in PTX_TYPE_SIZE:
                ty = t[1:]
                break
        name = toks[-1]
        size = PTX_TYPE_SIZE[ty]
        am = re.match(r"(\S+?)\[(\d+)\]$", name)
        if am:
            name = am.group(1)
            size *= int(am.group(2))
        params.append({"type": ty, "name": name, "size": size})
    return params


def parse_module_vars(ptx):
    """name -> size in bytes of module-scope .global/.const variables."""
    out = {}
    for m in re.finditer(r"^\s*(?:\.visible\s+|\.extern\s+|\.weak\s+)?\.(global|const)\s+"
                         r"(?:\.align\s+\d+\s+)?\.(\w+)\s+(\w+)(?:\[(\d*)\])?", ptx, re.M):
        ty, name, arr = m.group(2), m.group(3), m.group(4)
        size = PTX_TYPE_SIZE.get(ty, 0) * (int(arr) if arr else 1)
        out[name] = size
    return out


# ----------------------------------------------------------------------------------
# argument building (shared by dry run and GPU run)

def plan_args(sdir, spec):
    """Parse sample.json args into a list of dicts:
    {kind: scalar|in|out|inout|bytes|tex|surf, data: bytes (scalar/bytes/in contents, the
    texels), size, out: path (out, inout, a surface's out=), obj: the parsed tex/surf}"""
    plan = []
    for a in spec["args"]:
        kind, _, rest = a.partition(":")
        if kind in SCALAR_FMT:
            plan.append({"kind": "scalar", "spec": a, "data": scalar_bytes(kind, rest)})
        elif kind == "in":
            with open(os.path.join(sdir, rest), "rb") as f:
                data = f.read()
            plan.append({"kind": "in", "spec": a, "data": data, "size": len(data)})
        elif kind == "out":
            nbytes, _, path = rest.partition(":")
            plan.append({"kind": "out", "spec": a, "size": int(nbytes, 0), "out": path})
        elif kind == "inout":
            pin, _, pout = rest.partition(":")
            with open(os.path.join(sdir, pin), "rb") as f:
                data = f.read()
            plan.append({"kind": "inout", "spec": a, "data": data, "size": len(data), "out": pout})
        elif kind == "bytes":
            with open(os.path.join(sdir, rest), "rb") as f:
                data = f.read()
            plan.append({"kind": "bytes", "spec": a, "data": data})
        elif kind == "tmap":  # a tensor map over an earlier buffer (cuTensorMapEncodeTiled)
            plan.append({"kind": "tmap", "spec": a, "tmap": parse_tmap(rest, a)})
        elif kind in ("tex", "surf"):  # a texture or surface object (gpu_objects.py)
            o = gpu_objects.parse(kind, rest, a)
            plan.append({"kind": kind, "spec": a, "obj": o, "data": gpu_objects.load_data(sdir, o),
                         "size": o["bytes"], "out": o["out"]})
        else:
            raise ValueError("unknown argument spec %r" % a)
    return plan


TMAP_TYPES = {"u8": (0, 1), "u16": (1, 2), "u32": (2, 4), "s32": (3, 4), "u64": (4, 8),
              "s64": (5, 8), "f16": (6, 2), "f32": (7, 4), "f64": (8, 8), "bf16": (9, 2),
              "tf32": (11, 4)}


def parse_tmap(rest, spec):
    """`ARG:TYPE:DIMS:BOX[:stride=..][:estride=..][:swizzle=32|64|128][:nan]` (README)."""
    parts = rest.split(":")
    if len(parts) < 4:
        raise ValueError("tensor map %r: expected ARG:TYPE:DIMS:BOX" % spec)
    dtype, esize = TMAP_TYPES[parts[1]]
    dims = [int(x) for x in parts[2].split("x")]
    box = [int(x) for x in parts[3].split("x")]
    strides, s = [], esize
    for d in dims[:-1]:
        s = (s * d + 15) // 16 * 16
        strides.append(s)
    t = {"arg": int(parts[0]), "dtype": dtype, "dims": dims, "box": box, "strides": strides,
         "estrides": [1] * len(dims), "swizzle": 0, "fill": 0}
    for o in parts[4:]:
        key, _, v = o.partition("=")
        if key == "stride":
            t["strides"] = [int(x) for x in v.split(",")]
        elif key == "estride":
            t["estrides"] = [int(x) for x in v.split(",")]
        elif key == "swizzle":
            t["swizzle"] = {"none": 0, "0": 0, "32": 1, "64": 2, "128": 3}[v]
        elif key == "nan":
            t["fill"] = 1
        else:
            raise ValueError("tensor map %r: unknown option %r" % (spec, o))
    return t


def encode_tmap(cu, t, addr):
    """The 128 bytes cuTensorMapEncodeTiled writes for `t` over device address `addr`."""
    n = len(t["dims"])
    raw = ctypes.create_string_buffer(128 + 64)
    at = (ctypes.addressof(raw) + 63) // 64 * 64
    u64s = lambda v: (ctypes.c_uint64 * max(len(v), 1))(*v)
    u32s = lambda v: (ctypes.c_uint32 * max(len(v), 1))(*v)
    cu.check(cu.lib.cuTensorMapEncodeTiled(
        ctypes.c_void_p(at), ctypes.c_uint(t["dtype"]), ctypes.c_uint(n), ctypes.c_void_p(addr),
        u64s(t["dims"]), u64s(t["strides"]), u32s(t["box"]), u32s(t["estrides"]),
        ctypes.c_uint(0), ctypes.c_uint(t["swizzle"]), ctypes.c_uint(0), ctypes.c_uint(t["fill"])),
        "cuTensorMapEncodeTiled")
    return ctypes.string_at(at, 128)


def arg_param_size(p):
    if p["kind"] == "tmap":
        return 128
    if p["kind"] in ("scalar", "bytes"):
        return len(p["data"])
    return 8  # device pointer


def parse_globals(lst):
    out = []
    for g in lst or []:
        name, _, path = g.partition("=")
        out.append((name, path))
    return out


def dry_check(sdir, spec, ptx_file):
    """Return list of problems (empty = OK) and some info."""
    problems = []
    with open(os.path.join(sdir, ptx_file)) as f:
        ptx = f.read()
    params = parse_entry_params(ptx, spec["kernel"])
    if params is None:
        return ["entry %s not found in %s" % (spec["kernel"], ptx_file)], {}
    plan = plan_args(sdir, spec)
    if len(params) != len(plan):
        problems.append("%d args for %d .params" % (len(plan), len(params)))
    for i, (p, a) in enumerate(zip(params, plan)):
        sz = arg_param_size(a)
        if sz != p["size"]:
            problems.append("arg %d %r: %d bytes, .param %s is %d bytes"
                            % (i, a["spec"], sz, p["name"], p["size"]))
        handle = a["kind"] in ("in", "out", "inout", "tex", "surf")
        if handle and p["type"] not in ("u64", "b64", "s64"):
            problems.append("arg %d %r is a pointer or object but .param is .%s"
                            % (i, a["spec"], p["type"]))
    mvars = parse_module_vars(ptx)
    for name, path in parse_globals(spec.get("globals")):
        if name not in mvars:
            problems.append("global %s not in PTX" % name)
        else:
            sz = os.path.getsize(os.path.join(sdir, path))
            if sz > mvars[name]:
                problems.append("global %s: file %d bytes > variable %d" % (name, sz, mvars[name]))
    outs = {}
    for a in plan:
        if a.get("out"):
            outs[a["out"]] = a["size"]
    for name, path in parse_globals(spec.get("globals_out")):
        if name not in mvars:
            problems.append("globals_out %s not in PTX" % name)
        else:
            outs[path] = mvars[name]
    for e in spec.get("expect", []):
        if e["file"] not in outs:
            problems.append("expect %s is not an output" % e["file"])
            continue
        rp = os.path.join(sdir, e["reference"])
        if not os.path.exists(rp):
            problems.append("reference %s missing" % e["reference"])
            continue
        rs = os.path.getsize(rp)
        if rs != outs[e["file"]]:
            problems.append("reference %s is %d bytes, output %d" % (e["reference"], rs, outs[e["file"]]))
        if rs % ELEM_SIZE[e["type"]]:
            problems.append("reference %s size not a multiple of %s" % (e["reference"], e["type"]))
    if spec.get("stdout") and not os.path.exists(os.path.join(sdir, spec["stdout"])):
        problems.append("stdout file missing")
    cl = spec.get("cluster")
    if cl is not None and (len(cl) != 3 or min(cl) < 1
                           or any(g % c for g, c in zip(spec["grid"], cl))):
        problems.append("cluster %s does not divide grid %s" % (cl, spec["grid"]))
    sb = spec.get("shared_bytes", 0)
    info = {"params": len(params), "param_bytes": sum(p["size"] for p in params), "shared": sb}
    return problems, info


# ----------------------------------------------------------------------------------
# CUDA driver

class Cuda:
    def __init__(self, path=None):
        """Loads the driver: `path`, or libcuda.so.1 found by the dynamic loader."""
        self.lib = ctypes.CDLL(path or "libcuda.so.1")
        L = self.lib
        vp = ctypes.c_void_p
        L.cuGetErrorName.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        L.cuGetErrorString.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        L.cuModuleLoadDataEx.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p, ctypes.c_uint,
                                         ctypes.POINTER(ctypes.c_int), ctypes.POINTER(vp)]
        L.cuModuleGetFunction.argtypes = [ctypes.POINTER(vp), vp, ctypes.c_char_p]
        L.cuModuleGetGlobal_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64),
                                           ctypes.POINTER(ctypes.c_size_t), vp, ctypes.c_char_p]
        L.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
        L.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]
        L.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]
        L.cuMemsetD8_v2.argtypes = [ctypes.c_uint64, ctypes.c_ubyte, ctypes.c_size_t]
        L.cuMemFree_v2.argtypes = [ctypes.c_uint64]
        L.cuFuncSetAttribute.argtypes = [vp, ctypes.c_int, ctypes.c_int]
        L.cuLaunchKernel.argtypes = [vp, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                     ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                     ctypes.c_uint, vp, ctypes.POINTER(vp), ctypes.POINTER(vp)]
        L.cuLaunchCooperativeKernel.argtypes = [vp] + [ctypes.c_uint] * 7 + [vp, ctypes.POINTER(vp)]
        L.cuCtxCreate_v2.argtypes = [ctypes.POINTER(vp), ctypes.c_uint, ctypes.c_int]
        L.cuDevicePrimaryCtxRetain.argtypes = [ctypes.POINTER(vp), ctypes.c_int]
        L.cuCtxSetCurrent.argtypes = [vp]
        L.cuDeviceGetName.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]

    def errname(self, rc):
        s = ctypes.c_char_p()
        self.lib.cuGetErrorName(rc, ctypes.byref(s))
        n = s.value.decode() if s.value else "?"
        self.lib.cuGetErrorString(rc, ctypes.byref(s))
        return "%s (%d): %s" % (n, rc, s.value.decode() if s.value else "")

    def check(self, rc, what):
        if rc != 0:
            raise CudaError(rc, "%s failed: %s" % (what, self.errname(rc)))


class CudaError(Exception):
    def __init__(self, rc, msg):
        Exception.__init__(self, msg)
        self.rc = rc


def load_module(cu, ptx_text, log):
    """Load PTX; on CUDA_ERROR_UNSUPPORTED_PTX_VERSION retry with lower .version numbers
    (the driver may be older than the compiler that wrote the PTX)."""
    L = cu.lib
    orig = re.search(r"^\.version\s+(\d+\.\d+)", ptx_text, re.M)
    candidates = [None] + ["9.2", "9.1", "9.0", "8.8", "8.7", "8.6", "8.5", "8.4", "8.3"]
    last = None
    for cand in candidates:
        text = ptx_text
        if cand is not None:
            if not orig or float(cand) >= float(orig.group(1)):
                continue
            text = re.sub(r"^\.version\s+\d+\.\d+", ".version " + cand, ptx_text, count=1, flags=re.M)
        mod = ctypes.c_void_p()
        logbuf = ctypes.create_string_buffer(1 << 16)
        infobuf = ctypes.create_string_buffer(1 << 16)
        # CU_JIT_INFO_LOG_BUFFER=3, _SIZE=4, CU_JIT_ERROR_LOG_BUFFER=5, _SIZE=6
        opts = (ctypes.c_int * 4)(5, 6, 3, 4)
        vals = (ctypes.c_void_p * 4)(ctypes.cast(logbuf, ctypes.c_void_p).value, 1 << 16,
                                     ctypes.cast(infobuf, ctypes.c_void_p).value, 1 << 16)
        rc = L.cuModuleLoadDataEx(ctypes.byref(mod), text.encode() + b"\0", 4, opts, vals)
        if rc == 0:
            if cand is not None:
                log["ptx_version_patched"] = "%s -> %s" % (orig.group(1), cand)
            return mod
        last = rc
        log.setdefault("jit_errors", []).append(
            "version %s: %s: %s" % (cand or (orig.group(1) if orig else "?"), cu.errname(rc),
                                    logbuf.value.decode(errors="replace")[:2000]))
        if rc != 222:  # CUDA_ERROR_UNSUPPORTED_PTX_VERSION
            break
    raise CudaError(last, "cuModuleLoadDataEx failed: " + cu.errname(last))


def child_run(sdir, ptx_file, result_path):
    """Runs in a child process: launch one (sample, ptx), write results JSON.
    Writes nothing to stdout itself (stdout is the device printf stream)."""
    spec = json.load(open(os.path.join(sdir, "sample.json")))
    res = {"outputs": {}}
    t0 = time.time()
    try:
        _child_run(sdir, spec, ptx_file, res)
    except CudaError as e:
        res["cuda_error"] = e.rc
        res["error"] = str(e)
    except Exception as e:  # noqa
        res["error"] = "%s: %s" % (type(e).__name__, e)
    res["seconds"] = round(time.time() - t0, 3)
    with open(result_path, "w") as f:
        json.dump(res, f)
    try:  # flush the C stdio buffer holding device printf output
        ctypes.CDLL(None).fflush(None)
    except Exception:
        pass


def _fake_child_run(sdir, spec, ptx_file, res):
    """--self-test: no GPU; pretend the device produced the reference outputs (with one
    element of the first output perturbed, the printf lines reversed) to exercise the
    parent's comparison path."""
    plan = plan_args(sdir, spec)
    refs = {e["file"]: e["reference"] for e in spec.get("expect", [])}
    first = True
    for a in plan:
        if a.get("out"):
            data = bytearray(a["size"])
            if a["out"] in refs:
                data = bytearray(open(os.path.join(sdir, refs[a["out"]]), "rb").read())
                if first and len(data) >= 4:
                    data[len(data) // 2 + 1] ^= 0x40
                    first = False
            res["outputs"][a["out"]] = base64.b64encode(bytes(data)).decode()
    for gname, path in parse_globals(spec.get("globals_out")):
        res["outputs"][path] = base64.b64encode(open(os.path.join(sdir, refs[path]), "rb").read()).decode()
    if spec.get("stdout"):  # the lines in reverse order, as a GPU may print them
        lines = open(os.path.join(sdir, spec["stdout"])).read().splitlines(True)
        sys.stdout.write("".join(reversed(lines)))
    if spec.get("expect_error"):
        sys.stdout.write(spec["expect_error"].get("contains", ""))
        raise CudaError(710, "fake assert")


def open_device(cu, res):
    """cuInit, device 0, its primary context made current. Records the device's name and
    the driver API version in res; returns the CUdevice."""
    L = cu.lib
    cu.check(L.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    cu.check(L.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    name = ctypes.create_string_buffer(256)
    L.cuDeviceGetName(name, 256, dev.value)
    res["device"] = name.value.decode()
    ver = ctypes.c_int()
    L.cuDriverGetVersion(ctypes.byref(ver))
    res["driver_version"] = ver.value
    ctx = ctypes.c_void_p()
    cu.check(L.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev.value), "cuDevicePrimaryCtxRetain")
    cu.check(L.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    return dev.value


class SampleSetup:
    """A sample's launch, ready on the device: its argument buffers allocated and filled,
    its globals written, `kparams` the cuLaunchKernel parameter array.

    reset() restores the state before the first launch (buffers zeroed then refilled from
    their files, globals rewritten, and with snapshot_globals_out the globals_out variables
    restored to their contents at load time, texture and surface contents rewritten) so a
    sample can be launched again from the same inputs; read_outputs() returns {path: bytes}
    of every out/inout argument, surface out= and globals_out variable; free() destroys the
    texture and surface objects and releases the buffers and arrays."""

    def __init__(self, cu, mod, sdir, spec, snapshot_globals_out=False):
        self.cu = cu
        self.spec = spec
        L = cu.lib
        self.opted_in = set()  # functions given the dynamic shared memory they need
        self.buffers = []  # (dptr, size, data or None): every device buffer, for reset
        self.outputs = []  # (path, dptr, size)
        self.objects = []  # gpu_objects.DeviceObject: textures and surfaces
        holders = []       # keep argument byte buffers alive
        ptrs = []
        try:
            devptrs = []  # each argument's device buffer (None: not a buffer), for tmap:
            for a in plan_args(sdir, spec):
                devptrs.append(None)
                if a["kind"] == "tmap":
                    d = devptrs[a["tmap"]["arg"]] if a["tmap"]["arg"] < len(devptrs) else None
                    if d is None:
                        raise ValueError("%r: argument %d is no earlier buffer"
                                         % (a["spec"], a["tmap"]["arg"]))
                    b = ctypes.create_string_buffer(encode_tmap(cu, a["tmap"], d), 128)
                elif a["kind"] in ("scalar", "bytes"):
                    b = ctypes.create_string_buffer(a["data"], len(a["data"]))
                elif a["kind"] in ("tex", "surf"):
                    obj = gpu_objects.DeviceObject(cu, a["obj"], a["data"])
                    self.objects.append(obj)
                    b = ctypes.create_string_buffer(struct.pack("<Q", obj.handle), 8)
                else:
                    p = ctypes.c_uint64()
                    cu.check(L.cuMemAlloc_v2(ctypes.byref(p), max(a["size"], 1)), "cuMemAlloc")
                    d = p.value
                    self.buffers.append((d, a["size"], a.get("data") if a["kind"] != "out" else None))
                    if a["kind"] in ("out", "inout"):
                        self.outputs.append((a["out"], d, a["size"]))
                    devptrs[-1] = d
                    b = ctypes.create_string_buffer(struct.pack("<Q", d), 8)
                holders.append(b)
                ptrs.append(ctypes.cast(b, ctypes.c_void_p))
            self._holders = holders
            self.kparams = (ctypes.c_void_p * max(len(ptrs), 1))(*ptrs)
            self.globals = []  # (dptr, data)
            for gname, path in parse_globals(spec.get("globals")):
                with open(os.path.join(sdir, path), "rb") as f:
                    data = f.read()
                d, sz = self._get_global(mod, gname)
                if len(data) > sz:
                    raise ValueError("global %s: %d bytes of data for %d" % (gname, len(data), sz))
                self.globals.append((d, data))
            self.gouts = [(path,) + self._get_global(mod, gname)
                          for gname, path in parse_globals(spec.get("globals_out"))]
            self.gout_snapshots = []
            if snapshot_globals_out:
                for path, d, size in self.gouts:
                    self.gout_snapshots.append((d, self._read(d, size)))
            self.reset()
        except BaseException:
            self.free()
            raise

    def _get_global(self, mod, gname):
        d = ctypes.c_uint64()
        sz = ctypes.c_size_t()
        self.cu.check(self.cu.lib.cuModuleGetGlobal_v2(ctypes.byref(d), ctypes.byref(sz), mod,
                                                        gname.encode()),
                      "cuModuleGetGlobal(%s)" % gname)
        return d.value, sz.value

    def _read(self, d, size):
        buf = ctypes.create_string_buffer(max(size, 1))
        self.cu.check(self.cu.lib.cuMemcpyDtoH_v2(buf, d, size), "cuMemcpyDtoH")
        return buf.raw[:size]

    def reset(self):
        L = self.cu.lib
        for d, size, data in self.buffers:
            self.cu.check(L.cuMemsetD8_v2(d, 0, max(size, 1)), "cuMemsetD8")
            if data:
                self.cu.check(L.cuMemcpyHtoD_v2(d, data, len(data)), "cuMemcpyHtoD")
        for d, data in self.globals + self.gout_snapshots:
            self.cu.check(L.cuMemcpyHtoD_v2(d, data, len(data)), "cuMemcpyHtoD(global)")
        for obj in self.objects:
            obj.reset()

    def launch(self, func, stream=None):
        """Enqueues the launch (cuLaunchCooperativeKernel for "cooperative": true,
        cuLaunchKernelEx for "cluster": [x, y, z], else cuLaunchKernel); returns the
        driver's result code."""
        shared = int(self.spec.get("shared_bytes", 0))
        if shared > 48 * 1024 and func.value not in self.opted_in:
            # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8 (once: a launch that is
            # timed makes no other driver call)
            self.cu.check(self.cu.lib.cuFuncSetAttribute(func, 8, shared), "cuFuncSetAttribute")
            self.opted_in.add(func.value)
        g, b = self.spec["grid"], self.spec["block"]
        coop = bool(self.spec.get("cooperative"))
        if self.spec.get("cluster"):
            return gpu_objects.launch_ex(self.cu, func, g, b, shared, stream, self.kparams,
                                         cluster=self.spec["cluster"], cooperative=coop)
        if coop:  # grid-wide sync needs every block resident at once
            return self.cu.lib.cuLaunchCooperativeKernel(func, g[0], g[1], g[2], b[0], b[1], b[2],
                                                         shared, stream, self.kparams)
        return self.cu.lib.cuLaunchKernel(func, g[0], g[1], g[2], b[0], b[1], b[2], shared,
                                          stream, self.kparams, None)

    def read_outputs(self):
        out = {path: self._read(d, size) for path, d, size in self.outputs + self.gouts}
        for obj in self.objects:
            if obj.o["out"]:
                out[obj.o["out"]] = obj.read()
        return out

    def free(self):
        for obj in getattr(self, "objects", []):
            obj.free()
        self.objects = []
        for d, _, _ in getattr(self, "buffers", []):
            self.cu.lib.cuMemFree_v2(d)
        self.buffers = []


def _child_run(sdir, spec, ptx_file, res):
    if os.environ.get("GPU_CHECK_FAKE"):
        return _fake_child_run(sdir, spec, ptx_file, res)
    cu = Cuda(os.environ.get("GPU_CHECK_LIBCUDA"))
    L = cu.lib
    open_device(cu, res)
    with open(os.path.join(sdir, ptx_file)) as f:
        ptx = f.read()
    mod = load_module(cu, ptx, res)
    func = ctypes.c_void_p()
    cu.check(L.cuModuleGetFunction(ctypes.byref(func), mod, spec["kernel"].encode()),
             "cuModuleGetFunction")
    setup = SampleSetup(cu, mod, sdir, spec)
    t = time.time()
    rc = setup.launch(func)
    res["launch_rc"] = rc
    if rc == 0:
        rc = L.cuCtxSynchronize()
        res["sync_rc"] = rc
    res["kernel_seconds"] = round(time.time() - t, 4)
    if rc != 0:
        raise CudaError(rc, "launch/synchronize failed: " + cu.errname(rc))
    for path, data in setup.read_outputs().items():
        res["outputs"][path] = base64.b64encode(data).decode()


# ----------------------------------------------------------------------------------
# parent

def list_samples(filters):
    items = []
    for suite in SUITES:
        sd = os.path.join(ROOT, suite)
        if not os.path.isdir(sd):
            continue
        for name in sorted(os.listdir(sd)):
            sdir = os.path.join(sd, name)
            sj = os.path.join(sdir, "sample.json")
            if not os.path.isfile(sj):
                continue
            key = "%s/%s" % (suite, name)
            if filters and not any(f in key for f in filters):
                continue
            spec = json.load(open(sj))
            for ptx in spec.get("ptx", []):
                items.append((key, sdir, spec, ptx))
    return items


def run_one(key, sdir, spec, ptx_file, timeout):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tf:
        rpath = tf.name
    cmd = [sys.executable, os.path.abspath(__file__), "--child", sdir, ptx_file, rpath]
    r = {"sample": key, "ptx": ptx_file}
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        stdout, stderr, code = p.stdout, p.stderr, p.returncode
        timed_out = False
    except subprocess.TimeoutExpired as e:
        stdout, stderr, code, timed_out = e.stdout or b"", e.stderr or b"", None, True
    r["wall_seconds"] = round(time.time() - t0, 2)
    child = {}
    try:
        with open(rpath) as f:
            child = json.load(f)
    except Exception:
        pass
    finally:
        try:
            os.unlink(rpath)
        except OSError:
            pass
    stdout_s = stdout.decode(errors="replace")
    stderr_s = stderr.decode(errors="replace")
    r["child_exit"] = code
    if stderr_s:
        r["stderr"] = stderr_s[-4000:]
    for k in ("device", "driver_version", "ptx_version_patched", "jit_errors", "launch_rc",
              "sync_rc", "cuda_error", "error", "kernel_seconds"):
        if k in child:
            r[k] = child[k]
    problems = []
    notes = []
    if child.get("ptx_version_patched"):
        notes.append("PTX .version patched " + child["ptx_version_patched"] + " to load on this driver")
    exp_err = spec.get("expect_error")
    if timed_out:
        problems.append("timed out after %ds" % timeout)
        if exp_err and exp_err.get("kind") in ("barrier_deadlock", "watchdog"):
            problems.pop()
            notes.append("hung as expected (%s)" % exp_err["kind"])
    elif not child:
        problems.append("child died (exit %s) without result; stderr: %s" % (code, stderr_s[-500:]))
    elif exp_err:
        rc = child.get("cuda_error")
        want = ERROR_KIND_CODES.get(exp_err.get("kind"), set())
        if rc is None:
            problems.append("expected a %s error, launch succeeded" % exp_err.get("kind"))
        elif rc not in want:
            problems.append("expected %s (codes %s), got: %s" % (exp_err.get("kind"), sorted(want),
                                                                  child.get("error")))
        else:
            r["error_matched"] = child.get("error")
        msg = exp_err.get("contains")
        if msg:
            found = msg in stdout_s or msg in stderr_s
            r["message_contains_found"] = found
            notes.append("device message %s %r" % ("contains" if found else "does NOT contain", msg))
        r["device_messages"] = (stdout_s + stderr_s)[-2000:]
    elif "error" in child:
        problems.append(child["error"])
    results = []
    if child and not exp_err and "error" not in child:
        outs = child.get("outputs", {})
        for e in spec.get("expect", []):
            got = base64.b64decode(outs.get(e["file"], ""))
            with open(os.path.join(sdir, e["reference"]), "rb") as f:
                want = f.read()
            c = compare(e["type"], got, want, float(e.get("abs_tol", 0)), float(e.get("rel_tol", 0)))
            c["file"] = e["file"]
            c["reference"] = e["reference"]
            c["abs_tol"] = e.get("abs_tol", 0)
            c["rel_tol"] = e.get("rel_tol", 0)
            results.append(c)
            if not c["ok"]:
                problems.append("%s: %s" % (e["file"], c.get("note") or "%d of %d elements differ"
                                            % (c["mismatches"], c["n"])))
        if spec.get("stdout"):
            with open(os.path.join(sdir, spec["stdout"]), encoding="utf-8", errors="replace") as f:
                want_s = f.read()
            so = {"file": spec["stdout"], "got": stdout_s}
            gl, wl = stdout_s.splitlines(), want_s.splitlines()
            if stdout_s == want_s:
                so["ok"] = True
            elif gl != wl and sorted(gl) == sorted(wl):
                # the same lines (as a multiset) in another order: printf order across
                # threads is unspecified on a GPU, so this passes
                so["ok"] = True
                so["order_differs"] = True
                so["first_moved"] = next(([i, a, b] for i, (a, b) in enumerate(zip(gl, wl))
                                          if a != b), None)
                notes.append("stdout: the same %d lines in another order (printf order across "
                             "threads is unspecified on a GPU)" % len(gl))
            else:
                so["ok"] = False
                diff = []
                for i in range(max(len(gl), len(wl))):
                    a = gl[i] if i < len(gl) else None
                    b = wl[i] if i < len(wl) else None
                    if a != b:
                        diff.append([i, a, b])
                so["first"] = diff[:8]
                so["lines_differ"] = len(diff)
                missing = _multiset_minus(wl, gl)
                extra = _multiset_minus(gl, wl)
                so["missing_lines"], so["extra_lines"] = missing[:8], extra[:8]
                if not diff:
                    problems.append("stdout: the same lines, but the line endings or the final "
                                    "newline differ")
                else:
                    problems.append("stdout: %d lines differ in place; %d expected lines "
                                    "missing, %d unexpected" % (len(diff), len(missing), len(extra)))
            results.append(so)
        r["outputs_b64"] = outs
    r["compare"] = results
    r["notes"] = notes
    r["problems"] = problems
    r["status"] = "PASS" if not problems else "FAIL"
    return r


def _multiset_minus(a, b):
    """Lines of a not matched by a line of b (with multiplicity), in a's order."""
    left = {}
    for x in b:
        left[x] = left.get(x, 0) + 1
    out = []
    for x in a:
        if left.get(x):
            left[x] -= 1
        else:
            out.append(x)
    return out


def print_result(r):
    line = "%s %-40s %-28s" % (r["status"], r["sample"], r["ptx"])
    extra = []
    if r.get("kernel_seconds") is not None:
        extra.append("%.3fs" % r["kernel_seconds"])
    extra += r["notes"]
    print(line + ("  " + "; ".join(extra) if extra else ""))
    for p in r["problems"]:
        print("    - " + p)
    for c in r["compare"]:
        if c.get("ok"):
            continue
        if c.get("missing_lines") or c.get("extra_lines"):  # what no reordering explains
            for x in c["missing_lines"]:
                print("      missing:    %r" % x)
            for x in c["extra_lines"]:
                print("      unexpected: %r" % x)
            continue
        if "lines_differ" in c:
            for i, a, b in c["first"]:
                print("      line %d: got  %r" % (i, a))
                print("      %s want %r" % (" " * len(str(i)), b))
            continue
        if c.get("max_rel_err") is not None:
            print("      %s: tol abs %g rel %g, max rel err of mismatches %.3g"
                  % (c["file"], float(c["abs_tol"]), float(c["rel_tol"]), c["max_rel_err"]))
        for i, g, w in c["first"]:
            print("      %s[%d]: got %s want %s" % (c["file"], i, g, w))
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("filters", nargs="*", help="only samples whose suite/name contains one of these")
    ap.add_argument("--json", help="write full results here")
    ap.add_argument("--dry-run", action="store_true", help="check argument building only (no GPU)")
    ap.add_argument("--jobs", type=int, default=4, help="child processes at a time (default 4)")
    ap.add_argument("--self-test", action="store_true",
                    help="no GPU: children return the reference outputs with one byte flipped "
                         "and printf lines reversed, to exercise the comparison and reporting")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per launch (default 120)")
    ap.add_argument("--libcuda", help="load this driver library instead of libcuda.so.1 "
                    "(e.g. warpjit's target/release/libcuda.so)")
    ap.add_argument("--child", nargs=3, metavar=("SAMPLE_DIR", "PTX", "RESULT_JSON"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.child:
        child_run(*args.child)
        return 0

    items = list_samples(args.filters)
    if args.dry_run:
        nbad = 0
        out = []
        for key, sdir, spec, ptx in items:
            try:
                problems, info = dry_check(sdir, spec, ptx)
            except Exception as e:  # noqa
                problems, info = ["%s: %s" % (type(e).__name__, e)], {}
            st = "OK" if not problems else "BAD"
            nbad += bool(problems)
            print("%-4s %-40s %-28s %s" % (st, key, ptx, info))
            for p in problems:
                print("    - " + p)
            out.append({"sample": key, "ptx": ptx, "problems": problems, "info": info})
        print("dry run: %d (sample, ptx) pairs, %d with problems" % (len(items), nbad))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(out, f, indent=1)
        return 1 if nbad else 0

    if args.self_test:
        os.environ["GPU_CHECK_FAKE"] = "1"
    if args.libcuda:
        os.environ["GPU_CHECK_LIBCUDA"] = os.path.abspath(args.libcuda)
    t0 = time.time()
    results = [None] * len(items)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = [ex.submit(run_one, key, sdir, spec, ptx, args.timeout)
                for key, sdir, spec, ptx in items]
        for i, fu in enumerate(futs):  # print in corpus order
            results[i] = fu.result()
            print_result(results[i])
    npass = sum(r["status"] == "PASS" for r in results)
    nfail = len(results) - npass
    dev = next((r.get("device") for r in results if r.get("device")), "?")
    drv = next((r.get("driver_version") for r in results if r.get("driver_version")), "?")
    summary = ("SUMMARY: %d (sample, ptx) pairs, %d PASS, %d FAIL on %s (driver API %s), %.1fs"
               % (len(results), npass, nfail, dev, drv, time.time() - t0))
    if nfail:
        summary += "; failed: " + ", ".join("%s[%s]" % (r["sample"], r["ptx"])
                                            for r in results if r["status"] != "PASS")
    print(summary)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"summary": summary, "results": results}, f, indent=1)
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
