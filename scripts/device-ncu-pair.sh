#!/usr/bin/env bash
# Issue 10, second step: with a TMPDIR per process (kprof's setting), two ncu processes on two
# GPUs overlap; does the per-kernel cost still grow with the metric count (replay passes)?
# The workload of scripts/device-ncu-lock.sh (40 synchronized elementwise kernels in an NVTX
# range), profiled with 2 metrics and with kprof's default set (31 metrics), alone and two at
# once, and with --cache-control none. Needs two GPUs. Results in $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/device-common.sh
. "$root/scripts/device-common.sh"
work=$(mktemp -d /tmp/kprof-pair.XXXXXX)
note "# Two ncu processes on two GPUs, by metric count"
note "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ); ncu $(ncu --version | grep -o 'Version [^ ]*')"
cat >"$work/w.py" <<'PY'
import sys, time, torch
n = int(sys.argv[1])
x = torch.randn(1 << 24, device="cuda")
torch.cuda.synchronize()
torch.cuda.nvtx.range_push("work")
t0 = time.time()
for _ in range(n):
    y = x * 2.0
    torch.cuda.synchronize()
t1 = time.time()
torch.cuda.nvtx.range_pop()
print(f"LOOP {(t1 - t0) / n * 1000:.1f} ms per kernel [{t0:.2f}, {t1:.2f}]")
PY
few=gpu__time_duration.sum,dram__bytes_read.sum
default=$("$root/build-device/kprof" metrics --set default --format json 2>/dev/null | python3 -c "import json,sys; print(','.join(m['name'] for m in json.load(sys.stdin)['metrics']))" 2>/dev/null)
[ -n "$default" ] || default=gpu__time_duration.sum,sm__cycles_active.avg,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,dram__bytes.sum.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct,l1tex__throughput.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__shared_mem_per_block_allocated,launch__occupancy_limit_blocks,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_branch_resolving_per_warp_active.pct,smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct,smsp__sass_average_branch_targets_threads_uniform.pct
one() { # gpu metrics extra...
  local gpu=$1 metrics=$2; shift 2
  mkdir -p "$work/tmp$gpu"
  CUDA_VISIBLE_DEVICES=$gpu TMPDIR="$work/tmp$gpu" ncu --clock-control none --nvtx --nvtx-include work/ \
    --metrics "$metrics" "$@" --csv --page raw python3 "$work/w.py" 30 2>&1 | grep -o 'LOOP.*' | head -1
}
one 0 "$few" >/dev/null
for name in few default; do
  metrics=${!name}
  for extra in "" "--cache-control none"; do
    # shellcheck disable=SC2086
    a=$(one 0 "$metrics" $extra)
    # shellcheck disable=SC2086
    { one 0 "$metrics" $extra >"$work/p0" & one 1 "$metrics" $extra >"$work/p1" & wait; }
    note "- $name metrics ${extra:-(cache control all)}: alone GPU 0: $a; together: GPU 0 $(cat "$work/p0"), GPU 1 $(cat "$work/p1")"
  done
done
rm -rf "$work"
