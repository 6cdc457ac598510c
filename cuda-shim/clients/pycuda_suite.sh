#!/usr/bin/env bash
# PyCUDA's own test suite (test_driver.py, test_gpuarray.py, test_cumath.py)
# on warpjit's libcuda.so.1. PyCUDA 2026.1 is built from its sdist against
# the CUDA headers of NVIDIA's PyPI wheels (runtime, profiler API, nvcc's
# crt/, cuRAND) and warpjit's libcuda.so; its SourceModule runs `nvcc`,
# here cuda-shim/tools/nvcc (device code through NVRTC, output PTX, which
# the driver library loads). Full log: target/cuda-clients/pycuda.log.
# About 5 minutes to build on two cores, 1 minute to test.
# Needs Python 3.10+, a C++ compiler and PyPI access.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
out="$root/target/cuda-clients"
mkdir -p "$out"

cargo build --release -p warpjit-cuda
venv="$out/pycuda-venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet numpy pytools platformdirs mako pytest setuptools wheel \
    "nvidia-cuda-runtime-cu12==12.9.79" "nvidia-cuda-nvrtc-cu12==12.9.86" \
    "nvidia-cuda-nvcc-cu12==12.9.86" "nvidia-cuda-cccl-cu12==12.9.27" \
    "nvidia-cuda-profiler-api-cu12==12.9.79" "nvidia-curand-cu12==10.3.10.19"
fi
site="$("$venv/bin/python" -c 'import nvidia, os; print(os.path.dirname(list(nvidia.__path__)[0]))')/nvidia"

# A CUDA root as PyCUDA's build expects one: headers and libraries.
cuda="$out/pycuda-cuda-root"
rm -rf "$cuda" && mkdir -p "$cuda/include" "$cuda/lib64"
for pkg in cuda_runtime cuda_profiler_api cuda_nvcc curand; do
  cp -r "$site/$pkg/include/." "$cuda/include/"
done
cp "${CARGO_TARGET_DIR:-target}/release/libcuda.so" "$cuda/lib64/libcuda.so"
ln -sf libcuda.so "$cuda/lib64/libcuda.so.1"
cp "$site/curand/lib/libcurand.so.10" "$cuda/lib64/" && ln -sf libcurand.so.10 "$cuda/lib64/libcurand.so"

if ! "$venv/bin/python" -c 'import pycuda.driver' 2>/dev/null; then
  src="$out/pycuda-src"
  rm -rf "$src" && mkdir -p "$src"
  "$venv/bin/python" - "$src" <<'PY'
import json, sys, tarfile, urllib.request
meta = json.load(urllib.request.urlopen("https://pypi.org/pypi/pycuda/json"))
url = next(u["url"] for u in meta["releases"]["2026.1"] if u["packagetype"] == "sdist")
path = sys.argv[1] + "/pycuda.tar.gz"
urllib.request.urlretrieve(url, path)
tarfile.open(path).extractall(sys.argv[1], filter="data")
PY
  cd "$src"/pycuda-2026.1
  "$venv/bin/python" configure.py --cuda-root="$cuda" > /dev/null
  "$venv/bin/pip" install --quiet --no-build-isolation .
  cd "$root"
fi

tests="$out/pycuda-tests"
rm -rf "$tests" && mkdir -p "$tests"
"$venv/bin/python" - "$tests" <<'PY'
import json, sys, tarfile, urllib.request, io
meta = json.load(urllib.request.urlopen("https://pypi.org/pypi/pycuda/json"))
url = next(u["url"] for u in meta["releases"]["2026.1"] if u["packagetype"] == "sdist")
with tarfile.open(fileobj=io.BytesIO(urllib.request.urlopen(url).read())) as t:
    for m in t.getmembers():
        if m.name.startswith("pycuda-2026.1/test/test_") and m.name.endswith(".py"):
            m.name = m.name.rsplit("/", 1)[1]
            t.extract(m, sys.argv[1], filter="data")
PY
cd "$tests"
set +e
PATH="$root/cuda-shim/tools:$venv/bin:$PATH" LD_LIBRARY_PATH="$cuda/lib64" PYCUDA_DISABLE_CACHE=1 \
  "$venv/bin/python" -m pytest -q -rs test_driver.py test_gpuarray.py test_cumath.py > "$out/pycuda.log" 2>&1
rc=$?
tail -n 1 "$out/pycuda.log"
exit $rc
