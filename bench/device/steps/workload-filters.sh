#!/usr/bin/env bash
# Issue 42: which ncu filters pick representatives of a model's launches, measured in one device
# visit on KernelBench level-3 LSTM and VGG16 (files carried in .device/kernelbench/): the chrome
# trace of PyTorch's profiler (what each kernel event carries, its cost), ncu's
# --filter-mode per-launch-config --launch-count 1 (one launch per name and launch shape?) with one
# metric and with default sections, and --kernel-id with a regex. Writes $OUT/probe2.md.
#   bench/device/run workload-filters
set -u
out=${OUT:-/tmp/p2}; mkdir -p $out
empty=$(mktemp -d)
{
for p in 35_LSTM 11_VGG16; do
  f=.device/kernelbench/$p.py
  echo "## $p"
  s=$(date +%s.%N); python3 bench/device/workload_probe.py trace $f /tmp/$p.trace.json 2>/dev/null | tail -1 | cut -c1-1500; e=$(date +%s.%N); echo "trace mode total: $(awk -v a=$s -v b=$e "BEGIN{printf \"%.2f\", b-a}") s"
  s=$(date +%s.%N)
  timeout 170 ncu --clock-control none --target-processes all --csv --page raw --section-folder $empty --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__shared_mem_per_block_static \
    --nvtx --nvtx-include "kprof_call/" --filter-mode per-launch-config --launch-count 1 \
    python3 bench/device/workload_probe.py call $f > /tmp/$p.plc.csv 2>/tmp/$p.plc.err; rc=$?
  e=$(date +%s.%N); echo "per-launch-config count 1: rc $rc $(awk -v a=$s -v b=$e "BEGIN{printf \"%.2f\", b-a}") s rows $(grep -c '^"[0-9]' /tmp/$p.plc.csv)"
  python3 - /tmp/$p.plc.csv <<'PY'
import csv,sys
rows=list(csv.reader(open(sys.argv[1])))
h=[i for i,r in enumerate(rows) if r and r[0]=="ID"]
if h:
  hd=rows[h[0]]; 
  for r in rows[h[0]+2:]:
    d=dict(zip(hd,r)); print(d.get("ID"), d.get("Kernel Name","")[:60], d.get("Grid Size"), d.get("Block Size"), d.get("launch__grid_size"), d.get("launch__block_size"), d.get("gpu__time_duration.sum"))
PY
  s=$(date +%s.%N)
  timeout 170 ncu --clock-control none --target-processes all --csv --page details --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
    --nvtx --nvtx-include "kprof_call/" --filter-mode per-launch-config --launch-count 1 \
    python3 bench/device/workload_probe.py call $f > /tmp/$p.plc2.csv 2>/tmp/$p.plc2.err; rc=$?
  e=$(date +%s.%N); echo "per-launch-config count 1, default sections: rc $rc $(awk -v a=$s -v b=$e "BEGIN{printf \"%.2f\", b-a}") s, Duration rows $(grep -c '"Duration"' /tmp/$p.plc2.csv)"
  s=$(date +%s.%N)
  timeout 170 ncu --clock-control none --target-processes all --csv --page raw --section-folder $empty --metrics gpu__time_duration.sum \
    --nvtx --nvtx-include "kprof_call/" --kernel-id ":::regex:elemWise:7" \
    python3 bench/device/workload_probe.py call $f > /tmp/$p.kid.csv 2>/tmp/$p.kid.err; rc=$?
  e=$(date +%s.%N); echo "kernel-id :::regex:elemWise:7: rc $rc $(awk -v a=$s -v b=$e "BEGIN{printf \"%.2f\", b-a}") s rows $(grep -c '^"[0-9]' /tmp/$p.kid.csv) $(grep -i error /tmp/$p.kid.err | head -2)"
done
} > $out/probe2.md 2>&1
cat $out/probe2.md
