#!/usr/bin/env python3
"""The hardware calibration kit: time every corpus sample and fidelity run on a real GPU.

    python3 ptx-samples/gen/hw_calibrate.py --out $OUT/h100.json [FILTER...]
    python3 ptx-samples/gen/hw_calibrate.py --self-test        # no GPU: against warpjit's libcuda

Needs only Python 3 (standard library, ctypes) and the GPU driver's libcuda.so.1 (no pip,
no nvcc, no network). For each sample.json under ptx-samples/{cuda,triton,numba,clang}
(each of its PTX files whose .target the GPU supports) and each [[run]] of
ptx-samples/fidelity/runs.toml, it loads the PTX through the driver API, prepares the
launch exactly as described (ptx-samples/README.md, ptx-samples/fidelity/README.md),
launches once untimed (warm-up: lazy loading, first-touch), then REPS times with CUDA
events around each timed launch, and writes one JSON file (schema below). It also records
the device (driver attributes, nvidia-smi clocks before and after), each kernel's
attributes as the driver compiled it (registers, shared/local bytes), its occupancy, the
[[run.read]] values of fidelity runs (clock64 cycle counts) and whether each sample's
outputs match its reference. FILTER words select items whose id ("cuda/vector_add",
"fidelity/babelstream_copy_f64") contains any of them. Prints one line per item and a
summary; exit status 0 when every selected item ran and every checked output matched.
Not run (recorded as "skipped", with the reason): samples with "expect_error" (they fail
or hang on purpose; gpu_check.py checks them) and PTX whose .target the device cannot run
(sm_90a below or above compute capability 9.0, sm_90 below 9.0). Sample printf output is
discarded (not compared). The defaults take well under a minute on an H100 for today's
corpus (estimated: about 80 items of a few launches each; most of the time is the
driver's PTX compilation); the summary prints the elapsed time.

Repetitions. A sample's every timed launch starts from the sample's initial state: before
each repetition its argument buffers are zeroed and refilled from their files, its
texture and surface contents rewritten and its globals rewritten (samples may modify
their inputs: inout buffers, atomics into outputs, in-place sorts, surface writes); the
refill is outside the timed interval, so the inputs are freshly written (and small:
likely L2-resident). Arguments, texture and surface objects (`tex:`/`surf:`, made before
the first launch and destroyed after the item) and the launch itself (cuLaunchKernel,
cuLaunchCooperativeKernel for "cooperative", cuLaunchKernelEx for "cluster") are
gpu_check.py's. The outputs checked against the reference are
those of the last repetition. A fidelity run's buffers are filled once; each repetition
(the warm-up included) runs the run's whole launch sequence in order, untimed launches
too; its time is the sum of its timed launches' event times, and its reads are taken
after each repetition.

Timing. Work goes to the legacy stream. Each timed launch is enqueued as: a host function
that holds the stream (a "gate"), event record, the launch, event record; then the gate
is released, so the GPU starts the interval with the launch already queued and the host's
launch latency is not in the interval (the warm-up launch is not gated: a lazily loaded
function loads there). If the driver refuses host functions, or a gate is not reached in
GATE_TIMEOUT_S, gating is off for the rest of that worker (recorded as "gated": false).
An empty kernel is timed the same way ("baseline"). Before timing, a spin kernel
(%globaltimer, one warp per SM) runs --warmup-s once per worker and --spin-ms before each
item, so the clocks are up. Where NVML (libnvidia-ml.so.1) loads, the SM and memory
clocks, temperature, power and clock-event reasons are read after each item.

Isolation. Items run one at a time (timing never overlaps) in a worker process (this
script with --worker) that keeps its CUDA context across items: after each item it frees
the buffers, unloads the module and synchronizes the context. A failed item is recorded
and the worker goes on; if the context is poisoned (a kernel fault is sticky) the worker
exits and a fresh one continues with the next item. An item that runs longer than
--timeout seconds (a hang) is killed with its worker and recorded as "timeout"; a worker
that dies is recorded as "crashed" for the item it was running. --one-per-process runs
each item in its own worker.

JSON schema "warpjit-hwcal/1" (times in milliseconds; "…" elides; keys marked "?" may be
absent):
{
  "schema": "warpjit-hwcal/1",
  "complete": true,                 # false in the partial file rewritten after each item
  "date": "2026-11-24T10:00:00Z",   # UTC, at the start
  "elapsed_s": 31.2,
  "tool": {"script": "ptx-samples/gen/hw_calibrate.py", "git_commit": "…" | null,
           "git_dirty": false | null, "python": "3.11.7", "argv": [...]},
  "host": {"hostname": "…", "platform": "Linux-…"},
  "options": {"reps": 10, "warmup_s": 0.5, "spin_ms": 10.0, "timeout_s": 30, "scale": 1,
              "filters": [], "one_per_process": false, "libcuda": null, "gate": true,
              "runs_files": ["ptx-samples/fidelity/runs.toml"]},
  "device": {"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sm_count": 132,
             "clock_rate_khz": 1980000, "memory_clock_rate_khz": 2619000,
             "memory_bus_width_bits": 5120, "l2_cache_bytes": 52428800,
             "total_memory_bytes": …, "driver_version": 12040, "ecc_enabled": 1,
             "pci_bus_id": "0000:…" | null,
             "attributes": {"MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": 233472, …},  # DEVICE_ATTRS
             "nvml": {"max_sm_clock_mhz": 1980, "max_mem_clock_mhz": 2619} | null,
             "nvidia_smi": {"before": {"clocks.sm": "1980 MHz", …, "time": "…"} | null,
                            "after": … | null}},          # NVIDIA_SMI_FIELDS, as printed
  "baseline": {"kernel": "hwcal_empty", "grid": [1, 1, 1], "block": [32, 1, 1],
               "times_ms": [...], "min_ms": …, "median_ms": …, "gated": true},
  "samples": [{                     # one per (sample, PTX file), in corpus order
      "id": "cuda/vector_add", "ptx": "kernel.compute_80.ptx",
      "status": "ok" | "error" | "skipped" | "timeout" | "crashed",
      "error"?: "…", "cuda_error"?: 700, "reason"?: "…" (skipped), "stderr"?: "…",
      "context_poisoned"?: "…",     # the worker was replaced after this item
      "ptx_sha256": "…", "ptx_target": "sm_80", "ptx_version_patched"?: "8.8 -> 8.5",
      "launch": {"kernel": "vector_add", "grid": [4, 1, 1], "block": [256, 1, 1],
                 "shared_bytes": 0, "args": ["in:a.bin", …], "globals"?: [...],
                 "cooperative"?: true, "cluster"?: [2, 1, 1]},
      "func": {"num_regs": 10, "shared_size_bytes": 0, "local_size_bytes": 0,
               "const_size_bytes": 0, "max_threads_per_block": 1024, "ptx_version": 80,
               "binary_version": 90, "max_active_blocks_per_sm": 8},  # as the driver built it
      "warmup_ms": …, "times_ms": [...], "min_ms": …, "median_ms": …, "gated": true,
      "check": {"status": "pass" | "fail" | "none", "stdout"?: "not checked …",
                "files": [{"file": "c.bin", "ok": true, "mismatches": 0, "n": 1000,
                           "first"?: [[index, got, want], …]}]},
      "clocks_after": {"sm_clock_mhz": 1980, "mem_clock_mhz": 2619, "temp_c": 40,
                       "power_w": 120.5, "clocks_event_reasons": "0x0"} | null,  # NVML
      "seconds": 0.12}],            # the item's wall time in the worker
  "runs": [{                        # one per [[run]], in file order
      "id": "fidelity/babelstream_copy_f64", "name": "babelstream_copy_f64",
      "runs_file": "ptx-samples/fidelity/runs.toml",
      "ptx": "ptx-samples/fidelity/kernels.compute_80.ptx", "ptx_sha256": "…",
      "ptx_target": "sm_80", "status": …, "error"?: …,
      "buffers": [{"name": "a", "bytes": 268435456, "fill": "f64:0.1",
                   "bytes_spec"?: "65536*sm"}, …],   # bytes resolved; the spec where not a number
      "launches": [{"kernel": "stream_dot_f64", "grid": [528, 1, 1], "block": [1024, 1, 1],
                    "shared_bytes": 8192, "args": ["buf:a", …, "u64:33554432"], "timed": true,
                    "shared_bytes_spec"?: "occupancy:2",  # shared_bytes resolved from it
                    "func": {…}}],  # "K*sm" resolved with the device's SM count
      "warmup_ms": …,               # the warm-up repetition's timed launches
      "times_ms": [...],            # per repetition: the sum of its timed launches
      "launch_times_ms": [[...]],   # per repetition, per timed launch
      "min_ms": …, "median_ms": …, "gated": true,
      "reads": [{"name": "cycles", "buffer": "out", "type": "u64", "index": 0,
                 "values": [...]}],  # [[run.read]] as written, plus one value per repetition
      "clocks_after": …, "seconds": …}],
  "summary": {"items": 83, "ok": 82, "error": 0, "timeout": 0, "crashed": 0,
              "skipped": 1, "check_pass": 75, "check_fail": 0}
}

--scale N (the CPU self-test only; refused unless the device is warpjit's) divides, in
fidelity runs, buffer sizes and integer scalar arguments of at least 2^20 and literal grid
dimensions of at least 2^10 by N (where N divides them), so that the runs take less of a
CPU's time. It is recorded in "options" and never used for real measurements.

--self-test skips the fidelity runs marked selftest = "skip" in their runs file (runs too
large for the shim's 1 GiB of device memory or too slow on a CPU at full size; a GPU runs
them) and builds warpjit's libcuda.so (cargo build --release -p warpjit-cuda, unless
--libcuda names one), puts it in a temporary directory as libcuda.so.1 on
LD_LIBRARY_PATH, sets WARPJIT_ARCH=sm_90 (an H100-like device: compute capability 9.0,
132 SMs), runs every item at full size with --reps 2 and short warm-ups, plus the runs of
ptx-samples/gen/hwcal-selftest-runs.toml (every runs.toml feature, with expected reads),
and checks the JSON: every item ok (or skipped with a reason), every sample's outputs
match, every read has its values (and its "expect"/"min" where the file gives them).
Times are the CPU's and mean nothing.
"""
import argparse
import datetime
import hashlib
import json
import os
import platform
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import ctypes

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpu_check as gc  # noqa: E402
import minitoml  # noqa: E402

