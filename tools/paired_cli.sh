#!/bin/bash
# Paired runs of two warpjit binaries on one launch, alternately, so that a
# busy machine slows both alike: prints each binary's median launch time
# (as `--stats` reports it) and the median of the per-round ratios B/A.
#
# Usage: tools/paired_cli.sh BIN_A BIN_B ROUNDS -- RUN-ARGUMENTS...
# e.g. (docs/sanitizer.md): the unchecked interpreter before and after the
# sanitizer, on a 2048 x 2048 transpose:
#   tools/paired_cli.sh /tmp/base/warpjit target/release/warpjit 11 -- \
#     run ptx-samples/sanitizer/correct.ptx --kernel transpose --grid 64,64 --block 32,8 \
#     --arg in:big.bin --arg out:16777216:out.bin --arg s32:2048 --arg s32:2048 --engine interp
set -euo pipefail
a=$1 b=$2 rounds=$3
shift 4
time_of() { "$1" "${@:2}" --stats 2>&1 | grep -o 'in [0-9.]* ms' | grep -o '[0-9.]*'; }
ta=() tb=()
for _ in $(seq "$rounds"); do
  ta+=("$(time_of "$a" "$@")")
  tb+=("$(time_of "$b" "$@")")
done
python3 - "${ta[*]}" "${tb[*]}" <<'PY'
import statistics as st, sys
a = [float(x) for x in sys.argv[1].split()]
b = [float(x) for x in sys.argv[2].split()]
print(f"A median {st.median(a):.1f} ms, B median {st.median(b):.1f} ms, "
      f"median of B/A per round {st.median([y / x for x, y in zip(a, b)]):.3f} ({len(a)} rounds)")
PY
