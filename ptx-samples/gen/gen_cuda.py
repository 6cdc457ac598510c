#!/usr/bin/env python3
"""Regenerate the CUDA part of ptx-samples/.

For every directory ptx-samples/cuda/<name>/ holding kernel.cu, reference.c and
sample.json this script:
  1. compiles kernel.cu with NVRTC 12.9 for compute_80, and for compute_70 and
     compute_90 (those two are kept only when their PTX body differs from
     compute_80's; sample.json's "archs" replaces the list, the first being
     the one always kept), with the options below plus sample.json's
     "nvrtc_options" (the CUDA and libcu++ headers on the include path);
  2. compiles reference.c with gcc -O2 and runs it inside the sample directory:
     the reference writes the input files and the expected output files;
  3. records the PTX files it wrote in sample.json's "ptx" list.
Samples with "debug_variant": true also get kernel.compute_80.debug.ptx, built
with -G (device debug information: DWARF sections, unoptimized code).

Usage: python3 ptx-samples/gen/gen_cuda.py [NAME ...]
Needs: pip install -r ptx-samples/gen/requirements.txt, and gcc.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvrtc  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CUDA_DIR = os.path.join(ROOT, "cuda")
ARCHS = ["compute_80", "compute_70", "compute_90"]
BASE_OPTIONS = ["-std=c++17", "-lineinfo"]


def ptx_body(ptx: str) -> str:
    """PTX without comments and the header lines that always differ per arch."""
    out = []
    for line in ptx.splitlines():
        s = line.strip()
        if s.startswith("//") or s.startswith(".version") or s.startswith(".target"):
            continue
        out.append(line)
    return "\n".join(out)


def cuda_include_dir() -> str:
    """The CUDA headers (cuda_fp16.h, cuda_bf16.h, ...) from nvidia-cuda-runtime-cu12."""
    import nvidia

    for base in list(nvidia.__path__):
        inc = os.path.join(base, "cuda_runtime", "include")
        if os.path.isfile(os.path.join(inc, "cuda_fp16.h")):
            return inc
    raise RuntimeError("CUDA headers not found: pip install -r ptx-samples/gen/requirements.txt")


def cccl_include_dir() -> str:
    """libcu++ (cuda/barrier, cuda/pipeline, cuda/ptx) from nvidia-cuda-cccl-cu12."""
    import nvidia

    for base in list(nvidia.__path__):
        inc = os.path.join(base, "cuda_cccl", "include")
        if os.path.isfile(os.path.join(inc, "cuda", "barrier")):
            return inc
    raise RuntimeError("libcu++ headers not found: pip install -r ptx-samples/gen/requirements.txt")


def crt_include_options() -> list:
    """`-I` for crt/mma.h (what mma.h includes), shipped in nvidia-cuda-nvcc-cu12."""
    import nvidia

    for base in list(nvidia.__path__):
        inc = os.path.join(base, "cuda_nvcc", "include")
        if os.path.isfile(os.path.join(inc, "crt", "mma.h")):
            return [f"-I{inc}"]
    return []


def gen_sample(name: str) -> None:
    d = os.path.join(CUDA_DIR, name)
    with open(os.path.join(d, "sample.json")) as f:
        spec = json.load(f)
    with open(os.path.join(d, "kernel.cu")) as f:
        src = f.read()
    extra = spec.get("nvrtc_options", [])
    for old in [p for p in os.listdir(d) if re.match(r"kernel\..*\.ptx$", p)]:
        os.remove(os.path.join(d, old))
    written = []
    base = None
    # "archs" in sample.json: a sample that needs a newer target (sm_90's
    # instructions) lists the ones it is built for, the first as the base.
    for arch in spec.get("archs", ARCHS):
        # A fixed absolute program name keeps `.file` (and assert messages)
        # independent of where the script runs.
        ptx = nvrtc.compile_to_ptx(
            src,
            f"/ptx-samples/cuda/{name}/kernel.cu",
            [f"--gpu-architecture={arch}", f"-I{cuda_include_dir()}", f"-I{cccl_include_dir()}"]
            + crt_include_options()
            + BASE_OPTIONS
            + extra,
        )
        if base is None:
            base = ptx_body(ptx)
        elif ptx_body(ptx) == base:
            continue
        fname = f"kernel.{arch}.ptx"
        with open(os.path.join(d, fname), "w") as f:
            f.write(ptx)
        written.append(fname)
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "reference")
        subprocess.run(["gcc", "-O2", "-std=c11", "-o", exe, os.path.join(d, "reference.c"), "-lm"], check=True)
        subprocess.run([exe], cwd=d, check=True)
    if spec.get("debug_variant"):
        # Also a `-G` (device debug) build: PTX with DWARF `.section`s and no optimization.
        ptx = nvrtc.compile_to_ptx(
            src,
            f"/ptx-samples/cuda/{name}/kernel.cu",
            ["--gpu-architecture=compute_80", f"-I{cuda_include_dir()}", "-std=c++17", "-G"] + extra,
        )
        with open(os.path.join(d, "kernel.compute_80.debug.ptx"), "w") as f:
            f.write(ptx)
        written.append("kernel.compute_80.debug.ptx")
    spec["ptx"] = written
    spec["generator"] = {"nvrtc": nvrtc.version(), "options": BASE_OPTIONS + extra}
    with open(os.path.join(d, "sample.json"), "w") as f:
        json.dump(spec, f, indent=2)
        f.write("\n")
    print(f"{name}: {', '.join(written)}")


def main() -> None:
    names = sys.argv[1:] or sorted(
        n for n in os.listdir(CUDA_DIR) if os.path.isfile(os.path.join(CUDA_DIR, n, "kernel.cu"))
    )
    for n in names:
        gen_sample(n)


if __name__ == "__main__":
    main()
