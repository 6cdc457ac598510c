"""Regenerates ptx-samples/fidelity/kernels.compute_80.ptx from kernels.cu with
NVRTC 12.9 (pip install -r ptx-samples/gen/requirements.txt). The PTX is
committed so that tests and benches need neither Python nor CUDA."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import nvrtc  # noqa: E402

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fidelity")


def main() -> None:
    src = open(os.path.join(HERE, "kernels.cu")).read()
    ptx = nvrtc.compile_to_ptx(src, "kernels.cu", ["--gpu-architecture=compute_80", "-lineinfo", "-std=c++17"])
    out = os.path.join(HERE, "kernels.compute_80.ptx")
    with open(out, "w") as f:
        f.write(ptx)
    print(f"wrote {out} (NVRTC {nvrtc.version()})")


if __name__ == "__main__":
    main()
