"""Regenerates the SASS sidecars of the corpus: for every PTX file under
ptx-samples/{cuda,triton,numba,clang,timing,fidelity,heap}, FILE.ptx.sass.json
beside it (ptxas's SASS per PTX line and register counts, which timed
launches use with `--costs sass|auto` when ptxas is not installed; format:
src/sass/sidecar.rs). Lists the files ptxas rejects (they keep no sidecar).

Needs ptxas and nvdisasm (requirements.txt: nvidia-cuda-nvcc-cu12==12.9.86,
nvidia-cuda-nvdisasm==13.5.37), found as `warpjit sass` finds them (WARPJIT_PTXAS,
WARPJIT_NVDISASM, PATH, the Python packages), and builds warpjit with cargo:
the work is `warpjit sass --write FILE...`, so the sidecars are exactly what
a timed launch would compute."""
import glob
import os
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DIRS = ["cuda", "triton", "numba", "clang", "timing", "fidelity", "heap"]


def main() -> None:
    files = []
    for d in DIRS:
        files += glob.glob(os.path.join(ROOT, "ptx-samples", d, "**", "*.ptx"), recursive=True)
    files = sorted(os.path.relpath(f, ROOT) for f in files)
    subprocess.run(["cargo", "build", "--release", "--bin", "warpjit"], cwd=ROOT, check=True)
    exe = os.path.join(ROOT, "target", "release", "warpjit")
    r = subprocess.run([exe, "sass", "--write", *files], cwd=ROOT, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit(r.stderr)
    skipped = [line for line in r.stdout.splitlines() if ": skipped: " in line]
    for f in files:
        sidecar = os.path.join(ROOT, f + ".sass.json")
        if any(line.startswith(f + ":") for line in skipped) and os.path.exists(sidecar):
            os.remove(sidecar)
    print(f"{len(files) - len(skipped)} sidecars written, {len(skipped)} files skipped:")
    for line in skipped:
        print("  " + line)


if __name__ == "__main__":
    main()