SCHEMA = "warpjit-hwcal/1"
SAMPLES = gc.ROOT                       # ptx-samples/
REPO = os.path.dirname(SAMPLES)
FIDELITY = os.path.join(SAMPLES, "fidelity")
RUNS_TOML = os.path.join(FIDELITY, "runs.toml")
SELFTEST_RUNS = os.path.join(HERE, "hwcal-selftest-runs.toml")
GATE_TIMEOUT_S = 5.0

# Device attributes recorded (CUdevice_attribute values from cuda.h).
DEVICE_ATTRS = [
    ("MAX_THREADS_PER_BLOCK", 1), ("MAX_SHARED_MEMORY_PER_BLOCK", 8),
    ("TOTAL_CONSTANT_MEMORY", 9), ("WARP_SIZE", 10), ("MAX_REGISTERS_PER_BLOCK", 12),
    ("CLOCK_RATE", 13), ("MULTIPROCESSOR_COUNT", 16), ("KERNEL_EXEC_TIMEOUT", 17),
    ("COMPUTE_MODE", 20), ("CONCURRENT_KERNELS", 31), ("ECC_ENABLED", 32),
    ("PCI_BUS_ID", 33), ("PCI_DEVICE_ID", 34), ("MEMORY_CLOCK_RATE", 36),
    ("GLOBAL_MEMORY_BUS_WIDTH", 37), ("L2_CACHE_SIZE", 38),
    ("MAX_THREADS_PER_MULTIPROCESSOR", 39), ("ASYNC_ENGINE_COUNT", 40),
    ("PCI_DOMAIN_ID", 50), ("COMPUTE_CAPABILITY_MAJOR", 75), ("COMPUTE_CAPABILITY_MINOR", 76),
    ("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR", 81), ("MAX_REGISTERS_PER_MULTIPROCESSOR", 82),
    ("SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO", 87), ("COOPERATIVE_LAUNCH", 95),
    ("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", 97), ("MAX_BLOCKS_PER_MULTIPROCESSOR", 106),
    ("MAX_PERSISTING_L2_CACHE_SIZE", 108), ("RESERVED_SHARED_MEMORY_PER_BLOCK", 111),
    ("CLUSTER_LAUNCH", 120),
]
# CUfunction_attribute values.
FUNC_ATTRS = [
    ("max_threads_per_block", 0), ("shared_size_bytes", 1), ("const_size_bytes", 2),
    ("local_size_bytes", 3), ("num_regs", 4), ("ptx_version", 5), ("binary_version", 6),
]
NVIDIA_SMI_FIELDS = [
    "name", "driver_version", "pstate", "clocks.sm", "clocks.mem", "clocks.max.sm",
    "clocks.max.mem", "clocks.applications.graphics", "clocks.applications.memory",
    "temperature.gpu", "power.draw", "power.limit", "ecc.mode.current", "persistence_mode",
    "clocks_throttle_reasons.active", "memory.total", "pci.bus_id",
]

# Kernels of the kit itself: an empty one (the baseline) and a spin on %globaltimer
# (warms the clocks up; its parameter is nanoseconds).
KIT_PTX = r"""
.version 6.0
.target sm_50
.address_size 64

.visible .entry hwcal_empty()
{
	ret;
}

.visible .entry hwcal_spin(.param .u64 hwcal_spin_ns)
{
	.reg .pred 	%p<2>;
	.reg .b64 	%rd<5>;
	ld.param.u64 	%rd1, [hwcal_spin_ns];
	mov.u64 	%rd2, %globaltimer;
$L__spin:
	mov.u64 	%rd3, %globaltimer;
	sub.s64 	%rd4, %rd3, %rd2;
	setp.lt.u64 	%p1, %rd4, %rd1;
	@%p1 bra 	$L__spin;
	ret;
}
"""


# ----------------------------------------------------------------------------------
# items

def list_items(filters, runs_files=(RUNS_TOML,)):
    """Every sample (sample, ptx) pair and fidelity run, as JSON-able dicts, in order.
    A run's PTX path is relative to its runs file."""
    items = []
    for key, sdir, spec, ptx in gc.list_samples(None):
        items.append({"kind": "sample", "id": key, "sdir": sdir, "ptx": ptx})
    seen = set()
    for path in runs_files:
        for run in minitoml.load(path).get("run", []):
            rid = "fidelity/" + run["name"]
            if rid in seen:
                raise ValueError("run %s defined twice (%s)" % (run["name"], path))
            seen.add(rid)
            items.append({"kind": "run", "id": rid, "run": run,
                          "runs_file": os.path.relpath(os.path.abspath(path), REPO),
                          "ptx_path": os.path.join(os.path.dirname(os.path.abspath(path)), run["ptx"])})
    if filters:
        items = [it for it in items if any(f in it["id"] for f in filters)]
    return items


def parent_skip_reason(item, self_test=False):
    """Items not run at all (decided without a GPU)."""
    if item["kind"] == "sample":
        spec = json.load(open(os.path.join(item["sdir"], "sample.json")))
        if spec.get("expect_error"):
            return ("expect_error sample (a kernel that fails or hangs on purpose: nothing "
                    "to time; gpu_check.py checks it)")
    elif self_test and item["run"].get("selftest") == "skip":
        return ('selftest = "skip": too large or too slow for the CPU self-test (warpjit\'s '
                "libcuda); tests/fidelity_runs.rs checks its kernels on smaller problems")
    return None


