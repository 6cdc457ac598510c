#!/usr/bin/env python3
"""Regenerate ptx-samples/link/: PTX inputs for warpjit's linker.

Every `*.cu` file under ptx-samples/link/<case>/ is compiled on its own by
NVRTC 12.9 with relocatable device code (`--relocatable-device-code=true`,
as `nvcc -rdc=true` does), so that device functions and variables of other
files appear as `.extern` declarations, non-static definitions as
`.visible`, inline functions as `.weak` and `static` ones without linkage.
Each writes `<stem>.ptx` beside it. The tests (tests/link.rs and
cuda-shim/tests/link_abi.rs) link these files and check the results.

Usage: python3 ptx-samples/gen/gen_link.py [CASE ...]
Needs: pip install nvidia-cuda-nvrtc-cu12==12.9.86 nvidia-cuda-runtime-cu12==12.9.79
(ptx-samples/gen/requirements.txt pins the same).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvrtc  # noqa: E402
from gen_cuda import cuda_include_dir  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK_DIR = os.path.join(ROOT, "link")
OPTIONS = ["--gpu-architecture=compute_80", "--relocatable-device-code=true", "-std=c++17", "-lineinfo"]


def gen_case(case: str) -> None:
    d = os.path.join(LINK_DIR, case)
    for name in sorted(os.listdir(d)):
        if not name.endswith(".cu"):
            continue
        with open(os.path.join(d, name)) as f:
            src = f.read()
        # A fixed absolute program name keeps `.file` independent of where the script runs.
        ptx = nvrtc.compile_to_ptx(
            src,
            f"/ptx-samples/link/{case}/{name}",
            OPTIONS + [f"-I{d}", f"-I{cuda_include_dir()}"],
        )
        out = name[: -len(".cu")] + ".ptx"
        with open(os.path.join(d, out), "w") as f:
            f.write(ptx)
        print(f"{case}/{out}")


def main() -> None:
    cases = sys.argv[1:] or sorted(
        n for n in os.listdir(LINK_DIR) if os.path.isdir(os.path.join(LINK_DIR, n))
    )
    for c in cases:
        gen_case(c)


if __name__ == "__main__":
    main()
