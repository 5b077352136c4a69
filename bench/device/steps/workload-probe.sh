#!/usr/bin/env bash
# Issue 42's first measurements, one device visit: for each KernelBench problem given (files used
# as they are, carried in .device/kernelbench/), what one call costs
#   - plain, and under PyTorch's profiler (every launch's duration from CUPTI activity records);
#   - under ncu with one metric (gpu__time_duration.sum, no sections: one pass, no replay);
#   - under ncu with kprof's default sections on ONE launch picked by name and --launch-skip;
#   - under ncu while PyTorch's profiler records too (do two CUPTI subscribers coexist?).
# Writes $OUT/workload-probe.md (and the raw logs in $OUT/workload-probe.tar.gz).
#   PROBLEMS=".device/kernelbench/35_LSTM.py .device/kernelbench/11_VGG16.py" \
#     bench/device/run workload-probe
set -uo pipefail
out=${OUT:-/tmp/workload-probe}
mkdir -p "$out/probe"
log="$out/probe"
summary="$out/workload-probe.md"
problems=${PROBLEMS:-".device/kernelbench/35_LSTM.py .device/kernelbench/11_VGG16.py"}
limit=${PROBE_LIMIT_S:-150}
ncu=${NCU:-ncu}
empty=$(mktemp -d)
probe="python3 bench/device/workload_probe.py"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
rows() { grep -c '^"[0-9]' "$1" 2>/dev/null || echo 0; }

{
  echo "# Workload probe, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1);"
  echo "ncu: $($ncu --version | tail -1); torch $(python3 -c 'import torch; print(torch.__version__)');"
  echo "nsys: $(command -v nsys || echo absent). All ncu runs with --clock-control none."
  echo
} >"$summary"

for problem in $problems; do
  name=$(basename "$problem" .py)
  echo "## $name" >>"$summary"
  echo >>"$summary"

  start=$(now)
  timeout "$limit" $probe timeline "$problem" >"$log/$name.timeline.out" 2>&1
  rc=$?
  echo "- timeline (plain + PyTorch profiler): rc $rc, $(secs "$start" "$(now)") s: \`$(tail -1 "$log/$name.timeline.out" | cut -c1-900)\`" >>"$summary"

  for count in 200 all; do
    start=$(now)
    extra=()
    [ "$count" = all ] || extra=(--launch-count "$count")
    timeout "$limit" "$ncu" --clock-control none --target-processes all --csv --page raw \
      --section-folder "$empty" --metrics gpu__time_duration.sum \
      --nvtx --nvtx-include "kprof_call/" "${extra[@]}" \
      $probe call "$problem" >"$log/$name.ncu-duration-$count.csv" 2>"$log/$name.ncu-duration-$count.err"
    rc=$?
    echo "- ncu duration only, launches $count: rc $rc, $(secs "$start" "$(now)") s, $(rows "$log/$name.ncu-duration-$count.csv") rows" >>"$summary"
  done

  # One representative with kprof's default sections: the first launch of the call's top kernel
  # by name (from the timeline), after skipping 2 launches of it.
  top=$(python3 -c "import json,sys; d=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); print(d['top'][0]['name'].split('(')[0].split('<')[0].split()[-1])" "$log/$name.timeline.out" 2>/dev/null)
  if [ -n "$top" ]; then
    start=$(now)
    timeout "$limit" "$ncu" --clock-control none --target-processes all --csv --page details \
      --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
      --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
      --nvtx --nvtx-include "kprof_call/" --kernel-name "regex:$top" --launch-skip 2 --launch-count 1 \
      $probe call "$problem" >"$log/$name.ncu-one.csv" 2>"$log/$name.ncu-one.err"
    rc=$?
    echo "- ncu default sections on one launch of \`$top\` (--kernel-name regex, --launch-skip 2 --launch-count 1): rc $rc, $(secs "$start" "$(now)") s, $(grep -c '"Duration"' "$log/$name.ncu-one.csv") Duration rows" >>"$summary"

    start=$(now)
    timeout "$limit" "$ncu" --clock-control none --target-processes all --csv --page raw \
      --section-folder "$empty" --metrics gpu__time_duration.sum \
      --nvtx --nvtx-include "kprof_call/" --kernel-name "regex:$top" --launch-count 1 \
      $probe call "$problem" --with-profiler >"$log/$name.ncu-with-profiler.out" 2>"$log/$name.ncu-with-profiler.err"
    rc=$?
    echo "- ncu (one launch) while PyTorch's profiler records the call: rc $rc, $(secs "$start" "$(now)") s: \`$(grep '"mode"' "$log/$name.ncu-with-profiler.out" | tail -1 | cut -c1-300)\`; stderr: \`$(grep -i 'cupti\|error\|warn' "$log/$name.ncu-with-profiler.err" | head -3 | tr '\n' ' ' | cut -c1-300)\`" >>"$summary"
  fi
  echo >>"$summary"
done

tar -czf "$out/workload-probe.tar.gz" -C "$out" probe 2>/dev/null
rm -rf "$log" "$empty"
cat "$summary"
