#!/usr/bin/env python3
"""Regenerate the Triton part of ptx-samples/.

For every directory ptx-samples/triton/<name>/ holding kernel.py, reference.c and
sample.json this script:
  1. imports kernel.py, which defines the @triton.jit kernel and a module-level
     dict SAMPLE (see ptx-samples/triton/README.md) giving the launch's argument
     values, num_warps, num_stages and the target architectures;
  2. specializes the arguments exactly as Triton's JIT launcher does for a real
     launch (pointers to cudaMalloc'ed memory are 16-byte aligned and get
     tt.divisibility=16, integers divisible by 16 get tt.divisibility=16, the
     integer 1 becomes a constexpr), then compiles with triton.compile for each
     target (no GPU needed) and writes kernel.sm_<arch>.ptx;
  3. checks sample.json against the compiled kernel (entry name, one args entry
     per .entry parameter including Triton's trailing hidden scratch pointers,
     scalar values) and sets "block" ([32*num_warps, 1, 1], the PTX has .reqntid)
     and "shared_bytes" (metadata.shared: Triton kernels use dynamic
     `.extern .shared` memory);
  4. compiles reference.c with gcc -O2 and runs it inside the sample directory:
     the reference writes the input files and the expected output files;
  5. records the PTX files and the compiler version and options in sample.json.

Usage: python3 ptx-samples/gen/gen_triton.py [NAME ...]
Needs: pip install -r ptx-samples/gen/requirements-triton.txt, and gcc. No GPU, no torch.
"""
import importlib.util
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

# Triton 3.9 warns unless this is set; 1 keeps its (and NVRTC's) default of contracting a*b+c into fma.
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
# Compile from scratch every time, into a throw-away cache.
_CACHE = tempfile.mkdtemp(prefix="triton-cache-")
os.environ["TRITON_CACHE_DIR"] = _CACHE

import triton  # noqa: E402
from triton.backends.compiler import BaseBackend, GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402
from triton._C.libtriton import native_specialize_impl  # noqa: E402
from triton.runtime.jit import JITFunction  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(ROOT)
TRITON_DIR = os.path.join(ROOT, "triton")
# The hidden parameters Triton appends to every kernel (global scratch, profile scratch).
HIDDEN_PARAMS = 2


def _relative_debug_paths() -> None:
    """Record Triton's own @jit helpers (tl.max, tl.sum, ... in triton/language/standard.py) in the
    PTX's .file lines relative to site-packages, like -fdebug-prefix-map, so the PTX does not
    depend on where Python is installed."""
    site = os.path.dirname(os.path.dirname(os.path.abspath(triton.__file__)))
    for mname, m in list(sys.modules.items()):
        if not (mname == "triton" or mname.startswith("triton.")) or m is None:
            continue
        for obj in list(vars(m).values()):
            if isinstance(obj, JITFunction) and os.path.isabs(obj.file_name):
                obj.file_name = os.path.relpath(obj.file_name, site)


class _Buffer:
    """Stands in for a torch tensor in the JIT's specialization: dtype and a 256-aligned address."""

    def __init__(self, dtype: str):
        self.dtype = dtype

    def data_ptr(self) -> int:
        return 0x7F0000000000


def ptx_name(arch: int) -> str:
    # Triton targets sm_90a (not sm_90) for capability 9.x; name the file after the .target line.
    return f"kernel.sm_{arch}{'a' if arch >= 90 else ''}.ptx"


def specialize(fn, args: dict):
    """signature, constexprs and attrs as JITFunction.run/_pack_args builds them for these argument values."""
    signature, constexprs, attrs, runtime = {}, {}, {}, []
    for p in fn.params:
        if p.name not in args:
            raise KeyError(f"SAMPLE['args'] lacks a value for parameter {p.name}")
        v = args[p.name]
        if p.is_constexpr:
            signature[p.name] = "constexpr"
            constexprs[p.name] = v
            continue
        if isinstance(v, str):
            assert v.startswith("*"), f"{p.name}: pointer arguments are written like '*fp32'"
            v = _Buffer(v[1:])
        ty, attr = native_specialize_impl(BaseBackend, v, False, not p.do_not_specialize,
                                          not p.do_not_specialize_on_alignment)
        signature[p.name] = ty
        if ty == "constexpr":
            constexprs[p.name] = attr
            continue
        if isinstance(attr, str):
            attrs[(p.num, )] = BaseBackend.parse_attr(attr)
        runtime.append((p.name, ty, v))
    return signature, constexprs, attrs, runtime


def entry_params(ptx: str, name: str):
    m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\((.*?)\)", ptx, re.S)
    assert m, f"no .entry {name} in the PTX"
    return [p.strip() for p in m.group(1).split(",") if p.strip()]


