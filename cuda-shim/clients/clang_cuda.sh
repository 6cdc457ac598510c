#!/usr/bin/env bash
# A CUDA program compiled by clang's CUDA mode (cuda-shim/clients/clang_cuda.cu)
# against NVIDIA's runtime from PyPI, with its device code as PTX in the
# fatbin clang embeds, run on warpjit's libcuda.so.1. Needs what run.sh
# needs (it builds the venv and the library first) and a clang that knows
# CUDA 12's headers (clang 16 or later; Debian: apt-get install clang-19;
# CLANG=... to choose). The CUDA root clang is given is made from the
# wheels: the runtime's and nvcc's headers, libdevice, ptxas (clang makes
# a cubin too, which warpjit skips), libcudart; cuda-shim/tools/fatbinary
# stands in for CUDA's fatbinary (not on PyPI); an empty
# curand_mtgp32_kernel.h for cuRAND's header, which clang's CUDA wrapper
# includes (cuRAND is not installed).
# Usage: bash cuda-shim/clients/clang_cuda.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
clang="${CLANG:-$(command -v clang++-19 || command -v clang++-18 || command -v clang++-17 || command -v clang++-16 || command -v clang++ || true)}"
[ -n "$clang" ] || { echo "no clang++ (apt-get install clang-19)" >&2; exit 1; }
bash cuda-shim/clients/run.sh python > /dev/null || { echo "run.sh python failed" >&2; exit 1; }
venv="$root/target/cuda-clients/venv"
wheels="$("$venv/bin/python" -c 'import nvidia, os; print(os.path.dirname(list(nvidia.__path__)[0]))')/nvidia"
cuda="$root/target/cuda-clients/clang-cuda-root"
rm -rf "$cuda" && mkdir -p "$cuda/include" "$cuda/lib64" "$cuda/bin" "$cuda/nvvm/libdevice"
cp -r "$wheels/cuda_runtime/include/." "$wheels/cuda_nvcc/include/." "$cuda/include/"
touch "$cuda/include/curand_mtgp32_kernel.h"
cp "$wheels/cuda_nvcc/nvvm/libdevice/libdevice.10.bc" "$cuda/nvvm/libdevice/"
ln -s "$wheels/cuda_nvcc/bin/ptxas" "$cuda/bin/ptxas"
cp cuda-shim/tools/fatbinary "$cuda/bin/fatbinary"
ln -s "$wheels/cuda_runtime/lib/libcudart.so.12" "$cuda/lib64/libcudart.so"
echo "CUDA Version 12.9.0" > "$cuda/version.txt"
"$clang" -x cuda --cuda-path="$cuda" --cuda-gpu-arch=sm_80 -Wno-unknown-cuda-version -O2 \
  cuda-shim/clients/clang_cuda.cu -o "$root/target/cuda-clients/clang_cuda" -L"$cuda/lib64" -lcudart
LD_LIBRARY_PATH="$root/target/cuda-clients/lib:$wheels/cuda_runtime/lib" "$root/target/cuda-clients/clang_cuda"
