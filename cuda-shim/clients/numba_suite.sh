#!/usr/bin/env bash
# numba-cuda's own test suite on warpjit's libcuda.so.1, installed as its
# docs say (numba-cuda[cu12], nvJitLink included), with the compile-path
# interposer preloaded (docs/driver-api.md). Runs the cudadrv, nrt,
# doc_examples and cudapy suites (cudapy without its CuPy-interop module, which raises a
# pytest skip at import and would stop the whole run), each in one
# process, and prints each suite's last lines; full logs in
# target/cuda-clients/numba-*.log. About 10 minutes on two cores.
# Needs what cuda-shim/clients/run.sh needs (it builds the venv first).
# Usage: bash cuda-shim/clients/numba_suite.sh [cudadrv|nrt|doc_examples|cudapy]...
set -uo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
bash cuda-shim/clients/run.sh python > /dev/null || { echo "run.sh python failed" >&2; exit 1; }
venv="$root/target/cuda-clients/venv"
# What numba's tests import beyond numba itself.
"$venv/bin/python" -c 'import pytest, cffi, filecheck, ml_dtypes, nvidia.cuda_cccl' 2>/dev/null ||
  "$venv/bin/pip" install --quiet pytest cffi filecheck ml_dtypes "nvidia-cuda-cccl-cu12==12.9.27"
lib="$root/target/cuda-clients/lib"
# A private copy of the libraries: rebuilding during a run cannot touch them.
run_lib="$root/target/cuda-clients/run-lib"
mkdir -p "$run_lib"
cp "$lib/libcuda.so.1" "$run_lib/libcuda.so.1"
cp "$(cd "${CARGO_TARGET_DIR:-target}/release" && pwd)/libwarpjit_interpose.so" "$run_lib/"
nvrtc="$("$venv/bin/python" -c 'import nvidia.cuda_nvrtc as m; print(list(m.__path__)[0] + "/lib")')"
suites=("$@")
[ ${#suites[@]} -eq 0 ] && suites=(cudadrv nrt doc_examples cudapy)
for suite in "${suites[@]}"; do
  if [ "$suite" = cudapy ]; then
    dir="$("$venv/bin/python" -c 'import numba.cuda.tests.cudapy as m, os; print(os.path.dirname(m.__file__))')"
    mods=$(cd "$dir" && ls test_*.py | sed 's/\.py$//' | grep -v cupy_bfloat16_interop | sed 's/^/numba.cuda.tests.cudapy./')
  else
    mods="numba.cuda.tests.$suite"
  fi
  log="$root/target/cuda-clients/numba-$suite.log"
  # shellcheck disable=SC2086
  # numba has kernels of 5.6 G threads (test_issue_9229): more than the
  # default 60 s on a busy two-core machine; a doc example allocates more
  # than the default 1 GiB of device memory (the arena is reserved, not
  # touched); the CuPy interop tests need CuPy's kernels as PTX.
  WARPJIT_WATCHDOG_SECONDS=600 WARPJIT_DEVICE_MEMORY=8G CUPY_COMPILE_WITH_PTX=1 \
  LD_PRELOAD="$run_lib/libwarpjit_interpose.so" LD_LIBRARY_PATH="$run_lib:$nvrtc" \
    "$venv/bin/python" -m numba.runtests $mods > "$log" 2>&1
  echo "== numba.cuda.tests.$suite: $(grep -a -E '^Ran [0-9]+ tests' "$log") $(tail -n 1 "$log")"
done
