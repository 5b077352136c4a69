#!/usr/bin/env bash
# --launches auto against many on single-kernel examples: what timing the call first costs a call of few launches.
# Cold `kprof profile` (the truth on, as by default) of CASES (vadd softmax matmul), one untimed
# run first (Triton's cache), then auto and many alternating, RUNS (2) each; wall seconds per run
# in $OUT/summary.md. Builds kprof (bench/device/common.sh; SKIP_BUILD=1 reuses build-device/).
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
# shellcheck source=bench/device/common.sh
. "$root/bench/device/common.sh"
note "# --launches auto against many on kernels of few launches"
note_environment
build_unless_skipped python
work=$(mktemp -d /tmp/kprof-launches-ab.XXXXXX)
for c in ${CASES:-vadd softmax matmul}; do
  k=examples/$c/kernel.py p=examples/$c/problem.py
  "$kprof" profile "$k" "$p" --clock-control none --out "$work/$c-warm" --format json >/dev/null 2>&1
  for ((i = 1; i <= ${RUNS:-2}; i++)); do
    for l in auto many; do
      t0=$(now)
      "$kprof" profile "$k" "$p" --clock-control none --launches "$l" --out "$work/$c-$l-$i" \
        --format json >"$work/$c-$l-$i.json" 2>"$work/$c-$l-$i.err"
      note "$c $l run $i: rc $? wall $(elapsed "$t0" "$(now)") s"
    done
  done
done
