#!/usr/bin/env bash
# One lent GPU's whole calibration session, as a single command (the device
# machine's time is short: everything that needs the GPU is here, in order of
# value, each part under its own time limit so that a slow part cannot cost the
# others):
#
#   1. the hardware calibration kit (hw_calibrate.py) over the corpus and every
#      fidelity run: kernel times, clock64 reads, driver-built kernel attributes,
#      clocks, outputs against the references           -> $OUT/hwcal.json
#   1b. gpu_check.py over every sample (outputs, printf and expected faults,
#      each launch in its own process)                    -> $OUT/gpucheck.json
#   1c. gpu_objects.py: texture/surface objects of every geometry, written and
#      read back (no kernel)                              -> $OUT/hwcal.log
#   2. Nsight Compute counters for the fidelity runs (DRAM and L2 sectors, L1
#      sectors and hit rates, shared-memory wavefronts and bank conflicts, SASS
#      warp-instructions, cycles), one ncu invocation per group of runs; caches
#      are not flushed, so each run's second launch of a kernel (after the
#      kit's warm-up repetition) sees the back-to-back state that the kit's
#      timed repetitions see                              -> $OUT/ncu-GROUP.csv
#   3. the machine: nvidia-smi -q, ncu and driver versions -> $OUT/machine.txt
#
#   bash ptx-samples/gen/hw_device_run.sh COMMIT      (OUT must name a folder)
#
# Needs python3 (standard library), the driver's libcuda.so.1, and ncu on PATH
# or under /opt/nvidia or /usr/local/cuda (part 2 is skipped without it).
set -u
COMMIT=${1:-unknown}
: "${OUT:?OUT must name the output folder}"
cd "$(dirname "$0")/../.."
export PYTHONUNBUFFERED=1
PY=$(command -v python3)
start=$(date +%s)
elapsed() { echo "[$(( $(date +%s) - start )) s] $*"; }

{
  date -u; uname -a; nvidia-smi; nvidia-smi -q -d CLOCK,ECC,PERFORMANCE,MEMORY
  "$PY" --version
} > "$OUT/machine.txt" 2>&1
elapsed "machine recorded"

# 1. The kit: the corpus and every fidelity run, ten timed repetitions each.
timeout -k 5 "${HWCAL_LIMIT_S:-270}" "$PY" ptx-samples/gen/hw_calibrate.py \
  --commit "$COMMIT" --out "$OUT/hwcal.json" ${HWCAL_FILTER:-} > "$OUT/hwcal.log" 2>&1
elapsed "kit exit status $?"
tail -n 15 "$OUT/hwcal.log"

# 1b. Every sample's outputs, printf and expected faults (its log joins the kit's).
timeout -k 5 "${GPUCHECK_LIMIT_S:-60}" "$PY" ptx-samples/gen/gpu_check.py --jobs 8 --timeout 20 \
  --json "$OUT/gpucheck.json" >> "$OUT/hwcal.log" 2>&1
elapsed "gpu_check exit status $?"
# 1c. Texture and surface objects of every geometry: copies in and out (seconds).
timeout -k 5 30 "$PY" ptx-samples/gen/gpu_objects.py >> "$OUT/hwcal.log" 2>&1
elapsed "gpu_objects round trips exit status $?"

# 2. Counters. ncu's own metric list decides which of the wanted ones exist here.
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -n 1)
if [ -z "$NCU" ]; then elapsed "no ncu: counters skipped"; exit 0; fi
"$NCU" --version >> "$OUT/machine.txt" 2>&1
WANT="gpu__time_duration.sum sm__cycles_elapsed.max smsp__inst_executed.sum
dram__sectors_read.sum dram__sectors_write.sum lts__t_sectors_op_read.sum
lts__t_sectors_op_write.sum lts__t_sector_hit_rate.pct
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
sm__warps_active.avg.pct_of_peak_sustained_active"
"$NCU" --query-metrics > /tmp/ncu-metrics.txt 2>&1
METRICS=""
for m in $WANT; do
  if grep -Eq "^[[:space:]]*${m%%.*}[[:space:]]" /tmp/ncu-metrics.txt; then METRICS="$METRICS${METRICS:+,}$m"
  else echo "metric not offered here: $m" >> "$OUT/machine.txt"; fi
done
elapsed "ncu metrics: $METRICS"
group() {  # NAME LIMIT_S FILTER...
  local name=$1 limit=$2; shift 2
  timeout -k 5 "$limit" "$NCU" --target-processes all --cache-control none --clock-control none \
    --metrics "$METRICS" --csv --page raw --log-file "$OUT/ncu-$name.csv" \
    "$PY" ptx-samples/gen/hw_calibrate.py --commit "$COMMIT" --out "/tmp/ncu-$name.json" \
    --reps 1 --warmup-s 0.01 --spin-ms 0.01 --no-gate --timeout 120 "$@" \
    > "/tmp/ncu-$name.log" 2>&1
  elapsed "ncu $name exit status $? ($(grep -c '"' "$OUT/ncu-$name.csv" 2>/dev/null) csv lines)"
}
group transpose "${NCU_TRANSPOSE_S:-90}" fidelity/transpose fidelity/cudasamples_transpose
group copy "${NCU_COPY_S:-50}" fidelity/stride_copy fidelity/offset_copy fidelity/gpumembench fidelity/accelsim_shared
group stream "${NCU_STREAM_S:-50}" fidelity/babelstream fidelity/gpubench_stream fidelity/gpubench_cache
group reduce "${NCU_REDUCE_S:-45}" fidelity/harris fidelity/cuda_sdk fidelity/mixbench
elapsed "done"