def scale_run(run, n):
    """--scale (self-test only): a smaller copy of a fidelity run."""
    def big(v, floor):
        return v // n if isinstance(v, int) and v >= floor and v % n == 0 else v
    run = json.loads(json.dumps(run))
    for b in run.get("buffers", []):
        b["bytes"] = big(b["bytes"], 1 << 20)
    for la in run.get("launch", []):
        la["grid"] = [big(g, 1 << 10) for g in la["grid"]]
        args = []
        for a in la.get("args", []):
            ty, _, val = a.partition(":")
            if ty in gc.SCALAR_FMT and not ty.startswith("f") and re.match(r"^-?(0x)?[0-9a-fA-F]+$", val):
                v = big(int(val, 0), 1 << 20)
                a = "%s:%d" % (ty, v) if v != int(val, 0) else a
            args.append(a)
        la["args"] = args
    return run


def ptx_target(text):
    m = re.search(r"^\s*\.target\s+([A-Za-z0-9_]+)", text, re.M)
    return m.group(1) if m else None


def target_supported(target, cc):
    """Whether PTX for `target` (sm_80, sm_90a, sm_100f) runs on compute capability cc."""
    m = re.match(r"sm_(\d+)([af]?)$", target or "")
    if not m:
        return True  # let the driver decide
    num, suffix = int(m.group(1)), m.group(2)
    want = (num // 10, num % 10)
    if suffix == "a":
        return cc == want
    if suffix == "f":
        return cc[0] == want[0] and cc >= want
    return cc >= want


# ----------------------------------------------------------------------------------
# driver (worker side)

HOSTFN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class Driver(gc.Cuda):
    """gpu_check's driver binding plus what timing needs."""

    def __init__(self, path=None):
        gc.Cuda.__init__(self, path)
        L = self.lib
        vp = ctypes.c_void_p
        L.cuDeviceGetAttribute.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_int]
        L.cuDeviceTotalMem_v2.argtypes = [ctypes.POINTER(ctypes.c_size_t), ctypes.c_int]
        L.cuDeviceGetPCIBusId.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
        L.cuFuncGetAttribute.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_int, vp]
        L.cuOccupancyMaxActiveBlocksPerMultiprocessor.argtypes = [
            ctypes.POINTER(ctypes.c_int), vp, ctypes.c_int, ctypes.c_size_t]
        L.cuEventCreate.argtypes = [ctypes.POINTER(vp), ctypes.c_uint]
        L.cuEventRecord.argtypes = [vp, vp]
        L.cuEventSynchronize.argtypes = [vp]
        L.cuEventElapsedTime.argtypes = [ctypes.POINTER(ctypes.c_float), vp, vp]
        L.cuLaunchHostFunc.argtypes = [vp, HOSTFN, vp]
        L.cuMemsetD32_v2.argtypes = [ctypes.c_uint64, ctypes.c_uint, ctypes.c_size_t]
        L.cuModuleUnload.argtypes = [vp]

    def attr(self, attr, dev):
        v = ctypes.c_int()
        rc = self.lib.cuDeviceGetAttribute(ctypes.byref(v), attr, dev)
        return v.value if rc == 0 else None

    def alloc(self, n):
        p = ctypes.c_uint64()
        self.check(self.lib.cuMemAlloc_v2(ctypes.byref(p), max(n, 1)), "cuMemAlloc(%d)" % n)
        return p.value

    def get_function(self, mod, name):
        f = ctypes.c_void_p()
        self.check(self.lib.cuModuleGetFunction(ctypes.byref(f), mod, name.encode()),
                   "cuModuleGetFunction(%s)" % name)
        return f

    def func_info(self, func, block, shared):
        out = {}
        v = ctypes.c_int()
        for name, a in FUNC_ATTRS:
            if self.lib.cuFuncGetAttribute(ctypes.byref(v), a, func) == 0:
                out[name] = v.value
        threads = block[0] * block[1] * block[2]
        if self.lib.cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(v), func, threads,
                                                                 shared) == 0:
            out["max_active_blocks_per_sm"] = v.value
        return out


def device_info(cu, dev):
    L = cu.lib
    name = ctypes.create_string_buffer(256)
    L.cuDeviceGetName(name, 256, dev)
    ver = ctypes.c_int()
    L.cuDriverGetVersion(ctypes.byref(ver))
    attrs = {}
    for aname, a in DEVICE_ATTRS:
        attrs[aname] = cu.attr(a, dev)
    mem = ctypes.c_size_t()
    total = mem.value if L.cuDeviceTotalMem_v2(ctypes.byref(mem), dev) == 0 else None
    bus = ctypes.create_string_buffer(64)
    pci = bus.value.decode() if L.cuDeviceGetPCIBusId(bus, 64, dev) == 0 else None
    return {
        "name": name.value.decode(),
        "compute_capability": "%s.%s" % (attrs["COMPUTE_CAPABILITY_MAJOR"],
                                         attrs["COMPUTE_CAPABILITY_MINOR"]),
        "sm_count": attrs["MULTIPROCESSOR_COUNT"],
        "clock_rate_khz": attrs["CLOCK_RATE"],
        "memory_clock_rate_khz": attrs["MEMORY_CLOCK_RATE"],
        "memory_bus_width_bits": attrs["GLOBAL_MEMORY_BUS_WIDTH"],
        "l2_cache_bytes": attrs["L2_CACHE_SIZE"],
        "total_memory_bytes": total,
        "driver_version": ver.value,
        "ecc_enabled": attrs["ECC_ENABLED"],
        "pci_bus_id": pci,
        "attributes": attrs,
    }


class Nvml:
    """Clocks from NVML where libnvidia-ml.so.1 loads; every failure just leaves a value out."""

    def __init__(self, pci_bus_id):
        self.h = None
        try:
            lib = ctypes.CDLL("libnvidia-ml.so.1")
            if lib.nvmlInit_v2() != 0:
                return
            h = ctypes.c_void_p()
            rc = 1
            if pci_bus_id:
                rc = lib.nvmlDeviceGetHandleByPciBusId_v2(pci_bus_id.encode(), ctypes.byref(h))
            if rc != 0:
                rc = lib.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(h))
            if rc == 0:
                self.lib, self.h = lib, h
        except Exception:  # noqa: no NVML (the CPU self-test) or an odd one
            self.h = None

    def max_clocks(self):
        if not self.h:
            return None
        out = {}
        v = ctypes.c_uint()
        try:
            for key, clk in (("max_sm_clock_mhz", 1), ("max_mem_clock_mhz", 2)):
                if self.lib.nvmlDeviceGetMaxClockInfo(self.h, clk, ctypes.byref(v)) == 0:
                    out[key] = v.value
        except Exception:  # noqa
            pass
        return out

    def sample(self):
        if not self.h:
            return None
        out = {}
        v = ctypes.c_uint()
        try:
            for key, clk in (("sm_clock_mhz", 1), ("mem_clock_mhz", 2)):  # NVML_CLOCK_SM, _MEM
                if self.lib.nvmlDeviceGetClockInfo(self.h, clk, ctypes.byref(v)) == 0:
                    out[key] = v.value
            if self.lib.nvmlDeviceGetTemperature(self.h, 0, ctypes.byref(v)) == 0:
                out["temp_c"] = v.value
            if self.lib.nvmlDeviceGetPowerUsage(self.h, ctypes.byref(v)) == 0:
                out["power_w"] = v.value / 1000.0
            r = ctypes.c_ulonglong()
            fn = (getattr(self.lib, "nvmlDeviceGetCurrentClocksEventReasons", None)
                  or getattr(self.lib, "nvmlDeviceGetCurrentClocksThrottleReasons", None))
            if fn is not None and fn(self.h, ctypes.byref(r)) == 0:
                out["clocks_event_reasons"] = hex(r.value)
        except Exception:  # noqa
            pass
        return out


