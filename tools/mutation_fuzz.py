#!/usr/bin/env python3
"""Mutation fuzzer of the whole command line over the real PTX corpus.

Takes the corpus samples that say how to launch them (ptx-samples/*/*/sample.json),
mutates their PTX (lines deleted, duplicated or swapped; numbers replaced by
extremes; opcodes, types, registers and directives swapped for others of the
file or of the PTX dictionary; bytes flipped; truncation), and runs
`warpjit check FILE` and then, where that succeeds, `warpjit run` with the
sample's launch on either engine, each under a time limit and an address-space
limit. Every outcome must be a clean one: exit status 0, 1 or 2 (a result, a
diagnostic or a reported fault), never a signal, a panic, an abort or a
timeout. Offending inputs are kept in OUT with the command and its output.

Usage: python3 tools/mutation_fuzz.py [--count N] [--seed S] [--jobs J]
           [--timeout SECONDS] [--memory-gb G] [--out DIR] [--warpjit PATH]
           [--check CHECKS]

With --check (`all`, or a list as `warpjit run --check` takes), the launches
run the CPU compute-sanitizer's checks (its reports are a clean outcome).

The launched kernels stop on warpjit's own watchdog (WARPJIT_WATCHDOG_SECONDS,
set to half the time limit), so a mutated endless loop is a reported fault,
not a timeout. Prints a JSON summary on the last line.
"""
import argparse
import concurrent.futures as cf
import glob
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

EXTREMES = ["0", "1", "-1", "2147483647", "-2147483648", "4294967295", "4294967296",
            "9223372036854775807", "18446744073709551615", "0x7fffffff", "0xffffffffffffffff",
            "0f7F800000", "0fFFC00000", "0d7FF0000000000000", "1024", "65536", "100000000"]
TYPES = ["u8", "s8", "b8", "u16", "s16", "b16", "f16", "u32", "s32", "b32", "f32",
         "u64", "s64", "b64", "f64", "pred", "v2", "v4", "v8"]


def samples():
    out = []
    for meta in sorted(glob.glob(os.path.join(ROOT, "ptx-samples", "*", "*", "sample.json"))):
        with open(meta) as f:
            s = json.load(f)
        if len(s.get("ptx", [])) != 1:
            continue
        d = os.path.dirname(meta)
        with open(os.path.join(d, s["ptx"][0]), encoding="utf-8", errors="replace") as f:
            text = f.read()
        out.append((d, s, text))
    return out


def dictionary_tokens():
    toks = []
    with open(os.path.join(ROOT, "fuzz", "ptx.dict")) as f:
        for line in f:
            line = line.strip()
            if line.startswith('"') and line.endswith('"'):
                toks.append(line[1:-1].encode().decode("unicode_escape"))
    return toks or [".reg", "bar.sync", "ld.global"]


def mutate(rng, text, tokens):
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        if not lines:
            break
        k = rng.randrange(11)
        i = rng.randrange(len(lines))
        if k == 0:
            del lines[i]
        elif k == 1:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif k == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif k == 3:
            nums = list(re.finditer(r"(?<![%\w.$])-?(0[xX][0-9a-fA-F]+|0[fFdD][0-9a-fA-F]+|\d+)", lines[i]))
            if nums:
                m = rng.choice(nums)
                lines[i] = lines[i][: m.start()] + rng.choice(EXTREMES) + lines[i][m.end():]
        elif k == 4:
            m = list(re.finditer(r"\.(" + "|".join(TYPES) + r")\b", lines[i]))
            if m:
                x = rng.choice(m)
                lines[i] = lines[i][: x.start()] + "." + rng.choice(TYPES) + lines[i][x.end():]
        elif k == 5:
            regs = re.findall(r"%\w+", text)
            m = list(re.finditer(r"%\w+", lines[i]))
            if regs and m:
                x = rng.choice(m)
                lines[i] = lines[i][: x.start()] + rng.choice(regs) + lines[i][x.end():]
        elif k == 6:
            words = lines[i].split()
            other = lines[rng.randrange(len(lines))].split()
            if words and other:
                words[0] = other[0]
                lines[i] = "\t" + " ".join(words)
        elif k == 7:
            words = lines[i].split()
            pos = rng.randrange(len(words) + 1)
            words.insert(pos, rng.choice(tokens))
            lines[i] = "\t" + " ".join(words)
        elif k == 8:
            b = bytearray(lines[i].encode())
            if b:
                b[rng.randrange(len(b))] = rng.randrange(256)
            lines[i] = b.decode("utf-8", errors="replace")
        elif k == 9:
            # Truncate the module here.
            lines = lines[:i]
        else:
            # A line of another sample's shape: repeat one 2-20 times.
            lines[i:i] = [lines[i]] * rng.randint(2, 20)
    return "\n".join(lines)


