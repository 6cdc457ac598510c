#!/usr/bin/env python3
"""Runs every corpus sample (ptx-samples/*/*/sample.json, each of its PTX
files) through `warpjit run --check CHECKS` with the sample's launch, as
tests/cli_samples.rs builds it, and lists the samples with reports: the
sanitizer's false-report count on correct code (docs/sanitizer.md).

Usage: python3 tools/corpus_check.py [CHECKS] [--warpjit PATH]
  CHECKS: racecheck (default), memcheck, initcheck, synccheck, all
Needs a built warpjit (default target/release/warpjit)."""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cli_arg(spec: str, d: str) -> str:
    kind, _, rest = spec.partition(":")
    absp = lambda p: os.path.join(d, p)
    if kind in ("in", "bytes"):
        return f"{kind}:{absp(rest)}"
    if kind == "inout":
        i, o = rest.split(":", 1)
        return f"inout:{absp(i)}:{o}"
    if kind in ("tex", "surf"):
        parts = rest.split(":")
        if len(parts) > 3 and parts[3] != "-":
            parts[3] = absp(parts[3])
        return f"{kind}:" + ":".join(parts)
    return spec


def main() -> None:
    args = sys.argv[1:]
    exe = os.path.join(ROOT, "target", "release", "warpjit")
    if "--warpjit" in args:
        i = args.index("--warpjit")
        exe = args[i + 1]
        del args[i : i + 2]
    checks = args[0] if args else "racecheck"
    files, reported = 0, []
    for sj in sorted(glob.glob(os.path.join(ROOT, "ptx-samples", "*", "*", "sample.json"))):
        d = os.path.dirname(sj)
        spec = json.load(open(sj))
        if spec.get("expect_error"):
            continue
        dims = lambda v: ",".join(str(x) for x in v)
        for ptx in spec.get("ptx", []):
            files += 1
            cmd = [exe, "run", os.path.join(d, ptx), "--check", checks, "--kernel", spec["kernel"]]
            if spec.get("cooperative"):
                cmd.append("--cooperative")
            if spec.get("cluster"):
                cmd += ["--cluster", dims(spec["cluster"])]
            cmd += ["--grid", dims(spec["grid"]), "--block", dims(spec["block"])]
            cmd += ["--shared", str(spec.get("shared_bytes", 0))]
            for a in spec.get("args", []):
                cmd += ["--arg", cli_arg(a, d)]
            for g in spec.get("globals", []):
                n, p = g.split("=", 1)
                cmd += ["--global", f"{n}={os.path.join(d, p)}"]
            with tempfile.TemporaryDirectory() as work:
                out = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
            m = re.search(r"ERROR SUMMARY: (\d+) error", out.stderr)
            n = int(m.group(1)) if m else -1
            name = os.path.relpath(os.path.join(d, ptx), os.path.join(ROOT, "ptx-samples"))
            if n != 0:
                kinds = sorted(set(re.findall(r"========= (?:Error: )?([A-Z][a-z]+ [a-z_]+[^(\n]*?)(?: \(| of|$)", out.stderr, re.M)))
                reported.append((name, n, kinds[:3]))
    print(f"{files} PTX files with --check {checks}: {len(reported)} with reports")
    for name, n, kinds in reported:
        what = "did not finish" if n < 0 else f"{n} report(s)"
        print(f"  {name}: {what} {'; '.join(kinds)}")


if __name__ == "__main__":
    main()
