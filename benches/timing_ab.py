#!/usr/bin/env python3
"""Timing-model speed of two builds, compared sample by sample.

This machine's wall-clock speed drifts (up to 2x over minutes, and runs of
one binary are bimodal), so runs minutes apart do not compare: for every
corpus sample this runs `examples/timing_profile` from build A, then from
build B, alternately, ROUNDS times, each run repeating the sample's timed
launch (sm_80) on one device to about 300,000 warp-instructions, and keeps
each build's fastest. Prints the corpus rate (every sample launched once),
the geometric mean of the per-sample speedups, the median sample's rate, and
each sample, slowest first.

    cargo build --release --example timing_profile     # in both trees
    python3 benches/timing_ab.py OLD/timing_profile NEW/timing_profile [ROUNDS]

`cuda/atomics_float` and `cuda/atomics_int` cannot be relaunched on one
device by the example and are left out. Figures in docs/performance.md.
"""
import math
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ptx-samples")
TARGET = 300_000


def samples():
    out = []
    for group in sorted(os.listdir(ROOT)):
        path = os.path.join(ROOT, group)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            if os.path.exists(os.path.join(path, name, "sample.json")):
                out.append(f"{group}/{name}")
    return out


def run(binary, sample, reps):
    """(warp-instructions, milliseconds) of `reps` timed launches, or None."""
    try:
        out = subprocess.run(
            ["taskset", "-c", "1", binary, sample, str(reps)],
            capture_output=True, text=True, timeout=300,
        ).stdout
    except subprocess.TimeoutExpired:
        return None
    m = re.search(r"(\d+) warp-instructions in ([0-9.]+) ms", out)
    return (int(m.group(1)), float(m.group(2))) if m else None


def main():
    a, b = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    results = {}
    for sample in samples():
        once = run(a, sample, 1)
        if not once:
            continue
        reps = max(1, min(200, TARGET // max(once[0], 1)))
        best_a = best_b = math.inf
        instr = None
        for _ in range(rounds):
            x, y = run(a, sample, reps), run(b, sample, reps)
            if not x or not y:
                break
            instr, best_a, best_b = x[0], min(best_a, x[1]), min(best_b, y[1])
        if instr:
            results[sample] = (instr / reps, best_a / reps, best_b / reps)
    total = sum(v[0] for v in results.values())
    ta = sum(v[1] for v in results.values())
    tb = sum(v[2] for v in results.values())
    speedups = [v[1] / v[2] for v in results.values()]
    rate_a = sorted(v[0] / v[1] / 1e3 for v in results.values())
    rate_b = sorted(v[0] / v[2] / 1e3 for v in results.values())
    geo = math.exp(sum(map(math.log, speedups)) / len(speedups))
    print(f"{len(results)} samples; corpus (each launched once): A {total / ta / 1e3:.2f}, "
          f"B {total / tb / 1e3:.2f} M warp-instr/s; geometric mean speedup {geo:.2f}; "
          f"median sample A {rate_a[len(rate_a) // 2]:.2f}, B {rate_b[len(rate_b) // 2]:.2f} M/s")
    for sample, (instr, ma, mb) in sorted(results.items(), key=lambda kv: -kv[1][1]):
        print(f"{sample:36} {instr:9.0f} warp-instr  A {ma:8.3f} ms {instr / ma / 1e3:6.2f} M/s"
              f"  B {mb:8.3f} ms {instr / mb / 1e3:6.2f} M/s  x{ma / mb:.2f}")


if __name__ == "__main__":
    main()
