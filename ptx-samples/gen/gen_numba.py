#!/usr/bin/env python3
"""Regenerate the numba-cuda part of ptx-samples/.

For every directory ptx-samples/numba/<name>/ holding kernel.py, reference.c and
sample.json this script:
  1. executes kernel.py as a module named `kernel` (its code object is given the
     fixed file name /ptx-samples/numba/<name>/kernel.py, so `.file` lines do not
     depend on where the repository is); kernel.py defines a @cuda.jit kernel and
     a module-level dict SAMPLE:
         SAMPLE = {"fn": kernel, "sig": "void(float32[::1], ...)", "cc": (8, 0),
                   "lineinfo": False, "fastmath": False}   # the last two optional
  2. compiles it with numba.cuda.compile_ptx(fn.py_func, sig, cc=cc, ...) (NVVM
     from the nvidia-cuda-nvcc-cu12 wheel; no GPU needed) and writes
     kernel.sm_<cc>.ptx;
  3. compiles reference.c with gcc -O2 and runs it inside the sample directory:
     the reference writes the input files and the expected output files;
  4. sets sample.json's "kernel" to the (mangled) .entry name and checks "args"
     against the Numba ABI: every array argument is passed as
         meminfo, parent, nitems, itemsize, data, shape[0..ndim), strides[0..ndim)
     (one .entry parameter each), so sample.json must give `u64:0`, `u64:0`,
     `s64:NITEMS`, `s64:ITEMSIZE`, the buffer (in:/out:/inout:), `s64:` shapes and
     `s64:` byte strides, consistent with each other and with the buffer's size;
  5. records the PTX file and the compiler versions and options in sample.json.
Each sample is compiled in a fresh interpreter, so the mangled kernel names (which
number the functions Numba compiled in the process: `...B2v1...`) are reproducible.

Usage: python3 ptx-samples/gen/gen_numba.py [NAME ...]
Needs: pip install -r ptx-samples/gen/requirements-numba.txt, and gcc. No GPU.
"""
import json
import linecache
import os
import re
import subprocess
import sys
import tempfile
import types

from numba import cuda  # noqa: E402
from numba.core import sigutils  # noqa: E402
from numba.core import types as nbtypes  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUMBA_DIR = os.path.join(ROOT, "numba")


def versions() -> dict:
    import importlib.metadata as md

    from numba.cuda.cudadrv import nvvm

    v = nvvm.NVVM().get_version()
    return {
        "numba-cuda": md.version("numba-cuda"),
        "numba": md.version("numba"),
        "nvvm": f"{v[0]}.{v[1]}",
    }


def load_module(name: str, path: str):
    with open(path) as f:
        src = f.read()
    fixed = f"/ptx-samples/numba/{name}/kernel.py"
    code = compile(src, fixed, "exec")
    # Numba reads the source (for line info) through linecache, under the code's file name.
    linecache.cache[fixed] = (len(src), None, src.splitlines(True), fixed)
    mod = types.ModuleType("kernel")
    mod.__file__ = path
    sys.modules["kernel"] = mod
    try:
        exec(code, mod.__dict__)
    finally:
        del sys.modules["kernel"]
    return mod


def entry_params(ptx: str):
    entries = re.findall(r"\.entry\s+(\S+)\s*\(([^)]*)\)", ptx)
    if len(entries) != 1:
        raise SystemExit(f"expected one .entry, found {len(entries)}")
    name, params = entries[0]
    return name, [p.strip() for p in params.split(",") if p.strip()]


def scalar_arg(name: str, a: str, kind: str) -> int:
    m = re.fullmatch(kind + r":(-?\d+)", a)
    if not m:
        raise SystemExit(f"{name}: expected `{kind}:N`, got `{a}`")
    return int(m.group(1))


def buffer_size(d: str, a: str):
    """(bytes, output file or None) of a buffer argument."""
    if a.startswith("in:"):
        return os.path.getsize(os.path.join(d, a[3:])), None
    if a.startswith("out:"):
        n, path = a[4:].split(":", 1)
        return int(n), path
    if a.startswith("inout:"):
        i, o = a[6:].split(":", 1)
        return os.path.getsize(os.path.join(d, i)), o
    raise SystemExit(f"expected a buffer argument (in:/out:/inout:), got `{a}`")


SCALAR_KIND = {
    nbtypes.int8: "s8", nbtypes.int16: "s16", nbtypes.int32: "s32", nbtypes.int64: "s64",
    nbtypes.uint8: "u8", nbtypes.uint16: "u16", nbtypes.uint32: "u32", nbtypes.uint64: "u64",
    nbtypes.float32: "f32", nbtypes.float64: "f64",
}


