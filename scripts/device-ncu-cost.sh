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
default=$("$kprof" metrics --set default --format json | python3 -c "import json,sys; print(','.join(m['name'] for m in json.load(sys.stdin)['metrics']))")
cat >"$work/w.py" <<'PY'
import resource, sys, time, torch
n, bits = int(sys.argv[1]), int(sys.argv[2])
x = torch.randn(1 << bits, device="cuda")
torch.cuda.synchronize()
rusage = lambda: resource.getrusage(resource.RUSAGE_THREAD)
torch.cuda.nvtx.range_push("work")
r0, t0 = rusage(), time.time()
for _ in range(n):
    y = x * 2.0
    torch.cuda.synchronize()
t1, r1 = time.time(), rusage()
torch.cuda.nvtx.range_pop()
per = lambda a, b: (b - a) / n * 1000
print(f"LOOP {per(t0, t1):.1f} ms per kernel: user {per(r0.ru_utime, r1.ru_utime):.1f} ms, "
      f"system {per(r0.ru_stime, r1.ru_stime):.1f} ms")
PY
note ""
note "| floats | bytes written | metrics | per kernel |"
note "|---|---|---|---|"
for bits in ${BITS:-16 20 24 27}; do
  for name in one default; do
    if [ "$name" = one ]; then metrics=gpu__time_duration.sum; else metrics=$default; fi
    line=$(TMPDIR="$work" ncu --clock-control none --nvtx --nvtx-include work/ --metrics "$metrics" \
      --csv --page raw python3 "$work/w.py" "${N:-12}" "$bits" 2>&1 | grep -o 'LOOP.*' | head -1)
    note "| 2^$bits | $(( 4 << bits )) | $name | ${line#LOOP } |"
  done
done
rm -rf "$work"