class Timer:
    """Times launches with CUDA events on the legacy stream, each timed launch behind a
    host-function gate (module docstring)."""

    def __init__(self, cu, gate=True):
        self.cu = cu
        self.gate = gate
        self.events = []
        self.pending = {}
        self.lock = threading.Lock()
        self.next_key = 1
        self.gate_timed_out = False
        self.hostfn = HOSTFN(self._gate_fn)

    def _gate_fn(self, key):
        with self.lock:
            ev = self.pending.pop(key or 0, None)
        if ev is not None and not ev.wait(GATE_TIMEOUT_S):
            self.gate_timed_out = True

    def _hold(self):
        if not self.gated:
            return None
        with self.lock:
            key = self.next_key
            self.next_key += 1
            ev = threading.Event()
            self.pending[key] = ev
        if self.cu.lib.cuLaunchHostFunc(None, self.hostfn, key) != 0:
            with self.lock:
                self.pending.pop(key, None)
            self.gate = False  # the driver offers no host functions: time without gates
            return None
        return ev

    def _event(self, i):
        while len(self.events) <= i:
            e = ctypes.c_void_p()
            self.cu.check(self.cu.lib.cuEventCreate(ctypes.byref(e), 0), "cuEventCreate")
            self.events.append(e)
        return self.events[i]

    def run(self, steps, gated=True):
        """steps: [(enqueue_fn, timed)], enqueue_fn() -> CUresult. Enqueues them in order,
        waits for the end, returns the timed steps' milliseconds; raises CudaError on a
        failed launch or a kernel fault."""
        L = self.cu.lib
        released = []
        marks = []
        err = None
        try:
            for fn, timed in steps:
                if not timed:
                    rc = fn()
                    if rc != 0:
                        err = (rc, "launch")
                        break
                    continue
                ev = self._hold() if gated else None
                e0, e1 = self._event(2 * len(marks)), self._event(2 * len(marks) + 1)
                self.cu.check(L.cuEventRecord(e0, None), "cuEventRecord")
                rc = fn()
                self.cu.check(L.cuEventRecord(e1, None), "cuEventRecord")
                if ev is not None:
                    ev.set()
                    released.append(ev)
                if rc != 0:
                    err = (rc, "launch")
                    break
                marks.append((e0, e1))
        finally:
            with self.lock:
                for ev in self.pending.values():
                    ev.set()
        rc = L.cuCtxSynchronize()
        if err is None and rc != 0:
            err = (rc, "synchronize (the kernel failed)")
        if err is not None:
            raise gc.CudaError(err[0], "%s: %s" % (err[1], self.cu.errname(err[0])))
        out = []
        ms = ctypes.c_float()
        for e0, e1 in marks:
            self.cu.check(L.cuEventElapsedTime(ctypes.byref(ms), e0, e1), "cuEventElapsedTime")
            out.append(float(ms.value))
        return out

    @property
    def gated(self):
        return self.gate and not self.gate_timed_out


def stats(res, times):
    res["times_ms"] = [round(t, 6) for t in times]
    if times:
        res["min_ms"] = round(min(times), 6)
        res["median_ms"] = round(statistics.median(times), 6)


def file_sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


# ----------------------------------------------------------------------------------
# worker: one CUDA context, items in order