def check_args(name: str, d: str, spec: dict, argtys, params) -> None:
    args = spec["args"]
    if len(args) != len(params):
        raise SystemExit(f"{name}: sample.json has {len(args)} args, the .entry has {len(params)} parameters:\n  "
                         + "\n  ".join(params))
    k = 0
    for ty in argtys:
        if isinstance(ty, nbtypes.Array):
            nd = ty.ndim
            a = args[k:k + 5 + 2 * nd]
            where = f"{name}: array argument {k}..{k + 4 + 2 * nd} ({ty})"
            if a[0] != "u64:0" or a[1] != "u64:0":
                raise SystemExit(f"{where}: meminfo and parent must be u64:0")
            nitems = scalar_arg(where, a[2], "s64")
            itemsize = scalar_arg(where, a[3], "s64")
            shape = [scalar_arg(where, x, "s64") for x in a[5:5 + nd]]
            strides = [scalar_arg(where, x, "s64") for x in a[5 + nd:5 + 2 * nd]]
            if itemsize != ty.dtype.bitwidth // 8:
                raise SystemExit(f"{where}: itemsize {itemsize}, dtype {ty.dtype}")
            n = 1
            for s in shape:
                n *= s
            if n != nitems:
                raise SystemExit(f"{where}: nitems {nitems} but shape {shape}")
            # Arrays from cuda.to_device(np.ndarray) are C-contiguous: check the strides are C strides.
            want, acc = [], itemsize
            for s in reversed(shape):
                want.insert(0, acc)
                acc *= s
            if strides != want:
                raise SystemExit(f"{where}: strides {strides}, C-contiguous would be {want}")
            nbytes, _ = buffer_size(d, a[4])
            if nbytes != nitems * itemsize:
                raise SystemExit(f"{where}: buffer {a[4]} has {nbytes} bytes, nitems*itemsize = {nitems * itemsize}")
            k += 5 + 2 * nd
        else:
            kind = SCALAR_KIND.get(ty)
            if kind is None:
                raise SystemExit(f"{name}: unsupported scalar type {ty}")
            if not args[k].startswith(kind + ":"):
                raise SystemExit(f"{name}: argument {k} ({ty}) should be `{kind}:...`, got `{args[k]}`")
            k += 1
    assert k == len(params)


def gen_sample(name: str) -> None:
    d = os.path.join(NUMBA_DIR, name)
    with open(os.path.join(d, "sample.json")) as f:
        spec = json.load(f)
    mod = load_module(name, os.path.join(d, "kernel.py"))
    sample = mod.SAMPLE
    cc = tuple(sample["cc"])
    options = {"cc": list(cc), "lineinfo": bool(sample.get("lineinfo", False)),
               "fastmath": bool(sample.get("fastmath", False))}
    for old in [p for p in os.listdir(d) if re.match(r"kernel\..*\.ptx$", p)]:
        os.remove(os.path.join(d, old))
    ptx, _ = cuda.compile_ptx(sample["fn"].py_func, sample["sig"], cc=cc,
                              lineinfo=options["lineinfo"], fastmath=options["fastmath"])
    fname = f"kernel.sm_{cc[0]}{cc[1]}.ptx"
    with open(os.path.join(d, fname), "w") as f:
        f.write(ptx)
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "reference")
        subprocess.run(["gcc", "-O2", "-std=c11", "-o", exe, os.path.join(d, "reference.c"), "-lm"], check=True)
        subprocess.run([exe], cwd=d, check=True)
    entry, params = entry_params(ptx)
    if spec.get("kernel") != entry:
        print(f"{name}: kernel is {entry}")
    spec["kernel"] = entry
    argtys, _ = sigutils.normalize_signature(sample["sig"])
    check_args(name, d, spec, argtys, params)
    spec["ptx"] = [fname]
    spec["generator"] = dict(versions(), signature=sample["sig"], options=options)
    with open(os.path.join(d, "sample.json"), "w") as f:
        json.dump(spec, f, indent=2)
        f.write("\n")
    print(f"{name}: {fname}")


def main() -> None:
    if sys.argv[1:2] == ["--one"]:
        gen_sample(sys.argv[2])
        return
    names = sys.argv[1:] or sorted(
        n for n in os.listdir(NUMBA_DIR) if os.path.isfile(os.path.join(NUMBA_DIR, n, "kernel.py"))
    )
    # One fresh interpreter per sample: Numba numbers the functions it compiles in a process
    # (the `B2v1` ABI tag in the mangled kernel name), so a kernel's name would otherwise
    # depend on which samples were compiled before it.
    for n in names:
        subprocess.run([sys.executable, os.path.abspath(__file__), "--one", n], check=True)


if __name__ == "__main__":
    main()
