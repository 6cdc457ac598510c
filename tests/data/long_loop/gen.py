#!/usr/bin/env python3
"""Regenerates kernel.compute_80.ptx from kernel.cu with NVRTC 12.9
(pip install -r ptx-samples/gen/requirements.txt)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "ptx-samples", "gen"))
import nvrtc  # noqa: E402

src = open(os.path.join(HERE, "kernel.cu")).read()
ptx = nvrtc.compile_to_ptx(src, "kernel.cu", ["--gpu-architecture=compute_80", "-lineinfo"])
open(os.path.join(HERE, "kernel.compute_80.ptx"), "w").write(ptx)