class Worker:
    def __init__(self, opts, out):
        self.opts = opts
        self.out = out
        self.cu = Driver(opts.get("libcuda"))
        dev = gc.open_device(self.cu, {})
        self.device = device_info(self.cu, dev)
        self.cc = (self.device["attributes"]["COMPUTE_CAPABILITY_MAJOR"] or 0,
                   self.device["attributes"]["COMPUTE_CAPABILITY_MINOR"] or 0)
        self.sm = self.device["sm_count"] or 1
        if opts.get("scale", 1) != 1 and not self.device["name"].startswith("warpjit"):
            raise RuntimeError("--scale is for the CPU self-test against warpjit's libcuda, "
                               "not for %s" % self.device["name"])
        self.nvml = Nvml(self.device["pci_bus_id"])
        self.device["nvml"] = self.nvml.max_clocks()
        self.timer = Timer(self.cu, gate=opts.get("gate", True))
        self.kit = gc.load_module(self.cu, KIT_PTX, {})
        self.empty = self.cu.get_function(self.kit, "hwcal_empty")
        self.spin_fn = self.cu.get_function(self.kit, "hwcal_spin")

    def emit(self, obj):
        self.out.write(json.dumps(obj) + "\n")
        self.out.flush()

    def spin(self, seconds):
        if seconds <= 0:
            return
        arg = ctypes.create_string_buffer(struct.pack("<Q", int(seconds * 1e9)), 8)
        params = (ctypes.c_void_p * 1)(ctypes.cast(arg, ctypes.c_void_p))
        L = self.cu.lib
        self.cu.check(L.cuLaunchKernel(self.spin_fn, self.sm, 1, 1, 32, 1, 1, 0, None, params, None),
                      "cuLaunchKernel(hwcal_spin)")
        self.cu.check(L.cuCtxSynchronize(), "cuCtxSynchronize(hwcal_spin)")

    def baseline(self):
        L = self.cu.lib

        def launch():
            return L.cuLaunchKernel(self.empty, 1, 1, 1, 32, 1, 1, 0, None, None, None)
        res = {"kernel": "hwcal_empty", "grid": [1, 1, 1], "block": [32, 1, 1]}
        self.timer.run([(launch, True)], gated=False)
        times = []
        for _ in range(self.opts["reps"]):
            times += self.timer.run([(launch, True)])
        stats(res, times)
        res["gated"] = self.timer.gated
        return res

    def start(self):
        self.spin(self.opts["warmup_s"])
        self.emit({"event": "device", "device": self.device, "baseline": self.baseline()})

    def finish_item(self, res, cleanup):
        """Frees what the item used; returns False when the context is unusable."""
        ok = True
        for fn in cleanup:
            try:
                fn()
            except Exception as e:  # noqa
                res.setdefault("cleanup_errors", []).append(str(e))
        rc = self.cu.lib.cuCtxSynchronize()
        if rc != 0:
            res["context_poisoned"] = self.cu.errname(rc)
            ok = False
        return ok

    def run_item(self, item):
        res = {"id": item["id"], "status": "ok"}
        cleanup = []
        t0 = time.time()
        try:
            if item["kind"] == "sample":
                self.sample(item, res, cleanup)
            else:
                self.fidelity(item, res, cleanup)
        except gc.CudaError as e:
            res["status"] = "error"
            res["error"] = str(e)
            res["cuda_error"] = e.rc
        except Exception as e:  # noqa
            res["status"] = "error"
            res["error"] = "%s: %s" % (type(e).__name__, e)
        ok = self.finish_item(res, cleanup)
        res["clocks_after"] = self.nvml.sample()
        res["seconds"] = round(time.time() - t0, 3)
        return res, ok

    def load(self, path, res, cleanup):
        with open(path) as f:
            text = f.read()
        res["ptx_sha256"] = file_sha256(text)
        res["ptx_target"] = ptx_target(text)
        if not target_supported(res["ptx_target"], self.cc):
            res["status"] = "skipped"
            res["reason"] = "PTX for %s; the device is compute capability %d.%d" % (
                (res["ptx_target"],) + self.cc)
            return None
        log = {}
        try:
            mod = gc.load_module(self.cu, text, log)
        finally:
            if "ptx_version_patched" in log:
                res["ptx_version_patched"] = log["ptx_version_patched"]
            if "jit_errors" in log:
                res["jit_errors"] = log["jit_errors"]
        cleanup.append(lambda: self.cu.lib.cuModuleUnload(mod))
        return mod

    def sample(self, item, res, cleanup):
        sdir = item["sdir"]
        spec = json.load(open(os.path.join(sdir, "sample.json")))
        res["ptx"] = item["ptx"]
        shared = int(spec.get("shared_bytes", 0))
        res["launch"] = {"kernel": spec["kernel"], "grid": spec["grid"], "block": spec["block"],
                         "shared_bytes": shared, "args": spec["args"]}
        if spec.get("globals"):
            res["launch"]["globals"] = spec["globals"]
        for key in ("cooperative", "cluster"):
            if spec.get(key):
                res["launch"][key] = spec[key]
        mod = self.load(os.path.join(sdir, item["ptx"]), res, cleanup)
        if mod is None:
            return
        func = self.cu.get_function(mod, spec["kernel"])
        setup = gc.SampleSetup(self.cu, mod, sdir, spec, snapshot_globals_out=True)
        cleanup.insert(0, setup.free)
        if shared > 48 * 1024:
            # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES before the occupancy query
            self.cu.check(self.cu.lib.cuFuncSetAttribute(func, 8, shared), "cuFuncSetAttribute")
            setup.opted_in.add(func.value)
        res["func"] = self.cu.func_info(func, spec["block"], shared)
        step = [(lambda: setup.launch(func), True)]
        self.spin(self.opts["spin_ms"] / 1000.0)
        res["warmup_ms"] = round(self.timer.run(step, gated=False)[0], 6)
        times = []
        for _ in range(self.opts["reps"]):
            setup.reset()
            times += self.timer.run(step)
        stats(res, times)
        res["gated"] = self.timer.gated
        res["check"] = check_outputs(sdir, spec, setup.read_outputs())

    def fidelity(self, item, res, cleanup):
        run = item["run"]
        res["name"] = run["name"]
        if "expect_status" in run:  # self-test runs that must fail
            res["expect_status"] = run["expect_status"]
        res["runs_file"] = item["runs_file"]
        res["ptx"] = os.path.relpath(item["ptx_path"], REPO)
        res["buffers"] = [{"name": b["name"], "bytes": b["bytes"], "fill": b.get("fill", "zero")}
                          for b in run.get("buffers", [])]
        mod = self.load(item["ptx_path"], res, cleanup)
        if mod is None:
            return
        bufs = {}
        for b, rb in zip(run.get("buffers", []), res["buffers"]):
            if b["name"] in bufs:
                raise ValueError("buffer %s defined twice" % b["name"])
            nbytes = resolve_int(b["bytes"], self.sm)
            if nbytes != b["bytes"]:
                rb["bytes"], rb["bytes_spec"] = nbytes, b["bytes"]
            d = self.cu.alloc(nbytes)
            bufs[b["name"]] = (d, nbytes)
            cleanup.insert(0, lambda d=d: self.cu.lib.cuMemFree_v2(d))
            fill_buffer(self.cu, d, nbytes, b.get("fill", "zero"))
        steps = []
        res["launches"] = []
        keep = []
        for la in run.get("launch", []):
            grid = [resolve_int(g, self.sm) for g in la["grid"]]
            block = [int(x) for x in la["block"]]
            args, params, hold = resolve_args(la.get("args", []), bufs, self.sm)
            keep.append(hold)
            func = self.cu.get_function(mod, la["kernel"])
            spec = la.get("shared_bytes", 0)
            target = occupancy_target(spec)
            if target is None:
                shared = int(spec)
            else:
                static = ctypes.c_int()
                self.cu.check(self.cu.lib.cuFuncGetAttribute(ctypes.byref(static), 1, func),
                              "cuFuncGetAttribute(SHARED_SIZE_BYTES)")
                shared = occupancy_shared(self.device["attributes"], self.cc, target, static.value)
                if self.cc >= (7, 0):
                    # CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: all shared memory, so
                    # that the K blocks the computation assumes fit
                    self.cu.check(self.cu.lib.cuFuncSetAttribute(func, 9, 100), "cuFuncSetAttribute")
            if shared > 48 * 1024:
                self.cu.check(self.cu.lib.cuFuncSetAttribute(func, 8, shared), "cuFuncSetAttribute")
            entry = {"kernel": la["kernel"], "grid": grid, "block": block,
                     "shared_bytes": shared, "args": args,
                     "timed": bool(la.get("timed", False)),
                     "func": self.cu.func_info(func, block, shared)}
            if target is not None:
                entry["shared_bytes_spec"] = spec
            res["launches"].append(entry)

            def launch(func=func, grid=grid, block=block, shared=shared, params=params):
                return self.cu.lib.cuLaunchKernel(func, grid[0], grid[1], grid[2], block[0],
                                                  block[1], block[2], shared, None, params, None)
            steps.append((launch, bool(la.get("timed", False))))
        reads = [dict(r, values=[]) for r in run.get("read", [])]
        for r in reads:
            if r["buffer"] not in bufs:
                raise ValueError("read %s: no buffer %s" % (r["name"], r["buffer"]))
        self.spin(self.opts["spin_ms"] / 1000.0)
        res["warmup_ms"] = round(sum(self.timer.run(steps, gated=False)), 6)
        times, per_launch = [], []
        for _ in range(self.opts["reps"]):
            t = self.timer.run(steps)
            per_launch.append([round(x, 6) for x in t])
            times.append(sum(t))
            for r in reads:
                r["values"].append(read_value(self.cu, bufs[r["buffer"]], r["type"], int(r["index"])))
        stats(res, times)
        res["launch_times_ms"] = per_launch
        res["gated"] = self.timer.gated
        res["reads"] = reads


def resolve_int(v, sm):
    if isinstance(v, int):
        return v
    m = re.match(r"^\s*(\d+)\s*\*\s*sm\s*$", str(v))
    if m:
        return int(m.group(1)) * sm
    return int(str(v), 0)


def occupancy_target(spec):
    """K of a launch's shared_bytes = "occupancy:K", else None."""
    if isinstance(spec, int):
        return None
    m = re.match(r"^\s*occupancy\s*:\s*(\d+)\s*$", str(spec))
    if not m:
        raise ValueError('shared_bytes %r: a number or "occupancy:K"' % (spec,))
    if int(m.group(1)) < 1:
        raise ValueError("shared_bytes %r: K must be at least 1" % spec)
    return int(m.group(1))


