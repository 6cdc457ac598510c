#!/bin/bash
# Host instructions per simulated warp-instruction of the timing model over
# the corpus (sm_80, JIT engine, every sample's first PTX file, one timed
# launch each), counted by callgrind: a deterministic measure of the model's
# cost, for comparing builds on a machine whose wall-clock speed drifts.
# Counts the timed launches (`Device::launch_timed`) without the JIT's
# compilation (`jit::compile_for`) and the compiler-order copy of the
# module (`ir::schedule::schedule`), both made once per module.
#
#   cargo build --release --example timing_dump
#   bash benches/timing_ir.sh [target/release/examples/timing_dump]
#
# Needs valgrind. Figures in docs/performance.md.
set -euo pipefail
bin=${1:-target/release/examples/timing_dump}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ONLY=1 valgrind --tool=callgrind --dump-instr=no --callgrind-out-file="$out/cg" \
  "$bin" > "$out/dump.txt" 2> "$out/valgrind.txt"
callgrind_annotate --inclusive=yes "$out/cg" > "$out/ann.txt" 2> /dev/null
launched=$(grep -E "launch_timed" "$out/ann.txt" | awk '{print $1}' | tr -d , | sort -n | tail -1)
compiled=$(grep -E "jit::compile_for \[" "$out/ann.txt" | awk '{print $1}' | tr -d , | sort -n | tail -1)
scheduled=$(grep -E "ir::schedule::schedule \[" "$out/ann.txt" | awk '{print $1}' | tr -d , | sort -n | tail -1)
compiled=$(( compiled + ${scheduled:-0} ))
executed=$(grep -E "CtaExec>::step \[" "$out/ann.txt" | awk '{print $1}' | tr -d , | sort -n | tail -1)
warp_instr=$(grep -o '"warp_instructions":[0-9]*' "$out/dump.txt" | cut -d: -f2 | paste -sd+ | bc)
echo "warp-instructions: $warp_instr"
echo "host instructions per warp-instruction (timed launches, compilation excluded): $(( (launched - compiled) / warp_instr ))"
echo "  of which executing them (CtaExec::step): $(( executed / warp_instr ))"
