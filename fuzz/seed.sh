#!/usr/bin/env bash
# Seeds the fuzz corpus with the real PTX corpus and runs the parser fuzz target.
# Usage: fuzz/seed.sh [SECONDS]   (needs a nightly toolchain; installs cargo-fuzz when missing)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi
mkdir -p fuzz/corpus/parse
find ptx-samples -name '*.ptx' -exec cp {} fuzz/corpus/parse/ \; 2>/dev/null || true
# Also seed with small slices (single functions and statements) so mutations stay cheap.
for f in ptx-samples/cuda/*/kernel.compute_80.ptx; do
  head -c 2000 "$f" > "fuzz/corpus/parse/head-$(basename "$(dirname "$f")").ptx"
done
cargo +nightly fuzz run parse fuzz/corpus/parse -- -dict=fuzz/ptx.dict -max_len=4096 -max_total_time="${1:-1800}" -timeout=10
