#!/usr/bin/env bash
# Issue 10, fourth step: what the driver time of one profiled kernel (docs/device-runs/
# 2026-12-01-driver-serialization.md) depends on. An elementwise kernel (y = x * 2) over 2^K
# floats for several K, each launch synchronized inside an NVTX range, profiled with one metric
# (one pass) and with kprof's default set (14 passes); per kernel: wall time and the main thread's
# user and system CPU time. One GPU is enough. Results in $OUT/summary.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/device-common.sh
. "$root/scripts/device-common.sh"
work=$(mktemp -d /tmp/kprof-cost.XXXXXX)
note "# What one profiled kernel costs, by metric count and memory size"
note_environment
[ -x "$kprof" ] || build_kprof
default=$(default_metrics)
note ""
note "| floats | bytes written | metrics | per kernel |"
note "|---|---|---|---|"
for bits in ${BITS:-16 20 24 27}; do
  for name in one default; do
    if [ "$name" = one ]; then metrics=gpu__time_duration.sum; else metrics=$default; fi
    line=$(TMPDIR="$work" ncu --clock-control none --nvtx --nvtx-include work/ --metrics "$metrics" \
      --csv --page raw python3 "$root/scripts/device-ncu-workload.py" "${N:-12}" "$bits" 2>&1 | grep -o 'LOOP.*' | head -1)
    note "| 2^$bits | $(( 4 << bits )) | $name | ${line#LOOP } |"
  done
done
rm -rf "$work"
