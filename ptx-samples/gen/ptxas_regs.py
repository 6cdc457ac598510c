"""Records ptxas's register counts for every corpus kernel, to measure
warpjit's register estimate against (tests/timing_regs.rs). Needs ptxas from
the PyPI wheel nvidia-cuda-nvcc-cu12==12.9.86; writes
ptx-samples/gen/ptxas-regs-sm_80.json and, as a sample of the log format,
ptx-samples/gen/ptxas-v-saxpy.log."""
import glob
import json
import os
import re
import subprocess

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def ptxas() -> str:
    import nvidia.cuda_nvcc as m  # noqa: F401

    for base in m.__path__:
        p = os.path.join(base, "bin", "ptxas")
        if os.path.exists(p):
            return p
    raise RuntimeError("ptxas not found: pip install nvidia-cuda-nvcc-cu12==12.9.86")


def main() -> None:
    exe = ptxas()
    out = {}
    for sample in sorted(glob.glob(os.path.join(ROOT, "*", "*", "sample.json"))):
        d = os.path.dirname(sample)
        spec = json.load(open(sample))
        ptx = os.path.join(d, spec["ptx"][0])
        r = subprocess.run([exe, "-arch=sm_80", "-v", ptx, "-o", "/dev/null"], capture_output=True, text=True)
        log = r.stdout + r.stderr
        if r.returncode != 0:
            print(f"skip {ptx}: ptxas failed")
            continue
        kernels = {}
        current = None
        for line in log.splitlines():
            m = re.search(r"Compiling entry function '([^']+)'", line)
            if m:
                current = m.group(1)
            m = re.search(r"Used (\d+) registers", line)
            if m and current:
                kernels[current] = int(m.group(1))
                current = None
        rel = os.path.relpath(ptx, ROOT)
        out[rel] = kernels
        if rel.endswith("cuda/saxpy/kernel.compute_80.ptx"):
            open(os.path.join(ROOT, "gen", "ptxas-v-saxpy.log"), "w").write(log)
    with open(os.path.join(ROOT, "gen", "ptxas-regs-sm_80.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print(f"{sum(len(k) for k in out.values())} kernels")


if __name__ == "__main__":
    main()