def occupancy_shared(attrs, cc, k, static):
    """Dynamic shared memory such that at most k blocks fit on one SM (shared_bytes =
    "occupancy:K"): each block's allocation (static + dynamic + the memory the system
    reserves per block, rounded up to the allocation unit) is the smallest above a
    (k+1)-th of the SM's shared memory. As tests/common/fidelity.rs computes it."""
    per_sm = attrs.get("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR") or 0
    reserved = attrs.get("RESERVED_SHARED_MEMORY_PER_BLOCK") or 0
    optin = attrs.get("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN") or attrs.get("MAX_SHARED_MEMORY_PER_BLOCK") or 0
    if per_sm <= 0:
        raise ValueError("occupancy:%d: the device reports no shared memory per SM" % k)
    unit = 128 if cc >= (8, 0) else 256  # cuda_occupancy.h's allocation granularity
    per_block = -(-(per_sm // (k + 1) + 1) // unit) * unit
    dynamic = max(per_block - reserved - static, 0)
    if optin and dynamic + static > optin:
        raise ValueError("occupancy:%d: %d bytes of shared memory per block exceed the device's %d"
                         % (k, dynamic + static, optin))
    return dynamic


def resolve_args(args, bufs, sm):
    """runs.toml args -> (resolved spec strings, kernelParams array, objects to keep alive)."""
    specs, hold, ptrs = [], [], []
    for a in args:
        if a.startswith("buf:"):
            name, _, off = a[4:].partition("+")
            if name not in bufs:
                raise ValueError("argument %r: no buffer %s" % (a, name))
            data = struct.pack("<Q", bufs[name][0] + int(off or "0", 0))
        else:
            ty, _, val = a.partition(":")
            if ty not in gc.SCALAR_FMT:
                raise ValueError("argument %r: unknown type" % a)
            if "sm" in val:
                val = str(resolve_int(val, sm))
                a = "%s:%s" % (ty, val)
            data = gc.scalar_bytes(ty, val)
        specs.append(a)
        b = ctypes.create_string_buffer(data, len(data))
        hold.append(b)
        ptrs.append(ctypes.cast(b, ctypes.c_void_p))
    params = (ctypes.c_void_p * max(len(ptrs), 1))(*ptrs)
    hold.append(params)
    return specs, params, hold


FILL_CHUNK = 16 << 20


def fill_buffer(cu, d, nbytes, fill):
    """runs.toml fills: zero, TYPE:VALUE (every element), iota:u32."""
    L = cu.lib
    if fill == "zero":
        cu.check(L.cuMemsetD8_v2(d, 0, nbytes), "cuMemsetD8")
        return
    ty, _, val = fill.partition(":")
    if ty == "iota":
        if val != "u32" or nbytes % 4:
            raise ValueError("fill %r: iota:u32 over a multiple of 4 bytes" % fill)
        import array
        n = nbytes // 4
        step = FILL_CHUNK // 4
        for i in range(0, n, step):
            a = array.array("I", range(i, min(n, i + step)))
            if sys.byteorder != "little":
                a.byteswap()
            data = a.tobytes()
            cu.check(L.cuMemcpyHtoD_v2(d + 4 * i, data, len(data)), "cuMemcpyHtoD(fill)")
        return
    if ty not in gc.SCALAR_FMT:
        raise ValueError("fill %r: unknown type" % fill)
    pat = gc.scalar_bytes(ty, val)
    if nbytes % len(pat):
        raise ValueError("fill %r: %d bytes is not a whole number of elements" % (fill, nbytes))
    if pat == pat[:1] * len(pat):
        cu.check(L.cuMemsetD8_v2(d, pat[0], nbytes), "cuMemsetD8")
    elif len(pat) == 4:
        cu.check(L.cuMemsetD32_v2(d, struct.unpack("<I", pat)[0], nbytes // 4), "cuMemsetD32")
    else:
        chunk = pat * (min(nbytes, FILL_CHUNK) // len(pat))
        for off in range(0, nbytes, len(chunk)):
            n = min(len(chunk), nbytes - off)
            cu.check(L.cuMemcpyHtoD_v2(d + off, chunk, n), "cuMemcpyHtoD(fill)")


def read_value(cu, buf, ty, index):
    d, size = buf
    fmt = gc.SCALAR_FMT[ty]
    n = struct.calcsize(fmt)
    if (index + 1) * n > size:
        raise ValueError("read index %d of %s is past the buffer's %d bytes" % (index, ty, size))
    out = ctypes.create_string_buffer(n)
    cu.check(cu.lib.cuMemcpyDtoH_v2(out, d + index * n, n), "cuMemcpyDtoH(read)")
    return struct.unpack(fmt, out.raw)[0]


def check_outputs(sdir, spec, outputs):
    files = []
    for e in spec.get("expect", []):
        with open(os.path.join(sdir, e["reference"]), "rb") as f:
            want = f.read()
        c = gc.compare(e["type"], outputs.get(e["file"], b""), want,
                       float(e.get("abs_tol", 0)), float(e.get("rel_tol", 0)), max_show=3)
        entry = {"file": e["file"], "ok": c["ok"], "mismatches": c.get("mismatches"), "n": c.get("n")}
        if not c["ok"]:
            entry["first"] = c.get("first")
            if c.get("note"):
                entry["note"] = c["note"]
        files.append(entry)
    out = {"status": "none" if not files else ("pass" if all(f["ok"] for f in files) else "fail"),
           "files": files}
    if spec.get("stdout"):
        out["stdout"] = "not checked (printf runs once per repetition)"
    return out


def worker_main(plan_path, first, count, results_path):
    with open(plan_path) as f:
        plan = json.load(f)
    opts, items = plan["options"], plan["items"]
    with open(results_path, "a") as out:
        try:
            w = Worker(opts, out)
            w.start()
        except Exception as e:  # noqa
            out.write(json.dumps({"event": "fatal", "error": "%s: %s" % (type(e).__name__, e)}) + "\n")
            out.flush()
            return 2
        for i in range(first, min(len(items), first + count)):
            w.emit({"event": "start", "index": i})
            res, ok = w.run_item(items[i])
            w.emit({"event": "result", "index": i, "result": res})
            if not ok:
                return 3  # the context is poisoned: the parent starts a fresh worker
    return 0


# ----------------------------------------------------------------------------------
# parent

def nvidia_smi():
    """The GPU's clocks etc. from nvidia-smi (GPU 0), or None without nvidia-smi."""
    exe = shutil.which("nvidia-smi")
    if not exe:
        return None

    def query(fields):
        try:
            p = subprocess.run([exe, "--query-gpu=" + ",".join(fields), "--format=csv,noheader",
                                "-i", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if p.returncode != 0:
            return None
        vals = [v.strip() for v in p.stdout.decode(errors="replace").strip().splitlines()[0].split(",")]
        return dict(zip(fields, vals)) if len(vals) == len(fields) else None

    out = query(NVIDIA_SMI_FIELDS)
    if out is None:  # an older nvidia-smi without some field: one at a time
        out = {}
        for f in NVIDIA_SMI_FIELDS:
            r = query([f])
            if r:
                out.update(r)
    out["time"] = utc_now()
    return out


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def git_info():
    try:
        head = subprocess.run(["git", "-C", REPO, "rev-parse", "HEAD"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, timeout=20)
        if head.returncode != 0:
            return None, None
        st = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=20)
        return head.stdout.decode().strip(), bool(st.stdout.strip()) if st.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        return None, None


class Runner:
    """Runs the items through worker processes, one at a time, restarting a worker after
    a poisoned context, a hang (--timeout) or a crash."""

    def __init__(self, items, opts, env, on_result):
        self.items = items
        self.opts = opts
        self.env = env
        self.on_result = on_result
        self.device = None
        self.baseline = None
        self.tmp = tempfile.mkdtemp(prefix="hwcal-")
        self.plan = os.path.join(self.tmp, "plan.json")
        with open(self.plan, "w") as f:
            json.dump({"options": opts, "items": items}, f)

    def run(self, todo):
        """todo: indices into items, ascending. A worker takes a range of consecutive
        indices (items skipped by the parent split the ranges)."""
        k = 0
        n = 0
        while k < len(todo):
            first = todo[k]
            count = 1
            if not self.opts["one_per_process"]:
                while k + count < len(todo) and todo[k + count] == first + count:
                    count += 1
            n += 1
            done = self.worker(first, count, n)
            if done is None:  # no device: the remaining items cannot run either
                for i in todo[k + 1:]:
                    self.on_result(i, {"id": self.items[i]["id"], "status": "error",
                                       "error": "not run: no worker could open the device"},
                                   quiet=True)
                break
            k += done
        shutil.rmtree(self.tmp, ignore_errors=True)

    def worker(self, first, count, n):
        """Returns how many items of first.. were finished (with any status), None when the
        worker could not open the device."""
        results = os.path.join(self.tmp, "results-%d.jsonl" % n)
        errpath = os.path.join(self.tmp, "stderr-%d.txt" % n)
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", self.plan, str(first),
               str(count), results]
        with open(errpath, "wb") as err:
            p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=self.env,
                                 start_new_session=True)
        pos = 0
        last = None
        current, since = None, time.time()
        finished = 0
        timed_out = False
        buf = ""
        while True:
            exited = p.poll() is not None
            if os.path.exists(results):
                with open(results) as f:
                    f.seek(pos)
                    buf += f.read()
                    pos = f.tell()
            while "\n" in buf:
                line, buf = buf.split("\n", 1)
                ev = json.loads(line)
                if ev["event"] == "device":
                    if self.device is None:
                        self.device, self.baseline = ev["device"], ev["baseline"]
                    since = time.time()
                elif ev["event"] == "fatal":
                    p.wait()
                    self.fatal(first, "the worker could not start: " + ev["error"])
                    return None
                elif ev["event"] == "start":
                    current, since = ev["index"], time.time()
                elif ev["event"] == "result":
                    last = ev
                    self.on_result(ev["index"], ev["result"])
                    finished += 1
                    current, since = None, time.time()
            if exited:
                break
            limit = self.opts["timeout_s"] if current is not None else max(60, self.opts["timeout_s"])
            if time.time() - since > limit:
                timed_out = True
                try:
                    os.killpg(p.pid, 9)
                except OSError:
                    p.kill()
                p.wait()
                break
            time.sleep(0.01)
        with open(errpath, errors="replace") as f:
            stderr = f.read()[-3000:]
        if current is not None:  # the item it was running hung or killed it
            res = {"id": self.items[current]["id"], "status": "timeout" if timed_out else "crashed",
                   "error": ("ran past --timeout %ss; its worker was killed" % self.opts["timeout_s"]
                             if timed_out else "the worker died (exit %s)" % p.returncode)}
            if stderr:
                res["stderr"] = stderr
            self.on_result(current, res)
            finished += 1
        elif last is not None and last["result"].get("context_poisoned") and stderr:
            # the fault's report, where the driver printed one (warpjit's does)
            self.on_result(last["index"], dict(last["result"], stderr=stderr), quiet=True)
        elif finished == 0:
            why = "timed out starting" if timed_out else "exited %s" % p.returncode
            self.fatal(first, "the worker %s before its first item; stderr: %s" % (why, stderr))
            return None
        return finished

    def fatal(self, first, msg):
        self.on_result(first, {"id": self.items[first]["id"], "status": "error", "error": msg})


def summarize(doc):
    counts = {"items": 0, "ok": 0, "error": 0, "timeout": 0, "crashed": 0, "skipped": 0,
              "check_pass": 0, "check_fail": 0}
    for r in doc["samples"] + doc["runs"]:
        counts["items"] += 1
        counts[r["status"]] = counts.get(r["status"], 0) + 1
        st = r.get("check", {}).get("status")
        if st == "pass":
            counts["check_pass"] += 1
        elif st == "fail":
            counts["check_fail"] += 1
    return counts


def item_line(r):
    name = r["id"] + (" [%s]" % r["ptx"] if r.get("ptx") and "/" not in r["ptx"] else "")
    if r["status"] == "ok":
        s = "ok       %-56s median %10.4f ms  min %10.4f ms" % (name, r["median_ms"], r["min_ms"])
        ck = r.get("check", {}).get("status")
        if ck and ck != "none":
            s += "  check %s" % ck
        for rd in r.get("reads", []):
            s += "  %s=%s" % (rd["name"], rd["values"][-1] if rd["values"] else "?")
        return s
    detail = r.get("reason") or r.get("error") or ""
    return "%-8s %-56s %s" % (r["status"], name, detail.splitlines()[0][:150] if detail else "")


def write_json(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def calibrate(args, env):
    """Runs the kit; returns (doc, exit status)."""
    t0 = time.time()
    items = list_items(args.filters, args.runs)
    if args.scale != 1:
        for it in items:
            if it["kind"] == "run":
                it["run"] = scale_run(it["run"], args.scale)
    opts = {"reps": args.reps, "warmup_s": args.warmup_s, "spin_ms": args.spin_ms,
            "timeout_s": args.timeout, "scale": args.scale, "filters": args.filters,
            "one_per_process": args.one_per_process, "libcuda": args.libcuda,
            "runs_files": [os.path.relpath(os.path.abspath(p), REPO) for p in args.runs],
            "gate": not args.no_gate}
    commit, dirty = git_info()
    doc = {
        "schema": SCHEMA, "complete": False, "date": utc_now(), "elapsed_s": None,
        "tool": {"script": "ptx-samples/gen/hw_calibrate.py", "git_commit": args.commit or commit,
                 "git_dirty": dirty if not args.commit else None,
                 "python": platform.python_version(), "argv": sys.argv[1:]},
        "host": {"hostname": platform.node(), "platform": platform.platform()},
        "options": opts, "device": None, "baseline": None, "samples": [], "runs": [],
        "summary": None,
    }
    smi_before = nvidia_smi()
    results = [None] * len(items)
    kinds = [it["kind"] for it in items]

    def on_result(i, r, quiet=False):
        it = items[i]
        if it["kind"] == "sample":
            r.setdefault("ptx", it["ptx"])
        else:
            r.setdefault("name", it["run"]["name"])
        results[i] = r
        if not quiet:
            print(item_line(r))
            sys.stdout.flush()
        fill_doc()
        write_json(args.out, doc)

    def fill_doc():
        doc["samples"] = [r for i, r in enumerate(results) if r is not None and kinds[i] == "sample"]
        doc["runs"] = [r for i, r in enumerate(results) if r is not None and kinds[i] == "run"]
        if runner.device is not None:
            doc["device"] = dict(runner.device, nvidia_smi={"before": smi_before, "after": None})
            doc["baseline"] = runner.baseline
        doc["elapsed_s"] = round(time.time() - t0, 1)

    runner = Runner(items, opts, env, on_result)
    skips = [parent_skip_reason(it, args.self_test) for it in items]
    todo = [i for i, why in enumerate(skips) if not why]
    print("%d items (%d to run) with %d repetitions each; writing %s"
          % (len(items), len(todo), args.reps, args.out))
    sys.stdout.flush()
    for i, why in enumerate(skips):
        if why:
            on_result(i, {"id": items[i]["id"], "status": "skipped", "reason": why})
    runner.run(todo)
    for i, r in enumerate(results):
        if r is None:
            results[i] = {"id": items[i]["id"], "status": "error", "error": "not run"}
    fill_doc()
    if doc["device"] is not None:
        doc["device"]["nvidia_smi"]["after"] = nvidia_smi()
    doc["complete"] = True
    doc["summary"] = summarize(doc)
    doc["elapsed_s"] = round(time.time() - t0, 1)
    write_json(args.out, doc)
    s = doc["summary"]
    dev = doc["device"] or {}
    base = doc["baseline"] or {}
    print("SUMMARY: %d items on %s (cc %s, %s SMs, driver API %s): %d ok, %d skipped, %d error, "
          "%d timeout, %d crashed; outputs: %d pass, %d fail; empty-kernel baseline %s ms; "
          "%.1fs; wrote %s"
          % (s["items"], dev.get("name", "?"), dev.get("compute_capability", "?"),
             dev.get("sm_count", "?"), dev.get("driver_version", "?"), s["ok"], s["skipped"],
             s["error"], s["timeout"], s["crashed"], s["check_pass"], s["check_fail"],
             base.get("median_ms", "?"), doc["elapsed_s"], args.out))
    bad = s["error"] + s["timeout"] + s["crashed"] + s["check_fail"]
    return doc, (1 if bad else 0)


# ----------------------------------------------------------------------------------
# the CPU self-test

def build_shim():
    """cargo build --release -p warpjit-cuda; returns the built libcuda.so."""
    print("building warpjit's libcuda.so: cargo build --release -p warpjit-cuda")
    sys.stdout.flush()
    subprocess.run(["cargo", "build", "--release", "-p", "warpjit-cuda"], cwd=REPO, check=True)
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(REPO, "target")
    return os.path.join(target, "release", "libcuda.so")


def self_test(args):
    t0 = time.time()
    problems = []
    bad = minitoml.check_against_tomllib(args.runs)
    if bad:
        problems.append("minitoml disagrees with tomllib on " + ", ".join(bad))
    lib = args.libcuda or build_shim()
    libdir = tempfile.mkdtemp(prefix="hwcal-libcuda-")
    shutil.copy(lib, os.path.join(libdir, "libcuda.so.1"))
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = libdir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    env.setdefault("WARPJIT_ARCH", "sm_90")
    args.libcuda = None  # the workers find libcuda.so.1 as on a GPU machine
    if not args.out:
        args.out = os.path.join(tempfile.gettempdir(), "hwcal-self-test.json")
    print("self-test: %s as libcuda.so.1, WARPJIT_ARCH=%s, --scale %d, --reps %d"
          % (lib, env["WARPJIT_ARCH"], args.scale, args.reps))
    doc, _ = calibrate(args, env)
    shutil.rmtree(libdir, ignore_errors=True)
    problems += validate(doc)
    print("self-test: %s in %.1fs%s" % ("PASS" if not problems else "FAIL", time.time() - t0,
                                        "".join("\n  - " + p for p in problems)))
    return 1 if problems else 0


def validate(doc):
    """The self-test's checks of a document."""
    problems = []
    for key in ("schema", "complete", "date", "tool", "host", "options", "device", "baseline",
                "samples", "runs", "summary"):
        if key not in doc:
            problems.append("missing key " + key)
    if not doc.get("device") or not doc["device"].get("sm_count"):
        problems.append("no device block")
        return problems
    if not doc.get("baseline", {}).get("times_ms"):
        problems.append("no baseline times")
    for r in doc["samples"] + doc["runs"]:
        if r["status"] == "skipped":
            if not r.get("reason"):
                problems.append("%s skipped without a reason" % r["id"])
            continue
        if r.get("expect_status"):
            if r["status"] != r["expect_status"] or not r.get("context_poisoned"):
                problems.append("%s: status %s (%s), want %s and a poisoned context"
                                % (r["id"], r["status"], r.get("error"), r["expect_status"]))
            continue
        if r["status"] != "ok":
            problems.append("%s: %s: %s" % (r["id"], r["status"], r.get("error")))
            continue
        if len(r.get("times_ms", [])) != doc["options"]["reps"] or r.get("median_ms") is None:
            problems.append("%s: %s times for %d repetitions" % (r["id"], len(r.get("times_ms", [])),
                                                                doc["options"]["reps"]))
        if not r.get("ptx_sha256"):
            problems.append("%s: no ptx_sha256" % r["id"])
        if r["id"].startswith("fidelity/"):
            if not r.get("launches") or any("func" not in la for la in r["launches"]):
                problems.append("%s: no launches" % r["id"])
            for la in r.get("launches", []):
                k = la.get("shared_bytes_spec") and occupancy_target(la["shared_bytes_spec"])
                if k and (la["shared_bytes"] <= 0
                          or la["func"].get("max_active_blocks_per_sm", 0) > k):
                    problems.append("%s: %s: %s gave %d bytes and %s blocks per SM"
                                    % (r["id"], la["kernel"], la["shared_bytes_spec"],
                                       la["shared_bytes"], la["func"].get("max_active_blocks_per_sm")))
            for b in r.get("buffers", []):
                if "bytes_spec" in b and b["bytes"] != resolve_int(b["bytes_spec"], doc["device"]["sm_count"]):
                    problems.append("%s: buffer %s: %s resolved to %d bytes"
                                    % (r["id"], b["name"], b["bytes_spec"], b["bytes"]))
            for rd in r.get("reads", []):
                if len(rd["values"]) != doc["options"]["reps"]:
                    problems.append("%s: read %s has %d values" % (r["id"], rd["name"], len(rd["values"])))
                # the self-test runs say what their reads must be
                if "expect" in rd and any(v != rd["expect"] for v in rd["values"]):
                    problems.append("%s: read %s is %s, want %s" % (r["id"], rd["name"], rd["values"],
                                                                   rd["expect"]))
                if "min" in rd and any(v < rd["min"] for v in rd["values"]):
                    problems.append("%s: read %s is %s, want at least %s" % (r["id"], rd["name"],
                                                                            rd["values"], rd["min"]))
        else:
            if r.get("check", {}).get("status") == "fail":
                problems.append("%s [%s]: outputs differ from the reference: %s"
                                % (r["id"], r["ptx"], r["check"]["files"]))
            if "num_regs" not in r.get("func", {}):
                problems.append("%s: no function attributes" % r["id"])
    if not doc["samples"] and not doc["runs"]:
        problems.append("no items")
    return problems


# ----------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] + "\n\nSee the top of "
                                 "this file for what it does and the JSON schema.",
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("filters", nargs="*", help="only items whose id contains one of these "
                    "(cuda/vector_add, triton/, fidelity/)")
    ap.add_argument("--out", help="the JSON file to write (e.g. $OUT/h100.json)")
    ap.add_argument("--reps", type=int, default=10, help="timed repetitions per item (default 10)")
    ap.add_argument("--warmup-s", type=float, default=0.5,
                    help="seconds of spin kernel when a worker starts, to raise the clocks (default 0.5)")
    ap.add_argument("--spin-ms", type=float, default=10.0,
                    help="milliseconds of spin kernel before each item's launches (default 10)")
    ap.add_argument("--timeout", type=int, default=30, help="seconds per item before it counts "
                    "as hung (default 30)")
    ap.add_argument("--quick", action="store_true", help="3 repetitions, short warm-ups")
    ap.add_argument("--no-gate", action="store_true", help="time without the host-function gate")
    ap.add_argument("--one-per-process", action="store_true", help="a fresh worker process "
                    "(and CUDA context) per item")
    ap.add_argument("--libcuda", help="load this driver library instead of libcuda.so.1")
    ap.add_argument("--commit", help="record this as the tool's commit (where there is no .git)")
    ap.add_argument("--runs", action="append", metavar="TOML",
                    help="fidelity runs file (repeatable; default ptx-samples/fidelity/runs.toml)")
    ap.add_argument("--list", action="store_true", help="list the items and exit (no GPU)")
    ap.add_argument("--scale", type=int, default=1, metavar="N",
                    help="CPU self-test only (refused on a GPU): divide the fidelity runs' "
                         "sizes by N")
    ap.add_argument("--self-test", action="store_true",
                    help="no GPU: build warpjit's libcuda.so and run the kit against it "
                         "(--reps 2 unless given), then check the JSON")
    ap.add_argument("--worker", nargs=4, metavar=("PLAN", "FIRST", "COUNT", "RESULTS"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.worker:
        plan, first, count, results = args.worker
        return worker_main(plan, int(first), int(count), results)
    if not args.runs:
        args.runs = [RUNS_TOML] + ([SELFTEST_RUNS] if args.self_test else [])
    if args.list:
        for it in list_items(args.filters, args.runs):
            why = parent_skip_reason(it, args.self_test)
            print("%-48s %s%s" % (it["id"], it.get("ptx", it.get("run", {}).get("ptx", "")),
                                  "  (skipped: %s)" % why if why else ""))
        return 0
    if args.reps < 1:
        ap.error("--reps must be at least 1")
    if args.quick:
        args.reps, args.warmup_s, args.spin_ms = 3, 0.1, 1.0
    if args.self_test:
        if "--reps" not in sys.argv and not args.quick:
            args.reps = 2
        if "--warmup-s" not in sys.argv:
            args.warmup_s = 0.0002
        if "--spin-ms" not in sys.argv:
            args.spin_ms = 0.01
        return self_test(args)
    if not args.out:
        ap.error("--out PATH is required (e.g. --out $OUT/h100.json)")
    out_dir = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(out_dir, exist_ok=True)
    _, rc = calibrate(args, dict(os.environ))
    return rc


if __name__ == "__main__":
    sys.exit(main())