def limit(memory_gb):
    def f():
        b = int(memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (b, b))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return f


def classify(cmd, timeout, memory_gb, env):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout, preexec_fn=limit(memory_gb),
                           env=env)
    except subprocess.TimeoutExpired:
        return "timeout", b""
    err = p.stderr
    if p.returncode < 0:
        return f"signal {-p.returncode}", err
    if b"panicked" in err or b"RUST_BACKTRACE" in err:
        return "panic", err
    if p.returncode not in (0, 1, 2):
        return f"exit {p.returncode}", err
    return ("ok" if p.returncode == 0 else "error"), err


def launch_args(sample_dir, s, work):
    args = []
    for a in s["args"]:
        parts = a.split(":")
        if parts[0] == "in":
            args.append("in:" + os.path.join(sample_dir, parts[1]))
        elif parts[0] == "out":
            args.append(f"out:{parts[1]}:" + os.path.join(work, "out.bin"))
        elif parts[0] == "inout":
            args.append("inout:" + os.path.join(sample_dir, parts[1]) + ":" + os.path.join(work, "out.bin"))
        elif parts[0] == "bytes":
            args.append("bytes:" + os.path.join(sample_dir, parts[1]))
        else:
            args.append(a)
    cmd = ["--grid", ",".join(map(str, s["grid"])), "--block", ",".join(map(str, s["block"])),
           "--shared", str(s.get("shared_bytes", 0))]
    for a in args:
        cmd += ["--arg", a]
    return cmd


def one(job):
    n, seed, (sample_dir, s, text), tokens, opts = job
    rng = random.Random(seed)
    mutated = mutate(rng, text, tokens)
    work = tempfile.mkdtemp(prefix=f"mut{n}-", dir=opts.tmp)
    path = os.path.join(work, "m.ptx")
    with open(path, "w", encoding="utf-8", errors="replace") as f:
        f.write(mutated)
    env = dict(os.environ, WARPJIT_WATCHDOG_SECONDS=str(max(1, opts.timeout // 2)))
    results = []
    cmd = [opts.warpjit, "check", path]
    kind, err = classify(cmd, opts.timeout, opts.memory_gb, env)
    results.append(("check", kind, cmd, err))
    if kind == "ok":
        engine = rng.choice(["jit", "interp"])
        cmd = [opts.warpjit, "run", path, "--kernel", s["kernel"], "--engine", engine] + launch_args(sample_dir, s, work)
        if opts.check:
            cmd += ["--check", opts.check]
        kind, err = classify(cmd, opts.timeout, opts.memory_gb, env)
        results.append(("run", kind, cmd, err))
    bad = [r for r in results if r[1] not in ("ok", "error")]
    if bad:
        keep = os.path.join(opts.out, f"case{n}")
        os.makedirs(keep, exist_ok=True)
        shutil.copy(path, os.path.join(keep, "m.ptx"))
        with open(os.path.join(keep, "what.txt"), "wb") as f:
            for stage, kind, cmd, err in bad:
                f.write(f"{stage}: {kind}\n{' '.join(cmd)}\n".encode() + err[-4000:] + b"\n")
    shutil.rmtree(work, ignore_errors=True)
    return [(stage, kind) for stage, kind, _, _ in results]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=int, default=10)
    ap.add_argument("--memory-gb", type=float, default=8.0)
    ap.add_argument("--out", default=os.path.join(ROOT, "target", "mutation-fuzz"))
    ap.add_argument("--warpjit", default=os.path.join(ROOT, "target", "release", "warpjit"))
    ap.add_argument("--check", default="", help="sanitizer checks for the launches (warpjit run --check)")
    opts = ap.parse_args()
    os.makedirs(opts.out, exist_ok=True)
    opts.tmp = tempfile.mkdtemp(prefix="warpjit-mutation-")
    corpus = samples()
    tokens = dictionary_tokens()
    rng = random.Random(opts.seed)
    jobs = [(n, rng.randrange(2**63), rng.choice(corpus), tokens, opts) for n in range(opts.count)]
    counts = {}
    with cf.ThreadPoolExecutor(opts.jobs) as ex:
        for i, res in enumerate(ex.map(one, jobs, chunksize=8)):
            for stage, kind in res:
                counts[f"{stage} {kind}"] = counts.get(f"{stage} {kind}", 0) + 1
            if (i + 1) % 1000 == 0:
                print(f"{i + 1} files: {counts}", file=sys.stderr, flush=True)
    shutil.rmtree(opts.tmp, ignore_errors=True)
    bad = {k: v for k, v in counts.items() if not (k.endswith(" ok") or k.endswith(" error"))}
    print(json.dumps({"files": opts.count, "samples": len(corpus), "seed": opts.seed,
                      "outcomes": counts, "bad": bad, "kept": opts.out}))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