def check_args(name: str, spec: dict, runtime, params, meta) -> None:
    args = spec["args"]
    if len(args) != len(params):
        raise SystemExit(f"{name}: sample.json has {len(args)} args, the .entry has {len(params)} parameters:\n  "
                         + "\n  ".join(params))
    for (pname, ty, v), a in zip(runtime, args):
        if ty.startswith("*"):
            if not re.match(r"(in|out|inout):", a):
                raise SystemExit(f"{name}: argument {pname} ({ty}) needs an in:/out:/inout: buffer, got {a}")
        else:
            t, _, val = a.partition(":")
            if t == "f32":  # compare as the f32 the launch passes
                ok = struct.pack("<f", float(val)) == struct.pack("<f", float(v))
            elif t.startswith("f"):
                ok = float(val) == float(v)
            else:
                ok = int(val, 0) == int(v)
            if not ok:
                raise SystemExit(f"{name}: argument {pname} is {v} in kernel.py's SAMPLE but {a} in sample.json")
    # Hidden trailing pointers: global scratch, then profile scratch.
    for (label, size), a in zip([("global scratch", meta.global_scratch_size),
                                 ("profile scratch", meta.profile_scratch_size)], args[len(runtime):]):
        if size == 0 and a != "u64:0":
            raise SystemExit(f"{name}: the {label} pointer is unused (size 0); give it u64:0, not {a}")
        if size != 0 and not a.startswith("out:"):
            raise SystemExit(f"{name}: the {label} pointer needs {size} bytes per program; give it an out: buffer")


def load_module(name: str, path: str):
    spec = importlib.util.spec_from_file_location(f"triton_sample_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def gen_sample(name: str) -> None:
    d = os.path.join(TRITON_DIR, name)
    with open(os.path.join(d, "sample.json")) as f:
        spec = json.load(f)
    mod = load_module(name, os.path.join(d, "kernel.py"))
    cfg = mod.SAMPLE
    fn = cfg["fn"]
    _relative_debug_paths()  # after kernel.py's imports
    # The file name recorded in the PTX's .file/.loc debug lines: repo-relative, not this machine's
    # path (for the kernel and every @triton.jit helper kernel.py defines).
    for obj in vars(mod).values():
        if isinstance(obj, JITFunction):
            obj.file_name = os.path.relpath(os.path.join(d, "kernel.py"), REPO)
    signature, constexprs, attrs, runtime = specialize(fn, cfg["args"])
    options = {"num_warps": cfg.get("num_warps", 4), "num_stages": cfg.get("num_stages", 3)}
    archs = cfg.get("archs", [80])
    assert archs[0] == 80, "sm_80 comes first: its PTX is the one every sample has"

    for old in [p for p in os.listdir(d) if re.match(r"kernel\..*\.ptx$", p)]:
        os.remove(os.path.join(d, old))
    written, shared = [], []
    for arch in archs:
        src = ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
        compiled = triton.compile(src, target=GPUTarget("cuda", arch, 32), options=options)
        ptx = compiled.asm["ptx"]
        meta = compiled.metadata
        if spec["kernel"] != meta.name:
            raise SystemExit(f"{name}: sample.json kernel is {spec['kernel']}, Triton named it {meta.name}")
        params = entry_params(ptx, meta.name)
        if len(params) != len(runtime) + HIDDEN_PARAMS:
            raise SystemExit(f"{name}: expected {len(runtime)} + {HIDDEN_PARAMS} hidden parameters, "
                             f"the PTX has {len(params)}")
        check_args(name, spec, runtime, params, meta)
        assert meta.num_warps == options["num_warps"]
        shared.append(meta.shared)
        fname = ptx_name(arch)
        with open(os.path.join(d, fname), "w") as f:
            f.write(ptx)
        written.append(fname)

    spec["block"] = [32 * options["num_warps"], 1, 1]
    spec["shared_bytes"] = max(shared)
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "reference")
        subprocess.run(["gcc", "-O2", "-std=c11", "-o", exe, os.path.join(d, "reference.c"), "-lm"], check=True)
        subprocess.run([exe], cwd=d, check=True)
    spec["ptx"] = written
    spec["generator"] = {
        "triton": triton.__version__,
        "targets": [f"cuda:{a}" for a in archs],
        "options": dict(options, enable_fp_fusion=os.environ["TRITON_DEFAULT_FP_FUSION"] == "1"),
        "signature": signature,
        "constexprs": {k: v for k, v in constexprs.items()},
        "shared": dict(zip(written, shared)),
    }
    with open(os.path.join(d, "sample.json"), "w") as f:
        json.dump(spec, f, indent=2)
        f.write("\n")
    print(f"{name}: {', '.join(written)} (shared {spec['shared_bytes']} B, block {spec['block'][0]})")


def main() -> None:
    names = sys.argv[1:] or sorted(
        n for n in os.listdir(TRITON_DIR) if os.path.isfile(os.path.join(TRITON_DIR, n, "kernel.py"))
    )
    try:
        for n in names:
            gen_sample(n)
    finally:
        shutil.rmtree(_CACHE, ignore_errors=True)


if __name__ == "__main__":
    main()
