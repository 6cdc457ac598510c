#!/usr/bin/env python3
"""Regenerate the clang part of ptx-samples/: PTX from LLVM's NVPTX back end.

For every directory ptx-samples/clang/<name>/ holding kernel.cu, reference.c and
sample.json this script:
  1. compiles kernel.cu as CUDA device code with clang, without the CUDA SDK:
         clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib
               -Xclang -target-feature -Xclang +ptx75 -O2 -S -o kernel.sm_80.ptx kernel.cu
     plus sample.json's "clang_options" (e.g. -gline-tables-only). The kernels
     declare the few CUDA keywords they need themselves (__global__ etc. as clang
     attributes, threadIdx from clang's <__clang_cuda_builtin_vars.h>, __nvvm_*
     builtins). Without a CUDA installation clang enables no PTX ISA feature, so
     +ptx75 (what clang 14 selects for CUDA 11.5, its newest) is given explicitly;
     it is needed for shfl.sync and is written as `.version 7.5`.
     -ffile-prefix-map options make `.file` paths independent of the checkout:
     the sample directory becomes /ptx-samples/clang/<name>, clang's resource
     directory (its builtin headers) becomes /clang; they are not recorded in
     "generator".
  2. compiles reference.c with gcc -O2 and runs it inside the sample directory:
     the reference writes the input files and the expected output files;
  3. checks that "kernel" names an .entry and that "args" has one entry per .entry
     parameter, of the parameter's size;
  4. records the PTX file and the compiler version and options in sample.json.

Usage: python3 ptx-samples/gen/gen_clang.py [NAME ...]
Needs: clang 14 (Debian 12: apt-get install clang) and gcc. The output is deterministic.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLANG_DIR = os.path.join(ROOT, "clang")
CLANG = os.environ.get("CLANG", "clang")
ARCH = "sm_80"
BASE_OPTIONS = ["-x", "cuda", "--cuda-device-only", f"--cuda-gpu-arch={ARCH}", "-nocudainc", "-nocudalib",
                "-Xclang", "-target-feature", "-Xclang", "+ptx75", "-O2"]

PARAM_BYTES = {"8": 1, "16": 2, "32": 4, "64": 8}


def clang_version() -> str:
    out = subprocess.run([CLANG, "--version"], check=True, capture_output=True, text=True).stdout
    m = re.search(r"clang version (\d+\.\d+\.\d+)", out)
    if not m:
        raise SystemExit(f"cannot read the clang version from: {out!r}")
    if not m.group(1).startswith("14."):
        print(f"warning: the committed PTX was built with clang 14, this is clang {m.group(1)}", file=sys.stderr)
    return m.group(1)


def entry_params(ptx: str, name: str):
    m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\(([^)]*)\)", ptx)
    if not m:
        entries = re.findall(r"\.entry\s+(\S+)\s*\(", ptx)
        raise SystemExit(f"no .entry {name} in the PTX; entries: {entries}")
    return [p.strip() for p in m.group(1).split(",") if p.strip()]


def arg_bytes(a: str) -> int:
    kind = a.split(":", 1)[0]
    if kind in ("in", "out", "inout"):
        return 8
    m = re.fullmatch(r"[usbf](8|16|32|64)", kind)
    if not m:
        raise SystemExit(f"cannot check argument {a!r}")
    return PARAM_BYTES[m.group(1)]


def gen_sample(name: str, version: str) -> None:
    d = os.path.join(CLANG_DIR, name)
    with open(os.path.join(d, "sample.json")) as f:
        spec = json.load(f)
    extra = spec.get("clang_options", [])
    for old in [p for p in os.listdir(d) if re.match(r"kernel\..*\.ptx$", p)]:
        os.remove(os.path.join(d, old))
    resource = subprocess.run([CLANG, "-print-resource-dir"], check=True, capture_output=True, text=True).stdout.strip()
    fname = f"kernel.{ARCH}.ptx"
    subprocess.run(
        [CLANG] + BASE_OPTIONS + extra
        + [f"-ffile-prefix-map={d}=/ptx-samples/clang/{name}", f"-ffile-prefix-map={resource}=/clang",
           "-S", "-o", os.path.join(d, fname), os.path.join(d, "kernel.cu")],
        check=True,
    )
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "reference")
        subprocess.run(["gcc", "-O2", "-std=c11", "-o", exe, os.path.join(d, "reference.c"), "-lm"], check=True)
        subprocess.run([exe], cwd=d, check=True)
    with open(os.path.join(d, fname)) as f:
        ptx = f.read()
    params = entry_params(ptx, spec["kernel"])
    if len(params) != len(spec["args"]):
        raise SystemExit(f"{name}: sample.json has {len(spec['args'])} args, the .entry has {len(params)} parameters")
    for p, a in zip(params, spec["args"]):
        m = re.match(r"\.param\s+\.[a-z](8|16|32|64)\s", p)
        if not m or PARAM_BYTES[m.group(1)] != arg_bytes(a):
            raise SystemExit(f"{name}: argument {a!r} does not fit parameter {p!r}")
    spec["ptx"] = [fname]
    spec["generator"] = {"clang": version, "options": BASE_OPTIONS + extra}
    with open(os.path.join(d, "sample.json"), "w") as f:
        json.dump(spec, f, indent=2)
        f.write("\n")
    print(f"{name}: {fname}")


def main() -> None:
    version = clang_version()
    names = sys.argv[1:] or sorted(
        n for n in os.listdir(CLANG_DIR) if os.path.isfile(os.path.join(CLANG_DIR, n, "kernel.cu"))
    )
    for n in names:
        gen_sample(n, version)


if __name__ == "__main__":
    main()
