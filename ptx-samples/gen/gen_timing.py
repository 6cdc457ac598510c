"""Regenerates ptx-samples/timing/*.compute_80.ptx from their .cu files
with NVRTC 12.9 (pip install -r ptx-samples/gen/requirements.txt). The PTX is
committed so that the tests need neither Python nor CUDA."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import nvrtc  # noqa: E402

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "timing")


def main() -> None:
    for name in ["microbench", "shared_per_kernel", "memory"]:
        src = open(os.path.join(HERE, f"{name}.cu")).read()
        ptx = nvrtc.compile_to_ptx(src, f"{name}.cu", ["--gpu-architecture=compute_80", "-lineinfo"])
        out = os.path.join(HERE, f"{name}.compute_80.ptx")
        with open(out, "w") as f:
            f.write(ptx)
        print(f"wrote {out} (NVRTC {nvrtc.version()})")


if __name__ == "__main__":
    main()
