#!/usr/bin/env python3
"""Regenerate ptx-samples/heap/: kernels that call device-side malloc/free.

Every `*.cu` file under ptx-samples/heap/ is compiled by NVRTC 12.9 for
compute_80 and written as `<stem>.ptx` beside it; tests/device_heap.rs runs
them on both engines and checks the results.

Usage: python3 ptx-samples/gen/gen_heap.py
Needs: pip install -r ptx-samples/gen/requirements.txt (NVRTC from PyPI).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvrtc  # noqa: E402
from gen_cuda import cuda_include_dir  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAP_DIR = os.path.join(ROOT, "heap")
OPTIONS = ["--gpu-architecture=compute_80", "-std=c++17", "-lineinfo"]


def main() -> None:
    for name in sorted(os.listdir(HEAP_DIR)):
        if not name.endswith(".cu"):
            continue
        with open(os.path.join(HEAP_DIR, name)) as f:
            src = f.read()
        # A fixed absolute program name keeps `.file` independent of where the script runs.
        ptx = nvrtc.compile_to_ptx(src, f"/ptx-samples/heap/{name}", OPTIONS + [f"-I{cuda_include_dir()}"])
        out = name[: -len(".cu")] + ".ptx"
        with open(os.path.join(HEAP_DIR, out), "w") as f:
            f.write(ptx)
        print(f"heap/{out}")


if __name__ == "__main__":
    main()
