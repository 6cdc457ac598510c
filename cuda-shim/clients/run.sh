#!/usr/bin/env bash
# Runs unmodified client code from public packages on warpjit's libcuda.so.1
# (issue 6's acceptance checks; not part of `cargo test`, as it needs the
# network):
#   - cudarc 0.19.4 (binds every symbol at load) and the latest 0.19.x (lazy):
#     examples 01 02 03 04 09 10 12, the driver::safe::core tests and (in
#     releases that have them) the driver::safe::graph tests, except two
#     that assert hardware speed: pinned host reads faster than
#     write-combined ones (user space cannot get uncached memory);
#     pinned copies 1.5x faster than pageable ones runs (the shim stages
#     a pageable source and reads a page-locked one directly, as CUDA
#     does, and runs a short copy on an idle stream on the calling
#     thread; docs/driver-api.md);
#     For the latest 0.19.x also its whole driver:: suite (release build;
#     the same two skipped; test_par_launch wants two free cores) and the
#     two tests it marks to run alone;
#   - a cuda-python (cuda.bindings) driver-API program on NVRTC's PTX;
#   - cuda.core with its defaults (Program.compile("cubin"), Linker.link
#     through nvJitLink), through the compile-path interposer
#     (libwarpjit_interpose.so, LD_PRELOAD);
#   - NVIDIA's runtime (cudart 12.9, from the nvidia-cuda-runtime-cu12
#     wheel) over the shim: cuda.bindings.runtime (cudart_runtime.py), a C
#     program registering a fatbin and launching with cudaLaunchKernel as
#     nvcc-built programs do (cudart_registered.c, built with cc), and
#     CuPy (cupy-cuda12x, with CUPY_COMPILE_WITH_PTX=1, without and with
#     its CUB accelerator; cupy_basics.py);
#   - numba-cuda kernels (vector add, shared-memory reduction, atomics)
#     compiled with NVVM from PyPI, installed as numba-cuda[cu12] (with
#     nvJitLink: numba links LTO-IR by default), and one linked with a CUDA
#     C++ device function (link=[...]), through the interposer too.
# Needs Python 3.10+, cargo and PyPI/crates.io access.
# Usage: bash cuda-shim/clients/run.sh [cudarc|python|all]
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
what="${1:-all}"

cargo build --release -p warpjit-cuda -p warpjit-interpose
interpose="$(cd "${CARGO_TARGET_DIR:-target}/release" && pwd)/libwarpjit_interpose.so"
lib="$root/target/cuda-clients/lib"
mkdir -p "$lib"
cp "${CARGO_TARGET_DIR:-target}/release/libcuda.so" "$lib/libcuda.so.1"
ln -sf libcuda.so.1 "$lib/libcuda.so"

venv="$root/target/cuda-clients/venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet \
    numpy \
    "cuda-bindings==12.9.*" \
    "numba-cuda[cu12]==0.30.4" \
    "nvidia-nvjitlink-cu12==12.9.86" \
    "nvidia-cuda-nvrtc-cu12==12.9.86" \
    "nvidia-cuda-runtime-cu12==12.9.79" \
    "nvidia-cuda-nvcc-cu12==12.9.86"
fi
"$venv/bin/python" -c 'import cupy' 2>/dev/null || "$venv/bin/pip" install --quiet "cupy-cuda12x==14.2.0"
nvrtc="$("$venv/bin/python" -c 'import nvidia.cuda_nvrtc as m; print(list(m.__path__)[0] + "/lib")')"
cudart="$("$venv/bin/python" -c 'import nvidia.cuda_runtime as m; print(list(m.__path__)[0] + "/lib")')"
ln -sf "$nvrtc/libnvrtc.so.12" "$lib/libnvrtc.so"
export LD_LIBRARY_PATH="$lib:$nvrtc:$cudart${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

if [ "$what" = all ] || [ "$what" = python ]; then
  "$venv/bin/python" cuda-shim/clients/cuda_python_saxpy.py
  "$venv/bin/python" cuda-shim/clients/cudart_runtime.py
  cc -O1 -o "$lib/../cudart_registered" cuda-shim/clients/cudart_registered.c -L"$cudart" -l:libcudart.so.12
  "$lib/../cudart_registered" ptx-samples/cuda/saxpy/kernel.compute_80.ptx
  CUPY_COMPILE_WITH_PTX=1 CUPY_ACCELERATORS="" "$venv/bin/python" cuda-shim/clients/cupy_basics.py
  CUPY_COMPILE_WITH_PTX=1 CUPY_ACCELERATORS=cub "$venv/bin/python" cuda-shim/clients/cupy_basics.py
  LD_PRELOAD="$interpose" "$venv/bin/python" cuda-shim/clients/cuda_core_defaults.py
  LD_PRELOAD="$interpose" "$venv/bin/python" cuda-shim/clients/numba_kernels.py
  LD_PRELOAD="$interpose" "$venv/bin/python" cuda-shim/clients/numba_link.py
fi

if [ "$what" = all ] || [ "$what" = cudarc ]; then
  for version in 0.19.4 0.19; do
    probe="$root/target/cuda-clients/cudarc-$version"
    mkdir -p "$probe/src"
    cat > "$probe/Cargo.toml" <<TOML
[package]
name = "cudarc-probe"
version = "0.1.0"
edition = "2021"
[dependencies]
cudarc = { version = "=$version", features = ["cuda-12090"] }
[workspace]
TOML
    [ "$version" = 0.19 ] && sed -i 's/"=0.19"/"0.19"/' "$probe/Cargo.toml"
    echo 'fn main() {}' > "$probe/src/main.rs"
    (cd "$probe" && cargo generate-lockfile -q && cargo fetch -q)
    src="$(cd "$probe" && cargo metadata --format-version 1 -q | "$venv/bin/python" -c '
import json, sys
m = json.load(sys.stdin)
print(next(p["manifest_path"] for p in m["packages"] if p["name"] == "cudarc").rsplit("/", 1)[0])')"
    echo "== cudarc at $src"
    target="$root/target/cuda-clients/cudarc-target"
    for e in 01-allocate 02-copy 03-launch-kernel 04-streams 09-constant-memory 10-function-attributes 12-context-config; do
      cargo build -q --manifest-path "$src/Cargo.toml" --features cuda-12090 --target-dir "$target" --example "$e"
      (cd "$src" && "$target/debug/examples/$e" > /dev/null) && echo "example $e: ok"
    done
    (cd "$src" && cargo test -q --manifest-path "$src/Cargo.toml" --features cuda-12090 --lib \
      --target-dir "$target" -- driver::safe::core driver::safe::graph \
      --skip test_default_pinned_host_reads_are_faster_than_write_combined)
    if [ "$version" = 0.19 ]; then
      # The newest 0.19.x: its whole driver:: suite (release, for the
      # timing of test_par_launch, which wants two free cores), then the
      # two tests it marks to run alone.
      (cd "$src" && cargo test -q --release --manifest-path "$src/Cargo.toml" --features cuda-12090 \
        --lib --target-dir "$target" -- driver:: \
        --skip test_default_pinned_host_reads_are_faster_than_write_combined)
      for t in driver::safe::core::tests::test_post_alloc_memory driver::safe::launch::tests::test_device_side_assert; do
        (cd "$src" && cargo test -q --release --manifest-path "$src/Cargo.toml" --features cuda-12090 \
          --lib --target-dir "$target" -- --ignored --exact "$t")
      done
    fi
  done
fi
echo "clients OK"
