#!/usr/bin/env bash
# Runs NVIDIA's own cuda-python example scripts on warpjit's libcuda.so.1,
# with the compile-path interposer preloaded and CuPy compiling to PTX:
# each *.py of the folders given (e.g. a checkout's cuda_core/examples),
# 300 s each, printing pass/FAIL per script and the last error line.
# The examples are not part of this repository: fetch NVIDIA/cuda-python
# at the version matching the installed cuda-core / cuda-bindings.
# Needs what run.sh needs (it builds the venv and the library first).
# Usage: bash cuda-shim/clients/cuda_python_examples.sh DIR [DIR...]
set -uo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
bash cuda-shim/clients/run.sh python > /dev/null || { echo "run.sh python failed" >&2; exit 1; }
venv="$root/target/cuda-clients/venv"
nvrtc="$("$venv/bin/python" -c 'import nvidia.cuda_nvrtc as m; print(list(m.__path__)[0] + "/lib")')"
cudart="$("$venv/bin/python" -c 'import nvidia.cuda_runtime as m; print(list(m.__path__)[0] + "/lib")')"
export LD_LIBRARY_PATH="$root/target/cuda-clients/lib:$nvrtc:$cudart"
export LD_PRELOAD="$(cd "${CARGO_TARGET_DIR:-target}/release" && pwd)/libwarpjit_interpose.so"
export CUPY_COMPILE_WITH_PTX=1
pass=0 fail=0
for dir in "$@"; do
  for f in "$dir"/*.py; do
    if out=$(cd "$dir" && timeout 300 "$venv/bin/python" "$(basename "$f")" 2>&1); then
      echo "pass  $f"; pass=$((pass + 1))
    else
      echo "FAIL  $f: $(echo "$out" | grep -v '^warpjit: ' | tail -1)"; fail=$((fail + 1))
    fi
  done
done
echo "$pass passed, $fail failed"
