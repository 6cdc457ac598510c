#!/usr/bin/env python3
"""Regenerate the sanitizer test kernels: ptx-samples/sanitizer/<name>.cu to
<name>.ptx with NVRTC 12.9 for compute_80 or the file's ARCH (-lineinfo, so reports name the
CUDA line too). tests/sanitizer.rs runs the committed PTX.

Usage: python3 ptx-samples/gen/gen_sanitizer.py
Needs: pip install nvidia-cuda-nvrtc-cu12==12.9.86 (ptx-samples/gen/requirements.txt).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvrtc  # noqa: E402
from gen_cuda import cccl_include_dir, cuda_include_dir  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIR = os.path.join(ROOT, "sanitizer")
OPTIONS = ["-std=c++17", "-lineinfo"]
# compute_80 unless named here (the mbarrier kernels use sm_90's bulk copies
# and try_wait, and libcu++'s cuda::barrier; race_order uses libcu++'s
# cuda::atomic_ref, whose release and acquire need sm_70; race_cluster
# uses sm_90's clusters, race_multicast sm_90a's multicast bulk copies).
ARCH = {
    "bugs_mbarrier.cu": "compute_90",
    "race_order.cu": "compute_70",
    "race_cluster.cu": "compute_90",
    "race_multicast.cu": "compute_90a",
}


def main() -> None:
    for name in sorted(n for n in os.listdir(DIR) if n.endswith(".cu")):
        with open(os.path.join(DIR, name)) as f:
            src = f.read()
        # A fixed absolute program name keeps `.file` independent of where
        # the script runs.
        arch = ARCH.get(name, "compute_80")
        options = [f"--gpu-architecture={arch}"] + OPTIONS
        if name in ARCH:
            options += [f"-I{cuda_include_dir()}", f"-I{cccl_include_dir()}"]
        ptx = nvrtc.compile_to_ptx(src, f"/ptx-samples/sanitizer/{name}", options)
        out = os.path.join(DIR, name[:-3] + ".ptx")
        with open(out, "w") as f:
            f.write(ptx)
        print(f"{name} -> {os.path.basename(out)} (NVRTC {nvrtc.version()})")


if __name__ == "__main__":
    main()
